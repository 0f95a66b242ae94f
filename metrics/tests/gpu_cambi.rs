//! The CAMBI kernels against the CPU twin (`features::cambi::Cambi`):
//! random frames of random sizes, 8 to 12 bits, under the option sets that
//! change what the kernels do (working-size decimation of both pictures,
//! the anti-dithering, the high-resolution speed-up, every contrast range,
//! both EOTFs, the luminance floor, windows and top-k fractions). Every
//! output must equal the twin's double bit for bit.
//!
//! `heatmaps_path` through the scoring pipeline: the files' names, count and
//! sizes, and their bytes against the twin's c-value maps converted here
//! as libvmaf's `dump_c_values` converts them.

use std::sync::Arc;

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::plane_bytes;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::Feature;
use vqscope_metrics::features::cambi::feature::{CambiFeature, cambi_options};
use vqscope_metrics::features::cambi::gpu::{CPU_CVALUE_ROWS, CambiKernel, GPU_CVALUE_ROWS};
use vqscope_metrics::features::cambi::preprocess::sample_positions;
use vqscope_metrics::features::cambi::{Cambi, CambiOptions, CambiScore, Eotf, NUM_SCALES};
use vqscope_metrics::pipeline::{FeatureSet, ScorePipeline};
use vqscope_metrics::testing::poisoned_results;
use vqscope_video::{ChromaFormat, ColorInfo, Frame, FramePair, Geometry, PixelFormat};

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

/// The kernel's outputs for one frame pair of samples within their bit
/// depth (so not refused), checking it writes exactly its result slots.
fn gpu_score(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &CambiKernel,
    reference: &PlaneView,
    distorted: &PlaneView,
) -> CambiScore {
    let words = gpu_words(ctx, submitter, kernel, reference, distorted);
    if let Some(e) = kernel.out_of_range(0, &words) {
        panic!("a frame within its bit depth refused: {e}");
    }
    kernel.decode(&words)
}

/// The kernel's result words for one frame pair, checking it writes exactly
/// its result slots.
fn gpu_words(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    kernel: &CambiKernel,
    reference: &PlaneView,
    distorted: &PlaneView,
) -> Vec<i64> {
    let (r, rd) = upload_plane(ctx, submitter, reference).unwrap();
    let (d, dd) = upload_plane(ctx, submitter, distorted).unwrap();
    let (rp, dp) = (DevicePlane { buffer: &r, desc: rd }, DevicePlane { buffer: &d, desc: dd });
    poisoned_results(ctx, submitter, kernel.result_words(), |rec, results, at| {
        kernel.record(rec, &rp, &dp, results, at)
    })
}

