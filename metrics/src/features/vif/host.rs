//! The host side: the integer sums of a frame become libvmaf's feature
//! values, with libvmaf's mix of double and float steps.

use super::stat::VifScaleSums;

/// The names libvmaf prints (the aliases of its `VMAF_integer_feature_…`
/// keys), in the order [`VifFeatures::named`] lists them.
pub const FEATURE_NAMES: [&str; 15] = [
    "integer_vif_scale0",
    "integer_vif_scale1",
    "integer_vif_scale2",
    "integer_vif_scale3",
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
];

/// What one frame's VIF pass produces: each scale's integer sums, and
/// whether scale 0 was skipped (`vif_skip_scale0`, its sums then unused).
/// This is all the GPU needs to read back (16 `i64`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct VifFrameSums {
    pub scales: [VifScaleSums; 4],
    pub skip_scale0: bool,
}

/// libvmaf's per-scale numerator and denominator, as the `float`s it keeps:
/// `num = (float)(num_log/2048.0 + (den_non_log − (num_non_log/16384.0)/65025.0))`
/// and `den = (float)(den_log/2048.0 + den_non_log)`, every step in double
/// (the integers converted to double first), rounded to float once at the end.
/// The divisions by 16384 (2^14, bringing the 16-bit-range variance to 8-bit
/// range) and by 65025 (255²) normalise the flat pixels' noise term.
pub fn scale_num_den(s: &VifScaleSums) -> (f32, f32) {
    let num = s.num_log as f64 / 2048.0
        + (s.den_non_log as f64 - ((s.num_non_log as f64) / 16384.0) / 65025.0);
    let den = s.den_log as f64 / 2048.0 + s.den_non_log as f64;
    (num as f32, den as f32)
}

/// Every VIF value libvmaf reports for a frame, as the doubles its feature
/// collector stores (so `{:.6}` of each equals libvmaf's printed digits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VifFeatures {
    /// `integer_vif_scaleK`: the **float** quotient num/den, widened.
    pub scale: [f64; 4],
    /// `integer_vif` (debug): Σnum / Σden in double; 1 when Σden is 0.
    pub vif: f64,
    /// `integer_vif_num` (debug): the floats widened and summed in double,
    /// scale 0 first.
    pub num: f64,
    /// `integer_vif_den` (debug), likewise.
    pub den: f64,
    /// `integer_vif_num_scaleK` (debug).
    pub num_scale: [f64; 4],
    /// `integer_vif_den_scaleK` (debug).
    pub den_scale: [f64; 4],
}

impl VifFeatures {
    /// `(name, value)` in [`FEATURE_NAMES`] order.
    pub fn named(&self) -> [(&'static str, f64); 15] {
        let v = [
            self.scale[0],
            self.scale[1],
            self.scale[2],
            self.scale[3],
            self.vif,
            self.num,
            self.den,
            self.num_scale[0],
            self.den_scale[0],
            self.num_scale[1],
            self.den_scale[1],
            self.num_scale[2],
            self.den_scale[2],
            self.num_scale[3],
            self.den_scale[3],
        ];
        std::array::from_fn(|i| (FEATURE_NAMES[i], v[i]))
    }
}

/// Turns a frame's sums into libvmaf's values (`write_scores`).
///
/// With `skip_scale0`, libvmaf writes scale 0 as `0`, its debug num/den as
/// `0` and `−1`, and leaves scale 0 out of the totals.
pub fn features(sums: &VifFrameSums) -> VifFeatures {
    let nd: [(f32, f32); 4] = std::array::from_fn(|k| scale_num_den(&sums.scales[k]));
    let mut scale: [f64; 4] = std::array::from_fn(|k| f64::from(nd[k].0 / nd[k].1));
    let mut num_scale: [f64; 4] = std::array::from_fn(|k| f64::from(nd[k].0));
    let mut den_scale: [f64; 4] = std::array::from_fn(|k| f64::from(nd[k].1));
    let first = if sums.skip_scale0 {
        scale[0] = 0.0;
        num_scale[0] = 0.0;
        den_scale[0] = -1.0;
        1
    } else {
        0
    };
    // Sequential double additions, scale order, as libvmaf writes them.
    let mut num = f64::from(nd[first].0);
    let mut den = f64::from(nd[first].1);
    for &(n, d) in &nd[first + 1..] {
        num += f64::from(n);
        den += f64::from(d);
    }
    let vif = if den == 0.0 { 1.0 } else { num / den };
    VifFeatures { scale, vif, num, den, num_scale, den_scale }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constant w×h frame at every scale: all pixels flat with σ₂² = 0, so
    /// num = den = pixel count and every score is exactly 1.
    #[test]
    fn constant_frame_scores_one() {
        let px = [64i64 * 48, 32 * 24, 16 * 12, 8 * 6];
        let sums = VifFrameSums {
            scales: px.map(|n| VifScaleSums { den_non_log: n, ..Default::default() }),
            skip_scale0: false,
        };
        let f = features(&sums);
        assert_eq!(f.scale, [1.0; 4]);
        assert_eq!(f.num_scale, px.map(|n| n as f64));
        assert_eq!(f.den_scale, px.map(|n| n as f64));
        assert_eq!(f.num, 4080.0);
        assert_eq!(f.vif, 1.0);
    }

    /// Hand-checked arithmetic: num_log 4096 (= 2.0), 10 flat pixels with
    /// Σσ₂² = 16384·65025 (= 1.0 after normalisation): num = 2 + 10 − 1 = 11;
    /// den_log 6144 (= 3.0): den = 3 + 10 = 13; score = (float)11/(float)13.
    #[test]
    fn scale_arithmetic() {
        let s = VifScaleSums {
            num_log: 4096,
            den_log: 6144,
            num_non_log: 16384 * 65025,
            den_non_log: 10,
        };
        assert_eq!(scale_num_den(&s), (11.0, 13.0));
        let f = features(&VifFrameSums { scales: [s; 4], skip_scale0: false });
        assert_eq!(f.scale[2], f64::from(11.0f32 / 13.0f32));
        // The float quotient, not the double one: they differ in the 8th digit.
        assert_ne!(f.scale[2], 11.0 / 13.0);
        assert_eq!(f.vif, 44.0 / 52.0);
    }

    #[test]
    fn skip_scale0_values() {
        let s = VifScaleSums { den_non_log: 5, ..Default::default() };
        let f = features(&VifFrameSums { scales: [s; 4], skip_scale0: true });
        assert_eq!(f.scale, [0.0, 1.0, 1.0, 1.0]);
        assert_eq!((f.num_scale[0], f.den_scale[0]), (0.0, -1.0));
        assert_eq!((f.num, f.den), (15.0, 15.0));
    }
}
