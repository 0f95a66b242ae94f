//! Contrast masking (the numerator) and the reference energy (the
//! denominator), each reduced **per row**: libvmaf sums a row in 64 bits,
//! rounds and shifts that row sum, and only then adds it to the frame
//! total. A GPU port must keep that structure (reduce within a row, shift,
//! then reduce across rows); these functions expose the row step
//! ([`cm_row_s0`], [`cm_row_s123`], [`den_row_s0`], [`den_row_s123`]) and
//! the per-row rounding ([`round_row`]) separately.
//!
//! Masking of a decoupled coefficient `x` at `(i, j)` uses a threshold from
//! the *other* decoupled signal's CSF output: the 3×3 sum over all three
//! orientations of its `flt` band, with the centre replaced by
//! `|dst|·(1/15)` (so the centre counts twice as much as a neighbour).
//! Neighbours outside the band are mirrored like the DWT (`−1 → 1`,
//! `n → n−1`).

use super::dwt::mirror;
use super::{Band, Region};

/// 1/15 in Q12 (level 0) and in Q32 (levels 1–3).
const S0_ONE_BY_15: i32 = 8738;
const S123_ONE_BY_15: i64 = 286_331_153;

/// `ceil(log2(n))` for `n ≥ 1`, in integers. libvmaf takes `ceil` of a
/// double `log2`; the two agree for every size a frame can have.
#[inline]
pub fn ceil_log2(n: usize) -> u32 {
    assert!(n >= 1, "ceil_log2(0)");
    if n == 1 { 0 } else { usize::BITS - (n - 1).leading_zeros() }
}

/// libvmaf's `(uint32_t)pow(2, shift − 1)`: half a unit of the shift. For
/// `shift = 0` the exponent wraps to 2^32−1, `pow` gives infinity and x86
/// converts that to 0, so no rounding is added.
#[inline]
pub fn half_unit(shift: u32) -> u64 {
    if shift == 0 { 0 } else { 1u64 << (shift - 1) }
}

/// Per-row rounding of a row sum: `(row + 2^(shift−1)) >> shift`.
#[inline]
pub fn round_row(row: i64, shift: u32) -> i64 {
    (row + half_unit(shift) as i64) >> shift
}

/// Same for the unsigned denominator sums.
#[inline]
pub fn round_row_u(row: u64, shift: u32) -> u64 {
    (row + half_unit(shift)) >> shift
}

/// The masking threshold at `(i, j)`: for each orientation, the 8
/// mirrored neighbours of `flt` plus `centre(dst[i][j])`, summed in a
/// wrapping `int32` as in libvmaf.
#[inline]
fn threshold<T: Copy + Into<i64>>(
    dst: &[Band<T>; 3],
    flt: &[Band<T>; 3],
    rows: [usize; 3],
    cols: [usize; 3],
    i: usize,
    j: usize,
    centre: impl Fn(T) -> i32,
) -> i32 {
    let mut acc = 0i32;
    for theta in 0..3 {
        let f = &flt[theta];
        let w = f.width;
        let mut sum = 0i32;
        for (ri, &r) in rows.iter().enumerate() {
            for (ci, &c) in cols.iter().enumerate() {
                if ri == 1 && ci == 1 {
                    sum = sum.wrapping_add(centre(dst[theta].data[i * w + j]));
                } else {
                    sum = sum.wrapping_add(f.data[r * w + c].into() as i32);
                }
            }
        }
        acc = acc.wrapping_add(sum);
    }
    acc
}

/// Level-0 centre term: `(8738·|dst| + 2048) >> 12` **cast to int16**
/// (wraps once `|dst| ≥ 15360`, as libvmaf's scalar C does). libvmaf's
/// AVX2/AVX-512 vector bodies skip that cast while their scalar tails keep
/// it, so for such extreme edges libvmaf itself depends on the column; this
/// twin follows the C everywhere (identical on all reference material).
#[inline]
pub fn centre_s0(dst: i16) -> i32 {
    i32::from(((S0_ONE_BY_15 * i32::from(dst).abs() + 2048) >> 12) as i16)
}

