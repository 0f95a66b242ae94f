//! `ciede` on the registry: libvmaf's CIEDE2000 extractor, which has no
//! options and writes `ciede2000`.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::CiedeKernel;
use super::score;
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct Ciede;

impl Feature for Ciede {
    fn name(&self) -> &'static str {
        "ciede"
    }

    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }

    fn provides(&self) -> &'static [&'static str] {
        &["ciede2000"]
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
        let kernel =
            CiedeKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, g.format.chroma)?;
        Ok(Box::new(CiedeExtractor { kernel, width: g.width, height: g.height }))
    }
}

struct CiedeExtractor {
    kernel: CiedeKernel,
    width: u32,
    height: u32,
}

impl Extractor for CiedeExtractor {
    fn columns(&self) -> Vec<Column> {
        vec![Column::new("ciede2000".to_owned())]
    }

    fn result_words(&self) -> u32 {
        CiedeKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &["ciede"]
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let (r, d) = (&planes.reference, &planes.distorted);
        record_single(rec, stamps, |rec| self.kernel.record(rec, r, d, out, offset_words))
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let sum = CiedeKernel::decode(words);
        vec![(index, vec![score(sum, self.width, self.height)])]
    }
}
