//! SpEED (`speed_chroma`: `speed_chroma_u`, `_v`, `_uv`; `speed_temporal`):
//! the exact CPU twin of libvmaf 3.2.0's `speed.c` (float build), which the
//! `vmaf_v1.0.16_*` models read. Both extractors share one computation
//! ([`speed_score`]) on a pair of float planes:
//!
//! 1. the samples become floats `v / 2^(bpc−8) − 128` (`picture_copy`);
//!    `speed_temporal` first takes the difference of the previous and the
//!    current frame;
//! 2. with `speed_prescale` ≠ 1 the plane is resampled
//!    ([`crate::features::float_vif::resample`]);
//! 3. [`decimate`] and [`remove_local_mean`]: an anti-aliasing Gaussian (the scale-1 filter width,
//!    σ = 2·width/5), decimation by 16, then the 3-tap scale-4 Gaussian, whose
//!    output is subtracted (local mean removal) — all float VIF's separable
//!    float convolution ([`crate::features::float_vif::filter`]);
//! 4. [`est_params`]: the 25×25 covariance matrix of the 5×5 neighbourhoods
//!    (means in `f32`, each covariance a `double` sum in the order of
//!    libvmaf's AVX-512 kernel, see [`covariance_sum`]), its eigenvalues and
//!    `K⁻¹·Y` for the 5×5 blocks ([`linalg`]), giving every block's variance
//!    `S` and entropy `Σ_k log2(λ_k·S + σ_nn) + log2(2πe)`;
//! 5. [`block_score`]: the mean over blocks of `|e_ref·log2(1+v_ref) −
//!    e_dis·log2(1+v′)|` (`v′` after `speed_weight_var_mode`), blocks whose
//!    two entropies are below the noise floor's counting 0.
//!
//! **Singular covariance.** When an eigenvalue is below 1e-6 (flat or tiny
//! planes, such as the 9×5-block chroma of a 576x324 clip with a 0.5
//! prescale) or the QR back substitution meets a pivot below 1e-6, libvmaf
//! warns "est_params: covariance matrix is singular", sets `S = 0` for that
//! plane and flags it. A pair with exactly one flagged plane scores 0;
//! `speed_chroma_uv` is then the other channel's score where exactly one
//! channel was flagged. Whether a matrix counts as singular can hinge on the
//! last bit of an eigenvalue, which is why every float step here is
//! libvmaf's, in its order and precision (`f32` throughout, with C's
//! promotions to `double` where libvmaf has them, and glibc's `log2`, `exp`,
//! `sqrt`).

pub mod chroma;
pub mod gpu;
mod host_queue;
pub mod linalg;
mod readback;
pub mod temporal;

use crate::MetricsError;
use crate::features::float_vif::filter::{self, FloatPlane, Source};
use crate::features::float_vif::resample::{Samples, resample};
use crate::features::float_vif::{PrescaleMethod, scaler};
use crate::plane::PlaneView;
use linalg::Square;

/// libvmaf's `DEFAULT_BLOCK_SIZE`: the side of a block.
pub const BLOCK: usize = 5;
/// Samples in a block (the covariance matrix is `ELEMENTS × ELEMENTS`).
pub const ELEMENTS: usize = BLOCK * BLOCK;
/// libvmaf's `NUM_SCALES`: planes are decimated by `2^4`.
const NUM_SCALES: usize = 4;

/// `log2(2·π·e)` as libvmaf's C evaluates `log2(2 * M_PI * M_E)`.
fn log2_2pie() -> f64 {
    (2.0 * std::f64::consts::PI * std::f64::consts::E).log2()
}

/// The options SpEED computes with (libvmaf's `SpeedOptions`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeedOptions {
    /// `speed_kernelscale` (`ks`): one of libvmaf's listed kernel scales.
    pub kernelscale: f64,
    /// `speed_prescale` (`ps`): the plane is resampled by this factor.
    pub prescale: f64,
    /// `speed_prescale_method` (`psm`).
    pub prescale_method: PrescaleMethod,
    /// `speed_sigma_nn` (`snn`): the neural noise deviation.
    pub sigma_nn: f64,
    /// `speed_nn_floor` (`nnf`): the noise floor, a fraction of `sigma_nn`.
    pub nn_floor: f64,
    /// `speed_weight_var_mode` (`wvm`), 0 to 6 (`speed_temporal` always 0).
    pub weight_var_mode: i64,
}

