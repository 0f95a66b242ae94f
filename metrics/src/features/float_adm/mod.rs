//! Float ADM (`adm2`, `aim`, `adm3`, `adm_scale0..3` and the debug sums):
//! the exact CPU twin of libvmaf 3.2.0's `float_adm` extractor
//! (`float_adm.c`, `adm.c`'s `compute_adm`, `adm_tools.c`), which the float
//! VMAF models read as `VMAF_feature_adm2_score` etc.
//!
//! The algorithm is integer ADM's ([`crate::features::adm`]) in float: the
//! luma plane as floats `sample/2^(bpc−8) − 128`, four levels of the db2
//! wavelet ([`dwt`]), and per level the decoupling of the distorted details
//! into restored and additive parts, CSF weighting, contrast masking and
//! the p-norm sums ([`level`]). Every sum libvmaf takes is a *float*
//! running sum, per row and then over the rows, which fixes the order of
//! every addition: the twin keeps libvmaf's order, and the GPU reproduces
//! it (one invocation per row).
//!
//! The work splits like the GPU port: [`frame_sums`] gives the per-level
//! float sums (what the kernels read back), [`scores`] does libvmaf's host
//! arithmetic on them (`powf`, noise floors, the double totals).
//!
//! One part of libvmaf's arithmetic is CPU-dependent: the decoupling
//! divides through the x86 `rcpss` estimate ([`rcp`]).

pub mod csf;
pub mod dwt;
pub mod feature;
pub mod gpu;
pub mod level;
pub mod rcp;

use crate::error::MetricsError;
use crate::features::adm::{Band, Region, SCALES, band_sizes};
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
pub const FEATURE: &str = "float_adm";

/// Smallest width and height: the coarsest level needs at least two
/// samples a side (libvmaf reads outside its buffers below that).
pub const MIN_SIZE: usize = 17;

/// Every option of libvmaf's `float_adm`, at libvmaf's defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatAdmOptions {
    /// `adm_enhn_gain_limit` (`egl`), 1 ..= 100.
    pub enhn_gain_limit: f64,
    /// `adm_norm_view_dist` (`nvd`), 0.75 ..= 24.
    pub norm_view_dist: f64,
    /// `adm_ref_display_height` (`rdf`), 1 ..= 4320.
    pub ref_display_height: i32,
    /// `adm_noise_weight` (`nw`), 0 ..= 1500: the numerator's and
    /// denominator's noise floor.
    pub noise_weight: f64,
    /// `adm_csf_scale` (`scf`) and `adm_csf_diag_scale` (`scfd`), 0 ..= 50:
    /// Barten-mode scale of the h/v and d factors.
    pub csf_scale: f64,
    pub csf_diag_scale: f64,
    /// `adm_csf_mode` (`csf`), 0 ..= 9: 1 Barten, 2 the DLM CSF, others
    /// Watson.
    pub csf_mode: i64,
    /// `adm_bypass_cm` (`bcm`): mask with a zero threshold.
    pub bypass_cm: bool,
    /// `adm_adm3_apply_hm` (`aah`): adm3 as the harmonic mean of adm2 and aim.
    pub adm3_apply_hm: bool,
    /// `adm_p_norm` (`apn`), 1 ..= 20.
    pub p_norm: f64,
    /// `adm_dlm_weight` (`dlmw`), 0 ..= 1.
    pub dlm_weight: f64,
    /// `adm_min_val` (`min`), 0 ..= 1: lower clip of adm3.
    pub min_val: f64,
    /// `adm_f1s0..3`, `adm_f2s0..3`, −1 ..= 10: CSF factor overrides per
    /// level (negative: computed).
    pub f1: [f64; SCALES],
    pub f2: [f64; SCALES],
    /// `adm_skip_aim_scale` (`sasc`): a level left out of aim (−1: none).
    pub skip_aim_scale: i64,
    /// `adm_skip_scale0` (`ssz`): level 0 only transformed; its scores
    /// become `0 / 1e-10`.
    pub skip_scale0: bool,
}

