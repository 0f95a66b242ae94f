//! `vqscope bench metrics`: per feature and for the full vmaf_v0.6.1 set, at
//! each size: GPU ms per kernel (timestamps), frames per second with the
//! frames already on the GPU (1000 / kernel ms), frames per second end to
//! end from memory (upload + kernels + readback + host maths) and from a y4m
//! file (plus decoding), and the bytes read back per frame. Under each
//! feature of several dispatches (VIF per scale and decimation, ADM per
//! level, the SSIMs per step), each dispatch alone, from GPU timestamps.
//! With `--lanes N`, under each row, the GPU time of a ladder of N
//! renditions of the row's features against one reference, the lanes
//! sharing the reference's work (as `score -r REF -d A -d B …` does) and
//! not. The rows come from the feature registry.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_metrics::frontend::{self, SelectionArgs};
use vqscope_metrics::model::{DEFAULT_MODEL, Model};
use vqscope_metrics::pipeline::{FeatureSet, ScorePipeline, Sharing};
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::{
    ChromaFormat, ColorInfo, Decoder, Frame, FrameGroup, FramePair, Geometry, Pair, PairOptions,
    PixelFormat, open_input,
};

use crate::output::outln;
use crate::stats::median;

/// An 8-bit 4:2:0 geometry.
pub fn geometry_8bit_420(width: u32, height: u32) -> Geometry {
    Geometry { width, height, format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 } }
}

/// Distinct frame pairs generated per size (reused cyclically).
const DISTINCT: usize = 4;

/// A textured, moving 8-bit 4:2:0 picture and a noisy copy: content-like
/// enough that every branch of the kernels runs.
pub fn synthetic_pair(geometry: Geometry, t: usize) -> (Frame, Frame) {
    let mut reference = Vec::with_capacity(geometry.frame_bytes());
    let mut distorted = Vec::with_capacity(geometry.frame_bytes());
    let mut state = 0x2545_F491u32 ^ t as u32;
    for plane in 0..3 {
        let (w, h) = geometry.plane_size(plane);
        for y in 0..h {
            for x in 0..w {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let fx = (x as f32 + 3.5 * t as f32) * 0.045;
                let fy = y as f32 * 0.031;
                let base =
                    128.0 + 70.0 * (fx.sin() * fy.cos()) + ((state >> 24) as f32 - 128.0) * 0.15;
                let r = base.clamp(16.0, 235.0) as u8;
                let noise = ((state >> 8) & 15) as i32 - 8;
                reference.push(r);
                distorted.push((i32::from(r) + noise).clamp(16, 235) as u8);
            }
        }
    }
    let frame = |data: Vec<u8>| Frame {
        geometry,
        color: ColorInfo::default(),
        index: t as u64,
        data: data.into(),
    };
    (frame(reference), frame(distorted))
}

/// Each registry feature alone (default options), then the feature sets of
/// the default model, of its float twin, of a v1 model (CAMBI, SpEED,
/// ADM with the Barten CSF, motion with the v1 options) and of the whole
/// `--aom_ctc v6.0` preset (`aom_ctc_v6.0`); only the rows `only` names,
/// unless it is empty (a name matching no row is refused).
fn selections(only: &[String]) -> Result<Vec<(String, Selection)>> {
    let mut all = Vec::new();
    for name in vqscope_metrics::features::names() {
        let mut selection = Selection::new();
        selection.add_feature(name)?;
        all.push((name.to_owned(), selection));
    }
    for version in [DEFAULT_MODEL, "vmaf_float_v0.6.1", "vmaf_v1.0.16_3d0h"] {
        let mut model = Selection::new();
        model.add_model(Model::from_spec(&format!("version={version}"))?)?;
        all.push((version.to_owned(), model));
    }
    let aom = SelectionArgs { aom_ctc: Some("v6.0".to_owned()), ..SelectionArgs::default() };
    all.push(("aom_ctc_v6.0".to_owned(), frontend::selection(&aom)?.0));
    if let Some(unknown) = only.iter().find(|n| !all.iter().any(|(row, _)| row == *n)) {
        let rows: Vec<&str> = all.iter().map(|(row, _)| row.as_str()).collect();
        anyhow::bail!("no benchmark row `{unknown}`; rows: {}", rows.join(", "));
    }
    all.retain(|(row, _)| only.is_empty() || only.contains(row));
    Ok(all)
}

