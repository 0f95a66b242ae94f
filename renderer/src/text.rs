//! Text runs and their layout into glyph quads.
//!
//! Layout turns a [`TextRun`] into [`GlyphQuad`]s: screen rectangles of whole
//! pixels, each the exact size of a glyph's bitmap in the [`GlyphAtlas`].
//! Because glyph origins and baselines are rounded to whole pixels and glyphs
//! are rasterised at their final size, the fused shader copies coverage texel
//! for pixel, with no filtering, and text is as crisp as fontdue draws it.
//!
//! Rules, shared by [`layout`] and [`measure`] so that measured boxes and
//! drawn text always agree:
//! - the size is quantised to a quarter pixel ([`quantize_size`]);
//! - lines break at `\n` only (a trailing `\n` starts an empty last line);
//!   `\r` and other control characters are ignored; `\t` advances to the
//!   next multiple of four spaces;
//! - pairs of glyphs are kerned with the font's `kern` table (via fontdue);
//! - the pen advances in unrounded pixels and each glyph origin is rounded
//!   relative to the rounded line start, so the same string looks the same
//!   wherever it is placed;
//! - whitespace and inkless glyphs advance the pen but produce no quad;
//!   characters the font lacks draw its `.notdef` box.
//!
//! Nothing is clipped here: when [`TextRun::clip`] is set the renderer clips
//! the quads to [`TextRun::bounds`].

use crate::glyphs::{AtlasError, Font, GlyphAtlas, quantize_size};
use crate::paint::{Color, Rect};

/// Horizontal alignment of a text run inside its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    Start,
    Center,
    End,
}

/// Vertical alignment of a text run inside its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VAlign {
    #[default]
    Top,
    Middle,
    Bottom,
}

/// A run of text placed in a box. Lines break at `\n` only; what falls
/// outside the box is clipped when `clip` is set.
#[derive(Debug, Clone, PartialEq)]
pub struct TextRun {
    pub text: String,
    /// Font size in pixels (the em height).
    pub size: f32,
    pub color: Color,
    pub bounds: Rect,
    pub align: Align,
    pub valign: VAlign,
    pub clip: bool,
}

impl TextRun {
    /// Left/top-aligned, unclipped text at `(x, y)` (top-left of the box).
    pub fn new(text: impl Into<String>, x: f32, y: f32, size: f32, color: Color) -> Self {
        Self {
            text: text.into(),
            size,
            color,
            bounds: Rect::new(x, y, f32::MAX / 4.0, f32::MAX / 4.0),
            align: Align::Start,
            valign: VAlign::Top,
            clip: false,
        }
    }

    /// Placed in `bounds` with the given alignment, clipped to it.
    pub fn boxed(
        text: impl Into<String>,
        bounds: Rect,
        size: f32,
        color: Color,
        align: Align,
        valign: VAlign,
    ) -> Self {
        Self { text: text.into(), size, color, bounds, align, valign, clip: true }
    }
}

/// One glyph to draw: where on screen, and which texels of the atlas hold
/// its coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphQuad {
    /// Destination in pixels (whole-pixel aligned).
    pub dst: Rect,
    /// Texel rectangle in the atlas: x, y, width, height.
    pub atlas: [u32; 4],
}

/// The size of a block of text, in pixels. Vertical values are whole
/// pixels (layout places baselines on whole pixels).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TextMetrics {
    /// Advance width of the widest line (ink may overhang it slightly, e.g.
    /// an italic or a glyph with a negative side bearing).
    pub width: f32,
    /// `lines × line_height`: the height of the block's line boxes.
    pub height: f32,
    /// From the top of a line box to its baseline.
    pub ascent: f32,
    /// From the baseline down to the font's lowest extent (positive).
    pub descent: f32,
    /// Baseline-to-baseline distance, and the height of one line box.
    pub line_height: f32,
    /// Number of lines (`\n` count + 1; the empty string is one line).
    pub lines: usize,
}

/// One laid-out line: its box and baseline, in screen pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineBox {
    /// Left edge (whole pixel), top (whole pixel), advance width and
    /// line height.
    pub rect: Rect,
    /// y of the baseline (whole pixel).
    pub baseline: f32,
}

/// Everything [`layout_detailed`] computed: the quads plus the boxes they
/// were placed in, for callers that draw carets, selections or
/// backgrounds behind text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextLayout {
    pub quads: Vec<GlyphQuad>,
    pub lines: Vec<LineBox>,
    /// The union of the line boxes: where alignment put the text block.
    pub block: Rect,
    pub metrics: TextMetrics,
}