impl Default for FloatAdmOptions {
    fn default() -> Self {
        Self {
            enhn_gain_limit: 100.0,
            norm_view_dist: 3.0,
            ref_display_height: 1080,
            noise_weight: 0.03125,
            csf_scale: 1.0,
            csf_diag_scale: 1.0,
            csf_mode: 0,
            bypass_cm: false,
            adm3_apply_hm: false,
            p_norm: 3.0,
            dlm_weight: 0.5,
            min_val: 0.0,
            f1: [-1.0; SCALES],
            f2: [-1.0; SCALES],
            skip_aim_scale: -1,
            skip_scale0: false,
        }
    }
}

impl FloatAdmOptions {
    /// Checks every option against libvmaf's ranges.
    pub fn validate(&self) -> Result<(), MetricsError> {
        let mut doubles: Vec<(&'static str, f64, f64, f64, &'static str)> = vec![
            ("adm_enhn_gain_limit", self.enhn_gain_limit, 1.0, 100.0, "1 ..= 100"),
            ("adm_norm_view_dist", self.norm_view_dist, 0.75, 24.0, "0.75 ..= 24"),
            ("adm_noise_weight", self.noise_weight, 0.0, 1500.0, "0 ..= 1500"),
            ("adm_csf_scale", self.csf_scale, 0.0, 50.0, "0 ..= 50"),
            ("adm_csf_diag_scale", self.csf_diag_scale, 0.0, 50.0, "0 ..= 50"),
            ("adm_p_norm", self.p_norm, 1.0, 20.0, "1 ..= 20"),
            ("adm_dlm_weight", self.dlm_weight, 0.0, 1.0, "0 ..= 1"),
            ("adm_min_val", self.min_val, 0.0, 1.0, "0 ..= 1"),
        ];
        const F1: [&str; 4] = ["adm_f1s0", "adm_f1s1", "adm_f1s2", "adm_f1s3"];
        const F2: [&str; 4] = ["adm_f2s0", "adm_f2s1", "adm_f2s2", "adm_f2s3"];
        for s in 0..SCALES {
            doubles.push((F1[s], self.f1[s], -1.0, 10.0, "-1 ..= 10"));
            doubles.push((F2[s], self.f2[s], -1.0, 10.0, "-1 ..= 10"));
        }
        for (option, value, lo, hi, allowed) in doubles {
            if !(lo..=hi).contains(&value) {
                return Err(MetricsError::FloatOptionOutOfRange {
                    feature: FEATURE,
                    option,
                    value,
                    allowed,
                });
            }
        }
        let ints: [(&'static str, i64, i64, i64, &'static str); 3] = [
            ("adm_ref_display_height", i64::from(self.ref_display_height), 1, 4320, "1 ..= 4320"),
            ("adm_csf_mode", self.csf_mode, 0, 9, "0 ..= 9"),
            ("adm_skip_aim_scale", self.skip_aim_scale, -1, 3, "0 ..= 3 (-1: none)"),
        ];
        for (option, value, lo, hi, allowed) in ints {
            if !(lo..=hi).contains(&value) {
                return Err(MetricsError::OptionOutOfRange {
                    feature: FEATURE,
                    option,
                    value,
                    allowed,
                });
            }
        }
        Ok(())
    }
}

/// libvmaf's float sums of one level, per orientation (h, v, d): masking
/// of the restored part (`num`), of the additive impairment (`aim`), and
/// the reference's energy (`den`), each before the p-th root.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LevelSums {
    pub num: [f32; 3],
    pub aim: [f32; 3],
    pub den: [f32; 3],
}

/// Every float sum of one frame: what the GPU reads back.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameSums {
    pub levels: [LevelSums; SCALES],
}

