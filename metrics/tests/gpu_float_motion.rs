//! The GPU `float_motion` kernels against their CPU twin
//! (`float_motion::{float_plane, blur, sad_sums}`): random frames of random
//! odd sizes at 8, 10, 12 and 16 bits, every filter size and with and
//! without the half-size term, planes at odd offsets and strides in a
//! shared buffer — every float sum must equal the twin's bit for bit, at
//! every subgroup size lavapipe offers. Then the whole extractor through
//! the scoring pipeline (earlier frames, chroma with `motion_add_uv` in
//! every chroma format, the one-frame-late values, output names) against
//! the twin and scorer, and the inputs libvmaf refuses.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{GpuContext, Submitter};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::DevicePlane;
use vqscope_metrics::features::float_motion::gpu::FloatMotionKernel;
use vqscope_metrics::features::float_motion::{
    FloatMotionParams, FloatMotionScorer, blur, filter_taps, float_plane, motion_score, sad_sums,
};
use vqscope_metrics::pipeline::{FeatureSet, ScorePipeline};
use vqscope_metrics::testing::{HostPlane, nudged, poisoned_results, random_plane, upload_planes};
use vqscope_video::FramePair;
use vqscope_video::frame::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat};

/// The kernel's sums for `prev → cur`, with the result words around them
/// checked for stray writes.
fn gpu_sums(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    kernel: &FloatMotionKernel,
    prev: &HostPlane,
    cur: &HostPlane,
) -> vqscope_metrics::features::float_motion::SadSums {
    let (buffer, descs) = upload_planes(ctx, submitter, rng, &[prev, cur]);
    let words = poisoned_results(ctx, submitter, kernel.result_words(), |rec, results, at| {
        let p = DevicePlane { buffer: &buffer, desc: descs[0] };
        let c = DevicePlane { buffer: &buffer, desc: descs[1] };
        kernel.record(rec, p, c, results, at)
    });
    kernel.decode(&words)
}

/// A random `w` x `h` pair at `bpc` bits (`pair`: w, h, bpc, scale1), nudged
/// apart: the kernel's sums equal the twin's, bit for bit (-0 and NaN would
/// not hide behind equal values). `case` names the pair in a failure.
fn assert_sums_match_twin(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    (w, h, bpc, scale1): (usize, usize, u32, bool),
    taps: &[f32],
    case: &str,
) {
    let kernel = FloatMotionKernel::new(ctx, w as u32, h as u32, bpc, taps, scale1).unwrap();
    let prev = random_plane(rng, w, h, bpc);
    let cur = nudged(rng, &prev, [1, 4, 40]);
    let (bp, bc) = (blur(&float_plane(&prev.view()), taps), blur(&float_plane(&cur.view()), taps));
    let want = sad_sums(&bp, &bc, scale1);
    let got = gpu_sums(ctx, submitter, rng, &kernel, &prev, &cur);
    let bits = |s: Option<f32>| s.map(f32::to_bits);
    assert_eq!(
        (got.scale0.to_bits(), bits(got.scale1)),
        (want.scale0.to_bits(), bits(want.scale1)),
        "{case}: got {got:?}, want {want:?}"
    );
}

