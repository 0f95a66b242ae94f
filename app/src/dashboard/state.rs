//! The dashboard's state machine: which frame, playing or not, zoom and
//! pan, view mode, wipe position, plot time window, hover, help. It is
//! driven by a small [`Input`] enum (keys, cursor, buttons, wheel, resize,
//! time passing) and never touches the GPU, the window or the video, so
//! every interaction can be tested by feeding it synthetic events.
//!
//! The window loop translates winit events into [`Input`]s; the headless
//! screenshot builds the same state, so what a test asserts here is what a
//! user gets.

use std::path::PathBuf;

use glam::{Affine2, Vec2};
use vqscope_renderer::Rect;

use super::layout::Layout;

/// Largest magnification: 32 screen pixels per picture pixel.
pub const MAX_SCALE: f32 = 32.0;
/// From this magnification the picture is sampled nearest and a pixel grid
/// is drawn.
pub const GRID_SCALE: f32 = 8.0;
/// How close (pixels) the cursor must be to the wipe line to grab it.
const WIPE_GRAB: f32 = 8.0;
/// Fewest frames the plot's time window can show when zoomed in.
const MIN_PLOT_SPAN: f64 = 8.0;
/// Magnification per wheel line (one notch of most wheels): four notches
/// double it, fine enough to stop near the wanted size (a doubling per
/// notch overshoots: fit 57% to 459% in three).
pub const ZOOM_PER_LINE: f32 = 1.189_207_1; // 2^(1/4)
/// Pixels kept free at each end of the plot's time axis, so the cursor on
/// the first or last frame stays clear of the axes.
pub const PLOT_INSET: f32 = 6.0;
/// How long a message in the header ([`State::message`]) stays up unless
/// a key or click clears it sooner.
pub const MESSAGE_SECONDS: f64 = 6.0;

/// How the two pictures are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    /// Reference left, distorted right, same zoom and pan.
    Side,
    /// One pane: reference left of a draggable split line, distorted right.
    Wipe,
    /// One pane: |reference - distorted| of the luma, amplified.
    Diff,
    /// One pane: the per-pixel luma SSIM of the shown pair as a heat map,
    /// computed on the GPU only while this mode is on.
    Ssim,
    /// One pane: the per-pixel CIEDE2000 colour difference of the shown
    /// pair as a heat map, likewise.
    DeltaE,
    /// One pane: CAMBI's per-pixel banding (c-values at the finest scale)
    /// of the shown distorted picture as a heat map, likewise.
    Cambi,
}

impl ViewMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "side" => Some(ViewMode::Side),
            "wipe" => Some(ViewMode::Wipe),
            "diff" => Some(ViewMode::Diff),
            "ssim" => Some(ViewMode::Ssim),
            "ciede" => Some(ViewMode::DeltaE),
            "cambi" => Some(ViewMode::Cambi),
            _ => None,
        }
    }

    fn next(self) -> Self {
        match self {
            ViewMode::Side => ViewMode::Wipe,
            ViewMode::Wipe => ViewMode::Diff,
            ViewMode::Diff => ViewMode::Ssim,
            ViewMode::Ssim => ViewMode::DeltaE,
            ViewMode::DeltaE => ViewMode::Cambi,
            ViewMode::Cambi => ViewMode::Side,
        }
    }
}

/// Keys the dashboard reacts to, already told apart from winit's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Space,
    Left,
    Right,
    Home,
    End,
    Escape,
    /// A printable character (`f`, `1`, `m`, `p`, `?`, `s`, `e`...).
    Char(char),
}

/// One thing that happened, in the order it happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input {
    Key(Key),
    /// Shift went down (true) or up.
    Shift(bool),
    CursorMoved {
        x: f32,
        y: f32,
    },
    CursorLeft,
    /// Left button pressed / released at the current cursor position.
    Press,
    Release,
    /// Wheel, in lines; positive zooms in.
    Scroll(f32),
    Resized {
        width: u32,
        height: u32,
    },
    /// `seconds` of wall time went by (drives playback).
    Tick(f64),
}

