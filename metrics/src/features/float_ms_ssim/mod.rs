//! `float_ms_ssim`: the exact CPU twin of libvmaf 3.2.0's multi-scale SSIM
//! (Wang's MS-SSIM as `feature/ms_ssim.c` runs it over the IQA code).
//!
//! Five scales: scale 0 is the luma plane itself (no pre-scale decimation,
//! unlike `float_ssim`), each further scale low-passes the previous one with
//! the 9x9 9/7-wavelet table and keeps every second sample (output size
//! `n/2 + (n&1)`, i.e. ceil). Every scale runs the same single-scale SSIM as
//! `float_ssim` ([`crate::features::float_ssim::ssim_scale`]); the frame score is the double
//! product of `l^α · c^β · s^γ` over the scales with libvmaf's float
//! exponents. The stages are the ones in [`crate::features::float_ssim`], so a GPU version
//! needs only one more kernel: the 81-tap decimation.

pub mod feature;
pub mod gpu;

use crate::error::MetricsError;
use crate::features::float_ssim::{
    FloatPlane, GAUSSIAN_LEN, LcsMeans, decimate, decimated_len, ssim_scale, to_float_plane,
};
use crate::plane::PlaneView;
use crate::plane::check_pair;

const FEATURE: &str = "float_ms_ssim";

/// Number of scales (libvmaf's `SCALES`).
pub const SCALES: usize = 5;

/// Width of the low-pass table used between scales.
pub const LPF_LEN: usize = 9;

/// One quadrant (rows and columns 0–4) of libvmaf's 9x9 low-pass table
/// `g_lpf`; the table is symmetric about its centre row and column. It is
/// *not* the outer product of libvmaf's 1-D low-pass taps (those round
/// differently), so the 2-D table itself is what must be applied.
const LPF_QUADRANT: [[f32; 5]; 5] = [
    [0.000714, -0.000450, -0.002090, 0.007132, 0.016114],
    [-0.000450, 0.000283, 0.001316, -0.004490, -0.010146],
    [-0.002090, 0.001316, 0.006115, -0.020867, -0.047149],
    [0.007132, -0.004490, -0.020867, 0.071207, 0.160885],
    [0.016114, -0.010146, -0.047149, 0.160885, 0.363505],
];

/// Per-scale exponent of the luminance term (only the coarsest scale uses
/// luminance). Floats, as in libvmaf, widened to double for `pow`.
pub const ALPHAS: [f32; SCALES] = [0.0, 0.0, 0.0, 0.0, 0.1333];
/// Per-scale exponent of the contrast term.
pub const BETAS: [f32; SCALES] = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];
/// Per-scale exponent of the structure term.
pub const GAMMAS: [f32; SCALES] = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];

/// The smallest width and height libvmaf accepts: with floor halving, every
/// one of the five scales must still hold the 11x11 Gaussian window.
pub const MIN_SIZE: usize = GAUSSIAN_LEN << (SCALES - 1);

/// libvmaf's 9x9 low-pass table, row-major.
pub fn lpf_kernel() -> [f32; LPF_LEN * LPF_LEN] {
    let fold = |i: usize| i.min(LPF_LEN - 1 - i);
    std::array::from_fn(|k| LPF_QUADRANT[fold(k / LPF_LEN)][fold(k % LPF_LEN)])
}

/// One frame's `float_ms_ssim` and its `enable_lcs` companions
/// (`float_ms_ssim_{l,c,s}_scaleN`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MsSsimScore {
    /// The product over the scales, a double (libvmaf does not round it to
    /// float, unlike `float_ssim`).
    pub ms_ssim: f64,
    pub l: [f64; SCALES],
    pub c: [f64; SCALES],
    pub s: [f64; SCALES],
}

/// Whether libvmaf's size check passes: it halves with floor division while
/// checking, though the scales themselves are ceil-halved.
pub fn size_ok(width: usize, height: usize) -> bool {
    (0..SCALES).all(|i| (width >> i) >= GAUSSIAN_LEN && (height >> i) >= GAUSSIAN_LEN)
}

/// [`size_ok`] as the error [`float_ms_ssim`] refuses a frame size with
/// (the GPU kernel validates through this same function).
pub fn check_size(width: usize, height: usize) -> Result<(), MetricsError> {
    if size_ok(width, height) {
        return Ok(());
    }
    Err(MetricsError::FrameTooSmall {
        feature: FEATURE,
        width,
        height,
        reason: "libvmaf: \"scale below 1x1!\"; each of the 5 scales must hold the 11x11 \
                 window, so the frame must be at least 176x176",
    })
}

/// Width and height of each scale (ceil halving, IQA's `n/2 + (n&1)`).
pub fn scale_sizes(width: usize, height: usize) -> [(usize, usize); SCALES] {
    let mut sizes = [(width, height); SCALES];
    for i in 1..SCALES {
        let (w, h) = sizes[i - 1];
        sizes[i] = (decimated_len(w, 2), decimated_len(h, 2));
    }
    sizes
}

/// The next coarser scale: the 9x9 low-pass table around every second
/// sample, symmetric border, float products summed in double.
pub fn downscale(plane: &FloatPlane) -> FloatPlane {
    decimate(plane, 2, &lpf_kernel(), LPF_LEN)
}

