//! `float_moment` (`float_moment_ref1st`, `_dis1st`, `_ref2nd`, `_dis2nd`):
//! the exact CPU twin of libvmaf 3.2.0's `float_moment` extractor, the mean
//! and mean square of each luma plane.
//!
//! libvmaf copies each sample to float (divided by 4, 16 or 256 above 8
//! bits), adds the samples, and the float squares of the samples, in
//! double, and divides by `w·h`. Every sample and (up to 12 bits) every
//! square is then an exact multiple of a power of two, so the double sums
//! are exact and equal integer sums scaled by that power: the GPU sums
//! integers, and the host divides once. At 16 bits a float square rounds to
//! 24 significant bits; the twin and the kernel round it the same way, and
//! the sums stay exact while they stay below 2^53 (frames up to 2^21
//! samples; beyond, libvmaf's running double sum may round where the
//! integer sum does not).

pub mod feature;
pub mod gpu;

use crate::MetricsError;
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
const FEATURE: &str = "float_moment";

/// The four integer sums of a frame pair: Σref, Σdis, Σref², Σdis² (each
/// square as libvmaf's float product gives it).
pub type MomentSums = [u64; 4];

/// libvmaf's float scaling of a sample (`picture_copy`): 1 at 8 bits, 4,
/// 16, 256 at 10, 12, 16. libvmaf reads any other depth as 8-bit bytes,
/// which is meaningless, so it is refused.
pub fn scaler(bpc: u32) -> Result<f64, MetricsError> {
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

/// A sample's square as libvmaf's float product rounds it.
pub fn float_square(v: u16) -> u64 {
    let f = f32::from(v);
    (f * f) as u64
}

/// The sums of one frame pair's luma planes.
pub fn moment_sums(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<MomentSums, MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    scaler(reference.bpc)?;
    let mut sums = [0u64; 4];
    for y in 0..reference.height {
        for (&a, &b) in reference.row(y).iter().zip(distorted.row(y)) {
            sums[0] += u64::from(a);
            sums[1] += u64::from(b);
            sums[2] += float_square(a);
            sums[3] += float_square(b);
        }
    }
    Ok(sums)
}

/// libvmaf's four values, in its order (ref1st, dis1st, ref2nd, dis2nd),
/// from a frame's sums: `(Σ / scaler) / (w·h)` and `(Σ² / scaler²) / (w·h)`
/// (`w·h` an `int` product in libvmaf).
pub fn moments(sums: &MomentSums, width: u32, height: u32, bpc: u32) -> [f64; 4] {
    let s = scaler(bpc).unwrap_or(1.0);
    let n = f64::from((width as i32).wrapping_mul(height as i32));
    [
        sums[0] as f64 / s / n,
        sums[1] as f64 / s / n,
        sums[2] as f64 / (s * s) / n,
        sums[3] as f64 / (s * s) / n,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_like_float() {
        assert_eq!(float_square(255), 65025);
        assert_eq!(float_square(4095), 4095 * 4095);
        // 65535² = 4294836225 needs 32 bits; float keeps 24: round to even.
        assert_eq!(float_square(65535), 4294836224);
        assert!(scaler(9).is_err());
    }

    #[test]
    fn means_of_a_known_plane() {
        let r = [10u16, 20, 30, 40];
        let d = [0u16, 0, 0, 4];
        let (rv, dv) = (PlaneView::packed(2, 2, 8, &r), PlaneView::packed(2, 2, 8, &d));
        let sums = moment_sums(&rv, &dv).unwrap();
        assert_eq!(sums, [100, 4, 3000, 16]);
        assert_eq!(moments(&sums, 2, 2, 8), [25.0, 1.0, 750.0, 4.0]);
        // 10 bits: samples are quartered, squares divided by 16.
        assert_eq!(moments(&sums, 2, 2, 10), [6.25, 0.25, 46.875, 0.25]);
    }
}
