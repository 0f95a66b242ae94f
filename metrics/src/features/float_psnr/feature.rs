//! `float_psnr` on the registry: libvmaf's float PSNR extractor, which has
//! no options and reports the luma plane only.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::FloatPsnrKernel;
use super::{FEATURE, FloatDepth, float_psnr_score};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct FloatPsnr;

impl Feature for FloatPsnr {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }

    fn provides(&self) -> &'static [&'static str] {
        &[FEATURE]
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
        Ok(Box::new(FloatPsnrExtractor {
            kernel: FloatPsnrKernel::new(setup.ctx, w, h, bpc)?,
            depth: FloatDepth::of(FEATURE, bpc)?,
            w,
            h,
        }))
    }
}

struct FloatPsnrExtractor {
    kernel: FloatPsnrKernel,
    depth: FloatDepth,
    w: u32,
    h: u32,
}

impl Extractor for FloatPsnrExtractor {
    fn columns(&self) -> Vec<Column> {
        vec![Column::new(FEATURE.to_owned())]
    }

    fn result_words(&self) -> u32 {
        FloatPsnrKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &[FEATURE]
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
        let sum = FloatPsnrKernel::decode(words);
        vec![(index, vec![float_psnr_score(sum, self.w, self.h, &self.depth)])]
    }
}
