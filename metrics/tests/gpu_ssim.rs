//! `float_ssim` and `float_ms_ssim` on the GPU against their CPU twins, on
//! random frame pairs of random sizes (odd ones, the smallest each accepts,
//! sizes whose automatic pre-scale is 1, 2 and 3, explicit factors up to 10)
//! at 8, 10 and 12 bits, and for MS-SSIM a dot pattern whose coarser scales
//! hold negative samples:
//!
//! - every per-pixel SSIM map value is bit-identical to the twin's map;
//! - every MS-SSIM scale's float planes are bit-identical to the twin's
//!   `to_float_plane` / `downscale`;
//! - the pooled scores agree to 1e-9 (the twin sums in raster order, the GPU
//!   in a fixed tree: the double means differ by a few ulps, and they are
//!   rounded to float afterwards);
//! - the same input run twice gives the same bits (the reduction does not
//!   depend on scheduling);
//!
//! all at every lavapipe subgroup size.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, median, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, PlaneDesc, packed_desc, plane_bytes, upload_plane};
use vqscope_metrics::features::float_ms_ssim::gpu::MsSsimKernel;
use vqscope_metrics::features::float_ms_ssim::{MIN_SIZE, SCALES, downscale, float_ms_ssim};
use vqscope_metrics::features::float_ssim::gpu::SsimKernel;
use vqscope_metrics::features::float_ssim::{
    FloatPlane, SsimConstants, SsimOptions, box_kernel, decimate, float_ssim, float_ssim_with_map,
    gaussian_blur, pixel_lcs, prescale, products, to_float_plane,
};
use vqscope_metrics::testing::poisoned_results;

/// Bound on |GPU − twin| for pooled scores.
const POOLED_TOLERANCE: f64 = 1e-9;

/// A reference with gradients, an edge and noise, and a distorted version
/// from one of several modes: noisy, attenuated (low contrast), identical
/// (s and c exactly 1 in flat windows), or unrelated.
fn frame_pair(rng: &mut Rng, w: usize, h: usize, bpc: u32, mode: u64) -> (Vec<u16>, Vec<u16>) {
    let max = (1i64 << bpc) - 1;
    let scale = 1i64 << (bpc - 8);
    let (fx, fy) = (1 + rng.below(5) as i64, 1 + rng.below(4) as i64);
    let edge = rng.below(w as u64) as i64;
    // Some frames keep a flat band, where covariances round around zero.
    let flat_rows = rng.below(h as u64 / 2 + 1) as i64;
    let mut reference = Vec::with_capacity(w * h);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let v = if y < flat_rows {
                100
            } else {
                let wave = ((x * fx + y * fy) % 48 - 24) * 3;
                let step = if x < edge { 30 } else { -30 };
                128 + wave + step + rng.below(48) as i64 - 24
            };
            reference.push((v * scale + rng.below(scale as u64) as i64).clamp(0, max));
        }
    }
    let distorted: Vec<i64> = reference
        .iter()
        .map(|&r| {
            let n = rng.below(24 * scale as u64 + 1) as i64 - 12 * scale;
            let mid = 128 * scale;
            let d = match mode % 4 {
                0 => r + n,
                1 => mid + (r - mid) * 2 / 3 + n / 3,
                2 => r,
                _ => rng.below(max as u64 + 1) as i64,
            };
            d.clamp(0, max)
        })
        .collect();
    (
        reference.into_iter().map(|v| v as u16).collect(),
        distorted.into_iter().map(|v| v as u16).collect(),
    )
}

