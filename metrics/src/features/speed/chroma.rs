//! `speed_chroma` (`speed_chroma_u`, `speed_chroma_v`, `speed_chroma_uv`):
//! SpEED on each chroma plane pair, and its registry entry.
//!
//! **Where it runs.** The GPU resamples (with a prescale: the 2160 models'
//! 0.5, bilinear) and decimates the four chroma planes of the shared upload
//! and computes their covariance matrices ([`super::gpu`]); the host
//! finishes (eigenvalues, solve, entropies) from 4 × 1/256 of the samples.
//! Only with `speed_prescale_method=lanczos4`, whose weights are libm's
//! sines, the entry copies the four chroma planes into the result buffer (a
//! transfer copy, 2 MiB a 1080p 4:2:0 frame) and runs the whole CPU twin on
//! the host.

use vqscope_gpu::{Buffer, Recorder, Timestamps};
use vqscope_video::ChromaFormat;

use super::gpu::SpeedKernel;
use super::host_queue::HostQueue;
use super::readback::{PlaneCopy, record_copies};
use super::{Dimensions, SpeedOptions, centered_score, check_options, float_plane, speed_score};
use crate::MetricsError;
use crate::features::float_vif::PrescaleMethod;
use crate::features::{
    Column, Extractor, Feature, FeatureOptions, FramePlanes, FrameValues, OptionSpec, Setup,
};
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "speed_chroma";

/// Output names in report order (libvmaf's aliases of
/// `Speed_chroma_feature_speed_chroma_{u,v,uv}_score`).
pub const FEATURE_NAMES: [&str; 3] = ["speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"];

/// libvmaf's default `speed_max_val`.
pub const DEFAULT_MAX_VAL: f64 = 1000.0;

/// The size libvmaf gives the chroma planes of a `width × height` frame:
/// halved with truncation where subsampled (so an odd frame's last chroma
/// column or row is left out). Luma-only input is refused, as libvmaf does.
pub fn chroma_size(
    format: ChromaFormat,
    width: usize,
    height: usize,
) -> Result<(usize, usize), MetricsError> {
    match format {
        ChromaFormat::Mono => Err(MetricsError::Usage(format!(
            "{FEATURE}: the input has no chroma planes (libvmaf refuses 4:0:0 too)"
        ))),
        ChromaFormat::Yuv420 => Ok((width / 2, height / 2)),
        ChromaFormat::Yuv422 => Ok((width / 2, height)),
        ChromaFormat::Yuv444 => Ok((width, height)),
    }
}

