//! `psnr_hvs` (`psnr_hvs_y`, `psnr_hvs_cb`, `psnr_hvs_cr`, `psnr_hvs`): the
//! exact CPU twin of libvmaf 3.2.0's `psnr_hvs` extractor (Xiph's PSNR-HVS-M
//! from Daala's tools).
//!
//! Per plane, libvmaf walks 8x8 blocks whose corners lie 7 samples apart
//! (neighbouring blocks share a row or column), as long as the whole block
//! fits. For each block it
//!
//! 1. takes the samples as integers and, in float, the block's mean and its
//!    four 4x4 quadrants' means, then the variance of the block and of each
//!    quadrant (float sums in raster order, scaled by `64/63` and `16/15`
//!    as float constants); the "variance ratio" is the sum of the four
//!    quadrant variances over the block's variance (a float divide; left
//!    as the block variance itself when that is 0);
//! 2. applies Daala's integer 8x8 DCT (`od_bin_fdct8x8`: the lifting
//!    8-point DCT on columns, then on the result's columns again) to both
//!    blocks;
//! 3. builds each block's masking energy, `Σ coef²·mask` over the 63 AC
//!    coefficients in raster order (the integer square rounded to float),
//!    as `sqrt(energy·ratio)/32` (the square root in double), and keeps the
//!    larger of the reference's and the distorted's;
//! 4. for each of the 64 coefficients in raster order, takes the absolute
//!    difference as a float, lowers every AC one by `masking/mask[k]` (a
//!    float divide; to 0 when below), weighs it by the CSF and adds its
//!    square to ONE float accumulator that runs over every block of the
//!    plane in raster block order.
//!
//! The plane's value is that float sum divided (in float) by 64 times the
//! block count and by `(2^bpc − 1)²`; the outputs are
//! `−10·log10(value)` per plane and of `0.8·Y + 0.1·(Cb + Cr)` (in
//! double). The CSF tables are libvmaf's float tables (the two chroma ones
//! whatever the subsampling); `mask` is the table times 0.3885746225901003,
//! squared, in double and stored as float.
//!
//! libvmaf refuses depths above 12 bits and 4:0:0 input; a plane smaller
//! than 8x8 holds no block and libvmaf divides 0 by 0 (NaN), so this twin
//! refuses it instead.

pub mod feature;
pub mod gpu;

use crate::MetricsError;
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "psnr_hvs";
/// Side of a block.
pub const BLOCK: usize = 8;
/// Distance between neighbouring block corners (blocks overlap by one).
pub const STEP: usize = 7;
/// Coefficients of a block.
pub const COEFFS: usize = BLOCK * BLOCK;

/// libvmaf's contrast-sensitivity tables for Y, Cb and Cr, row-major (row =
/// vertical frequency). libvmaf declares them as float arrays initialised
/// from these decimal (double) constants, so each value is the double
/// rounded to float ([`Tables::libvmaf`]).
#[rustfmt::skip]
const CSF: [[f64; COEFFS]; 3] = [
    [
        1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411,
        1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542,
        2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984,
        1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551,
        2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862,
        0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596,
        1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575,
        0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565,
        1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554,
        0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204,
        0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692,
        0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321,
        0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972,
        0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001,
        0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565,
        0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276,
    ],
    [
        1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193,
        1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242,
        2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285,
        1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625,
        1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078,
        1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837,
        1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629,
        0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374,
        1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099,
        0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034,
        0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932,
        0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965,
        0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368,
        0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733,
        0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374,
        0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237,
    ],
    [
        2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803,
        1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971,
        2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857,
        1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198,
        1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848,
        0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706,
        1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426,
        0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023,
        1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195,
        0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273,
        0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514,
        0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543,
        0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059,
        0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063,
        0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023,
        0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658,
    ],
];

/// The factor that turns a CSF entry into the square root of its masking
/// weight (PSNR-HVS-M's masking table is the CSF times this, squared).
const MASK_FACTOR: f64 = 0.3885746225901003;

/// One plane's CSF and masking weights, as libvmaf holds them (floats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tables {
    pub csf: [f32; COEFFS],
    pub mask: [f32; COEFFS],
}

