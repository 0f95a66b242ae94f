//! An encoding ladder: many distorted renditions scored against one
//! reference in one process (`vqscope score -r REF -d A -d B …`, and each
//! reference's jobs of `vqscope batch`). The reference is read once per
//! frame and uploaded once per frame for every rendition: the renditions
//! are the lanes of one [`Group`] (each lane with the checks, skips and
//! warnings of a pair of its own) and of one [`Scorer`] (each lane with its
//! own models, features and values), so every rendition's values are those
//! a separate `vqscope score -r REF -d X` writes. Every input is read ahead
//! on threads of its own ([`ReadAhead`]). A rendition that fails (a missing
//! file, another size, a model that does not load, a read error) is
//! reported on its own line and the others go on.
//!
//! Features that read only the reference (motion) run once for every
//! rendition when all announce the same length; a rendition that then
//! ends apart is scored again without that ([`score_chunk`]).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_metrics::MetricsError;
use vqscope_metrics::frontend::{
    ModelLabel, REPORT_VERSION, open_distorted, open_distorted_all, pooled_lines, scale_notice,
};
use vqscope_metrics::pipeline::FrameScores;
use vqscope_metrics::report::{Format, ReportStream};
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::read_ahead::read_ahead_group;
use vqscope_video::{
    FrameUploader, Geometry, Group, PairOptions, RawGeometry, VideoSource, open_input,
};

use crate::output::outln;
use crate::score::{Args, selection};

/// One distorted input of a ladder and what to make of it.
pub(crate) struct Rendition {
    /// What messages and printed scores call it.
    pub name: String,
    pub distorted: PathBuf,
    /// Scale it to the reference's size first (`--scale-distorted`).
    pub scale: bool,
    pub selection: Selection,
    pub labels: Vec<ModelLabel>,
    /// The report file and its format (none: only the pooled scores).
    pub report: Option<(PathBuf, Format)>,
}

/// What every rendition of a ladder shares besides the reference.
pub(crate) struct Options {
    pub raw: Option<RawGeometry>,
    pub pair: PairOptions,
    pub subsample: u64,
    pub quiet: bool,
}

/// The GPU context, made when the first ladder needs it and kept for the
/// next (`vqscope batch` runs one ladder per reference).
#[derive(Default)]
pub(crate) struct Gpu {
    ctx: Option<Arc<GpuContext>>,
}

impl Gpu {
    fn get(&mut self) -> Result<Arc<GpuContext>> {
        if let Some(ctx) = &self.ctx {
            return Ok(Arc::clone(ctx));
        }
        let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env_cached())?;
        self.ctx = Some(Arc::clone(&ctx));
        Ok(ctx)
    }
}

/// `vqscope score` with several `-d`.
pub fn run(args: Args, started: Instant) -> Result<()> {
    // The models and features once per rendition (each has a scorer of
    // its own); a bad one fails here, before anything is written.
    let (reference, distorted) = args.inputs()?;
    let selections = distorted.iter().map(|_| selection(&args)).collect::<Result<Vec<_>>>()?;
    let names = rendition_names(distorted)?;
    let mut inputs: Vec<&Path> = vec![reference];
    inputs.extend(distorted.iter().map(PathBuf::as_path));
    let reports = report_paths(&args, &names, &inputs)?;
    vqscope_video::check_stream_inputs(&inputs)?;
    let mut renditions = Vec::new();
    let each = names.into_iter().zip(distorted).zip(reports).zip(selections);
    for (((name, distorted), report), (selection, labels)) in each {
        renditions.push(Rendition {
            name,
            distorted: distorted.clone(),
            scale: args.scale_distorted,
            selection,
            labels,
            report: report.map(|path| (path, args.format())),
        });
    }
    let options = Options {
        raw: args.raw.geometry()?,
        pair: PairOptions {
            frame_skip_ref: args.frame_skip_ref,
            frame_skip_dist: args.frame_skip_dist,
            frame_cnt: args.frame_cnt(),
        },
        subsample: args.subsample,
        quiet: args.quiet,
    };
    let names: Vec<String> = renditions.iter().map(|r| r.name.clone()).collect();
    let results = score(&mut Gpu::default(), reference, renditions, &options, started)?;
    let mut stdout_error = None;
    let failed = print_results(&names, results, &mut stdout_error);
    if failed > 0 {
        bail!("{failed} of {} renditions failed", names.len());
    }
    // A reader that closed stdout (main ends quietly) or a full disk
    // stopped the pooled lines only.
    stdout_error.map_or(Ok(()), Err)
}

