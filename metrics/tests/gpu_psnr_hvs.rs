//! The GPU `psnr_hvs` kernels against the CPU twin
//! (`psnr_hvs::block_terms`, `psnr_hvs::plane_sum`): random frame pairs of
//! random odd sizes at 8, 10 and 12 bits in 4:2:0, 4:2:2 and 4:4:4 (libvmaf
//! refuses 4:0:0 and deeper input). Every block's 64 terms and every
//! plane's float sum must equal the twin's bit for bit, at every subgroup
//! size lavapipe offers; and the kernel refuses what the twin refuses.
//! The scanned float sum alone (`PlaneSum`) against plain sequential float
//! additions on term sequences built to hit its corner cases.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::psnr_hvs::gpu::{PlaneSum, PsnrHvsKernel, SumJob};
use vqscope_metrics::features::psnr_hvs::{
    COEFFS, STEP, Tables, block_terms, blocks_along, plane_sum,
};
use vqscope_metrics::testing::poisoned_results;
use vqscope_video::{ChromaFormat, Geometry, PixelFormat};

/// Content that exercises every branch: noise (masking high), smooth ramps,
/// flat areas (zero block variance) with rare outliers, hard edges.
fn random_plane(rng: &mut Rng, width: usize, height: usize, bpc: u32) -> Vec<u16> {
    let max = (1u64 << bpc) - 1;
    let style = rng.below(4);
    let (fx, fy) = (rng.below(7) + 1, rng.below(5) + 1);
    let base = rng.below(max + 1);
    let mut samples = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let v = match style {
                0 => rng.below(max + 1),
                1 => (base + x as u64 * fx + y as u64 * fy + rng.below(4)) % (max + 1),
                2 if rng.below(200) == 0 => rng.below(max + 1),
                2 => base,
                _ if (x / 5 + y / 3) % 2 == 0 => max,
                _ => rng.below(3),
            };
            samples.push(v as u16);
        }
    }
    samples
}

/// A copy of `plane` nudged at random, as a distorted frame is: sometimes
/// barely (many masked-out coefficients), sometimes by the full range.
fn nudged(rng: &mut Rng, plane: &[u16], bpc: u32) -> Vec<u16> {
    let max = (1i64 << bpc) - 1;
    let amount = [0, 1, 4, 40, max][rng.below(5) as usize];
    plane
        .iter()
        .map(|&s| {
            let d = rng.below(2 * amount as u64 + 1) as i64 - amount;
            (i64::from(s) + d).clamp(0, max) as u16
        })
        .collect()
}

fn geometry(width: u32, height: u32, chroma: ChromaFormat, bpc: u32) -> Geometry {
    Geometry { width, height, format: PixelFormat { chroma, bit_depth: bpc } }
}

/// Runs the kernel on one frame pair, its results inside poison; returns
/// the result words and the terms buffer's floats.
fn gpu_run(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &PsnrHvsKernel,
    reference: &[PlaneView; 3],
    distorted: &[PlaneView; 3],
) -> (Vec<i64>, Vec<f32>) {
    let up = |submitter: &mut Submitter, v: &PlaneView| upload_plane(ctx, submitter, v).unwrap();
    let r: Vec<_> = reference.iter().map(|v| up(submitter, v)).collect();
    let d: Vec<_> = distorted.iter().map(|v| up(submitter, v)).collect();
    let rp: Vec<DevicePlane> =
        r.iter().map(|(b, desc)| DevicePlane { buffer: b, desc: *desc }).collect();
    let dp: Vec<DevicePlane> =
        d.iter().map(|(b, desc)| DevicePlane { buffer: b, desc: *desc }).collect();
    let words =
        poisoned_results(ctx, submitter, PsnrHvsKernel::RESULT_WORDS, |rec, results, at| {
            kernel.record(rec, &rp, &dp, results, at, None)
        });
    let (base, count) = kernel.terms_range(2);
    let terms_len = u64::from(base + count) * 4;
    let terms = download_buffer(ctx, submitter, kernel.terms_buffer(), terms_len).unwrap();
    let terms = terms.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    (words, terms)
}

