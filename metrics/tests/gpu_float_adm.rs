//! Float ADM on the GPU against its exact CPU twin: random frame pairs of
//! random (odd, small to a few hundred samples) sizes at 8, 10, 12 and 16
//! bits, with default and non-default options (gain limit, CSF modes,
//! bypassed masking, skipped levels); every one of the 36 float sums must
//! be bit-identical. Run at every lavapipe subgroup size.

use std::sync::Arc;
use std::time::Duration;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, frame_ms, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, keep_busy};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::float_adm::gpu::FloatAdmKernel;
use vqscope_metrics::features::float_adm::{FloatAdmOptions, FrameSums, MIN_SIZE, frame_sums};
use vqscope_metrics::testing::{multiscale_pair, poisoned_results};

/// The kernel's sums of one pair, from results written at an offset inside
/// a poisoned buffer (nothing may be written outside its words).
fn gpu_sums(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &FloatAdmKernel,
    reference: &PlaneView,
    distorted: &PlaneView,
) -> FrameSums {
    let (rb, rd) = upload_plane(ctx, submitter, reference).unwrap();
    let (db, dd) = upload_plane(ctx, submitter, distorted).unwrap();
    let words =
        poisoned_results(ctx, submitter, FloatAdmKernel::RESULT_WORDS, |rec, results, at| {
            let r = DevicePlane { buffer: &rb, desc: rd };
            let d = DevicePlane { buffer: &db, desc: dd };
            kernel.record(rec, &r, &d, results, at)
        });
    FloatAdmKernel::decode(&words)
}

/// Bit equality of every sum (so a NaN on either side fails too). On a
/// device that flushes 32-bit denormals (`flushes`: the H200, which offers
/// no `DenormPreserve` for them; see docs/FIDELITY.md) a sum of denormal
/// terms reads zero: such a sum (below 1e-30, where the denominator's noise
/// floor is about 1e-1) may differ, and nothing else.
fn assert_same(got: &FrameSums, want: &FrameSums, what: &str, flushes: bool) {
    for (s, (g, w)) in got.levels.iter().zip(&want.levels).enumerate() {
        for (name, a, b) in [("num", g.num, w.num), ("aim", g.aim, w.aim), ("den", g.den, w.den)] {
            let flushed = |k: usize| flushes && a[k] == 0.0 && b[k].abs() < 1e-30;
            let a = std::array::from_fn::<_, 3, _>(|k| if flushed(k) { b[k] } else { a[k] });
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{what}: level {s} {name}");
        }
    }
}

/// Option sets the random cases cycle through.
fn option_sets() -> Vec<FloatAdmOptions> {
    let d = FloatAdmOptions::default();
    vec![
        d,
        FloatAdmOptions { enhn_gain_limit: 1.0, ..d },
        FloatAdmOptions { csf_mode: 1, csf_scale: 1.5, ..d },
        FloatAdmOptions { csf_mode: 2, norm_view_dist: 5.0, ref_display_height: 2160, ..d },
        FloatAdmOptions { bypass_cm: true, enhn_gain_limit: 1.3, ..d },
        FloatAdmOptions { skip_scale0: true, skip_aim_scale: 2, f1: [-1.0, 0.2, -1.0, 3.0], ..d },
    ]
}

#[test]
fn gpu_float_adm_sums_equal_cpu_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_float_adm_sums_equal_cpu_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x0F1A_7ADB_5EED_0001);
    let mut cases: Vec<(usize, usize)> =
        vec![(MIN_SIZE, MIN_SIZE), (MIN_SIZE + 1, MIN_SIZE + 4), (64, 36), (33, 17)];
    while cases.len() < 16 {
        let w = MIN_SIZE + rng.below(300) as usize;
        let h = MIN_SIZE + rng.below(200) as usize;
        cases.push((w, h));
    }
    let sets = option_sets();
    let flushes = !ctx.info().denormal_preserving_widths.contains(&32)
        && !ctx.info().name.contains("llvmpipe");
    let mut compared = 0;
    for (i, &(w, h)) in cases.iter().enumerate() {
        let bpc = [8, 10, 12, 16][i % 4];
        let options = sets[i % sets.len()];
        let kernel = FloatAdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        for _ in 0..2 {
            let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
            let rp = PlaneView::packed(w, h, bpc, &r);
            let dp = PlaneView::packed(w, h, bpc, &d);
            let want = frame_sums(&rp, &dp, &options).unwrap();
            let got = gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp);
            assert_same(&got, &want, &format!("{w}x{h} at {bpc} bits, {options:?}"), flushes);
            compared += 1;
        }
    }
    println!("{compared} random frame pairs: GPU sums equal the twin's bit for bit");
    assert_no_validation_messages();
}

#[test]
fn gpu_float_adm_refuses_what_it_cannot_compute() {
    let ctx = test_context();
    let o = FloatAdmOptions::default();
    assert!(FloatAdmKernel::new(&ctx, 16, 40, 8, &o).is_err());
    assert!(FloatAdmKernel::new(&ctx, 40, 40, 9, &o).is_err());
    let p4 = FloatAdmOptions { p_norm: 4.0, ..o };
    assert!(FloatAdmKernel::new(&ctx, 40, 40, 8, &p4).is_err());
    let bad = FloatAdmOptions { enhn_gain_limit: 0.5, ..o };
    assert!(FloatAdmKernel::new(&ctx, 40, 40, 8, &bad).is_err());
    assert_no_validation_messages();
}

/// Warm GPU time of a frame's float ADM (ignored: run `--ignored
/// gpu_float_adm_timing --nocapture` on the GPU machine): median of 32
/// frames in one submission, for 4K and 1080p 8-bit random pairs. The timed
/// kernel's sums must still equal the twin's.
#[test]
#[ignore = "timing; run on the GPU machine"]
fn gpu_float_adm_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5eed_f1ad);
    let options = FloatAdmOptions::default();
    for (w, h, bpc) in [(3840usize, 2160usize, 8u32), (1920, 1080, 8)] {
        let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
        let (rp, dp) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        let (rb, rd) = upload_plane(&ctx, &mut submitter, &rp).unwrap();
        let (db, dd) = upload_plane(&ctx, &mut submitter, &dp).unwrap();
        let (rv, dv) =
            (DevicePlane { buffer: &rb, desc: rd }, DevicePlane { buffer: &db, desc: dd });
        let kernel = FloatAdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        let results = Buffer::storage(&ctx, "timed results", 8 * 36).unwrap();
        keep_busy(&mut submitter, Duration::from_millis(300), |rec| {
            kernel.record(rec, &rv, &dv, &results, 0)
        })
        .unwrap();
        let (mid, lo, hi) =
            frame_ms(&ctx, &mut submitter, 32, |rec| kernel.record(rec, &rv, &dv, &results, 0));
        eprintln!("float_adm {w}x{h} {bpc}-bit: median {mid:.4} ms (min {lo:.4}, max {hi:.4})");
        let want = frame_sums(&rp, &dp, &options).unwrap();
        assert_same(&gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp), &want, "timed", false);
    }
    assert_no_validation_messages();
}
