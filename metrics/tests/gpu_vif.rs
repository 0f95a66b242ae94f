//! Integer VIF on the GPU against its exact CPU twin (`vif::frame_sums`):
//! random frames of random sizes (odd, down to the 16 × 16 minimum) at 8, 10
//! and 12 bits, with the default and NEG gain limits and with scale 0
//! skipped, must give the same sixteen integer sums — at every subgroup size
//! lavapipe offers. Expected values come only from the CPU twin.

use std::sync::Arc;

use vqscope_gpu::testing::{
    assert_no_validation_messages, at_every_lavapipe_subgroup_size, frame_ms, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, GpuError, Submitter, phase_medians};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, PlaneDesc, upload_plane};
use vqscope_metrics::features::vif::gpu::VifKernel;
use vqscope_metrics::features::vif::{VifFrameSums, VifOptions, frame_sums};
use vqscope_metrics::testing::{UploadedPair, poisoned_pair_results, upload_strided};
use vqscope_metrics::{MetricsError, features::vif};

const WORDS: usize = VifKernel::RESULT_WORDS as usize;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// A reference/distorted pair with flat blocks (VIF's flat branch), texture
/// and edges (the log branch), full-range extremes, and a distortion that is
/// noise, a blur-like average, or a contrast boost (where the gain limit
/// matters).
fn frame_pair(rng: &mut Rng, w: usize, h: usize, bpc: u32) -> (Vec<u16>, Vec<u16>) {
    let maxv = (1u32 << bpc) - 1;
    let (fx, fy) = (1 + rng.below(7) as usize, 1 + rng.below(5) as usize);
    let noise = 1 + rng.below(maxv / 8 + 1);
    let mut r = vec![0u16; w * h];
    for y in 0..h {
        for x in 0..w {
            let v = match ((x / 12) + (y / 9)) % 4 {
                0 => maxv / 3,
                1 => ((x * fx * 37 + y * fy * 11) as u32) % (maxv + 1),
                2 => rng.below(maxv + 1),
                _ if (x / 3 + y / 2) % 2 == 0 => 0,
                _ => maxv,
            };
            r[y * w + x] = v.saturating_add(rng.below(noise)).min(maxv) as u16;
        }
    }
    let mode = rng.below(3);
    let d = (0..w * h)
        .map(|i| {
            let s = i64::from(r[i]);
            let m = i64::from(maxv);
            let v = match mode {
                0 => s + i64::from(rng.below(2 * noise + 1)) - i64::from(noise),
                1 => (s + i64::from(r[(i + 1) % (w * h)]) + 1) / 2,
                _ => 2 * s - m / 2 + i64::from(rng.below(3)) - 1,
            };
            v.clamp(0, m) as u16
        })
        .collect();
    (r, d)
}

/// Runs `frames` pairs through one kernel in one command buffer (so the
/// reuse of its intermediates across frames is exercised), each frame's
/// results at its own offset inside a poisoned buffer.
fn gpu_sums(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &VifKernel,
    planes: &[UploadedPair],
) -> Vec<VifFrameSums> {
    let words = poisoned_pair_results(ctx, submitter, planes, WORDS, |rec, r, d, results, at| {
        kernel.record(rec, r, d, results, at)
    });
    words.iter().map(|w| kernel.decode(w)).collect()
}

