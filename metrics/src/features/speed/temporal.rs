//! `speed_temporal`: SpEED on the frame-to-frame differences of the luma
//! (previous minus current, in float, on each side), and its registry
//! entry. Frame 0 scores 0. As in libvmaf, `speed_max_val` is an option
//! (it changes the output name) that caps nothing, and the weighting mode is
//! always 0.
//!
//! **Where it runs.** The GPU resamples (with a prescale) and decimates the
//! float differences of the previous and the current luma on each side
//! ([`super::gpu`], the previous frame's planes from the pipeline) and
//! computes their covariance matrices; the host finishes from the centered
//! planes. Only with `speed_prescale_method=lanczos4` (libm's sines) the
//! entry copies the luma planes into the result buffer and runs the CPU
//! twin on the host, which keeps the previous frame's float planes (frames
//! reach the host in order).

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use super::chroma::{KERNELSCALE, MAX_VAL, NN_FLOOR, PRESCALE, PRESCALE_METHOD, SIGMA_NN};
use super::gpu::SpeedKernel;
use super::host_queue::HostQueue;
use super::readback::{PlaneCopy, record_copies};
use super::{Dimensions, SpeedOptions, centered_score, check_options, float_plane, speed_score};
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
        super::gpu::twins()
    }

    fn build(
        &self,
        setup: &Setup<'_>,
        options: &FeatureOptions,
    ) -> Result<Box<dyn Extractor>, MetricsError> {
        let g = setup.geometry;
        let (w, h) = (g.width as usize, g.height as usize);
        let o = super::chroma::speed_options(options, 0);
        let use_ref_diff = options.bool("speed_use_ref_diff");
        let scorer = SpeedTemporal::new(w, h, o, use_ref_diff)?;
        let source = if SpeedKernel::runs(&o) {
            let bpc = g.format.bit_depth;
            let kernel = SpeedKernel::new(setup.ctx, FEATURE, w as u32, h as u32, bpc, &o, 2)?;
            Source::Gpu(Box::new(kernel))
        } else {
            Source::Copy(PlaneCopy::new(w, h, g.format.bit_depth))
        };
        Ok(Box::new(SpeedTemporalExtractor {
            source,
            scorer,
            use_ref_diff,
            names: options.clone(),
            host: HostQueue::default(),
        }))
    }
}

/// Where an instance's planes go: the GPU kernels on the differences, or
/// (a Lanczos prescale) whole luma copies for the host.
enum Source {
    Gpu(Box<SpeedKernel>),
    Copy(PlaneCopy),
}

struct SpeedTemporalExtractor {
    source: Source,
    /// The twin: its options and sizes, and on the copy path the previous
    /// frame's planes.
    scorer: SpeedTemporal,
    use_ref_diff: bool,
    names: FeatureOptions,
    /// The GPU path's host work, several frames at once.
    host: HostQueue,
}

impl Extractor for SpeedTemporalExtractor {
    fn columns(&self) -> Vec<Column> {
        vec![Column::new(self.names.output_name(FEATURE_NAME))]
    }

    fn result_words(&self) -> u32 {
        match &self.source {
            Source::Gpu(kernel) => kernel.result_words(),
            Source::Copy(luma) => 2 * luma.words(),
        }
    }

    fn earlier_reference(&self, index: u64) -> Option<u64> {
        match self.source {
            Source::Gpu(_) => index.checked_sub(1),
            Source::Copy(_) => None,
        }
    }

    fn phases(&self) -> &'static [&'static str] {
        match &self.source {
            Source::Gpu(kernel) => kernel.phases(),
            Source::Copy(_) => &["copy luma planes"],
        }
    }

    fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &FramePlanes<'_>,
        out: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        let (r, d) = (planes.reference[0], planes.distorted[0]);
        match &self.source {
            Source::Gpu(kernel) => {
                // Frame 0 has no earlier frame, and scores 0.
                let (Some(er), Some(ed)) = (planes.earlier_reference, planes.earlier_distorted)
                else {
                    return Ok(());
                };
                let cur_for_dis = if self.use_ref_diff { r } else { d };
                let planes = [(er, Some(r)), (ed, Some(cur_for_dis))];
                match stamps {
                    None => kernel.record(rec, &planes, out, offset_words),
                    Some(s) => kernel.record_profiled(rec, &planes, out, offset_words, s),
                }
            }
            Source::Copy(luma) => {
                record_copies(rec, &[(*luma, r), (*luma, d)], out, offset_words, stamps)
            }
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let kernel = match &self.source {
            Source::Gpu(kernel) => kernel,
            Source::Copy(luma) => {
                let n = luma.words() as usize;
                let (r, d) = (luma.samples(&words[..n]), luma.samples(&words[n..2 * n]));
                let rv = PlaneView::packed(luma.width, luma.height, luma.bpc, &r);
                let dv = PlaneView::packed(luma.width, luma.height, luma.bpc, &d);
                // The size and options were checked when the instance was built.
                return vec![(index, vec![self.scorer.push(&rv, &dv).unwrap_or(f64::NAN)])];
            }
        };
        // Frame 0 has no earlier frame, and scores 0.
        if index == 0 {
            return self.host.ready(index, vec![0.0]);
        }
        let p = kernel.decode(words);
        let (dims, o) = (self.scorer.dims, self.scorer.options);
        self.host.push(index, move || {
            let side = |i: usize| (&p[i].plane, &p[i].covariance);
            vec![f64::from(centered_score(side(0), side(1), &dims, &o).0)]
        })
    }

    fn flush(&mut self) -> Vec<FrameValues> {
        self.host.flush()
    }
}
