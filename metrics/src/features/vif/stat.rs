//! One scale's VIF statistics: local means, variances and covariance from the
//! separable filter, then each pixel's information terms, summed into four
//! `i64` accumulators ([`VifScaleSums`]) — libvmaf's `vif_statistic_8/16`.
//!
//! This is the stage the GPU kernel mirrors: every pixel's contribution is an
//! integer, so per-workgroup partial sums reduce in any order to the same
//! totals.

use super::filter::{mirror, mu_shift, pad_row, rounding, sq_shift};
use super::log2::Log2Table;
use crate::plane::PlaneView;

/// libvmaf's noise variance σₙ² = 2 in 16-bit fixed point (2·65536): pixels
/// whose reference variance is below it count as "flat".
pub const SIGMA_NSQ: i32 = 65536 << 1;

/// The ε libvmaf adds to σ₁² before dividing, in double: `65536 · 1e-10`
/// (a product of two doubles, rounded once, like C's constant folding).
pub const G_EPS: f64 = 65536.0 * 1.0e-10;

/// The integer sums of one scale, exactly libvmaf's four accumulators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct VifScaleSums {
    /// Σ over textured pixels of `log2(sv² + σₙ² + g²σ₁²) − log2(sv² + σₙ²)`,
    /// in units of 1/2048.
    pub num_log: i64,
    /// Σ over textured pixels of `log2(σ₁² + σₙ²) − 17`, in units of 1/2048.
    pub den_log: i64,
    /// Σ over flat pixels of `max(σ₂², 0)`.
    pub num_non_log: i64,
    /// Number of flat pixels (σ₁² < σₙ²).
    pub den_non_log: i64,
}

impl VifScaleSums {
    /// Adds another partial sum (a row, a tile, a workgroup).
    pub fn add(&mut self, o: &VifScaleSums) {
        self.num_log += o.num_log;
        self.den_log += o.den_log;
        self.num_non_log += o.num_non_log;
        self.den_non_log += o.den_non_log;
    }
}

/// The filtered moments at one pixel, as libvmaf holds them just before the
/// per-pixel terms: `mu1`, `mu2` are unshifted 32-bit filter sums (16-bit
/// range · 2^16), `xx`, `yy`, `xy` the filtered squares already shifted to
/// 16-bit range squared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moments {
    pub mu1: u32,
    pub mu2: u32,
    pub xx: u32,
    pub yy: u32,
    pub xy: u32,
}

/// σ₁², σ₂², σ₁₂ from the moments: `µ·µ` is rounded down to 32 bits
/// (`(µ·µ + 2^31) >> 32`), and each σ is the `u32` difference reinterpreted
/// as `i32` — a wrapping cast libvmaf relies on (rounding can make a
/// variance slightly negative).
#[inline]
pub fn sigmas(m: Moments) -> (i32, i32, i32) {
    #[inline]
    fn prod(a: u32, b: u32) -> u32 {
        ((u64::from(a) * u64::from(b)).wrapping_add(1 << 31) >> 32) as u32
    }
    let s1 = m.xx.wrapping_sub(prod(m.mu1, m.mu1)) as i32;
    let s2 = m.yy.wrapping_sub(prod(m.mu2, m.mu2)) as i32;
    let s12 = m.xy.wrapping_sub(prod(m.mu1, m.mu2)) as i32;
    (s1, s2, s12)
}

/// The two arguments of a textured pixel's numerator logs, `(numer1,
/// numer1 + g²σ₁²)`: the log-ratio term is `log2(second) − log2(first)`.
/// Only meaningful for σ₁² ≥ σₙ², σ₁₂ > 0, σ₂² > 0.
///
/// This is the one place libvmaf leaves integers, and it goes through double
/// precision in exactly libvmaf's operation order, without fused
/// multiply-add (Rust never contracts on its own; a GPU kernel must mark
/// these `precise`): `g = σ₁₂ / (σ₁² + ε)`; `sv² = (i32)(σ₂² − g·σ₁₂)`
/// (truncation; a value below `i32::MIN` saturates in Rust and gives x86's
/// `0x80000000` in C, both then clamped to 0); `sv² = max(sv², 0)`;
/// **then** `g = min(g, egl)`; `numer1 = sv² + σₙ²` (`u32`);
/// `numer1_tmp = (i64)((g·g)·σ₁²) + numer1`.
#[inline]
pub fn gain_terms(sigma1_sq: i32, sigma2_sq: i32, sigma12: i32, egl: f64) -> (u32, i64) {
    let g = f64::from(sigma12) / (f64::from(sigma1_sq) + G_EPS);
    let sv_sq = (f64::from(sigma2_sq) - g * f64::from(sigma12)) as i32;
    let sv_sq = sv_sq.max(0);
    let g = if g < egl { g } else { egl };
    let numer1 = (sv_sq as u32).wrapping_add(SIGMA_NSQ as u32);
    let numer1_tmp = ((g * g * f64::from(sigma1_sq)) as i64) + i64::from(numer1);
    (numer1, numer1_tmp)
}