/// Prints each rendition's outcome in order: its pooled scores (stdout)
/// and time (stderr), or its error (stderr); returns how many failed. A
/// failed write to stdout (a reader that went away) is no rendition's
/// failure: it stops the stdout lines and is kept in `stdout_error`.
pub(crate) fn print_results(
    names: &[String],
    results: Vec<Result<Finished>>,
    stdout_error: &mut Option<anyhow::Error>,
) -> usize {
    let mut failed = 0;
    for (name, result) in names.iter().zip(results) {
        match result {
            Ok(f) => {
                if stdout_error.is_none()
                    && let Err(e) = f.lines.iter().try_for_each(|line| outln!("{line}"))
                {
                    *stdout_error = Some(e);
                }
                eprintln!("{}", f.summary);
            }
            Err(e) => {
                failed += 1;
                eprintln!("vqscope: {name}: {}", crate::one_line(&e));
            }
        }
    }
    failed
}

/// What each distorted input is called: its file stem, or where two share
/// one, as many of the folders above it as tell them apart
/// (`1080p/out.mp4` and `720p/out.mp4` are `1080p_out` and `720p_out`).
/// Inputs no folder tells apart (the same file twice, `x.mp4` and `x.mkv`
/// side by side) are an error: their reports would overwrite each other.
pub(crate) fn rendition_names(paths: &[PathBuf]) -> Result<Vec<String>> {
    let parts: Vec<Vec<String>> = paths
        .iter()
        .map(|p| {
            let mut parts: Vec<String> = p
                .parent()
                .into_iter()
                .flat_map(Path::components)
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            let stem = p
                .file_stem()
                .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned());
            parts.push(stem);
            parts
        })
        .collect();
    let mut depth = vec![1usize; paths.len()];
    let name = |i: usize, depth: &[usize]| parts[i][parts[i].len() - depth[i]..].join("_");
    loop {
        let names: Vec<String> = (0..paths.len()).map(|i| name(i, &depth)).collect();
        let mut clash = None;
        let mut grew = false;
        for i in 0..paths.len() {
            if let Some(j) = (0..paths.len()).find(|&j| j != i && names[j] == names[i]) {
                clash = Some((i, j));
                if depth[i] < parts[i].len() {
                    depth[i] += 1;
                    grew = true;
                }
            }
        }
        match clash {
            None => return Ok(names),
            Some((i, j)) if !grew => bail!(
                "-d {} and -d {} would both be reported as `{}`: no folder above them tells \
                 them apart",
                paths[i].display(),
                paths[j].display(),
                parts[i][parts[i].len() - 1]
            ),
            Some(_) => {}
        }
    }
}

/// The report file of each rendition: `-o` with `{name}` replaced, or
/// `-o` as a folder (made if missing) holding `NAME.json` (`.xml`, …);
/// none may be one of `inputs`.
fn report_paths(args: &Args, names: &[String], inputs: &[&Path]) -> Result<Vec<Option<PathBuf>>> {
    let Some(output) = &args.output else { return Ok(vec![None; names.len()]) };
    if crate::output::is_stdout(output) {
        bail!(
            "-o -: several renditions make several reports; give a folder or a path with {{name}}"
        );
    }
    let template = output.to_string_lossy();
    let paths: Vec<PathBuf> = if template.contains("{name}") {
        names.iter().map(|n| PathBuf::from(template.replace("{name}", n))).collect()
    } else {
        if output.exists() && !output.is_dir() {
            bail!(
                "-o {}: with several -d, -o is a folder or a path containing {{name}}",
                output.display()
            );
        }
        std::fs::create_dir_all(output)
            .map_err(|e| anyhow!("-o {}: cannot make the folder: {e}", output.display()))?;
        let ext = args.format().extension();
        names.iter().map(|n| output.join(format!("{n}.{ext}"))).collect()
    };
    let mut seen = BTreeSet::new();
    for path in &paths {
        if !seen.insert(path) {
            bail!("-o {}: two renditions would write {}", output.display(), path.display());
        }
        crate::output::check_report_path("-o", path, inputs)?;
    }
    Ok(paths.into_iter().map(Some).collect())
}