impl Tables {
    /// The tables of plane `plane` (0 Y, 1 Cb, 2 Cr).
    pub fn libvmaf(plane: usize) -> Self {
        let csf = CSF[plane].map(|v| v as f32);
        let mask = csf.map(|c| {
            let scaled = f64::from(c) * MASK_FACTOR;
            (scaled * scaled) as f32
        });
        Self { csf, mask }
    }

    /// `1/mask[k]` in double, for the GPU's masking floor
    /// `(masking as f64 · reciprocal) as f32`, which is the twin's float
    /// quotient `masking / mask[k]` for every float `masking`: a double
    /// product instead of a double division.
    ///
    /// Why it is exact: with `q = a/m` (`a`, `m` floats, `m > 0`), the
    /// correctly rounded reciprocal and product put the double within
    /// `2^-52·q` of `q`, and rounding it to float gives the float nearest
    /// `q` unless a float rounding boundary (a midpoint `μ` between two
    /// floats: an odd 25-bit significand) lies that close to `q`. It never
    /// does: `a − μ·m` is a non-zero multiple of `2^g`, `g` the smaller of
    /// the exponents of `a`'s and of `μ·m`'s last significand bits (it is
    /// non-zero because `μ·m`'s odd part has at least 25 bits, `a`'s at
    /// most 24), so `|q − μ|/q = |a − μ·m|/a ≥ 2^g/a ≥ 2^-49`, as
    /// `a ≈ μ·m < 2^49·2^g`. Subnormal quotients (midpoints at a fixed
    /// `2^-150` grid) keep a bound of `2^-48`. The test
    /// `masking_floor_by_reciprocal_is_the_float_quotient` checks every
    /// 16th float significand against each mask entry (every significand
    /// against every entry passed once, by hand).
    pub fn mask_reciprocals(&self) -> [f64; COEFFS] {
        self.mask.map(|m| 1.0 / f64::from(m))
    }
}

/// `(a + (a < 0)) >> 1`: a halving that rounds toward zero, as Daala's
/// unbiased shift by one does it (the sign bit added before the shift).
fn half(a: i32) -> i32 {
    (((a as u32) >> 31) as i32).wrapping_add(a) >> 1
}

/// `(a·m + r) >> s` in 32-bit integers (wrapping as libvmaf's `int` does).
fn lift(a: i32, m: i32, r: i32, s: u32) -> i32 {
    a.wrapping_mul(m).wrapping_add(r) >> s
}

/// Daala's 8-point integer forward DCT (`od_bin_fdct8`): butterflies and
/// lifting steps, exactly as libvmaf's integer code runs them.
pub fn fdct8(x: [i32; 8]) -> [i32; 8] {
    // Inputs in the order the butterflies pair them.
    let (mut t0, mut t4, mut t2, mut t6) = (x[0], x[1], x[2], x[3]);
    let (mut t7, mut t3, mut t5, mut t1) = (x[4], x[5], x[6], x[7]);
    t1 = t0.wrapping_sub(t1);
    let t1h = half(t1);
    t0 = t0.wrapping_sub(t1h);
    t4 = t4.wrapping_add(t5);
    let t4h = half(t4);
    t5 = t5.wrapping_sub(t4h);
    t3 = t2.wrapping_sub(t3);
    t2 = t2.wrapping_sub(half(t3));
    t6 = t6.wrapping_add(t7);
    let t6h = half(t6);
    t7 = t6h.wrapping_sub(t7);
    // Even half: a 4-point DCT.
    t0 = t0.wrapping_add(t6h);
    t6 = t0.wrapping_sub(t6);
    t2 = t4h.wrapping_sub(t2);
    t4 = t2.wrapping_sub(t4);
    t0 = t0.wrapping_sub(lift(t4, 13573, 16384, 15));
    t4 = t4.wrapping_add(lift(t0, 11585, 8192, 14));
    t0 = t0.wrapping_sub(lift(t4, 13573, 16384, 15));
    t6 = t6.wrapping_sub(lift(t2, 21895, 16384, 15));
    t2 = t2.wrapping_add(lift(t6, 15137, 8192, 14));
    t6 = t6.wrapping_sub(lift(t2, 21895, 16384, 15));
    // Odd half: a 4-point DST-IV.
    t3 = t3.wrapping_add(lift(t5, 19195, 16384, 15));
    t5 = t5.wrapping_add(lift(t3, 11585, 8192, 14));
    t3 = t3.wrapping_sub(lift(t5, 7489, 4096, 13));
    t7 = half(t5).wrapping_sub(t7);
    t5 = t5.wrapping_sub(t7);
    t3 = t1h.wrapping_sub(t3);
    t1 = t1.wrapping_sub(t3);
    t7 = t7.wrapping_add(lift(t1, 3227, 16384, 15));
    t1 = t1.wrapping_sub(lift(t7, 6393, 16384, 15));
    t7 = t7.wrapping_add(lift(t1, 3227, 16384, 15));
    t5 = t5.wrapping_add(lift(t3, 2485, 4096, 13));
    t3 = t3.wrapping_sub(lift(t5, 18205, 16384, 15));
    t5 = t5.wrapping_add(lift(t3, 2485, 4096, 13));
    [t0, t1, t2, t3, t4, t5, t6, t7]
}

