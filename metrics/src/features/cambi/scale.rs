//! CAMBI's per-scale steps (libvmaf's `decimate` and `filter_mode`): the
//! 2x decimation between scales and the 3x3 mode filter applied to the
//! image at every scale before its histograms.

use super::Grid;

/// Every other sample of every other row, starting at the first: the
/// `(w+1)/2` x `(h+1)/2` plane libvmaf's `decimate` keeps.
pub fn decimate(grid: &Grid) -> Grid {
    let (w, h) = ((grid.width + 1) >> 1, (grid.height + 1) >> 1);
    let mut data = Vec::with_capacity(w * h);
    for i in 0..h {
        let row = &grid.data[2 * i * grid.width..];
        data.extend((0..w).map(|j| row[2 * j]));
    }
    Grid { width: w, height: h, data }
}

/// The smallest of three (libvmaf's `min3`).
fn min3(a: u16, b: u16, c: u16) -> u16 {
    a.min(b).min(c)
}

/// The value two of three share, else the smallest (libvmaf's `mode3`;
/// symmetric in its arguments).
pub fn mode3(a: u16, b: u16, c: u16) -> u16 {
    if a == b || a == c {
        a
    } else if b == c {
        b
    } else {
        min3(a, b, c)
    }
}

/// libvmaf's `filter_mode`, in place: each row's horizontal [`mode3`] of
/// neighbours (first and last sample kept), then for every row but the
/// first and last the vertical [`mode3`] of the three horizontal results
/// around it. The first and last rows are left as they were, not even
/// filtered horizontally. libvmaf overwrites row `i−1` only after it has
/// read that row, so this equals the filter of the original plane.
pub fn filter_mode(grid: &mut Grid) {
    let (w, h) = (grid.width, grid.height);
    if h < 3 {
        return;
    }
    let horizontal =
        |row: &[u16]| -> Vec<u16> {
            (0..w)
                .map(|j| {
                    if j == 0 || j + 1 >= w {
                        row[j]
                    } else {
                        mode3(row[j - 1], row[j], row[j + 1])
                    }
                })
                .collect()
        };
    let mut above = horizontal(&grid.data[0..w]);
    let mut here = horizontal(&grid.data[w..2 * w]);
    for i in 1..h - 1 {
        let below = horizontal(&grid.data[(i + 1) * w..(i + 2) * w]);
        for j in 0..w {
            grid.data[i * w + j] = mode3(above[j], here[j], below[j]);
        }
        above = std::mem::replace(&mut here, below);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode3_cases() {
        assert_eq!(mode3(5, 5, 1), 5);
        assert_eq!(mode3(1, 5, 5), 5);
        assert_eq!(mode3(5, 1, 5), 5);
        assert_eq!(mode3(3, 9, 2), 2);
        assert_eq!(mode3(4, 4, 4), 4);
    }

    #[test]
    fn decimate_keeps_even_samples() {
        let g = Grid { width: 5, height: 3, data: (0..15).collect() };
        let d = decimate(&g);
        assert_eq!((d.width, d.height), (3, 2));
        assert_eq!(d.data, vec![0, 2, 4, 10, 12, 14]);
    }

    /// A 4x4 plane worked by hand. Horizontal modes of the rows
    /// `[1 2 2 7] [3 3 9 1] [8 2 8 5] [6 6 6 6]` are `[1 2 2 7]`,
    /// `[3 3 1 1]`, `[8 8 2 5]`, `[6 6 6 6]`; row 1 becomes the vertical
    /// modes of the first three (`[1 2 2 1]`: column 2 is `(2, 1, 2)`), row 2
    /// of the last three (`[3 3 1 1]`: no pair, so the minimum).
    #[test]
    fn filter_mode_by_hand() {
        let mut g = Grid {
            width: 4,
            height: 4,
            data: vec![1, 2, 2, 7, 3, 3, 9, 1, 8, 2, 8, 5, 6, 6, 6, 6],
        };
        filter_mode(&mut g);
        assert_eq!(g.data, vec![1, 2, 2, 7, /**/ 1, 2, 2, 1, /**/ 3, 3, 1, 1, /**/ 6, 6, 6, 6]);
    }
}
