//! Integer ADM on the GPU against its exact CPU twin: random frame pairs of
//! random (odd, small to a few hundred samples) sizes at 8, 10, 12 and 16 bits,
//! with libvmaf's default and NEG gain limits and with every CSF mode (the
//! v1.0.16 models' blend at their viewing geometries, its MAE refit, and
//! Barten's CSF, whose fixed-point weights wrap); every one of the 36
//! integer sums must be equal. Run at every lavapipe subgroup size.

use std::sync::Arc;
use std::time::Duration;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, frame_ms, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, keep_busy, phase_medians};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::adm::csf::CsfMode;
use vqscope_metrics::features::adm::gpu::AdmKernel;
use vqscope_metrics::features::adm::{AdmFrameSums, AdmOptions, MIN_SIZE, adm_frame_sums};
use vqscope_metrics::testing::{multiscale_pair, poisoned_results};

/// The kernel's sums of one pair, from results written at an offset inside
/// a poisoned buffer (nothing may be written outside its words).
fn gpu_sums(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &AdmKernel,
    reference: &PlaneView,
    distorted: &PlaneView,
) -> AdmFrameSums {
    let (rb, rd) = upload_plane(ctx, submitter, reference).unwrap();
    let (db, dd) = upload_plane(ctx, submitter, distorted).unwrap();
    let words = poisoned_results(ctx, submitter, AdmKernel::RESULT_WORDS, |rec, results, at| {
        let r = DevicePlane { buffer: &rb, desc: rd };
        let d = DevicePlane { buffer: &db, desc: dd };
        kernel.record(rec, &r, &d, results, at)
    });
    AdmKernel::decode(&words)
}

#[test]
fn gpu_adm_sums_equal_cpu_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_adm_sums_equal_cpu_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Fixed corner cases first (smallest sizes, odd and even), then random.
    let mut cases: Vec<(usize, usize)> =
        vec![(MIN_SIZE, MIN_SIZE), (MIN_SIZE + 1, MIN_SIZE + 2), (64, 36)];
    while cases.len() < 20 {
        let w = MIN_SIZE + rng.below(300) as usize;
        let h = MIN_SIZE + rng.below(200) as usize;
        cases.push((w, h));
    }
    let mut compared = 0;
    for (i, &(w, h)) in cases.iter().enumerate() {
        // At 16 bits libvmaf's int32 level-0 sums wrap; the twin and the
        // kernel wrap as it does.
        let bpc = [8, 10, 12, 16][i % 4];
        let options = if i % 3 == 1 { AdmOptions::neg() } else { AdmOptions::default() };
        let kernel = AdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        for _ in 0..2 {
            let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
            let rp = PlaneView::packed(w, h, bpc, &r);
            let dp = PlaneView::packed(w, h, bpc, &d);
            let expected = adm_frame_sums(&rp, &dp, &options).unwrap();
            let got = gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp);
            assert_eq!(got, expected, "{w}x{h} at {bpc} bits, egl {}", options.enhn_gain_limit);
            compared += 1;
        }
    }
    println!("{compared} random frame pairs: GPU sums equal the twin's");
    assert_no_validation_messages();
}