/// Scores a random pair of `w`x`h` planes of `bpc` bits (what `cambi` and
/// `kernel` were made for) with the kernel and with the twin, and asserts
/// the same bits; whether the frame has banding.
fn random_pair_matches(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    cambi: &Cambi,
    kernel: &CambiKernel,
    (w, h, bpc): (usize, usize, u32),
    what: &str,
) -> bool {
    let r = random_plane(rng, w, h, bpc);
    let d = random_plane(rng, w, h, bpc);
    let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
    let want = cambi.score(&dv, &rv).unwrap();
    let got = gpu_score(ctx, submitter, kernel, &rv, &dv);
    assert_eq!(bits(&got), bits(&want), "{what}: GPU {got:?}, twin {want:?}");
    want.cambi > 0.0
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
            let banded = random_pair_matches(
                &ctx,
                &mut submitter,
                &mut rng,
                &cambi,
                &kernel,
                (w, h, bpc),
                &what,
            );
            frames += 1;
            nonzero += usize::from(banded);
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

/// The c-values' workgroup height is the host's choice (4 rows on
/// lavapipe, [`GPU_CVALUE_ROWS`] on a GPU): the values must not depend on
/// it. Every row count here, including ones that divide no grid height and
/// one taller than every grid, on the option sets whose loops stay under
/// lavapipe's 65535 iterations per invocation at those heights (none of
/// the widest contrast ranges or the largest windows).
#[test]
fn cambi_row_counts_match_twin() {
    if !at_every_lavapipe_subgroup_size("cambi_row_counts_match_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xCA4B_0B0E);
    let mut frames = 0;
    let mut nonzero = 0;
    for rows in [1, 7, CPU_CVALUE_ROWS, GPU_CVALUE_ROWS, 300] {
        for (what, options, size) in cases(&mut rng) {
            if options.max_log_contrast > 3 || options.window_size > 65 {
                continue;
            }
            let bpc = [8, 10][rng.below(2) as usize];
            let (w, h) = size.unwrap_or_else(|| (rng.odd(216, 300), rng.odd(40, 200)));
            let what = format!("{what}: {w}x{h} at {bpc} bits, {rows} rows");
            let cambi = Cambi::new(&options, w, h, bpc).unwrap_or_else(|e| panic!("{what}: {e}"));
            let kernel = CambiKernel::with_rows(&ctx, &cambi, rows).unwrap();
            assert_eq!(kernel.rows(), rows);
            let banded = random_pair_matches(
                &ctx,
                &mut submitter,
                &mut rng,
                &cambi,
                &kernel,
                (w, h, bpc),
                &what,
            );
            frames += 1;
            nonzero += usize::from(banded);
        }
    }
    assert!(nonzero * 2 > frames, "too few frames with banding: {nonzero} of {frames}");
    assert!(
        CambiKernel::with_rows(
            &ctx,
            &Cambi::new(&CambiOptions::default(), 256, 216, 8).unwrap(),
            0
        )
        .is_err()
    );
    let info = ctx.info();
    println!(
        "cambi: {frames} random frames at 1 to 300 rows per c-value workgroup ({nonzero} banded) \
         equal to the twin on {} (subgroup size {})",
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

/// Rows per c-value workgroup [`cambi_timing_4k`] tries.
const TIMED_ROWS: [u32; 6] = [4, 8, 16, 24, 32, 64];

/// A 4K 10-bit frame at the defaults and with the v1 models' options, GPU
/// time per frame at each of [`TIMED_ROWS`] rows per c-value workgroup (the
/// issue's goal: ≤ 0.5 ms on an H200).
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
    let cases = [("defaults", CambiOptions::default()), ("v1 models' options", v1)];
    let chosen = CambiKernel::rows_for(ctx.info());
    for ((what, options), rows) in cases.into_iter().flat_map(|c| TIMED_ROWS.map(|r| (c, r))) {
        let cambi = Cambi::new(&options, w, h, 10).unwrap();
        let kernel = CambiKernel::with_rows(&ctx, &cambi, rows).unwrap();
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
        let default = if rows == chosen { ", the default here" } else { "" };
        println!(
            "cambi ({what}) on a 3840x2160 10-bit frame on {}, {rows} c-value rows{default}: \
             median {median:.3} ms (min {min:.3}, max {max:.3})",
            ctx.info().name
        );
    }
}

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vqscope-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// What libvmaf's `dump_c_values` writes for one map, derived by hand:
/// `max_c = max weight · window² / 4` in integers, each sample the double
/// `c · 65535 / max_c` truncated to an integer of which a 16-bit store
/// keeps the low bits, little-endian.
fn expected_dump(map: &[f32], cambi: &Cambi) -> Vec<u8> {
    let scale = dump_scale(cambi);
    map.iter().flat_map(|&c| ((scale * f64::from(c)).trunc() as i64 as u16).to_le_bytes()).collect()
}

/// `65535 / max_c`; the weights of the first steps, the largest last
/// within the 2^5 steps tested (libvmaf's `g_contrast_weights`).
fn dump_scale(cambi: &Cambi) -> f64 {
    const WEIGHTS: [i64; 32] = [
        1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9,
        9, 9,
    ];
    let steps = usize::from(cambi.contrast().num_diffs);
    let window = i64::from(cambi.window());
    65535.0 / (WEIGHTS[steps - 1] * window * window / 4) as f64
}

/// Scores `frames` distorted planes (reference flat) of `w`x`h` at `bpc`
/// bits with `spec`, every `subsample`-th reported, frame `i` pushed as
/// index `indices[i]`; returns the twin set up for the spec.
fn score_with_heatmaps(
    ctx: &Arc<GpuContext>,
    spec: &str,
    (w, h, bpc): (usize, usize, u32),
    frames: &[Vec<u16>],
    indices: &[u64],
    subsample: u64,
) -> Cambi {
    let list = spec.strip_prefix("cambi=").unwrap_or("");
    let mut options = CambiFeature.default_options();
    options.parse_list("cambi", list).unwrap();
    let cambi = Cambi::new(&cambi_options(&options), w, h, bpc).unwrap();
    let geometry = Geometry {
        width: w as u32,
        height: h as u32,
        format: PixelFormat { chroma: ChromaFormat::Mono, bit_depth: bpc },
    };
    let mut set = FeatureSet::new();
    set.add_spec(spec).unwrap();
    set.set_subsample(subsample);
    let mut pipeline = ScorePipeline::new(ctx, geometry, &set).unwrap();
    // Without the option nothing more is read back; with it, the maps.
    let maps: usize = cambi.scale_sizes(false).iter().map(|(w, h)| w * h * 4).sum();
    let bare = ScorePipeline::new(ctx, geometry, &{
        let mut bare = FeatureSet::new();
        let kept: Vec<&str> =
            list.split(':').filter(|o| !o.starts_with("heatmaps_path=")).collect();
        bare.add_spec(&format!("cambi={}", kept.join(":"))).unwrap();
        bare
    })
    .unwrap();
    assert_eq!(pipeline.readback_bytes(), bare.readback_bytes() + maps.div_ceil(8) as u64 * 8);
    let flat = vec![1u16 << (bpc - 1); w * h];
    let bytes = |s: &[u16]| plane_bytes(&PlaneView::packed(w, h, bpc, s));
    let frame = |index, data: Vec<u8>| Frame {
        geometry,
        color: ColorInfo::default(),
        index,
        data: data.into(),
    };
    let mut scores = Vec::new();
    for (d, &index) in frames.iter().zip(indices) {
        let pair = FramePair {
            index,
            reference: frame(index, bytes(&flat)),
            distorted: frame(index, bytes(d)),
        };
        scores.extend(pipeline.push(&pair).unwrap());
    }
    scores.extend(pipeline.finish().unwrap());
    assert_eq!(scores.len(), frames.len(), "{spec}");
    cambi
}

/// Every option set that changes the dump (the window, the contrast steps
/// and so the scaling, the working size, `full_ref`), 8 and 10 bits: five
/// files of libvmaf's names, each the twin's maps of every frame.
#[test]
fn heatmaps_equal_the_twins_maps() {
    let ctx = test_context();
    let mut rng = Rng(0xCA4B_4EA7);
    let dir = scratch("cambi-heatmaps");
    let mut nonzero = 0;
    let mut wrapped = 0;
    let cases = [
        ("", 8),
        (":max_log_contrast=0:window_size=127", 10),
        (":max_log_contrast=1", 8),
        (":full_ref=true:max_log_contrast=5", 10),
        (":enc_width=240:enc_height=180:enc_bitdepth=8", 10),
    ];
    for (k, (extra, bpc)) in cases.into_iter().enumerate() {
        let (w, h) = if k == 4 {
            (rng.odd(330, 420), rng.odd(210, 260))
        } else {
            (rng.odd(216, 300), rng.odd(40, 200))
        };
        let out = dir.join(format!("case{k}/nested"));
        let spec = format!("cambi=heatmaps_path={}{extra}", out.display());
        let frames: Vec<Vec<u16>> = (0..3).map(|_| random_plane(&mut rng, w, h, bpc)).collect();
        let cambi = score_with_heatmaps(&ctx, &spec, (w, h, bpc), &frames, &[0, 1, 2], 1);
        let (ew, eh) = (cambi.working(false).width, cambi.working(false).height);
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let want_names: Vec<String> = (0..5)
            .map(|s| {
                let (sw, sh) = ((ew + (1 << s) - 1) >> s, (eh + (1 << s) - 1) >> s);
                format!("cambi_heatmap_scale_{s}_{sw}x{sh}_16b.gray")
            })
            .collect();
        assert_eq!(names, want_names, "{spec}");
        let maps: Vec<Vec<Vec<f32>>> = frames
            .iter()
            .map(|d| cambi.c_value_maps(&PlaneView::packed(w, h, bpc, d)).unwrap())
            .collect();
        for (s, name) in want_names.iter().enumerate() {
            let got = std::fs::read(out.join(name)).unwrap();
            let want: Vec<u8> = maps.iter().flat_map(|m| expected_dump(&m[s], &cambi)).collect();
            let (sw, sh) = cambi.scale_sizes(false)[s];
            assert_eq!(got.len(), 3 * sw * sh * 2, "{spec}: {name}");
            assert!(got == want, "{spec}: {name} differs from the twin's maps");
            nonzero += usize::from(got.iter().any(|&b| b != 0));
            wrapped += maps
                .iter()
                .flat_map(|m| &m[s])
                .filter(|&&c| f64::from(c) * dump_scale(&cambi) >= 65536.0)
                .count();
        }
    }
    assert!(nonzero >= 20, "too few maps with banding: {nonzero} of 25");
    println!("cambi heatmaps: 25 files equal to the twin's maps ({wrapped} wrapped samples)");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_no_validation_messages();
}

/// The speed-up's naming quirk (names at the undecimated sizes, maps half
/// as large), a frame skipped by `--subsample` reading as zeros, and
/// refusing to overwrite.
#[test]
fn heatmaps_with_speedup_gaps_and_existing_files() {
    let ctx = test_context();
    let mut rng = Rng(0xCA4B_4EA8);
    let dir = scratch("cambi-heatmaps-speedup");
    let (w, h) = (1920, 1080);
    let spec = format!("cambi=heatmaps_path={}:cambi_high_res_speedup=1080", dir.display());
    let frames: Vec<Vec<u16>> = (0..3).map(|_| random_plane(&mut rng, w, h, 10)).collect();
    // With --subsample 2 libvmaf never scores frame 1.
    let cambi = score_with_heatmaps(&ctx, &spec, (w, h, 10), &frames, &[0, 1, 2], 2);
    let names = [
        "cambi_heatmap_scale_0_1920x1080_16b.gray",
        "cambi_heatmap_scale_1_960x540_16b.gray",
        "cambi_heatmap_scale_2_480x270_16b.gray",
        "cambi_heatmap_scale_3_240x135_16b.gray",
        "cambi_heatmap_scale_4_120x68_16b.gray",
    ];
    let sizes = [(960, 540), (480, 270), (240, 135), (120, 68), (60, 34)];
    assert_eq!(cambi.scale_sizes(false), sizes);
    let maps: Vec<Vec<Vec<f32>>> = [&frames[0], &frames[2]]
        .iter()
        .map(|d| cambi.c_value_maps(&PlaneView::packed(w, h, 10, d)).unwrap())
        .collect();
    for (s, name) in names.iter().enumerate() {
        let got = std::fs::read(dir.join(name)).unwrap();
        let n = sizes[s].0 * sizes[s].1 * 2;
        assert_eq!(got.len(), 3 * n, "{name}");
        assert_eq!(got[..n], expected_dump(&maps[0][s], &cambi)[..], "{name}: frame 0");
        assert!(got[n..2 * n].iter().all(|&b| b == 0), "{name}: frame 1 is not reported");
        assert_eq!(got[2 * n..], expected_dump(&maps[1][s], &cambi)[..], "{name}: frame 2");
    }
    // Present files are refused before any is created or changed.
    let before = std::fs::read(dir.join(names[4])).unwrap();
    std::fs::remove_file(dir.join(names[0])).unwrap();
    let mut set = FeatureSet::new();
    set.add_spec(&spec).unwrap();
    let geometry = Geometry {
        width: w as u32,
        height: h as u32,
        format: PixelFormat { chroma: ChromaFormat::Mono, bit_depth: 10 },
    };
    let err = ScorePipeline::new(&ctx, geometry, &set).err().expect("existing files refused");
    assert!(err.to_string().contains("already exists"), "{err}");
    assert!(!dir.join(names[0]).exists(), "nothing created when refusing");
    assert_eq!(std::fs::read(dir.join(names[4])).unwrap(), before);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_no_validation_messages();
}

/// libvmaf refuses a frame whose luma holds a sample past its bit depth
/// (`validate_image`: at 9 to 15 bits, every sample of the plane): the
/// kernel's flag names the picture the twin refuses, the distorted or with
/// `full_ref` the reference, also where the decimation to the working size
/// never reads the sample. 8- and 16-bit input is not checked (no flag word).
#[test]
fn cambi_refuses_samples_past_the_bit_depth_as_the_twin_does() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0xCA4B_0BAD);
    let full = CambiOptions { full_ref: true, ..CambiOptions::default() };
    let decimated =
        CambiOptions { enc_width: 240, enc_height: 180, src_width: 320, src_height: 200, ..full };
    let (w, h) = (480, 360);
    for (bpc, options) in [(10, full), (12, decimated), (9, decimated), (10, decimated)] {
        let cambi = Cambi::new(&options, w, h, bpc).unwrap();
        let kernel = CambiKernel::new(&ctx, &cambi).unwrap();
        // A position the decimations to 240x180 and to 320x200 both skip.
        let (xs, xr) = (sample_positions(w, 240), sample_positions(w, 320));
        let (ys, yr) = (sample_positions(h, 180), sample_positions(h, 200));
        let x = (0..w).rev().find(|x| !xs.contains(x) && !xr.contains(x)).unwrap();
        let y = (0..h).find(|y| !ys.contains(y) && !yr.contains(y)).unwrap();
        let max = (1u32 << bpc) - 1;
        for (picture, bad) in [("distorted", max + 1), ("reference", 65_535), ("neither", max)] {
            let mut r = random_plane(&mut rng, w, h, bpc);
            let mut d = random_plane(&mut rng, w, h, bpc);
            let target = if picture == "reference" { &mut r } else { &mut d };
            target[y * w + x] = bad as u16;
            let (rv, dv) = (PlaneView::packed(w, h, bpc, &r), PlaneView::packed(w, h, bpc, &d));
            let what = format!("{bpc} bits, {options:?}, sample {bad} at ({x}, {y}) in {picture}");
            let words = gpu_words(&ctx, &mut submitter, &kernel, &rv, &dv);
            let got = kernel.out_of_range(7, &words).map(|e| e.to_string());
            let want = cambi.score(&dv, &rv).err().map(|e| e.to_string());
            if picture == "neither" {
                assert_eq!((got, want), (None, None), "{what}");
                continue;
            }
            let want = want.unwrap_or_else(|| panic!("{what}: the twin scored it"));
            let got = got.unwrap_or_else(|| panic!("{what}: the kernel did not flag it"));
            assert_eq!(got, want.replace(" frame has", " frame 7 has"), "{what}");
            assert!(got.contains(picture) && got.contains(&format!("above {max}")), "{got}");
        }
    }
    for bpc in [8, 16] {
        let cambi = Cambi::new(&full, w, h, bpc).unwrap();
        let kernel = CambiKernel::new(&ctx, &cambi).unwrap();
        assert_eq!(kernel.result_words() as usize, 2 * NUM_SCALES, "{bpc} bits: a flag word");
    }
    assert_no_validation_messages();
}
