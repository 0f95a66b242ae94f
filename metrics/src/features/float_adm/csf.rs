//! The contrast sensitivity weights of float ADM: one factor for the
//! horizontal and vertical bands and one for the diagonal band, per level.
//!
//! libvmaf computes them per call from the viewing geometry in a mixture of
//! float and double (each intermediate below has the type libvmaf gives
//! it); a factor set by `adm_f1sN` / `adm_f2sN` (≥ 0) replaces the computed
//! one. The modes: 1 is Barten's CSF (HDR-VDP-2's simplification), 2 the
//! DLM paper's CSF; 0 and every other mode are Watson's 1997 wavelet
//! quantisation thresholds.

use std::f64::consts::PI;

use super::FloatAdmOptions;

/// The display resolution in pixels per degree, rounded to float:
/// `nvd · rdh · π / 180` in double.
fn pixels_per_degree(norm_view_dist: f64, ref_display_height: i32) -> f32 {
    (norm_view_dist * f64::from(ref_display_height) * PI / 180.0) as f32
}

/// Nominal spatial frequency of a level: half the display resolution at
/// level 0, halving per level.
fn level_frequency(scale: usize, norm_view_dist: f64, ref_display_height: i32) -> f32 {
    (f64::from(pixels_per_degree(norm_view_dist, ref_display_height))
        / 2f64.powf((scale + 1) as f64)) as f32
}

/// Watson's luma noise model (a, k, f0, g per orientation), as floats.
const WATSON_A: f64 = 0.495;
const WATSON_K: f64 = 0.466;
const WATSON_F0: f64 = 0.401;
const WATSON_G: [f64; 4] = [1.501, 1.0, 0.534, 1.0];

/// Basis function amplitudes of the 7-9 wavelet per level and orientation.
const AMPLITUDES: [[f64; 4]; 4] = [
    [0.62171, 0.67234, 0.72709, 0.67234],
    [0.34537, 0.41317, 0.49428, 0.41317],
    [0.18004, 0.22727, 0.28688, 0.22727],
    [0.091401, 0.11792, 0.15214, 0.11792],
];

/// `x` as the float constant C makes of a double literal.
fn f(x: f64) -> f64 {
    f64::from(x as f32)
}

/// Watson's quantisation step of a level and orientation (1: h/v, 2: d),
/// whose inverse is the factor.
fn watson_step(scale: usize, theta: usize, o: &FloatAdmOptions) -> f32 {
    let r = f64::from(pixels_per_degree(o.norm_view_dist, o.ref_display_height));
    let temp =
        (2f64.powf((scale + 1) as f64) * f(WATSON_F0) * f(WATSON_G[theta]) / r).log10() as f32;
    // k·temp² is a float product; the rest is double.
    let exponent = f64::from(WATSON_K as f32 * temp * temp);
    (2.0 * f(WATSON_A) * 10f64.powf(exponent) / f(AMPLITUDES[scale][theta])) as f32
}

/// The DLM paper's CSF; `diagonal` applies the oblique effect.
fn dlm_csf(scale: usize, diagonal: bool, o: &FloatAdmOptions) -> f32 {
    let mut sf = level_frequency(scale, o.norm_view_dist, o.ref_display_height);
    if diagonal {
        sf = (f64::from(sf) / 0.7) as f32;
    }
    let sf = f64::from(sf);
    ((0.31 + 0.69 * sf) * (-0.29 * sf).exp()) as f32
}

/// Luminances (cd/m²) of Barten's parameter sets, and the sets
/// (p0…p4; p0 is unused by the CSF).
const BARTEN_ANCHORS: [f64; 6] = [0.002, 0.02, 0.2, 2.0, 20.0, 150.0];
const BARTEN_PARAMS: [[f64; 5]; 6] = [
    [0.0160737, 0.991265, 3.74038, 0.50722, 4.46044],
    [0.383873, 0.800889, 3.54104, 0.682505, 4.94958],
    [0.929301, 0.476505, 4.37453, 0.750315, 5.28678],
    [1.29776, 0.405782, 4.40602, 0.935314, 5.61425],
    [1.49222, 0.334278, 3.79542, 1.07327, 6.4635],
    [1.46213, 0.394533, 2.7755, 1.16577, 7.45665],
];
const BARTEN_SA: [f64; 4] = [30.162, 4.0627, 1.6596, 0.2712];
const BARTEN_MTF_A: [f64; 4] =
    [0.424838596301290, 0.572435103936480, 0.000167576239164937, 0.00255872352306433];
const BARTEN_MTF_B: [f64; 4] = [0.028, 0.37, 37.0, 360.0];

/// The luminance libvmaf's float ADM evaluates Barten's CSF at (cd/m²).
pub const LUMINANCE_LEVEL: f64 = 100.0;

fn lerp(l_pos: f32, l_val: f32, r_pos: f32, r_val: f32, at: f32) -> f32 {
    l_val + ((r_val - l_val) / (r_pos - l_pos)) * (at - l_pos)
}

fn barten_rod_cone(lum: f32) -> f32 {
    let s = |i: usize| BARTEN_SA[i] as f32;
    let drop = f64::from(s(1) / lum);
    (f64::from(s(0)) * (drop.powf(f64::from(s(2))) + 1.0).powf(f64::from(-s(3)))) as f32
}

