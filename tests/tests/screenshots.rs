//! Golden screenshots of every test scene, rendered headless by the fused
//! shader (lavapipe in CI) with validation on.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Submitter, upload_buffer};
use vqscope_renderer::{
    Color, ExternalYuv, Output, Rect, Renderer, Sampling, ScanMode, Scene, Subsampling, TextRun,
    Transfer, YuvFormat, YuvMatrix, color, heat, scenes,
};
use vqscope_tests::golden::check_golden;

fn render(scene: &Scene, mode: ScanMode) -> Vec<u8> {
    render_binned(scene, mode, None)
}

/// [`render`] binning scenes of at most `one_pass_limit` primitives in one
/// pass (the device's default if `None`).
fn render_binned(scene: &Scene, mode: ScanMode, one_pass_limit: Option<u32>) -> Vec<u8> {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, mode, None).unwrap();
    if let Some(limit) = one_pass_limit {
        renderer.set_one_pass_limit(limit);
    }
    let rgba = renderer.render_to_rgba(&mut submitter, scene).unwrap();
    drop((renderer, submitter));
    rgba
}

fn golden_scene(name: &str, width: u32, height: u32) {
    let scene = scenes::build(name, width, height).unwrap();
    let rgba = render(&scene, ScanMode::Subgroup);
    check_golden(name, width, height, &rgba);
    assert_no_validation_messages();
}

#[test]
fn showcase() {
    golden_scene("showcase", 960, 540);
}

#[test]
fn rects() {
    golden_scene("rects", 320, 200);
}

#[test]
fn circles() {
    golden_scene("circles", 320, 120);
}

#[test]
fn lines() {
    golden_scene("lines", 320, 200);
}

#[test]
fn images() {
    golden_scene("images", 320, 140);
}

#[test]
fn yuv10() {
    golden_scene("yuv10", 320, 120);
}

#[test]
fn text() {
    golden_scene("text", 360, 240);
}

#[test]
fn clips() {
    golden_scene("clips", 320, 200);
}

#[test]
fn translucent() {
    golden_scene("translucent", 240, 200);
}

#[test]
fn dashboard() {
    golden_scene("dashboard", 1280, 720);
}

#[test]
fn ten_thousand_primitives() {
    golden_scene("10k", 800, 600);
}

#[test]
fn hundred_thousand_primitives() {
    golden_scene("100k", 1280, 720);
}

/// Draw order is honoured: the same shapes in reverse order must render
/// differently (so the golden above can fail on a scrambled order).
#[test]
fn scrambled_order_renders_differently() {
    let ordered = render(&scenes::build("translucent", 240, 200).unwrap(), ScanMode::Subgroup);
    let scrambled = render(&scenes::translucent_scrambled(240, 200), ScanMode::Subgroup);
    let differing =
        ordered.chunks_exact(4).zip(scrambled.chunks_exact(4)).filter(|(a, b)| a != b).count();
    assert!(differing > 1000, "only {differing} pixels changed when the order was reversed");
    assert_no_validation_messages();
}

/// The lane-0 serial scan is the same compaction: identical pixels.
#[test]
fn lane0_scan_matches_subgroup_scan() {
    let scene = scenes::build("10k", 400, 300).unwrap();
    assert_eq!(render(&scene, ScanMode::Subgroup), render(&scene, ScanMode::Lane0));
    assert_no_validation_messages();
}

/// Binning in one pass (the GPU's way for small scenes; lavapipe bins in
/// four, which the goldens above check) draws the same pixels, on scenes
/// of images, text, clips and translucency and on many small shapes.
#[test]
fn one_pass_binning_matches_four_passes() {
    for (name, width, height) in
        [("dashboard", 1280, 720), ("showcase", 960, 540), ("10k", 400, 300)]
    {
        let scene = scenes::build(name, width, height).unwrap();
        let four = render_binned(&scene, ScanMode::Subgroup, Some(0));
        let one = render_binned(&scene, ScanMode::Subgroup, Some(u32::MAX));
        let differing =
            four.chunks_exact(4).zip(one.chunks_exact(4)).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} pixels differ between one pass and four");
    }
    assert_no_validation_messages();
}

