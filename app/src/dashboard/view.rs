//! Builds the dashboard's [`Scene`] from the state, the pictures of the
//! current pair and the scores so far. Nothing here decides anything: the
//! state says what to show, the layout says where, and this file only
//! turns both into primitives, so the window and the headless screenshot
//! draw the same thing from the same inputs.

use glam::{Affine2, Vec2};
use vqscope_renderer::glyphs::Font;
use vqscope_renderer::text::measure;
use vqscope_renderer::{Align, Color, Rect, RectStyle, Sampling, Scene, TextRun, VAlign, YuvId};

use super::cambi::cambi_range;
use super::decimate;
use super::heat_view::MapInfo;
use super::layout::{FRAME_VALUE_ROWS, Layout, PAD, ROW, WORST_ROWS};
use super::pictures::Pictures;
use super::scores::History;
use super::source::ClipInfo;
use super::state::MESSAGE_SECONDS;
use super::state::{GRID_SCALE, State, ViewMode, map_rect, picture_rect};

/// The SSIM values the heat map's colour ramp spans: the same fixed range
/// as `screenshot --ssim-map`, so colours mean the same on every frame (a
/// range fitted per frame would make every frame look equally bad).
pub const SSIM_RANGE: (f32, f32) = (0.5, 1.0);

/// The ΔE values the ΔE view's colour ramp spans, turned round (high ΔE is
/// the damage, so it glows): 10 and above brightest, 0 black. A ΔE of
/// about 2.3 is the smallest colour difference people notice.
pub const DELTA_E_RANGE: (f32, f32) = (10.0, 0.0);

/// The external map slot a heat-map view's map is bound to.
pub const MAP_SLOT: usize = 0;

const BACKGROUND: Color = Color::rgb(0.09, 0.10, 0.12);
const PANEL: Color = Color::rgb(0.15, 0.16, 0.19);
const PANE: Color = Color::rgb(0.05, 0.05, 0.06);
const TEXT: Color = Color::rgb(0.90, 0.91, 0.93);
const DIM: Color = Color::rgb(0.60, 0.62, 0.66);
const ACCENT: Color = Color::rgb(0.30, 0.65, 1.00);
const WARM: Color = Color::rgb(1.00, 0.55, 0.25);
const BAD: Color = Color::rgb(1.00, 0.40, 0.40);
const SIZE: f32 = 13.0;
const SMALL: f32 = 11.0;

/// Everything a frame of the dashboard is drawn from.
pub struct ViewInputs<'a> {
    pub state: &'a State,
    pub clip: &'a ClipInfo,
    pub model: &'a str,
    /// The current pair's pictures; None while the first pair decodes.
    pub pictures: Option<&'a Pictures>,
    pub history: &'a History,
    /// A problem to show in the header (decode or scoring error).
    pub error: Option<&'a str>,
    /// The heat-map view's map (SSIM or ΔE), when such a view is on: its
    /// geometry once the kernel exists (the owner binds the map buffer as
    /// [`MAP_SLOT`]), or why it cannot exist. None: not computed yet.
    pub map: Option<Result<MapInfo, String>>,
}

/// The scene for one frame of the dashboard.
pub fn build(v: &ViewInputs<'_>) -> Scene {
    let l = &v.state.layout;
    let mut s = Scene::new(l.width as u32, l.height as u32, BACKGROUND);
    s.set_display_peak_nits(v.state.peak_nits);
    header(&mut s, v);
    video(&mut s, v);
    transport(&mut s, v);
    plot(&mut s, v);
    side_panel(&mut s, v);
    if v.state.help {
        help(&mut s, l);
    }
    s
}

fn text(s: &mut Scene, t: impl Into<String>, x: f32, y: f32, size: f32, color: Color) {
    s.text(TextRun::new(t, x.round(), y.round(), size, color));
}

/// Text in a box; text wider than the box ends in an ellipsis rather than
/// being cut mid-word.
fn boxed(s: &mut Scene, t: impl Into<String>, r: Rect, color: Color, align: Align) {
    let t = ellipsize(t.into(), r.width(), SIZE);
    s.text(TextRun::boxed(t, r, SIZE, color, align, VAlign::Middle));
}

fn width_of(t: &str, size: f32) -> f32 {
    measure(Font::shared(), t, size).width
}

/// `t` as it fits `width` at `size`: whole, or as long a start as fits
/// followed by "…" (nothing at all if not even that fits).
pub fn ellipsize(t: String, width: f32, size: f32) -> String {
    if width_of(&t, size) <= width {
        return t;
    }
    // The longest start that fits with its ellipsis (widths grow with
    // the length, so a binary search over the character boundaries).
    let ends: Vec<usize> = t.char_indices().map(|(i, _)| i).skip(1).collect();
    let shown = |end: usize| format!("{}…", t[..end].trim_end());
    let fits = ends.partition_point(|&end| width_of(&shown(end), size) <= width);
    match fits {
        0 if width_of("…", size) <= width => "…".to_owned(),
        0 => String::new(),
        n => shown(ends[n - 1]),
    }
}