impl Default for SpeedOptions {
    /// libvmaf's defaults.
    fn default() -> Self {
        Self {
            kernelscale: 1.0,
            prescale: 1.0,
            prescale_method: PrescaleMethod::Nearest,
            sigma_nn: 0.29,
            nn_floor: 0.0,
            weight_var_mode: 0,
        }
    }
}

/// libvmaf's `ALMOST_EQUAL(x, 1.0)`: within 1e-3.
pub fn almost_one(x: f64) -> bool {
    (x - 1.0).abs() < 1.0e-3
}

/// The sizes SpEED works at for a `width × height` plane
/// (`speed_init_dimensions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    /// After the prescale: `(int)(n·ps + 0.5)`.
    pub scaled: (usize, usize),
    /// After decimation by 16: `scaled >> 4`.
    pub operating: (usize, usize),
    /// Blocks across and down.
    pub blocks: (usize, usize),
}

impl Dimensions {
    /// The sizes for `feature`'s `width × height` planes, refused where
    /// libvmaf would read outside its buffers: fewer than one block at the
    /// operating size (libvmaf logs "image too small" and carries on with
    /// a wrapped-around size), or a prescale within 1e-3 of 1 (which libvmaf
    /// does not apply) that still changes the size.
    pub fn new(
        feature: &'static str,
        width: usize,
        height: usize,
        prescale: f64,
    ) -> Result<Self, MetricsError> {
        let s = |n: usize| (n as f64 * prescale + 0.5) as usize;
        let scaled = (s(width), s(height));
        if almost_one(prescale) && scaled != (width, height) {
            return Err(MetricsError::FloatOptionOutOfRange {
                feature,
                option: "speed_prescale",
                value: prescale,
                allowed: "a factor at least 0.001 away from 1, or one that keeps the frame size \
                          (libvmaf does not resample then, yet works at the rounded size)",
            });
        }
        let operating = (scaled.0 >> NUM_SCALES, scaled.1 >> NUM_SCALES);
        let blocks = (operating.0 / BLOCK, operating.1 / BLOCK);
        if blocks.0 == 0 || blocks.1 == 0 {
            return Err(MetricsError::FrameTooSmall {
                feature,
                width,
                height,
                reason: "SpEED needs at least 80x80 samples (after the prescale) in the plane it \
                         reads: one 5x5 block after decimation by 16",
            });
        }
        Ok(Self { scaled, operating, blocks })
    }

    fn block_count(&self) -> usize {
        self.blocks.0 * self.blocks.1
    }

    /// The sides of the shifted windows the covariances run over:
    /// `truncated − 5 + 1`.
    fn window(&self) -> (usize, usize) {
        (self.blocks.0 * BLOCK - BLOCK + 1, self.blocks.1 * BLOCK - BLOCK + 1)
    }
}

/// Refuses options libvmaf refuses or cannot run with: values outside its
/// ranges, a kernel scale off its list (libvmaf's init fails half-way and
/// the extractor crashes), a weighting mode outside 0–6.
pub fn check_options(feature: &'static str, o: &SpeedOptions) -> Result<(), MetricsError> {
    let range = |option: &'static str, v: f64, lo: f64, hi: f64, allowed: &'static str| {
        // Written so that NaN is refused too.
        if v >= lo && v <= hi {
            Ok(())
        } else {
            Err(MetricsError::FloatOptionOutOfRange { feature, option, value: v, allowed })
        }
    };
    range("speed_kernelscale", o.kernelscale, 0.1, 4.0, "0.1 to 4.0")?;
    range("speed_prescale", o.prescale, 0.1, 4.0, "0.1 to 4.0")?;
    range("speed_sigma_nn", o.sigma_nn, 0.1, 2.0, "0.1 to 2.0")?;
    range("speed_nn_floor", o.nn_floor, 0.0, 1.0, "0.0 to 1.0")?;
    if !filter::kernelscale_is_valid(o.kernelscale) {
        return Err(MetricsError::FloatOptionOutOfRange {
            feature,
            option: "speed_kernelscale",
            value: o.kernelscale,
            allowed: "one of libvmaf's listed kernel scales: 1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, \
                      4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, \
                      0.711111, 0.74074, 1.111111 (within 0.001)",
        });
    }
    if !(0..=6).contains(&o.weight_var_mode) {
        return Err(MetricsError::OptionOutOfRange {
            feature,
            option: "speed_weight_var_mode",
            value: o.weight_var_mode,
            allowed: "0 to 6",
        });
    }
    Ok(())
}

