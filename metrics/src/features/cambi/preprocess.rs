//! CAMBI's preprocessing (libvmaf's `cambi_preprocessing`): the luma plane
//! taken to the working resolution by nearest-sample decimation, converted
//! to 10 bits, and for encodes below 10 bits smoothed by a 2x2 average that
//! undoes dithering.

use super::Grid;
use crate::plane::PlaneView;

/// Nearest-sample positions along a side of `input` samples when taking it
/// to `output` (libvmaf's `decimate_generic_*`): float step
/// `input/output`, first position half a step minus half a sample in (that
/// subtraction in double, stored as float), the position advanced by
/// adding the float step, each index the position plus 0.5 (in double)
/// truncated. An unchanged side walks 0, 1, 2, … exactly, which is what
/// libvmaf's copy of an unchanged plane keeps.
pub fn sample_positions(input: usize, output: usize) -> Vec<usize> {
    let ratio = input as f32 / output as f32;
    let mut x = (f64::from(ratio / 2.0) - 0.5) as f32;
    (0..output)
        .map(|_| {
            // libvmaf could only step past the last sample when upscaling
            // a source, by a float error it does not reach; clamped so that
            // no input can read out of bounds here.
            let p = ((f64::from(x) + 0.5) as i32).clamp(0, input as i32 - 1) as usize;
            x += ratio;
            p
        })
        .collect()
}

/// One sample converted to 10 bits as libvmaf does: shifted up below 10
/// bits; above, shifted down with rounding (`(v + 2^(s−1)) >> s`).
fn to_10_bit(v: u16, bpc: u32) -> u16 {
    if bpc <= 10 {
        v << (10 - bpc)
    } else {
        let shift = bpc - 10;
        ((u32::from(v) + (1 << (shift - 1))) >> shift) as u16
    }
}

/// Whether a sample of `plane` exceeds the largest value of its bit depth,
/// for which libvmaf's `validate_image` refuses the frame. libvmaf checks
/// at 9 to 15 bits only (8- and 16-bit samples cannot exceed theirs), and
/// every sample, not only those the decimation reads.
pub fn exceeds_bit_depth(plane: &PlaneView<'_>) -> bool {
    if !checks_bit_depth(plane.bpc) {
        return false;
    }
    let max = (1u16 << plane.bpc) - 1;
    (0..plane.height).any(|y| plane.row(y).iter().any(|&v| v > max))
}

/// Whether libvmaf checks samples against bit depth `bpc` (see
/// [`exceeds_bit_depth`]).
pub fn checks_bit_depth(bpc: u32) -> bool {
    (9..=15).contains(&bpc)
}

/// `plane` taken to `out_width`x`out_height` at 10 bits.
pub fn decimate_to_10_bit(plane: &PlaneView<'_>, out_width: usize, out_height: usize) -> Grid {
    let xs = sample_positions(plane.width, out_width);
    let mut data = Vec::with_capacity(out_width * out_height);
    for y in sample_positions(plane.height, out_height) {
        let row = plane.row(y);
        data.extend(xs.iter().map(|&x| to_10_bit(row[x], plane.bpc)));
    }
    Grid { width: out_width, height: out_height, data }
}

/// libvmaf's `anti_dithering_filter`, in place: each sample becomes the
/// floor of the mean of its 2x2 block (itself, right, below, below-right);
/// the last column averages with the sample below, the last row with the
/// sample to the right, the last sample stays. libvmaf updates in raster
/// order but every sample read is one not yet updated, so this equals the
/// filter of the original plane.
pub fn anti_dither(grid: &mut Grid) {
    let (w, h) = (grid.width, grid.height);
    let d = &mut grid.data;
    for i in 0..h - 1 {
        for j in 0..w - 1 {
            let sum = u32::from(d[i * w + j])
                + u32::from(d[i * w + j + 1])
                + u32::from(d[(i + 1) * w + j])
                + u32::from(d[(i + 1) * w + j + 1]);
            d[i * w + j] = (sum >> 2) as u16;
        }
        let j = w - 1;
        d[i * w + j] = ((u32::from(d[i * w + j]) + u32::from(d[(i + 1) * w + j])) >> 1) as u16;
    }
    let i = h - 1;
    for j in 0..w - 1 {
        d[i * w + j] = ((u32::from(d[i * w + j]) + u32::from(d[i * w + j + 1])) >> 1) as u16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Halving picks every other sample starting at the second (position
    /// 0.5 rounds up); a third picks the middle of each triple.
    #[test]
    fn positions_pick_block_centres() {
        assert_eq!(sample_positions(8, 4), vec![1, 3, 5, 7]);
        assert_eq!(sample_positions(9, 3), vec![1, 4, 7]);
        assert_eq!(sample_positions(5, 5), vec![0, 1, 2, 3, 4]);
        // 1920 → 1280: step 1.5, start 0.25: 0.75, 2.25, 3.75 … truncated.
        assert_eq!(&sample_positions(1920, 1280)[..4], &[0, 2, 3, 5]);
    }

    #[test]
    fn ten_bit_conversion() {
        assert_eq!(to_10_bit(255, 8), 1020);
        assert_eq!(to_10_bit(511, 9), 1022);
        assert_eq!(to_10_bit(1023, 10), 1023);
        // 12 bits: (v + 2) >> 2.
        assert_eq!([to_10_bit(5, 12), to_10_bit(6, 12), to_10_bit(4095, 12)], [1, 2, 1024]);
    }

    /// A 3x2 plane by hand: interior 2x2 means, last column vertical
    /// pairs, last row horizontal pairs, corner kept.
    #[test]
    fn anti_dither_by_hand() {
        let mut g = Grid { width: 3, height: 2, data: vec![0, 4, 8, 3, 5, 9] };
        anti_dither(&mut g);
        // (0+4+3+5)/4=3, (4+8+5+9)/4=6, (8+9)/2=8; (3+5)/2=4, (5+9)/2=7, 9.
        assert_eq!(g.data, vec![3, 6, 8, 4, 7, 9]);
    }

    #[test]
    fn decimation_converts_and_picks() {
        let s: Vec<u16> = (0..16).collect();
        let g = decimate_to_10_bit(&PlaneView::packed(4, 4, 8, &s), 2, 2);
        assert_eq!(g.data, vec![5 << 2, 7 << 2, 13 << 2, 15 << 2]);
        let same = decimate_to_10_bit(&PlaneView::packed(4, 4, 10, &s), 4, 4);
        assert_eq!(same.data, s);
    }
}
