//! The feature registry: every feature vqscope computes, modelled on
//! libvmaf's extractor list (`feature_extractor.c`). A feature is one folder
//! here — its exact CPU twin (`mod.rs` and helpers), its GPU driver
//! (`gpu.rs`) and its registry entry (`feature.rs`: options, outputs, how
//! it records and reads back a frame) — plus one line in [`REGISTRY`].
//! The scoring pipeline, the CLI's feature list, model lookup and the
//! benchmarks are all derived from the registry; nothing else names a
//! feature.

pub mod adm;
pub mod cambi;
pub mod ciede;
pub mod float_adm;
pub mod float_ansnr;
pub mod float_moment;
pub mod float_motion;
pub mod float_ms_ssim;
pub mod float_psnr;
pub mod float_ssim;
pub mod float_vif;
pub mod motion;
mod options;
pub mod psnr;
pub mod psnr_hvs;
pub mod speed;
pub mod vif;

use std::any::Any;
use std::sync::Arc;

use vqscope_gpu::{Buffer, GpuContext, Recorder, Timestamps};
use vqscope_video::Geometry;

pub use options::{FeatureOptions, OptionSpec, OptionValue, format_g, normalise_number};

use crate::MetricsError;
use crate::device::DevicePlane;

/// Every feature, in the order their values appear in reports.
pub static REGISTRY: &[&dyn Feature] = &[
    &psnr::feature::Psnr,
    &adm::feature::Adm,
    &motion::feature::Motion,
    &vif::feature::Vif,
    &float_ssim::feature::FloatSsim,
    &float_ms_ssim::feature::FloatMsSsim,
    &float_moment::feature::FloatMoment,
    &float_motion::feature::FloatMotion,
    &float_vif::feature::FloatVif,
    &float_psnr::feature::FloatPsnr,
    &float_ansnr::feature::FloatAnsnr,
    &float_adm::feature::FloatAdm,
    &psnr_hvs::feature::PsnrHvs,
    &ciede::feature::Ciede,
    &cambi::feature::CambiFeature,
    &speed::chroma::SpeedChroma,
    &speed::temporal::SpeedTemporalFeature,
];

/// The `debug` option of the integer extractors: also report their
/// intermediate values (not a parameter: names do not change).
pub const DEBUG: OptionSpec =
    OptionSpec::bool("debug", false, "debug mode: enable additional output");

/// The registry entry of `--feature` name `name`.
pub fn find(name: &str) -> Result<&'static dyn Feature, MetricsError> {
    REGISTRY.iter().copied().find(|f| f.name() == name).ok_or_else(|| {
        MetricsError::UnknownFeature { name: name.to_owned(), known: names().join(", ") }
    })
}

/// Every feature's `--feature` name, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|f| f.name()).collect()
}

/// The feature whose extractor provides libvmaf feature `provided` (a name
/// as models spell it, e.g. `VMAF_integer_feature_adm2_score`).
pub fn providing(provided: &str) -> Option<&'static dyn Feature> {
    REGISTRY.iter().copied().find(|f| f.provides().contains(&provided))
}

/// One feature extractor: what libvmaf's `VmafFeatureExtractor` declares.
pub trait Feature: Sync {
    /// libvmaf's extractor name, which `--feature` takes (`adm`, `psnr`).
    fn name(&self) -> &'static str;

    /// The options `--feature NAME=k=v` and models may set.
    fn options(&self) -> &'static [OptionSpec];

    /// libvmaf's `provided_features`: the names models use for its values.
    fn provides(&self) -> &'static [&'static str];

    /// Builds an instance for clips of `setup`'s geometry: its GPU state
    /// and the host state that turns its read-back words into values. Size
    /// and option errors are the CPU twin's.
    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError>;

    /// Whether frame `i`'s values need frames after `i` (motion2 compares
    /// with the next frame): libvmaf's temporal extractors, which it
    /// flushes at the end.
    fn temporal(&self) -> bool {
        false
    }

    /// Whether its values depend on the distorted frames. Those that read
    /// only the reference (motion) run once per frame for every rendition
    /// of a ladder that sees the same frames.
    fn reads_distorted(&self) -> bool {
        true
    }

    /// The part of its instances' work that depends on the reference
    /// alone, for the lanes of a ladder that ask for the feature with the
    /// same options to share: built once, recorded once per frame, and
    /// given to each lane's [`Feature::build`] in [`Setup::terms`]. `None`
    /// (the default) where the feature has no such part worth sharing.
    fn reference_terms(
        &self,
        _setup: &Setup<'_>,
        _options: &FeatureOptions,
    ) -> Result<Option<Arc<dyn ReferenceTerms>>, MetricsError> {
        Ok(None)
    }

    /// Every option at its default.
    fn default_options(&self) -> FeatureOptions {
        FeatureOptions::defaults(self.options())
    }

    /// The Rust twins of the GLSL structs its kernels push, for the test
    /// that checks them against the SPIR-V (`device::shader_layouts`).
    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin>;
}