#[test]
fn float_motion_sums_match_twin() {
    if !at_every_lavapipe_subgroup_size("float_motion_sums_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_F10A);
    let mut pairs = 0;
    for bpc in [8, 10, 12, 16] {
        for filter_size in [5, 3, 1] {
            let taps = filter_taps(filter_size);
            let min = taps.len() / 2 + 1;
            let mut sizes = vec![(min, min), (min + 1, 2 * min + 1)];
            sizes.extend((0..3).map(|_| (rng.odd(3, 257), rng.odd(3, 161))));
            for (w, h) in sizes {
                let scale1 = rng.below(2) == 1;
                let case = format!("{w}x{h} at {bpc} bits, filter {filter_size}, scale1 {scale1}");
                let pair = (w, h, bpc, scale1);
                assert_sums_match_twin(&ctx, &mut submitter, &mut rng, pair, taps, &case);
                pairs += 1;
            }
        }
    }
    let info = ctx.info();
    println!(
        "float_motion: {pairs} random plane pairs equal to the twin on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

/// Rows and a column longer than the shared row sums stage at a time (1024
/// floats): the row sums and the totals then run over several chunks, the
/// last partial and ending in fewer than sixteen floats, and must still add
/// in libvmaf's order.
#[test]
fn float_motion_sums_match_twin_past_a_chunk() {
    if !at_every_lavapipe_subgroup_size("float_motion_sums_match_twin_past_a_chunk") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_F10B);
    let taps = filter_taps(5);
    for (w, h, scale1) in [(2 * 1024 + 77, 5, false), (7, 3 * 1024 + 5, true)] {
        let case = format!("{w}x{h}");
        assert_sums_match_twin(&ctx, &mut submitter, &mut rng, (w, h, 8, scale1), taps, &case);
    }
    assert_no_validation_messages();
}

/// A frame of random planes in `geometry`'s layout (16-bit samples
/// little-endian), each plane a nudge of `like`'s when given.
fn random_frame(rng: &mut Rng, geometry: Geometry, index: u64, like: Option<&Frame>) -> Frame {
    let bpc = geometry.format.bit_depth;
    let mut data = Vec::new();
    for p in 0..geometry.format.chroma.plane_count() {
        let (w, h) = geometry.plane_size(p);
        let (w, h) = (w as usize, h as usize);
        let plane = match like {
            None => random_plane(rng, w, h, bpc),
            Some(f) => {
                let before =
                    HostPlane { width: w, height: h, stride: w, bpc, samples: f.plane_samples(p) };
                nudged(rng, &before, [1, 4, 40])
            }
        };
        for y in 0..h {
            for &v in plane.view().row(y) {
                if bpc > 8 {
                    data.extend_from_slice(&v.to_le_bytes());
                } else {
                    data.push(v as u8);
                }
            }
        }
    }
    Frame { geometry, color: ColorInfo::default(), index, data: data.into() }
}

/// Every value of a clip through the scoring pipeline, by column name.
fn pipeline_values(
    geometry: Geometry,
    spec: &str,
    frames: &[Frame],
) -> (Vec<String>, Vec<Vec<f64>>) {
    let ctx = test_context();
    let mut set = FeatureSet::new();
    set.add_spec(spec).unwrap();
    let mut pipeline = ScorePipeline::new(&ctx, geometry, &set).unwrap();
    let mut rows = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let pair = FramePair { index: i as u64, reference: f.clone(), distorted: f.clone() };
        rows.extend(pipeline.push(&pair).unwrap());
    }
    rows.extend(pipeline.finish().unwrap());
    rows.sort_by_key(|r| r.index);
    let names = pipeline.columns().to_vec();
    (names, rows.into_iter().map(|r| r.values).collect())
}

/// The twin's values for the same clip: raw scores from
/// [`motion_score`], streamed through the scorer.
fn twin_values(params: FloatMotionParams, frames: &[Frame]) -> Vec<[f64; 3]> {
    let planes: Vec<Vec<Vec<u16>>> =
        frames.iter().map(|f| (0..params.planes()).map(|p| f.plane_samples(p)).collect()).collect();
    let views = |i: usize| -> Vec<PlaneView<'_>> {
        let g = frames[i].geometry;
        (0..params.planes())
            .map(|p| {
                let (w, h) = g.plane_size(p);
                PlaneView::packed(w as usize, h as usize, g.format.bit_depth, &planes[i][p])
            })
            .collect()
    };
    let mut scorer = FloatMotionScorer::new(params);
    let mut out = Vec::new();
    for i in 0..frames.len() {
        let score = scorer
            .scores_frame(i as u64)
            .then(|| motion_score(&views(i - 1), &views(i), &params).unwrap());
        out.extend(scorer.push(score));
    }
    out.extend(scorer.finish());
    out.iter().map(|f| [f.motion2, f.motion, f.motion3]).collect()
}

