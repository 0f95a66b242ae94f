//! `motion` on the registry: libvmaf's integer motion extractor, a temporal
//! one. Each frame's SAD against an earlier reference frame is computed on
//! the GPU; `integer_motion2` / `integer_motion3` need the next frame too,
//! so [`MotionScorer`] releases a frame's values once its successor is in
//! (and the rest when the clip is flushed), as libvmaf's `flush` does.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::MotionKernel;
use super::{MotionFrame, MotionParams, MotionScorer};
use crate::MetricsError;
use crate::features::{
    Column, DEBUG, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct Motion;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec::bool("motion_force_zero", false, "forcing motion score to zero").param("force_0"),
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
    OptionSpec::double(
        "motion_fps_weight",
        1.0,
        0.0,
        5.0,
        "fps-aware multiplicative weight/correction",
    )
    .param("mfw"),
    OptionSpec::double(
        "motion_max_val",
        super::DEFAULT_MAX_VAL,
        0.0,
        10000.0,
        "maximum value allowed; larger values will be clipped to this value",
    )
    .param("mmxv"),
    OptionSpec::bool("motion_five_frame_window", false, "use five-frame temporal window")
        .param("mffw"),
    OptionSpec::bool(
        "motion_moving_average",
        false,
        "use moving average for motion scores after first frame",
    )
    .param("mma"),
    DEBUG,
];

impl Feature for Motion {
    fn name(&self) -> &'static str {
        "motion"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "VMAF_integer_feature_motion_sad_score",
            "VMAF_integer_feature_motion_score",
            "VMAF_integer_feature_motion2_score",
            "VMAF_integer_feature_motion3_score",
        ]
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
        let params = motion_params(options);
        let g = setup.geometry;
        Ok(Box::new(MotionExtractor {
            kernel: MotionKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth)?,
            scorer: MotionScorer::new(g.width, g.height, params),
            debug: options.bool("debug"),
            names: options.clone(),
        }))
    }
}

/// The motion parameters an instance's options set.
pub fn motion_params(options: &FeatureOptions) -> MotionParams {
    MotionParams {
        force_zero: options.bool("motion_force_zero"),
        blend_factor: options.double("motion_blend_factor"),
        blend_offset: options.double("motion_blend_offset"),
        fps_weight: options.double("motion_fps_weight"),
        max_val: options.double("motion_max_val"),
        five_frame_window: options.bool("motion_five_frame_window"),
        moving_average: options.bool("motion_moving_average"),
    }
}

struct MotionExtractor {
    kernel: MotionKernel,
    scorer: MotionScorer,
    debug: bool,
    names: FeatureOptions,
}

impl MotionExtractor {
    fn values(&self, frames: Vec<MotionFrame>) -> Vec<FrameValues> {
        frames
            .into_iter()
            .map(|m| {
                let mut values = vec![m.motion];
                if self.debug {
                    values.push(m.motion);
                }
                values.extend([m.motion2, m.motion3]);
                (m.index, values)
            })
            .collect()
    }
}

impl Extractor for MotionExtractor {
    fn columns(&self) -> Vec<Column> {
        let name = |n: &str| self.names.output_name(n);
        let mut columns = vec![Column::new(name("VMAF_integer_feature_motion_sad_score"))];
        if self.debug {
            columns.push(Column::new(name("integer_motion")));
        }
        // Written by libvmaf's flush, so after every other feature.
        columns.push(Column::late(name("integer_motion2")));
        columns.push(Column::late(name("integer_motion3")));
        columns
    }

    fn result_words(&self) -> u32 {
        MotionKernel::RESULT_WORDS
    }

    fn earlier_reference(&self, index: u64) -> Option<u64> {
        let p = self.scorer.params();
        (!p.force_zero && index >= p.min_index()).then(|| index - p.distance())
    }

    fn phases(&self) -> &'static [&'static str] {
        &["motion"]
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        record_single(rec, stamps, |rec| match planes.earlier_reference {
            Some(earlier) => {
                self.kernel.record(rec, earlier, planes.reference[0], out, offset_words)
            }
            None => Ok(()),
        })
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let sad = self.earlier_reference(index).map(|_| MotionKernel::decode(words));
        let frames = self.scorer.push(sad);
        self.values(frames)
    }

    fn flush(&mut self) -> Vec<FrameValues> {
        let frames = self.scorer.finish();
        self.values(frames)
    }
}
