//! The host side of integer ADM: per-frame integer sums to the values
//! libvmaf prints, with libvmaf's exact float/double steps.
//!
//! Per level, libvmaf turns each orientation's sum into a float
//! (level 0: `(float)(sum / 2^k)` in double; levels 1–3: `(float)sum / 2^k`
//! in float), takes `powf(·, 1/3)`, adds `powf(area · noise_weight, 1/3)`,
//! and adds the three orientations in float. The denominator multiplies by
//! `pow(rfactor, 3)` in double first. The four levels are summed in double.
//! Rust's `f32::powf` / `f64::powf` call glibc's `powf` / `pow`, as libvmaf
//! does; nothing here may be fused into an FMA.

use super::cm::{CmShiftsS0, ceil_log2, den_shift_s0};
use super::{AdmFrameSums, AdmOptions, Region, SCALES, band_sizes, csf};

/// Every value integer ADM prints for a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmScores {
    /// `integer_adm2` (also printed as debug `integer_adm`).
    pub adm2: f64,
    /// `integer_adm_scale0..3`: per-level numerator / denominator.
    pub scale: [f64; SCALES],
    /// `integer_aim`. libvmaf leaves it uninitialised when the denominator
    /// is 0 (never with a positive noise weight); it is NaN here then.
    pub aim: f64,
    /// `integer_adm3`: `max(adm2·w + (1 − aim)·(1 − w), min_val)`.
    pub adm3: f64,
    /// Debug `integer_adm_num` and `integer_adm_den` (after the
    /// near-zero limit).
    pub num: f64,
    pub den: f64,
    /// Debug `integer_adm_num_scaleK` / `integer_adm_den_scaleK`.
    pub num_scale: [f64; SCALES],
    pub den_scale: [f64; SCALES],
}

impl AdmScores {
    /// `(libvmaf feature name, value)` for every value, in libvmaf's order.
    pub fn named(&self) -> Vec<(&'static str, f64)> {
        const NUM: [&str; 4] = [
            "integer_adm_num_scale0",
            "integer_adm_num_scale1",
            "integer_adm_num_scale2",
            "integer_adm_num_scale3",
        ];
        const DEN: [&str; 4] = [
            "integer_adm_den_scale0",
            "integer_adm_den_scale1",
            "integer_adm_den_scale2",
            "integer_adm_den_scale3",
        ];
        const SCALE: [&str; 4] = [
            "integer_adm_scale0",
            "integer_adm_scale1",
            "integer_adm_scale2",
            "integer_adm_scale3",
        ];
        let mut v = vec![
            ("integer_adm2", self.adm2),
            ("integer_aim", self.aim),
            ("integer_adm3", self.adm3),
        ];
        v.extend(SCALE.into_iter().zip(self.scale));
        v.push(("integer_adm", self.adm2));
        v.push(("integer_adm_num", self.num));
        v.push(("integer_adm_den", self.den));
        for (k, (n, d)) in NUM.into_iter().zip(DEN).enumerate() {
            v.push((n, self.num_scale[k]));
            v.push((d, self.den_scale[k]));
        }
        v
    }
}

const THIRD: f32 = 1.0 / 3.0;

/// `2^e` for an exponent that libvmaf computes in `uint32` (so a negative
/// exponent wraps to about 2^32 and `pow` returns infinity).
#[inline]
fn pow2_u32(e: u32) -> f64 {
    2.0f64.powf(f64::from(e))
}

/// `powf((float)(area · weight), 1/3)`: the noise floor added per
/// orientation (`area · weight` is an int times a double in C).
#[inline]
fn noise_floor(region: &Region, weight: f64) -> f32 {
    ((region.area() as f64 * weight) as f32).powf(THIRD)
}

/// Level-0 masking sums → `num_scale` (float).
fn num_scale_s0(sum: &[i64; 3], w: usize, h: usize, weight: f64) -> f32 {
    let region = Region::core(w, h);
    let sh = CmShiftsS0::new(w);
    let rows = ceil_log2(h);
    let noise = noise_floor(&region, weight);
    let base = [52u32, 52, 57];
    let f: [f32; 3] = std::array::from_fn(|t| {
        let e = base[t].wrapping_sub(sh.cub[t]).wrapping_sub(rows);
        (sum[t] as f64 / pow2_u32(e)) as f32
    });
    let s: [f32; 3] = f.map(|x| x.powf(THIRD) + noise);
    s[0] + s[1] + s[2]
}

