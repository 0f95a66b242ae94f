//! Integer VIF (`integer_vif_scale0..3` and the debug values `integer_vif`,
//! `integer_vif_num/den`, `integer_vif_num/den_scaleK`): the exact CPU twin of
//! libvmaf 3.2.0's `vif` extractor (`integer_vif.c`).
//!
//! VIF compares, at four scales, how much of the reference's local variance
//! survives in the distorted frame. libvmaf computes it in fixed point with a
//! fixed-point log2; only the per-pixel gain `g` goes through double
//! precision. Each stage below is a pure function over planes, shaped so it
//! can become one GPU compute kernel:
//!
//! 1. [`scale_sums`] (per scale `k`, filter [`FILTERS`]`[k]`): vertical then
//!    horizontal separable filter of `x`, `y`, `x²`, `y²`, `xy` with
//!    libvmaf's per-pass rounding and mirror, the σ's by wrapping `u32`
//!    subtraction, each pixel's terms ([`accumulate_pixel`]), summed into four
//!    `i64` ([`VifScaleSums`]). Integer sums, so any reduction order works.
//! 2. [`decimate`] (between scales): blur with the *next* scale's filter at
//!    the current resolution, keep `[2i][2j]`; sizes `⌊w/2⌋ × ⌊h/2⌋`.
//! 3. [`features`] on the host: the sums become libvmaf's `float`
//!    numerators/denominators and the `float` quotient per scale.
//!
//! [`frame_sums`] runs stages 1–2 for a frame (what the GPU produces and
//! reduces); [`vif_frame`] adds stage 3.
//!
//! The log2 table must be built from single-precision `log2f` ([`Log2Table`]).
//! On a GPU, every `a·b ± c` in [`gain_terms`] must be `precise` (an
//! FMA changes the truncated `sv²`), and the double division must be
//! correctly rounded — see LIBVMAF-PORTING.md §1 and §7.

pub mod feature;
mod filter;
pub mod gpu;
mod host;
mod log2;
mod stat;

pub use filter::{
    DECIMATED_BPC, FILTERS, VifPlane, decimate, mirror, mu_shift, pad_row, rounding, sq_shift,
};
pub use host::{FEATURE_NAMES, VifFeatures, VifFrameSums, features, scale_num_den};
pub use log2::{LOG2_TABLE_LEN, Log2Table, log2_table};
pub use stat::{
    G_EPS, Moments, RowScratch, SIGMA_NSQ, VifScaleSums, accumulate_pixel, gain_terms, row_moments,
    scale_sums, sigmas,
};

use crate::error::MetricsError;
use crate::plane::PlaneView;
use crate::plane::check_pair;

/// libvmaf's default enhancement gain limit (`vif_enhn_gain_limit`, alias
/// `egl`); also its maximum.
pub const DEFAULT_ENHN_GAIN_LIMIT: f64 = 100.0;

/// The gain limit the NEG ("no enhancement gain") models set: 1.0 disables
/// any credit for the distorted frame being sharper than the reference.
pub const NEG_ENHN_GAIN_LIMIT: f64 = 1.0;

/// Smallest luma plane VIF accepts, each way. libvmaf's padding mirrors once
/// (`−k → k`), which needs a plane side above the filter's half-width at
/// every scale: 9 at scale 0 (half 8), then 5, 3, 2 after one, two, three
/// halvings — so 16 (⌊16/8⌋ = 2). libvmaf itself accepts smaller frames but
/// then reads stale buffer memory beyond the plane; we refuse them.
pub const MIN_SIDE: usize = 16;

/// libvmaf's `vif` options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VifOptions {
    /// `vif_enhn_gain_limit` (`egl`): caps `g`; must lie in `[1, 100]`.
    pub enhn_gain_limit: f64,
    /// `vif_skip_scale0` (`ssclz`): skip scale 0's statistics (its value is
    /// then reported as 0).
    pub skip_scale0: bool,
}

impl Default for VifOptions {
    fn default() -> Self {
        Self { enhn_gain_limit: DEFAULT_ENHN_GAIN_LIMIT, skip_scale0: false }
    }
}

impl VifOptions {
    /// The options the NEG models use (egl = 1.0).
    pub fn neg() -> Self {
        Self { enhn_gain_limit: NEG_ENHN_GAIN_LIMIT, ..Self::default() }
    }
}

