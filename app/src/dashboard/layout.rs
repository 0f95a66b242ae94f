//! Where everything goes: the rectangles of the header, video panes,
//! transport strip, plot and side panel for a window size. Pure
//! arithmetic, shared by the state machine (hit testing) and the view
//! (drawing), so what is drawn and what is clicked always agree.
//!
//! The side panel keeps a fixed width range and the plot a fixed height
//! range; the video takes what is left, so the layout stays usable down to
//! 1024x600 and degrades (smaller panes) rather than overlapping below it.
//! A side panel too short for every section goes compact (clip facts on
//! two rows, no spacing) and then lists fewer worst frames, which the view
//! says ("+N more") rather than dropping them unseen.

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
/// Height of the caption strip above the video panes, which names what
/// each pane shows (and holds a heat map's legend), so no label covers
/// the picture.
pub const CAPTION: f32 = ROW + 6.0;
/// Rows of the clip facts section below its title (resolution, format,
/// rate, frames, model), and in the compact panel.
const CLIP_ROWS: f32 = 5.0;
const CLIP_ROWS_COMPACT: f32 = 2.0;

/// The regions of the dashboard, in window pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub width: f32,
    pub height: f32,
    /// Top strip: file names and clip description.
    pub header: Rect,
    /// The whole video region (both panes, their gap and the caption
    /// strip above them).
    pub video: Rect,
    /// The reference and distorted panes when side by side.
    pub side_panes: [Rect; 2],
    /// The caption strips above the two side-by-side panes.
    pub side_captions: [Rect; 2],
    /// The single pane of the wipe, difference and heat-map views.
    pub single_pane: Rect,
    /// The caption strip above the single pane.
    pub single_caption: Rect,
    /// Strip under the video: play state, frame number, timecode, scrubber.
    pub transport: Rect,
    /// The scrubber track inside the transport strip.
    pub scrubber: Rect,
    /// The plot panel, and the data area inside it (axes around it).
    pub plot: Rect,
    pub plot_area: Rect,
    /// The right-hand panel with clip facts, values, pooled figures.
    pub side: Rect,
    /// Clickable rows of the worst-frames list, worst first; only the first
    /// [`Layout::worst_shown`] fit the panel.
    pub worst_rows: [Rect; WORST_ROWS],
    /// How many worst-frame rows fit (all of them unless the window is short).
    pub worst_shown: usize,
    /// The side panel is short: clip facts on two rows, no spacing.
    pub compact: bool,
    /// Top of the side panel's sections (clip, frame, pooled, worst frames),
    /// each a title row and its rows.
    pub side_sections: [f32; 4],
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
            // Room for the play button, frame, timecode and loop sign; at
            // most a little over half the strip, so a narrow window keeps a
            // scrubber.
            transport.x0 + (transport.width() * 0.55).min(300.0),
            transport.y0 + 10.0,
            transport.x1 - 10.0,
            transport.y1 - 10.0,
        );
        let video = Rect::new(PAD, header.y1 + PAD, main_x1, transport.y0 - PAD);
        let caption_y1 = (video.y0 + CAPTION).min(video.y1);
        let half = (video.width() - PAD) * 0.5;
        let (left, right) = (video.x0 + half, video.x1 - half);
        let side_panes = [
            Rect::new(video.x0, caption_y1, left, video.y1),
            Rect::new(right, caption_y1, video.x1, video.y1),
        ];
        let side_captions = [
            Rect::new(video.x0, video.y0, left, caption_y1),
            Rect::new(right, video.y0, video.x1, caption_y1),
        ];
        let single_pane = Rect::new(video.x0, caption_y1, video.x1, video.y1);
        let single_caption = Rect::new(video.x0, video.y0, video.x1, caption_y1);
        let (compact, sections, worst_shown) = side_sections(side);
        let worst_top = sections[3] + ROW;
        let worst_rows = std::array::from_fn(|i| {
            let y = worst_top + i as f32 * ROW;
            Rect::new(side.x0 + 4.0, y, side.x1 - 4.0, y + ROW)
        });
        let help_w = 640.0f32.min(w - 40.0).max(1.0);
        let help_h = 560.0f32.min(h - 40.0).max(1.0);
        let help = Rect::xywh((w - help_w) * 0.5, (h - help_h) * 0.5, help_w, help_h);
        Layout {
            width: w,
            height: h,
            header,
            video,
            side_panes,
            side_captions,
            single_pane,
            single_caption,
            transport,
            scrubber,
            plot,
            plot_area,
            side,
            worst_rows,
            worst_shown,
            compact,
            side_sections: sections,
            help,
        }
    }

    /// The clickable worst-frame rows that fit.
    pub fn shown_worst_rows(&self) -> &[Rect] {
        &self.worst_rows[..self.worst_shown]
    }
}

/// The side panel's sections in `side`: whether it is compact, the top of
/// each section (clip facts, frame values, pooled, worst frames) and how
/// many worst-frame rows fit. Generous first (a spare row under the frame
/// values, spacing between sections); a short panel loses the spare row,
/// then goes compact, and only then shortens the worst-frames list.
fn side_sections(side: Rect) -> (bool, [f32; 4], usize) {
    // Title rows and rows: clip, frame (VMAF and the values), pooled (4).
    let frame = 2.0 + FRAME_VALUE_ROWS as f32;
    let worst = 1.0 + WORST_ROWS as f32;
    let plans = [
        (false, CLIP_ROWS, 1.0, PAD),
        (false, CLIP_ROWS, 0.0, PAD),
        (true, CLIP_ROWS_COMPACT, 0.0, 2.0),
    ];
    let need = |(_, clip, air, gap): (bool, f32, f32, f32)| {
        PAD + (1.0 + clip + frame + air + 5.0 + worst) * ROW + 3.0 * gap
    };
    let plan = plans.into_iter().find(|p| need(*p) <= side.height()).unwrap_or(plans[2]);
    let (compact, clip, air, gap) = plan;
    let s0 = side.y0 + PAD;
    let s1 = s0 + (1.0 + clip) * ROW + gap;
    let s2 = s1 + (frame + air) * ROW + gap;
    let s3 = s2 + 5.0 * ROW + gap;
    let room = ((side.y1 - s3) / ROW - 1.0).floor().max(0.0) as usize;
    (compact, [s0, s1, s2, s3], room.min(WORST_ROWS))
}
