//! Contrast sensitivity: the per-scale and per-orientation weights of
//! libvmaf's four `adm_csf_mode`s, their fixed-point forms, and the
//! per-sample CSF filter that produces both the weighted coefficient
//! (`dst`) and its 1/30 "flat" share (`flt`) that the contrast-masking
//! threshold sums.
//!
//! The modes only change the weights (three numbers per level); the
//! integer pipeline is the same for all of them.

use super::AdmOptions;
use crate::error::MetricsError;
use crate::features::float_adm::csf::barten_csf;

/// libvmaf's `adm_csf_mode` of integer ADM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsfMode {
    /// 0: Watson et al. 1997 wavelet noise thresholds (the default).
    Watson,
    /// 1: Barten's CSF (HDR-VDP-2's simplification) at 100 cd/m², times
    /// `adm_csf_scale` (h, v) and `adm_csf_diag_scale` (d).
    Barten,
    /// 2: libvmaf's tabulated Barten/Watson blend (the v1.0.16 models).
    BartenWatsonBlend,
    /// 3: the same blend refitted for libvmaf's v1.0.17+ models ("MAE").
    BartenWatsonBlendMae,
}

impl CsfMode {
    /// The mode of option value `mode` (0 ..= 3).
    pub fn from_option(mode: i64) -> Option<Self> {
        match mode {
            0 => Some(Self::Watson),
            1 => Some(Self::Barten),
            2 => Some(Self::BartenWatsonBlend),
            3 => Some(Self::BartenWatsonBlendMae),
            _ => None,
        }
    }
}

/// The viewing geometries (`adm_ref_display_height`,
/// `adm_norm_view_dist`) the blend modes have tables for, and each one's
/// tables: `[h/v, d][scale]` for mode 2, then for mode 3. libvmaf compares
/// the options exactly; 2160 lines at 1.5 H reuse the 1080 × 3 H tables (the
/// same pixels per degree).
type BlendTables = [[[f32; 4]; 2]; 2];
const BLEND_1080_3H: BlendTables = [
    [[0.01183, 0.025026, 0.04295, 0.058621], [0.004302, 0.011778, 0.023918, 0.035901]],
    [[0.011249, 0.022606, 0.035930, 0.045673], [0.004097, 0.010921, 0.021430, 0.031313]],
];
const BLEND: [(i32, f64, BlendTables); 9] = [
    (1080, 3.0, BLEND_1080_3H),
    (
        1080,
        5.0,
        [
            [[0.004212, 0.014809, 0.029642, 0.047464], [0.000984, 0.005852, 0.0146, 0.027574]],
            [[0.004052, 0.013939, 0.026298, 0.038833], [0.000927, 0.005544, 0.013415, 0.024515]],
        ],
    ),
    (2160, 1.5, BLEND_1080_3H),
    (
        2160,
        3.0,
        [
            [[0.00226, 0.01183, 0.025026, 0.04295], [0.000479, 0.004302, 0.011778, 0.023918]],
            [[0.002166, 0.011249, 0.022606, 0.035930], [0.000447, 0.004097, 0.010921, 0.021430]],
        ],
    ),
    (
        2160,
        5.0,
        [
            [[0.000092, 0.004212, 0.014809, 0.029642], [0.000050, 0.000984, 0.005852, 0.0146]],
            [[0.000077, 0.004052, 0.013939, 0.026298], [0.000045, 0.000927, 0.005544, 0.013415]],
        ],
    ),
    (
        720,
        3.0,
        [
            [[0.018715, 0.035637, 0.052798, 0.061509], [0.007999, 0.018396, 0.031851, 0.037718]],
            [[0.017329, 0.030870, 0.042134, 0.047410], [0.007509, 0.016707, 0.028072, 0.032722]],
        ],
    ),
    (
        720,
        5.0,
        [
            [[0.010144, 0.022561, 0.040309, 0.05672], [0.003463, 0.010282, 0.021839, 0.034641]],
            [[0.009689, 0.020577, 0.034162, 0.044523], [0.003302, 0.009579, 0.019661, 0.030318]],
        ],
    ),
    (
        480,
        3.0,
        [
            [[0.027961, 0.045875, 0.060275, 0.056234], [0.013572, 0.026277, 0.036959, 0.034511]],
            [[0.024969, 0.037825, 0.046676, 0.043974], [0.012511, 0.023424, 0.032139, 0.030166]],
        ],
    ),
    (
        480,
        5.0,
        [
            [[0.016781, 0.032822, 0.05032, 0.061594], [0.00691, 0.016545, 0.029917, 0.037777]],
            [[0.015665, 0.028766, 0.040612, 0.047483], [0.006514, 0.015107, 0.026476, 0.032776]],
        ],
    ),
];

