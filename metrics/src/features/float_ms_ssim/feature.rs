//! `float_ms_ssim` on the registry: libvmaf's float MS-SSIM extractor
//! (`float_ms_ssim`; per-scale `float_ms_ssim_{l,c,s}_scale0..4` with
//! `enable_lcs`; dB output with `enable_db` / `clip_db`).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::SCALES;
use super::gpu::MsSsimKernel;
use crate::MetricsError;
use crate::features::float_ssim::DbScale;
use crate::features::float_ssim::feature::LCS_DB_OPTIONS;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct FloatMsSsim;

impl Feature for FloatMsSsim {
    fn name(&self) -> &'static str {
        "float_ms_ssim"
    }

    fn options(&self) -> &'static [OptionSpec] {
        &LCS_DB_OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["float_ms_ssim"]
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
        let g = setup.geometry;
        let kernel = MsSsimKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth)?;
        Ok(Box::new(MsSsimExtractor {
            kernel,
            lcs: options.bool("enable_lcs"),
            db: DbScale::from_options(options, &g),
        }))
    }
}

struct MsSsimExtractor {
    kernel: MsSsimKernel,
    lcs: bool,
    db: Option<DbScale>,
}

/// Per-scale step names of the timed recording.
const PHASES: [&str; 6] = ["scale0", "scale1", "scale2", "scale3", "scale4", "fold"];

impl Extractor for MsSsimExtractor {
    fn columns(&self) -> Vec<Column> {
        let mut columns = vec![Column::new("float_ms_ssim".to_owned())];
        if self.lcs {
            for term in ["l", "c", "s"] {
                columns.extend(
                    (0..SCALES).map(|k| Column::new(format!("float_ms_ssim_{term}_scale{k}"))),
                );
            }
        }
        columns
    }

    fn result_words(&self) -> u32 {
        MsSsimKernel::RESULT_WORDS
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
        let (r, d) = (&planes.reference[0], &planes.distorted[0]);
        match stamps {
            None => self.kernel.record(rec, r, d, out, offset_words),
            Some(stamps) => self.kernel.record_timed(rec, r, d, out, offset_words, stamps, 0),
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let score = MsSsimKernel::decode(words);
        let mut values = vec![DbScale::apply(self.db.as_ref(), score.ms_ssim)];
        if self.lcs {
            values.extend(score.l.iter().chain(&score.c).chain(&score.s));
        }
        vec![(index, values)]
    }
}