/// Levels 1–3 centre term: `(286331153·|dst| − 2^31) >> 32` (the same
/// int32-stored "half" as the CSF's `flt`).
#[inline]
pub fn centre_s123(dst: i32) -> i32 {
    ((S123_ONE_BY_15 * i64::from(dst.wrapping_abs()) + super::csf::S123_FLT_ROUND) >> 32) as i32
}

/// Shifts of the level-0 masking sum for a band of `width` columns:
/// `x` is compared with `thr << sub`, squared with `(+2^(sq−1)) >> sq`, and
/// the cube rounded by `cub` = `ceil(log2 w) − 4` (h, v) or `− 3` (d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmShiftsS0 {
    pub sub: [u32; 3],
    pub sq: [u32; 3],
    pub cub: [u32; 3],
}

impl CmShiftsS0 {
    pub fn new(width: usize) -> Self {
        let l = ceil_log2(width);
        Self { sub: [10, 10, 12], sq: [29, 29, 30], cub: [l - 4, l - 4, l - 3] }
    }
}

/// One level-0 masked cube: `x = |src·rf| − (thr << sub)`, clamped at 0;
/// `x² → int32` after `(+2^(sq−1)) >> sq` (that int32 can wrap);
/// `(x²·x + 2^(cub−1)) >> cub`.
#[inline]
pub fn cm_value_s0(src: i16, rf: u16, thr: i32, theta: usize, sh: &CmShiftsS0) -> i64 {
    let x = i32::from(src) * i32::from(rf);
    let x = x.abs().wrapping_sub(thr.wrapping_shl(sh.sub[theta])).max(0);
    let x = i64::from(x);
    let x_sq = ((x * x + (1i64 << (sh.sq[theta] - 1))) >> sh.sq[theta]) as i32;
    (i64::from(x_sq).wrapping_mul(x).wrapping_add(half_unit(sh.cub[theta]) as i64)) >> sh.cub[theta]
}

/// Levels 1–3 masked cube: `x = (src·rf + 2^27) >> 28`, then
/// `|x| − thr` clamped at 0, `x² → int32` after `(+2^29) >> 30`, and
/// `(x²·x + 2^(cub−1)) >> cub` with `cub = ceil(log2 w)`.
#[inline]
pub fn cm_value_s123(src: i32, rf: u32, thr: i32, cub: u32) -> i64 {
    let x = ((i64::from(src) * i64::from(rf) + (1 << 27)) >> 28) as i32;
    let x = x.wrapping_abs().wrapping_sub(thr).max(0);
    let x = i64::from(x);
    let x_sq = ((x * x + (1 << 29)) >> 30) as i32;
    (i64::from(x_sq).wrapping_mul(x).wrapping_add(half_unit(cub) as i64)) >> cub
}

#[inline]
fn neighbours(i: usize, n: usize) -> [usize; 3] {
    [mirror(i as i64 - 1, n), i, mirror(i as i64 + 1, n)]
}

/// Raw (unrounded) level-0 masking sums `[h, v, d]` of row `i` over the
/// region's columns. `src` is the decoupled signal being measured; `dst`
/// and `flt` are the CSF outputs of the masking signal.
pub fn cm_row_s0(
    i: usize,
    region: &Region,
    src: &[Band<i16>; 3],
    dst: &[Band<i16>; 3],
    flt: &[Band<i16>; 3],
    rf: &[u16; 3],
    sh: &CmShiftsS0,
) -> [i64; 3] {
    let (w, h) = (src[0].width, src[0].height);
    let rows = neighbours(i, h);
    let mut acc = [0i64; 3];
    for j in region.left..region.right {
        let thr = threshold(dst, flt, rows, neighbours(j, w), i, j, centre_s0);
        for theta in 0..3 {
            let v = cm_value_s0(src[theta].data[i * w + j], rf[theta], thr, theta, sh);
            acc[theta] = acc[theta].wrapping_add(v);
        }
    }
    acc
}

/// Raw levels 1–3 masking sums `[h, v, d]` of row `i`.
pub fn cm_row_s123(
    i: usize,
    region: &Region,
    src: &[Band<i32>; 3],
    dst: &[Band<i32>; 3],
    flt: &[Band<i32>; 3],
    rf: &[u32; 3],
    cub: u32,
) -> [i64; 3] {
    let (w, h) = (src[0].width, src[0].height);
    let rows = neighbours(i, h);
    let mut acc = [0i64; 3];
    for j in region.left..region.right {
        let thr = threshold(dst, flt, rows, neighbours(j, w), i, j, centre_s123);
        for theta in 0..3 {
            let v = cm_value_s123(src[theta].data[i * w + j], rf[theta], thr, cub);
            acc[theta] = acc[theta].wrapping_add(v);
        }
    }
    acc
}

