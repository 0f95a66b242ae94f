//! `cambi` on the registry: libvmaf's CAMBI extractor with its options
//! (option-suffixed `cambi…` output; with `full_ref` also `cambi_source`
//! and `cambi_full_reference`, which libvmaf never suffixes).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::CambiKernel;
use super::{Cambi, CambiOptions, Eotf, FEATURE};
use crate::MetricsError;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
    record_single,
};

/// The registry entry.
pub struct CambiFeature;

/// libvmaf's option table, in its order (`heatmaps_path` is not offered).
const OPTIONS: &[OptionSpec] = &[
    OptionSpec::double(
        "cambi_max_val",
        1000.0,
        0.0,
        1000.0,
        "maximum value allowed; larger values will be clipped to this value",
    )
    .param("cmxv"),
    OptionSpec::int("enc_width", 0, 180, 7680, "Encoding width").param("encw"),
    OptionSpec::int("enc_height", 0, 150, 7680, "Encoding height").param("ench"),
    OptionSpec::int("enc_bitdepth", 0, 6, 16, "Encoding bitdepth").param("encbd"),
    OptionSpec::int("src_width", 0, 320, 7680, "Source width. Only used when full_ref=true.")
        .param("srcw"),
    OptionSpec::int("src_height", 0, 200, 4320, "Source height. Only used when full_ref=true.")
        .param("srch"),
    OptionSpec::int(
        "window_size",
        65,
        15,
        127,
        "Window size to compute CAMBI: 65 corresponds to ~1 degree at 4k",
    )
    .param("ws"),
    OptionSpec::double(
        "topk",
        0.6,
        0.0001,
        1.0,
        "Ratio of pixels for the spatial pooling computation, must be 0 < topk <= 1.0",
    )
    .param("topk"),
    OptionSpec::double(
        "cambi_topk",
        0.6,
        0.0001,
        1.0,
        "Ratio of pixels for the spatial pooling computation, must be 0 < cambi_topk <= 1.0",
    )
    .param("ctpk"),
    OptionSpec::double(
        "tvi_threshold",
        0.019,
        0.0001,
        1.0,
        "Visibilty threshold for luminance ΔL < tvi_threshold*L_mean",
    )
    .param("tvit"),
    OptionSpec::double(
        "cambi_vis_lum_threshold",
        0.0,
        0.0,
        300.0,
        "Luminance value below which we assume any banding is not visible",
    )
    .param("vlt"),
    OptionSpec::int(
        "max_log_contrast",
        2,
        0,
        5,
        "Maximum contrast in log luma level (2^max_log_contrast) at 10-bits",
    )
    .param("mlc"),
    OptionSpec::bool(
        "full_ref",
        false,
        "If true, CAMBI will be run in full-reference mode and will be computed on both the \
         reference and distorted inputs",
    ),
    OptionSpec::choice(
        "eotf",
        "bt1886",
        &Eotf::NAMES,
        "Determines the EOTF used to compute the visibility thresholds",
    )
    .param("eotf"),
    OptionSpec::choice(
        "cambi_eotf",
        "bt1886",
        &Eotf::NAMES,
        "Determines the EOTF used to compute the visibility thresholds; wins over eotf",
    )
    .param("ceot"),
    OptionSpec::int(
        "cambi_high_res_speedup",
        0,
        0,
        2160,
        "Speed up the processing by downsampling post spatial mask for resolutions >= 1080p",
    )
    .param("hrs"),
];

/// The twin's options from the registry's.
pub fn cambi_options(options: &FeatureOptions) -> CambiOptions {
    let eotf = |name| Eotf::from_name(options.choice(name)).unwrap_or(Eotf::Bt1886);
    let int = |name| options.int(name) as u32;
    CambiOptions {
        cambi_max_val: options.double("cambi_max_val"),
        enc_width: int("enc_width"),
        enc_height: int("enc_height"),
        enc_bitdepth: int("enc_bitdepth"),
        src_width: int("src_width"),
        src_height: int("src_height"),
        window_size: options.int("window_size") as u16,
        topk: options.double("topk"),
        cambi_topk: options.double("cambi_topk"),
        tvi_threshold: options.double("tvi_threshold"),
        cambi_vis_lum_threshold: options.double("cambi_vis_lum_threshold"),
        max_log_contrast: int("max_log_contrast"),
        full_ref: options.bool("full_ref"),
        eotf: eotf("eotf"),
        cambi_eotf: eotf("cambi_eotf"),
        cambi_high_res_speedup: int("cambi_high_res_speedup"),
    }
}

impl Feature for CambiFeature {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["Cambi_feature_cambi_score"]
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
        let cambi = Cambi::new(
            &cambi_options(options),
            g.width as usize,
            g.height as usize,
            g.format.bit_depth,
        )?;
        let kernel = CambiKernel::new(setup.ctx, &cambi)?;
        Ok(Box::new(CambiExtractor { kernel, name: options.output_name(FEATURE) }))
    }
}

struct CambiExtractor {
    kernel: CambiKernel,
    /// The distorted score's name, option suffixes included.
    name: String,
}

impl Extractor for CambiExtractor {
    fn columns(&self) -> Vec<Column> {
        let mut columns = vec![Column::new(self.name.clone())];
        if self.kernel.result_words() > super::NUM_SCALES as u32 {
            columns.push(Column::new("cambi_source".to_owned()));
            columns.push(Column::new("cambi_full_reference".to_owned()));
        }
        columns
    }

    fn result_words(&self) -> u32 {
        self.kernel.result_words()
    }

    fn phases(&self) -> &'static [&'static str] {
        &["cambi"]
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
        let score = self.kernel.decode(words);
        let mut values = vec![score.cambi];
        values.extend(score.source);
        values.extend(score.full_reference);
        vec![(index, values)]
    }
}
