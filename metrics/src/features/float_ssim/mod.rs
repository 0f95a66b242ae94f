//! `float_ssim`: the exact CPU twin of libvmaf 3.2.0's float SSIM (the IQA
//! code in `feature/iqa/` driven by `feature/ssim.c`), plus the per-pixel
//! SSIM map the dashboard draws as a heat map.
//!
//! The parts MS-SSIM shares — sample conversion, decimation, the 11-tap
//! Gaussian window, the per-pixel luminance/contrast/structure terms and the
//! raster-order reduction — live here and [`crate::features::float_ms_ssim`] reuses them.
//!
//! Every stage is a plain function over a [`FloatPlane`] so that it can
//! become one GPU compute dispatch: decimation (one output pixel per
//! invocation), the horizontal and vertical Gaussian passes (separable, valid
//! region only), the per-pixel product and [`pixel_lcs`] maps. Only the final
//! reduction must stay sequential: libvmaf adds the per-pixel doubles one by
//! one in raster order, and no tree reduction rounds the same way.
//!
//! Floating point follows libvmaf step by step, because `float_ssim` must
//! agree to 1e-6: products of two floats are rounded to float and summed in
//! double, each filter pass is rounded back to float, the constants are
//! computed in float, and `l` and `c` are doubles over float denominators
//! while `s` is a float division. No `mul_add` anywhere: the reference build
//! never contracts.

pub mod feature;
pub mod gpu;

use crate::error::MetricsError;
use crate::plane::PlaneView;
use crate::plane::check_pair;

const FEATURE: &str = "float_ssim";

/// Length of the Gaussian window (libvmaf's `GAUSSIAN_LEN`).
pub const GAUSSIAN_LEN: usize = 11;

/// The 1-D taps of the 11x11 circular-symmetric Gaussian (σ = 1.5) that
/// libvmaf applies as two separable passes. They are IQA's table, printed to
/// six decimals, not recomputed from σ: the rounding is part of the result
/// (the taps sum to 1.000002, not 1).
pub const GAUSSIAN_TAPS: [f32; GAUSSIAN_LEN] = [
    0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006, 0.109361, 0.036001,
    0.007599, 0.001028,
];

/// The Gaussian pass drops `GAUSSIAN_LEN - 1` samples per axis (it keeps only
/// positions where the window lies inside the image), so SSIM map pixel
/// `(x, y)` sits over input sample `(x + MAP_ORIGIN, y + MAP_ORIGIN)`.
pub const MAP_ORIGIN: usize = GAUSSIAN_LEN / 2;

/// Largest explicit pre-scale factor libvmaf's `scale` option accepts.
pub const MAX_SCALE: u32 = 10;

/// A plane of float samples, row-major and tightly packed: what every stage
/// reads and writes (on the GPU, one storage buffer).
#[derive(Debug, Clone, PartialEq)]
pub struct FloatPlane {
    pub width: usize,
    pub height: usize,
    pub data: Vec<f32>,
}

impl FloatPlane {
    /// A plane of zeros.
    pub fn zeros(width: usize, height: usize) -> Self {
        Self { width, height, data: vec![0.0; width * height] }
    }

    /// Sample at column `x`, row `y`.
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }
}

/// Samples as libvmaf's `picture_copy` hands them to the IQA code: 8-bit
/// values as they are, deeper ones divided by 2^(bpc−8) in float (exact, a
/// power of two), so every bit depth lands on the 0–255 scale that the
/// constants `C1`/`C2` (with L = 255) assume.
pub fn to_float_plane(plane: &PlaneView<'_>) -> FloatPlane {
    let divisor = (1u32 << plane.bpc.saturating_sub(8)) as f32;
    let mut data = Vec::with_capacity(plane.width * plane.height);
    for y in 0..plane.height {
        data.extend(plane.row(y).iter().map(|&v| v as f32 / divisor));
    }
    FloatPlane { width: plane.width, height: plane.height, data }
}

/// libvmaf's automatic pre-scale factor: `max(1, round(min(w, h) / 256))`,
/// the division in float and IQA's `_round`, which rounds halves up
/// (1080p → 4, 720p → 3, 576x324 → 1).
pub fn auto_scale(width: usize, height: usize) -> usize {
    let a = width.min(height) as f32 / 256.0f32;
    let t = a as i32;
    // IQA compares the fractional part computed in float with 0.5.
    let rounded = if a - t as f32 >= 0.5 { t + 1 } else { t };
    rounded.max(1) as usize
}