/// Raw level-0 denominator sums of row `i`: `Σ |b|³` (u64) of the
/// reference's h, v, d bands over the region's columns.
pub fn den_row_s0(i: usize, region: &Region, reference: &[Band<i16>; 3]) -> [u64; 3] {
    let w = reference[0].width;
    let mut acc = [0u64; 3];
    for (theta, band) in reference.iter().enumerate() {
        for &c in &band.data[i * w + region.left..i * w + region.right] {
            let a = u64::from(c.unsigned_abs());
            acc[theta] += a * a * a;
        }
    }
    acc
}

/// Level-0 denominator row shift: `max(0, ceil(log2(area)) − 20)`.
pub fn den_shift_s0(region: &Region) -> u32 {
    ceil_log2(region.area()).saturating_sub(20)
}

/// Squaring shift of the levels 1–3 denominator (index `scale − 1`); the
/// value added before it is a **full** unit `2^shift`, not a half.
pub const DEN_S123_SQ: [u32; 3] = [31, 30, 31];

/// Raw levels 1–3 denominator sums of row `i`:
/// `Σ ((((|b|² + 2^sq) >> sq)·|b| + 2^(cub−1)) >> cub)` with
/// `cub = ceil(log2(region width))`.
pub fn den_row_s123(
    i: usize,
    region: &Region,
    reference: &[Band<i32>; 3],
    scale: usize,
) -> [u64; 3] {
    let w = reference[0].width;
    let sq = DEN_S123_SQ[scale - 1];
    let cub = ceil_log2(region.width());
    let add_cub = half_unit(cub);
    let mut acc = [0u64; 3];
    for (theta, band) in reference.iter().enumerate() {
        for &c in &band.data[i * w + region.left..i * w + region.right] {
            let a = u64::from(c.unsigned_abs());
            acc[theta] += ((((a * a) + (1u64 << sq)) >> sq) * a + add_cub) >> cub;
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log2_values() {
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(2), 1);
        assert_eq!(ceil_log2(3), 2);
        assert_eq!(ceil_log2(960), 10);
        assert_eq!(ceil_log2(1024), 10);
        assert_eq!(ceil_log2(1025), 11);
        for n in 1..5000usize {
            assert_eq!(ceil_log2(n), (n as f64).log2().ceil() as u32, "n={n}");
        }
    }

    #[test]
    fn centre_s0_wraps_as_int16() {
        assert_eq!(centre_s0(15), (8738 * 15 + 2048) >> 12);
        // |dst| = 15360 → (8738·15360 + 2048) >> 12 = 32768 → −32768.
        assert_eq!(centre_s0(15360), -32768);
        assert_eq!(centre_s0(-15360), -32768);
    }

    #[test]
    fn centre_s123_of_zero_is_minus_one() {
        assert_eq!(centre_s123(0), -1);
    }

    #[test]
    fn cm_value_clamps_below_threshold() {
        let sh = CmShiftsS0::new(960);
        assert_eq!(sh.cub, [6, 6, 7]);
        // |x| = 100·36453 = 3_645_300 < (4000 << 10): masked to 0.
        assert_eq!(cm_value_s0(100, 36453, 4000, 0, &sh), 0);
        // Above the threshold: hand-computed.
        let x: i64 = 1000 * 36453 - (10 << 10);
        let x_sq = (x * x + (1 << 28)) >> 29;
        assert_eq!(cm_value_s0(-1000, 36453, 10, 0, &sh), (x_sq * x + 32) >> 6);
    }

    #[test]
    fn rounding_helpers() {
        assert_eq!(round_row(5, 1), 3);
        assert_eq!(round_row(-5, 1), -2);
        assert_eq!(round_row(7, 0), 7);
        assert_eq!(round_row_u(1023, 10), 1);
        assert_eq!(half_unit(0), 0);
    }
}
