//! The GPU ciede kernel against its CPU twin (`ciede::delta_e_map`,
//! `raster_sum`, `score`): random frame pairs of random odd sizes at 8, 10,
//! 12 and 16 bits in 4:2:0, 4:2:2 and 4:4:4, planes at odd strides and
//! offsets, at every subgroup size lavapipe offers.
//!
//! Per pixel the kernel evaluates libm's functions in double itself, so a
//! ΔE float may differ from the twin's where an exact value lies within a
//! few double ulps of a float rounding boundary: the test counts those
//! pixels, requires them to be rare and tiny, and requires every frame's
//! score within 1e-6 of the twin's (its sum is a fixed tree of doubles
//! where libvmaf adds in raster order).

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Submitter, download_buffer,
    upload_buffer,
};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, PlaneDesc};
use vqscope_metrics::features::ciede::gpu::{CiedeKernel, LAB_TABLE_MIN_PIXELS};
use vqscope_metrics::features::ciede::{
    ChromaReader, delta_e_map, hue_weight, hue_weight_f64, raster_sum, score,
};
use vqscope_metrics::testing::{HostPlane, POISON, nudged, poisoned_results, upload_planes};
use vqscope_video::ChromaFormat;

/// A plane in one of several styles: full-range noise (out-of-gamut
/// colours), a smooth ramp, flat with sparse outliers, or extremes only
/// (black, white, saturated, neutral).
fn random_plane(rng: &mut Rng, width: usize, height: usize, bpc: u32, neutral: u64) -> HostPlane {
    let max = (1u64 << bpc) - 1;
    let stride = width + rng.below(3) as usize;
    let style = rng.below(4);
    let base = rng.below(max + 1);
    let (fx, fy) = (rng.below(7) + 1, rng.below(5) + 1);
    let mut samples = vec![0u16; stride * height];
    for y in 0..height {
        for x in 0..stride {
            let v = if x >= width {
                rng.below(max + 1)
            } else {
                match style {
                    0 => rng.below(max + 1),
                    1 => (base + x as u64 * fx + y as u64 * fy) % (max + 1),
                    2 if rng.below(40) == 0 => rng.below(max + 1),
                    2 => base,
                    _ => [0, max, neutral, neutral / 8][rng.below(4) as usize],
                }
            };
            samples[y * stride + x] = v as u16;
        }
    }
    HostPlane { width, height, stride, bpc, samples }
}

/// A random YUV frame in `format` and a distorted copy.
fn random_pair(
    rng: &mut Rng,
    format: ChromaFormat,
    w: usize,
    h: usize,
    bpc: u32,
) -> ([HostPlane; 3], [HostPlane; 3]) {
    let reader = ChromaReader::new(format, w as u32, h as u32).unwrap();
    let (cw, ch) = reader.plane_size(w, h);
    let neutral = 128u64 << (bpc - 8);
    let reference = [
        random_plane(rng, w, h, bpc, 16 << (bpc - 8)),
        random_plane(rng, cw, ch, bpc, neutral),
        random_plane(rng, cw, ch, bpc, neutral),
    ];
    let distorted = std::array::from_fn(|i| nudged(rng, &reference[i], [0, 1, 8]));
    (reference, distorted)
}

fn views(planes: &[HostPlane; 3]) -> [PlaneView<'_>; 3] {
    std::array::from_fn(|i| planes[i].view())
}

/// What the kernel leaves for one frame pair: the ΔE sum and the map.
struct GpuFrame {
    sum: f64,
    map: Vec<f32>,
}

fn run_kernel(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    kernel: &CiedeKernel,
    reference: &[HostPlane; 3],
    distorted: &[HostPlane; 3],
) -> GpuFrame {
    let planes: Vec<&HostPlane> = reference.iter().chain(distorted).collect();
    let (ref_buf, ref_descs) = upload_planes(ctx, submitter, rng, &planes[..3]);
    let (dis_buf, dis_descs) = upload_planes(ctx, submitter, rng, &planes[3..]);
    let side = |buffer, descs: &[PlaneDesc]| -> Vec<DevicePlane> {
        descs.iter().map(|&desc| DevicePlane { buffer, desc }).collect()
    };
    let (r, d) = (side(&ref_buf, &ref_descs), side(&dis_buf, &dis_descs));
    let words = poisoned_results(ctx, submitter, CiedeKernel::RESULT_WORDS, |rec, results, at| {
        rec.fill(kernel.delta_e_map(), POISON);
        rec.barrier();
        kernel.record(rec, &r, &d, results, at)
    });
    let (mw, mh) = kernel.map_size();
    let len = u64::from(mw) * u64::from(mh) * 4;
    let map_bytes = download_buffer(ctx, submitter, kernel.delta_e_map(), len).unwrap();
    let map =
        map_bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    GpuFrame { sum: CiedeKernel::decode(&words), map }
}

