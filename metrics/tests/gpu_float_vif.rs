//! Float VIF on the GPU against its exact CPU twin
//! (`float_vif::frame_sums`): random frames of random odd sizes (down to the
//! 16 × 16 minimum) at 8, 10, 12 and 16 bits, with the default options,
//! the NEG gain limit, other noise variances, scale 0 skipped and the
//! kernel scales that change every filter's width, must give the same eight
//! `f32` sums bit for bit — at every subgroup size lavapipe offers. Every
//! per-pixel value and libvmaf's float summation order must match for that:
//! a single pixel's last bit or a sum in another order shows. Expected
//! values come only from the CPU twin.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, frame_ms, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, GpuError, Submitter};
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::float_vif::gpu::FloatVifKernel;
use vqscope_metrics::features::float_vif::{FloatVifOptions, FloatVifSums, features, frame_sums};
use vqscope_metrics::testing::{UploadedPair, poisoned_pair_results, upload_strided};
use vqscope_metrics::{MetricsError, PlaneView};

const WORDS: usize = FloatVifKernel::RESULT_WORDS as usize;

/// A reference/distorted pair with flat blocks (the noise-only branch),
/// texture and edges (the log branch), full-range extremes, and a
/// distortion that is noise, a blur-like average, an inversion (negative
/// σ12) or a contrast boost (where the gain limit matters).
fn frame_pair(rng: &mut Rng, w: usize, h: usize, bpc: u32) -> (Vec<u16>, Vec<u16>) {
    let maxv = (1u64 << bpc) - 1;
    let (fx, fy) = (1 + rng.below(7) as usize, 1 + rng.below(5) as usize);
    let noise = 1 + rng.below(maxv / 8 + 1);
    let mut r = vec![0u16; w * h];
    for y in 0..h {
        for x in 0..w {
            let v = match ((x / 12) + (y / 9)) % 4 {
                0 => maxv / 3,
                1 => ((x * fx * 37 + y * fy * 11) as u64) % (maxv + 1),
                2 => rng.below(maxv + 1),
                _ if (x / 3 + y / 2) % 2 == 0 => 0,
                _ => maxv,
            };
            r[y * w + x] = v.saturating_add(rng.below(noise)).min(maxv) as u16;
        }
    }
    let mode = rng.below(4);
    let d = (0..w * h)
        .map(|i| {
            let s = r[i] as i64;
            let m = maxv as i64;
            let v = match mode {
                0 => s + rng.below(2 * noise + 1) as i64 - noise as i64,
                1 => (s + r[(i + 1) % (w * h)] as i64 + 1) / 2,
                2 => m - s,
                _ => 2 * s - m / 2 + rng.below(3) as i64 - 1,
            };
            v.clamp(0, m) as u16
        })
        .collect();
    (r, d)
}

/// Runs the pairs through one kernel in one command buffer (so the reuse of
/// its intermediates across frames is exercised), each frame's results at
/// its own offset inside a poisoned buffer.
fn gpu_sums(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &FloatVifKernel,
    planes: &[UploadedPair],
) -> Vec<FloatVifSums> {
    let words = poisoned_pair_results(ctx, submitter, planes, WORDS, |rec, r, d, results, at| {
        kernel.record(rec, r, d, results, at)
    });
    words.iter().map(|w| kernel.decode(w)).collect()
}