/// Daala's 8x8 forward DCT (`od_bin_fdct8x8`) of a row-major block: the
/// 8-point DCT of each column becomes a row of an intermediate block, and
/// the 8-point DCT of each of the intermediate's columns becomes a row of
/// the result.
pub fn fdct8x8(block: &[i32; COEFFS]) -> [i32; COEFFS] {
    let columns = |b: &[i32; COEFFS]| {
        let mut out = [0i32; COEFFS];
        for c in 0..BLOCK {
            let t = fdct8(std::array::from_fn(|r| b[r * BLOCK + c]));
            out[c * BLOCK..(c + 1) * BLOCK].copy_from_slice(&t);
        }
        out
    };
    columns(&columns(block))
}

/// Block corners along a side of `n` samples: 0, 7, 14, … while the block
/// fits (`(n − 8)/7 + 1` of them; none below 8).
pub fn blocks_along(n: usize) -> usize {
    if n < BLOCK { 0 } else { (n - BLOCK) / STEP + 1 }
}

/// What libvmaf derives from one block's samples before the error: the
/// DCT coefficients and the block's masking strength.
struct Analysed {
    coeffs: [i32; COEFFS],
    masking: f32,
}

/// Step 1 and 3 of the module doc for one block (`samples` row-major).
fn analyse(samples: &[i32; COEFFS], mask: &[f32; COEFFS]) -> Analysed {
    let quadrant = |k: usize| usize::from(k / BLOCK >= 4) + 2 * usize::from(k % BLOCK >= 4);
    let mut mean = 0f32;
    let mut means = [0f32; 4];
    for (k, &v) in samples.iter().enumerate() {
        mean += v as f32;
        means[quadrant(k)] += v as f32;
    }
    mean /= 64.0;
    for m in &mut means {
        *m /= 16.0;
    }
    let mut var = 0f32;
    let mut vars = [0f32; 4];
    for (k, &v) in samples.iter().enumerate() {
        let d = v as f32 - mean;
        var += d * d;
        let q = quadrant(k);
        let dq = v as f32 - means[q];
        vars[q] += dq * dq;
    }
    var *= 1.0f32 / 63.0 * 64.0;
    for v in &mut vars {
        *v *= 1.0f32 / 15.0 * 16.0;
    }
    if var > 0.0 {
        var = (vars[0] + vars[1] + vars[2] + vars[3]) / var;
    }
    let coeffs = fdct8x8(samples);
    let mut energy = 0f32;
    for k in 1..COEFFS {
        energy += coeffs[k].wrapping_mul(coeffs[k]) as f32 * mask[k];
    }
    let masking = (f64::from(energy * var).sqrt() / 32.0) as f32;
    Analysed { coeffs, masking }
}