/// Width and height of scale `k` (0..4) for a `w × h` frame: floor halving.
pub fn scale_size(w: usize, h: usize, k: usize) -> (usize, usize) {
    (w >> k, h >> k)
}

/// Checks a plane pair and the options before any work: same size and depth,
/// a depth libvmaf handles (8 to 16 bits), at least [`MIN_SIDE`] each way,
/// and a gain limit in libvmaf's `[1, 100]`.
pub fn check(r: &PlaneView, d: &PlaneView, opts: &VifOptions) -> Result<(), MetricsError> {
    check_pair("vif", r, d)?;
    if !(8..=16).contains(&r.bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: "vif",
            option: "bpc",
            value: i64::from(r.bpc),
            allowed: "8 to 16",
        });
    }
    // Written so that NaN is refused too.
    if !(opts.enhn_gain_limit >= 1.0 && opts.enhn_gain_limit <= DEFAULT_ENHN_GAIN_LIMIT) {
        return Err(MetricsError::FloatOptionOutOfRange {
            feature: "vif",
            option: "vif_enhn_gain_limit",
            value: opts.enhn_gain_limit,
            allowed: "1.0 to 100.0",
        });
    }
    if r.width < MIN_SIDE || r.height < MIN_SIDE {
        return Err(MetricsError::FrameTooSmall {
            feature: "vif",
            width: r.width,
            height: r.height,
            reason: "VIF's four scales need at least 16x16 samples (the 3-tap filter \
                     at 1/8 size needs 2 samples each way)",
        });
    }
    Ok(())
}

/// One frame's VIF sums at all four scales (stages 1 and 2): what the GPU
/// pipeline produces and reduces. Scale 0 runs on the input planes with
/// their own `bpc`; each later scale on the decimation of the one before.
pub fn frame_sums(
    reference: &PlaneView,
    distorted: &PlaneView,
    opts: &VifOptions,
) -> Result<VifFrameSums, MetricsError> {
    check(reference, distorted, opts)?;
    let log2 = log2_table();
    let egl = opts.enhn_gain_limit;
    let mut scratch = RowScratch::default();
    let mut sums = VifFrameSums { skip_scale0: opts.skip_scale0, ..Default::default() };
    if !opts.skip_scale0 {
        sums.scales[0] = scale_sums(reference, distorted, FILTERS[0], egl, log2, &mut scratch);
    }
    let mut r = decimate(reference, FILTERS[1]);
    let mut d = decimate(distorted, FILTERS[1]);
    for k in 1..4 {
        sums.scales[k] = scale_sums(&r.view(), &d.view(), FILTERS[k], egl, log2, &mut scratch);
        if k < 3 {
            r = decimate(&r.view(), FILTERS[k + 1]);
            d = decimate(&d.view(), FILTERS[k + 1]);
        }
    }
    Ok(sums)
}

