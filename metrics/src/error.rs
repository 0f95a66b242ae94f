//! Errors of the metrics crate: every way a model, a frame size or an option
//! can be refused, each with a message a user can act on.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum MetricsError {
    /// The frame is smaller than the feature can handle.
    #[error("{feature}: a {width}x{height} frame is too small ({reason})")]
    FrameTooSmall { feature: &'static str, width: usize, height: usize, reason: &'static str },
    /// Reference and distorted planes differ in size or bit depth: libvmaf
    /// refuses such a pair before any feature runs, and a per-pixel metric
    /// has no meaning across different grids.
    #[error(
        "{feature}: reference is {ref_width}x{ref_height} at {ref_bpc} bits but distorted is \
         {dis_width}x{dis_height} at {dis_bpc} bits; both inputs must have the same size and bit depth"
    )]
    PlaneMismatch {
        feature: &'static str,
        ref_width: usize,
        ref_height: usize,
        ref_bpc: u32,
        dis_width: usize,
        dis_height: usize,
        dis_bpc: u32,
    },
    /// A feature option is outside the range libvmaf accepts for it.
    #[error("{feature}: option {option}={value} is out of range ({allowed})")]
    OptionOutOfRange {
        feature: &'static str,
        option: &'static str,
        value: i64,
        allowed: &'static str,
    },

    /// `--model version=NAME` named no model built into vqscope.
    #[error("no built-in model \"{version}\" (built-in models: {known})")]
    UnknownModel { version: String, known: String },
    /// A model file could not be read from disk.
    #[error("cannot read model file {}: {source}", path.display())]
    ModelRead {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model file longer than any model could be (`path=/dev/zero`, a
    /// video given by mistake): refused after reading `limit_mib` MiB, so
    /// it cannot fill memory.
    #[error(
        "model file {} is larger than {limit_mib} MiB, far beyond any VMAF model; refusing to read it",
        path.display()
    )]
    ModelTooLarge { path: std::path::PathBuf, limit_mib: u64 },
    /// A model's JSON (or the libsvm text inside it) is not one libvmaf
    /// would accept, or uses a part of the format vqscope does not support.
    #[error("model {origin}: {reason}")]
    ModelInvalid { origin: String, reason: String },
    /// A `--model` option string that cannot be understood.
    #[error("model option \"{spec}\": {reason}")]
    ModelSpec { spec: String, reason: String },
    /// A floating-point feature option is outside the range libvmaf accepts
    /// for it (libvmaf refuses the option when the extractor is set up).
    #[error("{feature}: option {option}={value} is out of range ({allowed})")]
    FloatOptionOutOfRange {
        feature: &'static str,
        option: &'static str,
        value: f64,
        allowed: &'static str,
    },
    /// libvmaf's integer ADM returns EINVAL when `adm_norm_view_dist ×
    /// adm_ref_display_height` is below 3 × 1080: its 16-bit level-0
    /// pipeline cannot represent the lower angular frequencies that a
    /// closer or smaller display implies.
    #[error(
        "adm: adm_norm_view_dist × adm_ref_display_height = {norm_view_dist} × \
         {ref_display_height} is below 3 × 1080 = 3240, which libvmaf's integer ADM cannot \
         compute (EINVAL); use a larger viewing distance or display height"
    )]
    AdmViewingGeometry { norm_view_dist: f64, ref_display_height: i32 },
    /// `--feature NAME` named no feature vqscope computes.
    #[error("unknown feature `{name}`; known: {known}")]
    UnknownFeature { name: String, known: String },
    /// A feature option that does not exist or whose value libvmaf would
    /// refuse.
    #[error("feature {feature}: option {option}: {reason}")]
    FeatureOption { feature: String, option: String, reason: String },
    /// A model (a model file of one's own) needs a feature no extractor of
    /// vqscope's provides.
    #[error("model {model} needs {feature}, which vqscope does not compute")]
    ModelFeatureMissing { model: String, feature: String },
    /// CAMBI's `heatmaps_path` dump could not be set up or written.
    #[error("cambi heatmaps_path: {}: {reason}", path.display())]
    Heatmap { path: std::path::PathBuf, reason: String },
    /// The library was called out of order or with inputs that do not fit
    /// the pipeline it was built for.
    #[error("{0}")]
    Usage(String),
    /// A luma sample above the largest value of the input's bit depth,
    /// which libvmaf's CAMBI refuses (its `validate_image`) rather than
    /// score: a 10-bit file can hold 16-bit words.
    #[error(
        "{feature}: {picture} frame{at} has luma samples above {max}, the largest {bpc}-bit \
         value (libvmaf refuses such frames)",
        at = .frame.map(|f| format!(" {f}")).unwrap_or_default(),
        max = (1u32 << .bpc) - 1
    )]
    SampleOutOfRange { feature: &'static str, picture: &'static str, frame: Option<u64>, bpc: u32 },
    /// Lanes built to see the same frames (sharing the instances that read
    /// only the reference) were pushed different frames: their values near
    /// the end may differ from a run of their own. Score them again
    /// without sharing.
    #[error("the renditions did not have the frame counts they announced")]
    LanesDiverged,
    /// The GPU could not set up or run a kernel.
    #[error("GPU: {0}")]
    Gpu(#[from] vqscope_gpu::GpuError),
}