/// One configuration: `frames` random pairs of `w × h` at `bpc`, checked
/// against the CPU twin bit for bit.
fn check_case(
    ctx: &Arc<GpuContext>,
    rng: &mut Rng,
    (w, h, bpc): (usize, usize, u32),
    opts: FloatVifOptions,
    frames: usize,
) {
    let mut submitter = Submitter::new(ctx, 1).unwrap();
    let kernel = FloatVifKernel::new(ctx, w as u32, h as u32, bpc, &opts).unwrap();
    let mut samples = Vec::new();
    let mut planes = Vec::new();
    for f in 0..frames {
        let (r, d) = frame_pair(rng, w, h, bpc);
        let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        // Every other frame: planes at an offset with a padded stride.
        let (ro, rs, d_o, ds) = if f % 2 == 1 { (12, w + 3, 4, w + 1) } else { (0, w, 0, w) };
        let (rb, rd) = upload_strided(ctx, &mut submitter, &rv, ro, rs);
        let (db, dd) = upload_strided(ctx, &mut submitter, &dv, d_o, ds);
        planes.push((rb, rd, db, dd));
        samples.push((r, d));
    }
    let got = gpu_sums(ctx, &mut submitter, &kernel, &planes);
    for (f, ((r, d), g)) in samples.iter().zip(&got).enumerate() {
        let (rv, dv) = (PlaneView::packed(w, h, bpc, r), PlaneView::packed(w, h, bpc, d));
        let want = frame_sums(&rv, &dv, &opts).unwrap();
        // Bits, so that NaN and the sign of zero count too.
        let bits = |s: &FloatVifSums| (s.num.map(f32::to_bits), s.den.map(f32::to_bits));
        assert_eq!(bits(g), bits(&want), "{w}x{h} {bpc}-bit {opts:?} frame {f}: {g:?} vs {want:?}");
        assert_eq!(g.skip_scale0, want.skip_scale0);
    }
}

#[test]
fn gpu_float_vif_equals_cpu_twin_on_random_frames() {
    if !at_every_lavapipe_subgroup_size("gpu_float_vif_equals_cpu_twin_on_random_frames") {
        return;
    }
    let mut rng = Rng(0x5eed_f1f0);
    let def = FloatVifOptions::default();
    let neg = FloatVifOptions { enhn_gain_limit: 1.0, ..def };
    let skip = FloatVifOptions { skip_scale0: true, ..def };
    let nsq = FloatVifOptions { sigma_nsq: 0.7, enhn_gain_limit: 3.5, ..def };
    let ks = |k: f64| FloatVifOptions { kernelscale: k, ..def };
    // Fixed corner cases first: the minimum size, odd sizes where every
    // halving drops a column, sizes just past a tile edge, the widest
    // filters (kernel scale 360/97: 65 taps at scale 0) and the narrowest.
    let mut cases = vec![
        (16, 16, 8, def, 2),
        (17, 16, 10, neg, 1),
        (16, 19, 12, def, 1),
        (33, 17, 16, skip, 1),
        (65, 49, 10, def, 2),
        (129, 31, 12, nsq, 1),
        (97, 71, 8, ks(360.0 / 97.0), 1),
        (41, 23, 10, ks(0.5), 1),
        (75, 57, 8, ks(1.5), 1),
        (120, 80, 16, ks(3.0), 1),
        // No noise variance: flat pixels divide 0 by 0.
        (47, 35, 8, FloatVifOptions { sigma_nsq: 0.0, ..def }, 1),
        // Wider frames: several statistics tiles a row at every scale (112
        // columns at scale 0), the last one partial, and tall enough for
        // tiles whose windows lie wholly inside the frame.
        (481, 43, 8, def, 1),
        (250, 37, 10, nsq, 1),
    ];
    // Then random sizes, depths and options.
    for _ in 0..6 {
        let w = 40 + rng.below(200) as usize;
        let h = 40 + rng.below(120) as usize;
        let bpc = [8, 10, 12, 16][rng.below(4) as usize];
        let opts = [def, neg, skip, nsq, ks(2.0 / 3.0), ks(4.0 / 3.0)][rng.below(6) as usize];
        cases.push((w | 1, h | 1, bpc, opts, 2));
    }
    let ctx = test_context();
    let mut frames = 0;
    for (w, h, bpc, opts, n) in cases {
        check_case(&ctx, &mut rng, (w, h, bpc), opts, n);
        frames += n;
    }
    eprintln!("gpu float_vif: {frames} random frames equal to the CPU twin");
    assert_no_validation_messages();
}