#[test]
fn psnr_hvs_terms_and_sums_match_twin() {
    if !at_every_lavapipe_subgroup_size("psnr_hvs_terms_and_sums_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5EED_0715);
    let mut frames = 0;
    for bpc in [8, 10, 12] {
        for chroma in [ChromaFormat::Yuv420, ChromaFormat::Yuv422, ChromaFormat::Yuv444] {
            // The smallest 4:2:0 frame (chroma 8x8), one block exactly, then
            // random odd sizes.
            let mut sizes = vec![(576, 324), (15, 15), (8, 8), (71, 9)];
            sizes.extend((0..2).map(|_| (rng.odd(15, 161), rng.odd(15, 121))));
            for (w, h) in sizes {
                let g = geometry(w as u32, h as u32, chroma, bpc);
                let Ok(kernel) = PsnrHvsKernel::new(&ctx, &g) else {
                    // 8x8 luma leaves 4x4 chroma in 4:2:0 / 4:2:2.
                    assert!(chroma != ChromaFormat::Yuv444, "{w}x{h} refused");
                    continue;
                };
                let size = |p: usize| {
                    let (pw, ph) = g.plane_size(p);
                    (pw as usize, ph as usize)
                };
                let r: Vec<Vec<u16>> =
                    (0..3).map(|p| random_plane(&mut rng, size(p).0, size(p).1, bpc)).collect();
                let d: Vec<Vec<u16>> = r.iter().map(|s| nudged(&mut rng, s, bpc)).collect();
                let rv: [PlaneView; 3] = std::array::from_fn(|p| {
                    let (pw, ph) = size(p);
                    PlaneView::packed(pw, ph, bpc, &r[p])
                });
                let dv: [PlaneView; 3] = std::array::from_fn(|p| {
                    let (pw, ph) = size(p);
                    PlaneView::packed(pw, ph, bpc, &d[p])
                });
                let (words, terms) = gpu_run(&ctx, &mut submitter, &kernel, &rv, &dv);
                let sums = PsnrHvsKernel::decode_sums(&words);
                for p in 0..3 {
                    let what = format!("{w}x{h} {chroma:?} {bpc} bits plane {p}");
                    let tables = Tables::libvmaf(p);
                    let (base, count) = kernel.terms_range(p);
                    let (pw, ph) = size(p);
                    let (bx, by) = (blocks_along(pw), blocks_along(ph));
                    assert_eq!(count as usize, bx * by * COEFFS, "{what}: term count");
                    for b in 0..bx * by {
                        let want =
                            block_terms(&rv[p], &dv[p], b % bx * STEP, b / bx * STEP, &tables);
                        let at = base as usize + b * COEFFS;
                        let got = &terms[at..at + COEFFS];
                        let same = got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits());
                        assert!(same, "{what} block {b}: {got:?} vs twin {want:?}");
                    }
                    let want = plane_sum(&rv[p], &dv[p], p).unwrap();
                    assert_eq!(
                        sums[p].to_bits(),
                        want.to_bits(),
                        "{what}: sum {} vs {want}",
                        sums[p]
                    );
                }
                frames += 1;
            }
        }
    }
    let info = ctx.info();
    println!(
        "psnr_hvs: {frames} random frame pairs equal to the twin on {} (subgroup size {})",
        info.name, info.subgroup_size
    );
    assert_no_validation_messages();
}

#[test]
fn psnr_hvs_kernel_refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let refused = [
        geometry(64, 64, ChromaFormat::Mono, 8),
        geometry(64, 64, ChromaFormat::Yuv420, 16),
        geometry(14, 64, ChromaFormat::Yuv420, 8),
        geometry(64, 7, ChromaFormat::Yuv444, 10),
    ];
    for g in refused {
        assert!(PsnrHvsKernel::new(&ctx, &g).is_err(), "{g:?} accepted");
    }
    let registry = vqscope_metrics::features::find("psnr_hvs").unwrap();
    assert!(registry.options().is_empty(), "libvmaf's psnr_hvs has no options");
    assert_no_validation_messages();
}

/// What libvmaf does with a plane's terms: one float, added to in order.
fn sequential_sum(terms: &[f32]) -> f32 {
    let mut sum = 0f32;
    for &t in terms {
        sum += t;
    }
    sum
}

/// A float from raw exponent field and mantissa bits.
fn float_of(field: u64, mantissa: u64) -> f32 {
    f32::from_bits(((field as u32) << 23) | (mantissa as u32 & 0x7f_ffff))
}

