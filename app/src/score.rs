//! `vqscope score`: headless scoring with libvmaf's flags and reports. This
//! file only parses arguments and prints; choosing features, running the
//! GPU pipeline, predicting and building the report are
//! `vqscope_metrics::vmaf`'s.

use std::fmt::Display;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clap::builder::TypedValueParser as _;
use vqscope_gpu::ContextOptions;
use vqscope_metrics::frontend::{self, ModelLabel, REPORT_VERSION, SelectionArgs};
use vqscope_metrics::report::{Format, ReportStream};
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::error::Shown;
use vqscope_video::{Decoder, PairOptions, READ_AHEAD, VideoSource};

use crate::decode_arg::EarlyContext;
use crate::info::RawArgs;

#[derive(clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true, version)]
pub struct Args {
    /// Print help (`-h` is the raw height, as in libvmaf).
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Print vqscope's version and exit (libvmaf's `-v`).
    #[arg(short = 'v', long, action = clap::ArgAction::Version)]
    version: Option<bool>,
    /// Reference input: y4m, raw .yuv (with -w -h -p -b), anything ffmpeg reads, or `-` for
    /// stdin.
    #[arg(short = 'r', long, required_unless_present = "features")]
    reference: Option<PathBuf>,
    /// Distorted input (same forms as -r). Repeat it to score an encoding ladder, every
    /// rendition against the one reference, which is then read once: a report per rendition
    /// (with -o a folder, or a path containing {name}, the rendition's file stem) and its
    /// pooled scores printed after its name.
    #[arg(short = 'd', long, required_unless_present = "features")]
    distorted: Vec<PathBuf>,
    /// Scale a distorted input of another size to the reference's size, bicubic as
    /// ffmpeg's `scale` filter's default (`ffmpeg -vf scale=W:H` before libvmaf), and score
    /// the scaled frames. Of the same pixel format it is read at its own size and scaled on
    /// the GPU with swscale's arithmetic (what ffmpeg gives with
    /// flags=bicubic+accurate_rnd+bitexact at 8 bits, with -cpuflags 0 above); of another
    /// format ffmpeg scales and converts it (files only, not stdin or raw).
    #[arg(long)]
    pub(crate) scale_distorted: bool,
    #[command(flatten)]
    pub(crate) raw: RawArgs,
    /// Model (repeatable), colon-separated: `version=NAME` (built in: vmaf_v0.6.1 and its
    /// neg, 4k, b and float variants, the eight vmaf_v1.0.16_* models; an unknown NAME lists
    /// them all) or `path=FILE.json`;
    /// `name=` (the score's name, default `vmaf`), `enable_transform`, `disable_clip`,
    /// `EXTRACTOR.OPTION=VALUE` (e.g. `adm.adm_enhn_gain_limit=1.0`). Default:
    /// version=vmaf_v0.6.1.
    #[arg(short = 'm', long = "model")]
    models: Vec<String>,
    /// Extra feature (repeatable): `NAME` or `NAME=opt=value:opt=value`, as libvmaf takes it
    /// (an unknown NAME lists the ones vqscope computes). `NAME=help` lists its options.
    #[arg(long = "feature")]
    features: Vec<String>,
    /// Compute features only, no VMAF prediction: those of each --model (or preset) and
    /// --feature, as libvmaf does; with no --model, no default model's.
    #[arg(short = 'n', long = "no_prediction")]
    no_prediction: bool,
    /// Write the report as JSON.
    #[arg(long, group = "format")]
    json: bool,
    /// Write the report as CSV.
    #[arg(long, group = "format")]
    csv: bool,
    /// Write the report as XML (the default).
    #[arg(long, group = "format")]
    xml: bool,
    /// Write the report as subtitles.
    #[arg(long, group = "format")]
    sub: bool,
    /// Report file (none: only the pooled scores are printed).
    #[arg(short = 'o', long)]
    pub(crate) output: Option<PathBuf>,
    /// Score at most this many frames (0: all of them, as in libvmaf).
    #[arg(long = "frame_cnt")]
    frame_cnt: Option<u64>,
    /// Skip this many reference frames first.
    #[arg(long = "frame_skip_ref", default_value_t = 0)]
    pub(crate) frame_skip_ref: u64,
    /// Skip this many distorted frames first.
    #[arg(long = "frame_skip_dist", default_value_t = 0)]
    pub(crate) frame_skip_dist: u64,
    /// Report (and pool) every Nth frame (0 counts as 1, as in libvmaf).
    #[arg(
        long,
        default_value_t = 1,
        value_parser = clap::value_parser!(u64).map(frontend::every_nth)
    )]
    pub(crate) subsample: u64,
    /// Threads reading and decoding the inputs (the CPU work vqscope does; the metrics run
    /// on the GPU). Default: up to 4.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,
    /// Accepted for libvmaf compatibility and ignored: libvmaf restricts its CPU SIMD paths
    /// with it; vqscope's results do not depend on the instruction set.
    #[arg(long)]
    cpumask: Option<String>,
    /// Accepted for libvmaf compatibility and ignored: pick the GPU with VQSCOPE_DEVICE.
    #[arg(long)]
    gpumask: Option<String>,
    /// libvmaf's AOM CTC preset (v1.0 … v7.0): vmaf and vmaf_neg models, psnr, float_ssim,
    /// float_ms_ssim, ciede, psnr_hvs and (v3.0 on) cambi.
    #[arg(long = "aom_ctc")]
    aom_ctc: Option<String>,
    /// libvmaf's Netflix CTC preset (v1.0): 4K vmaf and vmaf_neg models, psnr, float_ssim and
    /// cambi.
    #[arg(long = "nflx_ctc")]
    nflx_ctc: Option<String>,
    /// No progress line.
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
    /// Print where the time went to stderr: each start-up step (inputs, Vulkan instance and
    /// device, pipelines, the pipeline cache file), reading, GPU and report. (`-v` is
    /// libvmaf's `--version`.) The pipeline cache lives in $XDG_CACHE_HOME/vqscope or
    /// ~/.cache/vqscope; VQSCOPE_PIPELINE_CACHE=DIR moves it, `off` disables it.
    #[arg(long)]
    verbose: bool,
    #[command(flatten)]
    decode: crate::decode_arg::DecodeArg,
}