/// Two texts on one line of `r`: `right` whole at the right end (as much
/// of it as fits in two thirds of the line), `left` in what is left, both
/// ellipsized rather than overlapping.
fn split_row(s: &mut Scene, r: Rect, left: (&str, Color), right: (&str, Color)) {
    let right_text = ellipsize(right.0.to_owned(), r.width() * 0.67, SIZE);
    let right_w = if right_text.is_empty() { 0.0 } else { width_of(&right_text, SIZE) + 12.0 };
    boxed(s, left.0, Rect::new(r.x0, r.y0, r.x1 - right_w, r.y1), left.1, Align::Start);
    boxed(s, right_text, r, right.1, Align::End);
}

fn file_name(info: &vqscope_video::SourceInfo) -> String {
    info.path
        .file_name()
        .map_or_else(|| info.path.display().to_string(), |n| n.to_string_lossy().into())
}

fn header(s: &mut Scene, v: &ViewInputs<'_>) {
    let h = v.state.layout.header;
    s.rect(h, RectStyle::fill(PANEL));
    let row = |i: f32| {
        Rect::new(h.x0 + 10.0, h.y0 + PAD + i * ROW, h.x1 - 10.0, h.y0 + PAD + (i + 1.0) * ROW)
    };
    let offsets = offsets_label(v.state).unwrap_or_default();
    let names = names_label(v.clip, row(0.0).width() - width_of(&offsets, SIZE) - 12.0);
    split_row(s, row(0.0), (&names, TEXT), (&offsets, WARM));
    let total = v.state.frame_count;
    let status = match (v.error, v.history.done) {
        (Some(e), _) => format!("error: {e}"),
        (None, true) => format!("scored {total} frames"),
        (None, false) => format!("scoring {} / {total}", v.history.frames.len()),
    };
    // A fresh message (a file written) first, fading out over its last
    // second; then a problem with a dropped file or model; then progress.
    let (status, color) = match (&v.state.message, &v.state.notice) {
        (Some((m, age)), _) => {
            (m.clone(), ACCENT.fade((MESSAGE_SECONDS - age).clamp(0.0, 1.0) as f32))
        }
        (None, Some(n)) => (n.clone(), BAD),
        (None, None) => (status, if v.error.is_some() { BAD } else { DIM }),
    };
    split_row(s, row(1.0), (&status, color), ("? for help", DIM));
}

/// Both inputs' names, each shortened alike when together they are wider
/// than `width`, so neither disappears behind the other.
fn names_label(clip: &ClipInfo, width: f32) -> String {
    let (r, d) = (file_name(&clip.reference), file_name(&clip.distorted));
    // A distorted input ffmpeg scaled to the reference's size says so.
    let scaled = match clip.distorted.scaled_from {
        Some((w, h)) => format!(" (scaled from {w}x{h})"),
        None => String::new(),
    };
    let join = |r: &str, d: &str| format!("reference  {r}      distorted  {d}{scaled}");
    let whole = join(&r, &d);
    if width_of(&whole, SIZE) <= width {
        return whole;
    }
    let each = 0.5 * (width - width_of(&join("", ""), SIZE));
    join(&ellipsize(r, each, SIZE), &ellipsize(d, each, SIZE))
}

/// What the header says about display offsets, when a side has one: which
/// frame each side shows, and that the scores still pair frames 1:1.
pub fn offsets_label(state: &State) -> Option<String> {
    if state.ref_offset == 0 && state.dis_offset == 0 {
        return None;
    }
    let (r, d) = state.shown_frames();
    Some(format!(
        "offset ref {:+} dis {:+}: showing ref {r} / dis {d} (scores pair {f} with {f})",
        state.ref_offset,
        state.dis_offset,
        f = state.frame
    ))
}

/// The visible part of a picture in `pane`: screen rect and sample rect.
fn visible(pane: Rect, state: &State) -> Option<(Rect, Rect)> {
    let m = state.view.screen_map(pane);
    let full = picture_rect(pane, &state.view, state.picture);
    let dst = full.intersect(&pane);
    (!dst.is_empty()).then(|| (dst, map_rect(&m.inverse(), dst)))
}

/// Draws picture `id` in `pane`, clipped to `clip`, with the pixel grid
/// when magnified enough to see single samples.
fn picture(s: &mut Scene, state: &State, pane: Rect, clip: Rect, id: YuvId) {
    let Some((dst, src)) = visible(pane, state) else { return };
    // Nearest from 2x: magnified samples stay sharp squares, which is what
    // pixel peeping needs; bilinear below keeps fitted views smooth.
    let sampling = if state.view.scale >= 2.0 { Sampling::Nearest } else { Sampling::Bilinear };
    s.push_clip(clip);
    s.yuv_image(dst, id, src, sampling);
    grid(s, state, pane, dst);
    s.pop_clip();
}

