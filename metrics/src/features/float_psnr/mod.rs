//! `float_psnr`: the exact CPU twin of libvmaf 3.2.0's float PSNR extractor,
//! the PSNR of the luma planes on libvmaf's 0–255 float scale.
//!
//! libvmaf copies each sample to float divided by 1, 4, 16 or 256 (8, 10,
//! 12, 16 bits), subtracts the two planes in float, squares each difference
//! as a float product and adds the squares in a double, in raster order.
//! Every difference `(r − d)/s` is exact in float, and its float square is
//! `⌊(r − d)²⌉₂₄ / s²`: the integer square rounded to 24 significant bits
//! ([`float_square`], exact below 4096, so through 12 bits), scaled by a
//! power of two. The running double sum is therefore `K / s²` for an
//! integer `K`, and every partial sum is representable while `K < 2^53`,
//! so no addition rounds: libvmaf's double sum equals the integer sum of
//! the rounded squares divided by `s²`, whatever the order. A square is
//! below 2^24 through 12 bits, so the bound holds for any such frame below
//! 2^29 samples; at 16 bits (squares up to 2^32) it holds for any content
//! up to 2^21 samples, and beyond that while the mean rounded square stays
//! below `2^53 / (w·h)` (only for extreme differences might libvmaf's
//! running sum round where ours does not). The GPU therefore sums integers,
//! in any order, and the host divides once.
//!
//! The host then takes `min(10·log10(peak² / max(mse, 1e-10)), psnr_max)`
//! with libvmaf's per-depth table ([`FloatDepth`]): the peak is the largest
//! sample on the float scale (255, 255.75, 255.9375, 255.99609375) and the
//! cap 60, 72, 84 or 108 dB (6·bpc + 12). Other depths are refused, as
//! libvmaf's `init` refuses them.

pub mod feature;
pub mod gpu;

use crate::MetricsError;
use crate::features::float_moment::{float_square, scaler};
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
const FEATURE: &str = "float_psnr";

/// The floor libvmaf puts under the mean square error before its log.
const MSE_FLOOR: f64 = 1e-10;

/// What libvmaf's float PSNR and ANSNR extractors take from the bit depth
/// (the same table in both): the sample divisor of `picture_copy`, the
/// peak on the 0–255 float scale and the dB cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatDepth {
    /// 1, 4, 16 or 256: a power of two, so every division by it is exact.
    pub scaler: f32,
    pub peak: f64,
    pub psnr_max: f64,
}

impl FloatDepth {
    /// The table entry for `bpc`; `feature` names the extractor in the
    /// error for a depth libvmaf refuses (anything but 8, 10, 12, 16).
    pub fn of(feature: &'static str, bpc: u32) -> Result<Self, MetricsError> {
        let (peak, psnr_max) = match bpc {
            8 => (255.0, 60.0),
            10 => (255.75, 72.0),
            12 => (255.9375, 84.0),
            16 => (255.99609375, 108.0),
            _ => {
                return Err(MetricsError::OptionOutOfRange {
                    feature,
                    option: "bpc",
                    value: i64::from(bpc),
                    allowed: "8, 10, 12 or 16",
                });
            }
        };
        let scaler = scaler(bpc)? as f32;
        Ok(Self { scaler, peak, psnr_max })
    }
}