/// A file's samples can exceed its bit depth (ffmpeg's `hqdn3d` writes
/// 65535 into 12-bit frames); libvmaf reads them as the 16-bit values they
/// are, and so must the kernels. Before, the transform's shared window held
/// them as int16, so 32768 and above turned negative (a 10-bit frame with
/// one 65535 sample: adm2 0.996507 against libvmaf's 0.981848).
#[test]
fn gpu_adm_takes_samples_past_the_bit_depth_as_the_twin_does() {
    if !at_every_lavapipe_subgroup_size("gpu_adm_takes_samples_past_the_bit_depth_as_the_twin_does")
    {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x005E_ED0F_AD15);
    for (i, (w, h)) in [(MIN_SIZE, MIN_SIZE + 3), (97, 61), (130, 64)].into_iter().enumerate() {
        let bpc = [10, 12, 10][i];
        let options = AdmOptions::default();
        let kernel = AdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        let (mut r, mut d) = multiscale_pair(&mut rng, w, h, bpc);
        for plane in [&mut r, &mut d] {
            for _ in 0..(w * h / 50).max(4) {
                let at = rng.below((w * h) as u64) as usize;
                plane[at] = if rng.below(2) == 0 { 65535 } else { rng.below(65536) as u16 };
            }
        }
        let rp = PlaneView::packed(w, h, bpc, &r);
        let dp = PlaneView::packed(w, h, bpc, &d);
        let expected = adm_frame_sums(&rp, &dp, &options).unwrap();
        let got = gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp);
        assert_eq!(got, expected, "{w}x{h} at {bpc} bits with samples past {bpc} bits");
    }
    assert_no_validation_messages();
}

/// The v1.0.16 models' ADM options at one viewing geometry.
fn v1(norm_view_dist: f64, ref_display_height: i32) -> AdmOptions {
    AdmOptions {
        enhn_gain_limit: 1.0,
        noise_weight: 0.02,
        dlm_weight: 0.7,
        min_val: 0.5,
        norm_view_dist,
        ref_display_height,
        csf_mode: CsfMode::BartenWatsonBlend,
        ..AdmOptions::default()
    }
}

#[test]
fn gpu_adm_csf_modes_equal_cpu_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_adm_csf_modes_equal_cpu_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x0C5F_2B1E_4D17_9A03);
    let modes = [
        v1(3.0, 1080),
        v1(3.0, 2160),
        v1(5.0, 1080),
        v1(1.5, 2160),
        AdmOptions { csf_mode: CsfMode::BartenWatsonBlendMae, ..v1(5.0, 720) },
        AdmOptions { csf_mode: CsfMode::BartenWatsonBlendMae, ..v1(5.0, 2160) },
        AdmOptions { csf_mode: CsfMode::Barten, ..AdmOptions::default() },
        AdmOptions {
            csf_mode: CsfMode::Barten,
            csf_scale: 0.3,
            csf_diag_scale: 2.5,
            norm_view_dist: 4.0,
            ..AdmOptions::neg()
        },
    ];
    for (i, options) in modes.iter().enumerate() {
        let w = MIN_SIZE + rng.below(260) as usize;
        let h = MIN_SIZE + rng.below(160) as usize;
        let bpc = [8, 10, 12][i % 3];
        let kernel = AdmKernel::new(&ctx, w as u32, h as u32, bpc, options).unwrap();
        let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
        let rp = PlaneView::packed(w, h, bpc, &r);
        let dp = PlaneView::packed(w, h, bpc, &d);
        let expected = adm_frame_sums(&rp, &dp, options).unwrap();
        let got = gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp);
        assert_eq!(got, expected, "{w}x{h} at {bpc} bits, {options:?}");
    }
    println!("{} CSF modes: GPU sums equal the twin's", modes.len());
    assert_no_validation_messages();
}

#[test]
fn gpu_adm_skip_options() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(42);
    let (w, h, bpc) = (97, 61, 10);
    let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
    let rp = PlaneView::packed(w, h, bpc, &r);
    let dp = PlaneView::packed(w, h, bpc, &d);
    for options in [
        AdmOptions { skip_aim: true, ..AdmOptions::default() },
        AdmOptions { skip_scale0: true, ..AdmOptions::default() },
        AdmOptions { norm_view_dist: 4.0, enhn_gain_limit: 1.5, ..AdmOptions::default() },
    ] {
        let kernel = AdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        let expected = adm_frame_sums(&rp, &dp, &options).unwrap();
        assert_eq!(gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp), expected, "{options:?}");
    }
    assert_no_validation_messages();
}

