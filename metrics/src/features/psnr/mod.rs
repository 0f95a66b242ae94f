//! Integer PSNR (`psnr_y`, `psnr_cb`, `psnr_cr`): the exact CPU twin of
//! libvmaf 3.2.0's `psnr` extractor.
//!
//! Per plane, libvmaf sums the squared sample differences in integers (the
//! SSE, which the GPU kernel produces) and only then goes to double on the
//! host: `mse = sse / (w·h)`, `psnr = min(10·log10(peak² / max(mse, 1e-16)),
//! psnr_max)`. Chroma planes are scored by default.

pub mod feature;
pub mod gpu;

use crate::error::MetricsError;
use crate::plane::check_pair;

/// libvmaf's psnr extractor options, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsnrParams {
    /// `enable_chroma` (default on; forced off for monochrome input).
    pub enable_chroma: bool,
    /// `reduced_hbd_peak`: above 8 bits use `255 << (bpc − 8)` as the peak
    /// instead of `(1 << bpc) − 1`, to line up with upscaled 8-bit content.
    pub reduced_hbd_peak: bool,
    /// `min_sse`: when non-zero, caps PSNR at the value this SSE would give
    /// (rounded up) instead of at `6·bpc + 12`.
    pub min_sse: f64,
}

impl Default for PsnrParams {
    fn default() -> Self {
        Self { enable_chroma: true, reduced_hbd_peak: false, min_sse: 0.0 }
    }
}

/// Chroma layout, which decides how many planes are scored and (only for
/// `min_sse`) which plane sizes libvmaf assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChromaLayout {
    Mono,
    Yuv420,
    Yuv422,
    Yuv444,
}

impl From<vqscope_video::ChromaFormat> for ChromaLayout {
    fn from(chroma: vqscope_video::ChromaFormat) -> Self {
        match chroma {
            vqscope_video::ChromaFormat::Mono => Self::Mono,
            vqscope_video::ChromaFormat::Yuv420 => Self::Yuv420,
            vqscope_video::ChromaFormat::Yuv422 => Self::Yuv422,
            vqscope_video::ChromaFormat::Yuv444 => Self::Yuv444,
        }
    }
}

/// Everything the host needs to turn a plane's SSE into dB, fixed per video.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsnrSetup {
    /// Peak sample value, as libvmaf keeps it (a 32-bit unsigned integer).
    pub peak: u32,
    /// Per-plane ceiling in dB.
    pub psnr_max: [f64; 3],
    /// Planes scored: 1 (luma) or 3.
    pub planes: usize,
}

/// The peak libvmaf uses: 255 at 8 bits (hard-coded there), `(1 << bpc) − 1`
/// above, or `255 << (bpc − 8)` with `reduced_hbd_peak`.
pub fn peak(bpc: u32, reduced_hbd_peak: bool) -> u32 {
    if bpc == 8 {
        255
    } else if reduced_hbd_peak {
        255 << (bpc - 8)
    } else {
        (1 << bpc) - 1
    }
}

/// `peak²` as libvmaf computes it: a product in 32-bit unsigned integers
/// (exact up to 16 bits), converted to double only for the division.
pub(crate) fn peak_squared(peak: u32) -> f64 {
    f64::from(peak.wrapping_mul(peak))
}

impl PsnrSetup {
    /// Setup for a video whose luma plane is `luma_width × luma_height`.
    pub fn new(
        params: &PsnrParams,
        bpc: u32,
        luma_width: u32,
        luma_height: u32,
        layout: ChromaLayout,
    ) -> Self {
        let peak = peak(bpc, params.reduced_hbd_peak);
        let planes = if params.enable_chroma && layout != ChromaLayout::Mono { 3 } else { 1 };
        let psnr_max = std::array::from_fn(|p| {
            if params.min_sse == 0.0 {
                f64::from(6 * bpc + 12)
            } else {
                min_sse_ceiling(params.min_sse, peak, p, luma_width, luma_height, layout)
            }
        });
        Self { peak, psnr_max, planes }
    }