/// Zoom and pan of the video, shared by every pane so both sides stay in
/// sync. `scale` is screen pixels per picture pixel; `center` is the
/// picture point shown at the middle of a pane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Follow the pane size (fit the whole picture) until the user zooms.
    pub fit: bool,
    pub scale: f32,
    pub center: Vec2,
}

impl View {
    /// Picture samples to screen pixels in `pane`: scale about the
    /// picture's `center`, which lands on the pane's centre. Its inverse
    /// takes a screen point back to the picture (hover, zoom anchor).
    pub fn screen_map(&self, pane: Rect) -> Affine2 {
        Affine2::from_scale_angle_translation(
            Vec2::splat(self.scale),
            0.0,
            centre(pane) - self.center * self.scale,
        )
    }
}

/// The centre of `r`.
pub fn centre(r: Rect) -> Vec2 {
    Vec2::new(0.5 * (r.x0 + r.x1), 0.5 * (r.y0 + r.y1))
}

/// Where a pane shows the picture: the picture's full rectangle mapped to
/// the screen (may extend past the pane, which clips it).
pub fn picture_rect(pane: Rect, view: &View, picture: (u32, u32)) -> Rect {
    let whole = Rect::new(0.0, 0.0, picture.0 as f32, picture.1 as f32);
    map_rect(&view.screen_map(pane), whole)
}

/// `r` through `m` (a scale and a translation, so corners stay corners).
pub fn map_rect(m: &Affine2, r: Rect) -> Rect {
    let a = m.transform_point2(Vec2::new(r.x0, r.y0));
    let b = m.transform_point2(Vec2::new(r.x1, r.y1));
    Rect::new(a.x, a.y, b.x, b.y)
}

/// What is being dragged with the left button held.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drag {
    /// Panning: the screen point of the cursor at the last move.
    Pan {
        last: Vec2,
    },
    Wipe,
    Plot,
    Scrubber,
}

/// One of the two inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputSide {
    Reference,
    Distorted,
}

/// Largest frame offset either way, in frames: far beyond any real
/// dropped-frame misalignment, small enough that `frame + offset` never
/// overflows.
pub const MAX_OFFSET: i64 = 1 << 20;

/// Things the window loop must do that the state cannot (files, GPU).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Requests {
    /// `S`: save a PNG of the current view.
    pub save_png: bool,
    /// `E`: write the scores report.
    pub export: bool,
    /// `V`: score with the next VMAF model.
    pub next_model: bool,
    /// A file was dropped on a side: reopen that side from it.
    pub replace: Option<(InputSide, PathBuf)>,
}

/// Everything the dashboard shows that is not video or scores.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Current pair index.
    pub frame: u64,
    /// Pairs in the clip (at least 1).
    pub frame_count: u64,
    pub fps: f64,
    pub playing: bool,
    /// Playback wraps from the last frame to the first instead of stopping
    /// (`L`, or `--loop`).
    pub looping: bool,
    /// Playback time not yet turned into a whole frame.
    clock: f64,
    pub mode: ViewMode,
    /// Which computed value the plot draws beside VMAF: an index into
    /// [`super::scores::History::plottable`], taken modulo its length (`P`
    /// counts up), so it stays valid whatever the scorer computes.
    pub series: usize,
    pub help: bool,
    pub quit: bool,
    /// Picture size in luma samples.
    pub picture: (u32, u32),
    pub layout: Layout,
    pub view: View,
    /// Wipe split as a fraction of the pane width.
    pub wipe: f32,
    /// Plot time window, in frames: `[start, end]`.
    pub plot_span: (f64, f64),
    /// Last cursor position (None: outside the window).
    pub cursor: Option<Vec2>,
    /// The worst frames, worst first (filled by the owner as scores come),
    /// so a click on a row of the list can seek.
    pub worst: Vec<u64>,
    pub requests: Requests,
    /// Frames added to the current frame to pick what each side *shows*
    /// (`[`/`]`: distorted, `{`/`}`: reference), to line up an encode that
    /// dropped or added frames by eye. Scoring and the plots keep
    /// libvmaf's pairing (pair `frame` is reference `frame` with distorted
    /// `frame`), so the numbers stay comparable with `vqscope score`.
    pub ref_offset: i64,
    pub dis_offset: i64,
    /// A one-line problem the owner wants in the header (a dropped file
    /// that does not match the other side); cleared by the next drop.
    pub notice: Option<String>,
    /// The display peak in nits that HDR pictures are tone-mapped to.
    pub peak_nits: u16,
    /// A one-line report of something done (a file written, with its
    /// path) for the header, and how long it has been up: cleared after
    /// [`MESSAGE_SECONDS`] or by the next key or click.
    pub message: Option<(String, f64)>,
    shift: bool,
    drag: Option<Drag>,
}

