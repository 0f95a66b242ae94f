//! Decoupling: splits each distorted detail coefficient into the part that
//! *restores* the reference (`r`, a gain `k ∈ [0, 1]` times the reference
//! coefficient) and the *additive* impairment `a = t − r`.
//!
//! Per sample: `k = clamp(t / o, 0, 1)` in Q15 through an integer reciprocal
//! table, `r = k·o` rounded; where the (h, v) orientation of reference and
//! distorted differ by less than 1° the restored part may exceed the
//! reference up to the enhancement gain limit. Everything is per-sample, so
//! a GPU kernel computes it in one invocation per position.
//!
//! The angle test is floating point in libvmaf: each `int64` dot product or
//! squared magnitude is rounded to **f32** (`(float)x`, round to nearest
//! even), then divided by 4096 and multiplied in **double**. [`angle_flag`]
//! reproduces exactly that.

use std::sync::OnceLock;

/// `cos²(1°)` as libvmaf stores it: computed in double, rounded to float.
pub fn cos_1deg_sq() -> f32 {
    static V: OnceLock<f32> = OnceLock::new();
    *V.get_or_init(|| {
        let c = (1.0f64 * std::f64::consts::PI / 180.0).cos();
        (c * c) as f32
    })
}

/// libvmaf's `div_lookup[32768 + i]`: `2^30 / i` truncated, negated for
/// negative `i`, for `i ∈ [−32768, 32768]` (`i = 0` is never used).
/// Computed rather than tabulated: integer division is exact everywhere.
#[inline]
pub fn div_lookup(i: i32) -> i32 {
    if i == 0 {
        return 0;
    }
    let r = (1i32 << 30) / i.abs();
    if i < 0 { -r } else { r }
}

/// True when the angle between reference `(oh, ov)` and distorted `(th, tv)`
/// is under 1°: `o·t ≥ 0` and `(o·t)² ≥ cos²(1°)·|o|²·|t|²`, evaluated as
/// libvmaf does (int64 products, each rounded to f32, then f64 maths with
/// libvmaf's operation order).
#[inline]
pub fn angle_flag(oh: i64, ov: i64, th: i64, tv: i64) -> bool {
    let ot_dp = oh * th + ov * tv;
    let o_mag_sq = oh * oh + ov * ov;
    let t_mag_sq = th * th + tv * tv;
    let dp = f64::from(ot_dp as f32) / 4096.0;
    let om = f64::from(o_mag_sq as f32) / 4096.0;
    let tm = f64::from(t_mag_sq as f32) / 4096.0;
    dp >= 0.0 && dp * dp >= f64::from(cos_1deg_sq()) * om * tm
}

/// The restored value after the enhancement gain limit: where the angle
/// flag holds and the restored value is non-zero, libvmaf replaces it by
/// `min(r·egl, t)` (positive) or `max(r·egl, t)` (negative), computed in
/// double and converted back to an integer by truncation toward zero.
///
/// libvmaf tests the sign of a float `(k/32768)·(o/64)`; with `k ≥ 0` that
/// is exactly the sign of `o` when `k > 0` and zero otherwise, which is what
/// is tested here (no float needed on the GPU).
#[inline]
fn gain_limited(rst: i64, k: i64, o: i64, t: i64, angle: bool, egl: f64) -> i64 {
    if !angle || k == 0 || o == 0 {
        return rst;
    }
    let scaled = rst as f64 * egl;
    let t = t as f64;
    let v = if o > 0 {
        if scaled < t { scaled } else { t }
    } else if scaled > t {
        scaled
    } else {
        t
    };
    v as i64
}

/// Level-0 decoupling of one sample. `o` and `t` are the reference and
/// distorted `[h, v, d]` coefficients; returns `([r_h, r_v, r_d], [a_h,
/// a_v, a_d])`, each stored as `int16` like libvmaf.
#[inline]
pub fn decouple_s0(o: [i16; 3], t: [i16; 3], egl: f64) -> ([i16; 3], [i16; 3]) {
    let angle = angle_flag(o[0].into(), o[1].into(), t[0].into(), t[1].into());
    let mut r = [0i16; 3];
    let mut a = [0i16; 3];
    for b in 0..3 {
        let (ob, tb) = (i64::from(o[b]), i64::from(t[b]));
        let k = if ob == 0 {
            32768
        } else {
            // (lookup · t + 16384) >> 15 in int64, stored in an int32.
            ((i64::from(div_lookup(ob as i32)) * tb + 16384) >> 15) as i32 as i64
        };
        let k = k.clamp(0, 32768);
        // (k·o + 16384) >> 15 in int32 (|k·o| ≤ 2^30), stored as int16.
        let rst = i64::from(((k * ob + 16384) >> 15) as i16);
        let rst = gain_limited(rst, k, ob, tb, angle, egl) as i16;
        r[b] = rst;
        a[b] = (i32::from(t[b]) - i32::from(rst)) as i16;
    }
    (r, a)
}

/// libvmaf's `get_best15_from32`: a value `≥ 2^15` reduced to its top 15
/// significant bits with rounding; returns `(value, shift)`. The rounded
/// value can reach 2^15 exactly (the table has that entry).
#[inline]
pub fn best15_from32(v: u32) -> (u32, u32) {
    let k = 17 - v.leading_zeros();
    ((v + (1 << (k - 1))) >> k, k)
}