/// Output length of IQA's decimation along one axis: `n / factor + (n & 1)`.
/// For odd `n` this is one more than both floor and ceiling division when
/// `factor > 2` (e.g. 1919 / 4 → 480), a quirk the output size must keep.
pub fn decimated_len(n: usize, factor: usize) -> usize {
    n / factor + (n & 1)
}

/// Mirror an index into `0..n` the way IQA's `KBND_SYMMETRIC` does: one
/// reflection with the edge sample repeated (−1 → 0, n → n−1).
#[inline]
fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    let m = if i < 0 {
        -1 - i
    } else if i >= n {
        2 * n - i - 1
    } else {
        i
    };
    m as usize
}

/// Tap offsets of a `len`-wide window centred as IQA centres it: odd windows
/// span `−len/2..=len/2`, even ones `−len/2..=len/2−1`.
#[inline]
fn tap_range(len: usize) -> std::ops::RangeInclusive<isize> {
    let lo = (len / 2) as isize;
    -lo..=(len as isize - 1 - lo)
}

/// The box kernel of SSIM's pre-scale decimation: `factor²` weights, each the
/// float `1.0f / (factor·factor)` (inexact for 3, 5, 6, …; IQA uses the
/// rounded float, never an exact division).
pub fn box_kernel(factor: usize) -> Vec<f32> {
    let w = 1.0f32 / (factor * factor) as f32;
    vec![w; factor * factor]
}

/// IQA's `_iqa_decimate` with a 2-D `len`×`len` kernel (row-major): output
/// pixel `(x, y)` filters the input around `(x·factor, y·factor)` with a
/// symmetric border. Each float sample × float weight is rounded to float,
/// the products are summed in double, rows outer and columns inner, and the
/// sum is rounded to float. One output pixel per GPU invocation.
///
/// libvmaf decimates in place for SSIM; reading the source shows every
/// sample is read before the pixel overwriting it is written, so this
/// out-of-place version gives the same values (a unit test checks that).
pub fn decimate(src: &FloatPlane, factor: usize, kernel: &[f32], len: usize) -> FloatPlane {
    assert_eq!(kernel.len(), len * len, "decimation kernel size");
    let ow = decimated_len(src.width, factor);
    let oh = decimated_len(src.height, factor);
    let mut out = FloatPlane::zeros(ow, oh);
    for oy in 0..oh {
        for ox in 0..ow {
            let cx = (ox * factor) as isize;
            let cy = (oy * factor) as isize;
            let mut sum = 0.0f64;
            let mut k = 0;
            for v in tap_range(len) {
                let row = mirror(cy + v, src.height) * src.width;
                for u in tap_range(len) {
                    let sample = src.data[row + mirror(cx + u, src.width)];
                    let product = sample * kernel[k];
                    sum += product as f64;
                    k += 1;
                }
            }
            out.data[oy * ow + ox] = sum as f32;
        }
    }
    out
}

/// Horizontal Gaussian pass over the valid region: a `w`×`h` plane becomes
/// `(w−10)`×`h`. Float products, double sum, rounded to float.
pub fn gaussian_horizontal(src: &FloatPlane) -> FloatPlane {
    assert!(src.width >= GAUSSIAN_LEN, "plane narrower than the window");
    let ow = src.width - (GAUSSIAN_LEN - 1);
    let mut out = FloatPlane::zeros(ow, src.height);
    for y in 0..src.height {
        let row = &src.data[y * src.width..(y + 1) * src.width];
        for x in 0..ow {
            let mut sum = 0.0f64;
            for (u, &tap) in GAUSSIAN_TAPS.iter().enumerate() {
                sum += (row[x + u] * tap) as f64;
            }
            out.data[y * ow + x] = sum as f32;
        }
    }
    out
}

/// Vertical Gaussian pass over the valid region: `w`×`h` becomes
/// `w`×`(h−10)`. Same rounding as the horizontal pass.
pub fn gaussian_vertical(src: &FloatPlane) -> FloatPlane {
    assert!(src.height >= GAUSSIAN_LEN, "plane shorter than the window");
    let oh = src.height - (GAUSSIAN_LEN - 1);
    let w = src.width;
    let mut out = FloatPlane::zeros(w, oh);
    for y in 0..oh {
        for x in 0..w {
            let mut sum = 0.0f64;
            for (v, &tap) in GAUSSIAN_TAPS.iter().enumerate() {
                sum += (src.data[(y + v) * w + x] * tap) as f64;
            }
            out.data[y * w + x] = sum as f32;
        }
    }
    out
}

