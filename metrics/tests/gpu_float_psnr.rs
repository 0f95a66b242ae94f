//! The GPU `float_psnr` and `float_ansnr` kernels against their CPU twins
//! (`float_psnr::noise_sum`, `float_ansnr::ansnr_sums`), and both registry
//! entries end to end:
//!
//! - random frames of random odd sizes (and the smallest each accepts, and
//!   sizes on and around the 16×16 filter tiles) at 8, 10, 12 and 16 bits,
//!   planes at odd offsets with junk-filled stride padding: float_psnr's
//!   integer sum must equal the twin's, and float_ansnr's two float sums
//!   must have the twin's exact bits, at every lavapipe subgroup size;
//! - through the scoring pipeline (the registry's `build`, `record` and
//!   `frame`) in every chroma format, which both features ignore but for
//!   luma: every value equals the twin's to the bit, under libvmaf's names;
//! - what the twins refuse (depths outside libvmaf's table, planes too
//!   small, options that do not exist) is a `MetricsError`, not a panic.

use vqscope_gpu::Submitter;
use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, plane_bytes};
use vqscope_metrics::features::float_ansnr::gpu::AnsnrKernel;
use vqscope_metrics::features::float_ansnr::{ansnr_sums, float_ansnr};
use vqscope_metrics::features::float_psnr::gpu::FloatPsnrKernel;
use vqscope_metrics::features::float_psnr::{float_psnr, noise_sum};
use vqscope_metrics::pipeline::{FeatureSet, ScorePipeline};
use vqscope_metrics::testing::{HostPlane, nudged, poisoned_results, random_plane, upload_planes};
use vqscope_video::{ChromaFormat, ColorInfo, Frame, FramePair, Geometry, PixelFormat};

/// The frame sizes tried at each depth: the smallest accepted, tile edges
/// and neighbours, then random odd ones.
fn sizes(rng: &mut Rng, smallest: (usize, usize)) -> Vec<(usize, usize)> {
    let mut sizes = vec![smallest, (16, 16), (17, 33), (257, 3), (3, 65)];
    sizes.extend((0..4).map(|_| (rng.odd(3, 301), rng.odd(3, 201))));
    sizes
}

#[test]
fn float_psnr_sums_match_twin() {
    if !at_every_lavapipe_subgroup_size("float_psnr_sums_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_F125);
    for bpc in [8, 10, 12, 16] {
        for (w, h) in sizes(&mut rng, (1, 1)) {
            let r = random_plane(&mut rng, w, h, bpc);
            let d = nudged(&mut rng, &r, [1, 4, 40]);
            let want = noise_sum(&r.view(), &d.view()).unwrap();
            let kernel = FloatPsnrKernel::new(&ctx, w as u32, h as u32, bpc).unwrap();
            let (buffer, descs) = upload_planes(&ctx, &mut submitter, &mut rng, &[&r, &d]);
            let [rd, dd] = [descs[0], descs[1]];
            let n = FloatPsnrKernel::RESULT_WORDS;
            let words = poisoned_results(&ctx, &mut submitter, n, |rec, out, at| {
                let rp = DevicePlane { buffer: &buffer, desc: rd };
                let dp = DevicePlane { buffer: &buffer, desc: dd };
                kernel.record(rec, &rp, &dp, out, at)
            });
            assert_eq!(FloatPsnrKernel::decode(&words), want, "{w}x{h} at {bpc} bits");
        }
    }
    assert_no_validation_messages();
}

/// At 16 bits a full-range difference's float square rounds (65535² needs
/// 32 bits); the kernel must round it as libvmaf's float product does.
#[test]
fn float_psnr_rounds_16_bit_squares_like_float() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(5);
    let (w, h) = (37, 5);
    let r = HostPlane { width: w, height: h, stride: w, bpc: 16, samples: vec![65535; w * h] };
    let d = HostPlane { samples: vec![0; w * h], ..r };
    let want = noise_sum(&r.view(), &d.view()).unwrap();
    assert_ne!(want, (w * h) as u64 * 65535 * 65535, "the squares must round for this test");
    let kernel = FloatPsnrKernel::new(&ctx, w as u32, h as u32, 16).unwrap();
    let (buffer, descs) = upload_planes(&ctx, &mut submitter, &mut rng, &[&r, &d]);
    let [rd, dd] = [descs[0], descs[1]];
    let words = poisoned_results(&ctx, &mut submitter, 1, |rec, out, at| {
        let rp = DevicePlane { buffer: &buffer, desc: rd };
        let dp = DevicePlane { buffer: &buffer, desc: dd };
        kernel.record(rec, &rp, &dp, out, at)
    });
    assert_eq!(FloatPsnrKernel::decode(&words), want);
    assert_no_validation_messages();
}