/// One configuration: `frames` random pairs of `w × h` at `bpc`, checked
/// against the CPU twin.
fn check_case(
    ctx: &Arc<GpuContext>,
    rng: &mut Rng,
    (w, h, bpc): (usize, usize, u32),
    opts: VifOptions,
    frames: usize,
) {
    let ctx = ctx.clone();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let kernel = VifKernel::new(&ctx, w as u32, h as u32, bpc, opts).unwrap();
    let mut samples = Vec::new();
    let mut planes = Vec::new();
    for f in 0..frames {
        let (r, d) = frame_pair(rng, w, h, bpc);
        let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        // Every other frame: planes at an offset with a padded stride.
        let (rb, rd, db, dd) = if f % 2 == 1 {
            let (rb, rd) = upload_strided(&ctx, &mut submitter, &rv, 12, w + 3);
            let (db, dd) = upload_strided(&ctx, &mut submitter, &dv, 4, w + 1);
            (rb, rd, db, dd)
        } else {
            let (rb, rd) = upload_strided(&ctx, &mut submitter, &rv, 0, w);
            let (db, dd) = upload_strided(&ctx, &mut submitter, &dv, 0, w);
            (rb, rd, db, dd)
        };
        planes.push((rb, rd, db, dd));
        samples.push((r, d));
    }
    let got = gpu_sums(&ctx, &mut submitter, &kernel, &planes);
    for (f, ((r, d), g)) in samples.iter().zip(&got).enumerate() {
        let (rv, dv) = (PlaneView::packed(w, h, bpc, r), PlaneView::packed(w, h, bpc, d));
        let want = frame_sums(&rv, &dv, &opts).unwrap();
        assert_eq!(*g, want, "{w}x{h} {bpc}-bit {opts:?} frame {f}");
        // The flat branch and the log branch must both have run somewhere.
        assert!(want.scales[3].den_non_log > 0 || want.scales[3].den_log > 0);
    }
}

#[test]
fn gpu_vif_equals_cpu_twin_on_random_frames() {
    if !at_every_lavapipe_subgroup_size("gpu_vif_equals_cpu_twin_on_random_frames") {
        return;
    }
    let mut rng = Rng(0x5eed_0001);
    let neg = VifOptions::neg();
    let skip = VifOptions { skip_scale0: true, ..VifOptions::default() };
    let def = VifOptions::default();
    // Fixed corner cases first: the minimum size, odd sizes where every
    // scale's halving drops a column, a size just past a tile edge.
    let mut cases = vec![
        (16, 16, 8, def, 2),
        (17, 16, 10, neg, 1),
        (16, 19, 12, def, 1),
        (33, 17, 8, skip, 1),
        (65, 49, 10, def, 2),
        (129, 31, 12, neg, 1),
        // Rows whole words (width a multiple of 4 samples on the unpadded
        // frame) and tall enough for interior tiles: the kernels' direct
        // loads at scale 0 as well as the mirrored ones.
        (256, 72, 8, def, 2),
        (128, 80, 10, neg, 2),
    ];
    // Then random sizes, depths and options.
    for _ in 0..8 {
        let w = 16 + rng.below(300) as usize;
        let h = 16 + rng.below(180) as usize;
        let bpc = [8, 10, 12][rng.below(3) as usize];
        let opts = [def, neg, skip, def][rng.below(4) as usize];
        cases.push((w, h, bpc, opts, 2));
    }
    let ctx = test_context();
    let mut frames = 0;
    for (w, h, bpc, opts, n) in cases {
        check_case(&ctx, &mut rng, (w, h, bpc), opts, n);
        frames += n;
    }
    eprintln!("gpu vif: {frames} random frames equal to the CPU twin");
    assert_no_validation_messages();
}

/// The shader corrects the hardware's double quotient against the exact
/// remainder. lavapipe divides exactly, so the correction would never run
/// there, so the kernel is built with its quotient moved first: by 3 ulps
/// (the stepping path), and by 2^29 and 2^30 ulps (relative errors of ~1e-7,
/// the Newton path). Uncorrected, the large moves change the sums (checked
/// by hand: the log2 lookup drops low bits, so a few ulps alone rarely
/// show); corrected, every case must give the twin's sums.
#[test]
fn gpu_vif_division_correction_recovers_exact_quotient() {
    let mut rng = Rng(0x5eed_0002);
    let ctx = test_context();
    for (ulps, bpc, opts) in [
        (3, 10, VifOptions::default()),
        (-(1 << 29), 8, VifOptions::neg()),
        (1 << 30, 12, VifOptions::default()),
    ] {
        let (w, h) = (71, 45);
        let kernel = VifKernel::with_division_perturbation(&ctx, w, h, bpc, opts, ulps).unwrap();
        let mut submitter = Submitter::new(&ctx, 1).unwrap();
        let (r, d) = frame_pair(&mut rng, w as usize, h as usize, bpc);
        let (rv, dv) = (
            PlaneView::packed(w as usize, h as usize, bpc, &r),
            PlaneView::packed(w as usize, h as usize, bpc, &d),
        );
        let (rb, rd) = upload_strided(&ctx, &mut submitter, &rv, 0, w as usize);
        let (db, dd) = upload_strided(&ctx, &mut submitter, &dv, 0, w as usize);
        let got = gpu_sums(&ctx, &mut submitter, &kernel, &[(rb, rd, db, dd)]);
        assert_eq!(got[0], frame_sums(&rv, &dv, &opts).unwrap(), "perturbed by {ulps} ulps");
    }
    assert_no_validation_messages();
}