/// IQA's separable `_iqa_convolve`: horizontal then vertical, each pass
/// rounded to float; the result is `(w−10)`×`(h−10)`.
pub fn gaussian_blur(src: &FloatPlane) -> FloatPlane {
    gaussian_vertical(&gaussian_horizontal(src))
}

/// Per-pixel float products `x·x`, `y·y` and `x·y` that the variance and
/// covariance windows filter (each rounded to float, as IQA stores them).
pub fn products(a: &FloatPlane, b: &FloatPlane) -> [FloatPlane; 3] {
    let zip = |f: fn(f32, f32) -> f32| FloatPlane {
        width: a.width,
        height: a.height,
        data: a.data.iter().zip(&b.data).map(|(&x, &y)| f(x, y)).collect(),
    };
    [zip(|x, _| x * x), zip(|_, y| y * y), zip(|x, y| x * y)]
}

/// SSIM's stabilising constants, computed in float as IQA does:
/// `C1 = (K1·L)²`, `C2 = (K2·L)²`, `C3 = C2 / 2` with K1 = 0.01f,
/// K2 = 0.03f, L = 255.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SsimConstants {
    pub c1: f32,
    pub c2: f32,
    pub c3: f32,
}

impl SsimConstants {
    /// The constants of libvmaf's default (Wang) SSIM.
    pub fn libvmaf() -> Self {
        let l = 255.0f32;
        let k1l = 0.01f32 * l;
        let k2l = 0.03f32 * l;
        let c2 = k2l * k2l;
        Self { c1: k1l * k1l, c2, c3: c2 / 2.0f32 }
    }
}

impl Default for SsimConstants {
    fn default() -> Self {
        Self::libvmaf()
    }
}

/// Luminance, contrast and structure of one pixel, as doubles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelLcs {
    pub l: f64,
    pub c: f64,
    pub s: f64,
}

impl PixelLcs {
    /// The pixel's SSIM, `(l·c)·s` in double.
    #[inline]
    pub fn ssim(&self) -> f64 {
        self.l * self.c * self.s
    }
}

/// The per-pixel SSIM terms from the five filtered values (means `mu1`,
/// `mu2`; filtered squares `xx`, `yy`; filtered cross product `xy`).
///
/// The precision of each step matters for 1e-6 agreement: variances are
/// float and clamped at zero; `σ1σ2` is a double square root of the float
/// product, stored as float; `l` and `c` divide a double numerator by a
/// float denominator; `s` is a float division (on the GPU: divide in double,
/// round to float, since the GPU's float division is not correctly rounded).
/// A flat, identical window can give a slightly negative covariance; libvmaf
/// then clamps it to zero so `s` stays 1.
#[inline]
pub fn pixel_lcs(mu1: f32, mu2: f32, xx: f32, yy: f32, xy: f32, k: &SsimConstants) -> PixelLcs {
    // IQA's MAX(0.0, v): keeps NaN and -0.0 as they are.
    let clamp0 = |v: f32| if 0.0 > v { 0.0 } else { v };
    let var1 = clamp0(xx - mu1 * mu1);
    let var2 = clamp0(yy - mu2 * mu2);
    let cov = xy - mu1 * mu2;
    let sd_prod = ((var1 * var2) as f64).sqrt() as f32;

    let l_den = mu1 * mu1 + mu2 * mu2 + k.c1;
    let l = (2.0 * mu1 as f64 * mu2 as f64 + k.c1 as f64) / l_den as f64;
    let c_den = var1 + var2 + k.c2;
    let c = (2.0 * sd_prod as f64 + k.c2 as f64) / c_den as f64;
    let cov = if cov < 0.0 && sd_prod <= 0.0 { 0.0 } else { cov };
    let s = (cov + k.c3) / (sd_prod + k.c3);
    PixelLcs { l, c, s: s as f64 }
}

/// Means of one scale, each rounded to float as IQA returns them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LcsMeans {
    pub ssim: f32,
    pub l: f32,
    pub c: f32,
    pub s: f32,
}

