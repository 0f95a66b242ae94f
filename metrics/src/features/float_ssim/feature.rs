//! `float_ssim` on the registry: libvmaf's float SSIM extractor
//! (`float_ssim`; `float_ssim_l`, `_c`, `_s` with `enable_lcs`; dB output
//! with `enable_db` / `clip_db`; the pre-scale factor `scale`).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::SsimKernel;
use super::{DbScale, SsimOptions};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct FloatSsim;

/// The options float_ssim and float_ms_ssim share.
pub(crate) const LCS_DB_OPTIONS: [OptionSpec; 3] = [
    OptionSpec::bool(
        "enable_lcs",
        false,
        "enable luminance, contrast and structure intermediate output",
    ),
    OptionSpec::bool("enable_db", false, "write SSIM values as dB"),
    OptionSpec::bool("clip_db", false, "clip dB scores"),
];

const OPTIONS: &[OptionSpec] = &[
    LCS_DB_OPTIONS[0],
    LCS_DB_OPTIONS[1],
    LCS_DB_OPTIONS[2],
    OptionSpec::int(
        "scale",
        0,
        0,
        10,
        "decimation scale factor (0=auto, 1=no downscaling, 2-10=explicit)",
    ),
];

impl Feature for FloatSsim {
    fn name(&self) -> &'static str {
        "float_ssim"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["float_ssim"]
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
        let ssim = SsimOptions { scale: options.int("scale") as u32 };
        let kernel = SsimKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, ssim)?;
        Ok(Box::new(SsimExtractor {
            kernel,
            lcs: options.bool("enable_lcs"),
            db: DbScale::from_options(options, &g),
        }))
    }
}

struct SsimExtractor {
    kernel: SsimKernel,
    lcs: bool,
    db: Option<DbScale>,
}

impl Extractor for SsimExtractor {
    fn columns(&self) -> Vec<Column> {
        let mut names = vec!["float_ssim"];
        if self.lcs {
            names.extend(["float_ssim_l", "float_ssim_c", "float_ssim_s"]);
        }
        names.into_iter().map(|n| Column::new(n.to_owned())).collect()
    }

    fn result_words(&self) -> u32 {
        SsimKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &["input", "scale", "fold"]
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
        let score = SsimKernel::decode(words);
        let mut values = vec![DbScale::apply(self.db.as_ref(), score.ssim)];
        if self.lcs {
            values.extend([score.l, score.c, score.s]);
        }
        vec![(index, values)]
    }
}
