//! The bundled font and the glyph atlas the fused shader samples text from.
//!
//! Text is drawn as coverage quads: every glyph is rasterised once on the CPU
//! by fontdue into an 8-bit coverage (R8) atlas, and the shader only copies
//! coverage from the atlas texel under each pixel. Glyphs are rasterised at
//! their final pixel size (never scaled on the GPU) and placed at whole-pixel
//! origins by [`crate::text`], so one atlas texel maps to exactly one screen
//! pixel and text stays crisp.
//!
//! # Atlas policy
//!
//! The atlas has a fixed size ([`DEFAULT_ATLAS_SIZE`] squared unless chosen
//! otherwise) and never evicts single glyphs: a dashboard uses a few sizes of
//! a few hundred characters, which fill a small fraction of a 1024×1024
//! atlas. When a glyph does not fit, [`GlyphAtlas::glyph`] returns
//! [`AtlasError::Full`] (it never panics). The caller then resets the atlas
//! with [`GlyphAtlas::clear`] and lays the *whole frame* out again, because
//! the reset invalidates every quad produced before it; if the frame still
//! does not fit, its text cannot be drawn with this atlas and the error is
//! real. [`GlyphAtlas::generation`] changes on every reset, so quads kept
//! across frames can be recognised as stale.
//!
//! # Uploading
//!
//! The atlas tracks which rows changed since the last upload
//! ([`GlyphAtlas::take_dirty_rows`]). Rows are whole atlas rows, so the
//! changed texels are one contiguous slice of [`GlyphAtlas::pixels`] and go to
//! the GPU in a single buffer-to-image copy. A new or cleared atlas is dirty
//! in every row, so the first upload also initialises the image.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use thiserror::Error;

/// DejaVu Sans, bundled so that every machine (CI, headless runs, goldens)
/// renders the same text. Licence: `assets/fonts/LICENSE.DejaVu.txt`.
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Width and height of the atlas made by [`GlyphAtlas::default`]: 1 MiB of
/// R8 texels, enough for every size a dashboard uses at once.
pub const DEFAULT_ATLAS_SIZE: u32 = 1024;

/// Font sizes are quantised to 1/`SIZE_STEPS_PER_PX` of a pixel before layout
/// and rasterisation. Sizes computed from DPI scales or animations differ in
/// the last bits; without quantisation each would rasterise its own copy of
/// every glyph and fill the atlas. A quarter pixel is finer than anyone can
/// see in a glyph's size.
pub const SIZE_STEPS_PER_PX: f32 = 4.0;

/// Empty texels kept between glyphs and around the atlas edge, so that a
/// sampler that strays by one texel (filtering, rounding) reads zero coverage
/// instead of a neighbour's ink.
pub const ATLAS_PADDING: u32 = 1;

/// `size` rounded to the nearest step of [`SIZE_STEPS_PER_PX`]; zero for
/// negative, zero or non-finite sizes (such text draws nothing).
pub fn quantize_size(size: f32) -> f32 {
    size_key(size) as f32 / SIZE_STEPS_PER_PX
}

/// The integer cache key of a size: quantised size × [`SIZE_STEPS_PER_PX`].
fn size_key(size: f32) -> u32 {
    if !size.is_finite() || size <= 0.0 {
        return 0;
    }
    // The `as` cast saturates, so absurd sizes stay finite (and then fail to
    // fit the atlas with a clear error).
    (size * SIZE_STEPS_PER_PX).round() as u32
}

/// The font could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot parse font: {0}")]
pub struct FontError(pub &'static str);

/// A glyph could not be placed in the atlas.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AtlasError {
    /// The atlas has no free space left for this glyph. Clear it and lay the
    /// frame out again (see the module documentation).
    #[error(
        "the {atlas_width}x{atlas_height} glyph atlas is full (no room for a \
         {width}x{height} glyph): clear it and lay the frame out again"
    )]
    Full { width: u32, height: u32, atlas_width: u32, atlas_height: u32 },
    /// The glyph (plus padding) is larger than the whole atlas; clearing
    /// would not help.
    #[error(
        "a {width}x{height} glyph can never fit the {atlas_width}x{atlas_height} \
         glyph atlas: draw the text smaller or use a larger atlas"
    )]
    GlyphTooLarge { width: u32, height: u32, atlas_width: u32, atlas_height: u32 },
}