/// The fused pass specialised to the shading paths a scene's images can
/// take (lavapipe's way) draws the same pixels as the pass with every path
/// (a GPU's): SDR pictures, glyphs and shapes (no optional path), heat maps
/// (the ramp only), and an HDR BT.2020 picture scaled bilinearly under a
/// label (tone mapping only).
#[test]
fn specialised_shading_matches_every_path() {
    let mut cases: Vec<(&str, Scene)> = [("dashboard", 1280, 720), ("heatmap", 480, 240)]
        .into_iter()
        .map(|(name, w, h)| (name, scenes::build(name, w, h).unwrap()))
        .collect();
    let samples = random_samples(0x1b87_3593, 64);
    let mut hdr = Scene::new(256, 64, Color::rgb(0.1, 0.1, 0.12));
    hdr.set_display_peak_nits(400);
    let id = hdr.add_yuv(sample_row(&samples, YuvMatrix::Bt2020, Transfer::Pq, false));
    let src = Rect::new(0.0, 0.0, 64.0, 1.0);
    hdr.yuv_image(Rect::new(4.0, 4.0, 252.0, 60.0), id, src, Sampling::Bilinear);
    hdr.text(TextRun::new("PQ 400", 8.0, 8.0, 14.0, Color::WHITE));
    cases.push(("pq picture", hdr));
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, ScanMode::Subgroup, None).unwrap();
    for (name, scene) in &cases {
        renderer.set_specialise_shading(true);
        let specialised = renderer.render_to_rgba(&mut submitter, scene).unwrap();
        renderer.set_specialise_shading(false);
        let every = renderer.render_to_rgba(&mut submitter, scene).unwrap();
        let differing =
            specialised.chunks_exact(4).zip(every.chunks_exact(4)).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} pixels differ");
    }
    drop((renderer, submitter));
    assert_no_validation_messages();
}

#[test]
fn heatmap() {
    golden_scene("heatmap", 480, 240);
}

/// The shader's ramp is the host twin's: a one-row ramp map drawn nearest,
/// one screen pixel per cell, must give `heat::heat_color` of each value
/// (to within an 8-bit step), including the clamped ends and NaN.
#[test]
fn heat_map_colours_match_the_host_twin() {
    let range = (0.5, 1.0);
    let mut values: Vec<f32> = (0..64).map(|i| 0.4 + 0.7 * i as f32 / 63.0).collect();
    values[10] = f32::NAN;
    let n = values.len() as u32;
    let mut scene = Scene::new(n, 4, Color::rgb(0.2, 0.9, 0.2));
    let map = scene.add_map(n, 1, values.clone());
    let full = Rect::new(0.0, 0.0, n as f32, 1.0);
    scene.heat_map(Rect::new(0.0, 0.0, n as f32, 4.0), map, full, Sampling::Nearest, range);
    let rgba = render(&scene, ScanMode::Subgroup);
    for (x, &v) in values.iter().enumerate() {
        let want = heat::heat_color(v, range);
        let want = [want.r, want.g, want.b].map(|c| (c * 255.0).round() as i32);
        for y in 0..4 {
            let px = &rgba[(y * n as usize + x) * 4..][..3];
            let got = [px[0] as i32, px[1] as i32, px[2] as i32];
            let off = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).max().unwrap();
            assert!(off <= 1, "value {v} at x {x}: shader {got:?}, twin {want:?}");
        }
    }
    assert_no_validation_messages();
}