/// libvmaf's float copy of a sample: `sample / 2^(bpc−8) − 128` (exact).
fn to_float(plane: &PlaneView) -> Result<Band<f32>, MetricsError> {
    let scaler = match plane.bpc {
        8 => 1.0f32,
        10 => 4.0,
        12 => 16.0,
        16 => 256.0,
        _ => {
            return Err(MetricsError::OptionOutOfRange {
                feature: FEATURE,
                option: "bit depth",
                value: i64::from(plane.bpc),
                allowed: "8, 10, 12 or 16",
            });
        }
    };
    let mut data = Vec::with_capacity(plane.width * plane.height);
    for y in 0..plane.height {
        data.extend(plane.row(y).iter().map(|&v| f32::from(v) / scaler - 128.0));
    }
    Ok(Band { width: plane.width, height: plane.height, data })
}

/// Refuses what libvmaf cannot score: mismatched planes, a depth it does
/// not convert, planes too small for four levels.
pub fn check_geometry(width: usize, height: usize) -> Result<(), MetricsError> {
    if width < MIN_SIZE || height < MIN_SIZE {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width,
            height,
            reason: "float ADM needs at least 17 samples a side: its coarsest wavelet level \
                     would otherwise read outside the frame",
        });
    }
    Ok(())
}

/// The per-frame float sums of float ADM, level by level.
pub fn frame_sums(
    reference: &PlaneView,
    distorted: &PlaneView,
    options: &FloatAdmOptions,
) -> Result<FrameSums, MetricsError> {
    check_pair(FEATURE, reference, distorted)?;
    check_geometry(reference.width, reference.height)?;
    options.validate()?;
    let mut r = to_float(reference)?;
    let mut d = to_float(distorted)?;
    let mut out = FrameSums::default();
    for scale in 0..SCALES {
        let rb = dwt::dwt(&r);
        let db = dwt::dwt(&d);
        if scale > 0 || !options.skip_scale0 {
            out.levels[scale] = level_sums(&rb, &db, &csf::rfactors(scale, options), options);
        }
        r = rb.a;
        d = db.a;
    }
    Ok(out)
}

/// Decouple, CSF, mask and sum one level.
fn level_sums(
    r: &crate::features::adm::DwtBands<f32>,
    d: &crate::features::adm::DwtBands<f32>,
    rf: &[f32; 3],
    o: &FloatAdmOptions,
) -> LevelSums {
    let dec = level::decouple_level(r, d, o.enhn_gain_limit);
    let den = level::total(&level::den_rows(&r.hvd, rf, o.p_norm));
    // DLM: the restored part masked by the additive impairment's CSF.
    let csf_a = level::csf_level(&dec.a, rf);
    let num = level::total(&level::cm_rows(&dec.r, &csf_a, rf, o.p_norm, o.bypass_cm));
    // AIM: the additive impairment masked by the restored part's CSF.
    let csf_r = level::csf_level(&dec.r, rf);
    let aim = level::total(&level::cm_rows(&dec.a, &csf_r, rf, o.p_norm, o.bypass_cm));
    LevelSums { num, aim, den }
}

/// libvmaf's values of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FloatAdmScores {
    pub adm2: f64,
    pub aim: f64,
    pub adm3: f64,
    pub scale: [f64; SCALES],
    /// Debug values: the totals and per-level numerators/denominators.
    pub num: f64,
    pub den: f64,
    pub num_scale: [f64; SCALES],
    pub den_scale: [f64; SCALES],
}