/// The 64 values one block adds to its plane's float sum, in the order
/// libvmaf adds them: the CSF-weighted square of each coefficient's
/// masked error. The block's top-left sample is `(x, y)`.
pub fn block_terms(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    x: usize,
    y: usize,
    tables: &Tables,
) -> [f32; COEFFS] {
    let read = |p: &PlaneView<'_>| -> [i32; COEFFS] {
        std::array::from_fn(|k| i32::from(p.at(x + k % BLOCK, y + k / BLOCK)))
    };
    let r = analyse(&read(reference), &tables.mask);
    let d = analyse(&read(distorted), &tables.mask);
    let masking = if d.masking > r.masking { d.masking } else { r.masking };
    std::array::from_fn(|k| {
        let mut err = r.coeffs[k].wrapping_sub(d.coeffs[k]).wrapping_abs() as f32;
        if k != 0 {
            let floor = masking / tables.mask[k];
            err = if err < floor { 0.0 } else { err - floor };
        }
        let weighted = err * tables.csf[k];
        weighted * weighted
    })
}

/// libvmaf's float normalisers of a plane's sum: the coefficient count
/// (`64 · blocks`, an `int` converted to float) and `(2^bpc − 1)²`.
pub fn normalisers(width: usize, height: usize, bpc: u32) -> (f32, f32) {
    let pixels = (COEFFS * blocks_along(width) * blocks_along(height)) as i32;
    let peak = (1i32 << bpc) - 1;
    (pixels as f32, (peak * peak) as f32)
}

/// A plane's float sum: every block's [`block_terms`] added one by one, in
/// raster block order, to one float.
pub fn plane_sum(
    reference: &PlaneView<'_>,
    distorted: &PlaneView<'_>,
    plane: usize,
) -> Result<f32, MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    check_plane(reference.width, reference.height, reference.bpc)?;
    let tables = Tables::libvmaf(plane);
    let mut sum = 0f32;
    for by in 0..blocks_along(reference.height) {
        for bx in 0..blocks_along(reference.width) {
            for t in block_terms(reference, distorted, bx * STEP, by * STEP, &tables) {
                sum += t;
            }
        }
    }
    Ok(sum)
}

/// A plane's value before the dB conversion, from its [`plane_sum`]: the
/// sum divided by each of [`normalisers`] in turn, in float.
pub fn plane_value(sum: f32, width: usize, height: usize, bpc: u32) -> f32 {
    let (pixels, peak2) = normalisers(width, height, bpc);
    sum / pixels / peak2
}

/// Refuses a depth libvmaf's extractor refuses (above 12 bits; below 8 is
/// no video format) and a plane too small for one block.
pub fn check_plane(width: usize, height: usize, bpc: u32) -> Result<(), MetricsError> {
    if !(8..=12).contains(&bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "bpc",
            value: i64::from(bpc),
            allowed: "8 to 12; libvmaf's psnr_hvs refuses deeper input",
        });
    }
    if width < BLOCK || height < BLOCK {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width,
            height,
            reason: "every plane needs at least 8x8 samples (libvmaf would report NaN)",
        });
    }
    Ok(())
}

/// Refuses what libvmaf's extractor refuses about the whole video: 4:0:0
/// (it scores three planes) and depths above 12 bits; and planes below 8x8.
pub fn check_geometry(geometry: &vqscope_video::Geometry) -> Result<(), MetricsError> {
    if geometry.format.chroma == vqscope_video::ChromaFormat::Mono {
        return Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "chroma format",
            value: 400,
            allowed: "4:2:0, 4:2:2 or 4:4:4; libvmaf's psnr_hvs refuses 4:0:0",
        });
    }
    for p in 0..3 {
        let (w, h) = geometry.plane_size(p);
        check_plane(w as usize, h as usize, geometry.format.bit_depth)?;
    }
    Ok(())
}

/// `psnr_hvs`'s four values of a frame, in libvmaf's output order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsnrHvsScore {
    pub y: f64,
    pub cb: f64,
    pub cr: f64,
    pub psnr_hvs: f64,
}

/// libvmaf's dB conversion of a plane value: `10·(−log10(v))`.
fn db(value: f64) -> f64 {
    10.0 * -value.log10()
}

impl PsnrHvsScore {
    /// The four values from the three planes' [`plane_value`]s (widened to
    /// double as libvmaf returns them); the combination is in double.
    pub fn from_plane_values(values: [f32; 3]) -> Self {
        let [y, cb, cr] = values.map(f64::from);
        Self { y: db(y), cb: db(cb), cr: db(cr), psnr_hvs: db(y * 0.8 + 0.1 * (cb + cr)) }
    }