/// The extractor end to end: earlier frames from the pipeline's ring,
/// chroma planes with `motion_add_uv` in every chroma format, the half-size
/// term, the weighted and blended values and libvmaf's output names.
#[test]
fn pipeline_matches_twin_in_every_chroma_format() {
    let mut rng = Rng(0x5EED_F10B);
    let with_options = "motion_add_uv=true:motion_add_scale1=true:motion_fps_weight=1.5:\
                        motion_blend_factor=0.5:motion_blend_offset=2";
    let suffix = "_mdc_mau_mbf_0.5_mbo_2_mfw_1.5";
    let formats = [ChromaFormat::Yuv420, ChromaFormat::Yuv422, ChromaFormat::Yuv444];
    for (k, chroma) in formats.into_iter().enumerate() {
        let bpc = [8, 10, 12][k];
        let (w, h) = (rng.odd(9, 67) as u32, rng.odd(9, 41) as u32);
        let geometry =
            Geometry { width: w, height: h, format: PixelFormat { chroma, bit_depth: bpc } };
        let mut frames = vec![random_frame(&mut rng, geometry, 0, None)];
        for i in 1..5 {
            let next = random_frame(&mut rng, geometry, i, frames.last());
            frames.push(next);
        }
        let params = FloatMotionParams {
            add_uv: true,
            add_scale1: true,
            fps_weight: 1.5,
            blend_factor: 0.5,
            blend_offset: 2.0,
            ..FloatMotionParams::default()
        };
        for (spec, params, suffix) in [
            ("float_motion".to_string(), FloatMotionParams::default(), ""),
            (format!("float_motion={with_options}"), params, suffix),
        ] {
            let (names, rows) = pipeline_values(geometry, &spec, &frames);
            let want_names: Vec<String> =
                ["motion2", "motion", "motion3"].iter().map(|n| format!("{n}{suffix}")).collect();
            assert_eq!(names, want_names, "{spec}");
            let want = twin_values(params, &frames);
            assert_eq!(rows.len(), want.len(), "{spec}: one row per frame");
            for (i, (got, want)) in rows.iter().zip(&want).enumerate() {
                assert_eq!(got[..], want[..], "{spec} {chroma:?} {w}x{h} at {bpc} bits, frame {i}");
            }
        }
    }
    assert_no_validation_messages();
}

/// Without `debug` libvmaf prints no `motion`; with `motion_force_zero` it
/// computes nothing and appends all three values at once (so `motion3`
/// comes before `motion`), every one 0.
#[test]
fn debug_off_and_force_zero_columns() {
    let mut rng = Rng(0x5EED_F10C);
    let geometry = Geometry {
        width: 21,
        height: 13,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 },
    };
    let mut frames = vec![random_frame(&mut rng, geometry, 0, None)];
    for i in 1..4 {
        let next = random_frame(&mut rng, geometry, i, frames.last());
        frames.push(next);
    }
    let (names, rows) = pipeline_values(geometry, "float_motion=debug=false", &frames);
    assert_eq!(names, ["motion2", "motion3"]);
    let want = twin_values(FloatMotionParams::default(), &frames);
    for (got, want) in rows.iter().zip(&want) {
        assert_eq!(got[..], [want[0], want[2]]);
    }
    assert!(rows.iter().any(|r| r[0] > 0.0), "random frames move");
    let (names, rows) = pipeline_values(geometry, "float_motion=motion_force_zero=true", &frames);
    assert_eq!(names, ["motion2_force_0", "motion3_force_0", "motion_force_0"]);
    assert_eq!(rows, vec![vec![0.0; 3]; frames.len()]);
    assert_no_validation_messages();
}

#[test]
fn bad_input_is_refused() {
    let ctx = test_context();
    let five = filter_taps(5);
    let three = filter_taps(3);
    assert!(FloatMotionKernel::new(&ctx, 2, 100, 8, five, false).is_err());
    assert!(FloatMotionKernel::new(&ctx, 100, 2, 8, five, false).is_err());
    assert!(FloatMotionKernel::new(&ctx, 2, 2, 8, three, true).is_ok());
    assert!(FloatMotionKernel::new(&ctx, 1, 5, 8, three, false).is_err());
    assert!(FloatMotionKernel::new(&ctx, 2, 2, 8, filter_taps(1), false).is_err());
    for bpc in [7, 9, 14, 17] {
        assert!(FloatMotionKernel::new(&ctx, 16, 16, bpc, five, false).is_err(), "{bpc} bits");
    }
    let mut set = FeatureSet::new();
    for spec in [
        "float_motion=motion_filter_size=10",
        "float_motion=motion_fps_weight=5.5",
        "float_motion=motion_max_val=-1",
        "float_motion=motion_add_uv=maybe",
        "float_motion=nonsense=1",
    ] {
        assert!(set.add_spec(spec).is_err(), "{spec}");
    }
    // 4:0:0 has no chroma for motion_add_uv (libvmaf's init: EINVAL).
    set.add_spec("float_motion=motion_add_uv=true").unwrap();
    let mono = Geometry {
        width: 16,
        height: 16,
        format: PixelFormat { chroma: ChromaFormat::Mono, bit_depth: 8 },
    };
    assert!(ScorePipeline::new(&ctx, mono, &set).is_err());
    assert_no_validation_messages();
}
