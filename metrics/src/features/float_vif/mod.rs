//! Float VIF (`vif_scale0..3`, and with `debug` the total `vif`, `vif_num`,
//! `vif_den` and the per-scale `vif_num_scaleK` / `vif_den_scaleK`): the
//! exact CPU twin of libvmaf 3.2.0's `float_vif` extractor (`float_vif.c`,
//! `vif.c` `compute_vif`, `vif_tools.c`), which the float VMAF models
//! (`vmaf_float_v0.6.1` and kin) read as `VMAF_feature_vif_scaleK_score`.
//!
//! Everything is `f32` as in libvmaf:
//!
//! 1. the luma samples become floats `v / 2^(bpc−8) − 128` (`picture_copy`);
//! 2. per scale `k` (filter [`filter::filter_taps`]`(k)`: 17, 9, 5, 3 taps at
//!    kernel scale 1), for `k > 0` the previous scale's planes are blurred
//!    with scale `k`'s filter and decimated by two ([`filter::decimate`]);
//! 3. the planes, their squares and their product are filtered
//!    ([`filter::filter`], mirrored borders, every pixel kept), and each
//!    pixel gives a `(num, den)` pair ([`stat::pixel`]);
//! 4. the pairs are summed in `f32`: along each row from 0, then the row
//!    totals in row order ([`sum_rows`]). That order is part of the result
//!    (a float sum in another order drifts far beyond libvmaf's printed
//!    digits), so the GPU keeps it: one invocation per row, then one over
//!    the rows;
//! 5. the host divides each scale's sums in `f64` ([`features`]).

pub mod feature;
pub mod filter;
pub mod gpu;
pub mod resample;
pub mod stat;

use crate::MetricsError;
use crate::plane::{PlaneView, check_pair};
use filter::{FloatPlane, Source};
use stat::StatConstants;

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "float_vif";

/// Output names in report order, as libvmaf's JSON prints them: the four
/// scale scores (aliases of `VMAF_feature_vif_scaleK_score`), then the
/// debug values.
pub const FEATURE_NAMES: [&str; 15] = [
    "vif_scale0",
    "vif_scale1",
    "vif_scale2",
    "vif_scale3",
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
];

/// How libvmaf resamples a frame for `vif_prescale` (`vif_prescale_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrescaleMethod {
    Nearest,
    Bilinear,
    Bicubic,
    Lanczos4,
}

impl PrescaleMethod {
    /// The names libvmaf accepts.
    pub const NAMES: [&'static str; 4] = ["nearest", "bilinear", "bicubic", "lanczos4"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "nearest" => Some(Self::Nearest),
            "bilinear" => Some(Self::Bilinear),
            "bicubic" => Some(Self::Bicubic),
            "lanczos4" => Some(Self::Lanczos4),
            _ => None,
        }
    }
}

/// libvmaf's `float_vif` options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatVifOptions {
    /// `vif_enhn_gain_limit` (`egl`): caps the gain `g`, in `[1, 100]`.
    pub enhn_gain_limit: f64,
    /// `vif_kernelscale` (`ks`): stretches the Gaussian filters; one of
    /// libvmaf's listed values.
    pub kernelscale: f64,
    /// `vif_prescale` (`ps`): resampling factor of the frame before VIF.
    pub prescale: f64,
    /// `vif_prescale_method` (`pm`).
    pub prescale_method: PrescaleMethod,
    /// `vif_sigma_nsq` (`snsq`): the neural noise variance, in `[0, 5]`.
    pub sigma_nsq: f64,
    /// `vif_skip_scale0` (`ssclz`): scale 0 is not computed and reads 0.
    pub skip_scale0: bool,
    /// `vif_scaleK_min_val` (`sKmiv`) for K = 1, 2, 3: floor of each score.
    pub min_val: [f64; 3],
}