#[test]
fn gpu_float_vif_refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let new =
        |w, h, bpc, opts: FloatVifOptions| FloatVifKernel::new(&ctx, w, h, bpc, &opts).map(|_| ());
    let def = FloatVifOptions::default();
    assert!(matches!(new(15, 16, 8, def), Err(MetricsError::FrameTooSmall { .. })));
    assert!(matches!(new(16, 15, 8, def), Err(MetricsError::FrameTooSmall { .. })));
    // The widest filters need larger frames.
    let wide = FloatVifOptions { kernelscale: 3.0, ..def };
    assert!(matches!(new(30, 30, 8, wide), Err(MetricsError::FrameTooSmall { .. })));
    for bpc in [7, 9, 14, 17] {
        assert!(matches!(new(16, 16, bpc, def), Err(MetricsError::OptionOutOfRange { .. })));
    }
    for bad in [
        FloatVifOptions { enhn_gain_limit: 0.5, ..def },
        FloatVifOptions { enhn_gain_limit: f64::NAN, ..def },
        FloatVifOptions { kernelscale: 1.2, ..def },
        FloatVifOptions { kernelscale: 4.0, ..def },
        FloatVifOptions { prescale: 2.0, ..def },
        FloatVifOptions { sigma_nsq: -1.0, ..def },
        FloatVifOptions { min_val: [0.0, 0.0, 2.0], ..def },
    ] {
        assert!(
            matches!(new(64, 64, 8, bad), Err(MetricsError::FloatOptionOutOfRange { .. })),
            "{bad:?}"
        );
    }
    assert!(new(16, 16, 8, def).is_ok());

    // Planes of another size than the kernel's are refused at record time.
    let kernel = FloatVifKernel::new(&ctx, 32, 32, 8, &def).unwrap();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let s = vec![0u16; 32 * 33];
    let (b, desc) = upload_plane(&ctx, &mut submitter, &PlaneView::packed(32, 33, 8, &s)).unwrap();
    let results = Buffer::storage(&ctx, "results", 8 * 8).unwrap();
    let plane = DevicePlane { buffer: &b, desc };
    let err = submitter.run(|rec| kernel.record(rec, &plane, &plane, &results, 0));
    assert!(matches!(err, Err(GpuError::Usage(_))), "{err:?}");
    assert_no_validation_messages();
}

/// The decoded sums turn into libvmaf's values through the twin's host
/// code, with skip_scale0 carried by the kernel.
#[test]
fn gpu_float_vif_decode_keeps_skip_scale0() {
    let ctx = test_context();
    let opts = FloatVifOptions { skip_scale0: true, ..FloatVifOptions::default() };
    let kernel = FloatVifKernel::new(&ctx, 16, 16, 8, &opts).unwrap();
    let words: Vec<i64> = (0..8).map(|i| f64::to_bits(f64::from(i / 2 + 1)) as i64).collect();
    let sums = kernel.decode(&words);
    assert!(sums.skip_scale0);
    let f = features(&sums, &opts);
    assert_eq!(&f[..4], &[0.0, 1.0, 1.0, 1.0]);
    assert_eq!(&f[7..9], &[0.0, -1.0]);
}

/// Device time of one frame (`cargo test --test gpu_float_vif -- --ignored
/// --nocapture` on the machine to measure): GPU timestamps around
/// [`FloatVifKernel::record`], median of 32 frames after a warm-up, at 1080p
/// and 4K 8-bit.
#[test]
#[ignore = "timing; run on the GPU machine"]
fn gpu_float_vif_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5eed_f1f1);
    for (w, h, bpc) in [(1920usize, 1080usize, 8u32), (3840, 2160, 8), (3840, 2160, 10)] {
        let opts = FloatVifOptions::default();
        let kernel = FloatVifKernel::new(&ctx, w as u32, h as u32, bpc, &opts).unwrap();
        let (r, d) = frame_pair(&mut rng, w, h, bpc);
        let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
        let (rb, rd) = upload_strided(&ctx, &mut submitter, &rv, 0, w);
        let (db, dd) = upload_strided(&ctx, &mut submitter, &dv, 0, w);
        let results = Buffer::storage(&ctx, "results", 8 * 8).unwrap();
        let (r, d) = (DevicePlane { buffer: &rb, desc: rd }, DevicePlane { buffer: &db, desc: dd });
        for _ in 0..3 {
            submitter
                .run(|rec| {
                    for _ in 0..32 {
                        kernel.record(rec, &r, &d, &results, 0)?;
                    }
                    Ok(())
                })
                .unwrap();
        }
        let (median, min, max) =
            frame_ms(&ctx, &mut submitter, 32, |rec| kernel.record(rec, &r, &d, &results, 0));
        println!("float_vif {w}x{h} {bpc}-bit: {median:.4} ms (min {min:.4}, max {max:.4})");
    }
}