impl Args {
    /// The reference and the distorted inputs. clap lets them be left out
    /// when a `--feature` is given, so that `--feature NAME=help` needs no
    /// inputs; any other command needs both.
    pub(crate) fn inputs(&self) -> Result<(&Path, &[PathBuf])> {
        match (&self.reference, self.distorted.as_slice()) {
            (Some(reference), distorted @ [_, ..]) => Ok((reference, distorted)),
            (None, _) => bail!("score needs -r/--reference (see `vqscope score --help`)"),
            (Some(_), []) => bail!("score needs -d/--distorted (see `vqscope score --help`)"),
        }
    }

    /// `--frame_cnt`, where libvmaf's 0 ("no limit") is none.
    pub(crate) fn frame_cnt(&self) -> Option<u64> {
        frontend::frame_limit(self.frame_cnt)
    }

    pub(crate) fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else if self.sub {
            Format::Sub
        } else {
            Format::Xml
        }
    }
}

/// The models and features the flags ask for.
pub(crate) fn selection(args: &Args) -> Result<(Selection, Vec<ModelLabel>)> {
    Ok(frontend::selection(&SelectionArgs {
        models: args.models.clone(),
        features: args.features.clone(),
        aom_ctc: args.aom_ctc.clone(),
        nflx_ctc: args.nflx_ctc.clone(),
        no_prediction: args.no_prediction,
        subsample: args.subsample,
    })?)
}

/// `--verbose`'s line for each compressed input: which decoder reads it,
/// and why not the device when ffmpeg does.
pub(crate) fn print_decoders(inputs: &[(&Path, &dyn VideoSource)]) {
    for (path, source) in inputs {
        if let Some(by) = source.decoded_by() {
            let _ = writeln!(std::io::stderr(), "vqscope: {}: {by}", Shown::new(path));
        }
    }
}

/// Wall-clock spans of one run, from process start, for `--verbose`: each
/// [`Clock::lap`] ends a span where the previous one ended.
struct Clock {
    started: Instant,
    last: Instant,
    lines: Vec<String>,
}

impl Clock {
    fn new(started: Instant) -> Self {
        Self { started, last: started, lines: Vec::new() }
    }