/// The pixel grid over `dst` (a part of the picture in `pane`) when
/// magnified enough to see single samples.
fn grid(s: &mut Scene, state: &State, pane: Rect, dst: Rect) {
    if state.view.scale < GRID_SCALE {
        return;
    }
    let full = picture_rect(pane, &state.view, state.picture);
    let grid = Color::rgba(0.0, 0.0, 0.0, 0.35);
    let step = state.view.scale;
    let mut x = full.x0 + (((dst.x0 - full.x0) / step).floor() + 1.0) * step;
    while x < dst.x1 {
        s.line([x, dst.y0], [x, dst.y1], 1.0, grid);
        x += step;
    }
    let mut y = full.y0 + (((dst.y0 - full.y0) / step).floor() + 1.0) * step;
    while y < dst.y1 {
        s.line([dst.x0, y], [dst.x1, y], 1.0, grid);
        y += step;
    }
}

/// Where a heat map goes in `pane`, with the same zoom and pan as the
/// pictures: the screen rectangle of the visible map and the map cells it
/// shows. None when no part of the map is visible.
pub fn map_placement(pane: Rect, state: &State, info: &MapInfo) -> Option<(Rect, Rect)> {
    // Map cells → picture samples (origin·scale samples of border, then
    // `scale` samples per cell) → screen.
    let k = info.scale as f32;
    let cells = Affine2::from_scale_angle_translation(
        Vec2::splat(k),
        0.0,
        Vec2::splat(info.origin as f32 * k),
    );
    let m = state.view.screen_map(pane) * cells;
    let covered = map_rect(&m, Rect::new(0.0, 0.0, info.width as f32, info.height as f32));
    let dst = covered.intersect(&pane);
    (!dst.is_empty()).then(|| (dst, map_rect(&m.inverse(), dst)))
}

/// A heat map in `pane` over `range`: the picture's area in a flat grey
/// (SSIM's border has no value: its window does not fit there), the map
/// over it.
fn heat_map(s: &mut Scene, state: &State, pane: Rect, info: &MapInfo, range: (f32, f32)) {
    let full = picture_rect(pane, &state.view, state.picture);
    s.push_clip(pane);
    s.rect(full.intersect(&pane), RectStyle::fill(Color::rgb(0.22, 0.23, 0.26)));
    if let Some((dst, src)) = map_placement(pane, state, info) {
        // Magnified, each cell stays one flat block (no values invented
        // between cells, as in `screenshot --ssim-map`); shrunk, bilinear
        // avoids aliasing.
        let cell = state.view.scale * info.scale as f32;
        let sampling = if cell >= 1.0 { Sampling::Nearest } else { Sampling::Bilinear };
        let map = s.external_map(info.width, info.height, MAP_SLOT);
        s.heat_map(dst, map, src, sampling, range);
    }
    grid(s, state, pane, full.intersect(&pane));
    s.pop_clip();
}

/// Cells of a caption legend's colour ramp.
const RAMP_CELLS: u32 = 64;

/// A heat map's colour ramp on one line, ending at `x1` of the caption
/// strip `c`: low value, the ramp, high value. Returns where it starts.
fn ramp_legend(s: &mut Scene, c: Rect, x1: f32, range: (f32, f32), decimals: usize) -> f32 {
    let (lo, hi) = range;
    let (lo_text, hi_text) = (format!("{lo:.decimals$}"), format!("{hi:.decimals$}"));
    let bar_w = (c.width() * 0.15).clamp(40.0, 120.0);
    let hi_w = width_of(&hi_text, SMALL) + 6.0;
    let lo_w = width_of(&lo_text, SMALL) + 6.0;
    let mid = 0.5 * (c.y0 + c.y1);
    let bar = Rect::new(x1 - hi_w - bar_w, mid - 4.0, x1 - hi_w, mid + 4.0);
    let n = RAMP_CELLS;
    let ramp = (0..n).map(|i| lo + (hi - lo) * i as f32 / (n - 1) as f32).collect();
    let map = s.add_map(n, 1, ramp);
    s.heat_map(bar, map, Rect::new(0.5, 0.0, n as f32 - 0.5, 1.0), Sampling::Bilinear, range);
    s.rect(bar.inflate(1.0), RectStyle::fill(Color::TRANSPARENT).with_border(1.0, DIM));
    let small = |s: &mut Scene, t: String, r: Rect, align| {
        s.text(TextRun::boxed(t, r, SMALL, TEXT, align, VAlign::Middle));
    };
    small(s, hi_text, Rect::new(bar.x1, c.y0, x1, c.y1), Align::End);
    small(s, lo_text, Rect::new(bar.x0 - lo_w, c.y0, bar.x0, c.y1), Align::Start);
    bar.x0 - lo_w
}

/// Says what is shown in the caption strip `c` above a pane: `label` at
/// the left, `right` (the zoom) at the right, and a heat map's ramp
/// before it; nothing is drawn over the picture.
fn caption(
    s: &mut Scene,
    c: Rect,
    label: &str,
    right: Option<&str>,
    ramp: Option<((f32, f32), usize)>,
) {
    let c = Rect::new(c.x0 + 4.0, c.y0, c.x1 - 4.0, c.y1 - 2.0);
    let mut end = c.x1;
    if let Some(r) = right {
        s.text(TextRun::boxed(r, c, SMALL, DIM, Align::End, VAlign::Middle));
        end -= width_of(r, SMALL) + 16.0;
    }
    if let Some((range, decimals)) = ramp {
        end = ramp_legend(s, c, end, range, decimals) - 16.0;
    }
    boxed(s, label, Rect::new(c.x0, c.y0, end.max(c.x0), c.y1), TEXT, Align::Start);
}

