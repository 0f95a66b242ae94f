//! `psnr_hvs` on the registry: libvmaf's PSNR-HVS extractor, which has no
//! options and scores all three planes (`psnr_hvs_y`, `psnr_hvs_cb`,
//! `psnr_hvs_cr`) plus their weighted combination (`psnr_hvs`).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::{PHASES, PsnrHvsKernel};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct PsnrHvs;

/// libvmaf's output names, in its order.
const NAMES: [&str; 4] = ["psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"];

impl Feature for PsnrHvs {
    fn name(&self) -> &'static str {
        "psnr_hvs"
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
        Ok(Box::new(PsnrHvsExtractor { kernel: PsnrHvsKernel::new(setup.ctx, &setup.geometry)? }))
    }
}

struct PsnrHvsExtractor {
    kernel: PsnrHvsKernel,
}

impl Extractor for PsnrHvsExtractor {
    fn columns(&self) -> Vec<Column> {
        NAMES.iter().map(|n| Column::new((*n).to_owned())).collect()
    }

    fn result_words(&self) -> u32 {
        PsnrHvsKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &PHASES
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        self.kernel.record(rec, &planes.reference, &planes.distorted, out, offset_words, stamps)
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        vec![(index, self.kernel.decode(words).values().to_vec())]
    }
}
