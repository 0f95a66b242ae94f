//! The named test scenes: what `vqscope screenshot --scene NAME` renders,
//! what the golden tests compare and what `vqscope bench ui` times. Every
//! scene is built procedurally at any size, the same on every machine.

use crate::heat;
use crate::scene::{
    Color, Rect, RectStyle, Sampling, Scene, Subsampling, Transfer, YuvFormat, YuvMatrix,
    YuvPicture,
};
use crate::text::{Align, TextRun, VAlign};

/// Every scene name, in the order `--help` lists them.
pub const NAMES: &[&str] = &[
    "showcase",
    "rects",
    "circles",
    "lines",
    "images",
    "yuv10",
    "heatmap",
    "text",
    "clips",
    "translucent",
    "dashboard",
    "10k",
    "100k",
    "1m",
];

/// Builds scene `name` at `width` x `height`; `None` for an unknown name.
pub fn build(name: &str, width: u32, height: u32) -> Option<Scene> {
    let mut s = Scene::new(width, height, BACKGROUND);
    let (w, h) = (width as f32, height as f32);
    match name {
        "showcase" => showcase(&mut s, w, h),
        "rects" => rects(&mut s, Rect::new(0.0, 0.0, w, h)),
        "circles" => circles(&mut s, Rect::new(0.0, 0.0, w, h)),
        "lines" => lines(&mut s, Rect::new(0.0, 0.0, w, h)),
        "images" => images(&mut s, Rect::new(0.0, 0.0, w, h)),
        "yuv10" => yuv(&mut s, Rect::new(0.0, 0.0, w, h), 10),
        "heatmap" => heatmap(&mut s, Rect::new(0.0, 0.0, w, h)),
        "text" => text(&mut s, Rect::new(0.0, 0.0, w, h)),
        "clips" => clips(&mut s, Rect::new(0.0, 0.0, w, h)),
        "translucent" => translucent(&mut s, Rect::new(0.0, 0.0, w, h), false),
        "dashboard" => dashboard(&mut s, w, h),
        "10k" => many(&mut s, w, h, 10_000),
        "100k" => many(&mut s, w, h, 100_000),
        "1m" => many(&mut s, w, h, 1_000_000),
        _ => return None,
    }
    Some(s)
}

/// The translucent scene with its draw order reversed: the golden test
/// checks that this renders differently, so order is really honoured.
pub fn translucent_scrambled(width: u32, height: u32) -> Scene {
    let mut s = Scene::new(width, height, BACKGROUND);
    translucent(&mut s, Rect::new(0.0, 0.0, width as f32, height as f32), true);
    s
}

const BACKGROUND: Color = Color::rgb(0.09, 0.10, 0.12);
const PANEL: Color = Color::rgb(0.15, 0.16, 0.19);
const TEXT: Color = Color::rgb(0.90, 0.91, 0.93);
const ACCENT: Color = Color::rgb(0.30, 0.65, 1.00);
const WARM: Color = Color::rgb(1.00, 0.55, 0.25);
const GREEN: Color = Color::rgb(0.35, 0.85, 0.45);

/// Splits `r` into a `cols` x `rows` grid of cells with a margin.
fn grid(r: Rect, cols: usize, rows: usize, margin: f32) -> Vec<Rect> {
    let cw = (r.width() - margin) / cols as f32;
    let ch = (r.height() - margin) / rows as f32;
    (0..rows)
        .flat_map(|y| {
            (0..cols).map(move |x| {
                Rect::xywh(
                    r.x0 + margin + x as f32 * cw,
                    r.y0 + margin + y as f32 * ch,
                    cw - margin,
                    ch - margin,
                )
            })
        })
        .collect()
}

fn label(s: &mut Scene, r: Rect, text: &str) {
    let size = (r.height() * 0.07).clamp(10.0, 18.0);
    s.text(TextRun::boxed(
        text,
        Rect::new(r.x0 + 6.0, r.y0 + 4.0, r.x1 - 6.0, r.y0 + 4.0 + size * 1.4),
        size,
        TEXT,
        Align::Start,
        VAlign::Top,
    ));
}