/// The video's magnification as the caption shows it, and how to undo a
/// zoom.
fn zoom_label(state: &State) -> String {
    let pct = (state.view.scale * 100.0).round();
    if state.view.fit { format!("fit {pct}%") } else { format!("{pct}%  (F: fit)") }
}

/// What a heat-map view's caption says: what the map is, which way its
/// colours run and, when the map is smaller than the picture (SSIM's
/// window does not fit the edge samples), what the grey edge is.
fn heat_caption(what: &str, info: Option<&MapInfo>, picture: (u32, u32)) -> String {
    let partial =
        info.is_some_and(|i| i.covered() != [0.0, 0.0, picture.0 as f32, picture.1 as f32]);
    let edge = if partial { ", grey edge = no value (window does not fit)" } else { "" };
    format!("{what}: bright = damaged{edge}")
}

fn video(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let l = &state.layout;
    let panes = state.panes();
    for pane in &panes {
        s.rect(*pane, RectStyle::fill(PANE));
    }
    let zoom = zoom_label(state);
    let zoom = Some(zoom.as_str());
    let info = match &v.map {
        Some(Ok(info)) => Some(info),
        _ => None,
    };
    match state.mode {
        ViewMode::Side => {
            caption(s, l.side_captions[0], "reference", None, None);
            caption(s, l.side_captions[1], "distorted", zoom, None);
        }
        ViewMode::Wipe => {
            let label = "reference left of the line, distorted right (drag the line)";
            caption(s, l.single_caption, label, zoom, None);
        }
        ViewMode::Diff => {
            caption(s, l.single_caption, "difference |ref - dis| x4 (luma)", zoom, None);
        }
        ViewMode::Ssim => {
            let label = heat_caption("SSIM per pixel (luma)", info, state.picture);
            caption(s, l.single_caption, &label, zoom, Some((SSIM_RANGE, 2)));
        }
        ViewMode::DeltaE => {
            let label = heat_caption("CIEDE2000 ΔE per pixel", info, state.picture);
            caption(s, l.single_caption, &label, zoom, Some((DELTA_E_RANGE, 0)));
        }
        ViewMode::Cambi => {
            let label = heat_caption("CAMBI banding per pixel (c-value)", info, state.picture);
            caption(s, l.single_caption, &label, zoom, Some((cambi_range(state.picture), 0)));
        }
    }
    let Some(p) = v.pictures else {
        for pane in &panes {
            boxed(s, "decoding…", *pane, DIM, Align::Center);
        }
        return;
    };
    match state.mode {
        ViewMode::Side => {
            let (reference, distorted) = (p.add_to(s, false), p.add_to(s, true));
            picture(s, state, panes[0], panes[0], reference);
            picture(s, state, panes[1], panes[1], distorted);
        }
        ViewMode::Wipe => {
            let (reference, distorted) = (p.add_to(s, false), p.add_to(s, true));
            let pane = panes[0];
            let x = state.wipe_x();
            picture(s, state, pane, Rect::new(pane.x0, pane.y0, x, pane.y1), reference);
            picture(s, state, pane, Rect::new(x, pane.y0, pane.x1, pane.y1), distorted);
            s.line([x, pane.y0], [x, pane.y1], 2.0, TEXT.fade(0.9));
            let mid = 0.5 * (pane.y0 + pane.y1);
            s.circle([x, mid], 9.0, TEXT);
            s.ring([x, mid], 9.0, 2.0, PANE);
        }
        ViewMode::Diff => {
            let pane = panes[0];
            match &p.difference {
                Some(d) => {
                    let id = s.add_yuv(d.clone());
                    picture(s, state, pane, pane, id);
                }
                None => boxed(s, "computing difference…", pane, DIM, Align::Center),
            }
        }
        ViewMode::Ssim | ViewMode::DeltaE | ViewMode::Cambi => {
            let pane = panes[0];
            let (what, range) = match state.mode {
                ViewMode::Ssim => ("SSIM", SSIM_RANGE),
                ViewMode::DeltaE => ("ΔE", DELTA_E_RANGE),
                _ => ("banding", cambi_range(state.picture)),
            };
            match &v.map {
                Some(Ok(info)) => heat_map(s, state, pane, info, range),
                Some(Err(e)) => {
                    boxed(s, format!("no {what} map: {e}"), pane, BAD, Align::Center);
                }
                None => boxed(s, format!("computing {what}…"), pane, DIM, Align::Center),
            }
        }
    }
    if let Some((x, y)) = state.hovered_pixel() {
        let (r, d) = (p.luma(false, x, y), p.luma(true, x, y));
        let label = format!("x {x}  y {y}   Y ref {r}  dis {d}");
        let first = panes[0];
        let chip = Rect::new(
            first.x0 + 6.0,
            first.y1 - ROW - 8.0,
            first.x0 + width_of(&label, SMALL) + 18.0,
            first.y1 - 6.0,
        );
        s.rect(chip, RectStyle::fill(Color::rgba(0.0, 0.0, 0.0, 0.55)).rounded(4.0));
        s.text(TextRun::boxed(label, chip, SMALL, TEXT, Align::Center, VAlign::Middle));
    }
}