/// The top-left `width × height` samples of `view` as libvmaf's
/// `picture_copy` makes them floats: `v / 2^(bpc−8) − 128`.
pub fn float_plane(
    view: &PlaneView<'_>,
    width: usize,
    height: usize,
) -> Result<FloatPlane, MetricsError> {
    let s = scaler(view.bpc)?;
    let mut data = Vec::with_capacity(width * height);
    for y in 0..height {
        data.extend(view.row(y)[..width].iter().map(|&v| f32::from(v) / s + -128.0));
    }
    Ok(FloatPlane { width, height, data })
}

/// The anti-aliasing filter (`speed_get_antialias_filter`): the scale-1
/// filter's width, with σ = √16·width/5 (the product in `double`).
pub fn antialias_taps(kernelscale: f64) -> Vec<f32> {
    let width = filter::filter_width(1, kernelscale);
    let stdev = ((NUM_SCALES as f64).sqrt() * width as f64 / 5.0) as f32;
    filter::gaussian_kernel(width, stdev)
}

/// The first half of `filter_and_downscale`: `plane` (at its original
/// size) resampled with the prescale, anti-aliased and decimated by 16
/// (`vif_dec16_s`: the samples at multiples of 16 of the full-size
/// convolution). The result is `operating` sized. This is what the GPU
/// computes ([`gpu`]).
pub fn decimate(plane: &FloatPlane, dims: &Dimensions, o: &SpeedOptions) -> FloatPlane {
    let (sw, sh) = dims.scaled;
    let scaled;
    let src = if almost_one(o.prescale) {
        plane
    } else {
        let samples = Samples { data: &plane.data, width: plane.width, height: plane.height };
        scaled = FloatPlane {
            width: sw,
            height: sh,
            data: resample(o.prescale_method, samples, sw, sh),
        };
        &scaled
    };
    let taps = antialias_taps(o.kernelscale);
    let (dw, dh) = dims.operating;
    let mut decimated = Vec::with_capacity(dw * dh);
    let mut row = vec![0.0f32; sw];
    for y in 0..dh {
        for (x, v) in row.iter_mut().enumerate() {
            *v = filter::vertical(&taps, Source::Plain(src), x, 16 * y);
        }
        decimated.extend((0..dw).map(|x| filter::horizontal(&taps, &row, 16 * x)));
    }
    FloatPlane { width: dw, height: dh, data: decimated }
}

/// The second half of `filter_and_downscale`: a [`decimate`]d plane minus
/// its own scale-4 Gaussian blur (local mean removal).
pub fn remove_local_mean(decimated: &FloatPlane, o: &SpeedOptions) -> FloatPlane {
    let taps = filter::filter_taps(NUM_SCALES, o.kernelscale);
    let mu = filter::filter(&taps, Source::Plain(decimated));
    let data = decimated.data.iter().zip(&mu.data).map(|(&a, &b)| a - b).collect();
    FloatPlane { width: decimated.width, height: decimated.height, data }
}

/// The covariance kernel's double sum `Σ (x − mx)(y − my)` over a
/// `w × h` window of `plane` at `(x0, y0)` and `(x1, y1)`, in the order of
/// libvmaf's AVX-512 kernel (`compute_cov_kernel_avx512`, the path of the
/// reference build): per row, 16-sample steps into two 8-lane accumulators
/// with fused multiply-adds, then one 8-sample step into the first, then a
/// scalar tail (multiply, then add) into its own sum; at the end the two
/// accumulators are added lane by lane, reduced 8 → 4 → 2 → 1 (lanes
/// `k` and `k + 4`, then `k` and `k + 2`, then 0 and 1) and the tail added.
// Lanes indexed as the vector registers are.
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
pub fn covariance_sum(
    plane: &FloatPlane,
    (x0, y0): (usize, usize),
    (x1, y1): (usize, usize),
    w: usize,
    h: usize,
    mx: f64,
    my: f64,
) -> f64 {
    let mut acc0 = [0.0f64; 8];
    let mut acc1 = [0.0f64; 8];
    let mut tail = 0.0f64;
    for i in 0..h {
        let rx = &plane.data[(y0 + i) * plane.width + x0..][..w];
        let ry = &plane.data[(y1 + i) * plane.width + x1..][..w];
        let cx = |j: usize| f64::from(rx[j]) - mx;
        let cy = |j: usize| f64::from(ry[j]) - my;
        let mut j = 0;
        while j + 15 < w {
            for l in 0..8 {
                acc0[l] = cx(j + l).mul_add(cy(j + l), acc0[l]);
                acc1[l] = cx(j + 8 + l).mul_add(cy(j + 8 + l), acc1[l]);
            }
            j += 16;
        }
        while j + 7 < w {
            for l in 0..8 {
                acc0[l] = cx(j + l).mul_add(cy(j + l), acc0[l]);
            }
            j += 8;
        }
        while j < w {
            tail += cx(j) * cy(j);
            j += 1;
        }
    }
    let acc: [f64; 8] = std::array::from_fn(|l| acc0[l] + acc1[l]);
    let quad: [f64; 4] = std::array::from_fn(|k| acc[k + 4] + acc[k]);
    let pair = [quad[2] + quad[0], quad[3] + quad[1]];
    (pair[0] + pair[1]) + tail
}

