//! What vqscope's front ends share — the `vqscope score` command and the
//! Python package — so that both read libvmaf's flags the same way and print
//! the same lines: the `--aom_ctc` / `--nflx_ctc` presets, the [`Selection`]
//! built from `--model` / `--feature` strings and flags, the pooled-score
//! lines printed after scoring, and an error chain on one line.

use std::path::Path;

use vqscope_video::scale::{SCALE_NAME, SWS_FLAGS};
use vqscope_video::{
    Geometry, Pair, PairOptions, RawGeometry, SourceInfo, VideoError, VideoSource,
    check_compatible, decode_choice, open_input, open_to_scale, with_decode_choice,
};

use crate::MetricsError;
use crate::model::{DEFAULT_MODEL, Model};
use crate::vmaf::Selection;

/// The version written into reports (the workspace's, so the CLI's and the
/// Python package's reports say the same).
pub const REPORT_VERSION: &str = concat!("vqscope-", env!("CARGO_PKG_VERSION"));

/// The model and feature flags of `vqscope score` (libvmaf's `--model`,
/// `--feature`, `--aom_ctc`, `--nflx_ctc`, `-n`).
#[derive(Debug, Clone, Default)]
pub struct SelectionArgs {
    /// `--model` strings, in order.
    pub models: Vec<String>,
    /// `--feature` strings, in order.
    pub features: Vec<String>,
    /// `--aom_ctc VERSION`.
    pub aom_ctc: Option<String>,
    /// `--nflx_ctc VERSION`.
    pub nflx_ctc: Option<String>,
    /// `-n`: features only, no model.
    pub no_prediction: bool,
    /// `--subsample`: which frames the report keeps (features that write
    /// files per frame, such as CAMBI's heat maps, follow it).
    pub subsample: u64,
}

/// A preset's models and features, as libvmaf's `--aom_ctc` / `--nflx_ctc`
/// add them.
struct Preset {
    models: &'static [&'static str],
    features: &'static [&'static str],
}

/// libvmaf 3.2's presets. AOM CTC v1.0 … v5.0 differ from v6.0 only in
/// cambi (v3.0+) and in v6.0's common bit depth (both inputs already share
/// one here); v7.0 sets float_ssim's `scale=1`.
fn preset(flag: &str, version: &str) -> Result<Preset, MetricsError> {
    const AOM_MODELS: &[&str] =
        &["version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg"];
    const AOM_V1: &[&str] = &[
        "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5",
        "ciede",
        "float_ssim=enable_db=true:clip_db=true",
        "float_ms_ssim=enable_db=true:clip_db=true",
        "psnr_hvs",
    ];
    const AOM_V3: &[&str] = &[
        "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5",
        "ciede",
        "float_ssim=enable_db=true:clip_db=true",
        "float_ms_ssim=enable_db=true:clip_db=true",
        "psnr_hvs",
        "cambi",
    ];
    const AOM_V7: &[&str] = &[
        "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5",
        "ciede",
        "float_ssim=scale=1:enable_db=true:clip_db=true",
        "float_ms_ssim=enable_db=true:clip_db=true",
        "psnr_hvs",
        "cambi",
    ];
    let usage = |message: String| Err(MetricsError::Usage(message));
    let p = match (flag, version) {
        ("aom_ctc", "v1.0" | "v2.0") => Preset { models: AOM_MODELS, features: AOM_V1 },
        ("aom_ctc", "v3.0" | "v4.0" | "v5.0" | "v6.0") => {
            Preset { models: AOM_MODELS, features: AOM_V3 }
        }
        ("aom_ctc", "v7.0") => Preset { models: AOM_MODELS, features: AOM_V7 },
        ("aom_ctc", "proposed") => {
            return usage("--aom_ctc proposed is deprecated (as in libvmaf)".to_owned());
        }
        ("nflx_ctc", "v1.0") => Preset {
            models: &[
                "version=vmaf_4k_v0.6.1:name=vmaf",
                "version=vmaf_4k_v0.6.1neg:name=vmaf_neg",
            ],
            features: &[
                "psnr=enable_chroma=true:enable_apsnr=true",
                "float_ssim=enable_db=true:clip_db=true",
                "cambi",
            ],
        },
        ("aom_ctc", _) => return usage(format!("--aom_ctc {version}: versions are v1.0 to v7.0")),
        _ => return usage(format!("--nflx_ctc {version}: the only version is v1.0")),
    };
    Ok(p)
}

/// libvmaf's `--frame_cnt`, where 0 means no limit (so none here).
pub fn frame_limit(frame_cnt: Option<u64>) -> Option<u64> {
    frame_cnt.filter(|&n| n > 0)
}

