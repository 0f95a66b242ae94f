//! The GPU motion, PSNR and float_moment kernels against their CPU twins
//! (`motion::motion_sad`, `psnr::plane_sse`, `float_moment::moment_sums`):
//! random frames of random odd
//! sizes at 8, 10 and 12 bits, PSNR in every chroma layout, planes at odd
//! offsets and strides in shared buffers, rows wide enough to wrap libvmaf's
//! `u32` row sums — every GPU sum must equal the twin's exactly, at every
//! subgroup size lavapipe offers.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{GpuContext, Submitter};
use vqscope_metrics::device::DevicePlane;
use vqscope_metrics::features::float_moment::gpu::MomentKernel;
use vqscope_metrics::features::float_moment::moment_sums;
use vqscope_metrics::features::motion::gpu::MotionKernel;
use vqscope_metrics::features::motion::motion_sad;
use vqscope_metrics::features::psnr::gpu::PsnrKernel;
use vqscope_metrics::features::psnr::{ChromaLayout, plane_sse};
use vqscope_metrics::testing::{HostPlane, nudged, poisoned_results, random_plane, upload_planes};

fn gpu_sad(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    prev: &HostPlane,
    cur: &HostPlane,
) -> u64 {
    let kernel = MotionKernel::new(ctx, prev.width as u32, prev.height as u32, prev.bpc).unwrap();
    let (buffer, descs) = upload_planes(ctx, submitter, rng, &[prev, cur]);
    let words = poisoned_results(ctx, submitter, MotionKernel::RESULT_WORDS, |rec, results, at| {
        let prev = DevicePlane { buffer: &buffer, desc: descs[0] };
        let cur = DevicePlane { buffer: &buffer, desc: descs[1] };
        kernel.record(rec, prev, cur, results, at)
    });
    MotionKernel::decode(&words)
}