/// The 325 entries of the symmetric covariance matrix that are computed,
/// `(x, y)` with `y ≤ x`, in the order their values are listed (the GPU
/// writes them in this order too).
pub fn covariance_pairs() -> Vec<(usize, usize)> {
    (0..ELEMENTS).flat_map(|x| (0..=x).map(move |y| (x, y))).collect()
}

/// Where the offset `e` of a block lies: `(column, row)`.
fn offset_of(e: usize) -> (usize, usize) {
    (e % BLOCK, e / BLOCK)
}

/// The mean of the `window`-sized area at each of a block's 25 offsets:
/// an `f32` sum in raster order divided by the area.
pub fn window_means(plane: &FloatPlane, dims: &Dimensions) -> [f32; ELEMENTS] {
    let (ww, wh) = dims.window();
    std::array::from_fn(|e| {
        let (c, r) = offset_of(e);
        let mut sum = 0.0f32;
        for i in 0..wh {
            for &v in &plane.data[(r + i) * plane.width + c..][..ww] {
                sum += v;
            }
        }
        sum / (ww * wh) as f32
    })
}

/// A covariance matrix entry from its [`covariance_sum`]: divided by the
/// window's area in `double`, stored as `f32`.
pub fn covariance_entry(sum: f64, dims: &Dimensions) -> f32 {
    let (ww, wh) = dims.window();
    (sum / (ww * wh) as f64) as f32
}

/// The symmetric matrix from its entries in [`covariance_pairs`] order.
pub fn covariance_from_entries(entries: &[f32]) -> Square {
    let mut k = Square::zeros(ELEMENTS);
    for (&(x, y), &cov) in covariance_pairs().iter().zip(entries) {
        k.set(x, y, cov);
        k.set(y, x, cov);
    }
    k
}

/// `compute_covariance_matrix`: the 25×25 covariance of the samples at the
/// 25 offsets of a block, over the `window`-sized area each offset starts.
pub fn covariance_matrix(plane: &FloatPlane, dims: &Dimensions) -> Square {
    let (ww, wh) = dims.window();
    let means = window_means(plane, dims);
    // The 325 sums are independent and each keeps libvmaf's order, so they
    // are spread over threads (the GPU path computes them on the device).
    let pairs = covariance_pairs();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16);
    let chunk = pairs.len().div_ceil(threads);
    let entries: Vec<f32> = std::thread::scope(|scope| {
        let workers: Vec<_> = pairs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|&(x, y)| {
                            let (mx, my) = (f64::from(means[x]), f64::from(means[y]));
                            let sum =
                                covariance_sum(plane, offset_of(x), offset_of(y), ww, wh, mx, my);
                            covariance_entry(sum, dims)
                        })
                        .collect::<Vec<f32>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a covariance thread panicked")).collect()
    });
    covariance_from_entries(&entries)
}

/// One plane's block statistics (`est_params`'s outputs).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockStats {
    /// Per block, raster order: `Σ_k log2(λ_k·S + σ_nn) + log2(2πe)`.
    pub entropies: Vec<f32>,
    /// Per block: `S`, the variance estimate (0 where singular).
    pub variances: Vec<f32>,
    /// libvmaf's "covariance matrix is singular".
    pub singular: bool,
}

