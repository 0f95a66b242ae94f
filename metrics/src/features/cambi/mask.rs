//! CAMBI's spatial mask (libvmaf's `get_spatial_mask`): banding can only
//! hide in flat areas, so a pixel counts only where most of the 7x7 window
//! around it has zero derivative.

use super::Grid;

/// Side of the mask's window (libvmaf's `MASK_FILTER_SIZE`).
pub const FILTER_SIZE: usize = 7;

/// `ceil(log2(n))`, 0 for 0 and 1 (libvmaf's `ceil_log2`).
pub fn ceil_log2(n: u32) -> u32 {
    if n == 0 { 0 } else { 32 - (n - 1).leading_zeros() }
}

/// How many zero-derivative pixels the window must hold *more than* for
/// its centre to count (libvmaf's `get_mask_index`): half the window's
/// area, adjusted by 1.5 per doubling of the frame's area in 64x64 blocks
/// away from 2^11 of them (about 1080p).
pub fn mask_index(width: usize, height: usize) -> u32 {
    let blocks = ((width >> 6) * (height >> 6)) as u32;
    let area = (FILTER_SIZE * FILTER_SIZE) as i32;
    ((area + 3 * (ceil_log2(blocks) as i32 - 11) - 1) >> 1) as u16 as u32
}

/// Whether pixel `(row, col)` equals its right and its lower neighbour (a
/// missing neighbour at the edge counts as equal).
fn zero_derivative(grid: &Grid, row: usize, col: usize) -> bool {
    let (w, h) = (grid.width, grid.height);
    let v = grid.data[row * w + col];
    (col == w - 1 || v == grid.data[row * w + col + 1])
        && (row == h - 1 || v == grid.data[(row + 1) * w + col])
}

/// The mask of `grid`: 1 where the count of zero-derivative pixels in the
/// 7x7 window centred on the pixel (pixels outside the frame count 0) is
/// above [`mask_index`]. libvmaf sums the windows with a rolling summed-area
/// table of u32; the counts are exact integers either way.
pub fn spatial_mask(grid: &Grid) -> Grid {
    let (w, h) = (grid.width, grid.height);
    let threshold = mask_index(w, h);
    let pad = FILTER_SIZE / 2;
    // Column sums of the zero-derivative map over the window's rows, slid
    // down the frame, then a horizontal window sum along each row.
    let zero: Vec<u32> = (0..h)
        .flat_map(|r| (0..w).map(move |c| (r, c)))
        .map(|(r, c)| u32::from(zero_derivative(grid, r, c)))
        .collect();
    let mut column = vec![0u32; w];
    for r in 0..pad.min(h) {
        for (c, s) in column.iter_mut().enumerate() {
            *s += zero[r * w + c];
        }
    }
    let mut mask = Grid { width: w, height: h, data: vec![0; w * h] };
    for r in 0..h {
        if r + pad < h {
            for (c, s) in column.iter_mut().enumerate() {
                *s += zero[(r + pad) * w + c];
            }
        }
        if r > pad {
            for (c, s) in column.iter_mut().enumerate() {
                *s -= zero[(r - pad - 1) * w + c];
            }
        }
        let mut window: u32 = column[..pad.min(w)].iter().sum();
        for c in 0..w {
            if c + pad < w {
                window += column[c + pad];
            }
            if c > pad {
                window -= column[c - pad - 1];
            }
            mask.data[r * w + c] = u16::from(window > threshold);
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log2_values() {
        assert_eq!([0, 1, 2, 3, 4, 5, 2048, 2049].map(ceil_log2), [0, 0, 1, 2, 2, 3, 11, 12]);
    }

    /// 1920x1080: 30·16 = 480 blocks, ceil_log2 9: (49 − 6 − 1)/2 = 21.
    /// 576x324: 9·5 = 45, ceil_log2 6: (49 − 15 − 1)/2 = 16. 3840x2160:
    /// 60·33 = 1980, 11: 24.
    #[test]
    fn mask_index_values() {
        assert_eq!(mask_index(1920, 1080), 21);
        assert_eq!(mask_index(576, 324), 16);
        assert_eq!(mask_index(3840, 2160), 24);
    }

    /// The window sums against a direct count on a small random-ish grid
    /// (threshold 7 for a frame under 64x64: (49 − 33 − 1)/2).
    #[test]
    fn mask_matches_direct_window_count() {
        let (w, h) = (13, 11);
        let data: Vec<u16> = (0..w * h).map(|i| ((i * 7919) % 23 / 9) as u16).collect();
        let grid = Grid { width: w, height: h, data };
        assert_eq!(mask_index(w, h), 7);
        let mask = spatial_mask(&grid);
        for r in 0..h {
            for c in 0..w {
                let mut count = 0;
                for rr in r.saturating_sub(3)..(r + 4).min(h) {
                    for cc in c.saturating_sub(3)..(c + 4).min(w) {
                        count += u32::from(zero_derivative(&grid, rr, cc));
                    }
                }
                assert_eq!(mask.data[r * w + c], u16::from(count > 7), "({r}, {c})");
            }
        }
    }

    /// A flat frame is all mask; a checkerboard has no zero derivative.
    #[test]
    fn flat_and_checkerboard() {
        let flat = Grid { width: 9, height: 8, data: vec![100; 72] };
        assert!(spatial_mask(&flat).data.iter().all(|&m| m == 1));
        let checker = Grid {
            width: 9,
            height: 8,
            data: (0..72).map(|i| ((i % 9 + i / 9) % 2) as u16).collect(),
        };
        assert!(spatial_mask(&checker).data.iter().all(|&m| m == 0));
    }
}
