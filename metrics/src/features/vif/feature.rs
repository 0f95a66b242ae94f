//! `vif` on the registry: libvmaf's integer VIF extractor
//! (`integer_vif_scale0..3`, and with `debug` the totals and per-scale
//! numerators and denominators).

use std::sync::Arc;

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::{VifKernel, VifReference};
use super::{FEATURE_NAMES, VifOptions, features};
use crate::MetricsError;
use crate::features::{
    Column, DEBUG, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec,
    ReferenceTerms, Setup,
};

/// The registry entry.
pub struct Vif;

const OPTIONS: &[OptionSpec] = &[
    DEBUG,
    OptionSpec::double(
        "vif_enhn_gain_limit",
        100.0,
        1.0,
        100.0,
        "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled",
    )
    .param("egl"),
    OptionSpec::bool("vif_skip_scale0", false, "when set, skip scale 0 calculations").param("ssclz"),
];

/// The four scale scores come first in [`FEATURE_NAMES`]; the rest are
/// debug values.
const SCORES: usize = 4;

impl Feature for Vif {
    fn name(&self) -> &'static str {
        "vif"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "VMAF_integer_feature_vif_scale0_score",
            "VMAF_integer_feature_vif_scale1_score",
            "VMAF_integer_feature_vif_scale2_score",
            "VMAF_integer_feature_vif_scale3_score",
            "integer_vif",
            "integer_vif_num",
            "integer_vif_den",
            "integer_vif_num_scale0",
            "integer_vif_den_scale0",
            "integer_vif_num_scale1",
            "integer_vif_den_scale1",
            "integer_vif_num_scale2",
            "integer_vif_den_scale2",
            "integer_vif_num_scale3",
            "integer_vif_den_scale3",
        ]
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        super::gpu::twins()
    }

    /// The reference's decimated planes of scales 1 and 2
    /// ([`VifReference`]).
    fn reference_terms(
        &self,
        setup: &Setup<'_>,
        _options: &FeatureOptions,
    ) -> Result<Option<Arc<dyn ReferenceTerms>>, MetricsError> {
        let g = setup.geometry;
        let terms = VifReference::new(setup.ctx, g.width, g.height, g.format.bit_depth)?;
        Ok(Some(Arc::new(terms)))
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let vif = VifOptions {
            enhn_gain_limit: options.double("vif_enhn_gain_limit"),
            skip_scale0: options.bool("vif_skip_scale0"),
        };
        let g = setup.geometry;
        let kernel = match &setup.terms {
            None => VifKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, vif)?,
            Some(terms) => {
                let reference =
                    Arc::clone(terms).into_any().downcast::<VifReference>().map_err(|_| {
                        MetricsError::Usage("vif: reference terms of another feature".into())
                    })?;
                VifKernel::sharing(setup.ctx, vif, reference)?
            }
        };
        let count = if options.bool("debug") { FEATURE_NAMES.len() } else { SCORES };
        Ok(Box::new(VifExtractor { kernel, count, names: options.clone() }))
    }
}

struct VifExtractor {
    kernel: VifKernel,
    /// How many of [`FEATURE_NAMES`] this instance reports.
    count: usize,
    names: FeatureOptions,
}

impl Extractor for VifExtractor {
    fn columns(&self) -> Vec<Column> {
        FEATURE_NAMES[..self.count].iter().map(|n| Column::new(self.names.output_name(n))).collect()
    }

    fn result_words(&self) -> u32 {
        VifKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &VifKernel::PROFILE_PHASES
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
        let values = features(&self.kernel.decode(words)).named();
        vec![(index, values[..self.count].iter().map(|(_, v)| *v).collect())]
    }
}
