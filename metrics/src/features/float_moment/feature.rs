//! `float_moment` on the registry: libvmaf's float moment extractor, which
//! has no options.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::MomentKernel;
use super::moments;
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct FloatMoment;

/// libvmaf's output names, in its order.
const NAMES: [&str; 4] =
    ["float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"];

impl Feature for FloatMoment {
    fn name(&self) -> &'static str {
        "float_moment"
    }

    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }

    fn provides(&self) -> &'static [&'static str] {
        &NAMES
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        super::gpu::twins()
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        _options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let g = setup.geometry;
        let (w, h, bpc) = (g.width, g.height, g.format.bit_depth);
        Ok(Box::new(MomentExtractor {
            kernel: MomentKernel::new(setup.ctx, w, h, bpc)?,
            w,
            h,
            bpc,
        }))
    }
}

struct MomentExtractor {
    kernel: MomentKernel,
    w: u32,
    h: u32,
    bpc: u32,
}

impl Extractor for MomentExtractor {
    fn columns(&self) -> Vec<Column> {
        NAMES.iter().map(|n| Column::new((*n).to_owned())).collect()
    }

    fn result_words(&self) -> u32 {
        MomentKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &["float_moment"]
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let (r, d) = (&planes.reference[0], &planes.distorted[0]);
        record_single(rec, stamps, |rec| self.kernel.record(rec, r, d, out, offset_words))
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let sums = MomentKernel::decode(words);
        vec![(index, moments(&sums, self.w, self.h, self.bpc).to_vec())]
    }
}