/// Adds one pixel's terms to `sums`, given its σ values (σ₂² before its
/// clamp at 0) and the enhancement gain limit `egl`.
///
/// Flat pixels (σ₁² < σₙ²) add σ₂² and a count. Textured pixels add
/// `log2(σₙ² + σ₁²) − 17` to the denominator and, when σ₁₂ > 0 and σ₂² > 0,
/// `log2(numer1_tmp) − log2(numer1)` ([`gain_terms`]) to the numerator, all
/// in 1/2048 units through the fixed-point log2.
#[inline]
pub fn accumulate_pixel(
    sums: &mut VifScaleSums,
    sigma1_sq: i32,
    sigma2_sq: i32,
    sigma12: i32,
    egl: f64,
    log2: &Log2Table,
) {
    let sigma2_sq = sigma2_sq.max(0);
    if sigma1_sq >= SIGMA_NSQ {
        // σ₁² < 2^31 − 2^17 for any 16-bit-range data, so this i32 sum (a
        // plain int addition in C) cannot overflow; wrap like the hardware.
        let d = (SIGMA_NSQ.wrapping_add(sigma1_sq)) as u32;
        sums.den_log += i64::from(log2.log2_32(d) - 2048 * 17);
        if sigma12 > 0 && sigma2_sq > 0 {
            let (numer1, numer1_tmp) = gain_terms(sigma1_sq, sigma2_sq, sigma12, egl);
            sums.num_log +=
                i64::from(log2.log2_64(numer1_tmp as u64) - log2.log2_64(u64::from(numer1)));
        }
    } else {
        sums.num_non_log += i64::from(sigma2_sq);
        sums.den_non_log += 1;
    }
}

/// Row buffers for [`scale_sums`], reused across rows (and across scales
/// when the caller keeps them).
#[derive(Debug, Default)]
pub struct RowScratch {
    v_mu1: Vec<u32>,
    v_mu2: Vec<u32>,
    v_xx: Vec<u64>,
    v_yy: Vec<u64>,
    v_xy: Vec<u64>,
    t_mu1: Vec<u32>,
    t_mu2: Vec<u32>,
    t_xx: Vec<u32>,
    t_yy: Vec<u32>,
    t_xy: Vec<u32>,
    h_mu1: Vec<u32>,
    h_mu2: Vec<u32>,
    h_xx: Vec<u64>,
    h_yy: Vec<u64>,
    h_xy: Vec<u64>,
}

fn reset<T: Copy + Default>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}