fn floats_of(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A NaN pattern written over a kernel's map or scale planes before a run
/// (its results get `testing::POISON`), so a value it leaves alone cannot pass.
const NAN_POISON: u32 = 0xFFC0_DEAD;

/// Both planes in one device buffer, behind some leading bytes, each padded
/// to whole 32-bit words (the shaders read words; `upload_plane` does not pad,
/// so an odd-sized 8- or 10-bit plane would lose its last samples to robust
/// out-of-bounds reads).
fn upload_pair(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    r: &PlaneView,
    d: &PlaneView,
) -> (Buffer, PlaneDesc, PlaneDesc) {
    let mut bytes = vec![0xA5u8; 8];
    let mut descs = Vec::new();
    for p in [r, d] {
        descs.push(packed_desc(p.width, p.height, p.bpc, bytes.len() as u32));
        bytes.extend(plane_bytes(p));
        bytes.resize(bytes.len().next_multiple_of(4), 0xA5);
    }
    let buffer = upload_buffer(ctx, submitter, "ssim test planes", &bytes).unwrap();
    (buffer, descs[0], descs[1])
}

/// The four means of one scale (l·c·s, l, c, s) exactly as the GPU adds
/// them, from the twin's per-pixel terms. Written from the reduction's
/// description, not from the shaders, so it pins the order of every
/// addition: per 32x16 map tile, thread (tx, ty) of 32x8 adds its pixels in
/// rows ty and ty + 8 (those inside the map) to 0.0; the tile's 256 values
/// fold in a tree where, for h = 128, 64, ..., 1, thread t < h adds thread
/// t + h's value to its own (t = 32 ty + tx), giving the tile's record;
/// records are numbered row of tiles by row; thread t of the fold adds
/// records t, t + 256, ... to 0.0 in turn, the same tree folds the 256
/// sums, and the total is divided by the map's pixel count.
fn tiled_means(a: &FloatPlane, b: &FloatPlane) -> [f64; 4] {
    let k = SsimConstants::libvmaf();
    let (mu1, mu2) = (gaussian_blur(a), gaussian_blur(b));
    let [xx, yy, xy] = products(a, b).map(|p| gaussian_blur(&p));
    let (mw, mh) = (mu1.width, mu1.height);
    let pixel = |x: usize, y: usize| {
        let i = y * mw + x;
        let t = pixel_lcs(mu1.data[i], mu2.data[i], xx.data[i], yy.data[i], xy.data[i], &k);
        [t.ssim(), t.l, t.c, t.s]
    };
    let tree = |mut v: Vec<[f64; 4]>| {
        let mut h = v.len() / 2;
        while h > 0 {
            for t in 0..h {
                let upper = v[t + h];
                add4(&mut v[t], upper);
            }
            h /= 2;
        }
        v[0]
    };
    let mut records = Vec::new();
    for by in 0..mh.div_ceil(16) {
        for bx in 0..mw.div_ceil(32) {
            let threads = (0..256)
                .map(|t: usize| {
                    let mut acc = [0.0f64; 4];
                    for row in [t / 32, t / 32 + 8] {
                        let (x, y) = (bx * 32 + t % 32, by * 16 + row);
                        if x < mw && y < mh {
                            add4(&mut acc, pixel(x, y));
                        }
                    }
                    acc
                })
                .collect();
            records.push(tree(threads));
        }
    }
    let folded = (0..256)
        .map(|t| {
            let mut sum = [0.0f64; 4];
            for &r in records.iter().skip(t).step_by(256) {
                add4(&mut sum, r);
            }
            sum
        })
        .collect();
    tree(folded).map(|total| total / (mw * mh) as f64)
}

/// `acc += v`, field by field.
fn add4(acc: &mut [f64; 4], v: [f64; 4]) {
    for (a, x) in acc.iter_mut().zip(v) {
        *a += x;
    }
}

/// The GPU's four means (result words, f64 bits) against [`tiled_means`]:
/// equal bit for bit.
fn assert_tiled_means(what: &str, words: &[i64], a: &FloatPlane, b: &FloatPlane) {
    let want = tiled_means(a, b).map(|m| m.to_bits() as i64);
    assert_eq!(words, want, "{what}: means not those of the fixed tile and fold order");
}

/// [`assert_tiled_means`] for each of MS-SSIM's scales (the twin's planes).
fn assert_ms_tiled_means(label: &str, words: &[i64], rp: &PlaneView, dp: &PlaneView) {
    let (mut a, mut b) = (to_float_plane(rp), to_float_plane(dp));
    for s in 0..SCALES {
        if s > 0 {
            (a, b) = (downscale(&a), downscale(&b));
        }
        assert_tiled_means(&format!("{label}, scale {s}"), &words[s * 4..s * 4 + 4], &a, &b);
    }
}

fn assert_close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= POOLED_TOLERANCE,
        "{what}: GPU {got:.12} twin {want:.12} (|Δ| {:.3e})",
        (got - want).abs()
    );
}