/// How many of the GPU's ΔE floats differ from the twin's; each that does
/// must still be within 1e-5 relative (a rounding-boundary case, not a fault).
fn differing_pixels(got: &[f32], want: &[f32], what: &str) -> usize {
    let mut differing = 0;
    for (i, (&g, &t)) in got.iter().zip(want).enumerate() {
        if g.to_bits() != t.to_bits() {
            differing += 1;
            assert!(((g - t) / t).abs() < 1e-5, "{what}, pixel {i}: GPU {g:e} twin {t:e}");
        }
    }
    differing
}

/// Every pixel's ΔE and every frame's score against the twin, in every
/// chroma format at every depth libvmaf reads.
#[test]
fn ciede_matches_twin() {
    if !at_every_lavapipe_subgroup_size("ciede_matches_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_C1ED);
    let (mut pixels, mut differing, mut frames) = (0usize, 0usize, 0usize);
    let mut worst_score = 0f64;
    let formats = [ChromaFormat::Yuv420, ChromaFormat::Yuv422, ChromaFormat::Yuv444];
    for bpc in [8, 10, 12, 16] {
        for format in formats {
            // 4:2:2 at 67 wide pads chroma rows of 33 to 64: libvmaf's read
            // runs into the padding and the next row.
            let mut sizes = vec![(3, 5), (67, 9)];
            sizes.extend((0..2).map(|_| (rng.odd(3, 97), rng.odd(5, 61))));
            for (w, h) in sizes {
                let (reference, distorted) = random_pair(&mut rng, format, w, h, bpc);
                let reader = ChromaReader::new(format, w as u32, h as u32).unwrap();
                let want = delta_e_map(&reader, &views(&reference), &views(&distorted)).unwrap();
                let kernel = CiedeKernel::new(&ctx, w as u32, h as u32, bpc, format).unwrap();
                let got =
                    run_kernel(&ctx, &mut submitter, &mut rng, &kernel, &reference, &distorted);
                differing +=
                    differing_pixels(&got.map, &want, &format!("{format:?} {w}x{h} at {bpc} bits"));
                let (ours, theirs) = (score(got.sum, w as u32, h as u32), raster_sum(&want));
                let theirs = score(theirs, w as u32, h as u32);
                let diff = (ours - theirs).abs();
                assert!(
                    diff <= 1e-6 || ours == theirs,
                    "{format:?} {w}x{h} at {bpc} bits: score {ours} vs twin {theirs}"
                );
                if diff.is_finite() {
                    worst_score = worst_score.max(diff);
                }
                pixels += want.len();
                frames += 1;
            }
        }
    }
    let info = ctx.info();
    println!(
        "ciede: {frames} random frame pairs, {pixels} pixels, {differing} ΔE floats differ from \
         the twin, largest score |Δ| {worst_score:e} on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    // About one pixel in 10^7 differs (lavapipe: none in 4M random pixels,
    // 2 in the 20M of the shared clips); a handful in these few
    // hundred thousand would already point at a real fault.
    assert!(differing <= 2, "{differing} of {pixels} ΔE values differ from the twin");
    assert_no_validation_messages();
}

/// How often a ΔE float differs from the twin's over many pixels: four
/// random 1024x1024 pairs (8- and 10-bit 4:2:0, every plane style), 4M
/// pixels; the 8-bit ones read the Lab table, the 10-bit ones convert. The rate the docs give is below one pixel in 10^6 (none on
/// lavapipe, none on the H100 in 8M); more than one in 10^6 means the
/// shader's functions have lost accuracy.
#[test]
fn ciede_agreement_rate_on_many_pixels() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xC1ED_0004);
    let (w, h) = (1024usize, 1024usize);
    let (mut pixels, mut differing) = (0usize, 0usize);
    for bpc in [8, 10] {
        let kernel = CiedeKernel::new(&ctx, w as u32, h as u32, bpc, ChromaFormat::Yuv420).unwrap();
        assert_eq!(kernel.uses_lab_table(), bpc == 8);
        let reader = ChromaReader::new(ChromaFormat::Yuv420, w as u32, h as u32).unwrap();
        for _ in 0..2 {
            let (reference, distorted) = random_pair(&mut rng, ChromaFormat::Yuv420, w, h, bpc);
            let want = delta_e_map(&reader, &views(&reference), &views(&distorted)).unwrap();
            let got = run_kernel(&ctx, &mut submitter, &mut rng, &kernel, &reference, &distorted);
            differing += differing_pixels(&got.map, &want, &format!("{bpc} bits"));
            pixels += want.len();
        }
    }
    println!(
        "ciede: {differing} of {pixels} ΔE floats differ from the twin on {}",
        ctx.info().name
    );
    assert!(differing * 1_000_000 <= pixels, "{differing} of {pixels} differ");
    assert_no_validation_messages();
}