/// The transport's sign that playback loops.
const LOOP_SIGN: &str = "↻ loop";

fn transport(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let t = state.layout.transport;
    s.rect(t, RectStyle::fill(PANEL).rounded(4.0));
    let mid = 0.5 * (t.y0 + t.y1);
    // As players do: the button shows what Space will do (pause while
    // playing, play while paused).
    if state.playing {
        s.rect(Rect::xywh(t.x0 + 10.0, mid - 6.0, 4.0, 12.0), RectStyle::fill(ACCENT));
        s.rect(Rect::xywh(t.x0 + 17.0, mid - 6.0, 4.0, 12.0), RectStyle::fill(ACCENT));
    } else {
        boxed(s, "▶", Rect::new(t.x0 + 8.0, t.y0, t.x0 + 24.0, t.y1), TEXT, Align::Center);
    }
    let label = Rect::new(t.x0 + 32.0, t.y0, state.layout.scrubber.x0 - 8.0, t.y1);
    // Looping (`L`): a sign between the frame and the scrubber.
    let loop_w = if state.looping { width_of(LOOP_SIGN, SIZE) + 8.0 } else { 0.0 };
    if state.looping {
        boxed(s, LOOP_SIGN, label, ACCENT, Align::End);
    }
    let text = format!("{}   {}", state.frame_label(), state.timecode());
    boxed(s, text, Rect::new(label.x0, label.y0, label.x1 - loop_w, label.y1), TEXT, Align::Start);
    let track = state.layout.scrubber;
    let track = Rect::new(track.x0, mid - 2.0, track.x1, mid + 2.0);
    s.rect(track, RectStyle::fill(BACKGROUND).rounded(2.0));
    let last = (state.frame_count - 1).max(1) as f32;
    let scored = v.history.frames.len() as f32 / state.frame_count as f32;
    let scored_x = track.x0 + track.width() * scored.min(1.0);
    s.rect(
        Rect::new(track.x0, track.y0, scored_x, track.y1),
        RectStyle::fill(DIM.fade(0.5)).rounded(2.0),
    );
    let x = track.x0 + track.width() * state.frame as f32 / last;
    s.rect(Rect::new(track.x0, track.y0, x, track.y1), RectStyle::fill(ACCENT).rounded(2.0));
    s.circle([x, mid], 6.0, TEXT);
}

/// A value as the panels print it: dB values (every PSNR) and values of
/// 10 and more with two decimals, the 0–1 ratios with four.
fn format_value(key: &str, v: f64) -> String {
    let unit = if key.contains("psnr") { " dB" } else { "" };
    if unit.is_empty() && v.abs() < 10.0 { format!("{v:.4}") } else { format!("{v:.2}{unit}") }
}

/// The y range the second series is drawn in: its observed range, padded,
/// so small variations stay visible.
fn series_range(values: &[(u64, f64)]) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .iter()
        .filter(|(_, v)| v.is_finite())
        .fold((f64::MAX, f64::MIN), |(lo, hi), (_, v)| (lo.min(*v), hi.max(*v)));
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.1).max(1e-3);
    lo -= pad;
    hi += pad;
    (lo, hi)
}

/// Screen points of a series within the visible span, decimated to what
/// the plot's pixel columns can show (see [`decimate`]).
fn trace(state: &State, values: &[(u64, f64)], y: impl Fn(f64) -> f32) -> Vec<[f32; 2]> {
    let x = |f: u64| state.plot_x(f as f64);
    let shown = decimate::visible(values, state.plot_span);
    decimate::decimate(shown, x).into_iter().map(|(f, v)| [x(f), y(v)]).collect()
}