fn showcase(s: &mut Scene, w: f32, h: f32) {
    let cells = grid(Rect::new(0.0, 0.0, w, h), 4, 2, 8.0);
    let names = [
        "rectangles",
        "circles & rings",
        "lines",
        "RGBA image",
        "YUV 4:2:0 10-bit",
        "text",
        "clips",
        "translucent order",
    ];
    for (cell, name) in cells.iter().zip(names) {
        s.rect(*cell, RectStyle::fill(PANEL).rounded(6.0));
        let body = Rect::new(cell.x0, cell.y0 + 22.0, cell.x1, cell.y1);
        s.push_clip(*cell);
        match name {
            "rectangles" => rects(s, body),
            "circles & rings" => circles(s, body),
            "lines" => lines(s, body),
            "RGBA image" => images(s, body),
            "YUV 4:2:0 10-bit" => yuv(s, body, 10),
            "text" => text(s, body),
            "clips" => clips(s, body),
            _ => translucent(s, body, false),
        }
        label(s, *cell, name);
        s.pop_clip();
    }
}

fn rects(s: &mut Scene, r: Rect) {
    let cells = grid(r, 3, 2, 10.0);
    s.rect(cells[0], RectStyle::fill(ACCENT));
    s.rect(cells[1], RectStyle::fill(WARM).rounded(cells[1].height().min(cells[1].width()) * 0.25));
    s.rect(cells[2], RectStyle::fill(PANEL).rounded(8.0).with_border(3.0, GREEN));
    let mut per_corner = RectStyle::fill(Color::hex(0xB070F0, 1.0));
    per_corner.radii = [0.0, 6.0, 18.0, 30.0];
    s.rect(cells[3], per_corner);
    s.rect(cells[4], RectStyle::fill(Color::TRANSPARENT).rounded(10.0).with_border(1.5, TEXT));
    // A rectangle at a fractional position: its edges must be anti-aliased.
    let c = cells[5];
    s.rect(
        Rect::new(c.x0 + 0.5, c.y0 + 0.25, c.x1 - 0.75, c.y1 - 0.5),
        RectStyle::fill(TEXT.fade(0.8)).rounded(3.0),
    );
}

fn circles(s: &mut Scene, r: Rect) {
    let cells = grid(r, 3, 1, 8.0);
    for (i, c) in cells.iter().enumerate() {
        let center = [0.5 * (c.x0 + c.x1), 0.5 * (c.y0 + c.y1)];
        let radius = 0.45 * c.width().min(c.height());
        match i {
            0 => s.circle(center, radius, ACCENT),
            1 => s.ring(center, radius * 0.8, radius * 0.25, WARM),
            _ => {
                s.circle(center, radius, GREEN.fade(0.5));
                s.ring(center, radius * 0.5, 1.0, TEXT);
            }
        }
    }
}

fn lines(s: &mut Scene, r: Rect) {
    let inner = r.inflate(-10.0);
    let n = 48;
    let points: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            let t = i as f32 / (n - 1) as f32;
            let y = 0.5 + 0.35 * (t * 9.0).sin() * (1.0 - 0.6 * t);
            [inner.x0 + t * inner.width(), inner.y0 + y * inner.height()]
        })
        .collect();
    s.polyline(&points, 2.0, ACCENT);
    s.line([inner.x0, inner.y1], [inner.x1, inner.y0], 1.0, TEXT.fade(0.6));
    s.line([inner.x0, inner.y0 + 6.0], [inner.x1, inner.y0 + 6.0], 5.0, WARM);
    s.line(
        [inner.x0 + 0.5 * inner.width(), inner.y0],
        [inner.x0 + 0.5 * inner.width(), inner.y1],
        0.75,
        GREEN,
    );
}