/// SSIM of one scale (IQA's `_iqa_ssim` with default arguments): five
/// Gaussian blurs, the per-pixel terms, and the sequential raster-order
/// double sums of `l·c·s`, `l`, `c` and `s`, each mean rounded to float.
/// When `map` is given it receives each pixel's `l·c·s` as float, row-major,
/// `(w−10)`×`(h−10)`.
///
/// # Panics
/// If the planes differ in size or are smaller than 11x11; the public entry
/// points check both and return errors instead.
pub fn ssim_scale(a: &FloatPlane, b: &FloatPlane, mut map: Option<&mut Vec<f32>>) -> LcsMeans {
    assert_eq!((a.width, a.height), (b.width, b.height), "plane sizes differ");
    let k = SsimConstants::libvmaf();
    let mu1 = gaussian_blur(a);
    let mu2 = gaussian_blur(b);
    let [xx, yy, xy] = products(a, b).map(|p| gaussian_blur(&p));

    let n = mu1.data.len();
    if let Some(m) = map.as_deref_mut() {
        m.clear();
        m.reserve(n);
    }
    // Sequential on purpose: libvmaf's order of additions is part of the result.
    let (mut ssim_sum, mut l_sum, mut c_sum, mut s_sum) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        let t = pixel_lcs(mu1.data[i], mu2.data[i], xx.data[i], yy.data[i], xy.data[i], &k);
        let v = t.ssim();
        ssim_sum += v;
        l_sum += t.l;
        c_sum += t.c;
        s_sum += t.s;
        if let Some(m) = map.as_deref_mut() {
            m.push(v as f32);
        }
    }
    let count = n as f64;
    LcsMeans {
        ssim: (ssim_sum / count) as f32,
        l: (l_sum / count) as f32,
        c: (c_sum / count) as f32,
        s: (s_sum / count) as f32,
    }
}

/// libvmaf's dB form of a (MS-)SSIM score (`enable_db`):
/// `min(−10·log10(1 − score), max_db)`, where `max_db` is infinite unless
/// `clip_db`, then `ceil(10·log10(peak² / (0.5 / (w·h))))` with libvmaf's
/// 32-bit unsigned `peak²` and `w·h`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DbScale {
    max_db: f64,
}

impl DbScale {
    /// The conversion `enable_db` / `clip_db` ask for, if any.
    pub fn from_options(
        options: &crate::features::FeatureOptions,
        geometry: &vqscope_video::Geometry,
    ) -> Option<Self> {
        if !options.bool("enable_db") {
            return None;
        }
        let max_db = if options.bool("clip_db") {
            let peak = (1u32 << geometry.format.bit_depth) - 1;
            let mse = 0.5 / f64::from(geometry.width.wrapping_mul(geometry.height));
            (10.0 * (f64::from(peak.wrapping_mul(peak)) / mse).log10()).ceil()
        } else {
            f64::INFINITY
        };
        Some(Self { max_db })
    }

    /// `score` converted when `db` is given, unchanged otherwise.
    pub fn apply(db: Option<&Self>, score: f64) -> f64 {
        match db {
            None => score,
            Some(db) => {
                let v = -10.0 * (1.0 - score).log10();
                if v < db.max_db { v } else { db.max_db }
            }
        }
    }
}

/// Options of libvmaf's `float_ssim` extractor that change the score.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SsimOptions {
    /// Pre-scale decimation factor: 0 picks it from the frame size as
    /// libvmaf does (the default), 1 disables it, 2–10 force it.
    pub scale: u32,
}

/// One frame's `float_ssim` and its `enable_lcs` companions
/// (`float_ssim_l`, `_c`, `_s`), widened from float as libvmaf reports them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SsimScore {
    pub ssim: f64,
    pub l: f64,
    pub c: f64,
    pub s: f64,
}

/// Per-pixel SSIM of a frame's luma, for drawing as a heat map.
///
/// The map lives on the decimated grid, shrunk by the window: value
/// `(x, y)` covers input pixels around `((x + MAP_ORIGIN)·scale,
/// (y + MAP_ORIGIN)·scale)`. `values` are `l·c·s` per pixel, row-major; their
/// raster-order double mean is the frame's `float_ssim`.
#[derive(Debug, Clone, PartialEq)]
pub struct SsimMap {
    pub width: usize,
    pub height: usize,
    /// The pre-scale decimation factor the map was computed at.
    pub scale: usize,
    pub values: Vec<f32>,
}

/// Frame SSIM as libvmaf's `float_ssim` computes it on the luma planes.
pub fn float_ssim(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    options: SsimOptions,
) -> Result<SsimScore, MetricsError> {
    run_ssim(reference, distorted, options, None)
}

