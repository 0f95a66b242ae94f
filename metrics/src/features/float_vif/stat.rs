//! The per-pixel VIF statistic of float VIF (`vif_statistic_s`, the
//! "matching_matlab" arrangement) and libvmaf's polynomial log2
//! (`log2f_approx`, on because `VIF_OPT_FAST_LOG2` is defined).
//!
//! Every step keeps libvmaf's precision: `f32` products and differences,
//! the gain `g` a `f32` quotient, the two log arguments formed in `f64`
//! (`vif_sigma_nsq` is a `double`, which promotes its expressions) and
//! rounded to `f32` when passed to the `f32` log2. On a GPU each `a·b ± c`
//! here must be `precise`, and the `f32` quotient must come from a `f64`
//! division rounded to `f32` (LIBVMAF-PORTING.md §7).

/// The bits of the x86 default NaN (what `0.0/0.0` gives there) as a `f32`.
pub const X86_DEFAULT_NAN: u32 = 0xFFC0_0000;

/// libvmaf's `eps` of the statistic.
pub const EPS: f32 = 1.0e-10;

/// Coefficients of libvmaf's log2 polynomial in `(m − 1)`, highest power
/// first, as its `float` table holds them (double literals rounded to
/// `f32`).
pub fn log2_poly() -> [f32; 9] {
    [
        -0.012671635276421f64 as f32,
        0.064841182402670f64 as f32,
        -0.157048836463065f64 as f32,
        0.257167726303123f64 as f32,
        -0.353800560300520f64 as f32,
        0.480131410397451f64 as f32,
        -0.721314327952201f64 as f32,
        1.442694803896991f64 as f32,
        0.0,
    ]
}

/// libvmaf's approximate log2 of a `f32`: the unbiased exponent plus a
/// Horner polynomial of the mantissa in `[1, 2)` minus one, all in `f32`.
/// Zero gives −∞ and negatives NaN, as there.
///
/// A NaN argument (`0/0` when `vif_sigma_nsq` is 0) passes both tests and
/// is decoded like a number, so its bits decide the result: libvmaf on x86
/// gets the processor's default NaN, `0xFFC00000` as a float, and so 128 +
/// p(0.5). That pattern is used for every NaN here and on the GPU, whose
/// NaNs may carry other bits.
pub fn log2_approx(x: f32) -> f32 {
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x < 0.0 {
        return f32::NAN;
    }
    let bits = if x.is_nan() { X86_DEFAULT_NAN } else { x.to_bits() };
    let exponent = (bits & 0x7F80_0000) >> 23;
    let mantissa = f32::from_bits((bits & 0x007F_FFFF) | 0x3F80_0000);
    let base = (exponent as i32 - 127) as f32;
    let t = mantissa - 1.0;
    let mut poly = 0.0f32;
    for c in log2_poly() {
        poly = poly * t + c;
    }
    base + poly
}

/// The constants of the statistic for one option set.
#[derive(Debug, Clone, Copy)]
pub struct StatConstants {
    /// `vif_enhn_gain_limit` rounded to `f32`, the cap on `g`.
    pub gain_limit: f32,
    /// `vif_sigma_nsq`, the neural noise variance (a `double`).
    pub sigma_nsq: f64,
    /// `powf(σ_nsq, 2) / 255²`, rounded to `f32`: the slope of the
    /// numerator in flat areas.
    pub sigma_max_inv: f32,
}

impl StatConstants {
    pub fn new(enhn_gain_limit: f64, sigma_nsq: f64) -> Self {
        let p = (sigma_nsq as f32).powf(2.0);
        Self {
            gain_limit: enhn_gain_limit as f32,
            sigma_nsq,
            sigma_max_inv: (f64::from(p) / (255.0 * 255.0)) as f32,
        }
    }
}

/// One pixel's `(num, den)` from its five filtered values: the means µ1,
/// µ2 and the filtered x², y², xy.
pub fn pixel(k: &StatConstants, mu1: f32, mu2: f32, xx: f32, yy: f32, xy: f32) -> (f32, f32) {
    let mu1_sq = mu1 * mu1;
    let mu2_sq = mu2 * mu2;
    let mu1_mu2 = mu1 * mu2;
    let mut sigma1_sq = xx - mu1_sq;
    let mut sigma2_sq = yy - mu2_sq;
    let sigma12 = xy - mu1_mu2;

    // libvmaf's MAX(a, b) is `a > b ? a : b`.
    sigma1_sq = if sigma1_sq > 0.0 { sigma1_sq } else { 0.0 };
    sigma2_sq = if sigma2_sq > 0.0 { sigma2_sq } else { 0.0 };

    let mut g = sigma12 / (sigma1_sq + EPS);
    let mut sv_sq = sigma2_sq - g * sigma12;
    if sigma1_sq < EPS {
        g = 0.0;
        sv_sq = sigma2_sq;
        sigma1_sq = 0.0;
    }
    if sigma2_sq < EPS {
        g = 0.0;
        sv_sq = 0.0;
    }
    if g < 0.0 {
        sv_sq = sigma2_sq;
        g = 0.0;
    }
    sv_sq = if sv_sq > EPS { sv_sq } else { EPS };
    // MIN(a, b) is `a < b ? a : b`.
    g = if g < k.gain_limit { g } else { k.gain_limit };

    let gain = f64::from(g * g * sigma1_sq) / (f64::from(sv_sq) + k.sigma_nsq);
    let mut num = log2_approx((1.0 + gain) as f32);
    let mut den = log2_approx((1.0 + f64::from(sigma1_sq) / k.sigma_nsq) as f32);
    if sigma12 < 0.0 {
        num = 0.0;
    }
    if f64::from(sigma1_sq) < k.sigma_nsq {
        num = 1.0 - sigma2_sq * k.sigma_max_inv;
        den = 1.0;
    }
    (num, den)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_is_close_to_the_true_one() {
        for x in [1.0f32, 1.5, 2.0, 3.0, 1000.0, 0.3, 65535.0] {
            let e = (log2_approx(x) - x.log2()).abs();
            assert!(e < 1e-4, "{x}: {e}");
        }
        assert_eq!(log2_approx(1.0), 0.0);
        assert_eq!(log2_approx(8.0), 3.0);
        assert_eq!(log2_approx(0.0), f32::NEG_INFINITY);
        assert!(log2_approx(-1.0).is_nan());
        // NaN decodes as the x86 default NaN: exponent 128, mantissa 1.5.
        assert_eq!(log2_approx(f32::NAN), log2_approx(f32::from_bits(0x7FC0_0000)));
        assert!((log2_approx(f32::NAN) - 128.585).abs() < 1e-3);
    }

    #[test]
    fn flat_areas_take_the_noise_branch() {
        let k = StatConstants::new(100.0, 2.0);
        assert_eq!(k.sigma_max_inv, (4.0f64 / 65025.0) as f32);
        // No variance at all: num = 1 − σ2²·c, den = 1.
        assert_eq!(pixel(&k, 3.0, 3.0, 9.0, 9.0, 9.0), (1.0, 1.0));
        // Identical textured pixels: num = den = log2(1 + σ²/2).
        let (n, d) = pixel(&k, 0.0, 0.0, 30.0, 30.0, 30.0);
        assert_eq!(d, log2_approx(16.0));
        assert!(n <= d && n > 0.9 * d);
        // Anticorrelated: num 0.
        assert_eq!(pixel(&k, 0.0, 0.0, 30.0, 30.0, -30.0).0, 0.0);
    }
}
