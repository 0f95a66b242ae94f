//! The Gaussian filters of float VIF and the separable, mirrored float
//! convolution libvmaf runs with them (`vif_get_filter`,
//! `vif_filter1d_s` / `_sq_s` / `_xy_s`, `vif_dec2_s`).
//!
//! libvmaf's AVX2 convolution (`convolution_avx.c`, used for filters up to
//! 17 taps) adds the same products in the same order as its scalar
//! fallback and mirrors the same way, so one definition covers both: every
//! output is `Σ_k f[k]·x[mirror(i − r + k)]`, accumulated in `f32` from 0 in
//! ascending `k`, vertical pass first (rounded to `f32` per value), then the
//! horizontal pass over the vertical results.

use crate::MetricsError;

/// libvmaf's accepted kernel scales (`valid_kernelscales` in
/// `vif_tools.h`), each written as libvmaf computes it in `float`.
pub fn valid_kernelscales() -> [f32; 21] {
    [
        1.0,
        1.0 / 2.0,
        3.0 / 2.0,
        2.0,
        2.0 / 3.0,
        24.0 / 10.0,
        360.0 / 97.0,
        4.0 / 3.0,
        3.5 / 3.0,
        3.75 / 3.0,
        4.25 / 3.0,
        5.0 / 3.0,
        3.0,
        1.0 / 2.25,
        1.4746,
        1.54,
        1.6,
        1.06667,
        0.711111,
        0.740740,
        1.111111,
    ]
}

/// Whether libvmaf accepts kernel scale `ks` (`vif_validate_kernelscale`:
/// within 1e-3 of a listed value, compared in `float`).
pub fn kernelscale_is_valid(ks: f64) -> bool {
    let ks = ks as f32;
    valid_kernelscales().iter().any(|&v| (ks - v).abs() < 1e-3)
}

/// Taps of scale `scale`'s filter (`vif_get_filter_size`): `2^(4−scale)+1`
/// times the kernel scale (a `float` product), rounded up to an odd
/// integer, at least 3. 17, 9, 5, 3 at kernel scale 1.
pub fn filter_width(scale: usize, kernelscale: f64) -> usize {
    let n = ((1usize << (4 - scale)) + 1) as f32;
    let f = n * kernelscale as f32;
    let ceiling = f64::from(f).ceil() as i32;
    let odd = if ceiling % 2 == 0 { ceiling + 1 } else { ceiling };
    odd.max(3) as usize
}

/// One Gaussian tap before normalisation, as `get_gaussian_pdf` computes it
/// (mean 0): the exponent in double, `exp` in double rounded to `f32`, and
/// divided (in `f32`) by `1/(σ·√(2π))` rounded to `f32`.
fn gaussian_tap(x: f32, stdev: f32) -> f32 {
    let d = f64::from(x - 0.0);
    let s = f64::from(stdev);
    let num = (-0.5 * d / s * d / s).exp() as f32;
    let den = (1.0 / (s * (2.0 * std::f64::consts::PI).sqrt())) as f32;
    num / den
}

/// Scale `scale`'s normalised filter taps (`vif_get_filter`): a Gaussian
/// of σ = width/5 sampled at the integer offsets, each tap divided by the
/// `f32` sum of all (added in order).
pub fn filter_taps(scale: usize, kernelscale: f64) -> Vec<f32> {
    let width = filter_width(scale, kernelscale);
    gaussian_kernel(width, width as f32 / 5.0)
}

/// libvmaf's `get_1d_gaussian_kernel`: `width` (odd) taps of a Gaussian of
/// deviation `stdev` at the integer offsets, each divided by their `f32`
/// sum (added in order).
pub fn gaussian_kernel(width: usize, stdev: f32) -> Vec<f32> {
    let half = (width - 1) / 2;
    let mut taps: Vec<f32> =
        (0..width).map(|i| gaussian_tap(i as f32 - half as f32, stdev)).collect();
    let mut sum = 0.0f32;
    for &t in &taps {
        sum += t;
    }
    for t in &mut taps {
        *t /= sum;
    }
    taps
}

/// libvmaf's mirror of an index `i` in `-r ..= n−1+r` onto `0..n`: `−i`
/// below, `2n − i − 2` above (the edge sample is not repeated). Valid for
/// `r < n`, which [`super::check_sizes`] guarantees.
pub fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    let m = if i < 0 {
        -i
    } else if i >= n {
        2 * n - i - 2
    } else {
        i
    };
    m as usize
}

/// A float plane, row-major without padding.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatPlane {
    pub width: usize,
    pub height: usize,
    pub data: Vec<f32>,
}

impl FloatPlane {
    pub fn at(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }
}

