//! `vqscope score`: headless scoring with libvmaf's flags and reports. The
//! features are computed on the GPU (one upload per frame pair, a few
//! hundred bytes read back), turned into values by the same host code the
//! CPU twins use, and fed to the VMAF model.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_metrics::adm::AdmOptions;
use vqscope_metrics::model::Model;
use vqscope_metrics::motion::MotionParams;
use vqscope_metrics::pipeline::{FeatureSelection, FrameScores, ScorePipeline};
use vqscope_metrics::psnr::PsnrParams;
use vqscope_metrics::report::{Format, Report, feature_name_alias};
use vqscope_metrics::vif::VifOptions;
use vqscope_video::{Decoder, Pair, PairOptions, open_input};

use crate::info::RawArgs;

/// Version written into reports.
pub(crate) const REPORT_VERSION: &str = concat!("vqscope-", env!("CARGO_PKG_VERSION"));

/// Features `--feature` accepts.
const FEATURES: [&str; 6] = ["psnr", "float_ssim", "float_ms_ssim", "vif", "adm", "motion"];

#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// Print help (`-h` is the raw height, as in libvmaf).
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
    /// Reference input (y4m, raw .yuv with -w -h -p -b, or anything ffmpeg reads).
    #[arg(short = 'r', long)]
    reference: PathBuf,
    /// Distorted input.
    #[arg(short = 'd', long)]
    distorted: PathBuf,
    #[command(flatten)]
    raw: RawArgs,
    /// Model: `version=NAME` (vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1) or `path=FILE`.
    #[arg(long, default_value = "version=vmaf_v0.6.1")]
    model: String,
    /// Extra feature to compute (repeatable): psnr, float_ssim, float_ms_ssim, vif, adm,
    /// motion; `NAME=debug=true` also reports libvmaf's debug values.
    #[arg(long = "feature")]
    features: Vec<String>,
    /// Compute features only, no VMAF prediction.
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
    /// Report file (none: only the pooled score is printed).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Score at most this many frames.
    #[arg(long = "frame_cnt")]
    frame_cnt: Option<u64>,
    /// Skip this many reference frames first.
    #[arg(long = "frame_skip_ref", default_value_t = 0)]
    frame_skip_ref: u64,
    /// Skip this many distorted frames first.
    #[arg(long = "frame_skip_dist", default_value_t = 0)]
    frame_skip_dist: u64,
    /// Report every Nth frame.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    subsample: u64,
    /// No progress bar.
    #[arg(short = 'q', long)]
    quiet: bool,
}

