//! `float_ansnr` (`float_ansnr`, `float_anpsnr`): the exact CPU twin of
//! libvmaf 3.2.0's float ANSNR extractor, a signal-to-noise ratio of the
//! luma planes after low-pass filtering both.
//!
//! libvmaf's steps, all in float, each reproduced here in its order:
//!
//! 1. Samples become floats on the 0–255 scale, shifted by −128:
//!    `v / scaler − 128`, exact (a multiple of `1/scaler` below 256 in
//!    magnitude needs at most 16 significant bits).
//! 2. The reference is filtered with a 3×3 kernel ([`REF_TAPS`]), the
//!    distorted with a 5×5 one ([`DIS_TAPS`]), both 2-D (libvmaf's 1-D
//!    option is compiled out), mirrored at the borders ([`mirror`]). Each
//!    output is a float sum over kernel rows of float sums over kernel
//!    columns of float products, in that order ([`filter`]).
//! 3. `sig = Σ rf²` and `noise = Σ (rf − df)²`, float products added to a
//!    float row accumulator along each row, each row's total added to a
//!    float frame accumulator, top to bottom ([`ansnr_sums`]). Float sums
//!    round at every step, so this order is reproduced exactly, on the GPU
//!    too (one invocation per row, then one over the rows).
//! 4. `float_ansnr = 10·log10(sig / noise)` with the quotient a float
//!    division (`psnr_max` when `noise` is 0); `float_anpsnr =
//!    min(10·log10(peak²·w·h / max(noise, 1e-10)), psnr_max)` in double
//!    ([`ansnr_scores`]), with float_psnr's per-depth table
//!    ([`FloatDepth`]).
//!
//! libvmaf has no minimum frame size here, but its 5-tap mirror reads
//! outside a plane narrower or lower than 3 samples; such frames are
//! refused.

pub mod feature;
pub mod gpu;

use crate::MetricsError;
use crate::features::float_psnr::{self, FloatDepth};
use crate::plane::PlaneView;

/// The name libvmaf's extractor goes by.
const FEATURE: &str = "float_ansnr";

/// The floor libvmaf puts under the noise before `float_anpsnr`'s log.
const NOISE_FLOOR: f64 = 1e-10;

/// Side of the reference's filter.
pub const REF_SIDE: usize = 3;
/// Side of the distorted's filter.
pub const DIS_SIDE: usize = 5;

/// Taps `weights[i] / divisor`, each the double quotient rounded to float,
/// as libvmaf's initialisers of its `float` tables convert `k / 571.0`.
const fn taps<const N: usize>(weights: [u32; N], divisor: f64) -> [f32; N] {
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        out[i] = (weights[i] as f64 / divisor) as f32;
        i += 1;
    }
    out
}

/// The reference's 3×3 filter, row-major: the binomial kernel / 16 (exact).
pub const REF_TAPS: [f32; REF_SIDE * REF_SIDE] = taps([1, 2, 1, 2, 4, 2, 1, 2, 1], 16.0);

/// The distorted's 5×5 filter, row-major: integer weights / 571, each
/// rounded to float.
pub const DIS_TAPS: [f32; DIS_SIDE * DIS_SIDE] = taps(
    [
        2, 7, 12, 7, 2, //
        7, 31, 52, 31, 7, //
        12, 52, 127, 52, 12, //
        7, 31, 52, 31, 7, //
        2, 7, 12, 7, 2,
    ],
    571.0,
);

/// libvmaf's border for the filters: index −i reads i (the edge sample is
/// not repeated), index n−1+i reads n−i (it is). Valid for −n < i < 2n,
/// which planes of at least 3 samples guarantee for both filters.
pub fn mirror(i: isize, n: usize) -> usize {
    let n = n as isize;
    let m = if i < 0 {
        -i
    } else if i >= n {
        2 * n - i - 1
    } else {
        i
    };
    m as usize
}

/// The frame's two float sums, as libvmaf's `ansnr_mse` leaves them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnsnrSums {
    /// Σ rf² (signal energy of the filtered reference).
    pub sig: f32,
    /// Σ (rf − df)² (energy of the filtered difference).
    pub noise: f32,
}

/// Refuses what [`ansnr_sums`] cannot score and returns the depth's table
/// entry: float_psnr's checks, plus planes of at least 3×3.
pub(crate) fn check(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<FloatDepth, MetricsError> {
    let depth = float_psnr::check(FEATURE, reference, distorted)?;
    if reference.width < DIS_SIDE / 2 + 1 || reference.height < DIS_SIDE / 2 + 1 {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width: reference.width,
            height: reference.height,
            reason: "the 5-tap mirrored filter needs at least 3x3 samples",
        });
    }
    Ok(depth)
}

/// A plane as libvmaf's `picture_copy` leaves it for ANSNR: row-major
/// floats `v / scaler − 128` (exact).
fn shifted_floats(plane: &PlaneView<'_>, scaler: f32) -> Vec<f32> {
    let mut out = Vec::with_capacity(plane.width * plane.height);
    for y in 0..plane.height {
        out.extend(plane.row(y).iter().map(|&v| f32::from(v) / scaler - 128.0));
    }
    out
}

/// The 2-D filter `taps` (`side × side`, row-major) over a `width × height`
/// float plane, libvmaf's arithmetic: for each output, per kernel row a
/// float sum of float products left to right, those row sums added in a
/// float top to bottom.
pub fn filter(src: &[f32], width: usize, height: usize, taps: &[f32], side: usize) -> Vec<f32> {
    let half = (side / 2) as isize;
    let mut out = Vec::with_capacity(width * height);
    for i in 0..height as isize {
        for j in 0..width as isize {
            let mut acc = 0.0f32;
            for fi in 0..side {
                let row = mirror(i - half + fi as isize, height) * width;
                let mut inner = 0.0f32;
                for fj in 0..side {
                    let col = mirror(j - half + fj as isize, width);
                    inner += taps[fi * side + fj] * src[row + col];
                }
                acc += inner;
            }
            out.push(acc);
        }
    }
    out
}

