//! `float_adm` on the registry: libvmaf's float ADM extractor (`adm2`,
//! `aim`, `adm3`, `adm_scale0..3`, and with `debug` the numerator and
//! denominator sums), every option libvmaf 3.2 declares for it.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::FloatAdmKernel;
use super::{FloatAdmOptions, FloatAdmScores, scores};
use crate::MetricsError;
use crate::features::{
    Column, DEBUG, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct FloatAdm;

const OPTIONS: &[OptionSpec] = &[
    DEBUG,
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
    OptionSpec::double("adm_noise_weight", 0.03125, 0.0, 1500.0, "noise weight").param("nw"),
    OptionSpec::double("adm_csf_scale", 1.0, 0.0, 50.0, "scale factor for the CSF").param("scf"),
    OptionSpec::double("adm_csf_diag_scale", 1.0, 0.0, 50.0, "scale factor for the CSF diag")
        .param("scfd"),
    // libvmaf's float extractor spells this alias `rdf` (the integer one `rdh`).
    OptionSpec::int("adm_ref_display_height", 1080, 1, 4320, "reference display height in pixels")
        .param("rdf"),
    OptionSpec::int("adm_csf_mode", 0, 0, 9, "contrast sensitivity function").param("csf"),
    OptionSpec::int("adm_bypass_cm", 0, 0, 1, "bypass contrast masking (CM)").param("bcm"),
    OptionSpec::bool(
        "adm_adm3_apply_hm",
        false,
        "apply harmonic mean to combine DLM and AIM",
    )
    .param("aah"),
    OptionSpec::double("adm_p_norm", 3.0, 1.0, 20.0, "p-norm for energy vector").param("apn"),
    OptionSpec::double(
        "adm_dlm_weight",
        0.5,
        0.0,
        1.0,
        "linear weighting between DLM and AIM; 1 corresponds to DLM-only",
    )
    .param("dlmw"),
    OptionSpec::double(
        "adm_min_val",
        0.0,
        0.0,
        1.0,
        "minimum value allowed; lower values will be clipped to this value",
    )
    .param("min"),
    OptionSpec::double("adm_f1s0", -1.0, -1.0, 10.0, "factor1 scale0").param("f1s0"),
    OptionSpec::double("adm_f1s1", -1.0, -1.0, 10.0, "factor1 scale1").param("f1s1"),
    OptionSpec::double("adm_f1s2", -1.0, -1.0, 10.0, "factor1 scale2").param("f1s2"),
    OptionSpec::double("adm_f1s3", -1.0, -1.0, 10.0, "factor1 scale3").param("f1s3"),
    OptionSpec::double("adm_f2s0", -1.0, -1.0, 10.0, "factor2 scale0").param("f2s0"),
    OptionSpec::double("adm_f2s1", -1.0, -1.0, 10.0, "factor2 scale1").param("f2s1"),
    OptionSpec::double("adm_f2s2", -1.0, -1.0, 10.0, "factor2 scale2").param("f2s2"),
    OptionSpec::double("adm_f2s3", -1.0, -1.0, 10.0, "factor2 scale3").param("f2s3"),
    // The default -1 (no level skipped) lies outside the range, as in libvmaf.
    OptionSpec::int(
        "adm_skip_aim_scale",
        -1,
        0,
        3,
        "when set, skip AIM calculations for that scale",
    )
    .param("sasc"),
    OptionSpec::bool("adm_skip_scale0", false, "skip the calculation of scale 0").param("ssz"),
];

/// The options of an instance as the twin takes them.
pub fn twin_options(o: &FeatureOptions) -> FloatAdmOptions {
    let d = |n: &str| o.double(n);
    FloatAdmOptions {
        enhn_gain_limit: d("adm_enhn_gain_limit"),
        norm_view_dist: d("adm_norm_view_dist"),
        ref_display_height: o.int("adm_ref_display_height") as i32,
        noise_weight: d("adm_noise_weight"),
        csf_scale: d("adm_csf_scale"),
        csf_diag_scale: d("adm_csf_diag_scale"),
        csf_mode: o.int("adm_csf_mode"),
        bypass_cm: o.int("adm_bypass_cm") != 0,
        adm3_apply_hm: o.bool("adm_adm3_apply_hm"),
        p_norm: d("adm_p_norm"),
        dlm_weight: d("adm_dlm_weight"),
        min_val: d("adm_min_val"),
        f1: [d("adm_f1s0"), d("adm_f1s1"), d("adm_f1s2"), d("adm_f1s3")],
        f2: [d("adm_f2s0"), d("adm_f2s1"), d("adm_f2s2"), d("adm_f2s3")],
        skip_aim_scale: o.int("adm_skip_aim_scale"),
        skip_scale0: o.bool("adm_skip_scale0"),
    }
}

impl Feature for FloatAdm {
    fn name(&self) -> &'static str {
        "float_adm"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "VMAF_feature_adm2_score",
            "VMAF_feature_aim_score",
            "VMAF_feature_adm3_score",
            "VMAF_feature_adm_scale0_score",
            "VMAF_feature_adm_scale1_score",
            "VMAF_feature_adm_scale2_score",
            "VMAF_feature_adm_scale3_score",
            "adm_num",
            "adm_den",
            "adm_scale0",
            "adm_num_scale0",
            "adm_den_scale0",
            "adm_num_scale1",
            "adm_den_scale1",
            "adm_num_scale2",
            "adm_den_scale2",
            "adm_num_scale3",
            "adm_den_scale3",
        ]
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
        let adm = twin_options(options);
        let g = setup.geometry;
        let kernel = FloatAdmKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, &adm)?;
        Ok(Box::new(FloatAdmExtractor {
            kernel,
            options: adm,
            size: (g.width as usize, g.height as usize),
            debug: options.bool("debug"),
            names: options.clone(),
        }))
    }
}