#[test]
fn gpu_vif_refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let new = |w, h, bpc, opts| VifKernel::new(&ctx, w, h, bpc, opts).map(|_| ());
    let def = VifOptions::default();
    assert!(matches!(new(15, 16, 8, def), Err(MetricsError::FrameTooSmall { .. })));
    assert!(matches!(new(16, 15, 8, def), Err(MetricsError::FrameTooSmall { .. })));
    assert!(matches!(new(16, 16, 7, def), Err(MetricsError::OptionOutOfRange { .. })));
    assert!(matches!(new(16, 16, 17, def), Err(MetricsError::OptionOutOfRange { .. })));
    for egl in [0.5, 100.5, f64::NAN] {
        let o = VifOptions { enhn_gain_limit: egl, ..def };
        assert!(matches!(new(16, 16, 8, o), Err(MetricsError::FloatOptionOutOfRange { .. })));
    }
    assert!(new(16, 16, 8, def).is_ok());

    // Planes of another size than the kernel's are refused at record time.
    let kernel = VifKernel::new(&ctx, 32, 32, 8, def).unwrap();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let s = vec![0u16; 32 * 33];
    let (b, desc) = upload_plane(&ctx, &mut submitter, &PlaneView::packed(32, 33, 8, &s)).unwrap();
    let results = Buffer::storage(&ctx, "results", 16 * 8).unwrap();
    let plane = DevicePlane { buffer: &b, desc };
    let err = submitter.run(|rec| kernel.record(rec, &plane, &plane, &results, 0));
    assert!(matches!(err, Err(GpuError::Usage(_))), "{err:?}");
    assert_no_validation_messages();
}

/// The decoded sums turn into libvmaf's values through the twin's host code,
/// with skip_scale0 carried by the kernel.
#[test]
fn gpu_vif_decode_keeps_skip_scale0() {
    let ctx = test_context();
    let opts = VifOptions { skip_scale0: true, ..VifOptions::default() };
    let kernel = VifKernel::new(&ctx, 16, 16, 8, opts).unwrap();
    let words: Vec<i64> = (0..16).map(|i| if i % 4 == 3 { 10 } else { 0 }).collect();
    let f = vif::features(&kernel.decode(&words));
    assert_eq!(f.scale, [0.0, 1.0, 1.0, 1.0]);
    assert_eq!(kernel.decode(&words).scales[2].den_non_log, 10);
}

/// GPU time of one frame through `kernel`, warm: the GPU first runs the
/// kernel back to back for a while (an idle H200 sits at 345 MHz and needs
/// sustained work to reach its boost clock), then `frame_ms` of 32 frames
/// (every `record` starts with a barrier). Returns the median, min and max
/// ms.
fn warm_frame_ms(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &VifKernel,
    planes: (&Buffer, PlaneDesc, &Buffer, PlaneDesc),
    results: &Buffer,
) -> (f64, f64, f64) {
    let (rb, rd, db, dd) = planes;
    let r = DevicePlane { buffer: rb, desc: rd };
    let d = DevicePlane { buffer: db, desc: dd };
    for _ in 0..3 {
        submitter
            .run(|rec| {
                for _ in 0..64 {
                    kernel.record(rec, &r, &d, results, 0)?;
                }
                Ok(())
            })
            .unwrap();
    }
    frame_ms(ctx, submitter, 32, |rec| kernel.record(rec, &r, &d, results, 0))
}