/// [`float_ssim`] plus its per-pixel map.
pub fn float_ssim_with_map(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    options: SsimOptions,
) -> Result<(SsimScore, SsimMap), MetricsError> {
    let mut values = Vec::new();
    let (score, scale, w, h) = run_ssim_sized(reference, distorted, options, Some(&mut values))?;
    Ok((score, SsimMap { width: w, height: h, scale, values }))
}

fn run_ssim(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    options: SsimOptions,
    map: Option<&mut Vec<f32>>,
) -> Result<SsimScore, MetricsError> {
    run_ssim_sized(reference, distorted, options, map).map(|(score, ..)| score)
}

/// The pre-scale factor and the decimated size `(scale, width, height)`
/// that [`float_ssim`] works at, or the error it refuses the frame size or
/// options with (the GPU kernel validates through this same function).
pub fn prescale(
    w: usize,
    h: usize,
    options: SsimOptions,
) -> Result<(usize, usize, usize), MetricsError> {
    if options.scale > MAX_SCALE {
        return Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "scale",
            value: i64::from(options.scale),
            allowed: "0 = auto, 1 = no downscaling, 2-10 = explicit factor",
        });
    }
    let scale = match options.scale {
        0 => auto_scale(w, h),
        s => s as usize,
    };
    let (sw, sh) =
        if scale > 1 { (decimated_len(w, scale), decimated_len(h, scale)) } else { (w, h) };
    // libvmaf has no check here and reads garbage or divides by zero; refuse.
    if sw < GAUSSIAN_LEN || sh < GAUSSIAN_LEN {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width: w,
            height: h,
            reason: "the 11x11 Gaussian window needs at least 11x11 samples after the pre-scale decimation",
        });
    }
    Ok((scale, sw, sh))
}

