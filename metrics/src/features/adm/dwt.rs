//! The four-level integer Daubechies-2 wavelet transform of libvmaf's
//! integer ADM, with its fixed-point rounding and its asymmetric mirror.
//!
//! Each level is separable: a vertical pass (4 taps over rows `2i−1..=2i+2`)
//! makes a low-pass and a high-pass row of the full input width, then a
//! horizontal pass (4 taps over columns `2j−1..=2j+2`) splits each into two,
//! giving the bands `a` (low/low), `v` (low V, high H), `h` (high V, low H)
//! and `d` (high/high) of size `ceil(w/2) × ceil(h/2)`.
//!
//! Level 0 works on the input samples and stores every intermediate as
//! `i16`; levels 1–3 take the previous level's `a` band and work in `i64`,
//! storing `i32`. Each output sample depends only on its 4×4 input window,
//! which is what a GPU kernel computes per invocation.

use super::{Band, DwtBands};
use crate::plane::PlaneView;

/// Low-pass analysis taps (Q15-ish fixed point, sum 46342 ≈ √2·2^15).
pub const LO: [i32; 4] = [15826, 27411, 7345, -4240];
/// High-pass analysis taps (sum 0).
pub const HI: [i32; 4] = [-4240, -7345, 27411, -15826];
/// Sum of [`LO`]; level 0 subtracts `LO_SUM · 2^(bpc−1)` to centre the
/// unsigned samples around zero before the first shift.
pub const LO_SUM: i32 = 46342;

/// libvmaf's DWT mirror for a tap index `idx` of a signal of length `n`.
///
/// The two ends differ: before the start the edge sample is *not* repeated
/// (`−1 → 1`), past the end it *is* (`n → n−1`, i.e. `idx → 2n − idx − 1`).
/// Only one bounce is needed because taps reach at most one sample before
/// the start and two past the end; that needs `n ≥ 2`.
#[inline]
pub fn mirror(idx: i64, n: usize) -> usize {
    let n = n as i64;
    let m = if idx < 0 {
        -idx
    } else if idx >= n {
        2 * n - idx - 1
    } else {
        idx
    };
    m as usize
}

/// The four input indices (rows or columns) that output index `i` of a
/// level reads: `2i−1, 2i, 2i+1, 2i+2`, mirrored into `0..n`.
///
/// libvmaf builds these tables with a special case for `i = 0` and a
/// mirroring branch for the last two outputs; both agree with this formula
/// as long as `ceil(n/2) ≥ 3` (for smaller `n` libvmaf's table overwrites
/// entry 0 with an out-of-range index, which [`super::MIN_SIZE`] rules out).
#[inline]
pub fn taps(i: usize, n: usize) -> [usize; 4] {
    let base = 2 * i as i64 - 1;
    [mirror(base, n), mirror(base + 1, n), mirror(base + 2, n), mirror(base + 3, n)]
}

/// Output length of one level: `ceil(n / 2)`.
#[inline]
pub fn half(n: usize) -> usize {
    n.div_ceil(2)
}

/// Level-0 vertical pass for one column window `s` (4 samples at the rows
/// given by [`taps`]): returns the low-pass and high-pass intermediates.
///
/// libvmaf sums in `int32`, subtracts `46342 · 2^(bpc−1)` from the low-pass
/// sum only, then rounds with `(+2^(bpc−1)) >> bpc` and stores the result in
/// an `int16`. Wrapping arithmetic mirrors the C on x86 (it cannot wrap for
/// 8–12-bit input).
#[inline]
pub fn vertical_s0(s: [u16; 4], bpc: u32) -> (i16, i16) {
    let round = 1i32 << (bpc - 1);
    let mut lo = 0i32;
    let mut hi = 0i32;
    for k in 0..4 {
        lo = lo.wrapping_add(LO[k].wrapping_mul(i32::from(s[k])));
        hi = hi.wrapping_add(HI[k].wrapping_mul(i32::from(s[k])));
    }
    lo = lo.wrapping_sub(LO_SUM.wrapping_mul(round));
    ((lo.wrapping_add(round) >> bpc) as i16, (hi.wrapping_add(round) >> bpc) as i16)
}

/// Level-0 horizontal pass for one window `t` of an intermediate row:
/// `(Σ taps·t + 32768) >> 16` in `int32`, stored as `int16`, for the
/// low-pass and high-pass taps.
#[inline]
pub fn horizontal_s0(t: [i16; 4]) -> (i16, i16) {
    let mut lo = 0i32;
    let mut hi = 0i32;
    for k in 0..4 {
        lo = lo.wrapping_add(LO[k].wrapping_mul(i32::from(t[k])));
        hi = hi.wrapping_add(HI[k].wrapping_mul(i32::from(t[k])));
    }
    ((lo.wrapping_add(32768) >> 16) as i16, (hi.wrapping_add(32768) >> 16) as i16)
}

