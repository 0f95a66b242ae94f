//! The GPU `psnr_hvs` kernels against the CPU twin
//! (`psnr_hvs::block_terms`, `psnr_hvs::plane_sum`): random frame pairs of
//! random odd sizes at 8, 10 and 12 bits in 4:2:0, 4:2:2 and 4:4:4 (libvmaf
//! refuses 4:0:0 and deeper input). Every block's 64 terms and every
//! plane's float sum must equal the twin's bit for bit, at every subgroup
//! size lavapipe offers; and the kernel refuses what the twin refuses.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::psnr_hvs::gpu::PsnrHvsKernel;
use vqscope_metrics::features::psnr_hvs::{
    COEFFS, STEP, Tables, block_terms, blocks_along, plane_sum,
};
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

/// Runs the kernel on one frame pair; returns the result words and the
/// terms buffer's floats.
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
    // A non-zero offset and poison around the slots, so a kernel that
    // ignores the offset or writes too much fails.
    let (offset, n) = (2u32, PsnrHvsKernel::RESULT_WORDS);
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
    let (base, count) = kernel.terms_range(2);
    let terms_len = u64::from(base + count) * 4;
    let terms = download_buffer(ctx, submitter, kernel.terms_buffer(), terms_len).unwrap();
    let terms = terms.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    (words[offset as usize..(offset + n) as usize].to_vec(), terms)
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