#[test]
fn float_ansnr_sums_match_twin() {
    if !at_every_lavapipe_subgroup_size("float_ansnr_sums_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_A125);
    let mut frames = 0;
    for bpc in [8, 10, 12, 16] {
        for (w, h) in sizes(&mut rng, (3, 3)) {
            let r = random_plane(&mut rng, w, h, bpc);
            let d = nudged(&mut rng, &r, [1, 4, 40]);
            let want = ansnr_sums(&r.view(), &d.view()).unwrap();
            let kernel = AnsnrKernel::new(&ctx, w as u32, h as u32, bpc).unwrap();
            let (buffer, descs) = upload_planes(&ctx, &mut submitter, &mut rng, &[&r, &d]);
            let [rd, dd] = [descs[0], descs[1]];
            let n = AnsnrKernel::RESULT_WORDS;
            let words = poisoned_results(&ctx, &mut submitter, n, |rec, out, at| {
                let rp = DevicePlane { buffer: &buffer, desc: rd };
                let dp = DevicePlane { buffer: &buffer, desc: dd };
                kernel.record(rec, &rp, &dp, out, at)
            });
            let got = AnsnrKernel::decode(&words);
            assert_eq!(
                (got.sig.to_bits(), got.noise.to_bits()),
                (want.sig.to_bits(), want.noise.to_bits()),
                "{w}x{h} at {bpc} bits: GPU {got:?}, twin {want:?}"
            );
            frames += 1;
        }
    }
    let info = ctx.info();
    println!(
        "float_ansnr: {frames} random frame pairs bit-identical to the twin on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

/// A frame of `geometry` whose planes are random content.
fn random_frame(rng: &mut Rng, geometry: Geometry, index: u64) -> (Frame, Frame) {
    let planes = geometry.format.chroma.plane_count();
    let bpc = geometry.format.bit_depth;
    let (mut reference, mut distorted) = (Vec::new(), Vec::new());
    for i in 0..planes {
        let (w, h) = geometry.plane_size(i);
        let r = random_plane(rng, w as usize, h as usize, bpc);
        let r = HostPlane { samples: packed(&r), stride: r.width, ..r };
        let d = nudged(rng, &r, [1, 4, 40]);
        reference.extend(plane_bytes(&r.view()).into_iter().take(geometry.plane_bytes(i)));
        distorted.extend(plane_bytes(&d.view()).into_iter().take(geometry.plane_bytes(i)));
    }
    let frame =
        |data: Vec<u8>| Frame { geometry, color: ColorInfo::default(), index, data: data.into() };
    (frame(reference), frame(distorted))
}

/// The plane's samples without the stride padding.
fn packed(p: &HostPlane) -> Vec<u16> {
    (0..p.height).flat_map(|y| p.samples[y * p.stride..][..p.width].iter().copied()).collect()
}

fn both_features() -> FeatureSet {
    let mut set = FeatureSet::new();
    set.add_spec("float_ansnr").unwrap();
    set.add_spec("float_psnr").unwrap();
    set
}

#[test]
fn registry_values_equal_the_twins_in_every_chroma_format() {
    let ctx = test_context();
    let mut rng = Rng(0x5EED_00C4);
    let chromas =
        [ChromaFormat::Mono, ChromaFormat::Yuv420, ChromaFormat::Yuv422, ChromaFormat::Yuv444];
    for bpc in [8, 10, 12, 16] {
        for chroma in chromas {
            let (w, h) = (rng.odd(3, 121) as u32, rng.odd(3, 91) as u32);
            let geometry =
                Geometry { width: w, height: h, format: PixelFormat { chroma, bit_depth: bpc } };
            let mut pipeline = ScorePipeline::new(&ctx, geometry, &both_features()).unwrap();
            // Registry order, libvmaf's names.
            assert_eq!(&pipeline.columns()[..], ["float_psnr", "float_ansnr", "float_anpsnr"]);
            let pairs: Vec<(Frame, Frame)> =
                (0..3).map(|i| random_frame(&mut rng, geometry, i)).collect();
            let mut scores = Vec::new();
            for (i, (reference, distorted)) in pairs.iter().enumerate() {
                let pair = FramePair {
                    index: i as u64,
                    reference: reference.clone(),
                    distorted: distorted.clone(),
                };
                scores.extend(pipeline.push(&pair).unwrap());
            }
            scores.extend(pipeline.finish().unwrap());
            assert_eq!(scores.len(), pairs.len());
            for (s, (reference, distorted)) in scores.iter().zip(&pairs) {
                let (rs, ds) = (reference.plane_samples(0), distorted.plane_samples(0));
                let rv = PlaneView::packed(w as usize, h as usize, bpc, &rs);
                let dv = PlaneView::packed(w as usize, h as usize, bpc, &ds);
                let [ansnr, anpsnr] = float_ansnr(&rv, &dv).unwrap();
                let want = [float_psnr(&rv, &dv).unwrap(), ansnr, anpsnr];
                let got: Vec<u64> = s.values.iter().map(|v| v.to_bits()).collect();
                assert_eq!(
                    got,
                    want.map(f64::to_bits),
                    "frame {} {w}x{h} {chroma:?} at {bpc} bits: {:?} vs {want:?}",
                    s.index,
                    s.values
                );
            }
        }
    }
    assert_no_validation_messages();
}

#[test]
fn bad_input_is_an_error() {
    let ctx = test_context();
    let geometry = |w, h, bit_depth| Geometry {
        width: w,
        height: h,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth },
    };
    let only = |spec: &str| {
        let mut set = FeatureSet::new();
        set.add_spec(spec).map(|()| set)
    };
    // A depth outside libvmaf's table.
    for spec in ["float_psnr", "float_ansnr"] {
        let set = only(spec).unwrap();
        assert!(ScorePipeline::new(&ctx, geometry(64, 64, 9), &set).is_err(), "{spec}");
        assert!(ScorePipeline::new(&ctx, geometry(64, 64, 14), &set).is_err(), "{spec}");
    }
    // The 5-tap mirror needs 3×3; float_psnr takes any non-empty plane.
    let set = only("float_ansnr").unwrap();
    assert!(ScorePipeline::new(&ctx, geometry(2, 64, 8), &set).is_err());
    assert!(ScorePipeline::new(&ctx, geometry(64, 2, 8), &set).is_err());
    assert!(ScorePipeline::new(&ctx, geometry(3, 3, 8), &set).is_ok());
    let set = only("float_psnr").unwrap();
    assert!(ScorePipeline::new(&ctx, geometry(1, 1, 8), &set).is_ok());
    assert!(FloatPsnrKernel::new(&ctx, 0, 4, 8).is_err());
    assert!(AnsnrKernel::new(&ctx, 3, 2, 16).is_err());
    // Neither extractor has options.
    assert!(only("float_psnr=enable_chroma=true").is_err());
    assert!(only("float_ansnr=debug=true").is_err());
    assert_no_validation_messages();
}
