//! An encoding ladder: many distorted renditions scored against one
//! reference in one process (`vqscope score -r REF -d A -d B …`, and each
//! reference's jobs of `vqscope batch`). The reference is opened and
//! decoded once per frame and shared by every rendition
//! ([`vqscope_video::share`]); there is one GPU context and one start-up.
//! Each rendition keeps everything else of a run of its own: its own
//! [`Pair`] (the same checks, skips and warnings), reader thread,
//! [`Scorer`] and report, so its values are those a separate
//! `vqscope score -r REF -d X` writes. A rendition that fails (a missing
//! file, another size, a model that does not load) is reported on its own
//! line and the others go on.
//!
//! Not shared yet: each scorer uploads the reference frame into its own
//! ring slot, and features whose per-frame terms depend on the reference
//! alone compute them once per rendition.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_metrics::frontend::{ModelLabel, REPORT_VERSION, open_pair, pooled_lines};
use vqscope_metrics::report::{Format, ReportStream};
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::{
    Decoder, Geometry, PairOptions, READ_AHEAD, RawGeometry, SharedSource, open_input, share,
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
        let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env_cached())?);
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
            frame_cnt: args.frame_cnt,
        },
        subsample: args.subsample,
        quiet: args.quiet,
    };
    let names: Vec<String> = renditions.iter().map(|r| r.name.clone()).collect();
    let results = score(&mut Gpu::default(), reference, renditions, &options, started)?;
    let mut failed = 0;
    for (name, result) in names.iter().zip(results) {
        if let Err(e) = result {
            failed += 1;
            eprintln!("vqscope: {name}: {}", crate::one_line(&e));
        }
    }
    if failed > 0 {
        bail!("{failed} of {} renditions failed", names.len());
    }
    Ok(())
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

/// A rendition whose inputs are open and being read.
struct Reading {
    index: usize,
    rendition: Rendition,
    decoder: Decoder,
}

/// A rendition being scored.
struct Scoring {
    index: usize,
    rendition: Rendition,
    decoder: Decoder,
    scorer: Scorer,
    frames: ReportStream<File>,
    /// The reference's width and height, for the report.
    size: (u32, u32),
}