/// Term sequences that stress the scanned sum: ties to even at every
/// grid, terms far above and far below the running sum, long runs that
/// round away, zeros, subnormals, sums crossing many binades or reaching
/// infinity, and lengths around the window (16384) and lavapipe's loop
/// limit (65535).
fn adversarial_sequences(rng: &mut Rng) -> Vec<(&'static str, Vec<f32>)> {
    let mut seqs: Vec<(&'static str, Vec<f32>)> = Vec::new();
    let pick = |rng: &mut Rng, set: &[f32]| set[rng.below(set.len() as u64) as usize];
    // From 2^24 (grid 2), then 4, 8: halves, one-and-a-halves of the grid.
    let mut ties = vec![16_777_216.0f32];
    ties.extend((0..70_001).map(|_| pick(rng, &[1.0, 3.0, 0.5, 1.5, 2.0, 0.0, 6.0, 0.25])));
    seqs.push(("ties", ties));
    // Ties from the very start, in the subnormal grid and just above it.
    seqs.push(("subnormal ties", (0..40_000).map(|_| float_of(0, 1 + rng.below(3))).collect()));
    seqs.push((
        "subnormals",
        (0..300_007).map(|_| float_of(rng.below(2), rng.next_u64())).collect(),
    ));
    seqs.push((
        "magnitudes",
        (0..100_003).map(|_| float_of(rng.below(201), rng.next_u64())).collect(),
    ));
    // A big sum, then terms below half its grid (0.0625 at 1e6), exactly
    // half and just above, in long runs.
    let mut tiny = vec![1.0e6f32];
    for &t in &[0.03f32, 0.031_25, 0.031_250_004, 0.03, 0.093_75, 0.031_25] {
        let run = 20_000 + rng.below(30_000) as usize;
        tiny.extend(std::iter::repeat_n(t, run));
    }
    seqs.push(("tiny runs", tiny));
    let zeros = (0..70_000)
        .map(|_| match rng.below(1000) {
            0 => rng.below(1000) as f32 * 0.37,
            1 => -0.0,
            _ => 0.0,
        })
        .collect();
    seqs.push(("zeros", zeros));
    // Growing terms: the sum crosses some 70 binades.
    seqs.push((
        "binades",
        (0..100_000)
            .map(|i| (1e-30f64 * 1.0005f64.powi(i) * (1.0 + rng.below(1000) as f64 / 999.0)) as f32)
            .collect(),
    ));
    // Powers of two far above the sum (9 to 30 binades: their units on the
    // sum's grid overflow 32 bits), each followed by a few terms an eighth
    // of it, which leave a missed power visible in the end.
    let mut jumps = Vec::new();
    let mut field = 4u64;
    while field < 240 {
        jumps.push(float_of(field, 0));
        jumps.extend((0..rng.below(40)).map(|_| float_of(field - 3, rng.next_u64())));
        field += 9 + rng.below(22);
    }
    seqs.push(("jumps", jumps));
    // Ones: crossings exactly at every power of two.
    seqs.push(("ones", vec![1.0; 70_000]));
    seqs.push(("overflow", vec![3.0e38, 1.0, 3.0e38, 5.0, 1.0e30, 0.0]));
    // psnr_hvs-like: squares of CSF-weighted errors, mostly masked to 0.
    seqs.push((
        "psnr_hvs-like",
        (0..200_003)
            .map(|_| {
                let e = if rng.below(3) == 0 { 0.0 } else { rng.below(1 << 20) as f32 / 4096.0 };
                let w = e * pick(rng, &[1.0, 0.9, 0.3, 0.05, 1.3]);
                w * w
            })
            .collect(),
    ));
    for len in [0usize, 1, 63, 16_384, 16_385, 65_537] {
        seqs.push(("length", (0..len).map(|_| rng.below(1 << 16) as f32 * 0.125).collect()));
    }
    seqs
}

/// The GPU sums of `seqs`, recorded together in one terms buffer, each at
/// an odd offset and followed by a large float the sum must not take in.
fn gpu_sums(seqs: &[(&str, Vec<f32>)]) -> Vec<f32> {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut all = vec![7.0f32];
    let mut jobs = Vec::new();
    for (i, (_, seq)) in seqs.iter().enumerate() {
        jobs.push(SumJob {
            term_base: all.len() as u32,
            term_count: seq.len() as u32,
            out_word: i as u32,
        });
        all.extend(seq);
        all.push(1.0e20);
    }
    let bytes: Vec<u8> = all.iter().flat_map(|t| t.to_le_bytes()).collect();
    let terms = upload_buffer(&ctx, &mut submitter, "test terms", &bytes).unwrap();
    let len = jobs.len() as u64 * 8;
    let results = Buffer::storage(&ctx, "test results", len).unwrap();
    let summer = PlaneSum::new(&ctx, jobs.len(), all.len() as u64).unwrap();
    submitter.run(|rec| summer.record(rec, &terms, &jobs, &results)).unwrap();
    let words = download_buffer(&ctx, &mut submitter, &results, len).unwrap();
    let sums = words
        .chunks_exact(8)
        .map(|w| f32::from_bits(u32::from_le_bytes(w[..4].try_into().unwrap())))
        .collect();
    assert_no_validation_messages();
    sums
}

#[test]
fn psnr_hvs_sum_equals_sequential_float_additions() {
    if !at_every_lavapipe_subgroup_size("psnr_hvs_sum_equals_sequential_float_additions") {
        return;
    }
    let mut rng = Rng(0x5CA1_AB1E);
    let seqs = adversarial_sequences(&mut rng);
    let got = gpu_sums(&seqs);
    for ((what, seq), got) in seqs.iter().zip(got) {
        let want = sequential_sum(seq);
        assert_eq!(got.to_bits(), want.to_bits(), "{what} ({} terms): {got} vs {want}", seq.len());
    }
    // The sequences do reach what they are meant to.
    let sums: Vec<f32> = seqs.iter().map(|(_, s)| sequential_sum(s)).collect();
    assert!(sums[2] > f32::MIN_POSITIVE, "subnormals stay subnormal");
    assert!(sums.iter().any(|s| s.is_infinite()), "no overflow");
    println!("psnr_hvs sum: {} sequences equal to sequential float additions", seqs.len());
}

/// Terms of one window of the spread sum (`PlaneSum`): 256 chunks of 64.
const WINDOW: usize = 16_384;

/// `n` terms that a float sum at `sum` (below 2^24) does not take in but a
/// double sum does: just below half of its last place.
fn lost_terms(sum: f32, n: usize) -> impl Iterator<Item = f32> {
    let half_ulp = (f32::from_bits(sum.to_bits() + 1) - sum) / 2.0;
    std::iter::repeat_n(half_ulp * 0.96, n)
}

/// Sequences aimed at the spread sum's passes: crossings on the first and
/// last term of a window, and mid-window, in late windows; a float sum so
/// far below the double estimate of pass 2 that its candidate grids miss
/// for over three hundred windows (more rounds than one pass-3
/// dispatch runs); zeros over many windows; huge terms and an infinity late.
fn spread_sequences(rng: &mut Rng) -> Vec<(&'static str, Vec<f32>)> {
    let mut seqs: Vec<(&'static str, Vec<f32>)> = Vec::new();
    // Ones reach 2^14, 2^15, 2^16 on the last term of windows 0, 1, 3; one
    // zero first moves that to the first term of windows 1, 2, 4.
    seqs.push(("ones", vec![1.0; 4 * WINDOW + 5]));
    let mut shifted = vec![0.0f32];
    shifted.extend(std::iter::repeat_n(1.0f32, 4 * WINDOW + 5));
    seqs.push(("shifted ones", shifted));
    // From 1000 the ones cross 1024, 2048, ... mid-window.
    let mut offset = vec![1000.0f32];
    offset.extend(std::iter::repeat_n(1.0f32, 6 * WINDOW));
    seqs.push(("offset ones", offset));
    // Zero for windows, then a crossing from 0 on a window's first term.
    let mut zeros = vec![0.0f32; 3 * WINDOW];
    zeros.extend((0..WINDOW).map(|_| rng.below(1 << 12) as f32 * 0.25));
    seqs.push(("zeros, then terms", zeros));
    seqs.push(("all zeros", vec![0.0; 5 * WINDOW + 17]));
    // Just below 2^20 the float sum ignores terms just below half its last
    // place, which the double totals count: the estimate soon lies above
    // 2^20 (its grid's lower neighbour still a candidate), then far above
    // it (both candidates miss) for over 300 windows, more rounds than one
    // pass-3 dispatch runs. Eleven terms there, the last one last, count on
    // the true grid but not on the candidates (0.05: 0.8 of its 1/16, 0.4
    // of the next grid's 1/8).
    let start = 1_048_575.0f32;
    let mut stuck = vec![start];
    stuck.extend(lost_terms(start, 6_000_000));
    for k in 0..10 {
        stuck[40 * WINDOW + k * 500_000 + 1] = 0.05;
    }
    *stuck.last_mut().unwrap() = 0.05;
    seqs.push(("stuck below 2^20", stuck));
    // Just above 2^20 by the estimate only, for three windows.
    let mut above = vec![start];
    above.extend(lost_terms(start, 3 * WINDOW));
    seqs.push(("estimate above 2^20", above));
    // Typical terms over many windows with huge ones late: one that
    // crosses into the top binades mid-window, then two that overflow.
    let typical = |rng: &mut Rng| {
        let e = if rng.below(3) == 0 { 0.0 } else { rng.below(1 << 20) as f32 / 4096.0 };
        e * e
    };
    let mut huge: Vec<f32> = (0..12 * WINDOW).map(|_| typical(rng)).collect();
    huge[5 * WINDOW + 777] = 1.0e38;
    seqs.push(("huge", huge.clone()));
    huge[9 * WINDOW + 4321] = 3.0e38;
    huge[10 * WINDOW] = 3.0e38;
    seqs.push(("huge, overflowing", huge.clone()));
    let mut infinite: Vec<f32> = (0..7 * WINDOW).map(|_| typical(rng)).collect();
    infinite[4 * WINDOW + 100] = f32::INFINITY;
    seqs.push(("infinity", infinite));
    // psnr_hvs-like over many windows.
    seqs.push(("typical", (0..40 * WINDOW + 999).map(|_| typical(rng)).collect()));
    seqs
}

#[test]
fn psnr_hvs_sum_spread_over_windows_is_exact() {
    if !at_every_lavapipe_subgroup_size("psnr_hvs_sum_spread_over_windows_is_exact") {
        return;
    }
    let mut rng = Rng(0x0005_93AD);
    let mut seqs = spread_sequences(&mut rng);
    // A NaN term counts as 2^128 (as an infinity does): the sum becomes and
    // stays +infinity, where float additions would give NaN.
    let mut nan: Vec<f32> = (0..3 * WINDOW).map(|i| (i % 97) as f32).collect();
    nan[2 * WINDOW + 5] = f32::NAN;
    seqs.push(("NaN", nan));
    let got = gpu_sums(&seqs);
    for ((what, seq), got) in seqs.iter().zip(got) {
        let want = if *what == "NaN" { f32::INFINITY } else { sequential_sum(seq) };
        assert_eq!(got.to_bits(), want.to_bits(), "{what} ({} terms): {got} vs {want}", seq.len());
    }
    // The sequences do reach what they are meant to: the stuck sum stays
    // below 2^20 while the double sum lies above 2^20 · 1.02 for over 300
    // windows; the huge sums end in the top binade and at infinity.
    let find = |name: &str| &seqs.iter().find(|(n, _)| *n == name).unwrap().1;
    let stuck = find("stuck below 2^20");
    let (mut float, mut double, mut far) = (0f32, 0f64, 0);
    for (i, &t) in stuck.iter().enumerate() {
        if i % WINDOW == 0 && float < 1_048_576.0 && double > 1_048_576.0 * 1.02 {
            far += 1;
        }
        float += t;
        double += f64::from(t);
    }
    assert!(far > 300 && float < 1_048_576.0, "{far} windows far off");
    assert!(sequential_sum(find("huge")) >= 1.0e38);
    assert!(sequential_sum(find("huge, overflowing")).is_infinite());
    println!("psnr_hvs spread sum: {} sequences exact", seqs.len());
}

#[test]
#[ignore = "timing; run on a real GPU (or lavapipe, slowly)"]
fn psnr_hvs_sum_timing_4k() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x4_0000);
    let g = geometry(3840, 2160, ChromaFormat::Yuv420, 10);
    let mut all = Vec::new();
    let jobs: Vec<SumJob> = (0..3)
        .map(|p| {
            let (w, h) = g.plane_size(p);
            let count = blocks_along(w as usize) * blocks_along(h as usize) * COEFFS;
            let base = all.len() as u32;
            all.extend((0..count).map(|_| {
                let e = if rng.below(3) == 0 { 0.0 } else { rng.below(1 << 16) as f32 / 4096.0 };
                e * e
            }));
            SumJob { term_base: base, term_count: count as u32, out_word: p as u32 }
        })
        .collect();
    let bytes: Vec<u8> = all.iter().flat_map(|t| t.to_le_bytes()).collect();
    let terms = upload_buffer(&ctx, &mut submitter, "timing terms", &bytes).unwrap();
    let results = Buffer::storage(&ctx, "timing results", 24).unwrap();
    let summer = PlaneSum::new(&ctx, 3, all.len() as u64).unwrap();
    let (median, min, max) = vqscope_gpu::testing::frame_ms(&ctx, &mut submitter, 20, |rec| {
        rec.barrier();
        summer.record(rec, &terms, &jobs, &results)
    });
    let words = download_buffer(&ctx, &mut submitter, &results, 24).unwrap();
    for (p, job) in jobs.iter().enumerate() {
        let got = u32::from_le_bytes(words[p * 8..p * 8 + 4].try_into().unwrap());
        let seq = &all[job.term_base as usize..(job.term_base + job.term_count) as usize];
        assert_eq!(got, sequential_sum(seq).to_bits(), "plane {p}");
    }
    println!(
        "psnr_hvs sum of a 3840x2160 4:2:0 frame ({} terms) on {}: median {median:.3} ms \
         (min {min:.3}, max {max:.3})",
        all.len(),
        ctx.info().name
    );
}