impl State {
    /// A paused dashboard at frame 0, fitted, side by side.
    pub fn new(window: (u32, u32), picture: (u32, u32), frame_count: u64, fps: f64) -> Self {
        let frame_count = frame_count.max(1);
        let mut state = State {
            frame: 0,
            frame_count,
            fps: if fps.is_finite() && fps > 0.0 { fps } else { 25.0 },
            playing: false,
            looping: false,
            clock: 0.0,
            mode: ViewMode::Side,
            series: 0,
            help: false,
            quit: false,
            picture: (picture.0.max(1), picture.1.max(1)),
            layout: Layout::new(window.0, window.1),
            view: View { fit: true, scale: 1.0, center: Vec2::ZERO },
            wipe: 0.5,
            plot_span: (0.0, 0.0),
            cursor: None,
            worst: Vec::new(),
            requests: Requests::default(),
            ref_offset: 0,
            dis_offset: 0,
            notice: None,
            peak_nits: vqscope_renderer::color::DEFAULT_PEAK_NITS,
            message: None,
            shift: false,
            drag: None,
        };
        state.plot_span = state.full_span();
        state.refit();
        state
    }

    /// The panes the current mode draws into (one or two).
    pub fn panes(&self) -> Vec<Rect> {
        match self.mode {
            ViewMode::Side => self.layout.side_panes.to_vec(),
            ViewMode::Wipe
            | ViewMode::Diff
            | ViewMode::Ssim
            | ViewMode::DeltaE
            | ViewMode::Cambi => {
                vec![self.layout.single_pane]
            }
        }
    }

    /// The scale at which the whole picture fits a pane.
    pub fn fit_scale(&self) -> f32 {
        let pane = self.panes()[0];
        let (pw, ph) = (self.picture.0 as f32, self.picture.1 as f32);
        (pane.width() / pw).min(pane.height() / ph).max(1e-3)
    }

    /// Smallest allowed scale: fit, or 1:1 for pictures smaller than the pane.
    fn min_scale(&self) -> f32 {
        self.fit_scale().min(1.0)
    }

    /// Screen x of the wipe line.
    pub fn wipe_x(&self) -> f32 {
        let pane = self.layout.single_pane;
        pane.x0 + self.wipe * pane.width()
    }

    /// Changes the number of frames (a clip whose length was unknown).
    pub fn set_frame_count(&mut self, count: u64) {
        let full = self.plot_span == self.full_span();
        self.frame_count = count.max(1);
        self.frame = self.frame.min(self.frame_count - 1);
        if full {
            self.plot_span = self.full_span();
        }
        self.clamp_span();
    }

