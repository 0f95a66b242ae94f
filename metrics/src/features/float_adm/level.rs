//! One level of float ADM after the wavelet transform: decoupling, CSF
//! weighting, contrast masking and the float sums libvmaf takes of them.
//!
//! Every sum here is libvmaf's float accumulation: a float running sum
//! along each row of the scored region (left to right), and a float running
//! sum of the row totals (top to bottom). [`row_sums`] keeps the row totals
//! apart, which is what the GPU kernels reproduce one row per invocation.

use super::rcp;
use crate::features::adm::{Band, DwtBands, Region};

/// libvmaf's `1/30` and `1/15`: *double* literals (`0.0333333351`,
/// `0.0666666701`), so the products they enter are taken in double.
pub const ONE_BY_30: f64 = 0.0333333351;
pub const ONE_BY_15: f64 = 0.0666666701;

/// cos²(1°) as libvmaf rounds it to float.
pub fn cos_1deg_sq() -> f32 {
    let c = (1.0f64 * std::f64::consts::PI / 180.0).cos();
    (c * c) as f32
}

/// The `1e-30` libvmaf adds to a reference coefficient before dividing.
pub const EPS: f32 = 1e-30_f64 as f32;

/// Splits one distorted detail triple `t` (h, v, d) against its reference
/// `o` into the restored part and the additive impairment `t − restored`.
///
/// The restored part is `clamp(t/o, 0, 1)·o`; where the (h, v) angles of
/// `o` and `t` differ by under 1° it becomes `t` itself, limited to
/// `egl`·(that part) — the comparison and the limit in double, as libvmaf's
/// `MIN`/`MAX` of a float and a double are.
#[inline]
pub fn decouple(o: [f32; 3], t: [f32; 3], egl: f64, cos1: f32) -> ([f32; 3], [f32; 3]) {
    let mut rst = [0.0f32; 3];
    for k in 0..3 {
        let q = rcp::divide(t[k], o[k] + EPS);
        // NaN stays NaN, as through libvmaf's two comparisons.
        rst[k] = q.clamp(0.0, 1.0) * o[k];
    }
    let ot_dp = o[0] * t[0] + o[1] * t[1];
    let o_mag_sq = o[0] * o[0] + o[1] * o[1];
    let t_mag_sq = t[0] * t[0] + t[1] * t[1];
    let angle_flag = ot_dp >= 0.0 && ot_dp * ot_dp >= cos1 * o_mag_sq * t_mag_sq;
    if angle_flag {
        for k in 0..3 {
            let tk = f64::from(t[k]);
            if rst[k] > 0.0 {
                let g = f64::from(rst[k]) * egl;
                rst[k] = (if g < tk { g } else { tk }) as f32;
            }
            if rst[k] < 0.0 {
                let g = f64::from(rst[k]) * egl;
                rst[k] = (if g > tk { g } else { tk }) as f32;
            }
        }
    }
    (rst, [t[0] - rst[0], t[1] - rst[1], t[2] - rst[2]])
}

/// CSF of one coefficient: the weighted value and its masking share
/// `|weighted|/30` (in double, rounded to float).
#[inline]
pub fn csf(x: f32, rf: f32) -> (f32, f32) {
    let dst = rf * x;
    (dst, (ONE_BY_30 * f64::from(dst.abs())) as f32)
}

/// A detail triple's restored and additive parts over the widened region
/// (zero elsewhere, never read).
pub struct Decoupled {
    pub r: [Band<f32>; 3],
    pub a: [Band<f32>; 3],
}

/// Decouples a level's distorted bands against the reference's.
pub fn decouple_level(r: &DwtBands<f32>, d: &DwtBands<f32>, egl: f64) -> Decoupled {
    let (w, h) = (r.a.width, r.a.height);
    let mut out = Decoupled {
        r: std::array::from_fn(|_| Band::zeros(w, h)),
        a: std::array::from_fn(|_| Band::zeros(w, h)),
    };
    let cos1 = cos_1deg_sq();
    let region = Region::widened(w, h);
    for i in region.top..region.bottom {
        for j in region.left..region.right {
            let at = i * w + j;
            let (rr, aa) = decouple(
                r.hvd.each_ref().map(|b| b.data[at]),
                d.hvd.each_ref().map(|b| b.data[at]),
                egl,
                cos1,
            );
            for k in 0..3 {
                out.r[k].data[at] = rr[k];
                out.a[k].data[at] = aa[k];
            }
        }
    }
    out
}

/// The CSF of one decoupled signal: weighted bands and masking shares.
pub struct CsfBands {
    pub dst: [Band<f32>; 3],
    pub flt: [Band<f32>; 3],
}

/// CSF-weights `src` over the widened region.
pub fn csf_level(src: &[Band<f32>; 3], rf: &[f32; 3]) -> CsfBands {
    let (w, h) = (src[0].width, src[0].height);
    let mut out = CsfBands {
        dst: std::array::from_fn(|_| Band::zeros(w, h)),
        flt: std::array::from_fn(|_| Band::zeros(w, h)),
    };
    let region = Region::widened(w, h);
    for k in 0..3 {
        for i in region.top..region.bottom {
            for j in region.left..region.right {
                let at = i * w + j;
                (out.dst[k].data[at], out.flt[k].data[at]) = csf(src[k].data[at], rf[k]);
            }
        }
    }
    out
}