/// The shader's YUV → window colours are the host twin's
/// (`color::display_rgb`), to within two 8-bit steps (the GPU's `pow` and
/// `exp` are not the host's): random 10-bit 4:4:4 samples drawn nearest,
/// one screen pixel per sample, for every matrix and transfer, SDR and HDR
/// (PQ and HLG tone-mapped to two display peaks), limited and full range.
#[test]
fn picture_colours_match_the_host_twin() {
    let n = 256u32;
    let samples = random_samples(0x2545_f491, n);
    let cases = [
        (YuvMatrix::Bt709, Transfer::Sdr, false, 203),
        (YuvMatrix::Bt601, Transfer::Sdr, true, 203),
        (YuvMatrix::Bt2020, Transfer::Sdr, false, 203),
        (YuvMatrix::Bt2020, Transfer::Pq, false, 203),
        (YuvMatrix::Bt2020, Transfer::Pq, true, 600),
        (YuvMatrix::Bt2020, Transfer::Hlg, false, 203),
        (YuvMatrix::Bt709, Transfer::Hlg, false, 400),
    ];
    for (matrix, transfer, full_range, peak) in cases {
        let mut scene = Scene::new(n, 2, Color::rgb(0.2, 0.9, 0.2));
        scene.set_display_peak_nits(peak);
        let picture = sample_row(&samples, matrix, transfer, full_range);
        let format = picture.format;
        let id = scene.add_yuv(picture);
        let src = Rect::new(0.0, 0.0, n as f32, 1.0);
        scene.yuv_image(Rect::new(0.0, 0.0, n as f32, 2.0), id, src, Sampling::Nearest);
        let rgba = render(&scene, ScanMode::Subgroup);
        for (x, s) in samples.iter().enumerate() {
            let want = color::display_rgb(&format, peak, s.map(f32::from));
            let want = want.map(|c| (c * 255.0).round() as i32);
            let px = &rgba[x * 4..][..3];
            let got = [px[0] as i32, px[1] as i32, px[2] as i32];
            let off = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).max().unwrap();
            assert!(
                off <= 2,
                "{matrix:?} {transfer:?} full {full_range} peak {peak}, sample {s:?}: shader \
                 {got:?}, twin {want:?}"
            );
        }
    }
    assert_no_validation_messages();
}

/// The HDR10 output (the `HDR10_OUTPUT` variant into a 10-bit image) is
/// the host twin's (`color::hdr10_rgb`): PQ-coded BT.2020, pictures not
/// tone-mapped, for random 10-bit 4:4:4 samples of every matrix, transfer
/// and range. Within two 10-bit steps, as the SDR twin allows two 8-bit
/// ones: the GPU's `pow` and `exp` are not the host's (Vulkan allows `pow`
/// a few ulps, PQ's inner power then meets the cancellation in `p - c1` on
/// dark samples), and the extended space adds a gamma round trip (1/2.4,
/// then 2.4) the SDR path lacks; lavapipe differs by at most one step at
/// each vector width (4, 8 and 16 lanes). Anchors not from the twin: the
/// UI's white (the background) is BT.2408's 203 nits, PQ 0.5807 (code
/// 594); and the renderer set back to SDR draws what a fresh one draws.
#[test]
fn hdr10_output_matches_the_host_twin() {
    let n = 256u32;
    let samples = random_samples(0x9e37_79b9, n);
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, ScanMode::Subgroup, None).unwrap();
    let mut worst = 0;
    for matrix in [YuvMatrix::Bt601, YuvMatrix::Bt709, YuvMatrix::Bt2020] {
        for transfer in [Transfer::Sdr, Transfer::Pq, Transfer::Hlg] {
            for full_range in [false, true] {
                // Rows 0-1 the picture, row 2 the (white) background.
                let mut scene = Scene::new(n, 3, Color::WHITE);
                let picture = sample_row(&samples, matrix, transfer, full_range);
                let format = picture.format;
                let id = scene.add_yuv(picture);
                let src = Rect::new(0.0, 0.0, n as f32, 1.0);
                scene.yuv_image(Rect::new(0.0, 0.0, n as f32, 2.0), id, src, Sampling::Nearest);
                renderer.set_output(Output::Hdr10).unwrap();
                let words = renderer.render_to_rgba(&mut submitter, &scene).unwrap();
                let px = |i: usize| {
                    let w = u32::from_le_bytes(words[i * 4..][..4].try_into().unwrap());
                    [w & 1023, (w >> 10) & 1023, (w >> 20) & 1023, w >> 30].map(|c| c as i32)
                };
                let case = format!("{matrix:?} {transfer:?} full {full_range}");
                for (x, s) in samples.iter().enumerate() {
                    let want = color::hdr10_rgb(&format, s.map(f32::from))
                        .map(|c| (c * 1023.0).round() as i32);
                    let got = px(x);
                    assert_eq!(got[3], 3, "{case}: alpha");
                    let off = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).max().unwrap();
                    worst = worst.max(off);
                    assert!(
                        off <= 2,
                        "{case}, sample {s:?}: shader {:?}, twin {want:?}",
                        &got[..3]
                    );
                }
                for x in 0..n as usize {
                    let white = px(2 * n as usize + x);
                    assert!(white[..3].iter().all(|&c| (c - 594).abs() <= 1), "{case}: {white:?}");
                }
                renderer.set_output(Output::Sdr).unwrap();
                let sdr = renderer.render_to_rgba(&mut submitter, &scene).unwrap();
                assert_eq!(sdr, render(&scene, ScanMode::Subgroup), "{case}: SDR again");
            }
        }
    }
    eprintln!("largest difference from the twin: {worst} 10-bit steps");
    drop((renderer, submitter));
    assert_no_validation_messages();
}