/// Device time of one frame (`cargo test --test gpu_vif -- --ignored
/// --nocapture` on the machine to measure): median of 20 timed frames after
/// a warm-up, GPU timestamps around [`VifKernel::record`], for 1080p 8-bit
/// and 4K 10-bit, with and without scale 0 (their difference is scale 0's
/// statistics kernel).
#[test]
#[ignore = "timing; run on the GPU machine"]
fn gpu_vif_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5eed_0003);
    // The random pairs put every scale-0 pixel in the log branch (the
    // double-precision gain); the flat 4K pair (a smooth ramp) puts none
    // there, which isolates the filters' cost. It runs last: on the H200 the
    // clock fell during it in every session, spoiling whatever came next.
    for (w, h, bpc, flat) in [
        (1920usize, 1080usize, 8u32, false),
        (3840, 2160, 8, false),
        (3840, 2160, 10, false),
        (3840, 2160, 8, true),
    ] {
        let tag = if flat { " flat" } else { "" };
        let (r, d) = if flat {
            let r: Vec<u16> = (0..w * h).map(|i| ((i % w) * 255 / w) as u16).collect();
            (r.clone(), r)
        } else {
            frame_pair(&mut rng, w, h, bpc)
        };
        let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        let (rb, rd) = upload_strided(&ctx, &mut submitter, &rv, 0, w);
        let (db, dd) = upload_strided(&ctx, &mut submitter, &dv, 0, w);
        let results = Buffer::storage(&ctx, "results", (WORDS * 8) as u64).unwrap();
        for opts in [VifOptions::default(), VifOptions { skip_scale0: true, ..Default::default() }]
        {
            let kernel = VifKernel::new(&ctx, w as u32, h as u32, bpc, opts).unwrap();
            let (mid, lo, hi) =
                warm_frame_ms(&ctx, &mut submitter, &kernel, (&rb, rd, &db, dd), &results);
            eprintln!(
                "vif {w}x{h} {bpc}-bit{tag} skip_scale0={}: median {mid:.3} ms (min {lo:.3}, \
                 max {hi:.3}), warm, 32 frames",
                opts.skip_scale0,
            );
        }
        // Each dispatch alone (serialised), 16 frames in one warm submission.
        let kernel = VifKernel::new(&ctx, w as u32, h as u32, bpc, VifOptions::default()).unwrap();
        warm_frame_ms(&ctx, &mut submitter, &kernel, (&rb, rd, &db, dd), &results);
        let (r, d) = (DevicePlane { buffer: &rb, desc: rd }, DevicePlane { buffer: &db, desc: dd });
        let phases = VifKernel::PROFILE_PHASES;
        let per_phase = phase_medians(&ctx, &mut submitter, phases.len(), 16, |rec, stamps| {
            kernel.record_profiled(rec, &r, &d, &results, 0, stamps)
        })
        .unwrap();
        let line: Vec<String> =
            phases.iter().zip(&per_phase).map(|(name, ms)| format!("{name} {ms:.4}")).collect();
        eprintln!("vif {w}x{h} {bpc}-bit{tag} per dispatch (ms, serialised): {}", line.join(", "));
        // The timed sums are right too.
        let got = gpu_sums(&ctx, &mut submitter, &kernel, &[(rb, rd, db, dd)]);
        let want = frame_sums(&rv, &dv, &VifOptions::default()).unwrap();
        assert_eq!(got[0], want);
        // Share of scale-0 pixels in the log branch (σ1² ≥ 2·65536), an upper
        // bound on those that take the double-precision gain.
        let flat_pixels = want.scales[0].den_non_log as f64;
        eprintln!(
            "vif {w}x{h} {bpc}-bit{tag}: {:.1}% of scale-0 pixels in the log branch",
            100.0 * (1.0 - flat_pixels / (w * h) as f64)
        );
    }
    assert_no_validation_messages();
}
