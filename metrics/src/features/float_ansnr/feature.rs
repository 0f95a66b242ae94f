//! `float_ansnr` on the registry: libvmaf's float ANSNR extractor, which
//! has no options and writes `float_ansnr` and `float_anpsnr`. libvmaf's
//! `provided_features` lists only `float_ansnr` (so a model cannot ask for
//! `float_anpsnr` by name); [`Feature::provides`] says the same.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::AnsnrKernel;
use super::{FEATURE, ansnr_scores};
use crate::MetricsError;
use crate::features::float_psnr::FloatDepth;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct FloatAnsnr;

/// libvmaf's output names, in its order.
const NAMES: [&str; 2] = ["float_ansnr", "float_anpsnr"];

impl Feature for FloatAnsnr {
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
        Ok(Box::new(AnsnrExtractor {
            kernel: AnsnrKernel::new(setup.ctx, w, h, bpc)?,
            depth: FloatDepth::of(FEATURE, bpc)?,
            w,
            h,
        }))
    }
}

struct AnsnrExtractor {
    kernel: AnsnrKernel,
    depth: FloatDepth,
    w: u32,
    h: u32,
}

impl Extractor for AnsnrExtractor {
    fn columns(&self) -> Vec<Column> {
        NAMES.iter().map(|n| Column::new((*n).to_owned())).collect()
    }

    fn result_words(&self) -> u32 {
        AnsnrKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &["filter", "rows", "total"]
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
        match stamps {
            None => self.kernel.record(rec, r, d, out, offset_words),
            Some(stamps) => self.kernel.record_timed(rec, r, d, out, offset_words, stamps, 0),
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let sums = AnsnrKernel::decode(words);
        vec![(index, ansnr_scores(&sums, self.w, self.h, &self.depth).to_vec())]
    }
}