fn plot(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let (p, area) = (state.layout.plot, state.layout.plot_area);
    s.rect(p, RectStyle::fill(PANEL).rounded(4.0));
    let series = v.history.second_series(state.series);
    // Legend.
    let mut x = area.x0;
    let mut legend = vec![("VMAF".to_string(), ACCENT)];
    if let Some(key) = series {
        legend.push((format!("{key}  (P: next)"), WARM));
    }
    if !v.history.series(CI_LO).is_empty() {
        legend.insert(1, ("VMAF 95% interval".to_string(), ACCENT.fade(BAND_ALPHA)));
    }
    // A zoomed time axis says so, and how to see the whole clip again.
    let mut end = p.x1 - 8.0;
    if let Some(zoom) = state.plot_zoom_label() {
        let r = Rect::new(area.x0, p.y0 + 1.0, end, p.y0 + ROW);
        s.text(TextRun::boxed(zoom.clone(), r, SMALL, TEXT, Align::End, VAlign::Middle));
        end -= width_of(&zoom, SMALL) + 16.0;
    }
    for (label, color) in legend {
        if x + 40.0 > end {
            break;
        }
        s.rect(Rect::xywh(x, p.y0 + 9.0, 14.0, 3.0), RectStyle::fill(color));
        let label = ellipsize(label, end - x - 20.0, SMALL);
        text(s, &label, x + 20.0, p.y0 + 3.0, SMALL, TEXT);
        x += width_of(&label, SMALL) + 44.0;
    }
    let vmaf_y = |v: f64| area.y1 - (v.clamp(0.0, 100.0) / 100.0) as f32 * area.height();
    for k in 0..=5 {
        let value = f64::from(k) * 20.0;
        let y = vmaf_y(value);
        s.line([area.x0, y], [area.x1, y], 1.0, TEXT.fade(if k == 0 { 0.3 } else { 0.1 }));
        let label = format!("{value:.0}");
        s.text(TextRun::boxed(
            label,
            Rect::new(p.x0, y - 8.0, area.x0 - 6.0, y + 8.0),
            SMALL,
            ACCENT,
            Align::End,
            VAlign::Middle,
        ));
    }
    // Frame ticks at a step that leaves room for their labels.
    let (a, b) = state.plot_span;
    let per_label = 60.0 / f64::from(area.width().max(1.0)) * (b - a);
    let step = [1u64, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]
        .into_iter()
        .find(|s| *s as f64 >= per_label)
        .unwrap_or(100_000);
    let mut f = (a.max(0.0) as u64).div_ceil(step) * step;
    while (f as f64) <= b {
        let x = state.plot_x(f as f64);
        s.line([x, area.y1], [x, area.y1 + 4.0], 1.0, DIM);
        s.text(TextRun::boxed(
            f.to_string(),
            Rect::new(x - 30.0, area.y1 + 4.0, x + 30.0, area.y1 + 20.0),
            SMALL,
            DIM,
            Align::Center,
            VAlign::Top,
        ));
        f += step;
    }
    let second = series.map(|key| v.history.series(key)).unwrap_or_default();
    let (lo, hi) = series_range(&second);
    let series_y =
        |v: f64| area.y1 - (((v - lo) / (hi - lo)).clamp(0.0, 1.0)) as f32 * area.height();
    if let Some(key) = series {
        for (value, y) in [(hi, area.y0), (lo, area.y1)] {
            s.text(TextRun::boxed(
                format_value(key, value),
                Rect::new(area.x1 + 4.0, y - 8.0, p.x1 - 2.0, y + 8.0),
                SMALL,
                WARM,
                Align::Start,
                VAlign::Middle,
            ));
        }
    }
    s.push_clip(area.inflate(2.0));
    s.polyline(&trace(state, &second, series_y), 1.5, WARM.fade(0.9));
    confidence_band(s, v, &vmaf_y);
    let vmaf = v.history.series("vmaf");
    s.polyline(&trace(state, &vmaf, vmaf_y), 2.0, ACCENT);
    let x = state.plot_x(state.frame as f64);
    s.line([x, area.y0], [x, area.y1], 1.5, TEXT);
    s.pop_clip();
    if let Some(f) = state.hovered_frame() {
        hover(s, v, f, series);
    }
}

/// A bootstrap model's 95% confidence interval as a band behind the VMAF
/// trace, from `ci_p95_lo` to `ci_p95_hi`: one translucent column per
/// frame in view, or per pixel column where frames share one (see
/// [`decimate::intervals`]); nothing for single models, which have no
/// interval.
fn confidence_band(s: &mut Scene, v: &ViewInputs<'_>, vmaf_y: &impl Fn(f64) -> f32) {
    let state = v.state;
    let (lo, hi) = (v.history.series(CI_LO), v.history.series(CI_HI));
    let (lo, hi) =
        (decimate::visible(&lo, state.plot_span), decimate::visible(&hi, state.plot_span));
    let x = |f: u64| state.plot_x(f as f64);
    let half = (x(1) - x(0)).abs() * 0.5;
    for (first, last, lo, hi) in decimate::intervals(lo, hi, x) {
        // A lone frame stays at least a pixel wide; merged frames tile.
        let h = if first == last { half.max(0.5) } else { half };
        let (x0, x1) = (x(first) - h, x(last) + h);
        s.rect(Rect::new(x0, vmaf_y(hi), x1, vmaf_y(lo)), RectStyle::fill(ACCENT.fade(BAND_ALPHA)));
    }
}

/// Opacity of the confidence band.
const BAND_ALPHA: f32 = 0.3;

/// A bootstrap model's interval, as the dashboard names its score `vmaf`.
const CI_LO: &str = "vmaf_ci_p95_lo";
const CI_HI: &str = "vmaf_ci_p95_hi";