/// Rounding constant and shift of the vertical pass at levels 1, 2, 3
/// (index `scale − 1`). Level 1 does not shift at all.
pub const S123_VERTICAL: [(i64, u32); 3] = [(0, 0), (32768, 16), (32768, 16)];
/// Rounding constant and shift of the horizontal pass at levels 1, 2, 3.
pub const S123_HORIZONTAL: [(i64, u32); 3] = [(16384, 15), (32768, 16), (16384, 15)];

/// One tap sum at levels 1–3: `Σ taps·s` in `int64`, then
/// `(+round) >> shift`, truncated to `int32`.
#[inline]
fn tap_s123(taps_: &[i32; 4], s: [i32; 4], (round, shift): (i64, u32)) -> i32 {
    let mut acc = 0i64;
    for k in 0..4 {
        acc = acc.wrapping_add(i64::from(taps_[k]) * i64::from(s[k]));
    }
    (acc.wrapping_add(round) >> shift) as i32
}

/// Levels 1–3 vertical pass for one column window: (low, high).
#[inline]
pub fn vertical_s123(s: [i32; 4], scale: usize) -> (i32, i32) {
    let rs = S123_VERTICAL[scale - 1];
    (tap_s123(&LO, s, rs), tap_s123(&HI, s, rs))
}

/// Levels 1–3 horizontal pass for one row window: (low, high).
#[inline]
pub fn horizontal_s123(t: [i32; 4], scale: usize) -> (i32, i32) {
    let rs = S123_HORIZONTAL[scale - 1];
    (tap_s123(&LO, t, rs), tap_s123(&HI, t, rs))
}

/// Runs the horizontal split of one pair of intermediate rows into output
/// row `i` of the four bands.
fn split_row<T: Copy + Default>(
    lo_row: &[T],
    hi_row: &[T],
    i: usize,
    out: &mut DwtBands<T>,
    horizontal: impl Fn([T; 4]) -> (T, T),
) {
    let w = lo_row.len();
    let ow = out.a.width;
    for j in 0..ow {
        let tx = taps(j, w);
        let (a, v) = horizontal(tx.map(|x| lo_row[x]));
        let (h, d) = horizontal(tx.map(|x| hi_row[x]));
        let at = i * ow + j;
        out.a.data[at] = a;
        out.hvd[1].data[at] = v;
        out.hvd[0].data[at] = h;
        out.hvd[2].data[at] = d;
    }
}

/// Level 0 of the transform on a plane of 8–16-bit samples.
pub fn dwt_s0(plane: &PlaneView) -> DwtBands<i16> {
    let (w, h) = (plane.width, plane.height);
    let mut out = DwtBands::zeros(half(w), half(h));
    let mut lo = vec![0i16; w];
    let mut hi = vec![0i16; w];
    for i in 0..half(h) {
        let ty = taps(i, h);
        let rows = ty.map(|y| plane.row(y));
        for j in 0..w {
            let (l, hh) = vertical_s0(rows.map(|r| r[j]), plane.bpc);
            lo[j] = l;
            hi[j] = hh;
        }
        split_row(&lo, &hi, i, &mut out, horizontal_s0);
    }
    out
}