/// The blend tables of a viewing geometry, if libvmaf has them.
fn blend_tables(norm_view_dist: f64, ref_display_height: i32) -> Option<&'static BlendTables> {
    BLEND
        .iter()
        .find(|(rdh, nvd, _)| *rdh == ref_display_height && *nvd == norm_view_dist)
        .map(|(_, _, t)| t)
}

/// Refuses a blend mode for a viewing geometry it has no table for (libvmaf
/// would use −EINVAL, −22, as the weight and print meaningless numbers).
pub fn check_mode(
    mode: CsfMode,
    norm_view_dist: f64,
    ref_display_height: i32,
) -> Result<(), MetricsError> {
    let blend = matches!(mode, CsfMode::BartenWatsonBlend | CsfMode::BartenWatsonBlendMae);
    if blend && blend_tables(norm_view_dist, ref_display_height).is_none() {
        return Err(MetricsError::FeatureOption {
            feature: "adm".to_owned(),
            option: "adm_csf_mode".to_owned(),
            reason: format!(
                "the Barten/Watson blend (modes 2 and 3) exists only for 480, 720, 1080 and 2160 \
                 lines at 3 or 5 display heights (and 2160 at 1.5), not {ref_display_height} at \
                 {}",
                crate::features::format_g(norm_view_dist)
            ),
        });
    }
    Ok(())
}

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

/// The float CSF weights of `scale` for the h, v and d bands. Watson:
/// `1 / Q(scale, 1)` for h and v, `1 / Q(scale, 2)` for d (f32 division).
/// The blend modes need a tabulated geometry ([`check_mode`]); without one
/// they give libvmaf's −22.
pub fn rfactors(scale: usize, o: &AdmOptions) -> [f32; 3] {
    let (nvd, rdh) = (o.norm_view_dist, o.ref_display_height);
    let (f1, f2) = match o.csf_mode {
        CsfMode::Watson => (
            1.0f32 / dwt_quant_step(scale, 1, nvd, rdh),
            1.0f32 / dwt_quant_step(scale, 2, nvd, rdh),
        ),
        CsfMode::Barten => (
            barten_csf(scale, o.csf_scale, nvd, rdh),
            barten_csf(scale, o.csf_diag_scale, nvd, rdh),
        ),
        CsfMode::BartenWatsonBlend | CsfMode::BartenWatsonBlendMae => {
            let mae = usize::from(o.csf_mode == CsfMode::BartenWatsonBlendMae);
            blend_tables(nvd, rdh).map_or((-22.0, -22.0), |t| (t[mae][0][scale], t[mae][1][scale]))
        }
    };
    [f1, f1, f2]
}

/// C's `(uint16_t)` of a double as x86-64 GCC compiles it: a truncating
/// conversion to int32 (`cvttsd2si`, which gives `i32::MIN` out of range)
/// whose low 16 bits are kept. Only Barten weights leave the range.
fn c_u16(x: f64) -> u16 {
    let t = if (-2_147_483_648.0..2_147_483_648.0).contains(&x) { x as i32 } else { i32::MIN };
    t as u16
}