/// A rendition being scored: its lane in the group and the scorer.
struct Lane {
    /// The rendition's place on the command line (and in the results).
    index: usize,
    rendition: Rendition,
    frames: ReportStream<File>,
    /// How many of the lane's warnings were printed when it started.
    warned: usize,
    /// Set once the lane failed; it scores nothing more.
    failed: bool,
    /// Its rendition turned out longer or shorter than announced while it
    /// shared reference-only features with others: score it again alone.
    diverged: bool,
}

/// Scores every rendition against `reference`: one result per rendition,
/// in order, with what to print for it ([`print_results`]); `Err` only
/// when nothing could be scored (the reference, the GPU).
pub(crate) fn score(
    gpu: &mut Gpu,
    reference: &Path,
    renditions: Vec<Rendition>,
    options: &Options,
    started: Instant,
) -> Result<Vec<Result<Finished>>> {
    let source = open_input(reference, options.raw)?;
    let geometry = source.info().geometry;
    let mut results: Vec<Result<Finished>> =
        renditions.iter().map(|_| Err(anyhow!("not scored"))).collect();
    // Each rendition opened and checked against the reference, with the
    // messages a run of its own prints; those that fail leave here.
    let paths: Vec<(&Path, bool)> =
        renditions.iter().map(|r| (r.distorted.as_path(), r.scale)).collect();
    let all = open_distorted_all(source.as_ref(), &paths, options.raw);
    let mut opened = Vec::new();
    for ((index, rendition), distorted) in renditions.into_iter().enumerate().zip(all) {
        match distorted {
            Ok(distorted) => {
                say_if_scaled(&rendition, distorted.as_ref(), options);
                opened.push((index, rendition, distorted));
            }
            Err(e) => results[index] = Err(e.into()),
        }
    }
    if opened.is_empty() {
        return Ok(results);
    }
    // As many renditions at once as one upload slot (the reference and a
    // frame per rendition, and the frame as read of each rendition the GPU
    // scales, counted at the largest) can hold within the device's storage
    // buffer range; the reference is read again for each further chunk.
    let ctx = gpu.get()?;
    let limit = u64::from(ctx.info().max_storage_buffer_range);
    let to_scale = opened.iter().filter_map(|(_, _, d)| d.info().frames_at);
    let extra = to_scale.map(|g| FrameUploader::slot_size(g, 1) / 2).max().unwrap_or(0);
    let per_chunk = lanes_per_pass(geometry, extra, limit, opened.len());
    let mut source = Some(source);
    let mut opened = opened.into_iter().peekable();
    while opened.peek().is_some() {
        let chunk: Vec<_> = opened.by_ref().take(per_chunk).collect();
        let input = match source.take() {
            Some(s) => Ok(s),
            None => open_input(reference, options.raw).map_err(anyhow::Error::from),
        };
        let again = match input {
            Ok(input) => score_chunk(&ctx, input, chunk, options, started, &mut results, true)?,
            Err(e) => {
                let line = crate::one_line(&e);
                for (index, ..) in chunk {
                    results[index] = Err(anyhow!("{line}"));
                }
                Vec::new()
            }
        };
        if !again.is_empty() {
            score_again(&ctx, reference, again, options, started, &mut results)?;
        }
    }
    Ok(results)
}

