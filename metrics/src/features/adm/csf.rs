//! Contrast sensitivity: the Watson 1997 noise-floor weights per scale and
//! orientation, their fixed-point forms, and the per-sample CSF filter that
//! produces both the weighted coefficient (`dst`) and its 1/30 "flat" share
//! (`flt`) that the contrast-masking threshold sums.
//!
//! Only libvmaf's default CSF (`adm_csf_mode = 0`, Watson) is implemented;
//! the Barten modes are refused by [`super::AdmOptions::validate`].

/// Watson's luma model parameters (`a`, `k`, `f0`, `g[theta]`) as f32.
const WATSON_Y_A: f32 = 0.495;
const WATSON_Y_K: f32 = 0.466;
const WATSON_Y_F0: f32 = 0.401;
const WATSON_Y_G: [f32; 4] = [1.501, 1.0, 0.534, 1.0];

/// Basis function amplitudes `A[lambda][theta]` for the 7-9 wavelet
/// (Watson et al. 1997, Table V), as f32.
const BASIS_AMPLITUDES: [[f32; 4]; 4] = [
    [0.62171, 0.67234, 0.72709, 0.67234],
    [0.34537, 0.41317, 0.49428, 0.41317],
    [0.18004, 0.22727, 0.28688, 0.22727],
    [0.091401, 0.11792, 0.15214, 0.11792],
];

/// Watson's quantisation step `Q(lambda, theta)` with libvmaf's mixture of
/// float and double: `r` and `temp` are rounded to f32, `k·temp²` is an f32
/// product, the rest is double, and `Q` itself is returned as f32.
pub fn dwt_quant_step(
    lambda: usize,
    theta: usize,
    norm_view_dist: f64,
    ref_display_height: i32,
) -> f32 {
    let r = (norm_view_dist * f64::from(ref_display_height) * std::f64::consts::PI / 180.0) as f32;
    let temp =
        (2.0f64.powf((lambda + 1) as f64) * f64::from(WATSON_Y_F0) * f64::from(WATSON_Y_G[theta])
            / f64::from(r))
        .log10() as f32;
    // `k·temp·temp` is all-float in C, so it is an f32 product.
    (2.0 * f64::from(WATSON_Y_A) * 10.0f64.powf(f64::from(WATSON_Y_K * temp * temp))
        / f64::from(BASIS_AMPLITUDES[lambda][theta])) as f32
}

/// The float CSF weights of `scale` for the h, v and d bands:
/// `1 / Q(scale, 1)` for h and v, `1 / Q(scale, 2)` for d (f32 division).
pub fn rfactors(scale: usize, norm_view_dist: f64, ref_display_height: i32) -> [f32; 3] {
    let f1 = 1.0f32 / dwt_quant_step(scale, 1, norm_view_dist, ref_display_height);
    let f2 = 1.0f32 / dwt_quant_step(scale, 2, norm_view_dist, ref_display_height);
    [f1, f1, f2]
}

/// Level-0 fixed-point weights (Q21 for h/v, Q23 for d).
///
/// libvmaf **hard-codes** `{36453, 36453, 49417}` when
/// `|nvd·rdh − 3240| < 1e-8`; the formula would give 36451/49414 there. For
/// any other viewing geometry it truncates `rfactor · 2^21` (`2^23`).
pub fn i_rfactor_s0(norm_view_dist: f64, ref_display_height: i32) -> [u16; 3] {
    if (norm_view_dist * f64::from(ref_display_height) - 3.0 * 1080.0).abs() < 1.0e-8 {
        return [36453, 36453, 49417];
    }
    i_rfactor_s0_formula(norm_view_dist, ref_display_height)
}

/// Level-0 weights from the formula, without the hard-coded default.
pub fn i_rfactor_s0_formula(norm_view_dist: f64, ref_display_height: i32) -> [u16; 3] {
    let rf = rfactors(0, norm_view_dist, ref_display_height);
    let p21 = 2.0f64.powf(21.0);
    let p23 = 2.0f64.powf(23.0);
    [
        (f64::from(rf[0]) * p21) as u16,
        (f64::from(rf[1]) * p21) as u16,
        (f64::from(rf[2]) * p23) as u16,
    ]
}