impl FloatAdmScores {
    /// Every value under libvmaf's name, in the order libvmaf appends them
    /// (the debug ones last).
    pub fn named(&self) -> Vec<(&'static str, f64)> {
        const SCALE: [&str; 4] = ["adm_scale0", "adm_scale1", "adm_scale2", "adm_scale3"];
        const NUM: [&str; 4] =
            ["adm_num_scale0", "adm_num_scale1", "adm_num_scale2", "adm_num_scale3"];
        const DEN: [&str; 4] =
            ["adm_den_scale0", "adm_den_scale1", "adm_den_scale2", "adm_den_scale3"];
        let mut v = vec![("adm2", self.adm2), ("aim", self.aim), ("adm3", self.adm3)];
        v.extend((0..SCALES).map(|s| (SCALE[s], self.scale[s])));
        v.extend([("adm", self.adm2), ("adm_num", self.num), ("adm_den", self.den)]);
        for s in 0..SCALES {
            v.push((NUM[s], self.num_scale[s]));
            v.push((DEN[s], self.den_scale[s]));
        }
        v
    }

    /// Whether `name` (from [`Self::named`]) is printed only in debug mode.
    pub fn is_debug(name: &str) -> bool {
        name == "adm" || name.starts_with("adm_num") || name.starts_with("adm_den")
    }
}

/// One orientation triple's p-norm term: `Σ^(1/p) + noise`, summed over
/// h, v, d in float.
fn pnorm_total(sums: &[f32; 3], noise: f32, inv_p: f32) -> f32 {
    let t = sums.map(|s| s.powf(inv_p) + noise);
    t[0] + t[1] + t[2]
}

/// libvmaf's noise floor of a `w × h` region: `(w·h·weight)^(1/p)` in
/// float.
fn noise_floor(region: &Region, weight: f64, inv_p: f32) -> f32 {
    let area = (region.width() * region.height()) as i32;
    ((f64::from(area) * weight) as f32).powf(inv_p)
}

/// libvmaf's host arithmetic on a frame's sums (`compute_adm` and
/// `float_adm.c`'s extract) for a `width × height` frame.
pub fn scores(
    sums: &FrameSums,
    width: usize,
    height: usize,
    o: &FloatAdmOptions,
) -> FloatAdmScores {
    let inv_p = (1.0 / o.p_norm) as f32;
    let sizes = band_sizes(width, height);
    let (mut num, mut den, mut aim_num, mut aim_den) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut out = FloatAdmScores::default();
    for (scale, &(band_w, band_h)) in sizes.iter().enumerate() {
        let (num_s, den_s, aim_s) = if scale == 0 && o.skip_scale0 {
            (0.0f32, 1e-10f32, 0.0f32)
        } else {
            let l = &sums.levels[scale];
            let region = Region::core(band_w, band_h);
            (
                pnorm_total(&l.num, noise_floor(&region, o.noise_weight, inv_p), inv_p),
                pnorm_total(&l.den, noise_floor(&region, o.noise_weight, inv_p), inv_p),
                pnorm_total(&l.aim, noise_floor(&region, 0.0, inv_p), inv_p),
            )
        };
        num += f64::from(num_s);
        den += f64::from(den_s);
        if o.skip_aim_scale != scale as i64 {
            aim_den += f64::from(den_s);
            aim_num += f64::from(aim_s);
        }
        out.num_scale[scale] = f64::from(num_s);
        out.den_scale[scale] = f64::from(den_s);
        out.scale[scale] = f64::from(num_s) / f64::from(den_s);
    }
    let limit = 1e-10 * ((width * height) as i32 as f64) / (1920.0 * 1080.0);
    if num < limit {
        num = 0.0;
    }
    if den < limit {
        den = 0.0;
    }
    if den == 0.0 {
        // libvmaf leaves aim uninitialised here; 0 is reported.
        out.adm2 = 1.0;
        out.aim = 0.0;
    } else {
        let r = aim_num / aim_den;
        out.aim = if r < 1.0 { r } else { 1.0 };
        out.adm2 = num / den;
    }
    out.num = num;
    out.den = den;
    let (s, a) = (out.adm2, out.aim);
    let adm3 = if o.adm3_apply_hm {
        2.0 * s * a / (s + a)
    } else {
        s * o.dlm_weight + (1.0 - a) * (1.0 - o.dlm_weight)
    };
    out.adm3 = if adm3 > o.min_val { adm3 } else { o.min_val };
    out
}