impl Default for FloatVifOptions {
    fn default() -> Self {
        Self {
            enhn_gain_limit: 100.0,
            kernelscale: 1.0,
            prescale: 1.0,
            prescale_method: PrescaleMethod::Nearest,
            sigma_nsq: 2.0,
            skip_scale0: false,
            min_val: [0.0; 3],
        }
    }
}

impl FloatVifOptions {
    /// The first scale computed.
    pub fn first_scale(&self) -> usize {
        usize::from(self.skip_scale0)
    }

    /// The constants of the per-pixel statistic.
    pub fn stat_constants(&self) -> StatConstants {
        StatConstants::new(self.enhn_gain_limit, self.sigma_nsq)
    }
}

/// libvmaf's float scaling of a sample (`picture_copy`): 1 at 8 bits, 4,
/// 16, 256 at 10, 12, 16. libvmaf reads any other depth as bytes, which is
/// meaningless, so it is refused.
pub fn scaler(bpc: u32) -> Result<f32, MetricsError> {
    match bpc {
        8 => Ok(1.0),
        10 => Ok(4.0),
        12 => Ok(16.0),
        16 => Ok(256.0),
        _ => Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "bpc",
            value: i64::from(bpc),
            allowed: "8, 10, 12 or 16",
        }),
    }
}

/// The size libvmaf resamples a `w × h` frame to for `vif_prescale` `ps`:
/// `(int)(w·ps + 0.5)` each way.
pub fn prescaled_size(width: usize, height: usize, prescale: f64) -> (usize, usize) {
    let s = |n: usize| (n as f64 * prescale + 0.5) as usize;
    (s(width), s(height))
}

/// Width and height of every scale for a `w × h` (prescaled) frame.
pub fn scale_sizes(width: usize, height: usize) -> [(usize, usize); 4] {
    std::array::from_fn(|k| (width >> k, height >> k))
}

/// Checks the options and the (prescaled) frame size before any work, and
/// returns the size VIF runs at. Refuses what libvmaf refuses (a kernel
/// scale off its list, values outside its option ranges), frames whose
/// mirror would read outside the plane (libvmaf reads stray memory there:
/// every scale must be wider and taller than its filter's half-width), and
/// a prescale that changes the frame size (not implemented here).
pub fn check_options(
    width: usize,
    height: usize,
    opts: &FloatVifOptions,
) -> Result<(usize, usize), MetricsError> {
    let range = |option: &'static str, v: f64, lo: f64, hi: f64, allowed: &'static str| {
        // Written so that NaN is refused too.
        if v >= lo && v <= hi {
            Ok(())
        } else {
            Err(MetricsError::FloatOptionOutOfRange { feature: FEATURE, option, value: v, allowed })
        }
    };
    range("vif_enhn_gain_limit", opts.enhn_gain_limit, 1.0, 100.0, "1.0 to 100.0")?;
    range("vif_kernelscale", opts.kernelscale, 0.1, 4.0, "0.1 to 4.0")?;
    range("vif_prescale", opts.prescale, 0.1, 4.0, "0.1 to 4.0")?;
    range("vif_sigma_nsq", opts.sigma_nsq, 0.0, 5.0, "0.0 to 5.0")?;
    for (k, &m) in opts.min_val.iter().enumerate() {
        let option = ["vif_scale1_min_val", "vif_scale2_min_val", "vif_scale3_min_val"][k];
        range(option, m, 0.0, 1.0, "0.0 to 1.0")?;
    }
    filter::check_kernelscale(opts.kernelscale)?;
    let (w, h) = prescaled_size(width, height, opts.prescale);
    if (w, h) != (width, height) {
        return Err(MetricsError::FloatOptionOutOfRange {
            feature: FEATURE,
            option: "vif_prescale",
            value: opts.prescale,
            allowed: "a factor that keeps the frame size ((int)(w·ps + 0.5) = w, likewise h): \
                      resampling the frame is not implemented",
        });
    }
    let sizes = scale_sizes(w, h);
    for (k, &(sw, sh)) in sizes.iter().enumerate().skip(opts.first_scale()) {
        let half = filter::filter_width(k, opts.kernelscale) / 2;
        if sw <= half || sh <= half {
            return Err(MetricsError::FrameTooSmall {
                feature: FEATURE,
                width,
                height,
                reason: "every VIF scale (the frame halved up to three times) must be wider \
                         and taller than half its filter (8, 4, 2, 1 samples at kernel scale 1, \
                         so at least 16x16)",
            });
        }
    }
    Ok((w, h))
}