/// Whole-pixel vertical metrics at a (quantised) size.
#[derive(Debug, Clone, Copy)]
struct VMetrics {
    ascent: f32,
    descent: f32,
    line_height: f32,
}

fn vmetrics(font: &Font, size: f32) -> VMetrics {
    let m = font.line_metrics(size);
    // Half the line gap goes above the ascent so the text sits in the middle
    // of its line box; rounding keeps every baseline on a whole pixel.
    let line_height = m.line_height.round().max(1.0);
    let ascent = (m.ascent + m.line_gap / 2.0).round().min(line_height);
    VMetrics { ascent, descent: m.descent.round(), line_height }
}

/// Walks one line (no `\n` in it), calling `glyph(index, pen_x, ch)` for
/// every drawable character with its unrounded pen position from the line
/// start, and returns the line's advance width.
fn walk_line(font: &Font, line: &str, size: f32, mut glyph: impl FnMut(u16, f32, char)) -> f32 {
    let mut pen = 0.0f32;
    let mut prev: Option<u16> = None;
    let space = font.glyph_index(' ');
    for c in line.chars() {
        if c == '\t' {
            let stop = 4.0 * font.advance(space, size);
            if stop > 0.0 {
                pen = ((pen / stop).floor() + 1.0) * stop;
            }
            prev = None;
            continue;
        }
        if c.is_control() {
            continue;
        }
        let g = font.glyph_index(c);
        if let Some(p) = prev {
            pen += font.kern(p, g, size);
        }
        glyph(g, pen, c);
        pen += font.advance(g, size);
        prev = Some(g);
    }
    pen
}

/// Measures `text` at `size` pixels without touching an atlas; the result
/// matches what [`layout`] will place.
pub fn measure(font: &Font, text: &str, size: f32) -> TextMetrics {
    let size = quantize_size(size);
    let v = vmetrics(font, size);
    let mut width = 0.0f32;
    let mut lines = 0;
    for line in text.split('\n') {
        lines += 1;
        if size > 0.0 {
            width = width.max(walk_line(font, line, size, |_, _, _| {}));
        }
    }
    if size == 0.0 {
        return TextMetrics { lines, ..TextMetrics::default() };
    }
    TextMetrics {
        width,
        height: lines as f32 * v.line_height,
        ascent: v.ascent,
        descent: v.descent,
        line_height: v.line_height,
        lines,
    }
}

/// Lays `run` out into glyph quads, rasterising glyphs the atlas lacks.
///
/// Errors when the atlas cannot take a new glyph; see the policy in
/// [`crate::glyphs`] (clear the atlas and lay the frame out again).
pub fn layout(
    font: &Font,
    atlas: &mut GlyphAtlas,
    run: &TextRun,
) -> Result<Vec<GlyphQuad>, AtlasError> {
    Ok(layout_detailed(font, atlas, run)?.quads)
}