/// An external map bound at record time renders exactly like the same
/// values travelling with the scene, and a scene whose external map is not
/// bound (or bound to a buffer too small) is refused, not drawn from
/// whatever memory lies there.
#[test]
fn external_heat_map_matches_host_map() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, ScanMode::Subgroup, None).unwrap();
    let (mw, mh) = scenes::TEST_MAP_SIZE;
    let values = scenes::test_map();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let buffer = upload_buffer(&ctx, &mut submitter, "test map", &bytes).unwrap();
    let small = upload_buffer(&ctx, &mut submitter, "small map", &[0u8; 64]).unwrap();
    let src = Rect::new(0.0, 0.0, mw as f32, mh as f32);
    let dst = Rect::new(4.0, 4.0, 196.0, 112.0);
    let build = |external: bool| {
        let mut scene = Scene::new(200, 116, Color::BLACK);
        let map = if external {
            // Slot 1, so the second binding is exercised too.
            scene.external_map(mw, mh, 1)
        } else {
            scene.add_map(mw, mh, values.clone())
        };
        scene.heat_map(dst, map, src, Sampling::Bilinear, (0.5, 1.0));
        scene
    };
    let host = renderer.render_to_rgba(&mut submitter, &build(false)).unwrap();
    let external = renderer
        .render_to_rgba_with_maps(&mut submitter, &build(true), &[&small, &buffer])
        .unwrap();
    assert_eq!(host, external);
    let lit = host.chunks_exact(4).filter(|p| p[0] > 200).count();
    assert!(lit > 100, "the damaged disc should glow: {lit} bright pixels");

    for maps in [&[][..], &[&buffer, &small][..]] {
        let e = renderer.render_to_rgba_with_maps(&mut submitter, &build(true), maps).unwrap_err();
        assert!(e.to_string().contains("external map 1 needs"), "{e}");
    }
    drop((renderer, submitter));
    assert_no_validation_messages();
}