/// Levels 1–3 masking sums → `num_scale`. The divisor is a float, so the
/// int64 sum is rounded to float first and divided in float.
fn num_scale_s123(sum: &[i64; 3], scale: usize, w: usize, h: usize, weight: f64) -> f32 {
    let region = Region::core(w, h);
    let e = [45u32, 39, 36][scale - 1].wrapping_sub(ceil_log2(w)).wrapping_sub(ceil_log2(h));
    let final_shift = pow2_u32(e) as f32;
    let noise = noise_floor(&region, weight);
    let s: [f32; 3] = sum.map(|x| (x as f32 / final_shift).powf(THIRD) + noise);
    s[0] + s[1] + s[2]
}

/// Denominator sums → `den_scale`: `accum / 2^k` in double times
/// `pow(rfactor, 3)`, rounded to float for `powf`.
fn den_scale(sum: &[u64; 3], shift_csf: f64, rf: [f32; 3], region: &Region, weight: f64) -> f32 {
    let noise = noise_floor(region, weight);
    let s: [f32; 3] = std::array::from_fn(|t| {
        let csf = (sum[t] as f64 / shift_csf) * f64::from(rf[t]).powf(3.0);
        (csf as f32).powf(THIRD) + noise
    });
    s[0] + s[1] + s[2]
}

/// Turns one frame's integer sums into libvmaf's printed values. `width`
/// and `height` are the frame's (luma) size.
pub fn adm_scores(sums: &AdmFrameSums, width: usize, height: usize, o: &AdmOptions) -> AdmScores {
    let sizes = band_sizes(width, height);
    let mut num_f = [0f32; SCALES];
    let mut den_f = [0f32; SCALES];
    let mut aim_f = [0f32; SCALES];
    for (k, &(w, h)) in sizes.iter().enumerate() {
        let s = &sums.scales[k];
        let region = Region::core(w, h);
        let rf = csf::rfactors(k, o);
        if k == 0 {
            if o.skip_scale0 {
                // libvmaf: num 0, den 1e-10 (a float) "to avoid divide by zero".
                den_f[0] = 1e-10;
                continue;
            }
            num_f[0] = num_scale_s0(&s.num, w, h, o.noise_weight);
            if !o.skip_aim {
                aim_f[0] = num_scale_s0(&s.aim, w, h, 0.0);
            }
            let shift_csf = 2.0f64.powf(f64::from(18 - den_shift_s0(&region) as i32));
            den_f[0] = den_scale(&s.den, shift_csf, rf, &region, o.noise_weight);
        } else {
            num_f[k] = num_scale_s123(&s.num, k, w, h, o.noise_weight);
            if !o.skip_aim {
                aim_f[k] = num_scale_s123(&s.aim, k, w, h, 0.0);
            }
            let e = [32u32, 27, 23][k - 1]
                .wrapping_sub(ceil_log2(region.height()))
                .wrapping_sub(ceil_log2(region.width()));
            den_f[k] = den_scale(&s.den, pow2_u32(e), rf, &region, o.noise_weight);
        }
    }

    let (mut num, mut den, mut aim_num) = (0f64, 0f64, 0f64);
    for k in 0..SCALES {
        num += f64::from(num_f[k]);
        den += f64::from(den_f[k]);
        aim_num += f64::from(aim_f[k]);
    }
    let limit = 1e-10 * (width * height) as f64 / (1920.0 * 1080.0);
    if num < limit {
        num = 0.0;
    }
    if den < limit {
        den = 0.0;
    }
    let (adm2, aim) = if den == 0.0 { (1.0, f64::NAN) } else { (num / den, aim_num / den) };
    let mixed = adm2 * o.dlm_weight + (1.0 - aim) * (1.0 - o.dlm_weight);
    // C's MAX macro: `a > b ? a : b` (a NaN picks `min_val`).
    let adm3 = if mixed > o.min_val { mixed } else { o.min_val };
    AdmScores {
        adm2,
        scale: std::array::from_fn(|k| f64::from(num_f[k]) / f64::from(den_f[k])),
        aim,
        adm3,
        num,
        den,
        num_scale: num_f.map(f64::from),
        den_scale: den_f.map(f64::from),
    }
}