/// Vertical metrics of a font at one size, in pixels, unrounded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineMetrics {
    /// Highest extent of the font above the baseline (positive).
    pub ascent: f32,
    /// Lowest extent below the baseline, as a positive distance.
    pub descent: f32,
    /// Extra space the designer asks for between lines.
    pub line_gap: f32,
    /// Baseline-to-baseline distance: `ascent + descent + line_gap`.
    pub line_height: f32,
}

/// A font for UI text: fontdue's parsed font plus the lookups layout needs.
///
/// Glyphs are addressed by glyph index (`u16`), not by `char`, because
/// kerning and the atlas cache are per glyph and a missing character maps to
/// index 0, the font's `.notdef` glyph (a box in DejaVu Sans), which is then
/// drawn instead of silently dropping the character.
#[derive(Debug, Clone)]
pub struct Font {
    inner: fontdue::Font,
}

impl Font {
    /// DejaVu Sans, bundled with the binary. Parsing takes a few
    /// milliseconds; prefer [`Font::shared`] unless you need an owned copy.
    pub fn bundled() -> Self {
        // The bytes are part of the binary and tested, so a parse failure is
        // a build defect, not a runtime condition.
        Self::from_bytes(DEJAVU_SANS).expect("the bundled DejaVu Sans parses")
    }

    /// The bundled font, parsed once per process.
    pub fn shared() -> &'static Font {
        static FONT: OnceLock<Font> = OnceLock::new();
        FONT.get_or_init(Font::bundled)
    }

    /// A font from TrueType/OpenType bytes.
    pub fn from_bytes(data: &[u8]) -> Result<Self, FontError> {
        let inner =
            fontdue::Font::from_bytes(data, fontdue::FontSettings::default()).map_err(FontError)?;
        Ok(Self { inner })
    }

    /// The underlying fontdue font, for anything this wrapper does not cover.
    pub fn fontdue(&self) -> &fontdue::Font {
        &self.inner
    }

    /// An identity for the font's data; part of the atlas cache key so two
    /// fonts can share one atlas without mixing up their glyphs.
    pub fn id(&self) -> usize {
        self.inner.file_hash()
    }

    /// The glyph index for `c`, or 0 (`.notdef`) if the font lacks it.
    pub fn glyph_index(&self, c: char) -> u16 {
        self.inner.lookup_glyph_index(c)
    }

    /// Horizontal advance of a glyph at `size` pixels.
    pub fn advance(&self, glyph: u16, size: f32) -> f32 {
        self.inner.metrics_indexed(glyph, size).advance_width
    }

    /// Kerning adjustment (usually negative) between two adjacent glyphs,
    /// from the font's `kern` table; zero when the font has no such pair.
    /// fontdue does not read GPOS kerning, so fonts that kern only through
    /// GPOS get no kerning at all.
    pub fn kern(&self, left: u16, right: u16, size: f32) -> f32 {
        self.inner.horizontal_kern_indexed(left, right, size).unwrap_or(0.0)
    }

    /// Vertical metrics at `size` pixels. Fonts without horizontal metrics
    /// get a conventional 0.8 em ascent and 0.2 em descent.
    pub fn line_metrics(&self, size: f32) -> LineMetrics {
        match self.inner.horizontal_line_metrics(size) {
            Some(m) => LineMetrics {
                ascent: m.ascent,
                descent: -m.descent,
                line_gap: m.line_gap,
                line_height: m.new_line_size,
            },
            None => LineMetrics {
                ascent: 0.8 * size,
                descent: 0.2 * size,
                line_gap: 0.0,
                line_height: size,
            },
        }
    }

    /// Rasterises a glyph with fontdue: its metrics and `width × height`
    /// coverage bytes, rows top to bottom. This is exactly what the atlas
    /// stores; tests compare against it.
    pub fn rasterize(&self, glyph: u16, size: f32) -> (fontdue::Metrics, Vec<u8>) {
        self.inner.rasterize_indexed(glyph, size)
    }
}