/// The masking neighbours of index `i` in `0..n`: before, itself, after.
/// Before the start the mirror skips the edge (`−1 → 1`); past the end it
/// repeats it (`n → n−1`).
#[inline]
pub fn neighbours(i: usize, n: usize) -> [usize; 3] {
    [if i == 0 { 1 } else { i - 1 }, i, if i + 1 == n { n - 1 } else { i + 1 }]
}

/// The masking threshold at `(i, j)`: per orientation, a float sum over the
/// 3×3 neighbourhood of the masker's shares in raster order, with the centre
/// replaced by `|weighted|/15` (added in double); the three orientations
/// summed in float.
#[inline]
pub fn threshold(masker: &CsfBands, i: usize, j: usize) -> f32 {
    let (w, h) = (masker.dst[0].width, masker.dst[0].height);
    let rows = neighbours(i, h);
    let cols = neighbours(j, w);
    let mut thr = 0.0f32;
    for k in 0..3 {
        let (dst, flt) = (&masker.dst[k], &masker.flt[k]);
        let mut sum = 0.0f32;
        for (ri, &r) in rows.iter().enumerate() {
            for (ci, &c) in cols.iter().enumerate() {
                if ri == 1 && ci == 1 {
                    sum = (f64::from(sum) + ONE_BY_15 * f64::from(dst.at(c, r).abs())) as f32;
                } else {
                    sum += flt.at(c, r);
                }
            }
        }
        thr += sum;
    }
    thr
}

/// `x^p` as libvmaf takes it: the float product `x·x·x` for p = 3, else
/// `powf` with the exponent rounded to float.
#[inline]
pub fn power(x: f32, p_norm: f64) -> f32 {
    if p_norm == 3.0 { x * x * x } else { x.powf(p_norm as f32) }
}

/// Per row of the scored (core) region, libvmaf's float row sums of
/// `value(i, j)` (one per orientation), in row order.
pub fn row_sums(w: usize, h: usize, value: impl Fn(usize, usize) -> [f32; 3]) -> Vec<[f32; 3]> {
    let region = Region::core(w, h);
    (region.top..region.bottom)
        .map(|i| {
            let mut acc = [0.0f32; 3];
            for j in region.left..region.right {
                let v = value(i, j);
                for k in 0..3 {
                    acc[k] += v[k];
                }
            }
            acc
        })
        .collect()
}

/// The float sum of row sums, top to bottom.
pub fn total(rows: &[[f32; 3]]) -> [f32; 3] {
    let mut acc = [0.0f32; 3];
    for r in rows {
        for k in 0..3 {
            acc[k] += r[k];
        }
    }
    acc
}

/// Contrast masking of `src` by `masker`: per sample
/// `max(|rf·src| − threshold, 0)^p` (threshold 0 with `bypass_cm`), as
/// row sums.
pub fn cm_rows(
    src: &[Band<f32>; 3],
    masker: &CsfBands,
    rf: &[f32; 3],
    p_norm: f64,
    bypass_cm: bool,
) -> Vec<[f32; 3]> {
    row_sums(src[0].width, src[0].height, |i, j| {
        let thr = if bypass_cm { 0.0 } else { threshold(masker, i, j) };
        std::array::from_fn(|k| {
            let x = (src[k].at(j, i) * rf[k]).abs() - thr;
            power(if x < 0.0 { 0.0 } else { x }, p_norm)
        })
    })
}

/// The denominator's row sums: `|rf·ref|^p` of the reference details.
pub fn den_rows(reference: &[Band<f32>; 3], rf: &[f32; 3], p_norm: f64) -> Vec<[f32; 3]> {
    row_sums(reference[0].width, reference[0].height, |i, j| {
        std::array::from_fn(|k| power((rf[k] * reference[k].at(j, i)).abs(), p_norm))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decouple_splits_and_limits() {
        let cos1 = cos_1deg_sq();
        // Same direction, half the amplitude: all restored, nothing added.
        let (r, a) = decouple([2.0, 4.0, 1.0], [1.0, 2.0, 0.5], 100.0, cos1);
        assert_eq!(a, [0.0; 3]);
        assert_eq!(r, [1.0, 2.0, 0.5]);
        // Same direction, enhanced: the restored part becomes t (egl 100)
        // or stays at o (egl 1).
        let (r, a) = decouple([1.0, 2.0, 1.0], [2.0, 4.0, 2.0], 100.0, cos1);
        assert_eq!((r, a), ([2.0, 4.0, 2.0], [0.0; 3]));
        let (r, a) = decouple([1.0, 2.0, 1.0], [2.0, 4.0, 2.0], 1.0, cos1);
        assert_eq!((r, a), ([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]));
        // Opposite sign: nothing restored.
        let (r, a) = decouple([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0], 100.0, cos1);
        assert_eq!((r, a), ([0.0; 3], [-1.0; 3]));
    }

    #[test]
    fn neighbours_mirror_like_libvmaf() {
        assert_eq!(neighbours(0, 5), [1, 0, 1]);
        assert_eq!(neighbours(4, 5), [3, 4, 4]);
        assert_eq!(neighbours(2, 5), [1, 2, 3]);
        assert_eq!(neighbours(0, 2), [1, 0, 1]);
        assert_eq!(neighbours(1, 2), [0, 1, 1]);
    }
}