struct FloatAdmExtractor {
    kernel: FloatAdmKernel,
    options: FloatAdmOptions,
    size: (usize, usize),
    debug: bool,
    /// The instance's options, for its output names.
    names: FeatureOptions,
}

impl FloatAdmExtractor {
    fn keep(&self, name: &str) -> bool {
        self.debug || !FloatAdmScores::is_debug(name)
    }
}

impl Extractor for FloatAdmExtractor {
    fn columns(&self) -> Vec<Column> {
        FloatAdmScores::default()
            .named()
            .into_iter()
            .filter(|(n, _)| self.keep(n))
            .map(|(n, _)| Column::new(self.names.output_name(n)))
            .collect()
    }

    fn result_words(&self) -> u32 {
        FloatAdmKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &FloatAdmKernel::PROFILE_PHASES
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
        let s = scores(&FloatAdmKernel::decode(words), self.size.0, self.size.1, &self.options);
        let values = s.named().into_iter().filter(|(n, _)| self.keep(n)).map(|(_, v)| v).collect();
        vec![(index, values)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_carry_libvmafs_suffixes() {
        let mut o = FloatAdm.default_options();
        assert_eq!(o.output_name("adm2"), "adm2");
        o.parse_list("float_adm", "adm_enhn_gain_limit=1.0:adm_ref_display_height=2160:debug=true")
            .unwrap();
        // Sorted by option name; the float extractor's alias is `rdf`.
        assert_eq!(o.output_name("adm2"), "adm2_egl_1_rdf_2160");
        let t = twin_options(&o);
        assert_eq!((t.enhn_gain_limit, t.ref_display_height), (1.0, 2160));
        assert!(o.parse_list("float_adm", "adm_skip_aim_scale=-1").is_err());
        assert!(o.parse_list("float_adm", "adm_csf_mode=10").is_err());
        assert!(FloatAdm.provides().contains(&"VMAF_feature_adm2_score"));
    }
}