/// Levels 1–3 decoupling of one sample (`int32` coefficients). The divisor
/// `o` is first reduced to 15 bits by [`best15_from32`] when it is larger,
/// and the quotient is shifted by the same amount.
#[inline]
pub fn decouple_s123(o: [i32; 3], t: [i32; 3], egl: f64) -> ([i32; 3], [i32; 3]) {
    let angle = angle_flag(o[0].into(), o[1].into(), t[0].into(), t[1].into());
    let mut r = [0i32; 3];
    let mut a = [0i32; 3];
    for b in 0..3 {
        let (ob, tb) = (i64::from(o[b]), i64::from(t[b]));
        let k = if ob == 0 {
            32768
        } else {
            let abs = o[b].unsigned_abs();
            let (msb, shift) = if abs < 32768 { (abs, 0) } else { best15_from32(abs) };
            let sign = if ob < 0 { -1 } else { 1 };
            // `1 << (14 + shift)` is an int in C; it wraps only for |o| ≥ 2^31.
            let round = i64::from((1u32 << (14 + shift)) as i32);
            ((i64::from(div_lookup(msb as i32)) * tb * sign).wrapping_add(round)) >> (15 + shift)
        };
        let k = k.clamp(0, 32768);
        let rst = i64::from(((k * ob + 16384) >> 15) as i32);
        let rst = gain_limited(rst, k, ob, tb, angle, egl) as i32;
        r[b] = rst;
        a[b] = t[b].wrapping_sub(rst);
    }
    (r, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cos_is_float_rounded() {
        let c = (std::f64::consts::PI / 180.0).cos();
        assert_eq!(cos_1deg_sq(), (c * c) as f32);
        assert!((f64::from(cos_1deg_sq()) - 0.999_695_413_509_547_9).abs() < 1e-7);
    }

    #[test]
    fn div_lookup_matches_table_definition() {
        assert_eq!(div_lookup(1), 1 << 30);
        assert_eq!(div_lookup(3), 357_913_941);
        assert_eq!(div_lookup(-3), -357_913_941);
        assert_eq!(div_lookup(32768), 32768);
        assert_eq!(div_lookup(-32768), -32768);
    }

    #[test]
    fn sign_test_equals_libvmaf_float_test() {
        // libvmaf: rst_f = ((float)k / 32768) * ((float)o / 64), tested
        // against 0. Our integer sign logic must agree for every k.
        for k in (0..=32768i64).step_by(7).chain([0, 1, 32768]) {
            for o in [-32768i64, -1000, -1, 0, 1, 5, 32767, 1 << 20, -(1 << 24)] {
                let f = (k as f32 / 32768.0) * (o as f32 / 64.0);
                let pos = k != 0 && o > 0;
                let neg = k != 0 && o < 0;
                assert_eq!(f > 0.0, pos, "k={k} o={o}");
                assert_eq!(f < 0.0, neg, "k={k} o={o}");
            }
        }
    }

    #[test]
    fn angle_rounds_products_to_f32() {
        // Identical vectors: angle 0, flag set.
        assert!(angle_flag(100, 200, 100, 200));
        // Opposite: dot product negative.
        assert!(!angle_flag(100, 200, -100, -200));
        // About 2° apart: cos² ≈ 0.99878 < cos²(1°): not set.
        assert!(!angle_flag(1000, 0, 1000, 35));
        // About 0.5° apart: set.
        assert!(angle_flag(1000, 0, 1000, 9));
        // Zero vectors: 0 ≥ 0 holds, libvmaf sets the flag.
        assert!(angle_flag(0, 0, 0, 0));
    }

    #[test]
    fn decouple_restores_and_adds() {
        // t = o / 2: k = 0.5, r = o/2, a = 0 (no gain: angle 0 but r·egl
        // capped at t = r).
        let (r, a) = decouple_s0([1000, -600, 40], [500, -300, 20], 100.0);
        assert_eq!(r, [500, -300, 20]);
        assert_eq!(a, [0, 0, 0]);
        // Opposite signs: k clamps to 0, everything is additive.
        let (r, a) = decouple_s0([1000, 0, 40], [-500, 7, -20], 100.0);
        assert_eq!(r, [0, 0, 0]);
        assert_eq!(a, [-500, 7, -20]);
        // o = 0 gives k = 1 and r = 0.
        let (r, a) = decouple_s0([0, 0, 0], [3, 4, 5], 1.0);
        assert_eq!(r, [0, 0, 0]);
        assert_eq!(a, [3, 4, 5]);
        // Enhancement (t = 1.5·o, same angle): k clamps to 1 so r = o, then
        // the gain limit lets r grow to t when egl ≥ 1.5 …
        let (r, _) = decouple_s0([1000, 2000, 300], [1500, 3000, 450], 100.0);
        assert_eq!(r, [1500, 3000, 450]);
        // … and keeps r = o with egl = 1 (NEG).
        let (r, a) = decouple_s0([1000, 2000, 300], [1500, 3000, 450], 1.0);
        assert_eq!(r, [1000, 2000, 300]);
        assert_eq!(a, [500, 1000, 150]);
    }

    #[test]
    fn best15_rounds_to_15_bits() {
        assert_eq!(best15_from32(32768), (16384, 1));
        assert_eq!(best15_from32(65535), (32768, 1));
        assert_eq!(best15_from32(1 << 20), (16384, 6));
        assert_eq!(best15_from32((1 << 20) + (1 << 5)), (16385, 6));
    }

    #[test]
    fn decouple_s123_large_divisor() {
        // o = 2^20, t = 2^19: reduced divisor 16384 (shift 6), k = 0.5.
        let (r, a) = decouple_s123([1 << 20, 0, 0], [1 << 19, 0, 0], 100.0);
        assert_eq!(r[0], 1 << 19);
        assert_eq!(a[0], 0);
    }
}