/// Bitwise comparison of two float slices, with the first differences shown.
fn assert_bits_equal(what: &str, got: &[f32], want: &[f32], width: usize) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g.to_bits() != w.to_bits())
        .take(5)
        .map(|(i, (g, w))| format!("({}, {}): GPU {g:e} twin {w:e}", i % width, i / width))
        .collect();
    let count = got.iter().zip(want).filter(|(g, w)| g.to_bits() != w.to_bits()).count();
    assert!(bad.is_empty(), "{what}: {count} of {} values differ, e.g. {bad:#?}", got.len());
}

/// One SSIM frame: GPU map bits equal the twin's, pooled scores within
/// 1e-9, and a second run gives identical bits. Returns the map size.
fn check_ssim(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    (w, h, bpc): (usize, usize, u32),
    options: SsimOptions,
    r: &[u16],
    d: &[u16],
) -> usize {
    let label = format!("{w}x{h} at {bpc} bits, scale option {}", options.scale);
    let rp = PlaneView::packed(w, h, bpc, r);
    let dp = PlaneView::packed(w, h, bpc, d);
    let (want, want_map) = float_ssim_with_map(&rp, &dp, options).unwrap();
    let kernel = SsimKernel::new(ctx, w as u32, h as u32, bpc, options).unwrap();
    assert_eq!(
        (kernel.map_width() as usize, kernel.map_height() as usize, kernel.scale() as usize),
        (want_map.width, want_map.height, want_map.scale),
        "{label}: map geometry"
    );
    let (buf, rd, dd) = upload_pair(ctx, submitter, &rp, &dp);
    let map_bytes = u64::from(kernel.map_width() * kernel.map_height()) * 4;
    let mut runs = Vec::new();
    for _ in 0..2 {
        let words = poisoned_results(ctx, submitter, SsimKernel::RESULT_WORDS, |rec, out, at| {
            rec.fill(kernel.map_buffer(), NAN_POISON);
            rec.barrier();
            let (r, d) =
                (DevicePlane { buffer: &buf, desc: rd }, DevicePlane { buffer: &buf, desc: dd });
            kernel.record(rec, &r, &d, out, at)
        });
        let map =
            floats_of(&download_buffer(ctx, submitter, kernel.map_buffer(), map_bytes).unwrap());
        runs.push((words, map));
    }
    let (words, map) = &runs[0];
    assert_eq!(runs[0].0, runs[1].0, "{label}: two runs gave different result bits");
    assert_bits_equal(&format!("{label}: second run's map"), &runs[1].1, map, want_map.width);
    assert_bits_equal(&format!("{label}: SSIM map"), map, &want_map.values, want_map.width);
    let (factor, _, _) = prescale(w, h, options).unwrap();
    let (mut a, mut b) = (to_float_plane(&rp), to_float_plane(&dp));
    if factor > 1 {
        let kernel = box_kernel(factor);
        a = decimate(&a, factor, &kernel, factor);
        b = decimate(&b, factor, &kernel, factor);
    }
    assert_tiled_means(&label, words, &a, &b);
    let got = SsimKernel::decode(words);
    assert_close(&format!("{label}: ssim"), got.ssim, want.ssim);
    assert_close(&format!("{label}: l"), got.l, want.l);
    assert_close(&format!("{label}: c"), got.c, want.c);
    assert_close(&format!("{label}: s"), got.s, want.s);
    want_map.values.len()
}