impl Args {
    fn format(&self) -> Format {
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

/// Refuses an output that is a directory, one of the inputs, or in a
/// folder that does not exist (before any frame is scored, not after).
fn check_report_path(output: &Path, inputs: &[&Path]) -> Result<()> {
    if output.is_dir() {
        bail!("-o {}: is a directory", output.display());
    }
    let parent = output.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(parent) = parent
        && !parent.is_dir()
    {
        bail!("-o {}: folder {} does not exist", output.display(), parent.display());
    }
    if let Ok(out) = output.canonicalize() {
        for input in inputs {
            if input.canonicalize().is_ok_and(|i| i == out) {
                bail!("-o {}: refusing to overwrite an input", output.display());
            }
        }
    }
    Ok(())
}

/// The feature set the model and `--feature` flags ask for.
pub(crate) fn selection(model: Option<&Model>, extra: &[String]) -> Result<FeatureSelection> {
    let mut sel = FeatureSelection::default();
    if let Some(model) = model {
        for feature in model.features() {
            match feature.extractor() {
                Some("vif") => {
                    let mut options = VifOptions::default();
                    if let Some(egl) = feature.option_f64("vif_enhn_gain_limit") {
                        options.enhn_gain_limit = egl;
                    }
                    sel.vif = Some(options);
                }
                Some("adm") => {
                    let mut options = AdmOptions::default();
                    if let Some(egl) = feature.option_f64("adm_enhn_gain_limit") {
                        options.enhn_gain_limit = egl;
                    }
                    sel.adm = Some(options);
                }
                Some("motion") => sel.motion = Some(MotionParams::default()),
                other => bail!(
                    "model {} needs feature {} ({}), which vqscope does not compute",
                    model.name(),
                    feature.name,
                    other.unwrap_or("unknown extractor")
                ),
            }
        }
    }
    for spec in extra {
        // libvmaf's `NAME=opt=value:...` form; only `debug=true` is read.
        let (name, options) = spec.split_once('=').unwrap_or((spec.as_str(), ""));
        for option in options.split(':').filter(|o| !o.is_empty()) {
            match option {
                "debug=true" => sel.debug = true,
                "debug=false" => {}
                other => bail!("--feature {spec}: unsupported option `{other}`"),
            }
        }
        match name {
            "psnr" => sel.psnr = Some(PsnrParams::default()),
            "float_ssim" => sel.float_ssim = true,
            "float_ms_ssim" => sel.float_ms_ssim = true,
            "vif" => sel.vif = sel.vif.take().or_else(|| Some(VifOptions::default())),
            "adm" => sel.adm = sel.adm.take().or_else(|| Some(AdmOptions::default())),
            "motion" => sel.motion = sel.motion.take().or_else(|| Some(MotionParams::default())),
            other => bail!("unknown feature `{other}`; known: {}", FEATURES.join(", ")),
        }
    }
    Ok(sel)
}

pub fn run(args: Args) -> Result<()> {
    if let Some(output) = &args.output {
        check_report_path(output, &[&args.reference, &args.distorted])?;
    }
    let model = if args.no_prediction { None } else { Some(Model::from_spec(&args.model)?) };
    let selection = selection(model.as_ref(), &args.features)?;
    let geometry = args.raw.geometry()?;
    let reference = open_input(&args.reference, geometry)?;
    let distorted = open_input(&args.distorted, geometry)?;
    let clip_geometry = reference.info().geometry;
    let pair = Pair::new(
        reference,
        distorted,
        PairOptions {
            frame_skip_ref: args.frame_skip_ref,
            frame_skip_dist: args.frame_skip_dist,
            frame_cnt: args.frame_cnt,
        },
    )?;
    for warning in pair.warnings() {
        eprintln!("vqscope: warning: {warning}");
    }
    let total = pair.frame_count();
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    let mut pipeline = ScorePipeline::new(&ctx, clip_geometry, selection)?;
    let mut decoder = Decoder::spawn(pair, 8)?;
    let progress = !args.quiet && std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut frames: Vec<FrameScores> = Vec::new();
    let mut read = 0u64;
    while let Some(pair) = decoder.recv()? {
        frames.extend(pipeline.push(&pair)?);
        pair.recycle();
        read += 1;
        if progress {
            let of = total.map_or(String::new(), |t| format!("/{t}"));
            eprint!("\rvqscope: frame {read}{of}");
        }
    }
    frames.extend(pipeline.finish()?);
    decoder.shutdown()?;
    let elapsed = start.elapsed().as_secs_f64();
    if progress {
        eprintln!();
    }
    if frames.is_empty() {
        bail!("no frames to score");
    }
    frames.sort_by_key(|f| f.index);
    if let Some(model) = &model {
        add_predictions(model, &mut frames)?;
    }
    let fps = frames.len() as f64 / elapsed.max(1e-9);
    let report = build_report(
        &frames,
        fps,
        (clip_geometry.width, clip_geometry.height),
        args.subsample as usize,
    );
    if let Some(output) = &args.output {
        let mut file =
            std::fs::File::create(output).with_context(|| format!("-o {}", output.display()))?;
        report
            .write(args.format(), &mut file)
            .with_context(|| format!("-o {}", output.display()))?;
    }
    if model.is_some() {
        let scores: Vec<f64> = frames.iter().filter_map(|f| f.get("vmaf")).collect();
        if let Some(pooled) = vqscope_metrics::pool::pool(&scores) {
            println!("{}: {:.6}", model_label(&args.model), pooled.mean);
        }
    }
    let _ = std::io::stdout().flush();
    eprintln!("vqscope: {} frames in {:.2} s ({:.1} fps)", frames.len(), elapsed, fps);
    Ok(())
}

/// Appends `vmaf` to every frame from the model's features.
pub(crate) fn add_predictions(model: &Model, frames: &mut [FrameScores]) -> Result<()> {
    for frame in frames {
        let inputs = model
            .features()
            .iter()
            .map(|f| {
                let key = feature_name_alias(&f.name);
                frame.get(key).with_context(|| format!("frame {} has no {key}", frame.index))
            })
            .collect::<Result<Vec<f64>>>()?;
        frame.values.push(("vmaf", model.predict(&inputs)));
    }
    Ok(())
}

/// The report of scored `frames` (frame order, each with the same values
/// as the first): shared by `score` and the dashboard's exports.
pub(crate) fn build_report(
    frames: &[FrameScores],
    fps: f64,
    size: (u32, u32),
    subsample: usize,
) -> Report {
    let names: Vec<String> = frames
        .first()
        .map_or(Vec::new(), |f| f.values.iter().map(|(n, _)| n.to_string()).collect());
    let table: Vec<Vec<f64>> =
        frames.iter().map(|f| f.values.iter().map(|(_, v)| *v).collect()).collect();
    Report::from_table(REPORT_VERSION, fps, size, &names, &table, subsample)
}

/// What libvmaf's CLI prints before the pooled score: the model's version
/// or path from `--model version=NAME` / `path=FILE`.
fn model_label(spec: &str) -> &str {
    spec.split(':')
        .find_map(|part| part.strip_prefix("version=").or_else(|| part.strip_prefix("path=")))
        .unwrap_or(spec)
}