    /// The values in libvmaf's output order.
    pub fn values(&self) -> [f64; 4] {
        [self.y, self.cb, self.cr, self.psnr_hvs]
    }
}

/// `psnr_hvs` of a frame pair given as its Y, Cb and Cr planes.
pub fn psnr_hvs(
    reference: &[PlaneView<'_>; 3],
    distorted: &[PlaneView<'_>; 3],
) -> Result<PsnrHvsScore, MetricsError> {
    let mut values = [0f32; 3];
    for (p, v) in values.iter_mut().enumerate() {
        let (r, d) = (&reference[p], &distorted[p]);
        *v = plane_value(plane_sum(r, d, p)?, r.width, r.height, r.bpc);
    }
    Ok(PsnrHvsScore::from_plane_values(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DCT of a flat block has only a DC coefficient: Daala's transform
    /// is orthonormal, so 8 times the sample value (64·v/√64).
    #[test]
    fn flat_block_has_only_dc() {
        let c = fdct8x8(&[100; COEFFS]);
        assert_eq!(c[0], 800);
        assert!(c[1..].iter().all(|&v| v == 0), "{c:?}");
    }

    /// A 1-D step: orthonormality keeps the energy (to integer rounding).
    #[test]
    fn dct_keeps_energy() {
        let x = [10, -20, 30, 40, -50, 60, 70, -80];
        let y = fdct8(x);
        let ex: i64 = x.iter().map(|&v| i64::from(v) * i64::from(v)).sum();
        let ey: i64 = y.iter().map(|&v| i64::from(v) * i64::from(v)).sum();
        assert!((ex - ey).abs() < ex / 100, "{ex} vs {ey}");
    }

    #[test]
    fn halving_rounds_toward_zero() {
        assert_eq!([half(5), half(-5), half(-1), half(4)], [2, -2, 0, 2]);
    }

    #[test]
    fn block_grid() {
        assert_eq!([blocks_along(7), blocks_along(8), blocks_along(14)], [0, 1, 1]);
        assert_eq!([blocks_along(15), blocks_along(1920), blocks_along(288)], [2, 274, 41]);
    }

    /// The GPU's masking floor, a double product with
    /// [`Tables::mask_reciprocals`], against the twin's float division, for
    /// every mask entry of the three planes: normal floats of one binade
    /// (the quotient scales with `a`'s exponent) and subnormal ones, every
    /// 16th significand from an offset that moves with the entry, so that
    /// every significand is tried against some entries. (Every significand
    /// against every entry passed too, in 75 s.)
    #[test]
    fn masking_floor_by_reciprocal_is_the_float_quotient() {
        let mut pairs: Vec<(u32, f64)> = (0..3)
            .flat_map(|plane| {
                let t = Tables::libvmaf(plane);
                let r = t.mask_reciprocals();
                (1..COEFFS).map(move |k| (t.mask[k].to_bits(), r[k]))
            })
            .collect();
        pairs.sort_by_key(|p| p.0);
        pairs.dedup_by_key(|p| p.0);
        for (i, (bits, reciprocal)) in pairs.into_iter().enumerate() {
            let m = f32::from_bits(bits);
            let significands = (0u32..1 << 23).skip(i % 16).step_by(16);
            for a in significands.flat_map(|s| [f32::from_bits(0x3f80_0000 | s), f32::from_bits(s)])
            {
                let product = (f64::from(a) * reciprocal) as f32;
                assert_eq!(product.to_bits(), (a / m).to_bits(), "{a:e} / {m:e}");
            }
        }
    }

    #[test]
    fn identical_planes_are_infinite_and_bad_input_refused() {
        let s = vec![7u16; 16 * 9];
        let v = PlaneView::packed(16, 9, 8, &s);
        assert_eq!(plane_sum(&v, &v, 0).unwrap(), 0.0);
        assert_eq!(PsnrHvsScore::from_plane_values([0.0; 3]).psnr_hvs, f64::INFINITY);
        let small = PlaneView::packed(16, 7, 8, &s[..16 * 7]);
        assert!(plane_sum(&small, &small, 1).is_err());
        let deep = PlaneView::packed(16, 9, 16, &s);
        assert!(plane_sum(&deep, &deep, 0).is_err());
    }
}
