//! Where everything goes: the rectangles of the header, video panes,
//! transport strip, plot and side panel for a window size. Pure
//! arithmetic, shared by the state machine (hit testing) and the view
//! (drawing), so what is drawn and what is clicked always agree.
//!
//! The side panel keeps a fixed width range and the plot a fixed height
//! range; the video takes what is left, so the layout stays usable down to
//! 1024x600 and degrades (smaller panes) rather than overlapping below it.

use vqscope_renderer::Rect;

/// Height of one text row in the side panel and header.
pub const ROW: f32 = 18.0;
/// Gap between regions.
pub const PAD: f32 = 6.0;
/// Rows listed under "worst frames".
pub const WORST_ROWS: usize = 5;
/// Values the side panel's frame section lists below VMAF (the first of
/// [`super::scores::History::plottable`]).
pub const FRAME_VALUE_ROWS: usize = 4;

/// The regions of the dashboard, in window pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub width: f32,
    pub height: f32,
    /// Top strip: file names and clip description.
    pub header: Rect,
    /// The whole video region (both panes and their gap).
    pub video: Rect,
    /// The reference and distorted panes when side by side.
    pub side_panes: [Rect; 2],
    /// The single pane of the wipe and difference views.
    pub single_pane: Rect,
    /// Strip under the video: play state, frame number, timecode, scrubber.
    pub transport: Rect,
    /// The scrubber track inside the transport strip.
    pub scrubber: Rect,
    /// The plot panel, and the data area inside it (axes around it).
    pub plot: Rect,
    pub plot_area: Rect,
    /// The right-hand panel with clip facts, values, pooled figures.
    pub side: Rect,
    /// Clickable rows of the worst-frames list, best first.
    pub worst_rows: [Rect; WORST_ROWS],
    /// Top of the side panel's sections (clip, frame, pooled).
    pub side_sections: [f32; 3],
    /// The help overlay's box.
    pub help: Rect,
}

impl Layout {
    /// The layout for a `width` x `height` window (any size; at least 1x1
    /// is assumed, smaller inputs are treated as 1).
    pub fn new(width: u32, height: u32) -> Self {
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let header = Rect::new(0.0, 0.0, w, 2.0 * ROW + 2.0 * PAD);
        let side_w = (w * 0.22).clamp(240.0, 320.0).min(w * 0.4);
        let side = Rect::new(w - side_w, header.y1 + PAD, w - PAD, h - PAD);
        let main_x1 = side.x0 - PAD;
        let plot_h = (h * 0.28).clamp(150.0, 280.0).min(h * 0.4);
        let plot = Rect::new(PAD, h - PAD - plot_h, main_x1, h - PAD);
        let plot_area =
            Rect::new(plot.x0 + 44.0, plot.y0 + ROW + PAD, plot.x1 - 52.0, plot.y1 - 22.0);
        let transport = Rect::new(PAD, plot.y0 - PAD - 28.0, main_x1, plot.y0 - PAD);
        let scrubber = Rect::new(
            transport.x0 + 250.0,
            transport.y0 + 10.0,
            transport.x1 - 10.0,
            transport.y1 - 10.0,
        );
        let video = Rect::new(PAD, header.y1 + PAD, main_x1, transport.y0 - PAD);
        let half = (video.width() - PAD) * 0.5;
        let side_panes = [
            Rect::new(video.x0, video.y0, video.x0 + half, video.y1),
            Rect::new(video.x1 - half, video.y0, video.x1, video.y1),
        ];
        // Clip facts (5 rows + title), current frame (6 + title), pooled
        // (4 + title), then the worst frames (title + rows).
        let s0 = side.y0 + PAD;
        let s1 = s0 + 6.0 * ROW + PAD;
        // Title, VMAF, the values, one row of air.
        let s2 = s1 + (FRAME_VALUE_ROWS as f32 + 3.0) * ROW + PAD;
        let worst_top = s2 + 5.0 * ROW + PAD + ROW;
        let worst_rows = std::array::from_fn(|i| {
            let y = worst_top + i as f32 * ROW;
            Rect::new(side.x0 + 4.0, y, side.x1 - 4.0, y + ROW)
        });
        let help_w = 560.0f32.min(w - 40.0).max(1.0);
        let help_h = 500.0f32.min(h - 40.0).max(1.0);
        let help = Rect::xywh((w - help_w) * 0.5, (h - help_h) * 0.5, help_w, help_h);
        Layout {
            width: w,
            height: h,
            header,
            video,
            side_panes,
            single_pane: video,
            transport,
            scrubber,
            plot,
            plot_area,
            side,
            worst_rows,
            side_sections: [s0, s1, s2],
            help,
        }
    }
}