#[test]
fn gpu_ssim_equals_cpu_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_ssim_equals_cpu_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5353_494D_2024_0001);
    // (width, height, scale option): the smallest sizes, odd ones, tiles
    // cut at every edge, automatic pre-scale 1, 2 (min side 384..639) and 3
    // (640..895), and explicit factors with IQA's odd-size quirk.
    let mut cases: Vec<(usize, usize, u32)> = vec![
        (11, 11, 0),
        (12, 43, 0),
        (75, 11, 0),
        (42, 26, 0), // exactly one 32x16 map tile
        (43, 27, 0), // one more sample each way
        (401, 385, 0),
        (640, 641, 0),
        (21, 22, 2),
        (45, 47, 4),
        (67, 58, 5),
        (111, 121, 10),
        (60, 70, 3),
        // Enough workgroups for ssim_scale's banded walk (four tiles each),
        // the last walk cut short.
        (1290, 401, 1),
    ];
    while cases.len() < 18 {
        cases.push((11 + rng.below(180) as usize, 11 + rng.below(140) as usize, 0));
    }
    let (mut frames, mut pixels) = (0, 0);
    for (i, &(w, h, scale)) in cases.iter().enumerate() {
        let bpc = [8, 10, 12][i % 3];
        let (r, d) = frame_pair(&mut rng, w, h, bpc, i as u64);
        pixels += check_ssim(&ctx, &mut submitter, (w, h, bpc), SsimOptions { scale }, &r, &d);
        frames += 1;
    }
    println!(
        "{frames} random frame pairs ({pixels} map pixels, subgroup size {}): maps \
         bit-identical, means those of the fixed tile order, pooled |Δ| ≤ {POOLED_TOLERANCE:e}, runs repeat bit for bit",
        ctx.info().subgroup_size
    );
    assert_no_validation_messages();
}

/// Reads the scale planes of an MS-SSIM kernel back (scales 1–4; scale 0
/// is read from the frame) and compares them with the twin's conversion and
/// downscaling, bit for bit.
fn check_scale_planes(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &MsSsimKernel,
    label: &str,
    r: &PlaneView,
    d: &PlaneView,
) {
    let (buffer, scales) = kernel.scale_planes();
    let all = floats_of(&download_buffer(ctx, submitter, buffer, buffer.size()).unwrap());
    let (mut a, mut b) = (to_float_plane(r), to_float_plane(d));
    for (i, &(w, h, ao, bo)) in (1..).zip(&scales) {
        a = downscale(&a);
        b = downscale(&b);
        let (w, h) = (w as usize, h as usize);
        assert_eq!((a.width, a.height), (w, h), "{label}: scale {i} size");
        for (plane, offset, name) in [(&a, ao, "reference"), (&b, bo, "distorted")] {
            let at = offset as usize / 4;
            let got = &all[at..at + w * h];
            let want: &FloatPlane = plane;
            assert_bits_equal(&format!("{label}: scale {i} {name}"), got, &want.data, w);
        }
    }
}

#[test]
fn gpu_ms_ssim_equals_cpu_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_ms_ssim_equals_cpu_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x4D53_5353_494D_0002);
    let mut cases = vec![(MIN_SIZE, MIN_SIZE), (MIN_SIZE + 1, MIN_SIZE + 15), (241, 183)];
    while cases.len() < 6 {
        cases.push((MIN_SIZE + rng.below(120) as usize, MIN_SIZE + rng.below(90) as usize));
    }
    // Enough workgroups for ssim_scale's banded walk at scale 0 (read from
    // the frame), as float_ssim's 1290x401 case has.
    cases.push((1290, 401));
    // Last, sparse bright dots on black, and the same dots dimmed plus a
    // fainter shifted set: the low-pass table's negative lobes make some
    // scale-1 samples negative, so products of both signs reach the filters'
    // double sums (while every scale's l, c and s stay positive, as
    // libvmaf's powers need).
    cases.push((MIN_SIZE + 9, MIN_SIZE + 4));
    let dots = |w: usize, h: usize, shift: usize, level: u16| -> Vec<u16> {
        let on = |i: usize| (i % w + shift).is_multiple_of(7) && (i / w).is_multiple_of(5);
        (0..w * h).map(|i| if on(i) { level } else { 0 }).collect()
    };
    for (i, &(w, h)) in cases.iter().enumerate() {
        let bpc = [8, 10, 12][i % 3];
        let label = format!("{w}x{h} at {bpc} bits");
        let (r, d) = if i + 1 == cases.len() {
            let max = (1u16 << bpc) - 1;
            let (dim, faint) = (dots(w, h, 0, max / 4 * 3), dots(w, h, 3, max / 8));
            (dots(w, h, 0, max), dim.iter().zip(&faint).map(|(a, b)| a + b).collect())
        } else {
            frame_pair(&mut rng, w, h, bpc, i as u64 + 1)
        };
        let rp = PlaneView::packed(w, h, bpc, &r);
        let dp = PlaneView::packed(w, h, bpc, &d);
        if i + 1 == cases.len() {
            let scale1 = downscale(&to_float_plane(&rp));
            assert!(scale1.data.iter().any(|&v| v < 0.0), "{label}: no negative scale-1 sample");
        }
        let want = float_ms_ssim(&rp, &dp).unwrap();
        let kernel = MsSsimKernel::new(&ctx, w as u32, h as u32, bpc).unwrap();
        let (buf, rd, dd) = upload_pair(&ctx, &mut submitter, &rp, &dp);
        let mut runs = Vec::new();
        for _ in 0..2 {
            let (planes, _) = kernel.scale_planes();
            let n = MsSsimKernel::RESULT_WORDS;
            runs.push(poisoned_results(&ctx, &mut submitter, n, |rec, out, at| {
                rec.fill(planes, NAN_POISON);
                rec.barrier();
                let (r, d) = (
                    DevicePlane { buffer: &buf, desc: rd },
                    DevicePlane { buffer: &buf, desc: dd },
                );
                kernel.record(rec, &r, &d, out, at)
            }));
        }
        assert_eq!(runs[0], runs[1], "{label}: two runs gave different result bits");
        check_scale_planes(&ctx, &mut submitter, &kernel, &label, &rp, &dp);
        assert_ms_tiled_means(&label, &runs[0], &rp, &dp);
        let got = MsSsimKernel::decode(&runs[0]);
        assert_close(&format!("{label}: ms_ssim"), got.ms_ssim, want.ms_ssim);
        for s in 0..SCALES {
            assert_close(&format!("{label}: l scale {s}"), got.l[s], want.l[s]);
            assert_close(&format!("{label}: c scale {s}"), got.c[s], want.c[s]);
            assert_close(&format!("{label}: s scale {s}"), got.s[s], want.s[s]);
        }
    }
    println!(
        "{} random frame pairs (subgroup size {}): scale planes bit-identical, \
         means those of the fixed tile order, pooled |Δ| ≤ \
         {POOLED_TOLERANCE:e}, runs repeat bit for bit",
        cases.len(),
        ctx.info().subgroup_size
    );
    assert_no_validation_messages();
}