/// The vertical pass for row `i`: writes the rounded vertical sums of `µ`
/// and of the three products into the padded row buffers `t_*` (entries
/// `half..half+w`), then mirrors their padding.
///
/// `µ`: `u32` sum of `c·x`, `(+2^(s−1)) >> s` with `s = bpc`, stored as
/// `u16` (libvmaf's cast; it only bites on samples beyond `bpc` bits).
/// Squares: `u64` sum of `(c·x)·x` (the `c·x` product is a `u32`, as in C),
/// `>> 2·(bpc−8)` with rounding, stored as `u32`. At 8 bits libvmaf keeps
/// these sums in `u32`; they cannot exceed 65536·255² < 2^32 there, so the
/// wider sum gives the same integers.
fn vertical_row(r: &PlaneView, d: &PlaneView, i: usize, filter: &[u16], s: &mut RowScratch) {
    let w = r.width;
    let half = filter.len() / 2;
    for v in [&mut s.v_mu1, &mut s.v_mu2] {
        reset(v, w);
    }
    for v in [&mut s.v_xx, &mut s.v_yy, &mut s.v_xy] {
        reset(v, w);
    }
    for (fi, &c) in filter.iter().enumerate() {
        let y = mirror(i as isize + fi as isize - half as isize, r.height);
        let (rr, dr) = (r.row(y), d.row(y));
        let c = u32::from(c);
        for j in 0..w {
            let (x, y) = (u32::from(rr[j]), u32::from(dr[j]));
            let (cx, cy) = (c * x, c * y);
            s.v_mu1[j] = s.v_mu1[j].wrapping_add(cx);
            s.v_mu2[j] = s.v_mu2[j].wrapping_add(cy);
            s.v_xx[j] = s.v_xx[j].wrapping_add(u64::from(cx) * u64::from(x));
            s.v_yy[j] = s.v_yy[j].wrapping_add(u64::from(cy) * u64::from(y));
            s.v_xy[j] = s.v_xy[j].wrapping_add(u64::from(cx) * u64::from(y));
        }
    }
    let (mr, ms) = rounding(mu_shift(r.bpc));
    let mr = mr as u32;
    let (qr, qs) = rounding(sq_shift(r.bpc));
    for t in [&mut s.t_mu1, &mut s.t_mu2, &mut s.t_xx, &mut s.t_yy, &mut s.t_xy] {
        reset(t, w + 2 * half);
    }
    for j in 0..w {
        s.t_mu1[half + j] = u32::from((s.v_mu1[j].wrapping_add(mr) >> ms) as u16);
        s.t_mu2[half + j] = u32::from((s.v_mu2[j].wrapping_add(mr) >> ms) as u16);
        s.t_xx[half + j] = (s.v_xx[j].wrapping_add(qr) >> qs) as u32;
        s.t_yy[half + j] = (s.v_yy[j].wrapping_add(qr) >> qs) as u32;
        s.t_xy[half + j] = (s.v_xy[j].wrapping_add(qr) >> qs) as u32;
    }
    for t in [&mut s.t_mu1, &mut s.t_mu2, &mut s.t_xx, &mut s.t_yy, &mut s.t_xy] {
        pad_row(t, w, half);
    }
}

/// The horizontal pass over the padded row buffers: `µ` stays an unshifted
/// `u32` sum; the squares are `u64` sums, `(+32768) >> 16`, stored as `u32`.
fn horizontal_row(w: usize, filter: &[u16], s: &mut RowScratch) {
    for v in [&mut s.h_mu1, &mut s.h_mu2] {
        reset(v, w);
    }
    for v in [&mut s.h_xx, &mut s.h_yy, &mut s.h_xy] {
        reset(v, w);
    }
    for (fj, &c) in filter.iter().enumerate() {
        let c32 = u32::from(c);
        let c64 = u64::from(c);
        for j in 0..w {
            let k = j + fj;
            s.h_mu1[j] = s.h_mu1[j].wrapping_add(c32 * s.t_mu1[k]);
            s.h_mu2[j] = s.h_mu2[j].wrapping_add(c32 * s.t_mu2[k]);
            s.h_xx[j] = s.h_xx[j].wrapping_add(c64 * u64::from(s.t_xx[k]));
            s.h_yy[j] = s.h_yy[j].wrapping_add(c64 * u64::from(s.t_yy[k]));
            s.h_xy[j] = s.h_xy[j].wrapping_add(c64 * u64::from(s.t_xy[k]));
        }
    }
}

/// The filtered moments of row `i` at every column, for inspection and for
/// checking a GPU kernel stage by stage.
pub fn row_moments(
    r: &PlaneView,
    d: &PlaneView,
    i: usize,
    filter: &[u16],
    s: &mut RowScratch,
) -> Vec<Moments> {
    vertical_row(r, d, i, filter, s);
    horizontal_row(r.width, filter, s);
    (0..r.width).map(|j| moments_at(s, j)).collect()
}

