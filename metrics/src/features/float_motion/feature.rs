//! `float_motion` on the registry: libvmaf's float motion extractor, a
//! temporal one. Each frame's raw score against the frame before is
//! computed on the GPU (both reference frames blurred afresh); `motion2`
//! and `motion3` need the next frame's score too, so
//! [`FloatMotionScorer`] releases a frame's values once its successor is
//! in, and the last frame's when the clip is flushed.

use vqscope_gpu::{Buffer, Recorder, Timestamps};
use vqscope_video::frame::ChromaFormat;

use super::gpu::FloatMotionKernel;
use super::{
    DEFAULT_FILTER_SIZE, DEFAULT_MAX_VAL, FloatMotionFrame, FloatMotionParams, FloatMotionScorer,
    frame_score,
};
use crate::MetricsError;
use crate::device::DevicePlane;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct FloatMotion;

/// libvmaf's option table for `float_motion`, in its order. Unlike the
/// integer extractors' `debug`, this one is on by default, which is why
/// libvmaf prints `motion` unasked.
const OPTIONS: &[OptionSpec] = &[
    OptionSpec::bool("debug", true, "debug mode: enable additional output"),
    OptionSpec::bool("motion_force_zero", false, "forcing motion score to zero").param("force_0"),
    OptionSpec::double(
        "motion_fps_weight",
        1.0,
        0.0,
        5.0,
        "fps-aware multiplicative weight/correction",
    )
    .param("mfw"),
    OptionSpec::double("motion_blend_factor", 1.0, 0.0, 1.0, "blend motion score given an offset")
        .param("mbf"),
    OptionSpec::double(
        "motion_blend_offset",
        40.0,
        0.0,
        1000.0,
        "blend motion score starting from this offset",
    )
    .param("mbo"),
    OptionSpec::bool("motion_add_scale1", false, "add motion score from scale1").param("mdc"),
    OptionSpec::int("motion_filter_size", DEFAULT_FILTER_SIZE, 0, 9, "filtering size").param("mfs"),
    OptionSpec::bool("motion_add_uv", false, "include U and V terms").param("mau"),
    OptionSpec::double(
        "motion_max_val",
        DEFAULT_MAX_VAL,
        0.0,
        10000.0,
        "maximum value allowed; larger values will be clipped to this value",
    )
    .param("mmxv"),
];

impl Feature for FloatMotion {
    fn name(&self) -> &'static str {
        "float_motion"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["VMAF_feature_motion_score", "VMAF_feature_motion2_score", "VMAF_feature_motion3_score"]
    }

    fn temporal(&self) -> bool {
        true
    }

    fn reads_distorted(&self) -> bool {
        false
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        super::gpu::twins()
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let params = FloatMotionParams {
            force_zero: options.bool("motion_force_zero"),
            fps_weight: options.double("motion_fps_weight"),
            blend_factor: options.double("motion_blend_factor"),
            blend_offset: options.double("motion_blend_offset"),
            add_scale1: options.bool("motion_add_scale1"),
            filter_size: options.int("motion_filter_size"),
            add_uv: options.bool("motion_add_uv"),
            max_val: options.double("motion_max_val"),
        };
        let g = setup.geometry;
        if params.add_uv && g.format.chroma == ChromaFormat::Mono {
            // libvmaf's init returns EINVAL for 4:0:0 with motion_add_uv.
            return Err(MetricsError::FeatureOption {
                feature: "float_motion".into(),
                option: "motion_add_uv".into(),
                reason: "the input has no chroma planes (4:0:0)".into(),
            });
        }
        let mut kernels = Vec::new();
        for p in 0..params.planes() {
            let (w, h) = g.plane_size(p);
            let bpc = g.format.bit_depth;
            let kernel =
                FloatMotionKernel::new(setup.ctx, w, h, bpc, params.taps(), params.add_scale1)?;
            kernels.push((kernel, (w as usize, h as usize)));
        }
        Ok(Box::new(FloatMotionExtractor {
            kernels,
            scorer: FloatMotionScorer::new(params),
            debug: options.bool("debug"),
            names: options.clone(),
        }))
    }
}

struct FloatMotionExtractor {
    /// One kernel per scored plane (luma; Cb and Cr with `motion_add_uv`),
    /// with the plane's size.
    kernels: Vec<(FloatMotionKernel, (usize, usize))>,
    scorer: FloatMotionScorer,
    debug: bool,
    names: FeatureOptions,
}

impl FloatMotionExtractor {
    fn force_zero(&self) -> bool {
        self.scorer.params().force_zero
    }

    /// A frame's values in [`Extractor::columns`] order.
    fn values(&self, frames: Vec<FloatMotionFrame>) -> Vec<FrameValues> {
        frames
            .into_iter()
            .map(|m| {
                let mut values = vec![m.motion2];
                if self.force_zero() {
                    values.push(m.motion3);
                }
                if self.debug {
                    values.push(m.motion);
                }
                if !self.force_zero() {
                    values.push(m.motion3);
                }
                (m.index, values)
            })
            .collect()
    }
}

impl Extractor for FloatMotionExtractor {
    /// libvmaf's first appends: `motion2` (and `motion` in debug mode) at
    /// frame 0, `motion3` of frame 0 only once frame 1 is in, so after
    /// every other feature's values; with `motion_force_zero` all three at
    /// once, `motion3` before `motion`.
    fn columns(&self) -> Vec<Column> {
        let name = |n: &str| self.names.output_name(n);
        let mut columns = vec![Column::new(name("motion2"))];
        if self.force_zero() {
            columns.push(Column::new(name("motion3")));
        }
        if self.debug {
            columns.push(Column::new(name("motion")));
        }
        if !self.force_zero() {
            columns.push(Column::late(name("motion3")));
        }
        columns
    }

    fn result_words(&self) -> u32 {
        self.kernels.iter().map(|(k, _)| k.result_words()).sum()
    }

    fn earlier_reference(&self, index: u64) -> Option<u64> {
        self.scorer.scores_frame(index).then(|| index - 1)
    }

    fn phases(&self) -> &'static [&'static str] {
        &["float_motion"]
    }

    /// The chroma planes of the earlier frame (with `motion_add_uv`) lie in
    /// the earlier luma's buffer at the current frame's chroma offsets: the
    /// pipeline keeps every frame of a clip at the same offsets in its ring
    /// slot.
    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        record_single(rec, stamps, |rec| {
            let Some(earlier) = planes.earlier_reference else { return Ok(()) };
            let mut offset = offset_words;
            for (p, (kernel, _)) in self.kernels.iter().enumerate() {
                let cur = planes.reference[p];
                let prev = if p == 0 {
                    earlier
                } else {
                    DevicePlane { buffer: earlier.buffer, desc: cur.desc }
                };
                kernel.record(rec, prev, cur, out, offset)?;
                offset += kernel.result_words();
            }
            Ok(())
        })
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let score = self.earlier_reference(index).map(|_| {
            let mut at = 0;
            let mut sums = Vec::with_capacity(self.kernels.len());
            let mut sizes = Vec::with_capacity(self.kernels.len());
            for (kernel, size) in &self.kernels {
                sums.push(kernel.decode(&words[at..]));
                sizes.push(*size);
                at += kernel.result_words() as usize;
            }
            frame_score(&sums, &sizes)
        });
        let frames = self.scorer.push(score);
        self.values(frames)
    }

    fn flush(&mut self) -> Vec<FrameValues> {
        let frames = self.scorer.finish();
        self.values(frames)
    }
}