#[test]
fn gpu_ssim_refuses_what_the_twin_refuses() {
    let ctx = test_context();
    let plane = |w: usize, h: usize| vec![0u16; w * h];
    for (w, h, scale) in [(10, 30, 0), (40, 40, 4), (40, 40, 11), (20, 200, 2), (30, 10, 1)] {
        let s = plane(w, h);
        let p = PlaneView::packed(w, h, 8, &s);
        let options = SsimOptions { scale };
        let want = float_ssim(&p, &p, options).unwrap_err().to_string();
        let got =
            SsimKernel::new(&ctx, w as u32, h as u32, 8, options).err().map(|e| e.to_string());
        assert_eq!(got.as_deref(), Some(want.as_str()), "{w}x{h} scale {scale}");
    }
    for (w, h) in [(175, 200), (200, 175), (10, 10)] {
        let s = plane(w, h);
        let p = PlaneView::packed(w, h, 8, &s);
        let want = float_ms_ssim(&p, &p).unwrap_err().to_string();
        let got = MsSsimKernel::new(&ctx, w as u32, h as u32, 8).err().map(|e| e.to_string());
        assert_eq!(got.as_deref(), Some(want.as_str()), "{w}x{h}");
    }
    // A plane of another size than the kernel's is refused at record time.
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let s = plane(40, 40);
    let p = PlaneView::packed(40, 40, 8, &s);
    let (b, desc) = upload_plane(&ctx, &mut submitter, &p).unwrap();
    let kernel = SsimKernel::new(&ctx, 41, 40, 8, SsimOptions::default()).unwrap();
    let results = Buffer::storage(&ctx, "results", 64).unwrap();
    let plane = DevicePlane { buffer: &b, desc };
    let err = submitter.run(|rec| kernel.record(rec, &plane, &plane, &results, 0));
    assert!(err.is_err(), "a 40x40 plane given to a 41x40 kernel must be refused");
    assert_no_validation_messages();
}