/// `sig` and `noise` of one luma pair: both planes shifted and filtered,
/// then libvmaf's per-row float sums of `rf²` and `(rf − df)²` added row
/// by row into float totals.
pub fn ansnr_sums(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<AnsnrSums, MetricsError> {
    let depth = check(reference, distorted)?;
    let (w, h) = (reference.width, reference.height);
    let rf = filter(&shifted_floats(reference, depth.scaler), w, h, &REF_TAPS, REF_SIDE);
    let df = filter(&shifted_floats(distorted, depth.scaler), w, h, &DIS_TAPS, DIS_SIDE);
    let (mut sig, mut noise) = (0.0f32, 0.0f32);
    for (r_row, d_row) in rf.chunks_exact(w).zip(df.chunks_exact(w)) {
        let (mut row_sig, mut row_noise) = (0.0f32, 0.0f32);
        for (&r, &d) in r_row.iter().zip(d_row) {
            row_sig += r * r;
            row_noise += (r - d) * (r - d);
        }
        sig += row_sig;
        noise += row_noise;
    }
    Ok(AnsnrSums { sig, noise })
}

/// `(float_ansnr, float_anpsnr)` of a `width × height` frame from its sums,
/// in libvmaf's precision: `sig / noise` a float division widened for the
/// double log; `peak·peak·w·h` multiplied left to right in double; the
/// floor and cap as libvmaf's `MAX`/`MIN` macros compare.
pub fn ansnr_scores(sums: &AnsnrSums, width: u32, height: u32, depth: &FloatDepth) -> [f64; 2] {
    let ansnr = if sums.noise == 0.0 {
        depth.psnr_max
    } else {
        10.0 * f64::from(sums.sig / sums.noise).log10()
    };
    let noise = f64::from(sums.noise);
    let noise = if noise > NOISE_FLOOR { noise } else { NOISE_FLOOR };
    let energy =
        depth.peak * depth.peak * f64::from(width as i32) * f64::from(height as i32) / noise;
    let anpsnr = 10.0 * energy.log10();
    [ansnr, if anpsnr < depth.psnr_max { anpsnr } else { depth.psnr_max }]
}

/// `[float_ansnr, float_anpsnr]` of one luma pair.
pub fn float_ansnr(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<[f64; 2], MetricsError> {
    let sums = ansnr_sums(reference, distorted)?;
    let depth = check(reference, distorted)?;
    Ok(ansnr_scores(&sums, reference.width as u32, reference.height as u32, &depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_are_libvmafs_floats() {
        assert_eq!(REF_TAPS[4], 0.25);
        assert_eq!(REF_TAPS[0], 0.0625);
        // The float nearest the double 127/571, not the float quotient of
        // floats (which happens to agree here) nor 127/571 itself.
        assert_eq!(DIS_TAPS[12], (127.0f64 / 571.0) as f32);
        assert_eq!(DIS_TAPS[12].to_bits(), 0x3e63_c13c);
        let weights: u32 = [2, 7, 12, 7, 2, 7, 31, 52, 31, 7].iter().sum::<u32>() * 2
            + [12, 52, 127, 52, 12].iter().sum::<u32>();
        assert_eq!(weights, 571);
    }

    #[test]
    fn mirror_skips_the_first_edge_and_repeats_the_last() {
        let got: Vec<usize> = (-2..7).map(|i| mirror(i, 5)).collect();
        assert_eq!(got, [2, 1, 0, 1, 2, 3, 4, 4, 3]);
        let got: Vec<usize> = (-2..5).map(|i| mirror(i, 3)).collect();
        assert_eq!(got, [2, 1, 0, 1, 2, 2, 1]);
    }

    #[test]
    fn flat_planes() {
        // The reference filter's taps are exact and sum to 1, so a flat
        // 200 (72 after the shift) stays 72 and sig = w·h·72² exactly.
        let r = vec![200u16; 12];
        let (rv, dv) = (PlaneView::packed(4, 3, 8, &r), PlaneView::packed(4, 3, 8, &r));
        assert_eq!(ansnr_sums(&rv, &dv).unwrap().sig, 12.0 * 72.0 * 72.0);
        // Mid-grey is 0 after the shift: no signal, no noise; ANSNR takes
        // the cap, ANPSNR the noise floor and then the cap.
        let g = vec![128u16; 12];
        let gv = PlaneView::packed(4, 3, 8, &g);
        assert_eq!(ansnr_sums(&gv, &gv).unwrap(), AnsnrSums { sig: 0.0, noise: 0.0 });
        assert_eq!(float_ansnr(&gv, &gv).unwrap(), [60.0, 60.0]);
    }

    #[test]
    fn refuses_what_libvmaf_cannot_read() {
        let s = [0u16; 8];
        for (w, h) in [(2, 4), (4, 2), (1, 1)] {
            let p = PlaneView::packed(w, h, 8, &s[..w * h]);
            assert!(ansnr_sums(&p, &p).is_err(), "{w}x{h}");
        }
        let p = PlaneView::packed(3, 3, 8, &[0; 9]);
        assert!(ansnr_sums(&p, &p).is_ok());
        let p = PlaneView::packed(3, 3, 14, &[0; 9]);
        assert!(ansnr_sums(&p, &p).is_err());
    }
}