/// libvmaf's `--subsample`, where 0 counts as 1 (every frame).
pub fn every_nth(subsample: u64) -> u64 {
    subsample.max(1)
}

/// A selected model and what libvmaf prints its pooled score under (its
/// `version=` or `path=`).
#[derive(Debug, Clone)]
pub struct ModelLabel {
    pub label: String,
    pub model: Model,
}

/// The `version=NAME` or `path=FILE` of a `--model` string: what libvmaf
/// (and the dashboard) call a model.
pub fn model_label(spec: &str) -> &str {
    spec.split(':')
        .find_map(|part| part.strip_prefix("version=").or_else(|| part.strip_prefix("path=")))
        .unwrap_or(spec)
}

/// The models and features the flags ask for: the presets' first, then
/// `--model` (default: libvmaf's default model) and `--feature`.
pub fn selection(args: &SelectionArgs) -> Result<(Selection, Vec<ModelLabel>), MetricsError> {
    let mut models: Vec<String> = Vec::new();
    let mut features: Vec<String> = Vec::new();
    for (flag, version) in [("aom_ctc", &args.aom_ctc), ("nflx_ctc", &args.nflx_ctc)] {
        if let Some(version) = version {
            let p = preset(flag, version)?;
            models.extend(p.models.iter().map(|m| m.to_string()));
            features.extend(p.features.iter().map(|f| f.to_string()));
        }
    }
    models.extend(args.models.iter().cloned());
    features.extend(args.features.iter().cloned());
    let mut sel = Selection::new();
    let mut labels: Vec<ModelLabel> = Vec::new();
    // libvmaf adds its default model only when predicting; with -n, the
    // models named (by --model or a preset) still bring their features.
    if models.is_empty() && !args.no_prediction {
        models.push(format!("version={DEFAULT_MODEL}"));
    }
    for spec in &models {
        let model = Model::from_spec(spec)?;
        if labels.iter().any(|l| l.model.name() == model.name()) {
            return Err(MetricsError::Usage(format!(
                "--model {spec}: another model already reports as `{}`; give each a name= of \
                 its own",
                model.name()
            )));
        }
        if args.no_prediction {
            sel.add_model_features(&model)?;
        } else {
            sel.add_model(model.clone())?;
        }
        labels.push(ModelLabel { label: model_label(spec).to_owned(), model });
    }
    // -n: nothing is predicted, so no model's score is pooled or printed.
    if args.no_prediction {
        labels.clear();
    }
    for spec in &features {
        sel.add_feature(spec)?;
    }
    sel.set_subsample(every_nth(args.subsample));
    if sel.is_empty() {
        return Err(MetricsError::Usage(
            "nothing to compute: -n with no --model and no --feature".to_owned(),
        ));
    }
    Ok((sel, labels))
}

/// The lines libvmaf prints after scoring: each model's pooled mean under
/// its label, over the frames the report keeps; then each bootstrap
/// collection's pooled bagging score, CI and stddev. `pooled_mean(name)` is
/// the pooled mean of a column.
pub fn pooled_lines(
    labels: &[ModelLabel],
    pooled_mean: impl Fn(&str) -> Option<f64>,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for model in labels {
        if let Some(mean) = pooled_mean(model.model.name()) {
            lines.push(format!("{}: {mean:.6}", model.label));
        }
    }
    for model in labels {
        if let Some(summary) = model.model.bootstrap_summary(&pooled_mean) {
            lines.push(summary.cli_line(&model.label));
        }
    }
    lines
}

/// The pair a score run reads: `reference`, and `distorted` opened as it is
/// or, with `scale`, to be scaled to the reference's size
/// ([`open_distorted`]). A size or format mismatch says how to scale.
/// Without `scale` the two are opened side by side: opening a compressed
/// input (probing it, starting its decoder, reading a stream for the
/// device) is a good part of a short clip's time. The CLI and the Python
/// package open their pairs here.
pub fn open_pair(
    reference: &Path,
    distorted: &Path,
    raw: Option<RawGeometry>,
    scale: bool,
    options: PairOptions,
) -> Result<Pair, VideoError> {
    if scale {
        let reference = open_input(reference, raw)?;
        let distorted = open_distorted(reference.as_ref(), distorted, raw, scale)?;
        return Pair::new(reference, distorted, options);
    }
    let (reference, distorted) = std::thread::scope(|scope| {
        let distorted = open_aside(scope, move || open_input(distorted, raw));
        (open_input(reference, raw), joined(distorted))
    });
    // The reference's error first, as when they were opened in turn.
    let reference = reference?;
    let distorted = compatible(reference.as_ref(), distorted?)?;
    Pair::new(reference, distorted, options)
}