    pub fn apply(&mut self, input: Input) {
        match input {
            Input::Key(key) => {
                self.message = None;
                self.key(key);
            }
            Input::Shift(down) => self.shift = down,
            Input::CursorMoved { x, y } => self.moved(Vec2::new(x, y)),
            Input::CursorLeft => self.cursor = None,
            Input::Press => {
                self.message = None;
                self.press();
            }
            Input::Release => self.drag = None,
            Input::Scroll(lines) => self.scroll(lines),
            Input::Resized { width, height } => {
                self.layout = Layout::new(width, height);
                self.refit();
            }
            Input::Tick(seconds) => {
                self.age_message(seconds);
                self.tick(seconds);
            }
        }
    }

    /// Puts `text` in the header for a few seconds (see [`State::message`]).
    pub fn inform(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), 0.0));
    }

    pub fn age_message(&mut self, seconds: f64) {
        if let Some((_, age)) = &mut self.message {
            if seconds.is_finite() && seconds > 0.0 {
                *age += seconds;
            }
            if *age >= MESSAGE_SECONDS {
                self.message = None;
            }
        }
    }

    /// Seeks to `frame` (clamped to the clip), stopping the playback clock's
    /// fraction so the next frame comes a full period later.
    pub fn seek(&mut self, frame: u64) {
        self.frame = frame.min(self.frame_count - 1);
        self.clock = 0.0;
        self.follow();
    }

    /// Switches the view mode (the headless `--mode`).
    pub fn set_mode(&mut self, mode: ViewMode) {
        self.mode = mode;
        self.refit();
    }

    /// Sets the magnification, centred (the headless `--zoom`).
    pub fn zoom_to(&mut self, scale: f32) {
        if scale.is_finite() && scale > 0.0 {
            self.set_scale(scale, None);
        }
    }

    fn key(&mut self, key: Key) {
        let step = if self.shift { 10 } else { 1 };
        match key {
            Key::Space => {
                if !self.playing && self.frame + 1 >= self.frame_count {
                    self.seek(0); // play again from the start
                }
                self.playing = !self.playing;
                self.clock = 0.0;
            }
            Key::Left => {
                self.playing = false;
                self.seek(self.frame.saturating_sub(step));
            }
            Key::Right => {
                self.playing = false;
                self.seek(self.frame.saturating_add(step));
            }
            Key::Home => self.seek(0),
            Key::End => self.seek(u64::MAX),
            Key::Escape if self.help => self.help = false,
            Key::Escape => self.quit = true,
            Key::Char(c) => match c.to_ascii_lowercase() {
                'l' => self.looping = !self.looping,
                '0' => self.plot_span = self.full_span(),
                'f' => {
                    self.view.fit = true;
                    self.refit();
                }
                '1' => self.set_scale(1.0, None),
                'm' => self.set_mode(self.mode.next()),
                'p' => self.series = self.series.wrapping_add(1),
                '?' | 'h' => self.help = !self.help,
                's' => self.requests.save_png = true,
                'e' => self.requests.export = true,
                'v' => self.requests.next_model = true,
                'q' => self.quit = true,
                '[' => self.shift_offset(InputSide::Distorted, -1),
                ']' => self.shift_offset(InputSide::Distorted, 1),
                '{' => self.shift_offset(InputSide::Reference, -1),
                '}' => self.shift_offset(InputSide::Reference, 1),
                _ => {}
            },
        }
    }

    /// Moves one side's display offset by `delta` frames.
    pub fn shift_offset(&mut self, side: InputSide, delta: i64) {
        let offset = match side {
            InputSide::Reference => &mut self.ref_offset,
            InputSide::Distorted => &mut self.dis_offset,
        };
        *offset = offset.saturating_add(delta).clamp(-MAX_OFFSET, MAX_OFFSET);
    }

    /// The frames each side shows, `(reference, distorted)`: the current
    /// frame plus that side's offset, held inside the clip (an offset past
    /// either end shows the first or last frame rather than nothing, so
    /// the view never goes blank while the user lines things up).
    pub fn shown_frames(&self) -> (u64, u64) {
        let last = self.frame_count - 1;
        let at = |offset: i64| {
            let f = i128::from(self.frame) + i128::from(offset);
            f.clamp(0, i128::from(last)) as u64
        };
        (at(self.ref_offset), at(self.dis_offset))
    }

    /// The side a file dropped now replaces: the one under the cursor. Side
    /// by side that is the pane (left of the gap: reference); wiped, the
    /// part of the picture left or right of the split line; in the
    /// difference and SSIM views, the left or right half of the window.
    /// Unknown cursor (X11 may report none during a drag): the left half.
    pub fn drop_side(&self) -> InputSide {
        let Some(Vec2 { x, .. }) = self.cursor else { return InputSide::Reference };
        let split = match self.mode {
            ViewMode::Side => 0.5 * (self.layout.side_panes[0].x1 + self.layout.side_panes[1].x0),
            ViewMode::Wipe => self.wipe_x(),
            ViewMode::Diff | ViewMode::Ssim | ViewMode::DeltaE | ViewMode::Cambi => {
                0.5 * self.layout.width
            }
        };
        if x < split { InputSide::Reference } else { InputSide::Distorted }
    }

    /// A file was dropped on the window: asks the owner to reopen the side
    /// under the cursor from `path`.
    pub fn file_dropped(&mut self, path: PathBuf) {
        self.notice = None;
        self.requests.replace = Some((self.drop_side(), path));
    }

    fn tick(&mut self, seconds: f64) {
        if !self.playing || !seconds.is_finite() || seconds <= 0.0 {
            return;
        }
        // A long stall (window dragged, machine asleep) must not fast-forward.
        self.clock += seconds.min(0.25);
        let frames = (self.clock * self.fps).floor();
        if frames >= 1.0 {
            self.clock -= frames / self.fps;
            let next = self.frame.saturating_add(frames as u64);
            if self.looping {
                // Wraps to frame 0 and keeps playing; a stall longer than
                // the clip wraps as many times as it covers.
                self.frame = next % self.frame_count;
            } else if next >= self.frame_count - 1 {
                self.frame = self.frame_count - 1;
                self.playing = false;
            } else {
                self.frame = next;
            }
            self.follow();
        }
    }

    fn moved(&mut self, at: Vec2) {
        self.cursor = Some(at);
        let x = at.x;
        match self.drag {
            Some(Drag::Pan { last }) => {
                self.view.fit = false;
                self.view.center -= (at - last) / self.view.scale;
                self.clamp_center();
                self.drag = Some(Drag::Pan { last: at });
            }
            Some(Drag::Wipe) => {
                let pane = self.layout.single_pane;
                self.wipe = ((x - pane.x0) / pane.width().max(1.0)).clamp(0.0, 1.0);
            }
            Some(Drag::Plot) => self.seek(self.plot_frame_at(x)),
            Some(Drag::Scrubber) => self.seek(self.scrubber_frame_at(x)),
            None => {}
        }
    }

    fn press(&mut self) {
        let Some(at) = self.cursor else { return };
        let (x, y) = (at.x, at.y);
        if self.help {
            self.help = false; // any click dismisses the help
            return;
        }
        let l = self.layout;
        if self.mode == ViewMode::Wipe
            && l.single_pane.contains(x, y)
            && (x - self.wipe_x()).abs() <= WIPE_GRAB
        {
            self.drag = Some(Drag::Wipe);
        } else if self.panes().iter().any(|p| p.contains(x, y)) {
            self.drag = Some(Drag::Pan { last: at });
        } else if l.plot_area.inflate(4.0).contains(x, y) {
            self.drag = Some(Drag::Plot);
            self.seek(self.plot_frame_at(x));
        } else if l.scrubber.inflate(6.0).contains(x, y) {
            self.drag = Some(Drag::Scrubber);
            self.seek(self.scrubber_frame_at(x));
        } else if let Some(i) = l.shown_worst_rows().iter().position(|r| r.contains(x, y))
            && let Some(&frame) = self.worst.get(i)
        {
            self.playing = false;
            self.seek(frame);
        }
    }

    fn scroll(&mut self, lines: f32) {
        let Some(at) = self.cursor else { return };
        if !lines.is_finite() || lines == 0.0 {
            return;
        }
        if let Some(pane) = self.panes().into_iter().find(|p| p.contains(at.x, at.y)) {
            let factor = ZOOM_PER_LINE.powf(lines);
            self.set_scale(self.view.scale * factor, Some((pane, at)));
        } else if self.layout.plot.contains(at.x, at.y) {
            self.zoom_plot(lines, at.x);
        }
    }

    /// Sets the video scale, keeping the picture point under `anchor` (a
    /// pane and a screen point) where it is; without one, the pane centre.
    fn set_scale(&mut self, scale: f32, anchor: Option<(Rect, Vec2)>) {
        let new = scale.clamp(self.min_scale(), MAX_SCALE.max(self.min_scale()));
        if let Some((pane, at)) = anchor {
            // The picture point under the cursor stays under it: centre +
            // offset/old = point = new centre + offset/new.
            let point = self.view.screen_map(pane).inverse().transform_point2(at);
            let offset = at - centre(pane);
            self.view.center = point - offset / new;
        }
        self.view.scale = new;
        self.view.fit = false;
        self.clamp_center();
    }

    /// Recomputes the fitted view after a resize or mode change.
    fn refit(&mut self) {
        if self.view.fit {
            self.view.scale = self.fit_scale();
            self.view.center = 0.5 * self.picture_size();
        } else {
            self.view.scale =
                self.view.scale.clamp(self.min_scale(), MAX_SCALE.max(self.min_scale()));
            self.clamp_center();
        }
    }

    /// Keeps the picture covering the pane where it can: a dimension that
    /// fits entirely is centred, a larger one may not be panned past its edge.
    fn clamp_center(&mut self) {
        let pane = self.panes()[0];
        let size = self.picture_size();
        let half = 0.5 * Vec2::new(pane.width(), pane.height()) / self.view.scale;
        // Per axis: the middle when the picture fits, else clamped so no
        // edge comes inside the pane.
        let fits = (2.0 * half).cmpge(size);
        let clamped = self.view.center.clamp(half.min(size - half), (size - half).max(half));
        self.view.center = Vec2::select(fits, 0.5 * size, clamped);
    }

    /// The picture's size in samples.
    fn picture_size(&self) -> Vec2 {
        Vec2::new(self.picture.0 as f32, self.picture.1 as f32)
    }

    /// The whole clip on the time axis.
    fn full_span(&self) -> (f64, f64) {
        (0.0, (self.frame_count - 1).max(1) as f64)
    }

    fn clamp_span(&mut self) {
        let (lo, hi) = self.full_span();
        let (mut a, mut b) = self.plot_span;
        let span = (b - a).clamp(MIN_PLOT_SPAN.min(hi - lo), hi - lo);
        if a < lo {
            a = lo;
        }
        b = a + span;
        if b > hi {
            b = hi;
            a = hi - span;
        }
        self.plot_span = (a, b);
    }

    /// Whether the plot shows less than the whole clip (`0` resets it).
    pub fn plot_zoomed(&self) -> bool {
        self.plot_span != self.full_span()
    }

    /// The plot's time axis: the screen x range frames are drawn over,
    /// inset from the data area's edges by [`PLOT_INSET`].
    fn plot_axis(&self) -> (f32, f32) {
        let area = self.layout.plot_area;
        let inset = PLOT_INSET.min(0.25 * area.width());
        (area.x0 + inset, (area.x1 - inset).max(area.x0 + inset + 1.0))
    }

    /// Where screen x falls along the plot's time axis, 0 to 1.
    fn plot_t(&self, x: f32) -> f64 {
        let (x0, x1) = self.plot_axis();
        f64::from(((x - x0) / (x1 - x0)).clamp(0.0, 1.0))
    }

    /// Zooms the plot's time axis around screen x.
    fn zoom_plot(&mut self, lines: f32, x: f32) {
        let (a, b) = self.plot_span;
        let t = self.plot_t(x);
        let at = a + t * (b - a);
        let span = (b - a) * 0.8f64.powf(f64::from(lines));
        self.plot_span = (at - t * span, at - t * span + span);
        self.clamp_span();
    }

    /// Shifts the plot window so the current frame stays visible.
    fn follow(&mut self) {
        let (a, b) = self.plot_span;
        let f = self.frame as f64;
        if f < a || f > b {
            let span = b - a;
            self.plot_span = (f - span * 0.1, f - span * 0.1 + span);
            self.clamp_span();
        }
    }

    /// Screen x of frame `f` on the plot.
    pub fn plot_x(&self, f: f64) -> f32 {
        let (x0, x1) = self.plot_axis();
        let (a, b) = self.plot_span;
        x0 + (((f - a) / (b - a).max(1e-9)) as f32) * (x1 - x0)
    }

    /// The frame under screen x on the plot.
    pub fn plot_frame_at(&self, x: f32) -> u64 {
        let (a, b) = self.plot_span;
        (a + self.plot_t(x) * (b - a)).round().max(0.0) as u64
    }

    /// What the plot says when zoomed: the frames in view and how to see
    /// them all again. None when it shows the whole clip.
    pub fn plot_zoom_label(&self) -> Option<String> {
        let (a, b) = self.plot_span;
        self.plot_zoomed().then(|| {
            format!(
                "frames {}–{} of {} (0: all)",
                a.ceil() as u64,
                b.floor() as u64,
                self.frame_count
            )
        })
    }

    /// The frame under screen x on the scrubber (the whole clip).
    pub fn scrubber_frame_at(&self, x: f32) -> u64 {
        let r = self.layout.scrubber;
        let t = ((x - r.x0) / r.width().max(1.0)).clamp(0.0, 1.0);
        (f64::from(t) * (self.frame_count - 1) as f64).round() as u64
    }

    /// The frame the cursor hovers on the plot, if it does.
    pub fn hovered_frame(&self) -> Option<u64> {
        let at = self.cursor?;
        let area = self.layout.plot_area;
        area.contains(at.x, at.y).then(|| self.plot_frame_at(at.x).min(self.frame_count - 1))
    }

    /// The picture sample under the cursor, if it is over a pane.
    pub fn hovered_pixel(&self) -> Option<(u32, u32)> {
        let at = self.cursor?;
        let pane = self.panes().into_iter().find(|p| p.contains(at.x, at.y))?;
        let p = self.view.screen_map(pane).inverse().transform_point2(at);
        (p.cmpge(Vec2::ZERO).all() && p.cmplt(self.picture_size()).all())
            .then_some((p.x as u32, p.y as u32))
    }

    /// The current frame and the range of frame numbers, as the transport
    /// shows it: numbers count from 0 as libvmaf's reports do, so a clip
    /// of 12 frames runs 0–11.
    pub fn frame_label(&self) -> String {
        format!("frame {} (0–{})", self.frame, self.frame_count - 1)
    }

    /// `hh:mm:ss.mmm` of the current frame at the clip's rate; `mm:ss.mmm`
    /// when the whole clip is shorter than an hour (the hours would always
    /// be 00, and a narrow transport strip needs the room).
    pub fn timecode(&self) -> String {
        let ms = (self.frame as f64 / self.fps * 1000.0).round() as u64;
        let minutes = format!("{:02}:{:02}.{:03}", ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        if (self.frame_count - 1) as f64 / self.fps < 3600.0 {
            minutes
        } else {
            format!("{:02}:{minutes}", ms / 3_600_000)
        }
    }
}
