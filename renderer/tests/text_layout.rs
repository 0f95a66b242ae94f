//! Text layout and glyph atlas through the public API: what the fused
//! shader will sample must be exactly what fontdue drew, wherever layout put
//! it, and the atlas must never hand out overlapping texels.

use vqscope_gpu::testing::Rng;
use vqscope_renderer::glyphs::{AtlasError, Font, GlyphAtlas};
use vqscope_renderer::text::{Align, TextRun, VAlign, layout, layout_detailed, measure};
use vqscope_renderer::{Color, Rect};

/// The texels of `rect` ([x, y, w, h]), row by row.
fn texels(atlas: &GlyphAtlas, [x, y, w, h]: [u32; 4]) -> Vec<u8> {
    (y..y + h)
        .flat_map(|row| atlas.rows(row..row + 1)[x as usize..(x + w) as usize].to_vec())
        .collect()
}

#[test]
fn atlas_coverage_under_each_quad_is_fontdues_bitmap() {
    let font = Font::shared();
    let mut atlas = GlyphAtlas::default();
    let text = "VMAF 96.4 · PSNR 41.2 dB\nÅngström ñ €\u{E000}";
    let size = 17.25;
    let run = TextRun::new(text, 12.0, 30.0, size, Color::WHITE);
    let quads = layout(font, &mut atlas, &run).unwrap();
    let drawn: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(quads.len(), drawn.len());
    for (quad, c) in quads.iter().zip(drawn) {
        let (metrics, bitmap) = font.rasterize(font.glyph_index(c), size);
        assert_eq!(
            [quad.atlas[2], quad.atlas[3]],
            [metrics.width as u32, metrics.height as u32],
            "{c:?}"
        );
        assert!(bitmap.iter().any(|&b| b > 128), "{c:?} has no solid ink");
        assert_eq!(texels(&atlas, quad.atlas), bitmap, "atlas texels of {c:?}");
    }
}

#[test]
fn random_glyph_sets_pack_without_overlap() {
    let font = Font::shared();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let glyphs = font.fontdue().glyph_count() as u64;
    let mut atlas = GlyphAtlas::new(512, 512);
    let mut full = false;
    for _ in 0..3000 {
        let glyph = rng.below(glyphs) as u16;
        let size = 6.0 + rng.below(160) as f32 / 4.0;
        match atlas.glyph(font, glyph, size) {
            Ok(_) => {}
            Err(AtlasError::Full { .. }) => full = true,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(full, "the test should fill the atlas");
    let rects: Vec<[u32; 4]> = atlas.glyphs().filter(|g| g.has_ink()).map(|g| g.rect).collect();
    assert!(rects.len() > 200, "only {} glyphs packed", rects.len());
    for (i, a) in rects.iter().enumerate() {
        assert!(a[0] >= 1 && a[1] >= 1, "{a:?} touches the edge");
        assert!(
            a[0] + a[2] < atlas.width() && a[1] + a[3] < atlas.height(),
            "{a:?} leaves the atlas"
        );
        for b in &rects[i + 1..] {
            // One texel of padding between any two glyphs.
            let apart = a[0] + a[2] < b[0]
                || b[0] + b[2] < a[0]
                || a[1] + a[3] < b[1]
                || b[1] + b[3] < a[1];
            assert!(apart, "{a:?} and {b:?} overlap or touch");
        }
    }
    // And every cached glyph still holds its own bitmap (no later glyph
    // overwrote it).
    let mut checked = 0;
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..3000 {
        let glyph = rng.below(glyphs) as u16;
        let size = 6.0 + rng.below(160) as f32 / 4.0;
        if let Some(g) = atlas.get(font, glyph, size).filter(|g| g.has_ink()) {
            assert_eq!(texels(&atlas, g.rect), font.rasterize(glyph, size).1);
            checked += 1;
        }
    }
    assert!(checked > 200);
}

#[test]
fn full_atlas_clear_and_relayout_recovers() {
    let font = Font::shared();
    let mut atlas = GlyphAtlas::new(64, 64);
    let runs: Vec<TextRun> = [12.0, 14.0, 16.0, 18.0]
        .iter()
        .map(|&s| TextRun::new("abcdefghijklm", 0.0, 0.0, s, Color::WHITE))
        .collect();
    // The renderer's policy: on Full, clear and lay the whole frame out again.
    let frame = |atlas: &mut GlyphAtlas, runs: &[TextRun]| -> Result<usize, AtlasError> {
        runs.iter().map(|r| Ok(layout(font, atlas, r)?.len())).sum()
    };
    let too_much = frame(&mut atlas, &runs);
    assert!(matches!(too_much, Err(AtlasError::Full { .. })), "{too_much:?}");
    let generation = atlas.generation();
    atlas.clear();
    assert_ne!(atlas.generation(), generation);
    assert_eq!(frame(&mut atlas, &runs[..1]), Ok(13));
}

#[test]
fn measure_matches_layout_block() {
    let font = Font::shared();
    let mut atlas = GlyphAtlas::default();
    for (text, size) in [("Tj", 11.0), ("AVAVAV\nshort", 23.5), ("x\n\nyy", 9.75)] {
        let m = measure(font, text, size);
        let bounds = Rect::new(0.0, 0.0, 400.0, 300.0);
        let run = TextRun::boxed(text, bounds, size, Color::WHITE, Align::Center, VAlign::Middle);
        let out = layout_detailed(font, &mut atlas, &run).unwrap();
        assert_eq!(out.metrics, m);
        assert!((out.block.width() - m.width).abs() < 1e-3, "{text:?}: {:?} vs {m:?}", out.block);
        assert_eq!(out.block.height(), m.lines as f32 * m.line_height);
    }
}