/// Every sum the moment kernel reads back, at 8, 10, 12 and 16 bits (where
/// a square rounds to 24 bits), random sizes, odd strides and offsets.
#[test]
fn moment_sums_match_twin() {
    if !at_every_lavapipe_subgroup_size("moment_sums_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_0003);
    for bpc in [8, 10, 12, 16] {
        let mut sizes = vec![(1, 1), (257, 3), (64, 65)];
        sizes.extend((0..4).map(|_| (rng.odd(1, 401), rng.odd(1, 301))));
        for (w, h) in sizes {
            let r = random_plane(&mut rng, w, h, bpc);
            let d = nudged(&mut rng, &r, [1, 4, 40]);
            let want = moment_sums(&r.view(), &d.view()).unwrap();
            let kernel = MomentKernel::new(&ctx, w as u32, h as u32, bpc).unwrap();
            let (buffer, descs) = upload_planes(&ctx, &mut submitter, &mut rng, &[&r, &d]);
            let n = MomentKernel::RESULT_WORDS;
            let words = poisoned_results(&ctx, &mut submitter, n, |rec, out, at| {
                let rp = DevicePlane { buffer: &buffer, desc: descs[0] };
                let dp = DevicePlane { buffer: &buffer, desc: descs[1] };
                kernel.record(rec, &rp, &dp, out, at)
            });
            assert_eq!(MomentKernel::decode(&words), want, "moments {w}x{h} at {bpc} bits");
        }
    }
    assert_no_validation_messages();
}

#[test]
fn motion_sad_matches_twin() {
    if !at_every_lavapipe_subgroup_size("motion_sad_matches_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_0001);
    let mut frames = 0;
    for bpc in [8, 10, 12] {
        // The smallest size the twin accepts, tile edges, then random ones.
        let mut sizes = vec![(3, 3), (65, 17), (63, 15)];
        sizes.extend((0..5).map(|_| (rng.odd(3, 301), rng.odd(3, 201))));
        for (w, h) in sizes {
            let prev = random_plane(&mut rng, w, h, bpc);
            let cur = nudged(&mut rng, &prev, [1, 4, 40]);
            let want = motion_sad(&prev.view(), &cur.view()).unwrap();
            let got = gpu_sad(&ctx, &mut submitter, &mut rng, &prev, &cur);
            assert_eq!(got, want, "motion SAD {w}x{h} at {bpc} bits");
            frames += 1;
        }
    }
    let info = ctx.info();
    println!(
        "motion: {frames} random frame pairs equal to the twin on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

/// libvmaf sums a row's `|val|` in a `u32`: a 70 000-sample row of maximal
/// blurred differences (65 280 each) wraps it, and the GPU must wrap alike.
#[test]
fn motion_row_sums_wrap_like_libvmaf() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(7);
    let (w, h) = (70_001, 3);
    let prev = HostPlane { width: w, height: h, stride: w, bpc: 8, samples: vec![255; w * h] };
    let mut cur = HostPlane { samples: vec![0; w * h], ..prev };
    cur.samples[w + 12_345] = 255;
    let want = motion_sad(&prev.view(), &cur.view()).unwrap();
    let unwrapped: u64 = 3 * 70_001 * 65_280;
    assert_ne!(want, unwrapped, "the row sums must wrap for this test to mean anything");
    assert_eq!(gpu_sad(&ctx, &mut submitter, &mut rng, &prev, &cur), want);
    assert_no_validation_messages();
}

fn layout_sizes(layout: ChromaLayout, w: usize, h: usize) -> Vec<(usize, usize)> {
    let chroma = match layout {
        ChromaLayout::Mono => return vec![(w, h)],
        ChromaLayout::Yuv420 => (w.div_ceil(2), h.div_ceil(2)),
        ChromaLayout::Yuv422 => (w.div_ceil(2), h),
        ChromaLayout::Yuv444 => (w, h),
    };
    vec![(w, h), chroma, chroma]
}

/// The GPU SSEs of `planes` scored planes of a frame pair (reference planes
/// in one buffer, distorted in another).
fn gpu_sse(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    kernel: &PsnrKernel,
    reference: &[HostPlane],
    distorted: &[HostPlane],
) -> [u64; 3] {
    let (rbuf, rdesc) = upload_planes(ctx, submitter, rng, &reference.iter().collect::<Vec<_>>());
    let (dbuf, ddesc) = upload_planes(ctx, submitter, rng, &distorted.iter().collect::<Vec<_>>());
    let words = poisoned_results(ctx, submitter, PsnrKernel::RESULT_WORDS, |rec, results, at| {
        let r: Vec<_> = rdesc.iter().map(|&desc| DevicePlane { buffer: &rbuf, desc }).collect();
        let d: Vec<_> = ddesc.iter().map(|&desc| DevicePlane { buffer: &dbuf, desc }).collect();
        kernel.record(rec, &r, &d, results, at)
    });
    PsnrKernel::decode(&words)
}

/// The twin's SSEs, 0 for slots without a plane.
fn cpu_sse(reference: &[HostPlane], distorted: &[HostPlane]) -> [u64; 3] {
    let mut out = [0; 3];
    for (i, (r, d)) in reference.iter().zip(distorted).enumerate() {
        out[i] = plane_sse(&r.view(), &d.view()).unwrap();
    }
    out
}

#[test]
fn psnr_sse_matches_twin() {
    if !at_every_lavapipe_subgroup_size("psnr_sse_matches_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_0002);
    let layouts =
        [ChromaLayout::Mono, ChromaLayout::Yuv420, ChromaLayout::Yuv422, ChromaLayout::Yuv444];
    let mut frames = 0;
    for bpc in [8, 10, 12] {
        for layout in layouts {
            for round in 0..2 {
                let (w, h) = if round == 0 && layout == ChromaLayout::Yuv420 {
                    (1, 1)
                } else {
                    (rng.odd(1, 301), rng.odd(1, 201))
                };
                let kernel = PsnrKernel::new(&ctx, w as u32, h as u32, bpc, layout).unwrap();
                let reference: Vec<HostPlane> = layout_sizes(layout, w, h)
                    .into_iter()
                    .map(|(pw, ph)| random_plane(&mut rng, pw, ph, bpc))
                    .collect();
                let distorted: Vec<HostPlane> =
                    reference.iter().map(|p| nudged(&mut rng, p, [1, 4, 40])).collect();
                let want = cpu_sse(&reference, &distorted);
                let got = gpu_sse(&ctx, &mut submitter, &mut rng, &kernel, &reference, &distorted);
                assert_eq!(got, want, "PSNR SSE {w}x{h} {layout:?} at {bpc} bits");
                // Luma only (enable_chroma off): the chroma slots read 0.
                let luma = gpu_sse(
                    &ctx,
                    &mut submitter,
                    &mut rng,
                    &kernel,
                    &reference[..1],
                    &distorted[..1],
                );
                assert_eq!(luma, [want[0], 0, 0], "luma-only SSE {w}x{h} {layout:?}");
                frames += 1;
            }
        }
    }
    let info = ctx.info();
    println!(
        "psnr: {frames} random frame pairs equal to the twin on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

/// At 8 bits libvmaf sums a row's squares in a `u32` (wrapping beyond
/// 66 051 samples of 255² each); above 8 bits it does not wrap.
#[test]
fn psnr_row_sums_wrap_like_libvmaf() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(11);
    let (w, h) = (70_001, 2);
    for bpc in [8, 10] {
        let kernel = PsnrKernel::new(&ctx, w as u32, h as u32, bpc, ChromaLayout::Mono).unwrap();
        let max = ((1u32 << bpc) - 1) as u16;
        let r = HostPlane { width: w, height: h, stride: w, bpc, samples: vec![max; w * h] };
        let d = HostPlane { samples: vec![0; w * h], ..r };
        let want = cpu_sse(std::slice::from_ref(&r), std::slice::from_ref(&d));
        let got = gpu_sse(&ctx, &mut submitter, &mut rng, &kernel, &[r], &[d]);
        assert_eq!(got, want, "{bpc} bits");
    }
    assert_no_validation_messages();
}

#[test]
fn kernels_refuse_what_the_twins_refuse() {
    let ctx = test_context();
    assert!(MotionKernel::new(&ctx, 2, 100, 8).is_err());
    assert!(MotionKernel::new(&ctx, 100, 2, 8).is_err());
    assert!(MotionKernel::new(&ctx, 100, 100, 7).is_err());
    assert!(MotionKernel::new(&ctx, 3, 3, 16).is_ok());
    assert!(PsnrKernel::new(&ctx, 0, 4, 8, ChromaLayout::Yuv420).is_err());
    assert!(PsnrKernel::new(&ctx, 4, 4, 17, ChromaLayout::Yuv420).is_err());
    assert_no_validation_messages();
}