/// Checks a plane pair and the options; returns the size VIF runs at.
pub fn check(
    reference: &PlaneView,
    distorted: &PlaneView,
    opts: &FloatVifOptions,
) -> Result<(usize, usize), MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    scaler(reference.bpc)?;
    check_options(reference.width, reference.height, opts)
}

/// A luma plane as libvmaf's float VIF reads it: `v / scaler − 128`.
pub fn input_plane(view: &PlaneView) -> Result<FloatPlane, MetricsError> {
    let s = scaler(view.bpc)?;
    let mut data = Vec::with_capacity(view.width * view.height);
    for y in 0..view.height {
        data.extend(view.row(y).iter().map(|&v| f32::from(v) / s + -128.0));
    }
    Ok(FloatPlane { width: view.width, height: view.height, data })
}

/// One scale's per-pixel `(num, den)` values, row-major.
pub fn scale_pixels(
    taps: &[f32],
    reference: &FloatPlane,
    distorted: &FloatPlane,
    k: &StatConstants,
) -> (Vec<f32>, Vec<f32>) {
    let mu1 = filter::filter(taps, Source::Plain(reference));
    let mu2 = filter::filter(taps, Source::Plain(distorted));
    let xx = filter::filter(taps, Source::Squared(reference));
    let yy = filter::filter(taps, Source::Squared(distorted));
    let xy = filter::filter(taps, Source::Product(reference, distorted));
    let n = reference.data.len();
    let (mut num, mut den) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (a, b) = stat::pixel(k, mu1.data[i], mu2.data[i], xx.data[i], yy.data[i], xy.data[i]);
        num.push(a);
        den.push(b);
    }
    (num, den)
}

/// libvmaf's sum of a `width`-wide plane of values: each row in `f32` from
/// 0 in column order, then the row totals in `f32` in row order. Also
/// returns the row totals.
pub fn sum_rows(values: &[f32], width: usize) -> (f32, Vec<f32>) {
    let rows: Vec<f32> = values
        .chunks(width)
        .map(|row| {
            let mut acc = 0.0f32;
            for &v in row {
                acc += v;
            }
            acc
        })
        .collect();
    let mut total = 0.0f32;
    for &r in &rows {
        total += r;
    }
    (total, rows)
}

/// One frame's per-scale sums: what the GPU reads back.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FloatVifSums {
    pub num: [f32; 4],
    pub den: [f32; 4],
    /// Whether scale 0 was skipped (its sums are then 0 and unused).
    pub skip_scale0: bool,
}

/// One frame's sums at every scale.
pub fn frame_sums(
    reference: &PlaneView,
    distorted: &PlaneView,
    opts: &FloatVifOptions,
) -> Result<FloatVifSums, MetricsError> {
    check(reference, distorted, opts)?;
    let k = opts.stat_constants();
    let mut planes = (input_plane(reference)?, input_plane(distorted)?);
    let mut sums = FloatVifSums { skip_scale0: opts.skip_scale0, ..Default::default() };
    for scale in 0..4 {
        let taps = filter::filter_taps(scale, opts.kernelscale);
        if scale > 0 {
            planes = (filter::decimate(&taps, &planes.0), filter::decimate(&taps, &planes.1));
        }
        if scale < opts.first_scale() {
            continue;
        }
        let (num, den) = scale_pixels(&taps, &planes.0, &planes.1, &k);
        sums.num[scale] = sum_rows(&num, planes.0.width).0;
        sums.den[scale] = sum_rows(&den, planes.0.width).0;
    }
    Ok(sums)
}

