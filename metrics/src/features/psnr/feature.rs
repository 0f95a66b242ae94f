//! `psnr` on the registry: libvmaf's integer PSNR extractor (`psnr_y`,
//! `psnr_cb`, `psnr_cr`; `mse_*` with `enable_mse`; the clip-level
//! `apsnr_*` aggregates with `enable_apsnr`).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::PsnrKernel;
use super::{ChromaLayout, PsnrParams, PsnrSetup, peak_squared};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct Psnr;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec::bool("enable_chroma", true, "enable calculation for chroma channels"),
    OptionSpec::bool("enable_mse", false, "enable MSE calculation"),
    OptionSpec::bool("enable_apsnr", false, "enable APSNR calculation"),
    OptionSpec::bool(
        "reduced_hbd_peak",
        false,
        "reduce hbd peak value to align with scaled 8-bit content",
    ),
    OptionSpec::double("min_sse", 0.0, 0.0, f64::MAX, "constrain the minimum possible sse"),
];

const PLANES: [&str; 3] = ["y", "cb", "cr"];

impl Feature for Psnr {
    fn name(&self) -> &'static str {
        "psnr"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["psnr_y", "psnr_cb", "psnr_cr"]
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
        let layout = ChromaLayout::from(g.format.chroma);
        let params = PsnrParams {
            enable_chroma: options.bool("enable_chroma"),
            reduced_hbd_peak: options.bool("reduced_hbd_peak"),
            min_sse: options.double("min_sse"),
        };
        let bpc = g.format.bit_depth;
        let kernel = PsnrKernel::new(setup.ctx, g.width, g.height, bpc, layout)?;
        let psnr = PsnrSetup::new(&params, bpc, g.width, g.height, layout);
        Ok(Box::new(PsnrExtractor {
            kernel,
            setup: psnr,
            enable_mse: options.bool("enable_mse"),
            apsnr: options.bool("enable_apsnr").then(Apsnr::default),
        }))
    }
}

/// libvmaf's running APSNR sums (`uint64_t sse[3], n_pixels[3]`).
#[derive(Default)]
struct Apsnr {
    sse: [u64; 3],
    pixels: [u64; 3],
}

struct PsnrExtractor {
    kernel: PsnrKernel,
    setup: PsnrSetup,
    enable_mse: bool,
    apsnr: Option<Apsnr>,
}

impl Extractor for PsnrExtractor {
    fn columns(&self) -> Vec<Column> {
        let mut columns = Vec::new();
        for plane in &PLANES[..self.setup.planes] {
            columns.push(Column::new(format!("psnr_{plane}")));
            if self.enable_mse {
                columns.push(Column::new(format!("mse_{plane}")));
            }
        }
        columns
    }

    fn result_words(&self) -> u32 {
        PsnrKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &["psnr"]
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let n = self.setup.planes;
        record_single(rec, stamps, |rec| {
            self.kernel.record(
                rec,
                &planes.reference[..n],
                &planes.distorted[..n],
                out,
                offset_words,
            )
        })
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let sse = PsnrKernel::decode(words);
        let mut values = Vec::new();
        for (p, &sse) in sse.iter().enumerate().take(self.setup.planes) {
            let (w, h) = self.kernel.plane_size(p);
            values.push(self.setup.psnr(p, sse, w, h));
            if self.enable_mse {
                values.push(sse as f64 / f64::from(w.wrapping_mul(h)));
            }
            if let Some(apsnr) = &mut self.apsnr {
                apsnr.sse[p] = apsnr.sse[p].wrapping_add(sse);
                apsnr.pixels[p] = apsnr.pixels[p].wrapping_add(u64::from(h.wrapping_mul(w)));
            }
        }
        vec![(index, values)]
    }

    fn aggregates(&self) -> Vec<(String, f64)> {
        let Some(apsnr) = &self.apsnr else { return Vec::new() };
        // libvmaf writes all three, whether or not chroma was scored.
        (0..3)
            .map(|p| {
                let peak2 = peak_squared(self.setup.peak);
                let (sse, n) = (apsnr.sse[p] as f64, apsnr.pixels[p]);
                let apsnr_db = 10.0 * (peak2.log10() + (n as f64).log10() - sse.log10());
                // `peak * peak * n_pixels * 2`: the square wraps in 32 bits,
                // the rest in 64.
                let top = u64::from(self.setup.peak.wrapping_mul(self.setup.peak))
                    .wrapping_mul(n)
                    .wrapping_mul(2);
                let max_db = (10.0 * (top as f64).log10()).ceil();
                let v = if apsnr_db < max_db { apsnr_db } else { max_db };
                (format!("apsnr_{}", PLANES[p]), v)
            })
            .collect()
    }
}