/// Levels 1–3 fixed-point weights: `rfactor · 2^32` truncated to u32.
pub fn i_rfactor_s123(scale: usize, norm_view_dist: f64, ref_display_height: i32) -> [u32; 3] {
    let rf = rfactors(scale, norm_view_dist, ref_display_height);
    let p32 = 2.0f64.powf(32.0);
    rf.map(|f| (f64::from(f) * p32) as u32)
}

/// Level-0 `dst` shift per orientation (h, v, d).
const S0_SHIFT: [u32; 3] = [15, 15, 17];
/// Level-0 `dst` rounding per orientation: note **65535**, not 65536, for d.
const S0_ROUND: [i32; 3] = [16384, 16384, 65535];
/// 1/30 in Q17.
const S0_ONE_BY_30: i32 = 4369;

/// Level-0 CSF of one sample `src` of orientation `theta`:
/// `dst = (rf·src + round) >> shift` as `int16`,
/// `flt = (4369·|dst| + 2048) >> 12` as `int16` (which wraps for
/// `|dst| > 30000`, as in libvmaf).
#[inline]
pub fn csf_s0(src: i16, theta: usize, i_rfactor: &[u16; 3]) -> (i16, i16) {
    let v = i32::from(i_rfactor[theta]) * i32::from(src);
    let dst = (v.wrapping_add(S0_ROUND[theta]) >> S0_SHIFT[theta]) as i16;
    let flt = ((S0_ONE_BY_30 * i32::from(dst).abs() + 2048) >> 12) as i16;
    (dst, flt)
}

/// 1/30 in Q32.
const S123_ONE_BY_30: i64 = 143_165_577;
/// libvmaf stores `1u << 31` in an **int32**, so this "half" is −2^31.
pub const S123_FLT_ROUND: i64 = i32::MIN as i64;

/// Levels 1–3 CSF of one sample:
/// `dst = (rf·src + 2^27) >> 28` and `flt = (143165577·|dst| − 2^31) >> 32`,
/// both `int32`. The −2^31 "rounding" makes `flt = −1` when `dst = 0`.
#[inline]
pub fn csf_s123(src: i32, rf: u32) -> (i32, i32) {
    let dst = ((i64::from(rf) * i64::from(src) + (1 << 27)) >> 28) as i32;
    let flt = ((S123_ONE_BY_30 * i64::from(dst.wrapping_abs()) + S123_FLT_ROUND) >> 32) as i32;
    (dst, flt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scale0_weights_are_hard_coded() {
        assert_eq!(i_rfactor_s0(3.0, 1080), [36453, 36453, 49417]);
        // libvmaf's own comment: the formula lands near, not on, these.
        assert_eq!(i_rfactor_s0_formula(3.0, 1080), [36451, 36451, 49414]);
        // Another geometry uses the formula.
        assert_eq!(i_rfactor_s0(4.0, 1080), i_rfactor_s0_formula(4.0, 1080));
    }

    #[test]
    fn scale_weights_shrink_with_frequency() {
        // Coarser scales are lower spatial frequency: more visible, so the
        // CSF weight (1/Q) increases with the scale index.
        let w: Vec<[u32; 3]> = (1..=3).map(|s| i_rfactor_s123(s, 3.0, 1080)).collect();
        assert!(w[0][0] < w[1][0] && w[1][0] < w[2][0]);
        assert_eq!(w[0][0], w[0][1]);
    }

    #[test]
    fn csf_s0_rounding_and_wrap() {
        let rf = [36453u16, 36453, 49417];
        // dst = (36453·1000 + 16384) >> 15 = 1112.
        assert_eq!(csf_s0(1000, 0, &rf).0, ((36453 * 1000 + 16384) >> 15) as i16);
        // d uses +65535 >> 17.
        assert_eq!(csf_s0(-1000, 2, &rf).0, ((49417 * -1000 + 65535) >> 17) as i16);
        // flt of |dst| = 31000 exceeds int16 and wraps negative.
        let (dst, flt) = csf_s0(27868, 0, &rf);
        assert!(dst > 30000);
        assert_eq!(flt, ((4369 * i32::from(dst) + 2048) >> 12) as i16);
        assert!(flt < 0);
    }

    #[test]
    fn csf_s123_zero_gives_minus_one() {
        assert_eq!(csf_s123(0, 1 << 31), (0, -1));
        let (dst, flt) = csf_s123(1 << 20, 1 << 30);
        assert_eq!(dst, 1 << 22);
        assert_eq!(flt, ((143_165_577i64 * (1 << 22) - (1i64 << 31)) >> 32) as i32);
    }
}