/// `est_params` on a plane after [`remove_local_mean`], given its
/// [`covariance_matrix`] `k`.
pub fn est_params(k: &Square, plane: &FloatPlane, dims: &Dimensions, sigma_nn: f32) -> BlockStats {
    let eig = linalg::eigenvalues(k);
    let (bw, bh) = dims.blocks;
    let nb = dims.block_count();
    // Y: row e = the sample at offset e of every block.
    let mut y = vec![0.0f32; ELEMENTS * nb];
    for (e, row) in y.chunks_mut(nb).enumerate() {
        let (si, sj) = (e / BLOCK, e % BLOCK);
        for bi in 0..bh {
            for bj in 0..bw {
                row[bi * bw + bj] = plane.data[(bi * BLOCK + si) * plane.width + bj * BLOCK + sj];
            }
        }
    }
    let regular = eig.iter().all(|&l| f64::from(l) >= linalg::EIGENVALUE_EPS);
    let solved = if regular { linalg::solve(k, &y, nb) } else { None };
    let singular = solved.is_none();
    let mut x = solved.unwrap_or_else(|| vec![0.0f32; ELEMENTS * nb]);
    for (xv, &yv) in x.iter_mut().zip(&y) {
        *xv = (*xv * yv) / ELEMENTS as f32;
    }
    let mut s = x[..nb].to_vec();
    for e in 1..ELEMENTS {
        for (sv, &xv) in s.iter_mut().zip(&x[e * nb..(e + 1) * nb]) {
            *sv += xv;
        }
    }
    let mut entropies = vec![0.0f32; nb];
    for &l in &eig {
        let l = if l < 0.0 { 0.0 } else { l };
        for (e, &sv) in entropies.iter_mut().zip(&s) {
            *e = (f64::from(*e) + (f64::from(l * sv + sigma_nn).log2() + log2_2pie())) as f32;
        }
    }
    BlockStats { entropies, variances: s, singular }
}

/// `get_speed_score`: the mean over blocks of the weighted entropy
/// differences.
pub fn block_score(
    r: &BlockStats,
    d: &BlockStats,
    sigma_nn: f32,
    nn_floor: f32,
    weight_var_mode: i64,
) -> f32 {
    let base =
        (ELEMENTS as f64 * (f64::from((1.0 + nn_floor) * sigma_nn).log2() + log2_2pie())) as f32;
    let lg = |v: f64| v.log2();
    let lf = |v: f32| f64::from(1.0 + v).log2();
    let mut score = 0.0f32;
    for i in 0..r.entropies.len() {
        let (er, ed) = (f64::from(r.entropies[i]), f64::from(d.entropies[i]));
        if r.entropies[i] < base && d.entropies[i] < base {
            continue;
        }
        let (vr, vd) = (r.variances[i], d.variances[i]);
        let mean = || lg(1.0 + f64::from(vr + vd) / 2.0);
        let (wr, wd) = match weight_var_mode {
            0 => (lf(vr), lf(vd)),
            1 => (lf(vr), lf(vr)),
            2 => (lf(vd), lf(vd)),
            3 => (mean(), mean()),
            4 => (lf(vr), mean()),
            5 => (lf(vr), lg(1.0 + (0.75 * f64::from(vr) + 0.25 * f64::from(vd)))),
            _ => (lf(vr), lg(1.0 + (0.25 * f64::from(vr) + 0.75 * f64::from(vd)))),
        };
        let spatial_ref = (er * wr) as f32;
        let spatial_dis = (ed * wd) as f32;
        score += (spatial_ref - spatial_dis).abs();
    }
    score / r.entropies.len() as f32
}

/// `speed_extract_score` on two original-size float planes: the score, and
/// whether either plane's covariance was singular (libvmaf's return value).
/// Exactly one singular plane scores 0.
pub fn speed_score(
    reference: &FloatPlane,
    distorted: &FloatPlane,
    dims: &Dimensions,
    o: &SpeedOptions,
) -> (f32, bool) {
    decimated_score(&decimate(reference, dims, o), &decimate(distorted, dims, o), dims, o)
}

/// [`speed_score`] from the two [`decimate`]d planes.
pub fn decimated_score(
    reference: &FloatPlane,
    distorted: &FloatPlane,
    dims: &Dimensions,
    o: &SpeedOptions,
) -> (f32, bool) {
    let (r, d) = (remove_local_mean(reference, o), remove_local_mean(distorted, o));
    let (kr, kd) = (covariance_matrix(&r, dims), covariance_matrix(&d, dims));
    centered_score((&r, &kr), (&d, &kd), dims, o)
}