/// A YUV picture drawn from planes already in a GPU buffer (copied on the
/// GPU into the plane buffer) gives the very pixels of the same picture
/// given as host bytes; its planes may lie anywhere word-aligned in the
/// buffer, and a buffer missing or too small is refused, not read past.
#[test]
fn external_yuv_picture_matches_host_picture() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut renderer = Renderer::new(&ctx, ScanMode::Subgroup, None).unwrap();
    for (w, h, depth) in [(97, 55, 8), (64, 37, 10)] {
        let picture = scenes::test_picture(w, h, depth);
        let bps = if depth > 8 { 2 } else { 1 };
        let luma = (w * h * bps) as usize;
        let chroma = (w.div_ceil(2) * h.div_ceil(2) * bps) as usize;
        // Planes out of order, with gaps: Cr first, then Y, then Cb.
        let at = |n: usize| n.div_ceil(4) * 4;
        let (v_at, y_at) = (12, at(12 + chroma) + 8);
        let u_at = at(y_at + luma) + 4;
        let mut bytes = vec![0xA5u8; at(u_at + chroma) + 16];
        let data = &picture.data;
        bytes[y_at..y_at + luma].copy_from_slice(&data[..luma]);
        bytes[u_at..u_at + chroma].copy_from_slice(&data[luma..luma + chroma]);
        bytes[v_at..v_at + chroma].copy_from_slice(&data[luma + chroma..]);
        let buffer = upload_buffer(&ctx, &mut submitter, "frame planes", &bytes).unwrap();
        let external = ExternalYuv {
            format: picture.format,
            slot: 1,
            planes: [y_at as u64, u_at as u64, v_at as u64],
        };
        let build = |from_gpu: bool| {
            let mut scene = Scene::new(160, 100, Color::BLACK);
            // A host picture as well, so both regions of the plane buffer are used.
            let other = scene.add_yuv(scenes::test_picture(9, 7, 8));
            let id = if from_gpu {
                scene.add_external_yuv(external)
            } else {
                scene.add_yuv(picture.clone())
            };
            let src = Rect::new(0.0, 0.0, w as f32, h as f32);
            scene.yuv_image(Rect::new(2.0, 2.0, 150.0, 90.0), id, src, Sampling::Bilinear);
            let corner = Rect::new(140.0, 80.0, 158.0, 98.0);
            scene.yuv_image(corner, other, Rect::new(0.0, 0.0, 9.0, 7.0), Sampling::Nearest);
            scene
        };
        let host = renderer.render_to_rgba(&mut submitter, &build(false)).unwrap();
        let gpu = renderer
            .render_to_rgba_with_maps(&mut submitter, &build(true), &[&buffer, &buffer])
            .unwrap();
        assert_eq!(host, gpu, "{w}x{h} at {depth} bits");

        let small = upload_buffer(&ctx, &mut submitter, "small", &[0u8; 64]).unwrap();
        for maps in [&[&buffer][..], &[&buffer, &small][..]] {
            let e = renderer.render_to_rgba_with_maps(&mut submitter, &build(true), maps);
            let e = e.unwrap_err().to_string();
            assert!(e.contains("external picture needs bytes"), "{e}");
        }
    }
    let mut scene = Scene::new(8, 8, Color::BLACK);
    let bad = ExternalYuv {
        format: YuvFormat {
            width: 4,
            height: 4,
            bit_depth: 8,
            subsampling: Subsampling::Yuv420,
            matrix: YuvMatrix::Bt709,
            full_range: false,
            transfer: Transfer::Sdr,
        },
        slot: 0,
        planes: [0, 18, 24],
    };
    let id = scene.add_external_yuv(bad);
    scene.yuv_image(
        Rect::new(0.0, 0.0, 8.0, 8.0),
        id,
        Rect::new(0.0, 0.0, 4.0, 4.0),
        Sampling::Nearest,
    );
    let e = renderer.encode(&scene).unwrap_err().to_string();
    assert!(e.contains("not multiples of 4"), "{e}");
    drop((renderer, submitter));
    assert_no_validation_messages();
}

/// `n` random 10-bit (Y, U, V) samples from `seed` (xorshift32).
fn random_samples(mut seed: u32, n: u32) -> Vec<[u16; 3]> {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 1024) as u16
    };
    (0..n).map(|_| [next(), next(), next()]).collect()
}

/// A one-row 10-bit 4:4:4 picture of `samples`, one pixel each.
fn sample_row(
    samples: &[[u16; 3]],
    matrix: YuvMatrix,
    transfer: Transfer,
    full_range: bool,
) -> vqscope_renderer::YuvPicture {
    let format = YuvFormat {
        width: samples.len() as u32,
        height: 1,
        bit_depth: 10,
        subsampling: Subsampling::Yuv444,
        matrix,
        full_range,
        transfer,
    };
    let data = (0..3).flat_map(|p| samples.iter().flat_map(move |s| s[p].to_le_bytes())).collect();
    vqscope_renderer::YuvPicture { format, data }
}