/// Where a cached glyph lives in the atlas and how to place it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtlasGlyph {
    /// Texel rectangle in the atlas: x, y, width, height. Width and height
    /// are zero for glyphs without ink (spaces), which take no atlas space.
    pub rect: [u32; 4],
    /// Offset of the bitmap's top-left corner from the glyph origin on the
    /// baseline, in pixels, y pointing down. Integers, so a whole-pixel
    /// origin gives a whole-pixel quad.
    pub offset: [i32; 2],
    /// Horizontal advance in pixels (unrounded; layout rounds origins).
    pub advance: f32,
}

impl AtlasGlyph {
    /// Whether the glyph has a bitmap (and so needs a quad).
    pub fn has_ink(&self) -> bool {
        self.rect[2] > 0 && self.rect[3] > 0
    }
}

/// Cache key: font, glyph, quantised size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    font: usize,
    glyph: u16,
    size: u32,
}

/// One row of the shelf packer: glyphs are placed left to right, each shelf
/// as tall as the tallest glyph it was opened for.
#[derive(Debug, Clone, Copy)]
struct Shelf {
    y: u32,
    height: u32,
    /// Next free x.
    x: u32,
}

/// An R8 coverage atlas of rasterised glyphs with a cache and a shelf packer.
///
/// A shelf packer suits glyphs: they come in few heights per font size, so
/// shelves fill almost completely, and placing one is a scan over a handful
/// of shelves. Every glyph gets [`ATLAS_PADDING`] empty texels to its
/// right and below, and the first shelf and column start at the padding, so
/// every glyph is surrounded by zeros.
pub struct GlyphAtlas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
    cache: HashMap<GlyphKey, AtlasGlyph>,
    shelves: Vec<Shelf>,
    /// Top of the next shelf to open.
    next_shelf_y: u32,
    dirty: Option<Range<u32>>,
    generation: u64,
}

impl fmt::Debug for GlyphAtlas {
    // Hand-written so that debugging output does not print a megabyte of
    // texels.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GlyphAtlas")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("glyphs", &self.cache.len())
            .field("shelves", &self.shelves.len())
            .field("used_height", &self.used_height())
            .field("dirty", &self.dirty)
            .field("generation", &self.generation)
            .finish()
    }
}

impl Default for GlyphAtlas {
    /// A [`DEFAULT_ATLAS_SIZE`]² atlas.
    fn default() -> Self {
        Self::new(DEFAULT_ATLAS_SIZE, DEFAULT_ATLAS_SIZE)
    }
}