/// Level `scale` (1, 2 or 3) of the transform on the previous level's `a`
/// band, widened to `i32`.
pub fn dwt_s123(src: &Band<i32>, scale: usize) -> DwtBands<i32> {
    assert!((1..=3).contains(&scale), "dwt_s123 takes scales 1..=3");
    let (w, h) = (src.width, src.height);
    let mut out = DwtBands::zeros(half(w), half(h));
    let mut lo = vec![0i32; w];
    let mut hi = vec![0i32; w];
    for i in 0..half(h) {
        let ty = taps(i, h);
        for j in 0..w {
            let (l, hh) = vertical_s123(ty.map(|y| src.data[y * w + j]), scale);
            lo[j] = l;
            hi[j] = hh;
        }
        split_row(&lo, &hi, i, &mut out, |t| horizontal_s123(t, scale));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_is_asymmetric() {
        // Start: −1 reflects to 1 (edge not repeated).
        assert_eq!(mirror(-1, 10), 1);
        assert_eq!(mirror(0, 10), 0);
        assert_eq!(mirror(9, 10), 9);
        // End: n reflects to n−1 (edge repeated), n+1 to n−2.
        assert_eq!(mirror(10, 10), 9);
        assert_eq!(mirror(11, 10), 8);
    }

    #[test]
    fn taps_match_libvmaf_tables() {
        // libvmaf: i = 0 → {1, 0, 1, 2}; interior → 2i−1..2i+2; last two
        // outputs mirrored with 2n − idx − 1.
        assert_eq!(taps(0, 10), [1, 0, 1, 2]);
        assert_eq!(taps(2, 10), [3, 4, 5, 6]);
        assert_eq!(taps(4, 10), [7, 8, 9, 9]);
        // Odd length 9: ceil(9/2) = 5 outputs; output 4 reads 7, 8, 9→8, 10→7.
        assert_eq!(taps(4, 9), [7, 8, 8, 7]);
        assert_eq!(taps(3, 9), [5, 6, 7, 8]);
        assert_eq!(half(9), 5);
    }

    #[test]
    fn constant_plane_gives_dc_only() {
        // A flat 8-bit plane at 128 = 2^(bpc−1): the centred vertical low
        // pass is 46342·128 − 46342·128 = 0, so every band is exactly zero.
        let s = vec![128u16; 12 * 10];
        let p = PlaneView::packed(12, 10, 8, &s);
        let b = dwt_s0(&p);
        assert!(b.a.data.iter().all(|&x| x == 0));
        assert!(b.hvd.iter().all(|band| band.data.iter().all(|&x| x == 0)));
    }

    #[test]
    fn tiny_hand_case_level0() {
        // 8-bit, one sample of value 255 at (0,0), rest 0, in a 6×6 plane.
        // Vertical pass, output row 0 reads rows [1,0,1,2]: column 0 holds
        // (0,255,0,0), so lo = 27411·255 − 46342·128 = 1_058_029 →
        // (1_058_029 + 128) >> 8 = 4133; hi = −7345·255 = −1_872_975 →
        // (−1_872_975 + 128) >> 8 = −7316 (floor). Other columns:
        // lo = −5_931_776 → −23171, hi = 0.
        // Horizontal, output column 0 reads columns [1,0,1,2]:
        // a = (15826·−23171 + 27411·4133 + 7345·−23171 − 4240·−23171
        //      + 32768) >> 16.
        let mut s = vec![0u16; 36];
        s[0] = 255;
        let p = PlaneView::packed(6, 6, 8, &s);
        assert_eq!(vertical_s0([0, 255, 0, 0], 8), (4133, -7316));
        assert_eq!(vertical_s0([0, 0, 0, 0], 8), (-23171, 0));
        let b = dwt_s0(&p);
        let a00 = (15826 * -23171 + 27411 * 4133 + 7345 * -23171 + -4240 * -23171 + 32768) >> 16;
        let v00 = (-4240 * -23171 + -7345 * 4133 + 27411 * -23171 + -15826 * -23171 + 32768) >> 16;
        let h00 = (27411 * -7316 + 32768) >> 16;
        let d00 = (-7345 * -7316 + 32768) >> 16;
        assert_eq!(i32::from(b.a.data[0]), a00);
        assert_eq!(i32::from(b.hvd[1].data[0]), v00);
        assert_eq!(i32::from(b.hvd[0].data[0]), h00);
        assert_eq!(i32::from(b.hvd[2].data[0]), d00);
        // Far from the impulse every detail band is zero and a is the DC of
        // an all-zero (centred −128) neighbourhood.
        let dc = (46342 * -23171 + 32768) >> 16;
        assert_eq!(i32::from(b.a.data[2 * 3 + 2]), dc);
        assert_eq!(b.hvd[2].data[2 * 3 + 2], 0);
    }

    #[test]
    fn level1_has_no_vertical_shift() {
        // Level 1 keeps the full vertical sum (shift 0) and rounds the
        // horizontal pass by (+16384) >> 15.
        assert_eq!(vertical_s123([1, 1, 1, 1], 1), (46342, 0));
        assert_eq!(vertical_s123([1, 1, 1, 1], 2), ((46342 + 32768) >> 16, 0));
        assert_eq!(
            horizontal_s123([1, 2, 3, 4], 1).0,
            (15826 + 2 * 27411 + 3 * 7345 - 4 * 4240 + 16384) >> 15
        );
        assert_eq!(
            horizontal_s123([-1, -2, -3, -4], 3).1,
            (4240 + 2 * 7345 - 3 * 27411 + 4 * 15826 + 16384) >> 15
        );
    }
}