/// 8-bit frames from the smallest that reads the Lab table up, in every
/// chroma format, at odd sizes, strides and offsets, at every subgroup size
/// lavapipe offers: every ΔE float the twin's (the table holds what the
/// per-pixel conversion gives), and just below the size the kernel still
/// converts. The kernels stay alive, so the later ones read the table the
/// first one filled.
#[test]
fn ciede_lab_table_matches_twin() {
    if !at_every_lavapipe_subgroup_size("ciede_lab_table_matches_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x1AB_7AB1E);
    let (mut pixels, mut differing) = (0usize, 0usize);
    let mut kernels = Vec::new();
    // 1023 x 513 is just above the threshold, 1023 x 511 just below it.
    let cases = [
        (ChromaFormat::Yuv420, 1023, 513),
        (ChromaFormat::Yuv422, 1025, 515),
        (ChromaFormat::Yuv444, 1027, 517),
        (ChromaFormat::Yuv420, 1023, 511),
    ];
    for (format, w, h) in cases {
        let kernel = CiedeKernel::new(&ctx, w as u32, h as u32, 8, format).unwrap();
        let big = (w * h) as u64 >= LAB_TABLE_MIN_PIXELS;
        assert_eq!(kernel.uses_lab_table(), big, "{w}x{h}");
        let reader = ChromaReader::new(format, w as u32, h as u32).unwrap();
        let (reference, distorted) = random_pair(&mut rng, format, w, h, 8);
        let want = delta_e_map(&reader, &views(&reference), &views(&distorted)).unwrap();
        let got = run_kernel(&ctx, &mut submitter, &mut rng, &kernel, &reference, &distorted);
        differing += differing_pixels(&got.map, &want, &format!("{format:?} {w}x{h}"));
        let (ours, theirs) = (score(got.sum, w as u32, h as u32), raster_sum(&want));
        let theirs = score(theirs, w as u32, h as u32);
        assert!(
            (ours - theirs).abs() <= 1e-6 || ours == theirs,
            "{format:?} {w}x{h}: score {ours} vs twin {theirs}"
        );
        pixels += want.len();
        kernels.push(kernel);
    }
    println!(
        "ciede (Lab table): {differing} of {pixels} ΔE floats differ from the twin on {} \
         (subgroup size {})",
        ctx.info().name,
        ctx.info().subgroup_size
    );
    assert!(differing <= 2, "{differing} of {pixels} ΔE values differ from the twin");
    assert_no_validation_messages();
}

/// What libvmaf refuses, the kernel refuses with an error, not a panic.
#[test]
fn ciede_refuses_what_libvmaf_refuses() {
    let ctx = test_context();
    assert!(CiedeKernel::new(&ctx, 64, 64, 8, ChromaFormat::Mono).is_err());
    assert!(CiedeKernel::new(&ctx, 64, 64, 9, ChromaFormat::Yuv420).is_err());
    assert!(CiedeKernel::new(&ctx, 64, 1, 8, ChromaFormat::Yuv422).is_err());
    assert!(CiedeKernel::new(&ctx, 0, 8, 8, ChromaFormat::Yuv444).is_err());

    // Planes that do not fit the kernel: an error from record, no dispatch.
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(3);
    let kernel = CiedeKernel::new(&ctx, 9, 7, 8, ChromaFormat::Yuv420).unwrap();
    let (reference, distorted) = random_pair(&mut rng, ChromaFormat::Yuv444, 9, 7, 8);
    let planes: Vec<&HostPlane> = reference.iter().chain(&distorted).collect();
    let (buffer, descs) = upload_planes(&ctx, &mut submitter, &mut rng, &planes);
    let side: Vec<DevicePlane> =
        descs[..3].iter().map(|&desc| DevicePlane { buffer: &buffer, desc }).collect();
    let results = Buffer::storage(&ctx, "test results", 8).unwrap();
    let err = submitter.run(|rec| kernel.record(rec, &side, &side, &results, 0));
    assert!(err.is_err(), "4:4:4 chroma planes accepted by a 4:2:0 kernel");
    let err = submitter.run(|rec| kernel.record(rec, &side[..1], &side[..1], &results, 0));
    assert!(err.is_err(), "luma alone accepted");
    assert_no_validation_messages();
}

/// Signed distance in double ulps from a positive double to the nearest
/// float rounding boundary (a midpoint between two floats) in its binade.
fn ulps_from_midpoint(t: f64) -> i64 {
    (t.to_bits() & 0x1FFF_FFFF) as i64 - (1 << 28)
}

/// The hue weight T of ciede_hue_weight.glsl (test/ciede_hue_weight.comp)
/// against libm's (the twin's), with FUSED_FMA off and on (the cheap path
/// has no exact product, so both are valid on any device):
/// - on random mean hues in [0, 3π) the cheap double lies within the
///   analysis' e_fast + e_lib = 34·2^-52 of libm's double (the margin E =
///   2^-45 must exceed what this measures: a smaller E would be wrong), and
///   hue_weight keeps it on nearly every hue, with the twin's float;
/// - on hues whose libm T lies within 256 double ulps of a midpoint (found
///   by searching the twin), the cheap path must decline and hue_weight give
///   the libm path's float: the fallback runs and is exact.
#[test]
fn ciede_hue_weight_fast_path_and_fallback() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x7E1_6E7);
    let three_pi = 3.0 * std::f32::consts::PI;
    let hue = |rng: &mut Rng| (rng.below(1 << 24) as f32 / (1 << 24) as f32) * three_pi;
    let random: Vec<f32> = (0..1 << 16).map(|_| hue(&mut rng)).collect();
    // Near a midpoint: drawn at full float resolution (the 2^24 hues of
    // `hue` hold only about 16 such).
    let mut near = Vec::new();
    while near.len() < 12 {
        let h =
            ((rng.next_u64() >> 11) as f64 * 2f64.powi(-53) * 3.0 * std::f64::consts::PI) as f32;
        if ulps_from_midpoint(hue_weight_f64(h)).abs() <= 256 {
            near.push(h);
        }
    }
    let hues: Vec<f32> = random.iter().chain(&near).copied().collect();
    let n = hues.len() as u64;
    let bytes: Vec<u8> = hues.iter().flat_map(|h| h.to_le_bytes()).collect();
    let input = upload_buffer(&ctx, &mut submitter, "hues", &bytes).unwrap();
    let fast = Buffer::storage(&ctx, "fast T", n * 8).unwrap();
    let sure = Buffer::storage(&ctx, "sure", n * 4).unwrap();
    let t = Buffer::storage(&ctx, "T", n * 4).unwrap();
    let libm = Buffer::storage(&ctx, "libm T", n * 4).unwrap();
    let words = |buffer: &Buffer, size: u64, submitter: &mut Submitter| -> Vec<u8> {
        download_buffer(&ctx, submitter, buffer, n * size).unwrap()
    };
    for fused in [0, 1] {
        let pipeline = ComputePipeline::new(
            &ctx,
            &PipelineDesc {
                specialization: &[(0, fused)],
                ..PipelineDesc::new(vqscope_shaders::TEST_CIEDE_HUE_WEIGHT)
            },
        )
        .unwrap();
        submitter
            .run(|rec| {
                let bindings = [&input, &fast, &sure, &t, &libm].map(Binding::Buffer);
                let count = (n as u32).to_le_bytes();
                rec.dispatch(&pipeline, &bindings, &count, [(n as u32).div_ceil(64), 1, 1])?;
                rec.barrier();
                Ok(())
            })
            .unwrap();
        let fast: Vec<f64> = words(&fast, 8, &mut submitter)
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let sure: Vec<bool> = words(&sure, 4, &mut submitter)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()) == 1)
            .collect();
        let floats = |bytes: Vec<u8>| -> Vec<f32> {
            bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
        };
        let t = floats(words(&t, 4, &mut submitter));
        let libm = floats(words(&libm, 4, &mut submitter));
        let (mut worst, mut declined) = (0f64, 0usize);
        for (i, &h) in hues.iter().enumerate() {
            let want = hue_weight_f64(h);
            let err = (fast[i] - want).abs();
            worst = worst.max(err);
            assert!(err <= 34.0 * 2f64.powi(-52), "h̄ {h:e} (FUSED_FMA {fused}): |ΔT| {err:e}");
            if i >= random.len() {
                assert!(!sure[i], "h̄ {h:e}: T {want:e} next to a midpoint, yet kept");
            }
            if sure[i] {
                assert_eq!(t[i].to_bits(), hue_weight(h).to_bits(), "h̄ {h:e} (FUSED_FMA {fused})");
            } else {
                declined += 1;
                assert_eq!(t[i].to_bits(), libm[i].to_bits(), "h̄ {h:e}: fallback");
                // The libm path itself may round the other way within a few
                // double ulps of a midpoint (ciede_math.glsl).
                if ulps_from_midpoint(want).abs() > 16 {
                    assert_eq!(t[i].to_bits(), hue_weight(h).to_bits(), "h̄ {h:e}: fallback");
                }
            }
        }
        println!(
            "ciede T (FUSED_FMA {fused}): largest |fast − libm| {:.1}·2^-52 over {n} hues, \
             {declined} declined ({} searched next to a midpoint), on {}",
            worst * 2f64.powi(52),
            near.len(),
            ctx.info().name
        );
        assert!(declined <= near.len() + 16, "{declined} of {n} hues declined");
    }
    assert_no_validation_messages();
}