/// The hover line and a tooltip with the frame's values.
fn hover(s: &mut Scene, v: &ViewInputs<'_>, frame: u64, series: Option<&str>) {
    let state = v.state;
    let area = state.layout.plot_area;
    let x = state.plot_x(frame as f64);
    s.line([x, area.y0], [x, area.y1], 1.0, TEXT.fade(0.5));
    let mut lines = vec![format!("frame {frame}")];
    match v.history.get(frame) {
        Some(scores) => {
            for (key, label) in [("vmaf", "VMAF")].into_iter().chain(series.map(|k| (k, k))) {
                if let Some(value) = scores.get(key) {
                    lines.push(format!("{label}  {}", format_value(key, value)));
                }
            }
        }
        None => lines.push("not scored yet".into()),
    }
    let w = lines.iter().map(|l| width_of(l, SMALL)).fold(0.0, f32::max) + 16.0;
    let h = lines.len() as f32 * 15.0 + 10.0;
    let bx = if x + 12.0 + w < area.x1 { x + 12.0 } else { x - 12.0 - w };
    let b = Rect::xywh(bx, area.y0 + 4.0, w, h);
    s.rect(
        b,
        RectStyle::fill(Color::rgba(0.05, 0.05, 0.06, 0.92))
            .rounded(4.0)
            .with_border(1.0, DIM.fade(0.6)),
    );
    for (i, l) in lines.iter().enumerate() {
        text(s, l, b.x0 + 8.0, b.y0 + 5.0 + i as f32 * 15.0, SMALL, TEXT);
    }
}

/// One "name ... value" row of the side panel.
fn row(s: &mut Scene, side: Rect, y: f32, name: &str, value: &str, color: Color) {
    let r = Rect::new(side.x0 + 10.0, y, side.x1 - 10.0, y + ROW);
    split_row(s, r, (name, DIM), (value, color));
}

fn title(s: &mut Scene, side: Rect, y: f32, t: &str) {
    boxed(s, t, Rect::new(side.x0 + 10.0, y, side.x1 - 10.0, y + ROW), ACCENT, Align::Start);
}

/// A section title with a dim note at its right end.
fn title_with(s: &mut Scene, side: Rect, y: f32, t: &str, note: &str) {
    let r = Rect::new(side.x0 + 10.0, y, side.x1 - 10.0, y + ROW);
    split_row(s, r, (t, ACCENT), (note, DIM));
}

fn side_panel(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let l = &state.layout;
    let side = l.side;
    s.rect(side, RectStyle::fill(PANEL).rounded(4.0));
    s.push_clip(side);
    let [clip_y, frame_y, pooled_y, worst_y] = l.side_sections;
    let r = &v.clip.reference;
    let g = r.geometry;
    title(s, side, clip_y, "Clip");
    let size = format!("{}x{}", g.width, g.height);
    let rate = format!("{:.3} fps", r.frame_rate.as_f64());
    let frames =
        v.clip.frame_count.map_or("unknown".into(), |n| format!("{n} (0–{})", n.saturating_sub(1)));
    let facts = if l.compact {
        // Short window: the same facts, two to a row.
        vec![
            (format!("{size} {}", g.format.ffmpeg_name()), rate),
            (format!("{frames} frames"), v.model.to_string()),
        ]
    } else {
        vec![
            ("resolution".into(), size),
            ("pixel format".into(), g.format.ffmpeg_name()),
            ("frame rate".into(), rate),
            ("frames".into(), frames),
            ("model".into(), v.model.to_string()),
        ]
    };
    for (i, (name, value)) in facts.iter().enumerate() {
        row(s, side, clip_y + (i + 1) as f32 * ROW, name, value, TEXT);
    }
    title(s, side, frame_y, &format!("Frame {}", state.frame));
    let current = v.history.get(state.frame);
    let keys = [("vmaf", "VMAF")]
        .into_iter()
        .chain(v.history.plottable().into_iter().take(FRAME_VALUE_ROWS).map(|k| (k, k)));
    for (i, (key, label)) in keys.enumerate() {
        let value = current.and_then(|c| c.get(key)).map_or("…".into(), |x| format_value(key, x));
        let color = if key == "vmaf" { ACCENT } else { TEXT };
        row(s, side, frame_y + (i + 1) as f32 * ROW, label, &value, color);
    }
    title(s, side, pooled_y, "VMAF pooled");
    let pooled = v.history.pooled();
    let figures = [
        ("mean", pooled.map(|(p, _)| p.mean)),
        ("min", pooled.map(|(p, _)| p.min)),
        ("harmonic mean", pooled.map(|(p, _)| p.harmonic_mean)),
        ("1% low", pooled.map(|(_, low)| low)),
    ];
    for (i, (name, value)) in figures.iter().enumerate() {
        let text = value.map_or("…".into(), |x| format!("{x:.2}"));
        row(s, side, pooled_y + (i + 1) as f32 * ROW, name, &text, TEXT);
    }
    let worst = v.history.worst(WORST_ROWS);
    let shown = worst.len().min(l.worst_shown);
    // Rows the panel has no room for are counted, not dropped unseen.
    let hidden = worst.len() - shown;
    let note = if hidden > 0 { format!("+{hidden} more") } else { "click to seek".into() };
    title_with(s, side, worst_y, "Worst frames", &note);
    for (i, (frame, value)) in worst.iter().take(shown).enumerate() {
        let r = l.worst_rows[i];
        let hot = state.cursor.is_some_and(|c| r.contains(c.x, c.y));
        if *frame == state.frame || hot {
            s.rect(r, RectStyle::fill(ACCENT.fade(if hot { 0.25 } else { 0.15 })).rounded(3.0));
        }
        row(s, side, r.y0, &format!("frame {frame}"), &format!("{value:.2}"), BAD);
    }
    all_values(s, v, worst_y + (shown + 1) as f32 * ROW + PAD);
    s.pop_clip();
}