/// [`speed_score`] from the two planes after [`remove_local_mean`], each
/// with its [`covariance_matrix`] (what the GPU path reads back).
pub fn centered_score(
    (reference, k_reference): (&FloatPlane, &Square),
    (distorted, k_distorted): (&FloatPlane, &Square),
    dims: &Dimensions,
    o: &SpeedOptions,
) -> (f32, bool) {
    let sigma_nn = o.sigma_nn as f32;
    let r = est_params(k_reference, reference, dims, sigma_nn);
    let d = est_params(k_distorted, distorted, dims, sigma_nn);
    let score = if r.singular != d.singular {
        0.0
    } else {
        block_score(&r, &d, sigma_nn, o.nn_floor as f32, o.weight_var_mode)
    };
    (score, r.singular || d.singular)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_2pie_is_the_correctly_rounded_constant() {
        // log2(2πe) = 4.09419117036128202...; GCC folds libvmaf's expression to
        // the double nearest the exact value, glibc's log2 must agree.
        assert_eq!(log2_2pie().to_bits(), 4.094_191_170_361_282_f64.to_bits());
    }

    #[test]
    fn dimensions_and_refusals() {
        let d = Dimensions::new("t", 960, 540, 1.0).unwrap();
        assert_eq!(d.operating, (60, 33));
        assert_eq!(d.blocks, (12, 6));
        assert_eq!(d.window(), (56, 26));
        let d = Dimensions::new("t", 288, 162, 0.5).unwrap();
        assert_eq!((d.scaled, d.operating, d.blocks), ((144, 81), (9, 5), (1, 1)));
        assert!(Dimensions::new("t", 79, 200, 1.0).is_err());
        assert!(Dimensions::new("t", 2000, 200, 1.0005).is_err());
        let o = SpeedOptions::default();
        assert!(check_options("t", &o).is_ok());
        for bad in [
            SpeedOptions { kernelscale: 1.01, ..o },
            SpeedOptions { sigma_nn: 0.05, ..o },
            SpeedOptions { nn_floor: f64::NAN, ..o },
            SpeedOptions { weight_var_mode: 7, ..o },
            SpeedOptions { prescale: 5.0, ..o },
        ] {
            assert!(check_options("t", &bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn covariance_sum_orders_like_the_avx512_kernel() {
        // Widths around the 16/8/1 steps; compare with a plain double sum
        // (close, not equal) and check that the tail path is taken.
        let w = 40;
        let data: Vec<f32> = (0..w * 6).map(|i| ((i * 37) % 101) as f32 / 7.0 - 6.0).collect();
        let p = FloatPlane { width: w, height: 6, data };
        for ww in [1, 7, 8, 15, 16, 23, 24, 31, 35] {
            let got = covariance_sum(&p, (1, 0), (2, 1), ww, 5, 0.25, -0.5);
            let mut plain = 0.0f64;
            for i in 0..5 {
                for j in 0..ww {
                    plain +=
                        (f64::from(p.at(1 + j, i)) - 0.25) * (f64::from(p.at(2 + j, 1 + i)) + 0.5);
                }
            }
            assert!((got - plain).abs() <= 1e-9 * plain.abs().max(1.0), "{ww}: {got} {plain}");
        }
    }

    #[test]
    fn identical_planes_score_zero_and_noise_scores_more() {
        let (w, h) = (400, 320);
        let mut s = 12345u64;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 56) as u16
        };
        let a: Vec<u16> = (0..w * h).map(|_| next()).collect();
        let b: Vec<u16> = a.iter().map(|&v| v.saturating_add(next() % 9)).collect();
        let va = PlaneView::packed(w, h, 8, &a);
        let vb = PlaneView::packed(w, h, 8, &b);
        let o = SpeedOptions::default();
        let dims = Dimensions::new("t", w, h, 1.0).unwrap();
        let (pa, pb) = (float_plane(&va, w, h).unwrap(), float_plane(&vb, w, h).unwrap());
        let (same, singular) = speed_score(&pa, &pa, &dims, &o);
        assert!(!singular);
        assert_eq!(same, 0.0);
        let (diff, _) = speed_score(&pa, &pb, &dims, &o);
        assert!(diff > 0.0, "{diff}");
    }
}