/// The whole kernel (blocks and sums) on a 4K frame pair: with
/// `psnr_hvs_sum_timing_4k`, what the block pass costs.
#[test]
#[ignore = "timing; run on a real GPU (or lavapipe, slowly)"]
fn psnr_hvs_kernel_timing_4k() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x4_0001);
    let g = geometry(3840, 2160, ChromaFormat::Yuv420, 10);
    let kernel = PsnrHvsKernel::new(&ctx, &g).unwrap();
    let size = |p: usize| {
        let (w, h) = g.plane_size(p);
        (w as usize, h as usize)
    };
    let r: Vec<Vec<u16>> =
        (0..3).map(|p| random_plane(&mut rng, size(p).0, size(p).1, 10)).collect();
    let d: Vec<Vec<u16>> = r.iter().map(|s| nudged(&mut rng, s, 10)).collect();
    let rv: [PlaneView; 3] =
        std::array::from_fn(|p| PlaneView::packed(size(p).0, size(p).1, 10, &r[p]));
    let dv: [PlaneView; 3] =
        std::array::from_fn(|p| PlaneView::packed(size(p).0, size(p).1, 10, &d[p]));
    let up = |submitter: &mut Submitter, v: &PlaneView| upload_plane(&ctx, submitter, v).unwrap();
    let ru: Vec<_> = rv.iter().map(|v| up(&mut submitter, v)).collect();
    let du: Vec<_> = dv.iter().map(|v| up(&mut submitter, v)).collect();
    let rp: Vec<DevicePlane> =
        ru.iter().map(|(b, desc)| DevicePlane { buffer: b, desc: *desc }).collect();
    let dp: Vec<DevicePlane> =
        du.iter().map(|(b, desc)| DevicePlane { buffer: b, desc: *desc }).collect();
    let results = Buffer::storage(&ctx, "timing results", 24).unwrap();
    let (median, min, max) = vqscope_gpu::testing::frame_ms(&ctx, &mut submitter, 20, |rec| {
        rec.barrier();
        kernel.record(rec, &rp, &dp, &results, 0, None)
    });
    let words = download_buffer(&ctx, &mut submitter, &results, 24).unwrap();
    let words: Vec<i64> =
        words.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    let sums = PsnrHvsKernel::decode_sums(&words);
    for p in 0..3 {
        let want = plane_sum(&rv[p], &dv[p], p).unwrap();
        assert_eq!(sums[p].to_bits(), want.to_bits(), "plane {p}: {} vs {want}", sums[p]);
    }
    println!(
        "psnr_hvs kernel (blocks and sums) on a 3840x2160 4:2:0 10-bit frame pair on {}: \
         median {median:.3} ms (min {min:.3}, max {max:.3})",
        ctx.info().name
    );
}
