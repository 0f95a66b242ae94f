//! The CAMBI kernels against the CPU twin (`features::cambi::Cambi`):
//! random frames of random sizes, 8 to 12 bits, under the option sets that
//! change what the kernels do (working-size decimation of both pictures,
//! the anti-dithering, the high-resolution speed-up, every contrast range,
//! both EOTFs, the luminance floor, windows and top-k fractions). Every
//! output must equal the twin's double bit for bit.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::cambi::gpu::CambiKernel;
use vqscope_metrics::features::cambi::{Cambi, CambiOptions, CambiScore, Eotf};

/// A plane with the structure CAMBI reacts to: flat areas, slow ramps that
/// step one code at a time (bands), noisy areas and hard edges, mixed by
/// region.
fn random_plane(rng: &mut Rng, width: usize, height: usize, bpc: u32) -> Vec<u16> {
    let max = (1u64 << bpc) - 1;
    let base = rng.below(max / 2 + 1);
    let (fx, fy) = (rng.below(40) + 8, rng.below(40) + 8);
    let (cx, cy) = (rng.below(width as u64) as usize, rng.below(height as u64) as usize);
    let noise = rng.below(3);
    let mut samples = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let ramp = base + (x as u64 / fx) + (y as u64 / fy);
            let v = match (x < cx, y < cy) {
                (true, true) => ramp,
                (false, true) => base + ((x + y) as u64 / fx) % 3,
                (true, false) if noise > 0 => ramp + rng.below(noise + 1),
                (true, false) => rng.below(max + 1),
                (false, false) if (x / 9 + y / 7) % 2 == 0 => base,
                (false, false) => base + 1 + rng.below(2),
            };
            samples.push(v.min(max) as u16);
        }
    }
    samples
}

/// The kernel's outputs for one frame pair, checking it writes exactly its
/// result slots.
fn gpu_score(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &CambiKernel,
    reference: &PlaneView,
    distorted: &PlaneView,
) -> CambiScore {
    let (r, rd) = upload_plane(ctx, submitter, reference).unwrap();
    let (d, dd) = upload_plane(ctx, submitter, distorted).unwrap();
    let (rp, dp) = (DevicePlane { buffer: &r, desc: rd }, DevicePlane { buffer: &d, desc: dd });
    let (offset, n) = (2u32, kernel.result_words());
    let len = u64::from(offset + n + 1) * 8;
    let results = Buffer::storage(ctx, "test results", len).unwrap();
    submitter
        .run(|rec| {
            rec.fill(&results, 0xDEAD_BEEF);
            rec.barrier();
            kernel.record(rec, &rp, &dp, &results, offset)
        })
        .unwrap();
    let bytes = download_buffer(ctx, submitter, &results, len).unwrap();
    let words: Vec<i64> =
        bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    let poison = i64::from_le_bytes([0xEF, 0xBE, 0xAD, 0xDE, 0xEF, 0xBE, 0xAD, 0xDE]);
    assert_eq!(words[..2], [poison, poison], "kernel wrote before its offset");
    assert_eq!(words[(offset + n) as usize], poison, "kernel wrote past its slots");
    kernel.decode(&words[offset as usize..(offset + n) as usize])
}

fn bits(s: &CambiScore) -> [Option<u64>; 3] {
    [Some(s.cambi.to_bits()), s.source.map(f64::to_bits), s.full_reference.map(f64::to_bits)]
}

