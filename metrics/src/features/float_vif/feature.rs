//! `float_vif` on the registry: libvmaf's float VIF extractor
//! (`vif_scale0..3`, and with `debug` the total, its numerator and
//! denominator and each scale's), which the float VMAF models read as
//! `VMAF_feature_vif_scaleK_score`.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::gpu::FloatVifKernel;
use super::{FEATURE_NAMES, FloatVifOptions, PrescaleMethod, features};
use crate::MetricsError;
use crate::features::{
    Column, DEBUG, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};

/// The registry entry.
pub struct FloatVif;

/// libvmaf's option table, in its order.
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
    OptionSpec::double(
        "vif_kernelscale",
        1.0,
        0.1,
        4.0,
        "scaling factor for the gaussian kernel (2.0 means multiplying the standard deviation by 2 \
         and enlarge the kernel size accordingly); one of libvmaf's listed values",
    )
    .param("ks"),
    OptionSpec::double(
        "vif_prescale",
        1.0,
        0.1,
        4.0,
        "scaling factor for the frame (2.0 means making the image twice as large on each \
         dimension); vqscope computes only factors that keep the frame size",
    )
    .param("ps"),
    OptionSpec::double(
        "vif_scale1_min_val",
        0.0,
        0.0,
        1.0,
        "minimum value allowed; smaller values will be set to this value",
    )
    .param("s1miv"),
    OptionSpec::double(
        "vif_scale2_min_val",
        0.0,
        0.0,
        1.0,
        "minimum value allowed; smaller values will be set to this value",
    )
    .param("s2miv"),
    OptionSpec::double(
        "vif_scale3_min_val",
        0.0,
        0.0,
        1.0,
        "minimum value allowed; smaller values will be set to this value",
    )
    .param("s3miv"),
    OptionSpec::choice(
        "vif_prescale_method",
        "nearest",
        &PrescaleMethod::NAMES,
        "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]",
    )
    .param("pm"),
    OptionSpec::double("vif_sigma_nsq", 2.0, 0.0, 5.0, "neural noise variance").param("snsq"),
    OptionSpec::bool("vif_skip_scale0", false, "when set, skip scale 0 calculations").param("ssclz"),
];

/// The four scale scores come first in [`FEATURE_NAMES`]; the rest are
/// debug values.
const SCORES: usize = 4;

/// The twin's options from an instance's option set.
pub fn vif_options(options: &FeatureOptions) -> FloatVifOptions {
    let method = options.choice("vif_prescale_method");
    FloatVifOptions {
        enhn_gain_limit: options.double("vif_enhn_gain_limit"),
        kernelscale: options.double("vif_kernelscale"),
        prescale: options.double("vif_prescale"),
        prescale_method: PrescaleMethod::from_name(method).unwrap_or(PrescaleMethod::Nearest),
        sigma_nsq: options.double("vif_sigma_nsq"),
        skip_scale0: options.bool("vif_skip_scale0"),
        min_val: [
            options.double("vif_scale1_min_val"),
            options.double("vif_scale2_min_val"),
            options.double("vif_scale3_min_val"),
        ],
    }
}

impl Feature for FloatVif {
    fn name(&self) -> &'static str {
        "float_vif"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "VMAF_feature_vif_scale0_score",
            "VMAF_feature_vif_scale1_score",
            "VMAF_feature_vif_scale2_score",
            "VMAF_feature_vif_scale3_score",
            "vif",
            "vif_num",
            "vif_den",
            "vif_num_scale0",
            "vif_den_scale0",
            "vif_num_scale1",
            "vif_den_scale1",
            "vif_num_scale2",
            "vif_den_scale2",
            "vif_num_scale3",
            "vif_den_scale3",
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
        let vif = vif_options(options);
        let g = setup.geometry;
        let kernel = FloatVifKernel::new(setup.ctx, g.width, g.height, g.format.bit_depth, &vif)?;
        let count = if options.bool("debug") { FEATURE_NAMES.len() } else { SCORES };
        Ok(Box::new(FloatVifExtractor { kernel, vif, count, names: options.clone() }))
    }
}

struct FloatVifExtractor {
    kernel: FloatVifKernel,
    vif: FloatVifOptions,
    /// How many of [`FEATURE_NAMES`] this instance reports.
    count: usize,
    names: FeatureOptions,
}

impl Extractor for FloatVifExtractor {
    fn columns(&self) -> Vec<Column> {
        FEATURE_NAMES[..self.count].iter().map(|n| Column::new(self.names.output_name(n))).collect()
    }

    fn result_words(&self) -> u32 {
        FloatVifKernel::RESULT_WORDS
    }

    fn phases(&self) -> &'static [&'static str] {
        &FloatVifKernel::PROFILE_PHASES
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
        let values = features(&self.kernel.decode(words), &self.vif);
        vec![(index, values[..self.count].to_vec())]
    }
}