/// One frame's `speed_chroma` values from its chroma planes (`[Cb, Cr]` of
/// each side) at libvmaf's chroma size `size`: `[u, v, uv]`, each capped at
/// `max_val`. A channel whose covariance was singular takes the other's
/// score for `uv`, where only one was.
pub fn speed_chroma(
    reference: [&PlaneView<'_>; 2],
    distorted: [&PlaneView<'_>; 2],
    size: (usize, usize),
    o: &SpeedOptions,
    max_val: f64,
) -> Result<[f64; 3], MetricsError> {
    check_options(FEATURE, o)?;
    let dims = Dimensions::new(FEATURE, size.0, size.1, o.prescale)?;
    let mut scores = [(0.0f32, false); 2];
    for (c, s) in scores.iter_mut().enumerate() {
        let (r, d) = (reference[c], distorted[c]);
        check_pair(FEATURE, r, d)?;
        if r.width < size.0 || r.height < size.1 {
            return Err(MetricsError::Usage(format!(
                "{FEATURE}: a {}x{} chroma plane is smaller than {}x{}",
                r.width, r.height, size.0, size.1
            )));
        }
        let rp = float_plane(r, size.0, size.1)?;
        let dp = float_plane(d, size.0, size.1)?;
        *s = speed_score(&rp, &dp, &dims, o);
    }
    Ok(combine(scores, max_val))
}

/// The three values from each channel's `(score, singular)`: `uv` is the
/// mean (a float sum halved in double), or the other channel's score where
/// exactly one channel was singular; each capped at `max_val` (compared in
/// double).
pub fn combine(scores: [(f32, bool); 2], max_val: f64) -> [f64; 3] {
    let [(u, err_u), (v, err_v)] = scores;
    let uv = match (err_u, err_v) {
        (true, false) => v,
        (false, true) => u,
        _ => (f64::from(u + v) / 2.0) as f32,
    };
    [u, v, uv].map(|s| f64::from(s).min(max_val))
}

/// The registry entry.
pub struct SpeedChroma;

/// `speed_kernelscale` (shared by both SpEED extractors, as are the next
/// five).
pub const KERNELSCALE: OptionSpec = OptionSpec::double(
    "speed_kernelscale",
    1.0,
    0.1,
    4.0,
    "scaling factor for the gaussian kernel (2.0 means multiplying the standard deviation by 2 \
     and enlarge the kernel size accordingly); one of libvmaf's listed values",
)
.param("ks");
pub const PRESCALE: OptionSpec = OptionSpec::double(
    "speed_prescale",
    1.0,
    0.1,
    4.0,
    "scaling factor for the frame (2.0 means making the image twice as large on each dimension)",
)
.param("ps");
pub const PRESCALE_METHOD: OptionSpec = OptionSpec::choice(
    "speed_prescale_method",
    "nearest",
    &PrescaleMethod::NAMES,
    "scaling method for the frame, supported options: [nearest, bilinear, bicubic, lanczos4]",
)
.param("psm");
pub const SIGMA_NN: OptionSpec =
    OptionSpec::double("speed_sigma_nn", 0.29, 0.1, 2.0, "standard deviation of neural noise")
        .param("snn");
pub const NN_FLOOR: OptionSpec = OptionSpec::double(
    "speed_nn_floor",
    0.0,
    0.0,
    1.0,
    "neural noise floor, expressed in percentage of sigma_nn",
)
.param("nnf");
pub const MAX_VAL: OptionSpec = OptionSpec::double(
    "speed_max_val",
    DEFAULT_MAX_VAL,
    0.0,
    1000.0,
    "maximum value allowed; larger values will be clipped to this value",
)
.param("mxv");

/// libvmaf's option table, in its order.
const OPTIONS: &[OptionSpec] = &[
    KERNELSCALE,
    PRESCALE,
    PRESCALE_METHOD,
    SIGMA_NN,
    NN_FLOOR,
    MAX_VAL,
    OptionSpec::int(
        "speed_weight_var_mode",
        0,
        0,
        6,
        "different approaches to perform variance-absed weighting",
    )
    .param("wvm"),
];

/// The twin's options from an instance's option set (the options shared
/// by both SpEED extractors; `speed_weight_var_mode` only where present).
pub fn speed_options(options: &FeatureOptions, weight_var_mode: i64) -> SpeedOptions {
    let method = options.choice("speed_prescale_method");
    SpeedOptions {
        kernelscale: options.double("speed_kernelscale"),
        prescale: options.double("speed_prescale"),
        prescale_method: PrescaleMethod::from_name(method).unwrap_or(PrescaleMethod::Nearest),
        sigma_nn: options.double("speed_sigma_nn"),
        nn_floor: options.double("speed_nn_floor"),
        weight_var_mode,
    }
}

impl Feature for SpeedChroma {
    fn name(&self) -> &'static str {
        FEATURE
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn provides(&self) -> &'static [&'static str] {
        &[
            "Speed_chroma_feature_speed_chroma_u_score",
            "Speed_chroma_feature_speed_chroma_v_score",
            "Speed_chroma_feature_speed_chroma_uv_score",
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
        let g = setup.geometry;
        let o = speed_options(options, options.int("speed_weight_var_mode"));
        check_options(FEATURE, &o)?;
        let size = chroma_size(g.format.chroma, g.width as usize, g.height as usize)?;
        let source = if SpeedKernel::runs(&o) {
            let (w, h) = (size.0 as u32, size.1 as u32);
            let bpc = g.format.bit_depth;
            Source::Gpu(Box::new(SpeedKernel::new(setup.ctx, FEATURE, w, h, bpc, &o, 4)?))
        } else {
            let plane = |i| {
                let (w, h) = g.plane_size(i);
                PlaneCopy::new(w as usize, h as usize, g.format.bit_depth)
            };
            Source::Copy([plane(1), plane(2)])
        };
        Ok(Box::new(SpeedChromaExtractor {
            source,
            dims: Dimensions::new(FEATURE, size.0, size.1, o.prescale)?,
            size,
            options: o,
            max_val: options.double("speed_max_val"),
            names: options.clone(),
            host: HostQueue::default(),
        }))
    }
}

/// Where an instance's planes go: the GPU kernels, or (a Lanczos prescale)
/// whole plane copies for the host.
enum Source {
    Gpu(Box<SpeedKernel>),
    /// Cb and Cr, as uploaded.
    Copy([PlaneCopy; 2]),
}

struct SpeedChromaExtractor {
    source: Source,
    dims: Dimensions,
    /// libvmaf's chroma size.
    size: (usize, usize),
    options: SpeedOptions,
    max_val: f64,
    names: FeatureOptions,
    /// The GPU path's host work, several frames at once.
    host: HostQueue,
}

impl Extractor for SpeedChromaExtractor {
    fn columns(&self) -> Vec<Column> {
        FEATURE_NAMES.iter().map(|n| Column::new(self.names.output_name(n))).collect()
    }

    fn result_words(&self) -> u32 {
        match &self.source {
            Source::Gpu(kernel) => kernel.result_words(),
            Source::Copy([u, v]) => 2 * (u.words() + v.words()),
        }
    }

    fn phases(&self) -> &'static [&'static str] {
        match &self.source {
            Source::Gpu(kernel) => kernel.phases(),
            Source::Copy(_) => &["copy chroma planes"],
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
        let (r, d) = (&planes.reference, &planes.distorted);
        match &self.source {
            Source::Gpu(kernel) => {
                let planes = [(r[1], None), (r[2], None), (d[1], None), (d[2], None)];
                match stamps {
                    None => kernel.record(rec, &planes, out, offset_words),
                    Some(s) => kernel.record_profiled(rec, &planes, out, offset_words, s),
                }
            }
            Source::Copy([u, v]) => {
                let copies = [(*u, r[1]), (*v, r[2]), (*u, d[1]), (*v, d[2])];
                record_copies(rec, &copies, out, offset_words, stamps)
            }
        }
    }

    fn frame(&mut self, index: u64, words: &[i64]) -> Vec<FrameValues> {
        let kernel = match &self.source {
            Source::Gpu(kernel) => kernel,
            Source::Copy(copies) => return vec![(index, self.host_values(copies, words).to_vec())],
        };
        let p = kernel.decode(words);
        let (dims, o, max_val) = (self.dims, self.options, self.max_val);
        self.host.push(index, move || {
            let side = |i: usize| (&p[i].plane, &p[i].covariance);
            let score = |c: usize| centered_score(side(c), side(c + 2), &dims, &o);
            combine([score(0), score(1)], max_val).to_vec()
        })
    }

    fn flush(&mut self) -> Vec<FrameValues> {
        self.host.flush()
    }
}

impl SpeedChromaExtractor {
    /// The whole CPU twin on the four chroma planes copied back whole.
    fn host_values(&self, [u, v]: &[PlaneCopy; 2], words: &[i64]) -> [f64; 3] {
        let mut at = 0;
        let mut take = |copy: &PlaneCopy| {
            let s = copy.samples(&words[at..at + copy.words() as usize]);
            at += copy.words() as usize;
            s
        };
        let samples = [take(u), take(v), take(u), take(v)];
        let view = |i: usize| {
            let c = [u, v][i % 2];
            PlaneView::packed(c.width, c.height, c.bpc, &samples[i])
        };
        let (ru, rv, du, dv) = (view(0), view(1), view(2), view(3));
        // The sizes and options were checked when the instance was built.
        speed_chroma([&ru, &rv], [&du, &dv], self.size, &self.options, self.max_val)
            .unwrap_or([f64::NAN; 3])
    }
}
