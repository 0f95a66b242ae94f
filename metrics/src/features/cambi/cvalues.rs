//! CAMBI's per-pixel banding confidence, the "c-value" (libvmaf's
//! `calculate_c_values`): for each masked pixel, how strongly its window
//! holds two large regions one to `2^max_log_contrast` codes apart.
//!
//! For pixel `(i, j)` with value `v` the window is rows `i−pad..=i+pad`
//! and columns `j−pad..=j+pad` clipped to the frame (`pad` = half the
//! window); `p(u)` counts the masked pixels of value `u` in it. For each
//! contrast step `d = 1..=num_diffs` whose threshold admits `v` (see
//! [`Contrast`]), the candidate is `weight[d]·p(v)·p(w) / (p(v) + p(w))`
//! with `w = v + d` or `v − d`, whichever has more pixels (`v + d` on a
//! tie losing to neither: libvmaf takes `v + d` only when strictly more).
//! The c-value is the largest candidate, 0 for unmasked pixels.
//!
//! Arithmetic as libvmaf's: the integer product `weight·p(v)·p(w)`
//! converted to float, times a float reciprocal from libvmaf's table
//! ([`reciprocal`]); the maximum kept in float. libvmaf keeps one
//! histogram per code only for the codes that can matter (the "band",
//! [`Contrast::band`]) and slides it down the frame; the counts are the
//! same integers as counting each window afresh.

use std::sync::OnceLock;

use super::Grid;

/// Suprathreshold contrast response: the weight of a step of `d+1` codes
/// (libvmaf's `g_contrast_weights`).
pub const CONTRAST_WEIGHTS: [i32; 32] = [
    1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
];

/// Entries of libvmaf's reciprocal table (`CAMBI_RECIPROCAL_LUT_SIZE`):
/// window areas must stay below it.
pub const RECIPROCAL_LEN: usize = 4226;

/// libvmaf's `reciprocal_lut[n]`: `1/n` as the table's source writes it,
/// a decimal of 9 significant digits (of the double `1/n`) read as a float
/// literal; 0 for 0. That is not always the float nearest `1/n` (42 of
/// the entries differ from `1.0f32 / n`), so the table is rebuilt the way
/// it was generated.
pub fn reciprocal(n: usize) -> f32 {
    static TABLE: OnceLock<Vec<f32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..RECIPROCAL_LEN)
            .map(|n| {
                if n == 0 {
                    0.0
                } else {
                    format!("{:.8e}", 1.0 / n as f64).parse::<f32>().expect("float literal")
                }
            })
            .collect()
    })[n]
}

/// The contrast steps CAMBI looks for and their visibility limits, in the
/// "adjusted" code space libvmaf uses (code + `num_diffs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contrast {
    /// `2^max_log_contrast`: steps of 1..=num_diffs codes.
    pub num_diffs: u16,
    /// Per step `d+1`: the last visible code plus `num_diffs`.
    pub tvi: Vec<u16>,
    /// The first code at the visibility luminance threshold (0: none).
    pub vlt_luma: u16,
}

impl Contrast {
    /// The codes whose pixels can affect any c-value: from
    /// `vlt_luma − 3·num_diffs + 1` (at least 0) up to the largest
    /// threshold, as `(first, count)` (libvmaf's `v_band_base`,
    /// `v_band_size`). Others are left out of the histograms. `None` when
    /// the first lies more than one code above the largest threshold: a
    /// negative count, which libvmaf 3.2.0 wraps to 16 bits and then reads
    /// far outside its histograms (it crashes).
    pub fn band(&self) -> Option<(u16, u16)> {
        let lo = i32::from(self.vlt_luma) - 3 * i32::from(self.num_diffs) + 1;
        let base = lo.max(0);
        let size = i32::from(self.tvi[usize::from(self.num_diffs) - 1]) + 1 - base;
        (size >= 0).then_some((base as u16, size as u16))
    }
}