fn barten_mtf(sf: f32) -> f32 {
    let mut mtf = 0.0f32;
    for i in 0..4 {
        let e = f64::from(-(BARTEN_MTF_B[i] as f32) * sf).exp();
        mtf = (f64::from(mtf) + f64::from(BARTEN_MTF_A[i] as f32) * e) as f32;
    }
    mtf
}

/// Barten's CSF at a level for a viewing geometry, times `csf_scale`:
/// libvmaf's `barten_csf`, which its integer ADM uses too (`adm_csf_mode`
/// 1 there).
pub fn barten_csf(
    scale: usize,
    csf_scale: f64,
    norm_view_dist: f64,
    ref_display_height: i32,
) -> f32 {
    let sf = level_frequency(scale, norm_view_dist, ref_display_height);
    let lum = LUMINANCE_LEVEL.clamp(f(BARTEN_ANCHORS[0]), f(BARTEN_ANCHORS[5]));
    let (mut lo, mut hi) = (0, 0);
    for i in 0..5 {
        if lum >= f(BARTEN_ANCHORS[i]) && lum <= f(BARTEN_ANCHORS[i + 1]) {
            (lo, hi) = (i, i + 1);
            break;
        }
    }
    let l_pos = f(BARTEN_ANCHORS[lo]).log10() as f32;
    let r_pos = f(BARTEN_ANCHORS[hi]).log10() as f32;
    let at = lum.log10() as f32;
    let p =
        |k: usize| lerp(l_pos, BARTEN_PARAMS[lo][k] as f32, r_pos, BARTEN_PARAMS[hi][k] as f32, at);
    let (p0, p1, p2, p3) = (p(1), p(2), p(3), p(4));
    let a = (1.0 + f64::from(p0 * sf).powf(f64::from(p1))) as f32;
    let decay = 1.0 - (-f64::from(sf / 7.0).powf(2.0)).exp();
    let b = (1.0 / decay.powf(f64::from(p2))) as f32;
    let csf = (f64::from(p3) / f64::from(a * b).powf(0.5)) as f32;
    (f64::from(csf * barten_mtf(sf) * barten_rod_cone(LUMINANCE_LEVEL as f32)) * csf_scale) as f32
}

/// The CSF factors of level `scale` for libvmaf's orientations h, v, d.
pub fn rfactors(scale: usize, o: &FloatAdmOptions) -> [f32; 3] {
    let (mut f1, mut f2) = match o.csf_mode {
        1 => {
            let barten =
                |csf_scale| barten_csf(scale, csf_scale, o.norm_view_dist, o.ref_display_height);
            (barten(o.csf_scale), barten(o.csf_diag_scale))
        }
        2 => (dlm_csf(scale, false, o), dlm_csf(scale, true, o)),
        _ => (1.0 / watson_step(scale, 1, o), 1.0 / watson_step(scale, 2, o)),
    };
    if o.f1[scale] >= 0.0 {
        f1 = o.f1[scale] as f32;
    }
    if o.f2[scale] >= 0.0 {
        f2 = o.f2[scale] as f32;
    }
    [f1, f1, f2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_equal_libvmafs_bits() {
        // (h/v factor, d factor) per level as libvmaf 3.2.0's own
        // adm_tools.c computes them at 1080p, 3H (printed with %a from a
        // build of it), for Watson (0), Barten (1) and the DLM CSF (2).
        // Taking Watson's k·temp² in double instead of float misses level
        // 0 by 1 and 3 ulps.
        let want: [(i64, [[u32; 2]; 4]); 3] = [
            (
                0,
                [
                    [0x3c8e63ba, 0x3bc106aa],
                    [0x3d030286, 0x3c6a46a3],
                    [0x3d31a788, 0x3cc7dc06],
                    [0x3d3b140b, 0x3d0041c9],
                ],
            ),
            (
                1,
                [
                    [0x3f9af18d, 0x3f9af18d],
                    [0x40a159e3, 0x40a159e3],
                    [0x416a0875, 0x416a0875],
                    [0x41d7ce9b, 0x41d7ce9b],
                ],
            ),
            (
                2,
                [
                    [0x3bb2731d, 0x3971c0da],
                    [0x3e2ad6cf, 0x3d26e4ec],
                    [0x3f2af91a, 0x3ec747cb],
                    [0x3f7c7bd6, 0x3f609aa9],
                ],
            ),
        ];
        for (mode, levels) in want {
            let o = FloatAdmOptions { csf_mode: mode, ..FloatAdmOptions::default() };
            for (s, pair) in levels.iter().enumerate() {
                let rf = rfactors(s, &o);
                assert_eq!(rf[0], rf[1]);
                assert_eq!([rf[0].to_bits(), rf[2].to_bits()], *pair, "mode {mode} level {s}");
            }
        }
    }

    #[test]
    fn overrides_and_modes() {
        let o = FloatAdmOptions { f1: [0.5, -1.0, -1.0, -1.0], ..FloatAdmOptions::default() };
        assert_eq!(rfactors(0, &o)[0], 0.5);
        for mode in [1, 2] {
            let o = FloatAdmOptions { csf_mode: mode, ..FloatAdmOptions::default() };
            for s in 0..4 {
                let rf = rfactors(s, &o);
                assert!(rf.iter().all(|x| x.is_finite() && *x > 0.0), "{mode} {s}: {rf:?}");
            }
        }
    }
}