/// Full-size frames on the device itself (run on the H200 with
/// `--ignored`): 1080p and 4K SSIM maps bit-identical to the twin, MS-SSIM
/// scale planes bit-identical, every mean that of the fixed tile and fold
/// order (bit for bit) and pooled scores within 1e-9, then the GPU
/// time of each kernel's steps (`record_timed`, median of 40 runs after 60
/// warm-up runs).
#[test]
#[ignore = "full-size frames: slow on lavapipe; run on a real GPU"]
fn gpu_ssim_full_size_and_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xF011_5123);
    for (w, h, bpc) in
        [(1920usize, 1080usize, 8u32), (2560, 1440, 8), (3840, 2160, 8), (3840, 2160, 10)]
    {
        let (r, d) = frame_pair(&mut rng, w, h, bpc, 0);
        check_ssim(&ctx, &mut submitter, (w, h, bpc), SsimOptions::default(), &r, &d);
        let rp = PlaneView::packed(w, h, bpc, &r);
        let dp = PlaneView::packed(w, h, bpc, &d);
        let want = float_ms_ssim(&rp, &dp).unwrap();
        let ms = MsSsimKernel::new(&ctx, w as u32, h as u32, bpc).unwrap();
        let ssim = SsimKernel::new(&ctx, w as u32, h as u32, bpc, SsimOptions::default()).unwrap();
        let (buf, rd, dd) = upload_pair(&ctx, &mut submitter, &rp, &dp);
        let (rplane, dplane) =
            (DevicePlane { buffer: &buf, desc: rd }, DevicePlane { buffer: &buf, desc: dd });
        let words =
            poisoned_results(&ctx, &mut submitter, MsSsimKernel::RESULT_WORDS, |rec, b, o| {
                ms.record(rec, &rplane, &dplane, b, o)
            });
        let label = format!("{w}x{h} at {bpc} bits");
        check_scale_planes(&ctx, &mut submitter, &ms, &label, &rp, &dp);
        assert_ms_tiled_means(&label, &words, &rp, &dp);
        let got = MsSsimKernel::decode(&words);
        assert_close(&format!("{label}: ms_ssim"), got.ms_ssim, want.ms_ssim);

        // Unscaled SSIM: the cost of the fused pass at full resolution.
        let full =
            SsimKernel::new(&ctx, w as u32, h as u32, bpc, SsimOptions { scale: 1 }).unwrap();
        let results = Buffer::storage(&ctx, "timing results", 256).unwrap();
        let (ns, nm) = (SsimKernel::TIMED_STEPS, MsSsimKernel::TIMED_STEPS);
        let stamps = vqscope_gpu::Timestamps::new(&ctx, 2 * ns + nm).unwrap();
        let mut runs = Vec::new();
        for _ in 0..100 {
            submitter
                .run(|rec| {
                    rec.reset_timestamps(&stamps);
                    ssim.record_timed(rec, &rplane, &dplane, &results, 0, &stamps, 0)?;
                    ms.record_timed(rec, &rplane, &dplane, &results, 4, &stamps, ns)?;
                    full.record_timed(rec, &rplane, &dplane, &results, 0, &stamps, ns + nm)
                })
                .unwrap();
            runs.push(stamps.read_intervals_ms().unwrap());
        }
        // Warm-up: an idle H200 sits at 345 MHz and takes tens of
        // milliseconds of work to reach full clocks.
        runs.drain(..60);
        // Per interval, the median over the runs.
        let median: Vec<f64> = (0..runs[0].len())
            .map(|i| median(&mut runs.iter().map(|r| r[i]).collect::<Vec<_>>()))
            .collect();
        let (ns, nm) = (ns as usize, nm as usize);
        let sum = |r: std::ops::Range<usize>| median[r].iter().sum::<f64>();
        let fmt = |r: std::ops::Range<usize>| {
            median[r].iter().map(|v| format!("{v:.3}")).collect::<Vec<_>>().join(" ")
        };
        println!(
            "{label} on {} (GPU ms, median of 40 after 60 warm-up runs):\n  float_ssim {:.3} [{}]\n  float_ms_ssim \
             {:.3} [{}]\n  float_ssim unscaled {:.3} [{}]",
            ctx.info().name,
            sum(0..ns - 1),
            fmt(0..ns - 1),
            sum(ns..ns + nm - 1),
            fmt(ns..ns + nm - 1),
            sum(ns + nm..2 * ns + nm - 1),
            fmt(ns + nm..2 * ns + nm - 1),
        );
    }
    assert_no_validation_messages();
}