/// What a filter pass convolves: a plane's samples, their squares, or the
/// products of two planes' samples (`vif_filter1d_s`, `_sq_s`, `_xy_s`).
#[derive(Clone, Copy)]
pub enum Source<'a> {
    Plain(&'a FloatPlane),
    Squared(&'a FloatPlane),
    Product(&'a FloatPlane, &'a FloatPlane),
}

impl Source<'_> {
    fn size(&self) -> (usize, usize) {
        match self {
            Self::Plain(p) | Self::Squared(p) | Self::Product(p, _) => (p.width, p.height),
        }
    }

    /// The tap's `f32` product with the filter coefficient, in libvmaf's
    /// order: `f·x`, `f·(x·x)`, `f·(x·y)`.
    fn term(&self, f: f32, x: usize, y: usize) -> f32 {
        match self {
            Self::Plain(p) => f * p.at(x, y),
            Self::Squared(p) => {
                let v = p.at(x, y);
                f * (v * v)
            }
            Self::Product(a, b) => f * (a.at(x, y) * b.at(x, y)),
        }
    }
}

/// The vertical pass at row `y`, column `x`.
pub fn vertical(taps: &[f32], src: Source<'_>, x: usize, y: usize) -> f32 {
    let (_, h) = src.size();
    let r = (taps.len() / 2) as isize;
    let mut acc = 0.0f32;
    for (k, &f) in taps.iter().enumerate() {
        acc += src.term(f, x, mirror(y as isize - r + k as isize, h));
    }
    acc
}

/// The horizontal pass at column `x` over one row of vertical results.
pub fn horizontal(taps: &[f32], row: &[f32], x: usize) -> f32 {
    let r = (taps.len() / 2) as isize;
    let mut acc = 0.0f32;
    for (k, &f) in taps.iter().enumerate() {
        acc += f * row[mirror(x as isize - r + k as isize, row.len())];
    }
    acc
}

/// The whole separable filter of `src` at its own size.
pub fn filter(taps: &[f32], src: Source<'_>) -> FloatPlane {
    let (w, h) = src.size();
    let mut data = Vec::with_capacity(w * h);
    let mut row = vec![0.0f32; w];
    for y in 0..h {
        for (x, v) in row.iter_mut().enumerate() {
            *v = vertical(taps, src, x, y);
        }
        data.extend((0..w).map(|x| horizontal(taps, &row, x)));
    }
    FloatPlane { width: w, height: h, data }
}

/// The next scale's plane: `plane` filtered with `taps` at its own size,
/// then every second sample of every second row (`vif_dec2_s`); the
/// result is `⌊w/2⌋ × ⌊h/2⌋`.
pub fn decimate(taps: &[f32], plane: &FloatPlane) -> FloatPlane {
    let (w, h) = (plane.width / 2, plane.height / 2);
    let mut data = Vec::with_capacity(w * h);
    let mut row = vec![0.0f32; plane.width];
    for y in 0..h {
        for (x, v) in row.iter_mut().enumerate() {
            *v = vertical(taps, Source::Plain(plane), x, 2 * y);
        }
        data.extend((0..w).map(|x| horizontal(taps, &row, 2 * x)));
    }
    FloatPlane { width: w, height: h, data }
}

/// Refuses a kernel scale libvmaf refuses.
pub fn check_kernelscale(ks: f64) -> Result<(), MetricsError> {
    if kernelscale_is_valid(ks) {
        return Ok(());
    }
    Err(MetricsError::FloatOptionOutOfRange {
        feature: super::FEATURE,
        option: "vif_kernelscale",
        value: ks,
        allowed: "one of libvmaf's listed kernel scales: 1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, \
                  4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, \
                  0.711111, 0.74074, 1.111111 (within 0.001)",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_widths_are_17_9_5_3() {
        let w: Vec<usize> = (0..4).map(|s| filter_width(s, 1.0)).collect();
        assert_eq!(w, [17, 9, 5, 3]);
        assert_eq!(filter_width(0, 4.0), 69);
        assert_eq!(filter_width(3, 0.5), 3);
        assert!(kernelscale_is_valid(1.0) && kernelscale_is_valid(4.0 / 3.0));
        assert!(!kernelscale_is_valid(4.0) && !kernelscale_is_valid(1.01));
    }

    #[test]
    fn taps_are_a_normalised_symmetric_gaussian() {
        for s in 0..4 {
            let t = filter_taps(s, 1.0);
            let sum: f64 = t.iter().map(|&v| f64::from(v)).sum();
            assert!((sum - 1.0).abs() < 1e-6, "{sum}");
            assert!(t.iter().zip(t.iter().rev()).all(|(a, b)| a == b));
            assert!(t[t.len() / 2] > t[0]);
        }
    }

    #[test]
    fn mirror_skips_the_edge() {
        assert_eq!(mirror(-2, 5), 2);
        assert_eq!(mirror(5, 5), 3);
        assert_eq!(mirror(6, 5), 2);
        assert_eq!(mirror(3, 5), 3);
    }
}