/// A 64x48 RGBA texture: a hue gradient with a checker of alpha.
fn test_texture() -> (u32, u32, Vec<u8>) {
    let (tw, th) = (64u32, 48u32);
    let mut rgba = Vec::with_capacity((tw * th * 4) as usize);
    for y in 0..th {
        for x in 0..tw {
            let r = (x * 255 / (tw - 1)) as u8;
            let g = (y * 255 / (th - 1)) as u8;
            let b = 255 - r / 2;
            let a = if (x / 8 + y / 8) % 2 == 0 { 255 } else { 160 };
            rgba.extend_from_slice(&[r, g, b, a]);
        }
    }
    (tw, th, rgba)
}

/// Size of [`test_map`].
pub const TEST_MAP_SIZE: (u32, u32) = (48, 27);

/// A synthetic SSIM-like map: mostly near 1, a smooth gradient of loss
/// towards the bottom-left, a sharp "damaged" disc down to 0.2, one cell
/// below the range (−0.3) and one NaN cell (it must show magenta).
pub fn test_map() -> Vec<f32> {
    let (w, h) = TEST_MAP_SIZE;
    let mut values = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 / (w - 1) as f32, y as f32 / (h - 1) as f32);
            let mut v = 1.0 - 0.35 * (1.0 - fx) * fy;
            let d = ((x as f32 - 33.0).powi(2) + (y as f32 - 9.0).powi(2)).sqrt();
            if d < 6.0 {
                v = v.min(0.2 + 0.8 * d / 6.0);
            }
            values.push(v);
        }
    }
    values[(3 * w + 3) as usize] = -0.3;
    values[(3 * w + 6) as usize] = f32::NAN;
    values
}

/// [`test_map`] drawn nearest (left: one flat cell per value) and bilinear
/// (right: interpolated values), over 0.5..1 like the SSIM screenshot,
/// with a legend below.
fn heatmap(s: &mut Scene, r: Rect) {
    let (mw, mh) = TEST_MAP_SIZE;
    let map = s.add_map(mw, mh, test_map());
    let range = (0.5, 1.0);
    let legend_h = 52.0;
    let cells = grid(Rect::new(r.x0, r.y0, r.x1, r.y1 - legend_h), 2, 1, 8.0);
    let src = Rect::new(0.0, 0.0, mw as f32, mh as f32);
    s.heat_map(cells[0], map, src, Sampling::Nearest, range);
    s.heat_map(cells[1], map, src, Sampling::Bilinear, range);
    let bar = Rect::new(r.x0 + 16.0, r.y1 - legend_h + 20.0, r.x1 - 16.0, r.y1 - legend_h + 30.0);
    heat::legend(s, bar, range, 3, 2, "SSIM (low = bright)", TEXT);
}

fn images(s: &mut Scene, r: Rect) {
    let (tw, th, rgba) = test_texture();
    let tex = s.add_texture(tw, th, rgba);
    let cells = grid(r, 2, 1, 8.0);
    let full = Rect::new(0.0, 0.0, tw as f32, th as f32);
    s.image(cells[0], tex, full, Sampling::Bilinear, 1.0);
    // Zoomed 4x on a corner, nearest: texel edges must stay sharp.
    s.image(cells[1], tex, Rect::new(0.0, 0.0, 16.0, 12.0), Sampling::Nearest, 1.0);
}

/// A 4:2:0 picture whose luma ramps horizontally and chroma sweeps the
/// Cb/Cr plane, quantised at `bit_depth` with limited range.
pub fn test_picture(width: u32, height: u32, bit_depth: u32) -> YuvPicture {
    let scale = 1u32 << (bit_depth - 8);
    let (cw, ch) = (width.div_ceil(2), height.div_ceil(2));
    let mut samples: Vec<u32> = Vec::new();
    for y in 0..height {
        for x in 0..width {
            samples.push((16 * scale) + (219 * scale) * x / (width - 1).max(1) + (y % 3));
        }
    }
    for plane in 0..2 {
        for y in 0..ch {
            for x in 0..cw {
                let t = if plane == 0 {
                    x * 224 * scale / cw.max(1)
                } else {
                    y * 224 * scale / ch.max(1)
                };
                samples.push(16 * scale + t);
            }
        }
    }
    let data = if bit_depth > 8 {
        samples.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect()
    } else {
        samples.iter().map(|&v| v as u8).collect()
    };
    let format = YuvFormat {
        width,
        height,
        bit_depth,
        subsampling: Subsampling::Yuv420,
        matrix: YuvMatrix::Bt709,
        full_range: false,
        transfer: Transfer::Sdr,
    };
    YuvPicture { format, data }
}