    /// Ends the span since the last lap: `what` took it.
    fn lap(&mut self, what: impl Display) {
        let now = Instant::now();
        self.line(0, now - self.last, what);
        self.last = now;
    }

    /// A part of the span just ended (or a sum over a loop's turns).
    fn part(&mut self, took: Duration, what: impl Display) {
        self.line(1, took, what);
    }

    /// The time since process start.
    fn total(&mut self, what: impl Display) {
        self.line(0, self.started.elapsed(), what);
    }

    fn line(&mut self, depth: usize, took: Duration, what: impl Display) {
        let ms = took.as_secs_f64() * 1e3;
        self.lines.push(format!(
            "vqscope: {:indent$}{ms:>9.1} ms  {what}",
            "",
            indent = depth * 13
        ));
    }
}

/// Scores the inputs; `started` is when the process started, which the
/// fps and `--verbose` count from.
pub fn run(args: Args, started: Instant) -> Result<()> {
    let mut clock = Clock::new(started);
    if let Some(spec) = args.features.iter().find(|f| f.ends_with("=help")) {
        return print_feature_help(spec.trim_end_matches("=help"));
    }
    args.decode.apply()?;
    let (reference_path, distorted) = args.inputs()?;
    if distorted.len() > 1 {
        return crate::ladder::run(args, started);
    }
    let distorted_path = &distorted[0];
    if let Some(output) = &args.output {
        crate::output::check_report_path("-o", output, &[reference_path, distorted_path])?;
    }
    let (selection, labels) = selection(&args)?;
    let geometry = args.raw.geometry()?;
    let inputs = [reference_path, distorted_path.as_path()];
    let context =
        EarlyContext::begin(ContextOptions::from_env_cached(), &inputs, geometry.is_some());
    clock.lap("command line and models");
    vqscope_video::check_stream_inputs(&inputs)?;
    let options = PairOptions {
        frame_skip_ref: args.frame_skip_ref,
        frame_skip_dist: args.frame_skip_dist,
        frame_cnt: args.frame_cnt(),
    };
    let mut pair = frontend::open_pair(
        reference_path,
        distorted_path,
        geometry,
        args.scale_distorted,
        options,
    )?;
    let clip_geometry = pair.reference().info().geometry;
    if let Some(line) = frontend::scale_notice(pair.distorted().info())
        && !args.quiet
    {
        eprintln!("vqscope: {line}");
    }
    if args.verbose {
        print_decoders(&[(reference_path, pair.reference()), (distorted_path, pair.distorted())]);
    }
    let distorted_info = pair.distorted().info().clone();
    clock.lap("opening the inputs");
    // Before any GPU work: an empty input is a one-line error, not a
    // device allocation for nothing.
    let has_frames = pair.has_frames()?;
    for warning in pair.warnings() {
        eprintln!("vqscope: warning: {warning}");
    }
    if !has_frames {
        bail!("no frames to score");
    }
    let total = pair.frame_count();
    clock.lap("probing the inputs");
    // Reading starts now, while the GPU side starts up.
    let mut decoder = match args.threads {
        Some(n) => Decoder::spawn_workers(pair, READ_AHEAD, n as usize)?,
        None => Decoder::spawn(pair, READ_AHEAD)?,
    };
    clock.lap("starting the readers");
    let ctx = context.take(&ContextOptions::from_env_cached())?;
    clock.lap(format!("GPU context on {}", ctx.info().name));
    for &(step, took) in ctx.startup_spans() {
        clock.part(took, step);
    }
    let mut scorer = Scorer::new(&ctx, clip_geometry, &selection)?;
    scorer.scale_lane(0, &distorted_info)?;
    let stats = ctx.pipeline_stats();
    clock.lap(format!(
        "{} pipelines (a thread per feature) and buffers: shader modules {:.1} ms, \
         vkCreateComputePipelines {:.1} ms, summed over threads",
        stats.pipelines,
        stats.modules.as_secs_f64() * 1e3,
        stats.creation.as_secs_f64() * 1e3
    ));
    let cache = ctx.save_pipeline_cache().unwrap_or_else(|e| format!("not saved: {e}"));
    clock.lap(format!("pipeline cache save: {cache}; at start: {}", ctx.pipeline_cache_note()));
    clock.total("start-up");
    let progress = !args.quiet && std::io::stderr().is_terminal();
    // The frames go to the report as they come (its frame lines to a
    // scratch file, each metric pooled on the fly): memory stays flat
    // however long the clip.
    let mut frames = match &args.output {
        Some(output) => {
            ReportStream::new(args.format(), args.subsample, crate::output::scratch_file(output)?)
        }
        None => ReportStream::pool_only(args.subsample),
    };
    let body_error = |e: std::io::Error| anyhow::anyhow!("writing the report's frames: {e}");
    let mut read = 0u64;
    // Where the frame loop's time goes: waiting for the readers, the
    // scorer (copy to staging, submit, wait for the GPU, predict), the
    // report's lines and progress.
    let (mut waiting, mut scoring, mut reporting) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    loop {
        let asked = Instant::now();
        let Some(pair) = decoder.recv()? else { break };
        let got = Instant::now();
        let scored = scorer.push(&pair)?;
        let pushed = Instant::now();
        for f in scored {
            frames.push(&f.names, &f.values).map_err(body_error)?;
        }
        pair.recycle();
        read += 1;
        if progress {
            let of = total.map_or(String::new(), |t| format!("/{t}"));
            eprint!("\rvqscope: frame {read}{of}");
        }
        waiting += got - asked;
        scoring += pushed - got;
        reporting += pushed.elapsed();
    }
    let finishing = Instant::now();
    let scored = scorer.finish()?;
    scoring += finishing.elapsed();
    for f in scored {
        frames.push(&f.names, &f.values).map_err(body_error)?;
    }
    if progress {
        eprintln!();
    }
    clock.lap(format!("{read} frame pairs"));
    clock.part(waiting, "waiting for read and decode");
    clock.part(scoring, "scoring: upload, GPU, prediction");
    clock.part(reporting, "report lines and progress");
    for warning in decoder.end_warnings() {
        eprintln!("vqscope: warning: {warning}");
    }
    decoder.shutdown()?;
    let count = frames.frame_count();
    if count == 0 {
        bail!("no frames to score");
    }
    // As libvmaf's report, frames over seconds; but the seconds of the
    // whole command so far (start-up, reading, everything), not only
    // those of the frame loop.
    let fps = |elapsed: Duration| count as f64 / elapsed.as_secs_f64().max(1e-9);
    // As libvmaf: each model's pooled mean, then each bootstrap
    // collection's pooled bagging score, CI and stddev.
    let lines = frontend::pooled_lines(&labels, |name| frames.pooled_mean(name));
    if let Some(output) = &args.output {
        let size = (clip_geometry.width, clip_geometry.height);
        let aggregates = scorer.aggregates();
        crate::output::write_atomically(output, |w| {
            frames.finish(REPORT_VERSION, fps(started.elapsed()), size, &aggregates, w)
        })?;
    }
    // With the report on stdout, the pooled scores go to stderr (as
    // libvmaf prints them) so that stdout stays one JSON/XML/CSV document.
    let to_stdout = !args.output.as_deref().is_some_and(crate::output::is_stdout);
    let say = |line: String| -> Result<()> {
        if to_stdout {
            crate::output::outln!("{line}")?;
        } else {
            eprintln!("{line}");
        }
        Ok(())
    };
    for line in lines {
        say(line)?;
    }
    clock.lap("stopping the readers, report and scores");
    let elapsed = started.elapsed();
    if args.verbose {
        clock.total(format!("in all, from process start ({:.1} fps)", fps(elapsed)));
        for line in &clock.lines {
            eprintln!("{line}");
        }
    }
    eprintln!(
        "vqscope: {count} frames in {:.2} s ({:.1} fps, start-up included)",
        elapsed.as_secs_f64(),
        fps(elapsed)
    );
    Ok(())
}

/// `--feature NAME=help`: the feature's options with their defaults.
fn print_feature_help(name: &str) -> Result<()> {
    let feature = vqscope_metrics::features::find(name)?;
    crate::output::outln!("{name}: options (NAME=opt=value:opt=value)")?;
    for o in feature.options() {
        let alias = o.alias.map_or(String::new(), |a| format!(" (in names: _{a})"));
        crate::output::outln!("  {}={}{alias}: {}", o.name, o.default, o.help)?;
    }
    Ok(())
}