/// Scores renditions once more without sharing anything but the
/// reference's reading and upload (their lengths were not as announced).
fn score_again(
    ctx: &Arc<GpuContext>,
    reference: &Path,
    again: Vec<(usize, Rendition)>,
    options: &Options,
    started: Instant,
    results: &mut [Result<Finished>],
) -> Result<()> {
    let source = open_input(reference, options.raw)?;
    let mut chunk = Vec::new();
    for (index, rendition) in again {
        let opened =
            open_distorted(source.as_ref(), &rendition.distorted, options.raw, rendition.scale);
        match opened {
            Ok(distorted) => chunk.push((index, rendition, distorted)),
            Err(e) => results[index] = Err(e.into()),
        }
    }
    if !chunk.is_empty() {
        score_chunk(ctx, source, chunk, options, started, results, false)?;
    }
    Ok(())
}

/// How many of `renditions` one pass scores: the most whose upload slot
/// (the reference and a frame per rendition, plus `extra` bytes per
/// rendition) fits in `limit` bytes, at least one.
fn lanes_per_pass(geometry: Geometry, extra: u64, limit: u64, renditions: usize) -> usize {
    (2..=renditions)
        .take_while(|&n| FrameUploader::slot_size(geometry, n) + n as u64 * extra <= limit)
        .last()
        .unwrap_or(1)
}

/// Scores `chunk`'s renditions (opened, with their place in `results`)
/// against `source` in one pass: one group, one scorer. With `share`, and
/// when every rendition announces the same number of frames to score,
/// features that read only the reference (motion) run once for all; the
/// renditions whose length then turns out otherwise are returned, to be
/// scored again without that.
fn score_chunk(
    ctx: &Arc<GpuContext>,
    source: Box<dyn VideoSource>,
    chunk: Vec<(usize, Rendition, Box<dyn VideoSource>)>,
    options: &Options,
    started: Instant,
    results: &mut [Result<Finished>],
    share: bool,
) -> Result<Vec<(usize, Rendition)>> {
    let geometry = source.info().geometry;
    let (mut kept, distorted): (Vec<_>, Vec<_>) =
        chunk.into_iter().map(|(i, r, d)| ((i, r), d)).unzip();
    let mut group = read_ahead_group(source, distorted, options.pair, None)?;
    for (k, (_, rendition)) in kept.iter().enumerate() {
        for warning in group.warnings(k) {
            eprintln!("vqscope: {}: warning: {warning}", rendition.name);
        }
    }
    let warned: Vec<usize> = (0..kept.len()).map(|k| group.warnings(k).len()).collect();
    if !group.has_frames()? {
        for (k, (index, rendition)) in kept.into_iter().enumerate() {
            print_new_warnings(&rendition.name, &group.warnings(k)[warned[k]..]);
            results[index] = Err(anyhow!("no frames to score"));
        }
        return Ok(Vec::new());
    }
    let same_frames = share && group.same_announced_length();
    let scorer = build_scorer(ctx, geometry, &mut kept, &mut group, results, same_frames);
    let _ = ctx.save_pipeline_cache();
    let Some(mut scorer) = scorer else { return Ok(Vec::new()) };
    for k in 0..group.lanes() {
        scorer.scale_lane(k, group.distorted(k).info())?;
    }
    let mut lanes = Vec::new();
    for (k, (index, rendition)) in kept.into_iter().enumerate() {
        let frames = match &rendition.report {
            Some((path, format)) => crate::output::scratch_file(path)
                .map(|f| ReportStream::new(*format, options.subsample, f)),
            None => Ok(ReportStream::pool_only(options.subsample)),
        };
        match frames {
            Ok(frames) => {
                let warned = warned[k];
                lanes.push(Lane {
                    index,
                    rendition,
                    frames,
                    warned,
                    failed: false,
                    diverged: false,
                })
            }
            Err(e) => {
                results[index] = Err(e);
                group.close_lane(k);
                lanes.push(Lane {
                    index,
                    rendition,
                    frames: ReportStream::pool_only(options.subsample),
                    warned: warned[k],
                    failed: true,
                    diverged: false,
                });
            }
        }
    }
    let progress = !options.quiet && std::io::stderr().is_terminal();
    let mut shown = Instant::now();
    let mut failures = Vec::new();
    while let Some(frames) = group.next_group()? {
        let scored = scorer.push_group(&frames)?;
        let index = frames.index;
        frames.recycle();
        failures.extend(deliver(&mut lanes, &mut group, &mut scorer, scored));
        if progress && shown.elapsed() > Duration::from_millis(200) {
            eprint!("\rvqscope: frame {index}");
            shown = Instant::now();
        }
    }
    if progress {
        eprintln!();
    }
    let scored = scorer.finish_lanes()?;
    failures.extend(deliver(&mut lanes, &mut group, &mut scorer, scored));
    for (index, e) in failures {
        results[index] = Err(e);
    }
    let mut again = Vec::new();
    for (k, lane) in lanes.into_iter().enumerate() {
        if lane.diverged {
            again.push((lane.index, lane.rendition));
            continue;
        }
        if lane.failed {
            continue;
        }
        let aggregates = scorer.lane_aggregates(k);
        let name = lane.rendition.name.clone();
        print_new_warnings(&name, &group.warnings(k)[lane.warned..]);
        let size = (geometry.width, geometry.height);
        let index = lane.index;
        results[index] = lane.finish(&aggregates, size, started);
    }
    Ok(again)
}

