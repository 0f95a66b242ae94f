//! VIF's Gaussian filters, the border mirror, the fixed-point separable
//! passes, and the decimation between scales.
//!
//! Everything here is integer arithmetic with libvmaf's exact widths: the
//! vertical pass of a `µ` sum runs in `u32`, the squares in `u64`, and each
//! pass rounds (`+2^(s−1)`) and shifts by libvmaf's per-pass amount before it
//! is stored with libvmaf's cast. A GPU kernel that mirrors these steps (one
//! row of vertical sums in shared memory, then the horizontal taps) produces
//! the same integers.
//!
//! **Rounding by bit depth.** libvmaf has separate 8-bit and high-bit-depth
//! functions, but at scale 0 both round `µ` by `bpc` bits and the squares by
//! `2·(bpc−8)` bits (0 at 8 bits), and every later scale rounds by 16 bits
//! for both `µ` and squares. The decimated planes are in 16-bit range for
//! every input depth, and 16 is exactly what the scale-0 rule gives for
//! `bpc = 16`. So a plane's `bpc` alone decides its rounding: input planes
//! carry their own depth, decimated planes carry 16 ([`DECIMATED_BPC`]).

use crate::plane::PlaneView;

/// The four scales' 1-D filters (taps sum to 65536 = 2^16), widths 17, 9, 5
/// and 3. Scale `k`'s statistics use `FILTERS[k]`; the step from scale `k` to
/// `k+1` blurs with `FILTERS[k+1]` before decimating.
pub const FILTERS: [&[u16]; 4] = [
    &[
        489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640,
        935, 489,
    ],
    &[1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244],
    &[3571, 16004, 26386, 16004, 3571],
    &[10904, 43728, 10904],
];

/// Bit depth the decimated planes are treated as (see the module docs).
pub const DECIMATED_BPC: u32 = 16;

/// Reflects a tap index into `0..size` as libvmaf pads its VIF buffers, on
/// rows and columns alike: `−k → k` (the edge sample is not repeated) and
/// `size−1+k → size−1−k`. One bounce only, which is all libvmaf's padding
/// does: it needs `size > k` for the filter's half-width `k` (smaller planes
/// are refused up front, see `check_size`).
#[inline]
pub fn mirror(idx: isize, size: usize) -> usize {
    let size = size as isize;
    let m = if idx < 0 {
        -idx
    } else if idx >= size {
        2 * (size - 1) - idx
    } else {
        idx
    };
    debug_assert!((0..size).contains(&m), "mirror out of range");
    m as usize
}

/// The `(round, shift)` of a pass that divides by `2^shift` with rounding;
/// a shift of 0 adds nothing (libvmaf's 8-bit squares are stored unshifted).
#[inline]
pub fn rounding(shift: u32) -> (u64, u32) {
    if shift == 0 { (0, 0) } else { (1u64 << (shift - 1), shift) }
}

/// Vertical shift for `µ` sums (and for the blur before decimation) on a
/// plane of depth `bpc`: `bpc` bits, which brings every depth to 16-bit range.
#[inline]
pub fn mu_shift(bpc: u32) -> u32 {
    bpc
}

/// Vertical shift for the squared sums on a plane of depth `bpc`:
/// `2·(bpc − 8)`, which leaves them as squares of 16-bit-range values.
#[inline]
pub fn sq_shift(bpc: u32) -> u32 {
    2 * (bpc - 8)
}

/// Writes the mirror padding of a row buffer laid out as `half` pad entries,
/// `width` samples, `half` pad entries — libvmaf's horizontal padding.
#[inline]
pub fn pad_row<T: Copy>(buf: &mut [T], width: usize, half: usize) {
    debug_assert_eq!(buf.len(), width + 2 * half);
    for f in 1..=half {
        buf[half - f] = buf[half + f];
        buf[half + width - 1 + f] = buf[half + width - 1 - f];
    }
}

/// An owned plane of decimated samples (16-bit range, packed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VifPlane {
    pub width: usize,
    pub height: usize,
    pub samples: Vec<u16>,
}

impl VifPlane {
    /// The plane as a view with [`DECIMATED_BPC`], ready for the next scale.
    pub fn view(&self) -> PlaneView<'_> {
        PlaneView::packed(self.width, self.height, DECIMATED_BPC, &self.samples)
    }
}