/// C's `(uint32_t)` of a double as x86-64 GCC compiles libvmaf's plain C:
/// truncation to int64 (`cvttsd2si`, `i64::MIN` out of range), low 32 bits.
///
/// Only Barten weights ≥ 1 (mode 1, levels 1–3) leave the range, and there
/// libvmaf's output depends on the CPU: its AVX-512 file converts with
/// `vcvttsd2usi` (saturating to `u32::MAX`) and its vector bodies multiply
/// the weight as a signed int32. This twin follows the plain C, which
/// libvmaf runs with `--cpumask 65535`; with weights below 1 every path
/// agrees.
fn c_u32(x: f64) -> u32 {
    let range = -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;
    let t = if range.contains(&x) { x as i64 } else { i64::MIN };
    t as u32
}

/// Level-0 fixed-point weights (Q21 for h/v, Q23 for d).
///
/// For Watson libvmaf **hard-codes** `{36453, 36453, 49417}` when
/// `|nvd·rdh − 3240| < 1e-8`; the formula would give 36451/49414 there.
/// Otherwise it truncates `rfactor · 2^21` (`2^23`) to `uint16_t`.
pub fn i_rfactor_s0(o: &AdmOptions) -> [u16; 3] {
    let default_geometry =
        (o.norm_view_dist * f64::from(o.ref_display_height) - 3.0 * 1080.0).abs() < 1.0e-8;
    if o.csf_mode == CsfMode::Watson && default_geometry {
        return [36453, 36453, 49417];
    }
    i_rfactor_s0_formula(o)
}

/// Level-0 weights from the formula, without the hard-coded default.
pub fn i_rfactor_s0_formula(o: &AdmOptions) -> [u16; 3] {
    let rf = rfactors(0, o);
    let p21 = 2.0f64.powf(21.0);
    let p23 = 2.0f64.powf(23.0);
    [c_u16(f64::from(rf[0]) * p21), c_u16(f64::from(rf[1]) * p21), c_u16(f64::from(rf[2]) * p23)]
}