fn yuv(s: &mut Scene, r: Rect, bit_depth: u32) {
    let (pw, ph) = (96, 54);
    let id = s.add_yuv(test_picture(pw, ph, bit_depth));
    let cells = grid(r, 2, 1, 8.0);
    s.yuv_image(cells[0], id, Rect::new(0.0, 0.0, pw as f32, ph as f32), Sampling::Bilinear);
    s.yuv_image(cells[1], id, Rect::new(40.0, 20.0, 56.0, 34.0), Sampling::Nearest);
}

fn text(s: &mut Scene, r: Rect) {
    let mut y = r.y0 + 6.0;
    for size in [10.0, 13.0, 16.0, 22.0, 30.0] {
        s.text(TextRun::new(format!("VMAF 93.41 — {size} px"), r.x0 + 8.0, y, size, TEXT));
        y += size * 1.3;
    }
    let b = Rect::new(r.x0 + 8.0, y, r.x1 - 8.0, r.y1 - 6.0);
    if !b.is_empty() {
        s.rect(b, RectStyle::fill(Color::TRANSPARENT).with_border(1.0, TEXT.fade(0.4)));
        s.text(TextRun::boxed("centred", b, 14.0, ACCENT, Align::Center, VAlign::Middle));
        s.text(TextRun::boxed("end", b, 12.0, WARM, Align::End, VAlign::Bottom));
    }
}

fn clips(s: &mut Scene, r: Rect) {
    let inner = r.inflate(-12.0);
    let clip = Rect::new(
        inner.x0 + inner.width() * 0.3,
        inner.y0 + inner.height() * 0.05,
        inner.x1 - inner.width() * 0.05,
        inner.y1 - inner.height() * 0.35,
    );
    s.rect(clip, RectStyle::fill(Color::TRANSPARENT).with_border(1.0, TEXT.fade(0.5)));
    s.push_clip(clip);
    let center = [0.5 * (inner.x0 + inner.x1), 0.5 * (inner.y0 + inner.y1)];
    s.circle(center, inner.height() * 0.45, ACCENT);
    s.line([inner.x0, inner.y0], [inner.x1, inner.y1], 6.0, WARM);
    s.text(TextRun::new("clipped text runs past the edge", inner.x0, center[1] - 8.0, 16.0, TEXT));
    s.pop_clip();
}

fn translucent(s: &mut Scene, r: Rect, reversed: bool) {
    let d = r.width().min(r.height()) * 0.42;
    let c = [0.5 * (r.x0 + r.x1), 0.5 * (r.y0 + r.y1)];
    let mut shapes: Vec<(Rect, Color)> = vec![
        (Rect::xywh(c[0] - d, c[1] - d * 0.8, d * 1.2, d * 1.2), Color::rgba(1.0, 0.2, 0.2, 0.6)),
        (
            Rect::xywh(c[0] - d * 0.5, c[1] - d * 0.4, d * 1.2, d * 1.2),
            Color::rgba(0.2, 1.0, 0.3, 0.6),
        ),
        (
            Rect::xywh(c[0] - d * 0.1, c[1] - d * 0.9, d * 1.1, d * 1.1),
            Color::rgba(0.2, 0.4, 1.0, 0.6),
        ),
    ];
    if reversed {
        shapes.reverse();
    }
    for (rect, color) in shapes {
        s.rect(rect, RectStyle::fill(color).rounded(d * 0.15));
    }
}

/// Deterministic pseudo-random numbers (xorshift32) for the big scenes.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
}