/// The values libvmaf reports for a frame, in [`FEATURE_NAMES`] order.
pub fn features(sums: &FloatVifSums, opts: &FloatVifOptions) -> [f64; 15] {
    let num: [f64; 4] = sums.num.map(f64::from);
    let den: [f64; 4] = sums.den.map(f64::from);
    // libvmaf's MAX(a, b): `a > b ? a : b`.
    let floor = |v: f64, m: f64| if v > m { v } else { m };
    let first = opts.first_scale();
    let (mut total_num, mut total_den) = (0.0f64, 0.0f64);
    for s in first..4 {
        total_num += num[s];
        total_den += den[s];
    }
    let vif = if total_den == 0.0 { 1.0 } else { total_num / total_den };
    let skip = opts.skip_scale0;
    [
        if skip { 0.0 } else { num[0] / den[0] },
        floor(num[1] / den[1], opts.min_val[0]),
        floor(num[2] / den[2], opts.min_val[1]),
        floor(num[3] / den[3], opts.min_val[2]),
        vif,
        total_num,
        total_den,
        if skip { 0.0 } else { num[0] },
        if skip { -1.0 } else { den[0] },
        num[1],
        den[1],
        num[2],
        den[2],
        num[3],
        den[3],
    ]
}

/// [`frame_sums`] and [`features`]: one frame's reported values.
pub fn float_vif(
    reference: &PlaneView,
    distorted: &PlaneView,
    opts: &FloatVifOptions,
) -> Result<[f64; 15], MetricsError> {
    Ok(features(&frame_sums(reference, distorted, opts)?, opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_frames_score_one() {
        let (w, h) = (37usize, 29usize);
        let samples: Vec<u16> = (0..w * h).map(|i| ((i * 7919) % 251) as u16).collect();
        let v = PlaneView::packed(w, h, 8, &samples);
        let f = float_vif(&v, &v, &FloatVifOptions::default()).unwrap();
        for s in &f[..4] {
            assert!((s - 1.0).abs() < 1e-3, "{f:?}");
        }
    }

    #[test]
    fn refusals() {
        let s = vec![0u16; 15 * 40];
        let v = PlaneView::packed(15, 40, 8, &s);
        let o = FloatVifOptions::default();
        assert!(matches!(float_vif(&v, &v, &o), Err(MetricsError::FrameTooSmall { .. })));
        let s = vec![0u16; 64 * 64];
        let v = PlaneView::packed(64, 64, 9, &s);
        assert!(float_vif(&v, &v, &o).is_err());
        let v = PlaneView::packed(64, 64, 8, &s);
        for bad in [
            FloatVifOptions { kernelscale: 1.01, ..o },
            FloatVifOptions { enhn_gain_limit: 0.5, ..o },
            FloatVifOptions { enhn_gain_limit: f64::NAN, ..o },
            FloatVifOptions { prescale: 2.0, ..o },
            FloatVifOptions { sigma_nsq: 6.0, ..o },
            FloatVifOptions { min_val: [0.0, 1.5, 0.0], ..o },
        ] {
            assert!(float_vif(&v, &v, &bad).is_err(), "{bad:?}");
        }
        assert!(float_vif(&v, &v, &FloatVifOptions { prescale: 1.001, ..o }).is_ok());
    }

    #[test]
    fn skipped_scale0_reads_zero_and_minus_one() {
        let sums = FloatVifSums {
            num: [5.0, 1.0, 2.0, 3.0],
            den: [9.0, 2.0, 4.0, 4.0],
            skip_scale0: true,
        };
        let o =
            FloatVifOptions { skip_scale0: true, min_val: [0.6, 0.0, 0.0], ..Default::default() };
        let f = features(&sums, &o);
        assert_eq!(&f[..4], &[0.0, 0.6, 0.5, 0.75]);
        assert_eq!(f[4], 6.0 / 10.0);
        assert_eq!(&f[7..9], &[0.0, -1.0]);
    }
}