impl GlyphAtlas {
    /// An empty atlas of `width × height` texels, all zero and all dirty.
    ///
    /// # Panics
    /// If either side is zero.
    pub fn new(width: u32, height: u32) -> Self {
        assert!(width > 0 && height > 0, "glyph atlas size must be non-zero, got {width}x{height}");
        Self {
            width,
            height,
            pixels: vec![0; width as usize * height as usize],
            cache: HashMap::new(),
            shelves: Vec::new(),
            next_shelf_y: ATLAS_PADDING,
            dirty: Some(0..height),
            generation: 0,
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The coverage texels, `width` bytes per row, rows top to bottom
    /// (0 = no ink, 255 = full coverage; linear, not sRGB).
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The texels of whole rows `rows` (e.g. a dirty range), contiguous.
    pub fn rows(&self, rows: Range<u32>) -> &[u8] {
        let w = self.width as usize;
        &self.pixels[rows.start as usize * w..rows.end as usize * w]
    }

    /// Number of cached glyphs (including inkless ones such as spaces).
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// Rows from the top down to the bottom of the lowest shelf (padding
    /// included): how much of the atlas is in use.
    pub fn used_height(&self) -> u32 {
        self.shelves.last().map_or(0, |s| s.y + s.height)
    }

    /// Changes on every [`GlyphAtlas::clear`]: quads made under another
    /// generation point at texels that may now hold other glyphs.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows changed since the last [`GlyphAtlas::take_dirty_rows`], if any.
    pub fn dirty_rows(&self) -> Option<Range<u32>> {
        self.dirty.clone()
    }

    /// Whether anything needs uploading.
    pub fn is_dirty(&self) -> bool {
        self.dirty.is_some()
    }

    /// The rows to upload now (full-width rows `start..end`, see
    /// [`GlyphAtlas::rows`]), marking the atlas clean.
    pub fn take_dirty_rows(&mut self) -> Option<Range<u32>> {
        self.dirty.take()
    }

    /// Every cached glyph placement (order unspecified).
    pub fn glyphs(&self) -> impl Iterator<Item = &AtlasGlyph> + '_ {
        self.cache.values()
    }

    /// Forgets every glyph and zeroes the texels; the whole atlas becomes
    /// dirty and [`GlyphAtlas::generation`] changes. Quads made before are
    /// invalid: lay the frame out again.
    pub fn clear(&mut self) {
        self.pixels.fill(0);
        self.cache.clear();
        self.shelves.clear();
        self.next_shelf_y = ATLAS_PADDING;
        self.dirty = Some(0..self.height);
        self.generation += 1;
    }

    /// The cached placement of a glyph, without rasterising.
    pub fn get(&self, font: &Font, glyph: u16, size: f32) -> Option<AtlasGlyph> {
        self.cache.get(&GlyphKey { font: font.id(), glyph, size: size_key(size) }).copied()
    }

    /// The placement of `glyph` at `size` pixels (quantised with
    /// [`quantize_size`]), rasterising and packing it on first use.
    pub fn glyph(&mut self, font: &Font, glyph: u16, size: f32) -> Result<AtlasGlyph, AtlasError> {
        let key = GlyphKey { font: font.id(), glyph, size: size_key(size) };
        if let Some(found) = self.cache.get(&key) {
            return Ok(*found);
        }
        let size = key.size as f32 / SIZE_STEPS_PER_PX;
        // Size the slot from the metrics first: an absurd size then fails
        // cleanly instead of allocating a huge bitmap.
        let metrics = font.inner.metrics_indexed(glyph, size);
        let (w, h) = (metrics.width as u32, metrics.height as u32);
        let offset = [metrics.xmin, -(metrics.ymin + metrics.height as i32)];
        let entry = if size == 0.0 || w == 0 || h == 0 {
            AtlasGlyph { rect: [0; 4], offset: [0, 0], advance: metrics.advance_width }
        } else {
            let [x, y] = self.allocate(w, h)?;
            let (raster, bitmap) = font.rasterize(glyph, size);
            debug_assert_eq!((raster.width, raster.height), (metrics.width, metrics.height));
            let row = w as usize;
            for (r, src) in bitmap.chunks_exact(row).enumerate() {
                let start = (y as usize + r) * self.width as usize + x as usize;
                self.pixels[start..start + row].copy_from_slice(src);
            }
            self.mark_dirty(y..y + h);
            AtlasGlyph { rect: [x, y, w, h], offset, advance: metrics.advance_width }
        };
        self.cache.insert(key, entry);
        Ok(entry)
    }

    fn mark_dirty(&mut self, rows: Range<u32>) {
        self.dirty = Some(match self.dirty.take() {
            Some(d) => d.start.min(rows.start)..d.end.max(rows.end),
            None => rows,
        });
    }

    /// Finds a free `w × h` texel rectangle (padding kept around it) and
    /// returns its top-left corner.
    fn allocate(&mut self, w: u32, h: u32) -> Result<[u32; 2], AtlasError> {
        let (atlas_width, atlas_height) = (self.width, self.height);
        let too_large =
            || AtlasError::GlyphTooLarge { width: w, height: h, atlas_width, atlas_height };
        // A slot is the glyph plus the padding to its right and below; the
        // padding above and to the left belongs to the previous slot (or the
        // atlas edge).
        let sw = w.checked_add(ATLAS_PADDING).ok_or_else(too_large)?;
        let sh = h.checked_add(ATLAS_PADDING).ok_or_else(too_large)?;
        if sw + ATLAS_PADDING > self.width || sh + ATLAS_PADDING > self.height {
            return Err(too_large());
        }
        let fits = |s: &Shelf| s.height >= sh && s.x + sw <= atlas_width;
        // The shelf wasting the least height. Shelves much taller than the
        // glyph are only used when no new shelf can be opened, so that small
        // glyphs do not eat the room big glyphs need.
        let best = self
            .shelves
            .iter()
            .enumerate()
            .filter(|(_, s)| fits(s))
            .min_by_key(|(_, s)| s.height - sh);
        let index = match best {
            Some((i, s)) if s.height - sh <= sh / 2 => Some(i),
            _ => {
                // Round the new shelf up to 4 texels so glyphs one or two
                // texels taller than the first one still share it.
                // (The slot's own padding keeps the bottom edge clear.)
                let height = sh.next_multiple_of(4).min(self.height - self.next_shelf_y);
                if height >= sh {
                    self.shelves.push(Shelf { y: self.next_shelf_y, height, x: ATLAS_PADDING });
                    self.next_shelf_y += height;
                    Some(self.shelves.len() - 1)
                } else {
                    best.map(|(i, _)| i)
                }
            }
        };
        let Some(i) = index else {
            return Err(AtlasError::Full { width: w, height: h, atlas_width, atlas_height });
        };
        let shelf = &mut self.shelves[i];
        let corner = [shelf.x, shelf.y];
        shelf.x += sw;
        Ok(corner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use vqscope_gpu::testing::Rng;

    fn disjoint_with_padding(a: [u32; 4], b: [u32; 4]) -> bool {
        // Grow `a` by the padding: even then it must not touch `b`.
        let p = ATLAS_PADDING;
        a[0] + a[2] + p <= b[0]
            || b[0] + b[2] + p <= a[0]
            || a[1] + a[3] + p <= b[1]
            || b[1] + b[3] + p <= a[1]
    }

    fn inside(atlas: &GlyphAtlas, r: [u32; 4]) -> bool {
        let p = ATLAS_PADDING;
        r[0] >= p
            && r[1] >= p
            && r[0] + r[2] + p <= atlas.width()
            && r[1] + r[3] + p <= atlas.height()
    }

    #[test]
    fn bundled_font_parses_and_has_basic_glyphs() {
        let font = Font::shared();
        for c in "AVWaz09%".chars() {
            assert_ne!(font.glyph_index(c), 0, "{c:?} missing from the bundled font");
        }
        // A private-use code point is missing and falls back to .notdef.
        assert_eq!(font.glyph_index('\u{E000}'), 0);
    }

    #[test]
    fn quantize_rounds_to_quarter_pixels() {
        assert_eq!(quantize_size(13.0), 13.0);
        assert_eq!(quantize_size(13.1), 13.0);
        assert_eq!(quantize_size(13.2), 13.25);
        assert_eq!(quantize_size(-3.0), 0.0);
        assert_eq!(quantize_size(f32::NAN), 0.0);
    }

    #[test]
    fn allocations_never_overlap_and_stay_inside() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut atlas = GlyphAtlas::new(256, 256);
        let mut placed: Vec<[u32; 4]> = Vec::new();
        let mut failures = 0;
        for _ in 0..2000 {
            let (w, h) = (1 + rng.below(24) as u32, 1 + rng.below(30) as u32);
            match atlas.allocate(w, h) {
                Ok([x, y]) => {
                    let r = [x, y, w, h];
                    assert!(inside(&atlas, r), "{r:?} leaves the atlas");
                    for q in &placed {
                        assert!(disjoint_with_padding(*q, r), "{q:?} and {r:?} overlap");
                    }
                    placed.push(r);
                }
                Err(AtlasError::Full { .. }) => failures += 1,
                Err(e) => panic!("unexpected {e}"),
            }
        }
        assert!(placed.len() > 100, "packer placed only {} rectangles", placed.len());
        assert!(failures > 0, "the test should fill the atlas");
        // Packing density: the placed area should be a fair part of the atlas.
        let area: u32 = placed.iter().map(|r| (r[2] + 1) * (r[3] + 1)).sum();
        assert!(area > 256 * 256 / 2, "poor packing: {area} texels used of {}", 256 * 256);
    }

    #[test]
    fn oversized_glyph_is_an_error_not_a_panic() {
        let mut atlas = GlyphAtlas::new(64, 64);
        let font = Font::shared();
        let err = atlas.glyph(font, font.glyph_index('W'), 400.0).unwrap_err();
        assert!(matches!(err, AtlasError::GlyphTooLarge { .. }), "{err:?}");
        // Saturating sizes too.
        assert!(atlas.glyph(font, font.glyph_index('W'), f32::MAX).is_err());
    }

    #[test]
    fn full_atlas_is_an_error_and_clear_recovers() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::new(64, 64);
        let mut result = Ok(());
        for c in ('A'..='Z').chain('a'..='z') {
            if let Err(e) = atlas.glyph(font, font.glyph_index(c), 20.0) {
                result = Err(e);
                break;
            }
        }
        let err = result.unwrap_err();
        assert!(
            matches!(err, AtlasError::Full { atlas_width: 64, atlas_height: 64, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("full"));
        let generation = atlas.generation();
        atlas.clear();
        assert_eq!(atlas.generation(), generation + 1);
        assert!(atlas.is_empty());
        assert!(atlas.pixels().iter().all(|&p| p == 0));
        assert_eq!(atlas.dirty_rows(), Some(0..64));
        atlas.glyph(font, font.glyph_index('A'), 20.0).unwrap();
    }

    #[test]
    fn atlas_texels_equal_fontdue_bitmaps() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        for (i, c) in "Hg@Qj\u{E000}".chars().enumerate() {
            let size = 9.0 + 7.25 * i as f32;
            let g = font.glyph_index(c);
            let placed = atlas.glyph(font, g, size).unwrap();
            let (metrics, bitmap) = font.rasterize(g, size);
            let [x, y, w, h] = placed.rect;
            assert_eq!((w as usize, h as usize), (metrics.width, metrics.height));
            assert!(bitmap.iter().any(|&b| b > 0), "{c:?} has no ink");
            for r in 0..h as usize {
                let row = &atlas.rows(y + r as u32..y + r as u32 + 1)[x as usize..(x + w) as usize];
                assert_eq!(row, &bitmap[r * w as usize..(r + 1) * w as usize], "{c:?} row {r}");
            }
            assert_eq!(placed.offset, [metrics.xmin, -(metrics.ymin + metrics.height as i32)]);
        }
    }

    #[test]
    fn dirty_rows_cover_new_glyphs_and_reset_on_take() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::new(128, 128);
        assert_eq!(atlas.take_dirty_rows(), Some(0..128), "a new atlas needs a full upload");
        assert_eq!(atlas.take_dirty_rows(), None);
        let a = atlas.glyph(font, font.glyph_index('A'), 16.0).unwrap();
        let rows = atlas.take_dirty_rows().expect("a new glyph dirties rows");
        assert!(rows.start <= a.rect[1] && a.rect[1] + a.rect[3] <= rows.end);
        // A cached glyph and an inkless glyph upload nothing.
        atlas.glyph(font, font.glyph_index('A'), 16.0).unwrap();
        let space = atlas.glyph(font, font.glyph_index(' '), 16.0).unwrap();
        assert!(!space.has_ink() && space.advance > 0.0);
        assert_eq!(atlas.take_dirty_rows(), None);
    }

    #[test]
    fn nearby_sizes_share_a_cache_entry() {
        let font = Font::shared();
        let mut atlas = GlyphAtlas::default();
        let g = font.glyph_index('e');
        let a = atlas.glyph(font, g, 14.0).unwrap();
        let b = atlas.glyph(font, g, 14.05).unwrap();
        assert_eq!(a, b);
        assert_eq!(atlas.len(), 1);
        atlas.glyph(font, g, 14.25).unwrap();
        assert_eq!(atlas.len(), 2);
    }
}