/// Frame MS-SSIM as libvmaf's `float_ms_ssim` computes it on the luma planes.
pub fn float_ms_ssim(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
) -> Result<MsSsimScore, MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    check_size(reference.width, reference.height)?;

    let mut a = to_float_plane(reference);
    let mut b = to_float_plane(distorted);
    let mut means = [LcsMeans { ssim: 0.0, l: 0.0, c: 0.0, s: 0.0 }; SCALES];
    for (i, m) in means.iter_mut().enumerate() {
        if i > 0 {
            a = downscale(&a);
            b = downscale(&b);
        }
        *m = ssim_scale(&a, &b, None);
    }
    Ok(combine_scales(&means))
}

/// The frame score from the five scales' means: libvmaf's host step, shared
/// by the CPU twin and the GPU kernel's decode so both combine identically.
pub fn combine_scales(means: &[LcsMeans; SCALES]) -> MsSsimScore {
    let mut score =
        MsSsimScore { ms_ssim: 1.0, l: [0.0; SCALES], c: [0.0; SCALES], s: [0.0; SCALES] };
    for (i, m) in means.iter().enumerate() {
        let (l, c, s) = (f64::from(m.l), f64::from(m.c), f64::from(m.s));
        // libvmaf: msssim *= pow(l, α) * pow(c, β) * pow(s, γ), left to right.
        let factor = l.powf(f64::from(ALPHAS[i]))
            * c.powf(f64::from(BETAS[i]))
            * s.powf(f64::from(GAMMAS[i]));
        score.ms_ssim *= factor;
        score.l[i] = l;
        score.c[i] = c;
        score.s[i] = s;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lpf_table_is_symmetric_and_normalised() {
        let k = lpf_kernel();
        for y in 0..LPF_LEN {
            for x in 0..LPF_LEN {
                assert_eq!(k[y * LPF_LEN + x], k[x * LPF_LEN + y]);
                assert_eq!(k[y * LPF_LEN + x], k[(LPF_LEN - 1 - y) * LPF_LEN + x]);
            }
        }
        assert_eq!(k[4 * LPF_LEN + 4], 0.363505);
        assert_eq!(k[0], 0.000714);
        assert_eq!(k[8 * LPF_LEN + 4], 0.016114);
        let sum: f64 = k.iter().map(|&v| f64::from(v)).sum();
        assert!((sum - 1.0).abs() < 1e-4, "sum {sum}");
    }

    #[test]
    fn size_check_follows_floor_halving() {
        assert_eq!(MIN_SIZE, 176);
        assert!(size_ok(176, 176));
        assert!(!size_ok(175, 1000));
        assert!(!size_ok(1000, 175));
        assert!(size_ok(576, 324));
        assert_eq!(
            scale_sizes(1920, 1080),
            [(1920, 1080), (960, 540), (480, 270), (240, 135), (120, 68)]
        );
        assert_eq!(scale_sizes(177, 177)[4], (12, 12));
    }

    #[test]
    fn too_small_frames_get_libvmafs_message() {
        let s = vec![0u16; 175 * 200];
        let p = PlaneView::packed(175, 200, 8, &s);
        let e = float_ms_ssim(&p, &p).unwrap_err();
        assert!(e.to_string().contains("scale below 1x1!"), "{e}");
        assert!(e.to_string().contains("175x200"), "{e}");
    }

    fn texture(w: usize, h: usize, seed: u64) -> Vec<u16> {
        let mut x = seed | 1;
        (0..w * h)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (((i % w) * 2 + (i / w)) % 128 + (x % 128) as usize) as u16
            })
            .collect()
    }

    #[test]
    fn identical_frames_score_one() {
        let (w, h) = (181usize, 190usize);
        let s = texture(w, h, 42);
        let p = PlaneView::packed(w, h, 8, &s);
        let score = float_ms_ssim(&p, &p).unwrap();
        assert!((score.ms_ssim - 1.0).abs() < 1e-6, "{}", score.ms_ssim);
        for i in 0..SCALES {
            assert!((score.c[i] - 1.0).abs() < 1e-6);
            assert!((score.s[i] - 1.0).abs() < 1e-6);
        }
    }

    /// The product must equal the per-scale terms raised to libvmaf's
    /// exponents, and a distortion must lower it.
    #[test]
    fn product_of_scale_terms() {
        let (w, h) = (200usize, 180usize);
        let r = texture(w, h, 1);
        let d: Vec<u16> = r.iter().enumerate().map(|(i, &v)| v + (i % 7) as u16 * 3).collect();
        let score = float_ms_ssim(&PlaneView::packed(w, h, 8, &r), &PlaneView::packed(w, h, 8, &d))
            .unwrap();
        let weights = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];
        let mut want = 1.0f64;
        for (i, &weight) in weights.iter().enumerate() {
            let alpha = if i == 4 { 0.1333 } else { 0.0 };
            want *= score.l[i].powf(alpha) * score.c[i].powf(weight) * score.s[i].powf(weight);
        }
        // Exponents here are the decimal values, libvmaf's are floats: close, not equal.
        assert!((score.ms_ssim - want).abs() < 1e-7, "{} vs {want}", score.ms_ssim);
        assert!(score.ms_ssim < 0.999);
        // The distortion is high-frequency, so coarse scales suffer less.
        assert!(score.s[0] < score.s[4]);
    }

    #[test]
    fn downscale_keeps_flat_planes_flat_and_ceil_halves() {
        let p = FloatPlane { width: 23, height: 12, data: vec![50.0; 23 * 12] };
        let d = downscale(&p);
        assert_eq!((d.width, d.height), (12, 6));
        let sum: f64 = lpf_kernel().iter().map(|&v| f64::from(v)).sum();
        for &v in &d.data {
            assert!((f64::from(v) - 50.0 * sum).abs() < 1e-4);
        }
    }
}