    /// PSNR in dB of plane `plane` from its SSE and size.
    pub fn psnr(&self, plane: usize, sse: u64, width: u32, height: u32) -> f64 {
        psnr_db(sse, width, height, self.peak, self.psnr_max[plane])
    }
}

/// The ceiling `min_sse` implies: `ceil(10·log10(peak² / (min_sse / n)))`,
/// where libvmaf takes `n` for chroma as `(w/2)·(h/2)` (truncating halves,
/// horizontal halving unless 4:4:4, vertical only for 4:2:0) — not the true
/// rounded-up chroma size.
fn min_sse_ceiling(
    min_sse: f64,
    peak: u32,
    plane: usize,
    w: u32,
    h: u32,
    layout: ChromaLayout,
) -> f64 {
    let ss_hor = layout != ChromaLayout::Yuv444;
    let ss_ver = layout == ChromaLayout::Yuv420;
    let pw = if plane > 0 && ss_hor { w / 2 } else { w };
    let ph = if plane > 0 && ss_ver { h / 2 } else { h };
    let mse = min_sse / f64::from(pw.wrapping_mul(ph));
    (10.0 * (peak_squared(peak) / mse).log10()).ceil()
}

/// `min(10·log10(peak² / max(mse, 1e-16)), psnr_max)` with
/// `mse = sse / (w·h)` (`w·h` a wrapping 32-bit product, as in libvmaf).
pub fn psnr_db(sse: u64, width: u32, height: u32, peak: u32, psnr_max: f64) -> f64 {
    let mse = sse as f64 / f64::from(width.wrapping_mul(height));
    let floor = if mse > 1e-16 { mse } else { 1e-16 };
    let db = 10.0 * (peak_squared(peak) / floor).log10();
    if db < psnr_max { db } else { psnr_max }
}

/// Sum of squared differences of one plane at 8 bits: each row summed in a
/// wrapping `u32` (as libvmaf does; it only wraps for rows over 66 000
/// samples), rows added into a `u64`.
pub fn sse_8(reference: &crate::PlaneView, distorted: &crate::PlaneView) -> u64 {
    let mut sse = 0u64;
    for y in 0..reference.height {
        let row = reference.row(y).iter().zip(distorted.row(y));
        let row_sse = row.fold(0u32, |acc, (&r, &d)| {
            let e = i32::from(r) - i32::from(d);
            acc.wrapping_add((e * e) as u32)
        });
        sse += u64::from(row_sse);
    }
    sse
}

/// Sum of squared differences of one plane above 8 bits: every square (a
/// `u32`, exact up to 16 bits) goes straight into the `u64` total.
pub fn sse_hbd(reference: &crate::PlaneView, distorted: &crate::PlaneView) -> u64 {
    let mut sse = 0u64;
    for y in 0..reference.height {
        for (&r, &d) in reference.row(y).iter().zip(distorted.row(y)) {
            let e = u32::from(r.abs_diff(d));
            sse += u64::from(e.wrapping_mul(e));
        }
    }
    sse
}