/// Scores every rendition against `reference`: one result per rendition,
/// in order; `Err` only when nothing could be scored (the reference, the
/// GPU).
pub(crate) fn score(
    gpu: &mut Gpu,
    reference: &Path,
    renditions: Vec<Rendition>,
    options: &Options,
    started: Instant,
) -> Result<Vec<Result<()>>> {
    let source = open_input(reference, options.raw)?;
    let geometry = source.info().geometry;
    let readers = share(source, renditions.len());
    let mut results: Vec<Result<()>> = renditions.iter().map(|_| Ok(())).collect();
    let mut reading = Vec::new();
    for (index, (rendition, reader)) in renditions.into_iter().zip(readers).enumerate() {
        match start_reading(rendition, reader, geometry, options) {
            Ok((rendition, decoder)) => reading.push(Reading { index, rendition, decoder }),
            Err(e) => results[index] = Err(e),
        }
    }
    if reading.is_empty() {
        return Ok(results);
    }
    let ctx = gpu.get()?;
    // Every rendition's pipelines at once: mostly the driver compiling
    // (or finding them in the pipeline cache), which runs in parallel.
    let scorers: Vec<_> = std::thread::scope(|s| {
        let threads: Vec<_> = reading
            .iter()
            .map(|r| &r.rendition.selection)
            .map(|selection| s.spawn(|| Scorer::new(&ctx, geometry, selection)))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let _ = ctx.save_pipeline_cache();
    let mut scoring = Vec::new();
    for (r, scorer) in reading.into_iter().zip(scorers) {
        let frames = match (scorer, &r.rendition.report) {
            (Err(e), _) => Err(e.into()),
            (Ok(scorer), Some((path, format))) => crate::output::scratch_file(path)
                .map(|f| (scorer, ReportStream::new(*format, options.subsample, f))),
            (Ok(scorer), None) => Ok((scorer, ReportStream::pool_only(options.subsample))),
        };
        match frames {
            Ok((scorer, frames)) => scoring.push(Scoring {
                index: r.index,
                rendition: r.rendition,
                decoder: r.decoder,
                scorer,
                frames,
                size: (geometry.width, geometry.height),
            }),
            Err(e) => results[r.index] = Err(e),
        }
    }
    let progress = !options.quiet && std::io::stderr().is_terminal();
    let scored = AtomicU64::new(0);
    let count = scoring.len() as u64;
    // Each rendition on a thread of its own: their staging copies,
    // submissions and waits for the GPU overlap. The shared reference keeps
    // the readers within a few frames of each other (`shared::MAX_LEAD`);
    // a rendition that ends or fails leaves at once (dropping its reader).
    let finished = std::thread::scope(|s| {
        let threads: Vec<_> = scoring
            .into_iter()
            .map(|mut rendition| {
                let scored = &scored;
                s.spawn(move || {
                    let index = rendition.index;
                    loop {
                        match rendition.step() {
                            Ok(true) => scored.fetch_add(1, Ordering::Relaxed),
                            Ok(false) => return (index, rendition.finish(started)),
                            Err(e) => return (index, Err(e)),
                        };
                    }
                })
            })
            .collect();
        while progress && !threads.iter().all(|t| t.is_finished()) {
            eprint!("\rvqscope: frame {}", scored.load(Ordering::Relaxed) / count);
            std::thread::sleep(Duration::from_millis(200));
        }
        let mut done: Vec<_> = threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        done.sort_by_key(|(index, _)| *index);
        done
    });
    if progress {
        eprintln!();
    }
    for (index, result) in finished {
        results[index] = result.and_then(|f| {
            for line in f.lines {
                outln!("{line}")?;
            }
            eprintln!("{}", f.summary);
            Ok(())
        });
    }
    Ok(results)
}

/// Opens a rendition and pairs it with its reader of the reference, with
/// the messages a run of its own prints; its reading starts at once.
fn start_reading(
    rendition: Rendition,
    reference: SharedSource,
    geometry: Geometry,
    options: &Options,
) -> Result<(Rendition, Decoder)> {
    let mut pair = open_pair(
        Box::new(reference),
        &rendition.distorted,
        options.raw,
        rendition.scale,
        options.pair,
    )?;
    let name = &rendition.name;
    if let Some((w, h)) = pair.distorted().info().scaled_from
        && !options.quiet
    {
        eprintln!(
            "vqscope: {name}: distorted scaled from {w}x{h} to {}x{} (ffmpeg scale, bicubic)",
            geometry.width, geometry.height
        );
    }
    let has_frames = pair.has_frames()?;
    for warning in pair.warnings() {
        eprintln!("vqscope: {name}: warning: {warning}");
    }
    if !has_frames {
        bail!("no frames to score");
    }
    // One reader thread per rendition: the shared reference has a single
    // reader, so the pair cannot be reopened for more.
    let decoder = Decoder::spawn(pair, READ_AHEAD)?;
    Ok((rendition, decoder))
}

impl Scoring {
    /// Scores the rendition's next frame pair; `false` at its end.
    fn step(&mut self) -> Result<bool> {
        let Some(pair) = self.decoder.recv()? else { return Ok(false) };
        for f in self.scorer.push(&pair)? {
            self.frames.push(&f.names, &f.values).map_err(body_error)?;
        }
        pair.recycle();
        Ok(true)
    }

    /// The rest of the frames and the report; returns what to print (in
    /// rendition order, once every rendition is done).
    fn finish(self, started: Instant) -> Result<Finished> {
        let Scoring { rendition, decoder, mut scorer, mut frames, size, .. } = self;
        for f in scorer.finish()? {
            frames.push(&f.names, &f.values).map_err(body_error)?;
        }
        let name = &rendition.name;
        for warning in decoder.end_warnings() {
            eprintln!("vqscope: {name}: warning: {warning}");
        }
        decoder.shutdown()?;
        let count = frames.frame_count();
        if count == 0 {
            bail!("no frames to score");
        }
        let lines = pooled_lines(&rendition.labels, |name| frames.pooled_mean(name));
        if let Some((path, _)) = &rendition.report {
            // As a run of its own: frames over the seconds since the
            // process started, up to this report.
            let fps = count as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let aggregates = scorer.aggregates();
            crate::output::write_atomically(path, |w| {
                frames.finish(REPORT_VERSION, fps, size, &aggregates, w)
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
struct Finished {
    lines: Vec<String>,
    summary: String,
}

fn body_error(e: std::io::Error) -> anyhow::Error {
    anyhow!("writing the report's frames: {e}")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::rendition_names;

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