/// Returns the score, the scale used and the map's width and height.
fn run_ssim_sized(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    options: SsimOptions,
    map: Option<&mut Vec<f32>>,
) -> Result<(SsimScore, usize, usize, usize), MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    let (scale, sw, sh) = prescale(reference.width, reference.height, options)?;

    let mut a = to_float_plane(reference);
    let mut b = to_float_plane(distorted);
    if scale > 1 {
        let kernel = box_kernel(scale);
        a = decimate(&a, scale, &kernel, scale);
        b = decimate(&b, scale, &kernel, scale);
    }
    let means = ssim_scale(&a, &b, map);
    let score = SsimScore {
        ssim: f64::from(means.ssim),
        l: f64::from(means.l),
        c: f64::from(means.c),
        s: f64::from(means.s),
    };
    Ok((score, scale, sw - (GAUSSIAN_LEN - 1), sh - (GAUSSIAN_LEN - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use vqscope_gpu::testing::Rng;

    /// A textured plane: smooth gradient plus noise, so windows are not flat.
    fn texture(w: usize, h: usize, bpc: u32, seed: u64) -> Vec<u16> {
        let mut rng = Rng(seed | 1);
        let max = (1u64 << bpc) - 1;
        (0..w * h)
            .map(|i| {
                let (x, y) = ((i % w) as u64, (i / w) as u64);
                let base = (x * 3 + y * 2) % (max / 2 + 1);
                (base + rng.below(max / 2 + 1)).min(max) as u16
            })
            .collect()
    }

    fn distort(src: &[u16], bpc: u32, amount: u64, seed: u64) -> Vec<u16> {
        let mut rng = Rng(seed | 1);
        let max = (1i64 << bpc) - 1;
        src.iter()
            .map(|&v| {
                let d = rng.below(2 * amount + 1) as i64 - amount as i64;
                (i64::from(v) + d).clamp(0, max) as u16
            })
            .collect()
    }

    #[test]
    fn gaussian_taps_sum_to_one_within_table_rounding() {
        let sum: f64 = GAUSSIAN_TAPS.iter().map(|&t| f64::from(t)).sum();
        // The six-decimal table sums to 1.000002.
        assert!((sum - 1.000002).abs() < 1e-6, "sum {sum}");
        for i in 0..GAUSSIAN_LEN {
            assert_eq!(GAUSSIAN_TAPS[i], GAUSSIAN_TAPS[GAUSSIAN_LEN - 1 - i]);
        }
        // Peak in the middle, strictly decreasing outwards.
        for i in 0..MAP_ORIGIN {
            assert!(GAUSSIAN_TAPS[i] < GAUSSIAN_TAPS[i + 1]);
        }
    }

    #[test]
    fn auto_scale_matches_libvmaf_rounding() {
        assert_eq!(auto_scale(1920, 1080), 4);
        assert_eq!(auto_scale(1280, 720), 3);
        assert_eq!(auto_scale(576, 324), 1);
        assert_eq!(auto_scale(3840, 2160), 8);
        // Halves round up: 384 / 256 = 1.5 → 2; just below stays 1.
        assert_eq!(auto_scale(384, 500), 2);
        assert_eq!(auto_scale(383, 500), 1);
        assert_eq!(auto_scale(100, 100), 1);
    }

    #[test]
    fn decimation_size_quirk() {
        assert_eq!(decimated_len(1920, 4), 480);
        assert_eq!(decimated_len(1080, 4), 270);
        // Odd sizes get one extra sample, more than ceil() for factors > 2.
        assert_eq!(decimated_len(1919, 4), 480);
        assert_eq!(decimated_len(7, 3), 3);
        assert_eq!(decimated_len(9, 4), 3);
        assert_eq!(decimated_len(5, 2), 3);
        let p = FloatPlane::zeros(45, 33);
        let d = decimate(&p, 4, &box_kernel(4), 4);
        assert_eq!((d.width, d.height), (12, 9));
    }

    #[test]
    fn box_kernel_weight_is_the_rounded_float() {
        assert_eq!(box_kernel(4)[0], 0.0625);
        assert_eq!(box_kernel(3).len(), 9);
        assert_eq!(box_kernel(3)[0], 1.0f32 / 9.0f32);
        assert_ne!(f64::from(box_kernel(3)[0]), 1.0 / 9.0);
    }

    /// libvmaf decimates in place (reading and writing one buffer); the
    /// out-of-place version must give the same values for every size the
    /// quirky output size allows.
    #[test]
    fn in_place_decimation_equals_out_of_place() {
        let mut rng = Rng(0x5eed);
        for factor in 2..=6usize {
            for _ in 0..6 {
                let w = 3 * factor + rng.below(40) as usize;
                let h = 3 * factor + rng.below(40) as usize;
                let data: Vec<f32> = (0..w * h).map(|_| rng.below(256) as f32).collect();
                let src = FloatPlane { width: w, height: h, data: data.clone() };
                let kernel = box_kernel(factor);
                let out = decimate(&src, factor, &kernel, factor);

                let mut buf = data;
                let (sw, sh) = (decimated_len(w, factor), decimated_len(h, factor));
                for oy in 0..sh {
                    for ox in 0..sw {
                        let mut sum = 0.0f64;
                        let mut k = 0;
                        for v in tap_range(factor) {
                            for u in tap_range(factor) {
                                let yy = mirror((oy * factor) as isize + v, h);
                                let xx = mirror((ox * factor) as isize + u, w);
                                sum += f64::from(buf[yy * w + xx] * kernel[k]);
                                k += 1;
                            }
                        }
                        buf[oy * sw + ox] = sum as f32;
                    }
                }
                assert_eq!(&buf[..sw * sh], &out.data[..], "{w}x{h} factor {factor}");
            }
        }
    }

    #[test]
    fn tap_ranges_follow_iqa_centering() {
        assert_eq!(tap_range(4), -2..=1);
        assert_eq!(tap_range(3), -1..=1);
        assert_eq!(tap_range(9), -4..=4);
        assert_eq!(tap_range(11), -5..=5);
        assert_eq!(mirror(-1, 10), 0);
        assert_eq!(mirror(-2, 10), 1);
        assert_eq!(mirror(10, 10), 9);
        assert_eq!(mirror(11, 10), 8);
    }

    #[test]
    fn constants_are_float() {
        let k = SsimConstants::libvmaf();
        // (0.01f·255)² and (0.03f·255)² in float differ from the exact
        // 6.5025 and 58.5225 by their float roundings only.
        assert!((f64::from(k.c1) - 6.5025).abs() < 1e-5);
        assert!((f64::from(k.c2) - 58.5225).abs() < 1e-4);
        assert_eq!(k.c3, k.c2 / 2.0);
        assert_eq!(k.c1, (0.01f32 * 255.0) * (0.01f32 * 255.0));
    }

    #[test]
    fn identical_frames_score_one() {
        for &(w, h, bpc) in &[(64usize, 48usize, 8u32), (300, 260, 10), (1030, 600, 8)] {
            let s = texture(w, h, bpc, 7 + w as u64);
            let p = PlaneView::packed(w, h, bpc, &s);
            let score = float_ssim(&p, &p, SsimOptions::default()).unwrap();
            // l mixes a double numerator with a float denominator, so an
            // identical pair gives 1 only up to float rounding.
            assert!((score.ssim - 1.0).abs() < 1e-6, "{w}x{h}: {}", score.ssim);
            assert!((score.l - 1.0).abs() < 1e-6);
            assert!((score.c - 1.0).abs() < 1e-6);
            assert!((score.s - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn flat_identical_frames_score_exactly_one_in_structure() {
        // A flat window: covariance may round negative, and libvmaf clamps it.
        let s = vec![137u16; 40 * 40];
        let p = PlaneView::packed(40, 40, 8, &s);
        let score = float_ssim(&p, &p, SsimOptions::default()).unwrap();
        assert_eq!(score.s, 1.0);
        assert_eq!(score.c, 1.0);
    }

    /// Two flat frames: the variances vanish, so c = s = 1 and the score is
    /// the luminance term (2ab + C1) / (a² + b² + C1), computed here by hand
    /// from the filtered means (each the level times the squared tap sum).
    #[test]
    fn flat_frames_give_the_luminance_formula() {
        let (a, b) = (100.0f64, 140.0f64);
        let ra = vec![a as u16; 30 * 20];
        let rb = vec![b as u16; 30 * 20];
        let pa = PlaneView::packed(30, 20, 8, &ra);
        let pb = PlaneView::packed(30, 20, 8, &rb);
        let score = float_ssim(&pa, &pb, SsimOptions::default()).unwrap();
        let g: f64 = GAUSSIAN_TAPS.iter().map(|&t| f64::from(t)).sum();
        let (ma, mb) = (a * g * g, b * g * g);
        let c1 = 6.5025;
        let want = (2.0 * ma * mb + c1) / (ma * ma + mb * mb + c1);
        assert!((score.ssim - want).abs() < 1e-6, "{} vs {want}", score.ssim);
        assert!((score.l - want).abs() < 1e-6);
    }

    /// An independent textbook SSIM (direct 2-D window in f64, Gaussian as
    /// the outer product of the taps) must agree to float-rounding level:
    /// catches indexing, window placement and formula errors.
    #[test]
    fn agrees_with_a_direct_double_precision_ssim() {
        let (w, h) = (41usize, 29usize);
        let r = texture(w, h, 8, 99);
        let d = distort(&r, 8, 25, 3);
        let pr = PlaneView::packed(w, h, 8, &r);
        let pd = PlaneView::packed(w, h, 8, &d);
        let (score, map) = float_ssim_with_map(&pr, &pd, SsimOptions::default()).unwrap();
        let (mw, mh) = (w - 10, h - 10);
        assert_eq!((map.width, map.height, map.scale), (mw, mh, 1));
        assert_eq!(map.values.len(), mw * mh);
        let (c1, c2) = (6.5025f64, 58.5225f64);
        let mut total = 0.0;
        let mut max_diff = 0.0f64;
        for y in 0..mh {
            for x in 0..mw {
                let (mut m1, mut m2, mut s11, mut s22, mut s12) = (0.0, 0.0, 0.0, 0.0, 0.0);
                for v in 0..11 {
                    for u in 0..11 {
                        let wt = f64::from(GAUSSIAN_TAPS[u]) * f64::from(GAUSSIAN_TAPS[v]);
                        let p = f64::from(r[(y + v) * w + x + u]);
                        let q = f64::from(d[(y + v) * w + x + u]);
                        m1 += wt * p;
                        m2 += wt * q;
                        s11 += wt * p * p;
                        s22 += wt * q * q;
                        s12 += wt * p * q;
                    }
                }
                let (v1, v2, cv) = (s11 - m1 * m1, s22 - m2 * m2, s12 - m1 * m2);
                let sd = (v1.max(0.0) * v2.max(0.0)).sqrt();
                let l = (2.0 * m1 * m2 + c1) / (m1 * m1 + m2 * m2 + c1);
                let c = (2.0 * sd + c2) / (v1 + v2 + c2);
                let s = (cv + c2 / 2.0) / (sd + c2 / 2.0);
                let ssim = l * c * s;
                total += ssim;
                max_diff = max_diff.max((ssim - f64::from(map.values[y * mw + x])).abs());
            }
        }
        // Float variances of 0-255 data lose a few 1e-5 relative.
        assert!(max_diff < 2e-3, "per-pixel max diff {max_diff}");
        let want = total / (mw * mh) as f64;
        assert!((score.ssim - want).abs() < 2e-4, "{} vs {want}", score.ssim);
        assert!(score.ssim < 0.95 && score.ssim > 0.2, "distortion visible: {}", score.ssim);
        let mean_map: f64 =
            map.values.iter().map(|&v| f64::from(v)).sum::<f64>() / map.values.len() as f64;
        assert!((mean_map - score.ssim).abs() < 1e-6);
    }

    #[test]
    fn high_bit_depth_is_scaled_to_eight_bit_range() {
        let (w, h) = (48usize, 40usize);
        let r8 = texture(w, h, 8, 5);
        let d8 = distort(&r8, 8, 10, 6);
        // The same picture at 10 bits (·4) must score the same: libvmaf
        // divides by 4 before anything else, exactly.
        let r10: Vec<u16> = r8.iter().map(|&v| v * 4).collect();
        let d10: Vec<u16> = d8.iter().map(|&v| v * 4).collect();
        let s8 = float_ssim(
            &PlaneView::packed(w, h, 8, &r8),
            &PlaneView::packed(w, h, 8, &d8),
            SsimOptions::default(),
        )
        .unwrap();
        let s10 = float_ssim(
            &PlaneView::packed(w, h, 10, &r10),
            &PlaneView::packed(w, h, 10, &d10),
            SsimOptions::default(),
        )
        .unwrap();
        assert_eq!(s8, s10);
    }

    #[test]
    fn pre_scale_applies_to_large_frames_and_the_map() {
        let (w, h) = (1030usize, 520usize); // min 520 / 256 = 2.03 → 2
        let r = texture(w, h, 8, 11);
        let d = distort(&r, 8, 8, 12);
        let pr = PlaneView::packed(w, h, 8, &r);
        let pd = PlaneView::packed(w, h, 8, &d);
        let (score, map) = float_ssim_with_map(&pr, &pd, SsimOptions::default()).unwrap();
        assert_eq!(map.scale, 2);
        assert_eq!((map.width, map.height), (515 - 10, 260 - 10));
        let unscaled = float_ssim(&pr, &pd, SsimOptions { scale: 1 }).unwrap();
        // Box filtering averages the noise away, so the decimated score is higher.
        assert!(score.ssim > unscaled.ssim, "{} vs {}", score.ssim, unscaled.ssim);
    }

    #[test]
    fn refuses_bad_inputs() {
        let s = vec![0u16; 10 * 30];
        let p = PlaneView::packed(10, 30, 8, &s);
        let e = float_ssim(&p, &p, SsimOptions::default()).unwrap_err();
        assert!(matches!(e, MetricsError::FrameTooSmall { width: 10, height: 30, .. }), "{e}");

        let big = vec![0u16; 40 * 40];
        let q = PlaneView::packed(40, 40, 8, &big);
        let e = float_ssim(&q, &q, SsimOptions { scale: 4 }).unwrap_err();
        assert!(matches!(e, MetricsError::FrameTooSmall { .. }), "{e}");
        let e = float_ssim(&q, &q, SsimOptions { scale: 11 }).unwrap_err();
        assert!(matches!(e, MetricsError::OptionOutOfRange { .. }), "{e}");

        let other = vec![0u16; 40 * 41];
        let o = PlaneView::packed(40, 41, 8, &other);
        let e = float_ssim(&q, &o, SsimOptions::default()).unwrap_err();
        assert!(matches!(e, MetricsError::PlaneMismatch { .. }), "{e}");
    }

    #[test]
    fn strided_planes_read_only_their_width() {
        let (w, h, stride) = (30usize, 24usize, 37usize);
        let r = texture(w, h, 8, 21);
        let d = distort(&r, 8, 12, 22);
        let pad = |src: &[u16]| {
            let mut out = vec![999u16; stride * h];
            for y in 0..h {
                out[y * stride..y * stride + w].copy_from_slice(&src[y * w..(y + 1) * w]);
            }
            out
        };
        let (rs, ds) = (pad(&r), pad(&d));
        let ra = PlaneView { width: w, height: h, stride, bpc: 8, samples: &rs };
        let da = PlaneView { width: w, height: h, stride, bpc: 8, samples: &ds };
        let a = float_ssim(&ra, &da, SsimOptions::default()).unwrap();
        let b = float_ssim(
            &PlaneView::packed(w, h, 8, &r),
            &PlaneView::packed(w, h, 8, &d),
            SsimOptions::default(),
        )
        .unwrap();
        assert_eq!(a, b);
    }
}
