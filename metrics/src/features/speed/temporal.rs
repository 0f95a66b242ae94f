//! `speed_temporal`: SpEED on the frame-to-frame differences of the luma
//! (previous minus current, in float, on each side), and its registry
//! entry. Frame 0 scores 0. As in libvmaf, `speed_max_val` is an option
//! (it changes the output name) that caps nothing, and the weighting mode is
//! always 0.
//!
//! **Where it runs (interim).** Like `speed_chroma` (see
//! [`super::chroma`]), the registry entry copies the luma planes into the
//! result buffer and runs the CPU twin on the host, which keeps the
//! previous frame's float planes (frames reach the host in order).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::chroma::{KERNELSCALE, MAX_VAL, NN_FLOOR, PRESCALE, PRESCALE_METHOD, SIGMA_NN};
use super::readback::{PlaneCopy, record_copies};
use super::{Dimensions, SpeedOptions, check_options, float_plane, speed_score};
use crate::MetricsError;
use crate::features::float_vif::filter::FloatPlane;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "speed_temporal";

/// The output name (libvmaf's alias of
/// `Speed_temporal_feature_speed_temporal_score`).
pub const FEATURE_NAME: &str = "speed_temporal";

/// The temporal SpEED of a clip, frame by frame.
pub struct SpeedTemporal {
    dims: Dimensions,
    options: SpeedOptions,
    use_ref_diff: bool,
    /// The previous frame's float planes (reference, distorted).
    previous: Option<(FloatPlane, FloatPlane)>,
}

impl SpeedTemporal {
    /// A scorer for `width × height` luma planes. With `use_ref_diff` the
    /// distorted side's difference is the previous distorted frame minus the
    /// current *reference* frame (libvmaf's debug option).
    pub fn new(
        width: usize,
        height: usize,
        options: SpeedOptions,
        use_ref_diff: bool,
    ) -> Result<Self, MetricsError> {
        let options = SpeedOptions { weight_var_mode: 0, ..options };
        check_options(FEATURE, &options)?;
        let dims = Dimensions::new(FEATURE, width, height, options.prescale)?;
        Ok(Self { dims, options, use_ref_diff, previous: None })
    }

    /// The next frame's score.
    pub fn push(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
    ) -> Result<f64, MetricsError> {
        check_pair(FEATURE, reference, distorted)?;
        let (w, h) = (reference.width, reference.height);
        let cur = (float_plane(reference, w, h)?, float_plane(distorted, w, h)?);
        let Some((prev_ref, prev_dis)) = self.previous.replace(cur) else {
            return Ok(0.0);
        };
        let (cur_ref, cur_dis) = self.previous.as_ref().expect("just set");
        if (prev_ref.width, prev_ref.height) != (w, h) {
            return Err(MetricsError::Usage(format!("{FEATURE}: the frame size changed mid-clip")));
        }
        let minus = |a: &FloatPlane, b: &FloatPlane| FloatPlane {
            width: w,
            height: h,
            data: a.data.iter().zip(&b.data).map(|(&x, &y)| x - y).collect(),
        };
        let diff_ref = minus(&prev_ref, cur_ref);
        let diff_dis = minus(&prev_dis, if self.use_ref_diff { cur_ref } else { cur_dis });
        let (score, _) = speed_score(&diff_ref, &diff_dis, &self.dims, &self.options);
        Ok(f64::from(score))
    }
}

/// The registry entry.
pub struct SpeedTemporalFeature;

/// libvmaf's option table, in its order.
const OPTIONS: &[OptionSpec] = &[
    KERNELSCALE,
    PRESCALE,
    PRESCALE_METHOD,
    SIGMA_NN,
    NN_FLOOR,
    MAX_VAL,
    OptionSpec::bool("speed_use_ref_diff", false, "debug mode: enable additional output")
        .param("urd"),
];

impl Feature for SpeedTemporalFeature {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &["Speed_temporal_feature_speed_temporal_score"]
    }

    #[cfg(test)]
    fn twins(&self) -> Vec<vqscope_shaders::twin::Twin> {
        Vec::new()
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let g = setup.geometry;
        let (w, h) = (g.width as usize, g.height as usize);
        let o = super::chroma::speed_options(options, 0);
        let scorer = SpeedTemporal::new(w, h, o, options.bool("speed_use_ref_diff"))?;
        Ok(Box::new(SpeedTemporalExtractor {
            luma: PlaneCopy::new(w, h, g.format.bit_depth),
            scorer,
            names: options.clone(),
        }))
    }
}

struct SpeedTemporalExtractor {
    luma: PlaneCopy,
    scorer: SpeedTemporal,
    names: FeatureOptions,
}

impl Extractor for SpeedTemporalExtractor {
    fn columns(&self) -> Vec<Column> {
        vec![Column::new(self.names.output_name(FEATURE_NAME))]
    }

    fn result_words(&self) -> u32 {
        2 * self.luma.words()
    }

    fn phases(&self) -> &'static [&'static str] {
        &["copy luma planes"]
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let copies = [(self.luma, planes.reference[0]), (self.luma, planes.distorted[0])];
        record_copies(rec, &copies, out, offset_words, stamps)
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let n = self.luma.words() as usize;
        let (r, d) = (self.luma.samples(&words[..n]), self.luma.samples(&words[n..2 * n]));
        let c = self.luma;
        let rv = PlaneView::packed(c.width, c.height, c.bpc, &r);
        let dv = PlaneView::packed(c.width, c.height, c.bpc, &d);
        // The size and options were checked when the instance was built.
        let value = self.scorer.push(&rv, &dv).unwrap_or(f64::NAN);
        vec![(index, vec![value])]
    }
}