/// Convenience: sums and scores of one frame pair.
pub fn float_adm_frame(
    reference: &PlaneView,
    distorted: &PlaneView,
    options: &FloatAdmOptions,
) -> Result<FloatAdmScores, MetricsError> {
    let sums = frame_sums(reference, distorted, options)?;
    Ok(scores(&sums, reference.width, reference.height, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_frames_score_one() {
        // The db2 high-pass taps do not sum to exactly 0 in float, so a flat
        // frame leaves details of ~1e-6; against the noise floors every
        // level still scores 1 and AIM 0 to far beyond printed precision.
        for bpc in [8, 10, 12, 16] {
            let s = vec![(1u16 << (bpc - 1)) / 3; 40 * 30];
            let p = PlaneView::packed(40, 30, bpc, &s);
            let sc = float_adm_frame(&p, &p, &FloatAdmOptions::default()).unwrap();
            for v in [sc.adm2, sc.scale[0], sc.scale[3], sc.adm3] {
                assert!((v - 1.0).abs() < 1e-9, "bpc {bpc}: {sc:?}");
            }
            assert!(sc.aim.abs() < 1e-9, "bpc {bpc}: {sc:?}");
        }
    }

    #[test]
    fn refuses_what_libvmaf_cannot_score() {
        let s = vec![100u16; 17 * 17];
        let ok = PlaneView::packed(17, 17, 8, &s);
        assert!(frame_sums(&ok, &ok, &FloatAdmOptions::default()).is_ok());
        let t = vec![100u16; 16 * 40];
        let small = PlaneView::packed(16, 40, 8, &t);
        assert!(matches!(
            frame_sums(&small, &small, &FloatAdmOptions::default()),
            Err(MetricsError::FrameTooSmall { width: 16, height: 40, .. })
        ));
        assert!(matches!(
            frame_sums(&ok, &small, &FloatAdmOptions::default()),
            Err(MetricsError::PlaneMismatch { .. })
        ));
        let nine = PlaneView::packed(17, 17, 9, &s);
        assert!(frame_sums(&nine, &nine, &FloatAdmOptions::default()).is_err());
        for bad in [
            FloatAdmOptions { enhn_gain_limit: 0.5, ..Default::default() },
            FloatAdmOptions { csf_mode: 10, ..Default::default() },
            FloatAdmOptions { f2: [-1.0, 11.0, -1.0, -1.0], ..Default::default() },
            FloatAdmOptions { skip_aim_scale: 4, ..Default::default() },
        ] {
            assert!(frame_sums(&ok, &ok, &bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn skip_options_follow_libvmaf() {
        let r: Vec<u16> = (0..64 * 48).map(|i| ((i * 37) % 251) as u16).collect();
        let d: Vec<u16> = r.iter().map(|&v| v / 2 + 60).collect();
        let (rp, dp) = (PlaneView::packed(64, 48, 8, &r), PlaneView::packed(64, 48, 8, &d));
        let o = FloatAdmOptions { skip_scale0: true, ..Default::default() };
        let sc = float_adm_frame(&rp, &dp, &o).unwrap();
        assert_eq!(sc.num_scale[0], 0.0);
        assert_eq!(sc.den_scale[0], f64::from(1e-10f32));
        let full = float_adm_frame(&rp, &dp, &FloatAdmOptions::default()).unwrap();
        assert_eq!(sc.scale[1..], full.scale[1..]);
        let hm = FloatAdmOptions { adm3_apply_hm: true, min_val: 0.9, ..Default::default() };
        let sc = float_adm_frame(&rp, &dp, &hm).unwrap();
        let want = 2.0 * sc.adm2 * sc.aim / (sc.adm2 + sc.aim);
        assert_eq!(sc.adm3, want.max(0.9));
    }
}