/// Counts of each band code in the window of every column of one row:
/// `counts[(code − base)·width + column]`.
struct Histograms {
    counts: Vec<u16>,
    width: usize,
    pad: usize,
    base: u16,
    size: u16,
}

impl Histograms {
    /// Adds (`up`) or removes row `row`'s masked band pixels: each to the
    /// windows of the columns within `pad` of it.
    fn update(&mut self, image: &Grid, mask: &Grid, row: usize, up: bool) {
        let w = self.width;
        for j in 0..w {
            if mask.data[row * w + j] == 0 {
                continue;
            }
            let slot = image.data[row * w + j].wrapping_sub(self.base);
            if slot >= self.size {
                continue;
            }
            let lo = j.saturating_sub(self.pad);
            let hi = (j + self.pad + 1).min(w);
            let cells = &mut self.counts[usize::from(slot) * w + lo..usize::from(slot) * w + hi];
            for c in cells {
                *c = if up { c.wrapping_add(1) } else { c.wrapping_sub(1) };
            }
        }
    }

    fn at(&self, slot: i32, col: usize) -> u16 {
        self.counts[slot as usize * self.width + col]
    }
}

/// libvmaf's `c_value_pixel` for a pixel of code `code` in column `col`.
fn c_value(hist: &Histograms, code: u16, col: usize, contrast: &Contrast) -> f32 {
    let nd = contrast.num_diffs;
    let value = code + nd;
    let slot = i32::from(code) - i32::from(hist.base);
    if slot < 0 || slot >= i32::from(hist.size) {
        return 0.0;
    }
    let p0 = hist.at(slot, col);
    let mut best = 0f32;
    for d in 0..nd {
        let step = i32::from(d) + 1;
        if value <= contrast.tvi[usize::from(d)]
            && i32::from(value) + step > i32::from(contrast.vlt_luma)
        {
            let p1 = hist.at(slot + step, col);
            let p2 = if slot - step >= 0 { hist.at(slot - step, col) } else { 0 };
            let weight = CONTRAST_WEIGHTS[usize::from(d)];
            let p = if p1 > p2 { p1 } else { p2 };
            let product = weight * i32::from(p0) * i32::from(p);
            let val = product as f32 * reciprocal(usize::from(p) + usize::from(p0));
            if val > best {
                best = val;
            }
        }
    }
    best
}