/// Hands each lane its scored frames; a lane whose input or features
/// failed is closed and its error returned with its rendition's index.
fn deliver(
    lanes: &mut [Lane],
    group: &mut Group,
    scorer: &mut Scorer,
    scored: Vec<Vec<FrameScores>>,
) -> Vec<(usize, anyhow::Error)> {
    let mut failures = Vec::new();
    for (k, (lane, frames)) in lanes.iter_mut().zip(scored).enumerate() {
        if lane.failed {
            continue;
        }
        let failure = match (group.take_failure(k), scorer.take_failure(k)) {
            (Some(e), _) => Some(anyhow::Error::from(e)),
            (None, Some(MetricsError::LanesDiverged)) => {
                lane.failed = true;
                lane.diverged = true;
                group.close_lane(k);
                None
            }
            (None, Some(e)) => Some(e.into()),
            (None, None) => frames
                .iter()
                .try_for_each(|f| lane.frames.push(&f.names, &f.values))
                .map_err(body_error)
                .err(),
        };
        if let Some(e) = failure {
            lane.failed = true;
            group.close_lane(k);
            failures.push((lane.index, e));
        }
    }
    failures
}

fn print_new_warnings(name: &str, warnings: &[String]) {
    for warning in warnings {
        eprintln!("vqscope: {name}: warning: {warning}");
    }
}

/// One scorer for every lane; a lane whose models or features cannot be
/// built for these clips fails alone: its rendition's error is recorded,
/// its lane closed and the others built again without it. `None` when no
/// lane is left.
fn build_scorer(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    kept: &mut Vec<(usize, Rendition)>,
    group: &mut Group,
    results: &mut [Result<Finished>],
    same_frames: bool,
) -> Option<Scorer> {
    let selections: Vec<&Selection> = kept.iter().map(|(_, r)| &r.selection).collect();
    if let Ok(scorer) = Scorer::with_lanes(ctx, geometry, &selections, same_frames) {
        return Some(scorer);
    }
    // Which lanes fail: each built alone (the pipeline cache makes the
    // second build of a good lane cheap).
    let alone: Vec<_> = selections.iter().map(|s| Scorer::new(ctx, geometry, s)).collect();
    let mut kept_lanes = Vec::new();
    for (k, ((index, rendition), built)) in std::mem::take(kept).into_iter().zip(alone).enumerate()
    {
        match built {
            Ok(_) => {
                kept.push((index, rendition));
                kept_lanes.push(k);
            }
            Err(e) => results[index] = Err(e.into()),
        }
    }
    group.keep_lanes(&kept_lanes);
    let selections: Vec<&Selection> = kept.iter().map(|(_, r)| &r.selection).collect();
    if selections.is_empty() {
        return None;
    }
    match Scorer::with_lanes(ctx, geometry, &selections, same_frames) {
        Ok(scorer) => Some(scorer),
        Err(e) => {
            let line = crate::one_line(&e.into());
            for (index, _) in kept.drain(..) {
                results[index] = Err(anyhow!("{line}"));
            }
            None
        }
    }
}