/// Every value of the current frame (features, then model outputs, less a
/// bootstrap model's twenty members), as many rows as fit below `top`, then
/// how many did not; with no room for even that, nothing.
fn all_values(s: &mut Scene, v: &ViewInputs<'_>, top: f32) {
    let side = v.state.layout.side;
    let Some(current) = v.history.get(v.state.frame) else { return };
    let shown: Vec<(&str, f64)> = current.named().filter(|(n, _)| !is_member(n)).collect();
    let room = ((side.y1 - top) / ROW).floor() as usize;
    if room == 1 {
        let more = format!("{} values of frame {}: E writes them", shown.len(), v.state.frame);
        row(s, side, top, &more, "", DIM);
    }
    if room < 2 {
        return;
    }
    title(s, side, top, &format!("All values, frame {}", v.state.frame));
    let fits = if shown.len() < room { shown.len() } else { room - 2 };
    for (i, (name, value)) in shown.iter().take(fits).enumerate() {
        row(s, side, top + (i + 1) as f32 * ROW, name, &format!("{value:.6}"), TEXT);
    }
    if fits < shown.len() {
        let more = format!("+{} more (E writes them all)", shown.len() - fits);
        row(s, side, top + (fits + 1) as f32 * ROW, &more, "", DIM);
    }
}

/// A bootstrap member's score (`vmaf_0001`…): twenty of them say little
/// one by one; the band and the CI rows summarise them.
fn is_member(name: &str) -> bool {
    name.rsplit_once('_')
        .is_some_and(|(_, n)| n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every key and mouse action.
pub const HELP: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    ("L", "loop: play on from the first frame at the end (--loop)"),
    ("Left / Right", "step one frame (Shift: ten)"),
    ("Home / End", "first / last frame"),
    ("M", "view: side by side, wipe, diff, SSIM, ΔE, banding maps"),
    ("F / 1", "fit the picture / 1:1"),
    ("wheel on video", "zoom around the cursor (fit to 32x)"),
    ("drag on video", "pan (both sides together)"),
    ("drag the wipe line", "move the split"),
    ("[ / ]", "show the distorted side 1 frame earlier / later"),
    ("{ / }", "the same for the reference side"),
    ("drop a file on a side", "replace that input (same size and format)"),
    ("P", "second plotted series: every computed value in turn"),
    ("V", "next VMAF model (bootstrap: 95% band in the plot)"),
    ("click / drag plot", "seek; wheel zooms the time axis, 0 shows all"),
    ("click a worst frame", "seek to it"),
    ("S / E", "save a PNG of the view / write the JSON report"),
    ("", "into the folder vqscope was started from, as vqscope-view.png /"),
    ("", "vqscope-report.json (-1, -2… when taken; never overwritten)"),
    ("? / Esc", "this help / quit"),
];

fn help(s: &mut Scene, l: &Layout) {
    s.rect(
        Rect::new(0.0, 0.0, l.width, l.height),
        RectStyle::fill(Color::rgba(0.0, 0.0, 0.0, 0.5)),
    );
    let b = l.help;
    s.rect(b, RectStyle::fill(PANEL).rounded(8.0).with_border(1.0, DIM.fade(0.5)));
    s.push_clip(b);
    text(s, "vqscope keys", b.x0 + 20.0, b.y0 + 16.0, 16.0, TEXT);
    let note = "With no inputs, vqscope shows a generated demo: a moving scene and a\n\
                simulated blocky encode of it. The difference view shows |ref - dis|\n\
                of the luma, times four, as grey. Frame offsets change only what\n\
                is shown: the scores always pair frame N with frame N, as libvmaf.";
    let top = b.y0 + 48.0;
    let line = ROW + 2.0;
    let note_h = measure(Font::shared(), note, SMALL).height + 8.0;
    // A window too short for every line lists what fits and says so.
    let all_fit = top + HELP.len() as f32 * line + note_h <= b.y1;
    let fits = if all_fit {
        HELP.len()
    } else {
        (((b.y1 - top) / line).floor() as usize).saturating_sub(1).min(HELP.len())
    };
    let mut y = top;
    let cell = |x0: f32, x1: f32, y: f32| Rect::new(x0, y, x1, y + ROW);
    for (key, action) in &HELP[..fits] {
        boxed(s, *key, cell(b.x0 + 20.0, b.x0 + 184.0, y), ACCENT, Align::Start);
        boxed(s, *action, cell(b.x0 + 190.0, b.x1 - 12.0, y), TEXT, Align::Start);
        y += line;
    }
    if all_fit {
        text(s, note, b.x0 + 20.0, y + 8.0, SMALL, DIM);
    } else {
        let more = format!("+{} more lines: a taller window shows them", HELP.len() - fits);
        boxed(s, more, cell(b.x0 + 20.0, b.x1 - 12.0, y), DIM, Align::Start);
    }
    s.pop_clip();
}