#[inline]
fn moments_at(s: &RowScratch, j: usize) -> Moments {
    #[inline]
    fn hp(a: u64) -> u32 {
        (a.wrapping_add(32768) >> 16) as u32
    }
    Moments {
        mu1: s.h_mu1[j],
        mu2: s.h_mu2[j],
        xx: hp(s.h_xx[j]),
        yy: hp(s.h_yy[j]),
        xy: hp(s.h_xy[j]),
    }
}

/// VIF's four sums for one scale of a reference/distorted plane pair, with
/// the scale's `filter` (`FILTERS[k]`). The planes' `bpc` picks the vertical
/// rounding (input depth at scale 0, [`super::filter::DECIMATED_BPC`] after).
/// Every pixel counts; no border is excluded. The planes must be at least
/// `filter.len()/2 + 1` in each direction (checked by the caller).
pub fn scale_sums(
    r: &PlaneView,
    d: &PlaneView,
    filter: &[u16],
    egl: f64,
    log2: &Log2Table,
    scratch: &mut RowScratch,
) -> VifScaleSums {
    debug_assert_eq!((r.width, r.height, r.bpc), (d.width, d.height, d.bpc));
    let mut sums = VifScaleSums::default();
    for i in 0..r.height {
        vertical_row(r, d, i, filter, scratch);
        horizontal_row(r.width, filter, scratch);
        for j in 0..r.width {
            let (s1, s2, s12) = sigmas(moments_at(scratch, j));
            accumulate_pixel(&mut sums, s1, s2, s12, egl, log2);
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::super::filter::FILTERS;
    use super::super::log2::log2_table;
    use super::*;

    #[test]
    fn eps_value() {
        assert_eq!(G_EPS, 6.5536e-6);
    }

    /// Flat pixels: σ₂² (clamped at 0) is summed and the pixel counted.
    #[test]
    fn flat_pixel() {
        let t = log2_table();
        let mut s = VifScaleSums::default();
        accumulate_pixel(&mut s, SIGMA_NSQ - 1, 500, 7, 100.0, t);
        accumulate_pixel(&mut s, -3, -9, 7, 100.0, t);
        assert_eq!(s, VifScaleSums { num_log: 0, den_log: 0, num_non_log: 500, den_non_log: 2 });
    }

    /// Textured pixel with σ₁₂ ≤ 0: only the denominator term.
    /// σ₁² = 2^18 − 2^17: log2(2^18) − 17 = 1 → 2048.
    #[test]
    fn textured_pixel_den_only() {
        let t = log2_table();
        let mut s = VifScaleSums::default();
        accumulate_pixel(&mut s, SIGMA_NSQ, 1000, 0, 100.0, t);
        assert_eq!(s, VifScaleSums { num_log: 0, den_log: 2048, num_non_log: 0, den_non_log: 0 });
    }

    /// Identical planes: σ₁ = σ₂ = σ₁₂ = v, g = v/(v+ε) just below 1,
    /// sv² = (i32)(v − g·v) = 0 (the difference is ~1e-6·... < 1), and
    /// numer = (i64)(g²·v) + 2^17 = v − 1 + 2^17 (g² < 1 truncates down).
    #[test]
    fn textured_pixel_identical() {
        let t = log2_table();
        let v = 3 << 20; // 3·2^20
        let mut s = VifScaleSums::default();
        accumulate_pixel(&mut s, v, v, v, 100.0, t);
        let g = f64::from(v) / (f64::from(v) + G_EPS);
        assert!(g < 1.0);
        let numer = (v as u64 - 1) + (1 << 17);
        let want_num = t.log2_64(numer) - t.log2_64(1 << 17);
        let want_den = t.log2_32(v as u32 + (1 << 17)) - 17 * 2048;
        assert_eq!(s.num_log, i64::from(want_num));
        assert_eq!(s.den_log, i64::from(want_den));
    }

    /// The gain limit applies after sv² is computed from the unclamped g.
    #[test]
    fn gain_limit_order() {
        let t = log2_table();
        // σ₁₂ = 2σ₁²: g ≈ 2. σ₂² = 8σ₁²: sv² = 8σ₁² − 2·2σ₁² = 4σ₁².
        let s1 = 1 << 18;
        let (mut a, mut b) = (VifScaleSums::default(), VifScaleSums::default());
        accumulate_pixel(&mut a, s1, 8 * s1, 2 * s1, 100.0, t);
        accumulate_pixel(&mut b, s1, 8 * s1, 2 * s1, 1.0, t);
        // g slightly below 2, so (2·s1 − g·2·s1) truncates to 4·s1 (no
        // fractional part survives a subtraction that exact? check both ways)
        let g = f64::from(2 * s1) / (f64::from(s1) + G_EPS);
        let sv = (f64::from(8 * s1) - g * f64::from(2 * s1)) as i64;
        let n1 = sv as u64 + (1 << 17);
        let want_a = t.log2_64(((g * g * f64::from(s1)) as u64) + n1) - t.log2_64(n1);
        let want_b = t.log2_64(s1 as u64 + n1) - t.log2_64(n1);
        assert_eq!(a.num_log, i64::from(want_a));
        assert_eq!(b.num_log, i64::from(want_b));
        assert!(a.num_log > b.num_log);
    }

    /// Inputs where a fused multiply-add (σ₂² − g·σ₁₂ in one rounding)
    /// truncates sv² to 0 instead of 1, and where `g·(g·σ₁²)` truncates
    /// differently from libvmaf's `(g·g)·σ₁²`. Expected values computed
    /// independently in Python (IEEE doubles, no contraction) from the C
    /// expressions.
    #[test]
    fn gain_terms_exact_order() {
        // FMA-sensitive: libvmaf's sv² = 1.
        assert_eq!(gain_terms(13799247, 2044752887, 167976338, 100.0), (131073, 2044883958));
        assert_eq!(gain_terms(13799247, 2044752887, 167976338, 1.0), (131073, 13930320));
        // Order-sensitive (g ≈ 4.88): (g·g)·σ₁² truncates to 328434530.
        assert_eq!(gain_terms(13788224, 1 << 30, 67294345, 100.0), (745438365, 1073872895));
        assert_eq!(gain_terms(13788224, 1 << 30, 67294345, 1.0), (745438365, 759226589));
        // sv² negative → 0; g ≈ 25.36.
        assert_eq!(gain_terms(2807020, 1 << 30, 71188038, 100.0), (131072, 1805510710));
        assert_eq!(gain_terms(2807020, 1 << 30, 71188038, 1.0), (131072, 2938092));
    }

    /// σ from wrapping u32 differences: xx below µ² gives a small negative σ.
    #[test]
    fn sigma_wrap() {
        // µ = 2^16·3 → µ² >> 32 = 9 (rounded); xx = 5 → σ₁² = −4.
        let m = Moments { mu1: 3 << 16, mu2: 0, xx: 5, yy: 0, xy: 0 };
        assert_eq!(sigmas(m), (-4, 0, 0));
    }

    /// A constant frame: every σ is 0, every pixel is flat, so the sums are
    /// (0, 0, 0, w·h) at every depth and scale filter.
    #[test]
    fn constant_frame() {
        let t = log2_table();
        let mut scratch = RowScratch::default();
        for (bpc, v) in [(8u32, 128u16), (10, 513), (12, 4095), (16, 60000)] {
            let s = vec![v; 23 * 19];
            let p = PlaneView::packed(23, 19, bpc, &s);
            for f in FILTERS {
                let sums = scale_sums(&p, &p, f, 100.0, t, &mut scratch);
                assert_eq!(
                    sums,
                    VifScaleSums { num_log: 0, den_log: 0, num_non_log: 0, den_non_log: 23 * 19 },
                    "bpc {bpc}"
                );
            }
        }
    }

    /// The moments of a constant plane are exact: µ = v·2^(16−bpc)·2^16 and
    /// xx = (v·2^(16−bpc))².
    #[test]
    fn constant_moments() {
        let mut scratch = RowScratch::default();
        for (bpc, v) in [(8u32, 201u16), (10, 1000), (12, 3000)] {
            let s = vec![v; 20 * 20];
            let p = PlaneView::packed(20, 20, bpc, &s);
            let m = row_moments(&p, &p, 0, FILTERS[0], &mut scratch);
            let v16 = u32::from(v) << (16 - bpc);
            for x in m {
                assert_eq!(x.mu1, v16 << 16);
                assert_eq!(x.xx, v16 * v16);
                assert_eq!(x.xy, v16 * v16);
            }
        }
    }
}