/// Blurs `src` with `filter` and keeps every second sample of every second
/// row (`[2i][2j]`), giving a `⌊w/2⌋ × ⌊h/2⌋` plane — libvmaf's step from one
/// scale to the next (`subsample_rd_8` / `subsample_rd_16` followed by
/// `decimate_and_pad`).
///
/// libvmaf blurs the whole plane and then discards three samples in four; the
/// discarded ones influence nothing, so we compute only the kept rows (the
/// vertical pass still needs every column of them) and the kept columns.
///
/// Passes: vertical `u32` sum, `(+2^(s−1)) >> s` with `s = bpc` of `src`,
/// stored as `u16`; horizontal `u32` sum, `(+32768) >> 16`, stored as `u16`.
pub fn decimate(src: &PlaneView, filter: &[u16]) -> VifPlane {
    let (w, h) = (src.width, src.height);
    let (ow, oh) = (w / 2, h / 2);
    let half = filter.len() / 2;
    let (round, shift) = rounding(mu_shift(src.bpc));
    let round = round as u32;

    let mut samples = vec![0u16; ow * oh];
    let mut acc = vec![0u32; w];
    let mut tmp = vec![0u32; w + 2 * half];
    for oi in 0..oh {
        let i = 2 * oi;
        acc.fill(0);
        for (fi, &c) in filter.iter().enumerate() {
            let row = src.row(mirror(i as isize + fi as isize - half as isize, h));
            let c = u32::from(c);
            for (a, &s) in acc.iter_mut().zip(row) {
                *a = a.wrapping_add(c * u32::from(s));
            }
        }
        for (t, &a) in tmp[half..half + w].iter_mut().zip(&acc) {
            *t = u32::from((a.wrapping_add(round) >> shift) as u16);
        }
        pad_row(&mut tmp, w, half);

        let out = &mut samples[oi * ow..(oi + 1) * ow];
        for (oj, o) in out.iter_mut().enumerate() {
            // Output column 2·oj reads padded entries 2·oj .. 2·oj + 2·half.
            let taps = &tmp[2 * oj..2 * oj + filter.len()];
            let mut a = 0u32;
            for (&c, &t) in filter.iter().zip(taps) {
                a = a.wrapping_add(u32::from(c) * t);
            }
            *o = (a.wrapping_add(32768) >> 16) as u16;
        }
    }
    VifPlane { width: ow, height: oh, samples }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_sum_to_one() {
        for f in FILTERS {
            assert_eq!(f.iter().map(|&c| u32::from(c)).sum::<u32>(), 65536);
            assert_eq!(f.len() % 2, 1);
        }
        assert_eq!(FILTERS.map(<[u16]>::len), [17, 9, 5, 3]);
    }

    #[test]
    fn mirror_indices() {
        // Edge sample not repeated: −1 → 1, −8 → 8.
        assert_eq!(mirror(-1, 20), 1);
        assert_eq!(mirror(-8, 20), 8);
        assert_eq!(mirror(0, 20), 0);
        assert_eq!(mirror(19, 20), 19);
        // 20 → 18, 27 → 11 (size−1+k → size−1−k).
        assert_eq!(mirror(20, 20), 18);
        assert_eq!(mirror(27, 20), 11);
        // Smallest plane the widest half-width (8) allows: 9.
        assert_eq!(mirror(-8, 9), 8);
        assert_eq!(mirror(16, 9), 0);
    }

    #[test]
    fn pad_row_mirrors() {
        let mut b = vec![0, 0, 10, 11, 12, 13, 0, 0];
        pad_row(&mut b, 4, 2);
        assert_eq!(b, vec![12, 11, 10, 11, 12, 13, 12, 11]);
    }

    #[test]
    fn shifts_per_depth() {
        assert_eq!((mu_shift(8), sq_shift(8)), (8, 0));
        assert_eq!((mu_shift(10), sq_shift(10)), (10, 4));
        assert_eq!((mu_shift(12), sq_shift(12)), (12, 8));
        assert_eq!((mu_shift(DECIMATED_BPC), sq_shift(DECIMATED_BPC)), (16, 16));
        assert_eq!(rounding(0), (0, 0));
        assert_eq!(rounding(10), (512, 10));
    }

    /// A constant plane stays constant, scaled to 16-bit range: v·2^(16−bpc).
    #[test]
    fn decimate_constant() {
        for (bpc, v) in [(8u32, 200u16), (10, 700), (12, 4000)] {
            let s = vec![v; 21 * 13];
            let p = PlaneView::packed(21, 13, bpc, &s);
            let d = decimate(&p, FILTERS[1]);
            assert_eq!((d.width, d.height), (10, 6));
            assert!(d.samples.iter().all(|&x| x == v << (16 - bpc)), "bpc {bpc}");
            let d2 = decimate(&d.view(), FILTERS[2]);
            assert_eq!((d2.width, d2.height), (5, 3));
            assert!(d2.samples.iter().all(|&x| x == v << (16 - bpc)));
        }
    }

    /// Hand-computed: a single bright sample at (0,0) of an 8-bit plane, with
    /// the 3-tap filter. Output (0,0) reads rows/cols −1,0,1 → 1,0,1: only
    /// the centre tap 43728 hits the sample in each direction.
    #[test]
    fn decimate_impulse_at_corner() {
        let mut s = vec![0u16; 8 * 8];
        s[0] = 255;
        let p = PlaneView::packed(8, 8, 8, &s);
        let d = decimate(&p, FILTERS[3]);
        // Vertical: (43728·255 + 128) >> 8 = 43557 (43557.56 floored after +0.5).
        let v = (43728u32 * 255 + 128) >> 8;
        assert_eq!(v, 43557);
        let hval = ((43728u32 * v + 32768) >> 16) as u16;
        assert_eq!(d.samples[0], hval);
        assert!(d.samples[1..].iter().all(|&x| x == 0));
    }
}