/// The SSE of one plane pair, on libvmaf's 8-bit or high-bit-depth path.
/// The planes must match in size and depth (libvmaf refuses other pairs).
pub fn plane_sse(
    reference: &crate::PlaneView,
    distorted: &crate::PlaneView,
) -> Result<u64, MetricsError> {
    let (r, d) = (reference, distorted);
    check_pair("psnr", r, d)?;
    if !(8..=16).contains(&r.bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: "psnr",
            option: "bpc",
            value: i64::from(r.bpc),
            allowed: "8 to 16",
        });
    }
    Ok(if r.bpc == 8 { sse_8(r, d) } else { sse_hbd(r, d) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlaneView;

    #[test]
    fn sse_of_small_planes_8_and_10_bit() {
        let r = [10u16, 20, 30, 40, 50, 60];
        let d = [13u16, 20, 26, 40, 50, 61];
        // 9 + 0 + 16 + 0 + 0 + 1
        let (pr, pd) = (PlaneView::packed(3, 2, 8, &r), PlaneView::packed(3, 2, 8, &d));
        assert_eq!(plane_sse(&pr, &pd).unwrap(), 26);
        let (pr, pd) = (PlaneView::packed(3, 2, 10, &r), PlaneView::packed(3, 2, 10, &d));
        assert_eq!(plane_sse(&pr, &pd).unwrap(), 26);
        let r = [1023u16, 0];
        let d = [0u16, 1023];
        let (pr, pd) = (PlaneView::packed(2, 1, 10, &r), PlaneView::packed(2, 1, 10, &d));
        assert_eq!(plane_sse(&pr, &pd).unwrap(), 2 * 1023 * 1023);
    }

    /// At 8 bits a row's SSE is a wrapping `u32`: 70 000 differences of 255
    /// give 4 551 750 000, i.e. 256 782 704 after the wrap; above 8 bits
    /// there is no per-row wrap.
    #[test]
    fn eight_bit_row_sse_wraps_in_u32() {
        let r = vec![255u16; 70_000];
        let d = vec![0u16; 70_000];
        let (pr, pd) = (PlaneView::packed(70_000, 1, 8, &r), PlaneView::packed(70_000, 1, 8, &d));
        assert_eq!(plane_sse(&pr, &pd).unwrap(), 256_782_704);
        let (pr, pd) = (PlaneView::packed(70_000, 1, 10, &r), PlaneView::packed(70_000, 1, 10, &d));
        assert_eq!(plane_sse(&pr, &pd).unwrap(), 4_551_750_000);
    }

    #[test]
    fn sse_skips_stride_padding() {
        let r = [5u16, 5, 99, 5, 5, 99];
        let d = [4u16, 5, 0, 5, 7, 0];
        fn v(s: &[u16]) -> PlaneView<'_> {
            PlaneView { width: 2, height: 2, stride: 3, bpc: 8, samples: s }
        }
        assert_eq!(plane_sse(&v(&r), &v(&d)).unwrap(), 1 + 4);
    }

    #[test]
    fn peaks() {
        assert_eq!(peak(8, false), 255);
        assert_eq!(peak(8, true), 255);
        assert_eq!(peak(10, false), 1023);
        assert_eq!(peak(10, true), 1020);
        assert_eq!(peak(12, false), 4095);
        assert_eq!(peak(16, false), 65535);
    }

    #[test]
    fn psnr_of_mse_one_is_peak_squared_in_db() {
        // mse 1 → 10·log10(65025) = 48.130803608679...
        let db = psnr_db(100, 10, 10, 255, 60.0);
        assert!((db - 48.130_803_608_679).abs() < 1e-9, "{db}");
        // 10 bits: 10·log10(1023²) = 60.19751267...
        let db = psnr_db(4, 2, 2, 1023, 72.0);
        assert!((db - 60.197_512_674_243).abs() < 1e-9, "{db}");
    }

    #[test]
    fn identical_planes_hit_the_ceiling() {
        let s = PsnrSetup::new(&PsnrParams::default(), 8, 4, 4, ChromaLayout::Yuv420);
        assert_eq!(s.psnr_max, [60.0; 3]);
        assert_eq!(s.planes, 3);
        assert_eq!(s.psnr(0, 0, 4, 4), 60.0);
        let s = PsnrSetup::new(&PsnrParams::default(), 10, 4, 4, ChromaLayout::Mono);
        assert_eq!((s.psnr_max[0], s.planes), (72.0, 1));
        let s = PsnrSetup::new(&PsnrParams::default(), 12, 4, 4, ChromaLayout::Yuv444);
        assert_eq!(s.psnr(2, 0, 4, 4), 84.0);
    }

    #[test]
    fn min_sse_ceiling_uses_truncated_chroma_size() {
        // 8-bit 5×4 4:2:0, min_sse 1: luma n = 20 → ceil(10·log10(65025·20))
        // = ceil(61.14) = 62; chroma n = 2·2 = 4 → ceil(54.15) = 55.
        let p = PsnrParams { min_sse: 1.0, ..Default::default() };
        let s = PsnrSetup::new(&p, 8, 5, 4, ChromaLayout::Yuv420);
        assert_eq!(s.psnr_max, [62.0, 55.0, 55.0]);
    }
}