/// An option set, named, with a frame size suited to it (`None`: a random
/// small size).
type Case = (&'static str, CambiOptions, Option<(usize, usize)>);

/// Option sets that change the kernels' work.
fn cases(rng: &mut Rng) -> Vec<Case> {
    let d = CambiOptions::default();
    let full = CambiOptions { full_ref: true, ..d };
    vec![
        ("defaults", d, None),
        ("full_ref", full, None),
        (
            "full_ref, decimated encode and source",
            CambiOptions {
                enc_width: 240,
                enc_height: 180,
                src_width: 320,
                src_height: 200,
                ..full
            },
            Some((rng.odd(330, 420), rng.odd(210, 260))),
        ),
        ("anti-dithering", CambiOptions { enc_bitdepth: 8, ..d }, None),
        (
            "pq, widest contrast, low tvi",
            CambiOptions { cambi_eotf: Eotf::Pq, max_log_contrast: 5, tvi_threshold: 0.01, ..d },
            None,
        ),
        (
            "eotf pq, one step, top quarter, largest window",
            CambiOptions { eotf: Eotf::Pq, max_log_contrast: 0, topk: 0.25, window_size: 127, ..d },
            None,
        ),
        (
            "luminance floor, cap, smallest window",
            CambiOptions {
                cambi_vis_lum_threshold: 1.5,
                cambi_max_val: 0.5,
                window_size: 15,
                cambi_topk: 0.9,
                ..full
            },
            None,
        ),
        ("top k = all", CambiOptions { topk: 1.0, max_log_contrast: 3, ..d }, None),
        ("top k = one", CambiOptions { topk: 0.0001, ..d }, None),
    ]
}

#[test]
fn cambi_kernels_match_twin() {
    if !at_every_lavapipe_subgroup_size("cambi_kernels_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xCA4B_1001);
    let mut frames = 0;
    let mut nonzero = 0;
    for bpc in [8, 10, 12] {
        for (what, options, size) in cases(&mut rng) {
            let (w, h) = size.unwrap_or_else(|| {
                if rng.below(2) == 0 {
                    (rng.odd(216, 300), rng.odd(40, 200))
                } else {
                    (rng.odd(60, 200), rng.odd(216, 260))
                }
            });
            let what = format!("{what}: {w}x{h} at {bpc} bits");
            let cambi = Cambi::new(&options, w, h, bpc).unwrap_or_else(|e| panic!("{what}: {e}"));
            let kernel = CambiKernel::new(&ctx, &cambi).unwrap();
            let r = random_plane(&mut rng, w, h, bpc);
            let d = random_plane(&mut rng, w, h, bpc);
            let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
            let want = cambi.score(&dv, &rv).unwrap();
            let got = gpu_score(&ctx, &mut submitter, &kernel, &rv, &dv);
            assert_eq!(bits(&got), bits(&want), "{what}: GPU {got:?}, twin {want:?}");
            frames += 1;
            nonzero += usize::from(want.cambi > 0.0);
        }
    }
    assert!(nonzero * 2 > frames, "too few frames with banding: {nonzero} of {frames}");
    let info = ctx.info();
    println!(
        "cambi: {frames} random frames ({nonzero} banded) equal to the twin on {} (subgroup \
         size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

/// The high-resolution speed-up only starts at 1920x1080: one frame there.
#[test]
fn cambi_speedup_matches_twin() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xCA4B_1080);
    let options = CambiOptions {
        cambi_high_res_speedup: 1080,
        cambi_max_val: 17.0,
        cambi_vis_lum_threshold: 0.06,
        full_ref: true,
        ..Default::default()
    };
    let (w, h) = (1920, 1080);
    let cambi = Cambi::new(&options, w, h, 10).unwrap();
    assert_eq!(cambi.window(), 17, "the speed-up halves the window");
    let kernel = CambiKernel::new(&ctx, &cambi).unwrap();
    let r = random_plane(&mut rng, w, h, 10);
    let d = random_plane(&mut rng, w, h, 10);
    let (rv, dv) = (PlaneView::packed(w, h, 10, &r), PlaneView::packed(w, h, 10, &d));
    let want = cambi.score(&dv, &rv).unwrap();
    let got = gpu_score(&ctx, &mut submitter, &kernel, &rv, &dv);
    assert_eq!(bits(&got), bits(&want), "GPU {got:?}, twin {want:?}");
    assert!(want.cambi > 0.0, "no banding in the test frame");
    assert_no_validation_messages();
}

/// A 4K 10-bit frame at the defaults and with the v1 models' options, GPU
/// time per frame (the goal: ≤ 0.5 ms on an H200).
#[test]
#[ignore = "timing; run on a real GPU (or lavapipe, very slowly)"]
fn cambi_timing_4k() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xCA4B_4000);
    let (w, h) = (3840, 2160);
    let r = random_plane(&mut rng, w, h, 10);
    let d = random_plane(&mut rng, w, h, 10);
    let (rv, dv) = (PlaneView::packed(w, h, 10, &r), PlaneView::packed(w, h, 10, &d));
    let (ru, rd) = upload_plane(&ctx, &mut submitter, &rv).unwrap();
    let (du, dd) = upload_plane(&ctx, &mut submitter, &dv).unwrap();
    let (rp, dp) = (DevicePlane { buffer: &ru, desc: rd }, DevicePlane { buffer: &du, desc: dd });
    let v1 = CambiOptions {
        cambi_high_res_speedup: 1080,
        cambi_max_val: 17.0,
        cambi_vis_lum_threshold: 0.06,
        ..Default::default()
    };
    for (what, options) in [("defaults", CambiOptions::default()), ("v1 models' options", v1)] {
        let cambi = Cambi::new(&options, w, h, 10).unwrap();
        let kernel = CambiKernel::new(&ctx, &cambi).unwrap();
        let len = u64::from(kernel.result_words()) * 8;
        let results = Buffer::storage(&ctx, "timing results", len).unwrap();
        let (median, min, max) = vqscope_gpu::testing::frame_ms(&ctx, &mut submitter, 20, |rec| {
            rec.barrier();
            kernel.record(rec, &rp, &dp, &results, 0)
        });
        let bytes = download_buffer(&ctx, &mut submitter, &results, len).unwrap();
        let words: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        let got = kernel.decode(&words);
        let want = cambi.score(&dv, &rv).unwrap();
        assert_eq!(bits(&got), bits(&want), "{what}: GPU {got:?}, twin {want:?}");
        println!(
            "cambi ({what}) on a 3840x2160 10-bit frame on {}: median {median:.3} ms (min \
             {min:.3}, max {max:.3})",
            ctx.info().name
        );
    }
}