/// What an instance is built for.
pub struct Setup<'a> {
    pub ctx: &'a Arc<GpuContext>,
    pub geometry: Geometry,
    /// Only frames whose index is a multiple of this are reported (libvmaf's
    /// `--subsample`; at least 1).
    pub subsample: u64,
    /// Reference-only terms that this feature's [`Feature::reference_terms`]
    /// built with the same options and geometry, which the pipeline records
    /// every frame the instance runs: the instance reads them instead of
    /// computing them. `None`: it computes everything itself.
    pub terms: Option<Arc<dyn ReferenceTerms>>,
}

/// A feature's reference-only work for a ladder ([`Feature::reference_terms`]),
/// shared by the instances of several lanes. It writes only its own
/// buffers, which those instances read.
pub trait ReferenceTerms: Send + Sync {
    /// Records one frame's reference-only kernels on the reference planes.
    /// The pipeline records them interleaved with the instances that read
    /// them (`Recorder::interleave`), so the order is by steps: what the
    /// terms write before their `j`-th barrier, those instances read only
    /// after their own `j`-th barrier. The pipeline records a barrier
    /// before every frame's kernels, so step 0 may overwrite what the
    /// previous frame's instances read.
    fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()>;

    /// The terms as [`Any`], for the feature's instances to take back their
    /// own type.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// One output of an instance, in report order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The name reports print, option suffixes included
    /// (`integer_adm2_egl_1`).
    pub name: String,
    /// Written after every feature's other values, as libvmaf's collector
    /// holds the values a temporal extractor adds when flushed.
    pub late: bool,
}

impl Column {
    pub fn new(name: String) -> Self {
        Self { name, late: false }
    }

    pub fn late(name: String) -> Self {
        Self { name, late: true }
    }
}

/// A frame pair as the kernels see it: the planes of the shared upload.
pub struct FramePlanes<'a> {
    /// Reference planes (Y, then Cb and Cr where the format has them).
    pub reference: Vec<DevicePlane<'a>>,
    pub distorted: Vec<DevicePlane<'a>>,
    /// The luma of the earlier reference frame that
    /// [`Extractor::earlier_reference`] asked for, when it asked.
    pub earlier_reference: Option<DevicePlane<'a>>,
    /// The luma of the same earlier frame's distorted side.
    pub earlier_distorted: Option<DevicePlane<'a>>,
}

/// Values of one frame, in the order of [`Extractor::columns`].
pub type FrameValues = (u64, Vec<f64>);

/// A built feature instance: GPU kernels plus host state.
pub trait Extractor: Send {
    /// The instance's outputs, in report order.
    fn columns(&self) -> Vec<Column>;

    /// 64-bit words the instance leaves per frame in the result buffer.
    fn result_words(&self) -> u32;

    /// For temporal features: which earlier frame's reference luma frame
    /// `index` must be compared with, or `None` when that frame needs none.
    fn earlier_reference(&self, _index: u64) -> Option<u64> {
        None
    }

    /// Names of the intervals that timed recording measures, in order.
    fn phases(&self) -> &'static [&'static str];

    /// Records one frame pair's dispatches, leaving
    /// [`Extractor::result_words`] words in `out` from `offset_words`. With
    /// `stamps` (reset, holding `phases().len() + 1` queries) every dispatch
    /// runs alone between barriers with a timestamp before the first and
    /// after each phase: for per-dispatch timing only.
    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()>;

    /// Turns frame `index`'s read-back words into values. Frames arrive in
    /// order; a temporal instance may return values of earlier frames (or
    /// none yet).
    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues>;

    /// End of the clip: the values still held back.
    fn flush(&mut self) -> Vec<FrameValues> {
        Vec::new()
    }

    /// A failure of a side output (CAMBI's heat-map files) while handling
    /// earlier frames: [`Extractor::frame`] has no error path since values
    /// never fail to decode, so the pipeline asks after every frame.
    fn take_failure(&mut self) -> Option<MetricsError> {
        None
    }

    /// Clip-level values (libvmaf's `aggregate_metrics`, e.g. `apsnr_y`),
    /// complete once every frame went through [`Extractor::frame`].
    fn aggregates(&self) -> Vec<(String, f64)> {
        Vec::new()
    }
}

/// The barriers between a kernel's steps, optionally followed by a
/// timestamp each, so a benchmark can time every step of the real recording.
pub(crate) struct Steps<'a> {
    stamps: Option<(&'a Timestamps, u32)>,
}

impl<'a> Steps<'a> {
    pub fn new(stamps: Option<(&'a Timestamps, u32)>) -> Self {
        Self { stamps }
    }

    /// A barrier, then (when timing) the next timestamp.
    pub fn barrier(&mut self, rec: &mut Recorder<'_>) {
        rec.barrier();
        if let Some((stamps, next)) = &mut self.stamps {
            rec.timestamp(stamps, *next);
            *next += 1;
        }
    }
}

/// Records `record` alone between barriers with a timestamp before and
/// after: the timed form of a single-dispatch feature.
pub fn record_single(
    rec: &mut Recorder<'_>,
    stamps: Option<&Timestamps>,
    record: impl FnOnce(&mut Recorder<'_>) -> vqscope_gpu::Result<()>,
) -> vqscope_gpu::Result<()> {
    let Some(stamps) = stamps else { return record(rec) };
    rec.barrier();
    rec.timestamp(stamps, 0);
    record(rec)?;
    rec.barrier();
    rec.timestamp(stamps, 1);
    Ok(())
}