/// Opens `distorted` and checks that it can be scored against `reference`;
/// a mismatch hints at `--scale-distorted`. With `scale`, an input of
/// another size is read at its own size for the scorer to scale on the GPU
/// ([`open_to_scale`]; the scorer must be told, [`Scorer::scale_lane`]), or,
/// of another pixel format too, scaled and converted by ffmpeg.
///
/// [`Scorer::scale_lane`]: crate::vmaf::Scorer::scale_lane
pub fn open_distorted(
    reference: &dyn VideoSource,
    distorted: &Path,
    raw: Option<RawGeometry>,
    scale: bool,
) -> Result<Box<dyn VideoSource>, VideoError> {
    let target = reference.info().geometry;
    compatible(reference, open_as_distorted(distorted, raw, scale, &target)?)
}

/// [`open_distorted`] for the renditions of a ladder (each path with its
/// `scale`): opened side by side, as each may start ffmpeg or read a
/// stream for the device, so that a ladder opens in about the time of one
/// rendition; then checked against `reference` in order.
pub fn open_distorted_all(
    reference: &dyn VideoSource,
    distorted: &[(&Path, bool)],
    raw: Option<RawGeometry>,
) -> Vec<Result<Box<dyn VideoSource>, VideoError>> {
    let target = reference.info().geometry;
    let opened: Vec<_> = std::thread::scope(|scope| {
        let opening: Vec<_> = distorted
            .iter()
            .map(|&(path, scale)| {
                open_aside(scope, move || open_as_distorted(path, raw, scale, &target))
            })
            .collect();
        opening.into_iter().map(joined).collect()
    });
    opened.into_iter().map(|d| compatible(reference, d?)).collect()
}

/// Runs `open` on another thread of `scope` with this thread's decode
/// choice: a per-call choice (Python's `decode=`) is a thread's own.
fn open_aside<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    open: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    let choice = decode_choice();
    scope.spawn(move || with_decode_choice(choice, open))
}

/// What a thread of [`open_aside`] returned; its panic goes on here.
fn joined<T>(opening: std::thread::ScopedJoinHandle<'_, T>) -> T {
    opening.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// `distorted` opened as it is, or with `scale` to be scaled to `target`.
fn open_as_distorted(
    distorted: &Path,
    raw: Option<RawGeometry>,
    scale: bool,
    target: &Geometry,
) -> Result<Box<dyn VideoSource>, VideoError> {
    if scale { open_to_scale(distorted, raw, target) } else { open_input(distorted, raw) }
}

/// `distorted` if it can be scored against `reference`, else the mismatch
/// with the hint to scale.
fn compatible(
    reference: &dyn VideoSource,
    distorted: Box<dyn VideoSource>,
) -> Result<Box<dyn VideoSource>, VideoError> {
    check_compatible(reference, distorted.as_ref()).map_err(|e| match e {
        VideoError::Mismatch(m) => VideoError::Mismatch(with_scale_hint(&m)),
        e => e,
    })?;
    Ok(distorted)
}

/// The line saying how a distorted input is scaled to the reference's size
/// (`None` when it is not): on the GPU, or by ffmpeg where the pixel format
/// changes too. The CLI prints it for a pair and for each rendition.
pub fn scale_notice(distorted: &SourceInfo) -> Option<String> {
    let (w, h) = distorted.scaled_from?;
    let g = distorted.geometry;
    let how = if distorted.frames_at.is_some() {
        format!("on the GPU ({SCALE_NAME})")
    } else {
        format!("by ffmpeg (scale flags={SWS_FLAGS})")
    };
    Some(format!("distorted scaled from {w}x{h} to {}x{} {how}", g.width, g.height))
}

/// The hint added to a size or format mismatch between the inputs.
fn with_scale_hint(mismatch: &str) -> String {
    format!(
        "{mismatch} (--scale-distorted scales the distorted input to the reference's size, \
         bicubic with swscale's arithmetic: on the GPU, or with ffmpeg where the format differs \
         too)"
    )
}

/// An error and its causes (outermost first) on one line, as vqscope prints
/// it. Library errors often print their source already, so a cause the line
/// already ends with is not repeated.
pub fn one_line(causes: impl IntoIterator<Item = String>) -> String {
    let mut line = String::new();
    for cause in causes {
        if line.is_empty() {
            line = cause;
        } else if !line.ends_with(&cause) {
            line = format!("{line}: {cause}");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_not_repeated() {
        let causes = ["scoring", "reading x: gone", "gone"].map(str::to_owned);
        assert_eq!(one_line(causes), "scoring: reading x: gone");
    }

    #[test]
    fn labels_are_version_or_path() {
        assert_eq!(model_label("version=vmaf_v0.6.1neg:name=neg"), "vmaf_v0.6.1neg");
        assert_eq!(model_label("name=x:path=m.json"), "m.json");
    }
}
