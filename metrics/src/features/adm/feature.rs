//! `adm` on the registry: libvmaf's integer ADM extractor (`integer_adm2`,
//! `integer_aim`, `integer_adm3`, `integer_adm_scale0..3`, and with `debug`
//! the numerator/denominator sums), every option libvmaf 3.2 declares.

use std::sync::Arc;

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::csf::CsfMode;
use super::gpu::{AdmKernel, AdmReference};
use super::{AdmOptions, adm_scores};
use crate::MetricsError;
use crate::features::{
    Column, DEBUG, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec,
    ReferenceTerms, Setup,
};

/// The registry entry.
pub struct Adm;

const OPTIONS: &[OptionSpec] = &[
    DEBUG,
    OptionSpec::double(
        "adm_csf_scale",
        1.0,
        0.0,
        50.0,
        "scale coefficient for the horizontal & vertical direction terms of CSF (Barten, mode 1)",
    )
    .param("scf"),
    OptionSpec::double(
        "adm_csf_diag_scale",
        1.0,
        0.0,
        50.0,
        "scale coefficient for the diagonal direction term of CSF (Barten, mode 1)",
    )
    .param("scfd"),
    OptionSpec::double(
        "adm_dlm_weight",
        0.5,
        0.0,
        1.0,
        "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
    )
    .param("dlmw"),
    OptionSpec::double(
        "adm_enhn_gain_limit",
        100.0,
        1.0,
        100.0,
        "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled",
    )
    .param("egl"),
    OptionSpec::double(
        "adm_norm_view_dist",
        3.0,
        0.75,
        24.0,
        "normalized viewing distance = viewing distance / ref display's physical height",
    )
    .param("nvd"),
    OptionSpec::int("adm_ref_display_height", 1080, 1, 4320, "reference display height in pixels")
        .param("rdh"),
    OptionSpec::int(
        "adm_csf_mode",
        0,
        0,
        3,
        "contrast sensitivity function (0 Watson, 1 Barten, 2 Barten/Watson blend, 3 blend MAE)",
    )
    .param("csf"),
    OptionSpec::double("adm_noise_weight", 0.03125, 0.0, 1500.0, "noise weight").param("nw"),
    OptionSpec::bool("adm_skip_aim", false, "skip the calculation of AIM"),
    OptionSpec::bool("adm_skip_scale0", false, "skip the calculation of scale 0").param("ssz"),
    OptionSpec::double(
        "adm_min_val",
        0.0,
        0.0,
        1.0,
        "minimum value allowed; lower values will be clipped to this value",
    )
    .param("min"),
];

/// Values printed only in debug mode.
fn is_debug(name: &str) -> bool {
    name == "integer_adm" || name.contains("_num") || name.contains("_den")
}

impl Feature for Adm {
    fn name(&self) -> &'static str {
        "adm"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "VMAF_integer_feature_adm2_score",
            "VMAF_integer_feature_aim_score",
            "VMAF_integer_feature_adm3_score",
            "integer_adm_scale0",
            "integer_adm_scale1",
            "integer_adm_scale2",
            "integer_adm_scale3",
            "integer_adm",
            "integer_adm_num",
            "integer_adm_den",
            "integer_adm_num_scale0",
            "integer_adm_den_scale0",
            "integer_adm_num_scale1",
            "integer_adm_den_scale1",
            "integer_adm_num_scale2",
            "integer_adm_den_scale2",
            "integer_adm_num_scale3",
            "integer_adm_den_scale3",
        ]
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        super::gpu::twins()
    }

    /// The reference's wavelet bands and denominator ([`AdmReference`]).
    fn reference_terms(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Option<Arc<dyn ReferenceTerms>>, MetricsError> {
        let adm = adm_options(options)?;
        let g = setup.geometry;
        let terms = AdmReference::new(setup.ctx, g.width, g.height, g.format.bit_depth, &adm)?;
        Ok(Some(Arc::new(terms)))
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let adm = adm_options(options)?;
        let g = setup.geometry;
        let kernel = match &setup.terms {
            None => AdmKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, &adm)?,
            Some(terms) => {
                let reference =
                    Arc::clone(terms).into_any().downcast::<AdmReference>().map_err(|_| {
                        MetricsError::Usage("adm: reference terms of another feature".into())
                    })?;
                AdmKernel::sharing(setup.ctx, &adm, reference)?
            }
        };
        Ok(Box::new(AdmExtractor {
            kernel,
            options: adm,
            size: (g.width as usize, g.height as usize),
            debug: options.bool("debug"),
            names: options.clone(),
        }))
    }
}

/// The integer ADM options an instance's options set.
pub fn adm_options(options: &FeatureOptions) -> Result<AdmOptions, MetricsError> {
    let mode = options.int("adm_csf_mode");
    let csf_mode = CsfMode::from_option(mode).ok_or_else(|| MetricsError::FeatureOption {
        feature: "adm".to_owned(),
        option: "adm_csf_mode".to_owned(),
        reason: format!("{mode} is outside 0 ..= 3"),
    })?;
    Ok(AdmOptions {
        enhn_gain_limit: options.double("adm_enhn_gain_limit"),
        norm_view_dist: options.double("adm_norm_view_dist"),
        ref_display_height: options.int("adm_ref_display_height") as i32,
        noise_weight: options.double("adm_noise_weight"),
        dlm_weight: options.double("adm_dlm_weight"),
        min_val: options.double("adm_min_val"),
        skip_aim: options.bool("adm_skip_aim"),
        skip_scale0: options.bool("adm_skip_scale0"),
        csf_mode,
        csf_scale: options.double("adm_csf_scale"),
        csf_diag_scale: options.double("adm_csf_diag_scale"),
    })
}

struct AdmExtractor {
    kernel: AdmKernel,
    options: AdmOptions,
    size: (usize, usize),
    debug: bool,
    /// The instance's options, for its output names.
    names: FeatureOptions,
}

impl AdmExtractor {
    fn keep(&self, name: &str) -> bool {
        self.debug || !is_debug(name)
    }
}

impl Extractor for AdmExtractor {
    fn columns(&self) -> Vec<Column> {
        // The order and names of `AdmScores::named`, which every frame has.
        let sample = adm_scores(&Default::default(), self.size.0, self.size.1, &self.options);
        sample
            .named()
            .into_iter()
            .filter(|(n, _)| self.keep(n))
            .map(|(n, _)| Column::new(self.names.output_name(n)))
            .collect()
    }

    fn result_words(&self) -> u32 {
        AdmKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &AdmKernel::PROFILE_PHASES
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
            Some(stamps) => self.kernel.record_profiled(rec, r, d, out, offset_words, stamps),
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let scores = adm_scores(&AdmKernel::decode(words), self.size.0, self.size.1, &self.options);
        let values =
            scores.named().into_iter().filter(|(n, _)| self.keep(n)).map(|(_, v)| v).collect();
        vec![(index, values)]
    }
}