/// Levels 1–3 fixed-point weights: `rfactor · 2^32` truncated to u32 (as
/// [`c_u32`] says).
pub fn i_rfactor_s123(scale: usize, o: &AdmOptions) -> [u32; 3] {
    let rf = rfactors(scale, o);
    let p32 = 2.0f64.powf(32.0);
    rf.map(|f| c_u32(f64::from(f) * p32))
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

    fn geometry(norm_view_dist: f64, ref_display_height: i32, mode: CsfMode) -> AdmOptions {
        AdmOptions { norm_view_dist, ref_display_height, csf_mode: mode, ..AdmOptions::default() }
    }

    #[test]
    fn default_scale0_weights_are_hard_coded() {
        let o = AdmOptions::default();
        assert_eq!(i_rfactor_s0(&o), [36453, 36453, 49417]);
        // libvmaf's own comment: the formula lands near, not on, these.
        assert_eq!(i_rfactor_s0_formula(&o), [36451, 36451, 49414]);
        // Another geometry uses the formula.
        let far = geometry(4.0, 1080, CsfMode::Watson);
        assert_eq!(i_rfactor_s0(&far), i_rfactor_s0_formula(&far));
        // So does every other mode at the default geometry.
        let blend = geometry(3.0, 1080, CsfMode::BartenWatsonBlend);
        assert_eq!(i_rfactor_s0(&blend), i_rfactor_s0_formula(&blend));
    }

    #[test]
    fn scale_weights_shrink_with_frequency() {
        // Coarser scales are lower spatial frequency: more visible, so the
        // CSF weight (1/Q) increases with the scale index.
        let o = AdmOptions::default();
        let w: Vec<[u32; 3]> = (1..=3).map(|s| i_rfactor_s123(s, &o)).collect();
        assert!(w[0][0] < w[1][0] && w[1][0] < w[2][0]);
        assert_eq!(w[0][0], w[0][1]);
    }

    #[test]
    fn blend_weights_come_from_libvmafs_tables() {
        // Mode 2 at 1080 lines, 3 H: h/v 0.01183 and d 0.004302 at level 0,
        // truncated in Q21 / Q23; level 3 0.058621 / 0.035901 in Q32.
        let o = geometry(3.0, 1080, CsfMode::BartenWatsonBlend);
        assert_eq!(rfactors(0, &o), [0.01183, 0.01183, 0.004302]);
        let q21 = (f64::from(0.01183f32) * 2_097_152.0) as u16;
        let q23 = (f64::from(0.004302f32) * 8_388_608.0) as u16;
        assert_eq!(i_rfactor_s0(&o), [q21, q21, q23]);
        assert_eq!(q21, 24809);
        let q32 = |x: f32| (f64::from(x) * 4_294_967_296.0) as u32;
        assert_eq!(i_rfactor_s123(3, &o), [q32(0.058621), q32(0.058621), q32(0.035901)]);
        // 2160 lines at 1.5 H reuse 1080 at 3 H; mode 3 has its own table.
        assert_eq!(rfactors(2, &geometry(1.5, 2160, CsfMode::BartenWatsonBlend)), rfactors(2, &o));
        let mae = geometry(3.0, 1080, CsfMode::BartenWatsonBlendMae);
        assert_eq!(rfactors(1, &mae), [0.022606, 0.022606, 0.010921]);
        assert_eq!(rfactors(0, &geometry(5.0, 2160, CsfMode::BartenWatsonBlend))[2], 0.000050);
    }

    #[test]
    fn blend_modes_need_a_tabulated_geometry() {
        for mode in [CsfMode::BartenWatsonBlend, CsfMode::BartenWatsonBlendMae] {
            assert!(check_mode(mode, 3.0, 1080).is_ok());
            assert!(check_mode(mode, 1.5, 2160).is_ok());
            assert!(check_mode(mode, 4.0, 1080).is_err());
            assert!(check_mode(mode, 3.0, 1440).is_err());
        }
        assert!(check_mode(CsfMode::Watson, 4.0, 1440).is_ok());
        assert!(check_mode(CsfMode::Barten, 4.0, 1440).is_ok());
    }

    #[test]
    fn barten_weights_wrap_like_x86_casts() {
        // Barten's level-0 weight at 1080 lines, 3 H is 0x3f9af18d (float
        // ADM's test checks these bits against libvmaf): ×2^21 it leaves
        // uint16 and libvmaf keeps the low 16 bits of the int32 truncation.
        let o = geometry(3.0, 1080, CsfMode::Barten);
        let rf = rfactors(0, &o);
        assert_eq!(rf[0].to_bits(), 0x3f9a_f18d);
        let wide = (f64::from(rf[0]) * 2_097_152.0) as i64;
        assert!(wide > 65535);
        assert_eq!(i_rfactor_s0(&o)[0], wide as u16);
        // Levels 1–3: ×2^32 exceeds uint32; the int64 truncation's low bits
        // (libvmaf's plain C).
        let rf1 = rfactors(1, &o)[0];
        let wide = (f64::from(rf1) * 4_294_967_296.0) as i64;
        assert!(wide > i64::from(u32::MAX));
        assert_eq!(i_rfactor_s123(1, &o)[0], wide as u32);
        // The scales multiply the weights.
        let scaled = AdmOptions { csf_scale: 2.0, csf_diag_scale: 0.5, ..o };
        let s = rfactors(2, &scaled);
        let r = rfactors(2, &o);
        assert_eq!((s[0], s[2]), ((f64::from(r[0]) * 2.0) as f32, (f64::from(r[2]) * 0.5) as f32));
        // Out of every range: the conversions' "integer indefinite" values.
        assert_eq!(c_u16(1e10), 0);
        assert_eq!(c_u16(-1.5), 65535);
        assert_eq!(c_u32(1e30), 0);
        assert_eq!(c_u32(-1.0), u32::MAX);
        assert_eq!(c_u32(4_294_967_296.5), 0);
        assert_eq!(c_u32(12.7), 12);
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