/// One frame's VIF values, exactly as libvmaf reports them.
pub fn vif_frame(
    reference: &PlaneView,
    distorted: &PlaneView,
    opts: &VifOptions,
) -> Result<VifFeatures, MetricsError> {
    Ok(features(&frame_sums(reference, distorted, opts)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(w: usize, h: usize, f: impl Fn(usize, usize) -> u16) -> Vec<u16> {
        (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).map(|(x, y)| f(x, y)).collect()
    }

    #[test]
    fn constant_frame_is_one() {
        for (w, h, bpc, v) in [(16, 16, 8, 77u16), (37, 23, 10, 600), (64, 17, 12, 3000)] {
            let s = plane(w, h, |_, _| v);
            let p = PlaneView::packed(w, h, bpc, &s);
            let sums = frame_sums(&p, &p, &VifOptions::default()).unwrap();
            for k in 0..4 {
                let (sw, sh) = scale_size(w, h, k);
                assert_eq!(
                    sums.scales[k],
                    VifScaleSums { den_non_log: (sw * sh) as i64, ..Default::default() }
                );
            }
            let f = features(&sums);
            assert_eq!(f.scale, [1.0; 4]);
            assert_eq!(f.vif, 1.0);
        }
    }

    /// Comparing a textured frame with itself: every scale's score is close
    /// to 1 (not exactly: fixed-point log2 truncation), and the NEG limit
    /// does not change anything because g ≤ 1 there.
    #[test]
    fn identical_textured_frames() {
        let s = plane(48, 40, |x, y| ((x * 37 + y * 91 + (x * y) % 17) % 256) as u16);
        let p = PlaneView::packed(48, 40, 8, &s);
        let a = vif_frame(&p, &p, &VifOptions::default()).unwrap();
        let b = vif_frame(&p, &p, &VifOptions::neg()).unwrap();
        assert_eq!(a, b);
        for k in 0..4 {
            assert!((a.scale[k] - 1.0).abs() < 0.01, "scale {k}: {}", a.scale[k]);
        }
    }

    /// A sharpened distorted frame gets credit (score > 1 possible) with the
    /// default limit but not with NEG's 1.0.
    #[test]
    fn gain_limit_matters_for_enhancement() {
        let r = plane(64, 64, |x, y| (128 + ((x / 3 + y / 5) % 7) * 6) as u16);
        let d = plane(64, 64, |x, y| (128 + ((x / 3 + y / 5) % 7) * 12) as u16);
        let rp = PlaneView::packed(64, 64, 8, &r);
        let dp = PlaneView::packed(64, 64, 8, &d);
        let a = vif_frame(&rp, &dp, &VifOptions::default()).unwrap();
        let b = vif_frame(&rp, &dp, &VifOptions::neg()).unwrap();
        assert!(a.scale[0] > 1.0, "{}", a.scale[0]);
        assert!(b.scale[0] <= 1.0, "{}", b.scale[0]);
    }

    #[test]
    fn size_and_option_checks() {
        let s = vec![0u16; 16 * 15];
        let p = PlaneView::packed(16, 15, 8, &s);
        assert!(matches!(
            frame_sums(&p, &p, &VifOptions::default()),
            Err(MetricsError::FrameTooSmall { .. })
        ));
        let s = vec![0u16; 15 * 16];
        let p = PlaneView::packed(15, 16, 8, &s);
        assert!(frame_sums(&p, &p, &VifOptions::default()).is_err());
        let s = vec![0u16; 16 * 16];
        let p = PlaneView::packed(16, 16, 8, &s);
        assert!(frame_sums(&p, &p, &VifOptions::default()).is_ok());
        for egl in [0.5, 100.5, f64::NAN] {
            let o = VifOptions { enhn_gain_limit: egl, ..Default::default() };
            assert!(matches!(
                frame_sums(&p, &p, &o),
                Err(MetricsError::FloatOptionOutOfRange { .. })
            ));
        }
        let q = PlaneView::packed(16, 16, 10, &s);
        assert!(matches!(
            frame_sums(&p, &q, &VifOptions::default()),
            Err(MetricsError::PlaneMismatch { .. })
        ));
        let q = PlaneView::packed(16, 16, 7, &s);
        assert!(frame_sums(&q, &q, &VifOptions::default()).is_err());
    }

    /// The smallest accepted frame keeps every mirror inside its plane.
    #[test]
    fn min_side_covers_every_scale() {
        for (k, f) in FILTERS.iter().enumerate() {
            let (w, _) = scale_size(MIN_SIDE, MIN_SIDE, k);
            assert!(w > f.len() / 2, "scale {k}");
        }
        let (w, _) = scale_size(MIN_SIDE - 1, MIN_SIDE - 1, 3);
        assert!(w <= FILTERS[3].len() / 2);
    }

    #[test]
    fn skip_scale0_matches_full_run_on_other_scales() {
        let s = plane(40, 36, |x, y| ((x * x + 3 * y) % 251) as u16);
        let t = plane(40, 36, |x, y| ((x * x + 3 * y + (x ^ y) % 5) % 251) as u16);
        let (r, d) = (PlaneView::packed(40, 36, 8, &s), PlaneView::packed(40, 36, 8, &t));
        let full = frame_sums(&r, &d, &VifOptions::default()).unwrap();
        let skip =
            frame_sums(&r, &d, &VifOptions { skip_scale0: true, ..Default::default() }).unwrap();
        assert_eq!(skip.scales[0], VifScaleSums::default());
        assert_eq!(full.scales[1..], skip.scales[1..]);
    }
}