#[test]
fn gpu_adm_refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let o = AdmOptions::default();
    assert!(AdmKernel::new(&ctx, 32, 40, 8, &o).is_err());
    assert!(AdmKernel::new(&ctx, 40, 40, 7, &o).is_err());
    assert!(AdmKernel::new(&ctx, 40, 40, 17, &o).is_err());
    let near = AdmOptions { norm_view_dist: 2.0, ..o };
    assert!(AdmKernel::new(&ctx, 40, 40, 8, &near).is_err());
    // The blend CSFs exist only at tabulated viewing geometries.
    let untabulated = AdmOptions { norm_view_dist: 4.0, ..v1(3.0, 1080) };
    assert!(AdmKernel::new(&ctx, 40, 40, 8, &untabulated).is_err());
    assert_no_validation_messages();
}

/// Median ms of each of [`AdmKernel::PROFILE_PHASES`], every dispatch alone
/// (serialised), over 16 frames in one submission.
fn phase_ms(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &AdmKernel,
    r: &DevicePlane,
    d: &DevicePlane,
) -> Vec<f64> {
    let results = Buffer::storage(ctx, "profiled results", 8 * 36).unwrap();
    phase_medians(ctx, submitter, AdmKernel::PROFILE_PHASES.len(), 16, |rec, stamps| {
        kernel.record_profiled(rec, r, d, &results, 0, stamps)
    })
    .unwrap()
}

/// Warm GPU time of a frame's ADM (ignored: run `--ignored gpu_adm_timing
/// --nocapture` on the GPU machine): median of 32 frames in one submission,
/// then each dispatch alone, for 4K 8-bit, 4K 10-bit and 1080p 8-bit random
/// pairs. The timed kernel's sums must still equal the twin's.
#[test]
#[ignore = "timing; run on the GPU machine"]
fn gpu_adm_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5eed_00ad);
    let options = AdmOptions::default();
    for (w, h, bpc) in [(3840usize, 2160usize, 8u32), (3840, 2160, 10), (1920, 1080, 8)] {
        let (r, d) = multiscale_pair(&mut rng, w, h, bpc);
        let (rp, dp) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        let (rb, rd) = upload_plane(&ctx, &mut submitter, &rp).unwrap();
        let (db, dd) = upload_plane(&ctx, &mut submitter, &dp).unwrap();
        let (rv, dv) =
            (DevicePlane { buffer: &rb, desc: rd }, DevicePlane { buffer: &db, desc: dd });
        let kernel = AdmKernel::new(&ctx, w as u32, h as u32, bpc, &options).unwrap();
        let results = Buffer::storage(&ctx, "timed results", 8 * 36).unwrap();
        // An idle H200 sits at 345 MHz: time it warm.
        keep_busy(&mut submitter, Duration::from_millis(300), |rec| {
            kernel.record(rec, &rv, &dv, &results, 0)
        })
        .unwrap();
        let (mid, lo, hi) =
            frame_ms(&ctx, &mut submitter, 32, |rec| kernel.record(rec, &rv, &dv, &results, 0));
        eprintln!(
            "adm {w}x{h} {bpc}-bit: median {mid:.4} ms (min {lo:.4}, max {hi:.4}), warm, 32 frames"
        );
        let phases = phase_ms(&ctx, &mut submitter, &kernel, &rv, &dv);
        let line: Vec<String> = AdmKernel::PROFILE_PHASES
            .iter()
            .zip(&phases)
            .map(|(name, ms)| format!("{name} {ms:.4}"))
            .collect();
        let total: f64 = phases.iter().sum();
        eprintln!(
            "adm {w}x{h} {bpc}-bit per dispatch (ms, serialised, sum {total:.4}): {}",
            line.join(", ")
        );
        let expected = adm_frame_sums(&rp, &dp, &options).unwrap();
        assert_eq!(gpu_sums(&ctx, &mut submitter, &kernel, &rp, &dp), expected, "{w}x{h}");
    }
    assert_no_validation_messages();
}