fn many(s: &mut Scene, w: f32, h: f32, count: usize) {
    let mut rng = Rng(0x9E37_79B9);
    // Size shrinks with count so the scene stays readable and every tile
    // sees a realistic number of primitives.
    let size = (w * h / count as f32).sqrt() * 1.5;
    for i in 0..count {
        let (x, y) = (rng.next() * w, rng.next() * h);
        let color = Color::rgba(rng.next(), rng.next(), rng.next(), 0.35 + 0.6 * rng.next());
        let extent = size * (0.4 + rng.next());
        match i % 3 {
            0 => s.rect(
                Rect::xywh(x, y, extent, extent * 0.7),
                RectStyle::fill(color).rounded(extent * 0.2),
            ),
            1 => s.circle([x, y], extent * 0.5, color),
            _ => s.line(
                [x, y],
                [x + extent, y + extent * (rng.next() - 0.5)],
                1.0 + 2.0 * rng.next(),
                color,
            ),
        }
    }
}

/// A dashboard-like screen: two video panes, a plot with a few hundred
/// points per series, panels of text. Used for the UI benchmark.
fn dashboard(s: &mut Scene, w: f32, h: f32) {
    let pad = (w * 0.008).max(4.0);
    let top = h * 0.6;
    let pane_w = (w - 3.0 * pad) * 0.5;
    let pic = s.add_yuv(test_picture(192, 108, 8));
    for i in 0..2 {
        let pane = Rect::xywh(pad + i as f32 * (pane_w + pad), pad, pane_w, top - 2.0 * pad);
        s.rect(pane, RectStyle::fill(PANEL).rounded(4.0));
        s.yuv_image(pane.inflate(-2.0), pic, Rect::new(0.0, 0.0, 192.0, 108.0), Sampling::Bilinear);
        s.text(TextRun::boxed(
            if i == 0 { "reference" } else { "distorted" },
            pane.inflate(-8.0),
            14.0,
            TEXT,
            Align::Start,
            VAlign::Top,
        ));
    }
    let plot = Rect::new(pad, top, w * 0.72, h - pad);
    s.rect(plot, RectStyle::fill(PANEL).rounded(4.0));
    for k in 1..5 {
        let y = plot.y0 + plot.height() * k as f32 / 5.0;
        s.line([plot.x0 + 4.0, y], [plot.x1 - 4.0, y], 1.0, TEXT.fade(0.12));
    }
    for (series, color) in [ACCENT, WARM, GREEN].iter().enumerate() {
        let n = 600;
        let points: Vec<[f32; 2]> = (0..n)
            .map(|i| {
                let t = i as f32 / (n - 1) as f32;
                let v = 0.5 + 0.3 * ((t * 31.0 + series as f32).sin() * (t * 7.0).cos());
                [
                    plot.x0 + 8.0 + t * (plot.width() - 16.0),
                    plot.y1 - 8.0 - v * (plot.height() - 16.0),
                ]
            })
            .collect();
        s.polyline(&points, 1.5, *color);
    }
    let cursor = plot.x0 + plot.width() * 0.4;
    s.line([cursor, plot.y0], [cursor, plot.y1], 1.0, TEXT.fade(0.7));
    let side = Rect::new(w * 0.72 + pad, top, w - pad, h - pad);
    s.rect(side, RectStyle::fill(PANEL).rounded(4.0));
    let mut y = side.y0 + 8.0;
    for (name, value) in [
        ("VMAF", "85.26"),
        ("VIF s0", "0.3587"),
        ("ADM2", "0.9049"),
        ("motion2", "12.645"),
        ("PSNR-Y", "30.19 dB"),
        ("SSIM", "0.9902"),
    ] {
        s.text(TextRun::new(name, side.x0 + 10.0, y, 15.0, TEXT.fade(0.7)));
        s.text(TextRun::boxed(
            value,
            Rect::new(side.x0, y, side.x1 - 10.0, y + 20.0),
            15.0,
            TEXT,
            Align::End,
            VAlign::Top,
        ));
        y += 22.0;
    }
}