/// Refuses a pair libvmaf could not score: different shapes, a depth
/// outside its table, an empty plane (libvmaf's mean would be 0/0).
pub(crate) fn check(
    feature: &'static str,
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<FloatDepth, MetricsError> {
    check_pair(feature, reference, distorted)?;
    let depth = FloatDepth::of(feature, reference.bpc)?;
    if reference.width == 0 || reference.height == 0 {
        return Err(MetricsError::FrameTooSmall {
            feature,
            width: reference.width,
            height: reference.height,
            reason: "a plane needs at least one sample",
        });
    }
    Ok(depth)
}

/// `K`: the sum over the luma pair of each difference's square as
/// libvmaf's float product rounds it, in units of `1/scaler²`.
pub fn noise_sum(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<u64, MetricsError> {
    check(FEATURE, reference, distorted)?;
    let mut sum = 0u64;
    for y in 0..reference.height {
        for (&a, &b) in reference.row(y).iter().zip(distorted.row(y)) {
            sum += float_square(a.abs_diff(b));
        }
    }
    Ok(sum)
}

/// libvmaf's `float_psnr` of a `width × height` frame whose [`noise_sum`]
/// is `sum`: the mean `(K / s²) / (w·h)` (`w·h` an `int` product in
/// libvmaf), floored at 1e-10, as capped dB. The comparisons are written as
/// libvmaf's `MAX`/`MIN` macros evaluate them.
pub fn float_psnr_score(sum: u64, width: u32, height: u32, depth: &FloatDepth) -> f64 {
    let s = f64::from(depth.scaler);
    let samples = f64::from((width as i32).wrapping_mul(height as i32));
    let mse = sum as f64 / (s * s) / samples;
    let mse = if mse > MSE_FLOOR { mse } else { MSE_FLOOR };
    let db = 10.0 * (depth.peak * depth.peak / mse).log10();
    if db < depth.psnr_max { db } else { depth.psnr_max }
}

/// `float_psnr` of one luma pair.
pub fn float_psnr(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<f64, MetricsError> {
    let sum = noise_sum(reference, distorted)?;
    let depth = FloatDepth::of(FEATURE, reference.bpc)?;
    Ok(float_psnr_score(sum, reference.width as u32, reference.height as u32, &depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_table_is_libvmafs() {
        for (bpc, peak, cap) in
            [(8, 255.0, 60.0), (10, 255.75, 72.0), (12, 255.9375, 84.0), (16, 255.99609375, 108.0)]
        {
            let d = FloatDepth::of(FEATURE, bpc).unwrap();
            // The peak is the largest code on the float scale; the cap 6·bpc + 12.
            assert_eq!(d.peak, f64::from((1u32 << bpc) - 1) / f64::from(d.scaler));
            assert_eq!((d.peak, d.psnr_max), (peak, cap));
            assert_eq!(d.psnr_max, f64::from(6 * bpc + 12));
        }
        for bpc in [0, 7, 9, 11, 14, 17] {
            assert!(FloatDepth::of(FEATURE, bpc).is_err(), "{bpc}");
        }
    }

    #[test]
    fn known_planes() {
        // Differences 0, 1, 2, 3: K = 14, mse 3.5.
        let r = [10u16, 20, 30, 40];
        let d = [10u16, 21, 28, 43];
        let (rv, dv) = (PlaneView::packed(2, 2, 8, &r), PlaneView::packed(2, 2, 8, &d));
        assert_eq!(noise_sum(&rv, &dv).unwrap(), 14);
        let want = 10.0 * (255.0f64 * 255.0 / 3.5).log10();
        assert_eq!(float_psnr(&rv, &dv).unwrap(), want);
        // Identical planes: the floor, then the cap.
        assert_eq!(float_psnr(&rv, &rv).unwrap(), 60.0);
        // 10 bits: the same codes are quartered, so mse is 3.5 / 16.
        let (rv, dv) = (PlaneView::packed(2, 2, 10, &r), PlaneView::packed(2, 2, 10, &d));
        let want = 10.0 * (255.75f64 * 255.75 / (3.5 / 16.0)).log10();
        assert_eq!(float_psnr(&rv, &dv).unwrap(), want);
    }

    #[test]
    fn refuses_what_libvmaf_refuses() {
        let s = [0u16; 4];
        let empty = PlaneView::packed(0, 0, 8, &[]);
        assert!(noise_sum(&empty, &empty).is_err());
        let (a, b) = (PlaneView::packed(2, 2, 8, &s), PlaneView::packed(4, 1, 8, &s));
        assert!(noise_sum(&a, &b).is_err());
        let odd = PlaneView::packed(2, 2, 9, &s);
        assert!(noise_sum(&odd, &odd).is_err());
    }
}