pub fn run(
    sizes: &[(u32, u32)],
    only: &[String],
    lanes: usize,
    frames: u64,
    keep: Option<&std::path::Path>,
) -> Result<()> {
    let rows = selections(only)?;
    // Refuse before any work rather than after the first size's figures.
    if let Some(dir) = keep {
        for &(width, height) in sizes {
            let base = clip_base(dir, geometry_8bit_420(width, height));
            for suffix in CLIP_SUFFIXES {
                let path = base.with_extension(suffix);
                if path.exists() {
                    return Err(clip_exists(&path));
                }
            }
        }
    }
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    outln!(
        "device: {} ({frames} frame pairs per case, 8-bit 4:2:0; GPU ms: one frame resident, \
         median of 5 batches of 32 after a 200 ms warm-up, the mean of the {DISTINCT} distinct frames' \
         medians; kernels: median timestamps per frame while scoring)",
        ctx.info().name
    )?;
    outln!(
        "{:<10} {:<18} {:>9} {:>11} {:>11} {:>11} {:>9}  kernels (ms)",
        "size",
        "features",
        "GPU ms",
        "fps GPU",
        "fps memory",
        "fps y4m",
        "readback"
    )?;
    let scratch = ScratchDir::new()?;
    for &(width, height) in sizes {
        let geometry = geometry_8bit_420(width, height);
        let pairs: Vec<(Frame, Frame)> =
            (0..DISTINCT).map(|t| synthetic_pair(geometry, t)).collect();
        let y4m = write_y4m(keep.unwrap_or(scratch.path()), geometry, &pairs, frames)?;
        for (name, selection) in &rows {
            let mut pipeline = match Scorer::new(&ctx, geometry, selection) {
                Ok(p) => p,
                Err(e) => {
                    outln!("{:<10} {name:<18} skipped: {e}", format!("{width}x{height}"))?;
                    continue;
                }
            };
            let mut per_kernel: Vec<(&'static str, Vec<f64>)> = Vec::new();
            let start = Instant::now();
            for i in 0..frames {
                let (r, d) = &pairs[i as usize % DISTINCT];
                let pair = FramePair { index: i, reference: r.clone(), distorted: d.clone() };
                pipeline.push(&pair)?;
                let times = pipeline.last_times();
                if i >= 4 && !times.passes.is_empty() {
                    let kernels: Vec<_> =
                        times.passes.iter().filter(|(n, _)| *n != "upload").collect();
                    for (n, ms) in kernels {
                        match per_kernel.iter_mut().find(|(k, _)| k == n) {
                            Some((_, v)) => v.push(*ms),
                            None => per_kernel.push((n, vec![*ms])),
                        }
                    }
                }
            }
            pipeline.finish()?;
            let memory_fps = frames as f64 / start.elapsed().as_secs_f64();
            let y4m_fps = score_y4m(&ctx, &y4m, geometry, selection)?;
            let distinct: Vec<FramePair> = pairs
                .iter()
                .enumerate()
                .map(|(i, (r, d))| FramePair {
                    index: i as u64,
                    reference: r.clone(),
                    distorted: d.clone(),
                })
                .collect();
            let gpu_ms = resident_ms(&ctx, geometry, selection, &distinct)?;
            let detail: Vec<String> =
                per_kernel.into_iter().map(|(n, v)| format!("{n} {:.3}", median(v))).collect();
            outln!(
                "{:<10} {name:<18} {gpu_ms:>9.3} {:>11.1} {memory_fps:>11.1} {y4m_fps:>11.1} {:>8}B  {}",
                format!("{width}x{height}"),
                1000.0 / gpu_ms,
                pipeline.readback_bytes(),
                detail.join(", ")
            )?;
            if lanes > 1 {
                let ms = ladder_ms(&ctx, geometry, selection, &distinct, lanes)?;
                let per = ms.map(|t| t / lanes as f64);
                outln!(
                    "{:<10} {:<18} ladder of {lanes}, GPU ms per frame: {:.3} shared, {:.3} \
                     without the reference terms, {:.3} not shared ({:.3}, {:.3} and {:.3} per \
                     rendition)",
                    "",
                    "",
                    ms[0],
                    ms[1],
                    ms[2],
                    per[0],
                    per[1],
                    per[2]
                )?;
            }
            // A single feature of several dispatches: each one alone.
            if name != DEFAULT_MODEL {
                for phases in dispatch_ms(&ctx, geometry, selection, &distinct)? {
                    if phases.len() > 1 {
                        let line: Vec<String> = phases
                            .iter()
                            .map(|(n, per_frame)| format!("{n} {}", frame_figures(per_frame)))
                            .collect();
                        outln!(
                            "{:<10} {:<18} each dispatch alone (ms): {}",
                            "",
                            "",
                            line.join(", ")
                        )?;
                    }
                }
            }
        }
        // Written once per size, read by every selection.
        if keep.is_none() {
            for suffix in CLIP_SUFFIXES {
                std::fs::remove_file(y4m.with_extension(suffix)).ok();
            }
        }
    }
    Ok(())
}

/// The mean over `pairs` of each one's median of 5 resident batches of 32
/// frames, after batches that keep the GPU busy for at least 200 ms: an idle
/// H200 sits at 345 MHz and needs sustained work before it clocks up, or the
/// figures measure the clock. Every distinct pair counts, since the cost of
/// some features (psnr_hvs's float sum, CAMBI) depends on the content.
fn resident_ms(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    selection: &Selection,
    pairs: &[FramePair],
) -> Result<f64> {
    let mut pipeline = ScorePipeline::new(ctx, geometry, selection.features())?;
    let mut total = 0.0;
    for pair in pairs {
        let warm = Instant::now();
        while warm.elapsed().as_secs_f64() < 0.2 {
            pipeline.time_resident(pair, 32)?;
        }
        let runs =
            (0..5).map(|_| pipeline.time_resident(pair, 32)).collect::<Result<Vec<_>, _>>()?;
        total += median(runs);
    }
    Ok(total / pairs.len() as f64)
}

/// The resident GPU ms per frame of a ladder of `lanes` renditions of
/// `selection`'s features against each pair's reference, as
/// [`resident_ms`] times a pair, from pipelines sharing what each of
/// [`LADDER_SHARING`] says, in that order. Rendition `k` is the pair's
/// distorted frame brightened by `k`, so the lanes differ.
fn ladder_ms(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    selection: &Selection,
    pairs: &[FramePair],
    lanes: usize,
) -> Result<[f64; 3]> {
    let sets: Vec<&FeatureSet> = vec![selection.features(); lanes];
    let mut pipelines = LADDER_SHARING
        .iter()
        .map(|&sharing| ScorePipeline::with_lanes_sharing(ctx, geometry, &sets, sharing))
        .collect::<Result<Vec<_>, _>>()?;
    let mut totals = [0.0; 3];
    for pair in pairs {
        let distorted = (0..lanes)
            .map(|k| {
                let mut frame = pair.distorted.clone();
                frame.data.iter_mut().for_each(|s| *s = s.saturating_add(k as u8));
                Some(frame)
            })
            .collect();
        let group = FrameGroup { index: 0, reference: pair.reference.clone(), distorted };
        for (pipeline, total) in pipelines.iter_mut().zip(&mut totals) {
            let warm = Instant::now();
            while warm.elapsed().as_secs_f64() < 0.2 {
                pipeline.time_resident_group(&group, 32)?;
            }
            let runs = (0..5)
                .map(|_| pipeline.time_resident_group(&group, 32))
                .collect::<Result<Vec<_>, _>>()?;
            *total += median(runs);
        }
    }
    Ok(totals.map(|t| t / pairs.len() as f64))
}

/// The ladders [`ladder_ms`] times: everything shared (as `score -r REF -d
/// A -d B …` does with renditions of one length), only the features that
/// read the reference alone (motion; what ladders shared before the
/// reference terms), nothing.
const LADDER_SHARING: [Sharing; 3] = [
    Sharing { reference_only: true, terms: true },
    Sharing { reference_only: true, terms: false },
    Sharing { reference_only: false, terms: false },
];

/// One instance's dispatches: each one's name and its median ms on each
/// distinct frame.
type DispatchFigures = Vec<(&'static str, Vec<f64>)>;

/// Per instance, each dispatch alone between barriers: for each of `pairs`,
/// the median ms of 16 frames after at least 200 ms of frames back to back.
fn dispatch_ms(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    selection: &Selection,
    pairs: &[FramePair],
) -> Result<Vec<DispatchFigures>> {
    let mut pipeline = ScorePipeline::new(ctx, geometry, selection.features())?;
    let mut instances: Vec<DispatchFigures> = Vec::new();
    for pair in pairs {
        for (i, (_, phases)) in pipeline.time_dispatches(pair, 16)?.into_iter().enumerate() {
            if instances.len() <= i {
                instances.push(phases.iter().map(|&(n, _)| (n, Vec::new())).collect());
            }
            for ((_, per_frame), (_, ms)) in instances[i].iter_mut().zip(phases) {
                per_frame.push(ms);
            }
        }
    }
    Ok(instances)
}

/// One dispatch's milliseconds on the distinct frames: one figure where they
/// agree within 10 %, else each frame's, `/`-separated.
fn frame_figures(per_frame: &[f64]) -> String {
    let lo = per_frame.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = per_frame.iter().copied().fold(0.0, f64::max);
    if hi <= lo * 1.1 {
        format!("{:.3}", median(per_frame.to_vec()))
    } else {
        per_frame.iter().map(|ms| format!("{ms:.3}")).collect::<Vec<_>>().join("/")
    }
}

/// Extensions of the reference and distorted clips after [`clip_base`].
pub const CLIP_SUFFIXES: [&str; 2] = ["ref.y4m", "dis.y4m"];

/// The clips of `geometry` in `dir`, without their extensions.
fn clip_base(dir: &std::path::Path, geometry: Geometry) -> std::path::PathBuf {
    dir.join(format!("bench-{}x{}", geometry.width, geometry.height))
}

fn clip_exists(path: &std::path::Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{} exists: vqscope does not overwrite files (remove it or keep the clips in another \
         folder)",
        path.display()
    )
}

/// A folder of this process's own in the system's temporary folder, removed
/// with what it holds when dropped: the benchmarks' synthetic clips go there
/// unless the user keeps them, so two runs never write the same files.
pub struct ScratchDir(std::path::PathBuf);

impl ScratchDir {
    pub fn new() -> Result<Self> {
        let dir = std::env::temp_dir().join(format!("vqscope-bench-{}", std::process::id()));
        // A leftover of an earlier process that had this id.
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Self(dir))
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Writes `frames` pairs as two new y4m files (an existing file is an
/// error, never overwritten); returns the reference path (the distorted one
/// has the extension `.dis.y4m`).
pub fn write_y4m(
    dir: &std::path::Path,
    geometry: Geometry,
    pairs: &[(Frame, Frame)],
    frames: u64,
) -> Result<std::path::PathBuf> {
    let base = clip_base(dir, geometry);
    let header =
        format!("YUV4MPEG2 W{} H{} F25:1 Ip A1:1 C420jpeg\n", geometry.width, geometry.height);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (pick, suffix) in CLIP_SUFFIXES.into_iter().enumerate() {
        let path = base.with_extension(suffix);
        let file = match std::fs::File::create_new(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(clip_exists(&path));
            }
            other => other.with_context(|| format!("cannot create {}", path.display()))?,
        };
        let mut out = std::io::BufWriter::new(file);
        out.write_all(header.as_bytes())?;
        for i in 0..frames {
            let (r, d) = &pairs[i as usize % pairs.len()];
            out.write_all(b"FRAME\n")?;
            out.write_all(if pick == 0 { &r.data } else { &d.data })?;
        }
        out.flush()?;
    }
    Ok(base)
}

/// Frames per second scoring the y4m pair through the decoder thread.
fn score_y4m(
    ctx: &Arc<GpuContext>,
    base: &std::path::Path,
    geometry: Geometry,
    selection: &Selection,
) -> Result<f64> {
    let (r, d) = (base.with_extension("ref.y4m"), base.with_extension("dis.y4m"));
    let pair = Pair::new(open_input(&r, None)?, open_input(&d, None)?, PairOptions::default())?;
    let mut pipeline = Scorer::new(ctx, geometry, selection)?;
    let mut decoder = Decoder::spawn(pair, 8)?;
    let start = Instant::now();
    let mut n = 0u64;
    while let Some(pair) = decoder.recv()? {
        pipeline.push(&pair)?;
        pair.recycle();
        n += 1;
    }
    pipeline.finish()?;
    decoder.shutdown()?;
    Ok(n as f64 / start.elapsed().as_secs_f64())
}