/// Says so when a rendition's distorted input is scaled to the reference's
/// size, as a run of its own would.
fn say_if_scaled(rendition: &Rendition, distorted: &dyn VideoSource, options: &Options) {
    if let Some(line) = scale_notice(distorted.info())
        && !options.quiet
    {
        eprintln!("vqscope: {}: {line}", rendition.name);
    }
}

impl Lane {
    /// The report and what to print (in rendition order, once every
    /// rendition is done).
    fn finish(
        self,
        aggregates: &[(String, f64)],
        size: (u32, u32),
        started: Instant,
    ) -> Result<Finished> {
        let Lane { rendition, frames, .. } = self;
        let name = &rendition.name;
        let count = frames.frame_count();
        if count == 0 {
            bail!("no frames to score");
        }
        let lines = pooled_lines(&rendition.labels, |name| frames.pooled_mean(name));
        if let Some((path, _)) = &rendition.report {
            // As a run of its own: frames over the seconds since the
            // process started, up to this report.
            let fps = count as f64 / started.elapsed().as_secs_f64().max(1e-9);
            crate::output::write_atomically(path, |w| {
                frames.finish(REPORT_VERSION, fps, size, aggregates, w)
            })?;
        }
        Ok(Finished {
            lines: lines.into_iter().map(|line| format!("{name}: {line}")).collect(),
            summary: format!(
                "vqscope: {name}: {count} frames in {:.2} s",
                started.elapsed().as_secs_f64()
            ),
        })
    }
}

/// A rendition's printed lines: its pooled scores (stdout) and its frame
/// count and time (stderr).
pub(crate) struct Finished {
    lines: Vec<String>,
    summary: String,
}

fn body_error(e: std::io::Error) -> anyhow::Error {
    anyhow!("writing the report's frames: {e}")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use vqscope_video::{ChromaFormat, FrameUploader, Geometry, PixelFormat};

    use super::{lanes_per_pass, rendition_names};

    #[test]
    fn a_pass_takes_the_renditions_whose_slot_fits() {
        let format = PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 };
        let g = Geometry { width: 3840, height: 2160, format };
        let frame = FrameUploader::slot_size(g, 1) / 2;
        assert_eq!(lanes_per_pass(g, 0, u64::MAX, 30), 30);
        assert_eq!(lanes_per_pass(g, 0, 9 * frame, 30), 8);
        assert_eq!(lanes_per_pass(g, 0, 9 * frame - 1, 30), 7);
        assert_eq!(lanes_per_pass(g, 0, frame, 30), 1, "one at least");
        // Renditions read at a quarter of the size, scaled on the GPU.
        assert_eq!(lanes_per_pass(g, frame / 4, 9 * frame, 30), 6);
        assert_eq!(lanes_per_pass(g, 0, u64::MAX, 1), 1);
    }

    fn names(paths: &[&str]) -> anyhow::Result<Vec<String>> {
        rendition_names(&paths.iter().map(PathBuf::from).collect::<Vec<_>>())
    }

    #[test]
    fn names_are_stems_or_as_many_folders_as_tell_them_apart() {
        assert_eq!(names(&["enc/a.mp4", "b.y4m"]).unwrap(), ["a", "b"]);
        assert_eq!(
            names(&["/l/1080p/out.mp4", "l/720p/out.mp4", "x/out2.mp4"]).unwrap(),
            ["1080p_out", "720p_out", "out2"]
        );
        assert_eq!(names(&["s/a/x.mp4", "t/a/x.mp4", "a.mp4"]).unwrap(), ["s_a_x", "t_a_x", "a"]);
        assert_eq!(names(&["x/a.mp4", "a.mkv"]).unwrap(), ["x_a", "a"]);
        let e = names(&["d/x.mp4", "d/x.mkv"]).unwrap_err().to_string();
        assert!(e.contains("reported as `x`"), "{e}");
        assert!(names(&["a.y4m", "a.y4m"]).is_err());
    }
}