/// The c-values of `image` (already mode-filtered) under `mask`, row-major,
/// for a window of `window` pixels a side.
pub fn c_values(image: &Grid, mask: &Grid, window: usize, contrast: &Contrast) -> Vec<f32> {
    let (w, h) = (image.width, image.height);
    let pad = window >> 1;
    let Some((base, size)) = contrast.band() else {
        // The luminance floor lies above every threshold: no step can
        // count (`Cambi::new` refuses this, as libvmaf crashes on it).
        return vec![0.0; w * h];
    };
    let mut hist = Histograms { counts: vec![0; w * usize::from(size)], width: w, pad, base, size };
    for row in 0..pad.min(h) {
        hist.update(image, mask, row, true);
    }
    let mut out = vec![0f32; w * h];
    for i in 0..h {
        if i + pad < h {
            hist.update(image, mask, i + pad, true);
        }
        if i > pad {
            hist.update(image, mask, i - pad - 1, false);
        }
        for j in 0..w {
            if mask.data[i * w + j] != 0 {
                out[i * w + j] = c_value(&hist, image.data[i * w + j], j, contrast);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot checks against the decimals of libvmaf's table (read as float
    /// literals are), including one where it is not the float nearest
    /// `1/n`.
    #[test]
    fn reciprocal_table() {
        let literal = |s: &str| s.parse::<f32>().unwrap();
        assert_eq!(reciprocal(0), 0.0);
        assert_eq!(reciprocal(1), 1.0);
        assert_eq!(reciprocal(3), literal("0.333333333"));
        assert_eq!(reciprocal(82), literal("0.012195122"));
        assert_ne!(reciprocal(82), 1.0f32 / 82.0);
        assert_eq!(reciprocal(4225), literal("0.000236686391"));
    }

    fn contrast() -> Contrast {
        // Steps of 1 and 2 codes visible up to code 100 (adjusted: +2).
        Contrast { num_diffs: 2, tvi: vec![102, 102], vlt_luma: 0 }
    }

    /// Two flat halves one code apart in a 3x4 window that covers the whole
    /// frame: every pixel's window holds 6 of each code, so the c-value of
    /// the step of 1 is `1·6·6/12 = 3`; a step of 2 finds nothing.
    #[test]
    fn two_levels_one_code_apart() {
        let image = Grid {
            width: 4,
            height: 3,
            data: vec![50, 50, 51, 51, 50, 50, 51, 51, 50, 50, 51, 51],
        };
        let mask = Grid { width: 4, height: 3, data: vec![1; 12] };
        let c = c_values(&image, &mask, 7, &contrast());
        assert!(c.iter().all(|&v| v == 36.0 * reciprocal(12)), "{c:?}");
        // Unmasked pixels are 0 and drop out of the others' windows:
        // pixel (0,0) now sees 5 of code 50 and 6 of code 51: 30/11.
        let mut mask = mask;
        mask.data[4] = 0;
        let c = c_values(&image, &mask, 7, &contrast());
        assert_eq!(c[4], 0.0);
        assert_eq!(c[0], 30.0f32 * reciprocal(11));
    }

    /// A step of 2 codes weighs 2: `2·6·6/12 = 6`. Above the threshold
    /// (code 101 + 2 > 102) nothing counts.
    #[test]
    fn weights_and_thresholds() {
        let image = Grid {
            width: 4,
            height: 3,
            data: vec![60, 60, 62, 62, 60, 60, 62, 62, 60, 60, 62, 62],
        };
        let mask = Grid { width: 4, height: 3, data: vec![1; 12] };
        let c = c_values(&image, &mask, 7, &contrast());
        assert!(c.iter().all(|&v| v == 72.0 * reciprocal(12)), "{c:?}");
        let high = Grid { width: 4, height: 3, data: image.data.iter().map(|v| v + 41).collect() };
        assert!(c_values(&high, &mask, 7, &contrast()).iter().all(|&v| v == 0.0));
    }

    /// The band: `vlt_luma − 3·num_diffs + 1` up to the top threshold;
    /// none when it would start more than one code above it.
    #[test]
    fn band_limits() {
        let mut c = contrast();
        assert_eq!(c.band(), Some((0, 103)));
        c.vlt_luma = 100;
        assert_eq!(c.band(), Some((95, 8)));
        c.vlt_luma = 108;
        assert_eq!(c.band(), Some((103, 0)));
        c.vlt_luma = 109;
        assert_eq!(c.band(), None);
    }

    /// A narrow window only sees its neighbourhood: with a 3-pixel window
    /// (pad 1) on a 6-wide frame `[10 10 10 11 11 11]` in every row, column
    /// 1 sees only code 10 (c-value 0), column 2 sees 6 of 10 and 3 of 11
    /// (`1·6·3/9 = 2`).
    #[test]
    fn window_is_local() {
        let row = [10u16, 10, 10, 11, 11, 11];
        let image = Grid { width: 6, height: 3, data: row.repeat(3) };
        let mask = Grid { width: 6, height: 3, data: vec![1; 18] };
        let c = c_values(&image, &mask, 3, &contrast());
        // Row 1 sees all three rows; row 0 only rows 0 and 1.
        assert_eq!(c[6 + 1], 0.0);
        assert_eq!(c[6 + 2], 18.0f32 * reciprocal(9));
        assert_eq!(c[2], 8.0f32 * reciprocal(6));
    }
}
