//! Builds the dashboard's [`Scene`] from the state, the pictures of the
//! current pair and the scores so far. Nothing here decides anything: the
//! state says what to show, the layout says where, and this file only
//! turns both into primitives, so the window and the headless screenshot
//! draw the same thing from the same inputs.

use vqscope_renderer::glyphs::Font;
use vqscope_renderer::text::measure;
use vqscope_renderer::{
    Align, Color, Rect, RectStyle, Sampling, Scene, TextRun, VAlign, YuvId, heat,
};

use super::heat_view::MapInfo;
use super::layout::{FRAME_VALUE_ROWS, Layout, PAD, ROW, WORST_ROWS};
use super::pictures::Pictures;
use super::scores::History;
use super::source::ClipInfo;
use super::state::{GRID_SCALE, State, ViewMode, picture_rect};

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

/// Text in a box, clipped to it.
fn boxed(s: &mut Scene, t: impl Into<String>, r: Rect, color: Color, align: Align) {
    s.text(TextRun::boxed(t, r, SIZE, color, align, VAlign::Middle));
}

fn width_of(t: &str, size: f32) -> f32 {
    measure(Font::shared(), t, size).width
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
    let scaled = match v.clip.distorted.scaled_from {
        Some((w, h)) => format!(" (scaled from {w}x{h})"),
        None => String::new(),
    };
    let names = format!(
        "reference  {}      distorted  {}{scaled}",
        file_name(&v.clip.reference),
        file_name(&v.clip.distorted)
    );
    boxed(s, names, row(0.0), TEXT, Align::Start);
    let total = v.state.frame_count;
    let status = match (v.error, v.history.done) {
        (Some(e), _) => format!("error: {e}"),
        (None, true) => format!("scored {total} frames"),
        (None, false) => format!("scoring {} / {total}", v.history.frames.len()),
    };
    let (status, color) = match &v.state.notice {
        Some(n) => (n.clone(), BAD),
        None => (status, if v.error.is_some() { BAD } else { DIM }),
    };
    boxed(s, status, row(1.0), color, Align::Start);
    boxed(s, "? for help", row(1.0), DIM, Align::End);
    if let Some(offsets) = offsets_label(v.state) {
        boxed(s, offsets, row(0.0), WARM, Align::End);
    }
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
    let full = picture_rect(pane, &state.view, state.picture);
    let dst = full.intersect(&pane);
    if dst.is_empty() {
        return None;
    }
    let k = 1.0 / state.view.scale;
    let src = Rect::new(
        (dst.x0 - full.x0) * k,
        (dst.y0 - full.y0) * k,
        (dst.x1 - full.x0) * k,
        (dst.y1 - full.y0) * k,
    );
    Some((dst, src))
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
    let full = picture_rect(pane, &state.view, state.picture);
    let sc = state.view.scale;
    let [x0, y0, x1, y1] = info.covered();
    let covered =
        Rect::new(full.x0 + x0 * sc, full.y0 + y0 * sc, full.x0 + x1 * sc, full.y0 + y1 * sc);
    let dst = covered.intersect(&pane);
    if dst.is_empty() {
        return None;
    }
    // Screen → picture samples → map cells (origin·scale samples of
    // border, then `scale` samples per cell).
    let k = 1.0 / (sc * info.scale as f32);
    let src = Rect::new(
        (dst.x0 - covered.x0) * k,
        (dst.y0 - covered.y0) * k,
        (dst.x1 - covered.x0) * k,
        (dst.y1 - covered.y0) * k,
    );
    Some((dst, src))
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

/// A heat map's legend on a chip at the top right of `pane`.
fn legend(s: &mut Scene, pane: Rect, range: (f32, f32), decimals: usize, caption: &str) {
    let w = 230.0f32.min(pane.width() - 12.0);
    let chip = Rect::xywh(pane.x1 - w - 6.0, pane.y0 + 6.0, w, 64.0);
    s.rect(chip, RectStyle::fill(Color::rgba(0.0, 0.0, 0.0, 0.6)).rounded(4.0));
    let bar = Rect::new(chip.x0 + 12.0, chip.y0 + 26.0, chip.x1 - 12.0, chip.y0 + 36.0);
    heat::legend(s, bar, range, 3, decimals, caption, TEXT);
}

/// A small label on a translucent chip at the top-left (or right) of `pane`.
fn tag(s: &mut Scene, pane: Rect, label: &str, right: bool) {
    let w = width_of(label, SIZE) + 12.0;
    let x = if right { pane.x1 - w - 6.0 } else { pane.x0 + 6.0 };
    let chip = Rect::xywh(x, pane.y0 + 6.0, w, ROW + 2.0);
    s.rect(chip, RectStyle::fill(Color::rgba(0.0, 0.0, 0.0, 0.55)).rounded(4.0));
    boxed(s, label, chip, TEXT, Align::Center);
}

fn zoom_label(state: &State) -> String {
    let pct = (state.view.scale * 100.0).round();
    if state.view.fit { format!("fit {pct}%") } else { format!("{pct}%") }
}

fn video(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let panes = state.panes();
    for pane in &panes {
        s.rect(*pane, RectStyle::fill(PANE));
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
            tag(s, panes[0], "reference", false);
            tag(s, panes[1], "distorted", false);
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
            tag(s, pane, "reference", false);
            tag(s, pane, "distorted", true);
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
            tag(s, pane, "difference |ref - dis| x4 (luma)", false);
        }
        ViewMode::Ssim | ViewMode::DeltaE => {
            let pane = panes[0];
            let ssim = state.mode == ViewMode::Ssim;
            let (what, range) = if ssim { ("SSIM", SSIM_RANGE) } else { ("ΔE", DELTA_E_RANGE) };
            match &v.map {
                Some(Ok(info)) => heat_map(s, state, pane, info, range),
                Some(Err(e)) => {
                    boxed(s, format!("no {what} map: {e}"), pane, BAD, Align::Center);
                }
                None => boxed(s, format!("computing {what}…"), pane, DIM, Align::Center),
            }
            if ssim {
                tag(s, pane, "SSIM per pixel (luma)", false);
                legend(s, pane, range, 2, "SSIM (bright = damaged)");
            } else {
                tag(s, pane, "CIEDE2000 ΔE per pixel", false);
                legend(s, pane, range, 0, "ΔE2000 (bright = damaged)");
            }
        }
    }
    let last = panes[panes.len() - 1];
    let zoom = zoom_label(state);
    let chip = Rect::new(
        last.x1 - width_of(&zoom, SMALL) - 18.0,
        last.y1 - ROW - 8.0,
        last.x1 - 6.0,
        last.y1 - 6.0,
    );
    s.rect(chip, RectStyle::fill(Color::rgba(0.0, 0.0, 0.0, 0.55)).rounded(4.0));
    s.text(TextRun::boxed(zoom, chip, SMALL, TEXT, Align::Center, VAlign::Middle));
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
    let label = format!("frame {} / {}   {}", state.frame, state.frame_count - 1, state.timecode());
    boxed(
        s,
        label,
        Rect::new(t.x0 + 32.0, t.y0, state.layout.scrubber.x0 - 8.0, t.y1),
        TEXT,
        Align::Start,
    );
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

/// Screen points of a series within the visible span; when there are more
/// frames than pixels, each pixel column keeps its min and max so spikes
/// stay visible.
fn trace(state: &State, values: &[(u64, f64)], y: impl Fn(f64) -> f32) -> Vec<[f32; 2]> {
    let (a, b) = state.plot_span;
    let area = state.layout.plot_area;
    let visible: Vec<(u64, f64)> = values
        .iter()
        .copied()
        .filter(|(f, v)| (*f as f64) >= a - 1.0 && (*f as f64) <= b + 1.0 && v.is_finite())
        .collect();
    if visible.len() as f32 <= area.width() * 2.0 {
        return visible.iter().map(|(f, v)| [state.plot_x(*f as f64), y(*v)]).collect();
    }
    let mut out: Vec<[f32; 2]> = Vec::new();
    let mut column: Option<(i32, f64, f64)> = None;
    for (f, v) in visible {
        let x = state.plot_x(f as f64);
        let c = x.floor() as i32;
        column = match column {
            Some((cc, lo, hi)) if cc == c => Some((cc, lo.min(v), hi.max(v))),
            other => {
                if let Some((cc, lo, hi)) = other {
                    out.push([cc as f32, y(lo)]);
                    out.push([cc as f32, y(hi)]);
                }
                Some((c, v, v))
            }
        };
    }
    if let Some((cc, lo, hi)) = column {
        out.push([cc as f32, y(lo)]);
        out.push([cc as f32, y(hi)]);
    }
    out
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
    for (label, color) in legend {
        s.rect(Rect::xywh(x, p.y0 + 9.0, 14.0, 3.0), RectStyle::fill(color));
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
/// trace: one translucent column per frame in view, from `ci_p95_lo` to
/// `ci_p95_hi` (nothing for single models, which have no interval).
fn confidence_band(s: &mut Scene, v: &ViewInputs<'_>, vmaf_y: &impl Fn(f64) -> f32) {
    let state = v.state;
    let (lo, hi) = (v.history.series(CI_LO), v.history.series(CI_HI));
    let (a, b) = state.plot_span;
    let half = (state.plot_x(1.0) - state.plot_x(0.0)).abs() * 0.5;
    for ((frame, lo), (_, hi)) in lo.iter().zip(&hi) {
        let f = *frame as f64;
        if f < a - 1.0 || f > b + 1.0 {
            continue;
        }
        let x = state.plot_x(f);
        let (x0, x1) = (x - half.max(0.5), x + half.max(0.5));
        s.rect(
            Rect::new(x0, vmaf_y(*hi), x1, vmaf_y(*lo)),
            RectStyle::fill(ACCENT.fade(BAND_ALPHA)),
        );
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
    boxed(s, name, r, DIM, Align::Start);
    boxed(s, value, r, color, Align::End);
}

fn title(s: &mut Scene, side: Rect, y: f32, t: &str) {
    boxed(s, t, Rect::new(side.x0 + 10.0, y, side.x1 - 10.0, y + ROW), ACCENT, Align::Start);
}

fn side_panel(s: &mut Scene, v: &ViewInputs<'_>) {
    let state = v.state;
    let l = &state.layout;
    let side = l.side;
    s.rect(side, RectStyle::fill(PANEL).rounded(4.0));
    s.push_clip(side);
    let [clip_y, frame_y, pooled_y] = l.side_sections;
    let r = &v.clip.reference;
    let g = r.geometry;
    title(s, side, clip_y, "Clip");
    let facts = [
        ("resolution", format!("{}x{}", g.width, g.height)),
        ("pixel format", g.format.ffmpeg_name()),
        ("frame rate", format!("{:.3} fps", r.frame_rate.as_f64())),
        ("frames", v.clip.frame_count.map_or("unknown".into(), |n| n.to_string())),
        ("model", v.model.to_string()),
    ];
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
    let worst_title = l.worst_rows[0].y0 - ROW;
    title(s, side, worst_title, "Worst frames (click to seek)");
    let worst = v.history.worst(WORST_ROWS);
    for (i, (frame, value)) in worst.iter().enumerate() {
        let r = l.worst_rows[i];
        let hot = state.cursor.is_some_and(|[x, y]| r.contains(x, y));
        if *frame == state.frame || hot {
            s.rect(r, RectStyle::fill(ACCENT.fade(if hot { 0.25 } else { 0.15 })).rounded(3.0));
        }
        row(s, side, r.y0, &format!("frame {frame}"), &format!("{value:.2}"), BAD);
    }
    all_values(s, v, l.worst_rows[WORST_ROWS - 1].y1 + PAD);
    s.pop_clip();
}

/// Every value of the current frame (features, then model outputs, less a
/// bootstrap model's twenty members), as many rows as fit below `top`, then
/// how many did not.
fn all_values(s: &mut Scene, v: &ViewInputs<'_>, top: f32) {
    let side = v.state.layout.side;
    let Some(current) = v.history.get(v.state.frame) else { return };
    let shown: Vec<(&str, f64)> = current.named().filter(|(n, _)| !is_member(n)).collect();
    let room = ((side.y1 - top) / ROW).floor() as usize;
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
    ("Left / Right", "step one frame (Shift: ten)"),
    ("Home / End", "first / last frame"),
    ("M", "view: side by side, wipe, difference, SSIM map, ΔE map"),
    ("F / 1", "fit the picture / 1:1"),
    ("wheel on video", "zoom around the cursor (fit to 32x)"),
    ("drag on video", "pan (both sides together)"),
    ("drag the wipe line", "move the split"),
    ("[ / ]", "show the distorted side 1 frame earlier / later"),
    ("{ / }", "the same for the reference side"),
    ("drop a file on a side", "replace that input (same size and format)"),
    ("P", "second plotted series: every computed value in turn"),
    ("V", "next VMAF model (bootstrap: 95% band in the plot)"),
    ("click / drag plot", "seek; wheel zooms the time axis"),
    ("click a worst frame", "seek to it"),
    ("S / E", "save a PNG of the view / write the JSON report"),
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
    let mut y = b.y0 + 48.0;
    for (key, action) in HELP {
        text(s, *key, b.x0 + 20.0, y, SIZE, ACCENT);
        text(s, *action, b.x0 + 190.0, y, SIZE, TEXT);
        y += ROW + 2.0;
    }
    let note = "With no inputs, vqscope shows a generated demo: a moving scene and a\n\
                simulated blocky encode of it. The difference view shows |ref - dis|\n\
                of the luma, times four, as grey. Frame offsets change only what\n\
                is shown: the scores always pair frame N with frame N, as libvmaf.";
    text(s, note, b.x0 + 20.0, y + 8.0, SMALL, DIM);
    s.pop_clip();
}