/// [`layout`], also returning the line boxes and the aligned block.
pub fn layout_detailed(
    font: &Font,
    atlas: &mut GlyphAtlas,
    run: &TextRun,
) -> Result<TextLayout, AtlasError> {
    let size = quantize_size(run.size);
    let metrics = measure(font, &run.text, size);
    let b = run.bounds;
    let top = match run.valign {
        VAlign::Top => b.y0,
        VAlign::Middle => b.y0 + (b.height() - metrics.height) / 2.0,
        VAlign::Bottom => b.y1 - metrics.height,
    }
    .round();
    let mut out =
        TextLayout { quads: Vec::new(), lines: Vec::new(), block: Rect::default(), metrics };
    if size == 0.0 {
        out.block = Rect::new(b.x0, top, b.x0, top);
        return Ok(out);
    }
    let mut block: Option<Rect> = None;
    for (i, line) in run.text.split('\n').enumerate() {
        let width = walk_line(font, line, size, |_, _, _| {});
        let x = match run.align {
            Align::Start => b.x0,
            Align::Center => b.x0 + (b.width() - width) / 2.0,
            Align::End => b.x1 - width,
        }
        .round();
        let y = top + i as f32 * metrics.line_height;
        let baseline = y + metrics.ascent;
        let rect = Rect::new(x, y, x + width, y + metrics.line_height);
        block = Some(match block {
            None => rect,
            Some(r) => Rect::new(
                r.x0.min(rect.x0),
                r.y0.min(rect.y0),
                r.x1.max(rect.x1),
                r.y1.max(rect.y1),
            ),
        });
        out.lines.push(LineBox { rect, baseline });

        let mut failed = None;
        walk_line(font, line, size, |g, pen, c| {
            if failed.is_some() || c.is_whitespace() {
                return;
            }
            match atlas.glyph(font, g, size) {
                Ok(placed) if placed.has_ink() => {
                    let [ax, ay, w, h] = placed.rect;
                    let x0 = x + pen.round() + placed.offset[0] as f32;
                    let y0 = baseline + placed.offset[1] as f32;
                    out.quads.push(GlyphQuad {
                        dst: Rect::new(x0, y0, x0 + w as f32, y0 + h as f32),
                        atlas: [ax, ay, w, h],
                    });
                }
                Ok(_) => {}
                Err(e) => failed = Some(e),
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
    }
    out.block = block.unwrap_or_default();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glyphs::GlyphAtlas;

    fn run(text: &str, bounds: Rect, align: Align, valign: VAlign) -> TextRun {
        TextRun::boxed(text, bounds, 14.0, Color::WHITE, align, valign)
    }

    #[test]
    fn width_grows_with_text() {
        let font = Font::shared();
        let widths: Vec<f32> =
            ["", "a", "ab", "abc", "abc d"].iter().map(|t| measure(font, t, 14.0).width).collect();
        assert_eq!(widths[0], 0.0);
        for pair in widths.windows(2) {
            assert!(pair[1] > pair[0], "{widths:?}");
        }
        // And with size.
        assert!(measure(font, "abc", 20.0).width > widths[3]);
    }

    #[test]
    fn av_is_kerned() {
        let font = Font::shared();
        let (a, v) = (font.glyph_index('A'), font.glyph_index('V'));
        let unkerned = font.advance(a, 28.0) + font.advance(v, 28.0);
        let kern = font.kern(a, v, 28.0);
        // DejaVu Sans has a `kern` table with an A-V pair.
        assert!(kern < -0.5, "A-V kerning {kern}");
        assert!((measure(font, "AV", 28.0).width - (unkerned + kern)).abs() < 1e-3);
        // The drawn V moves left by the (rounded) kerning too.
        let mut atlas = GlyphAtlas::default();
        let at = |text: &str, atlas: &mut GlyphAtlas| {
            let r = TextRun::new(text, 0.0, 0.0, 28.0, Color::WHITE);
            layout(font, atlas, &r).unwrap()[1].dst.x0
        };
        let kerned_x = at("AV", &mut atlas);
        let xmin_v = atlas.get(font, v, 28.0).unwrap().offset[0] as f32;
        assert_eq!(kerned_x, (font.advance(a, 28.0) + kern).round() + xmin_v);
        assert!(kerned_x < font.advance(a, 28.0).round() + xmin_v);
    }

    #[test]
    fn center_middle_centres_the_block() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let bounds = Rect::new(10.0, 20.0, 311.0, 127.0);
        let text = "Hello, world\nVMAF 97.3\nx";
        let out =
            layout_detailed(font, &mut atlas, &run(text, bounds, Align::Center, VAlign::Middle))
                .unwrap();
        let mid = |r: Rect| [(r.x0 + r.x1) / 2.0, (r.y0 + r.y1) / 2.0];
        let [bx, by] = mid(bounds);
        let [cx, cy] = mid(out.block);
        assert!(
            (cx - bx).abs() <= 1.0 && (cy - by).abs() <= 1.0,
            "block {:?} in {bounds:?}",
            out.block
        );
        // Each line is centred on its own.
        for line in &out.lines {
            assert!((mid(line.rect)[0] - bx).abs() <= 1.0, "{line:?}");
        }
        // The ink of a symmetric glyph is centred too (DejaVu's H has equal
        // side bearings).
        let h = layout(font, &mut atlas, &run("H", bounds, Align::Center, VAlign::Middle)).unwrap();
        assert!((mid(h[0].dst)[0] - bx).abs() <= 1.0, "{:?}", h[0].dst);
    }

    #[test]
    fn end_bottom_and_start_top() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let bounds = Rect::new(0.0, 0.0, 200.0, 100.0);
        let out = layout_detailed(
            font,
            &mut atlas,
            &run("end\nof it", bounds, Align::End, VAlign::Bottom),
        )
        .unwrap();
        for line in &out.lines {
            assert!((line.rect.x1 - 200.0).abs() <= 0.5, "{line:?}");
        }
        assert!((out.block.y1 - 100.0).abs() <= 0.5, "{:?}", out.block);
        let out =
            layout_detailed(font, &mut atlas, &run("start", bounds, Align::Start, VAlign::Top))
                .unwrap();
        assert_eq!((out.block.x0, out.block.y0), (0.0, 0.0));
        assert_eq!(out.lines[0].baseline, out.metrics.ascent);
    }

    #[test]
    fn lines_stack_by_line_height() {
        let font = Font::shared();
        let m = measure(font, "one\ntwo\nthree", 14.0);
        assert_eq!(m.lines, 3);
        assert_eq!(m.height, 3.0 * m.line_height);
        assert!(m.line_height >= m.ascent + m.descent && m.line_height.fract() == 0.0);
        assert_eq!(measure(font, "x\n", 14.0).lines, 2);
        assert_eq!(measure(font, "", 14.0).lines, 1);
        let mut atlas = GlyphAtlas::default();
        let out = layout_detailed(
            font,
            &mut atlas,
            &TextRun::new("one\ntwo\nthree", 5.0, 7.0, 14.0, Color::WHITE),
        )
        .unwrap();
        let baselines: Vec<f32> = out.lines.iter().map(|l| l.baseline).collect();
        assert_eq!(
            baselines,
            [7.0 + m.ascent, 7.0 + m.ascent + m.line_height, 7.0 + m.ascent + 2.0 * m.line_height]
        );
        assert_eq!(out.block.height(), m.height);
        assert!((out.block.width() - m.width).abs() < 1e-3);
    }

    #[test]
    fn quads_are_whole_pixels_sized_like_their_bitmaps() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let r = TextRun::boxed(
            "Quality 93.1%\n(fps)",
            Rect::new(3.3, 4.6, 177.7, 90.2),
            13.7,
            Color::WHITE,
            Align::Center,
            VAlign::Middle,
        );
        let quads = layout(font, &mut atlas, &r).unwrap();
        assert_eq!(quads.len(), "Quality93.1%(fps)".len());
        for q in &quads {
            let d = q.dst;
            for v in [d.x0, d.y0, d.x1, d.y1] {
                assert_eq!(v.fract(), 0.0, "{d:?}");
            }
            assert_eq!([d.width(), d.height()], [q.atlas[2] as f32, q.atlas[3] as f32]);
        }
    }

    #[test]
    fn whitespace_draws_nothing_and_missing_glyphs_draw_notdef() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let quads = |t: &str, atlas: &mut GlyphAtlas| {
            layout(font, atlas, &TextRun::new(t, 0.0, 0.0, 14.0, Color::WHITE))
        };
        assert_eq!(quads(" \t \u{a0}\r\n ", &mut atlas).unwrap(), []);
        assert_eq!(quads("a b\tc", &mut atlas).unwrap().len(), 3);
        // A tab reaches the next 4-space stop.
        let space = font.advance(font.glyph_index(' '), 14.0);
        assert!((measure(font, "\t", 14.0).width - 4.0 * space).abs() < 1e-3);
        let notdef = quads("\u{E000}", &mut atlas).unwrap();
        assert_eq!(notdef.len(), 1);
        assert_eq!(atlas.get(font, 0, 14.0).map(|g| g.rect), Some(notdef[0].atlas));
    }

    #[test]
    fn same_text_twice_does_not_grow_the_atlas() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let r = TextRun::new("VMAF 95.21 — frame 1234", 0.0, 0.0, 15.0, Color::WHITE);
        let first = layout(font, &mut atlas, &r).unwrap();
        let (len, used) = (atlas.len(), atlas.used_height());
        assert!(len > 0 && used > 0);
        atlas.take_dirty_rows();
        let second = layout(font, &mut atlas, &r).unwrap();
        assert_eq!(first, second);
        assert_eq!((atlas.len(), atlas.used_height()), (len, used));
        assert_eq!(atlas.dirty_rows(), None, "nothing new to upload");
    }

    #[test]
    fn full_atlas_is_reported() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::new(48, 48);
        let r = TextRun::new(
            "The quick brown fox jumps over the lazy dog",
            0.0,
            0.0,
            18.0,
            Color::WHITE,
        );
        let err = layout(font, &mut atlas, &r).unwrap_err();
        assert!(matches!(err, AtlasError::Full { .. }), "{err:?}");
    }

    #[test]
    fn zero_or_bad_size_draws_nothing() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        for size in [0.0, -4.0, f32::NAN] {
            let r = TextRun::new("abc", 0.0, 0.0, size, Color::WHITE);
            assert_eq!(layout(font, &mut atlas, &r).unwrap(), []);
            assert_eq!(measure(font, "abc", size).width, 0.0);
        }
        assert!(atlas.is_empty());
    }
}
