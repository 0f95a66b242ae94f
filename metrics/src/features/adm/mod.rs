//! Integer ADM (`integer_adm2`, `integer_adm_scale0..3`, `integer_aim`,
//! `integer_adm3` and the debug sums): the exact CPU twin of libvmaf
//! 3.2.0's `integer_adm.c` (its plain C path, which the AVX2/AVX-512 paths
//! match on normal content).
//!
//! ADM (the Detail Loss Metric) compares reference and distorted frames in a
//! four-level wavelet domain. Per level:
//! 1. [`dwt`]: one level of the integer db2 transform of both frames;
//! 2. [`decouple`]: split each distorted detail coefficient into the part
//!    that restores the reference and an additive impairment;
//! 3. [`csf`]: weight both by the contrast sensitivity of that level;
//! 4. [`cm`]: contrast-mask each with a threshold built from the other, cube
//!    and sum (numerator; AIM swaps the roles), and sum the cubed reference
//!    coefficients (denominator). Both sums are rounded **per row**.
//!
//! The work splits the way the GPU port will: [`adm_frame_sums`] produces
//! per frame only integers ([`AdmFrameSums`], what the kernels and their
//! reduction will read back), and [`score::adm_scores`] turns them into
//! libvmaf's printed features on the host, with libvmaf's exact mixture of
//! float, double and `powf`.
//!
//! Frames must be at least [`MIN_SIZE`] samples on each side: below that
//! libvmaf's index tables read outside the coarsest level (undefined
//! behaviour), so the twin refuses instead of guessing.

pub mod cm;
pub mod csf;
pub mod decouple;
pub mod dwt;
pub mod feature;
pub mod gpu;
pub mod score;

pub use score::{AdmScores, adm_scores};

use crate::error::MetricsError;
use crate::plane::PlaneView;
use crate::plane::check_pair;

/// Smallest width and height the twin accepts: the coarsest level's input
/// is `ceil(n/8)` samples and libvmaf's mirror tables are only valid when
/// that level still has 3 outputs, i.e. `ceil(n/8) ≥ 5`, i.e. `n ≥ 33`.
pub const MIN_SIZE: usize = 33;

/// Number of wavelet levels ("scales").
pub const SCALES: usize = 4;

/// One band of samples, `width × height`, packed row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Band<T> {
    pub width: usize,
    pub height: usize,
    pub data: Vec<T>,
}

impl<T: Copy + Default> Band<T> {
    pub fn zeros(width: usize, height: usize) -> Self {
        Self { width, height, data: vec![T::default(); width * height] }
    }

    #[inline]
    pub fn at(&self, x: usize, y: usize) -> T {
        self.data[y * self.width + x]
    }
}

/// The four bands of one DWT level. `hvd` holds libvmaf's `band_h` (high
/// vertical / low horizontal), `band_v` (low vertical / high horizontal) and
/// `band_d`, in that order — libvmaf's orientation index `theta` 0, 1, 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DwtBands<T> {
    pub a: Band<T>,
    pub hvd: [Band<T>; 3],
}

impl<T: Copy + Default> DwtBands<T> {
    pub fn zeros(width: usize, height: usize) -> Self {
        Self {
            a: Band::zeros(width, height),
            hvd: std::array::from_fn(|_| Band::zeros(width, height)),
        }
    }
}

/// A half-open rectangle `[left, right) × [top, bottom)` of a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub left: usize,
    pub top: usize,
    pub right: usize,
    pub bottom: usize,
}

impl Region {
    /// The region ADM scores (masking and denominator): a border of
    /// `(int)(n·0.1 − 0.5)` samples, computed in double, is left out on
    /// every side.
    pub fn core(width: usize, height: usize) -> Self {
        let left = (width as f64 * 0.1 - 0.5) as i64;
        let top = (height as f64 * 0.1 - 0.5) as i64;
        Self {
            left: left as usize,
            top: top as usize,
            right: (width as i64 - left) as usize,
            bottom: (height as i64 - top) as usize,
        }
    }

    /// The region decoupling and the CSF fill: the core widened for the
    /// masking filter's taps, `(int)(n·0.1 − 0.5 − 1)` on the start side and
    /// `n − that + 2` on the end side (from the unclamped start), clamped to
    /// the band. Samples outside it are never read.
    pub fn widened(width: usize, height: usize) -> Self {
        let left = (width as f64 * 0.1 - 0.5 - 1.0) as i64;
        let top = (height as f64 * 0.1 - 0.5 - 1.0) as i64;
        let right = (width as i64 - left + 2).min(width as i64);
        let bottom = (height as i64 - top + 2).min(height as i64);
        Self {
            left: left.max(0) as usize,
            top: top.max(0) as usize,
            right: right as usize,
            bottom: bottom as usize,
        }
    }

    pub fn width(&self) -> usize {
        self.right - self.left
    }

    pub fn height(&self) -> usize {
        self.bottom - self.top
    }

    pub fn area(&self) -> usize {
        self.width() * self.height()
    }
}

/// Band size of every level for a `width × height` frame:
/// `ceil(n/2)`, `ceil(n/4)`, `ceil(n/8)`, `ceil(n/16)`.
pub fn band_sizes(width: usize, height: usize) -> [(usize, usize); SCALES] {
    let mut out = [(0, 0); SCALES];
    let (mut w, mut h) = (width, height);
    for o in &mut out {
        w = dwt::half(w);
        h = dwt::half(h);
        *o = (w, h);
    }
    out
}

/// libvmaf's ADM options that change integer ADM's output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdmOptions {
    /// `adm_enhn_gain_limit` (`egl`), 1.0 ..= 100.0: how far the restored
    /// part may exceed the reference where the distorted frame enhances it.
    /// 100 by default; 1.0 disables enhancement (the NEG models).
    ///
    /// libvmaf's scalar C truncates `r·egl` to an integer while its SIMD
    /// paths round it; the two agree for integer `egl` (the only values
    /// libvmaf's models use). This twin truncates, like the C.
    pub enhn_gain_limit: f64,
    /// `adm_norm_view_dist` (`nvd`), 0.75 ..= 24.0, default 3.0.
    pub norm_view_dist: f64,
    /// `adm_ref_display_height` (`rdh`), 1 ..= 4320, default 1080.
    pub ref_display_height: i32,
    /// `adm_noise_weight` (`nw`), 0 ..= 1500, default 0.03125.
    pub noise_weight: f64,
    /// `adm_dlm_weight`, 0 ..= 1, default 0.5: DLM vs AIM mix in adm3.
    pub dlm_weight: f64,
    /// `adm_min_val`, 0 ..= 1, default 0: lower clip of adm3.
    pub min_val: f64,
    /// `adm_skip_aim`: skip the AIM masking pass (aim then reads 0).
    pub skip_aim: bool,
    /// `adm_skip_scale0`: only low-pass level 0; its scores become
    /// `0 / 1e-10`.
    pub skip_scale0: bool,
    /// `adm_csf_mode` (`csf`): which contrast sensitivity weights the
    /// levels (Watson by default; the v1.0.16 models use the blend, 2).
    pub csf_mode: csf::CsfMode,
    /// `adm_csf_scale` (`scf`) and `adm_csf_diag_scale` (`scfd`), 0 ..= 50,
    /// default 1: multiply Barten's h/v and d weights (mode 1 only).
    pub csf_scale: f64,
    pub csf_diag_scale: f64,
}

impl Default for AdmOptions {
    fn default() -> Self {
        Self {
            enhn_gain_limit: 100.0,
            norm_view_dist: 3.0,
            ref_display_height: 1080,
            noise_weight: 0.03125,
            dlm_weight: 0.5,
            min_val: 0.0,
            skip_aim: false,
            skip_scale0: false,
            csf_mode: csf::CsfMode::Watson,
            csf_scale: 1.0,
            csf_diag_scale: 1.0,
        }
    }
}

impl AdmOptions {
    /// The options of libvmaf's NEG ("no enhancement gain") models.
    pub fn neg() -> Self {
        Self { enhn_gain_limit: 1.0, ..Self::default() }
    }

    /// Checks every option against libvmaf's ranges, then the viewing
    /// geometry: libvmaf's extract returns EINVAL when
    /// `nvd · rdh < 3 · 1080`, because its 16-bit pipeline cannot represent
    /// the lower angular frequencies; the blend CSFs also need a geometry
    /// they have a table for ([`csf::check_mode`]).
    pub fn validate(&self) -> Result<(), MetricsError> {
        let ranges: [(&'static str, f64, f64, f64, &'static str); 7] = [
            ("adm_enhn_gain_limit", self.enhn_gain_limit, 1.0, 100.0, "1.0 ..= 100.0"),
            ("adm_norm_view_dist", self.norm_view_dist, 0.75, 24.0, "0.75 ..= 24.0"),
            ("adm_noise_weight", self.noise_weight, 0.0, 1500.0, "0.0 ..= 1500.0"),
            ("adm_dlm_weight", self.dlm_weight, 0.0, 1.0, "0.0 ..= 1.0"),
            ("adm_min_val", self.min_val, 0.0, 1.0, "0.0 ..= 1.0"),
            ("adm_csf_scale", self.csf_scale, 0.0, 50.0, "0.0 ..= 50.0"),
            ("adm_csf_diag_scale", self.csf_diag_scale, 0.0, 50.0, "0.0 ..= 50.0"),
        ];
        for (option, value, lo, hi, allowed) in ranges {
            if !(lo..=hi).contains(&value) {
                return Err(MetricsError::FloatOptionOutOfRange {
                    feature: "adm",
                    option,
                    value,
                    allowed,
                });
            }
        }
        if !(1..=4320).contains(&self.ref_display_height) {
            return Err(MetricsError::OptionOutOfRange {
                feature: "adm",
                option: "adm_ref_display_height",
                value: i64::from(self.ref_display_height),
                allowed: "1 ..= 4320",
            });
        }
        if self.norm_view_dist * f64::from(self.ref_display_height) < 3.0 * 1080.0 {
            return Err(MetricsError::AdmViewingGeometry {
                norm_view_dist: self.norm_view_dist,
                ref_display_height: self.ref_display_height,
            });
        }
        csf::check_mode(self.csf_mode, self.norm_view_dist, self.ref_display_height)
    }
}

/// The integer results of one level: masking sums of the restored signal
/// (`num`, the DLM numerator), of the additive impairment (`aim`), and the
/// reference energy (`den`), for the h, v, d orientations. Each is the sum
/// over rows of that row's rounded and shifted sum ([`cm::round_row`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdmScaleSums {
    pub num: [i64; 3],
    pub aim: [i64; 3],
    pub den: [u64; 3],
}

/// Everything integer ADM computes per frame: what the GPU reads back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdmFrameSums {
    pub scales: [AdmScaleSums; SCALES],
}

/// The per-frame ADM pipeline up to integer sums, stage by stage.
pub fn adm_frame_sums(
    reference: &PlaneView,
    distorted: &PlaneView,
    options: &AdmOptions,
) -> Result<AdmFrameSums, MetricsError> {
    check_planes(reference, distorted)?;
    options.validate()?;
    let mut out = AdmFrameSums::default();

    // Level 0: 16-bit pipeline on the samples.
    let ref0 = dwt::dwt_s0(reference);
    let dis0 = dwt::dwt_s0(distorted);
    if !options.skip_scale0 {
        let rf = csf::i_rfactor_s0(options);
        out.scales[0] = level_s0(&ref0, &dis0, &rf, options);
    }

    // Levels 1–3: 32-bit pipeline on the previous level's `a` band.
    let mut ref_a = widen(&ref0.a);
    let mut dis_a = widen(&dis0.a);
    for scale in 1..SCALES {
        let r = dwt::dwt_s123(&ref_a, scale);
        let d = dwt::dwt_s123(&dis_a, scale);
        let rf = csf::i_rfactor_s123(scale, options);
        out.scales[scale] = level_s123(&r, &d, &rf, scale, options);
        ref_a = r.a;
        dis_a = d.a;
    }
    Ok(out)
}

fn check_planes(reference: &PlaneView, distorted: &PlaneView) -> Result<(), MetricsError> {
    check_pair("adm", reference, distorted)?;
    check_geometry(reference.width, reference.height, reference.bpc)
}

/// The frame size and depth integer ADM computes (the twin's and the
/// kernel's one check). At 16 bits libvmaf's int32 level-0 sums wrap, and
/// both wrap as it does.
pub(crate) fn check_geometry(width: usize, height: usize, bpc: u32) -> Result<(), MetricsError> {
    if width < MIN_SIZE || height < MIN_SIZE {
        return Err(MetricsError::FrameTooSmall {
            feature: "adm",
            width,
            height,
            reason: "integer ADM needs at least 33 samples a side: its coarsest wavelet level \
                     would otherwise read outside the frame",
        });
    }
    if !(8..=16).contains(&bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: "adm",
            option: "bit depth",
            value: i64::from(bpc),
            allowed: "8 ..= 16",
        });
    }
    Ok(())
}

fn widen(b: &Band<i16>) -> Band<i32> {
    Band { width: b.width, height: b.height, data: b.data.iter().map(|&x| i32::from(x)).collect() }
}

/// Decoupled restored (`r`) and additive (`a`) detail bands of one level.
pub struct Decoupled<T> {
    pub r: [Band<T>; 3],
    pub a: [Band<T>; 3],
}

/// CSF outputs of one decoupled signal: weighted (`dst`) and 1/30 (`flt`).
pub struct CsfBands<T> {
    pub dst: [Band<T>; 3],
    pub flt: [Band<T>; 3],
}

/// Runs `f` at every position of `region`, writing its three-orientation
/// outputs into two band triples (zeros elsewhere).
fn per_sample<U: Copy + Default>(
    w: usize,
    h: usize,
    region: &Region,
    f: impl Fn(usize) -> ([U; 3], [U; 3]),
) -> ([Band<U>; 3], [Band<U>; 3]) {
    let mut x: [Band<U>; 3] = std::array::from_fn(|_| Band::zeros(w, h));
    let mut y: [Band<U>; 3] = std::array::from_fn(|_| Band::zeros(w, h));
    for i in region.top..region.bottom {
        for j in region.left..region.right {
            let at = i * w + j;
            let (p, q) = f(at);
            for t in 0..3 {
                x[t].data[at] = p[t];
                y[t].data[at] = q[t];
            }
        }
    }
    (x, y)
}

/// Level-0 decoupling over the widened region.
pub fn decouple_level_s0(r: &DwtBands<i16>, d: &DwtBands<i16>, egl: f64) -> Decoupled<i16> {
    let (w, h) = (r.a.width, r.a.height);
    let (rr, aa) = per_sample::<i16>(w, h, &Region::widened(w, h), |at| {
        decouple::decouple_s0(
            r.hvd.each_ref().map(|b| b.data[at]),
            d.hvd.each_ref().map(|b| b.data[at]),
            egl,
        )
    });
    Decoupled { r: rr, a: aa }
}

/// Levels 1–3 decoupling over the widened region.
pub fn decouple_level_s123(r: &DwtBands<i32>, d: &DwtBands<i32>, egl: f64) -> Decoupled<i32> {
    let (w, h) = (r.a.width, r.a.height);
    let (rr, aa) = per_sample::<i32>(w, h, &Region::widened(w, h), |at| {
        decouple::decouple_s123(
            r.hvd.each_ref().map(|b| b.data[at]),
            d.hvd.each_ref().map(|b| b.data[at]),
            egl,
        )
    });
    Decoupled { r: rr, a: aa }
}

/// Level-0 CSF over the widened region.
pub fn csf_level_s0(src: &[Band<i16>; 3], rf: &[u16; 3]) -> CsfBands<i16> {
    let (w, h) = (src[0].width, src[0].height);
    let (dst, flt) = per_sample::<i16>(w, h, &Region::widened(w, h), |at| {
        let mut p = [0i16; 3];
        let mut q = [0i16; 3];
        for t in 0..3 {
            (p[t], q[t]) = csf::csf_s0(src[t].data[at], t, rf);
        }
        (p, q)
    });
    CsfBands { dst, flt }
}

/// Levels 1–3 CSF over the widened region.
pub fn csf_level_s123(src: &[Band<i32>; 3], rf: &[u32; 3]) -> CsfBands<i32> {
    let (w, h) = (src[0].width, src[0].height);
    let (dst, flt) = per_sample::<i32>(w, h, &Region::widened(w, h), |at| {
        let mut p = [0i32; 3];
        let mut q = [0i32; 3];
        for t in 0..3 {
            (p[t], q[t]) = csf::csf_s123(src[t].data[at], rf[t]);
        }
        (p, q)
    });
    CsfBands { dst, flt }
}

/// One level-0 masking pass: row sums, each rounded by `ceil(log2 h)`.
pub fn cm_level_s0(src: &[Band<i16>; 3], masker: &CsfBands<i16>, rf: &[u16; 3]) -> [i64; 3] {
    let (w, h) = (src[0].width, src[0].height);
    let region = Region::core(w, h);
    let sh = cm::CmShiftsS0::new(w);
    let row_shift = cm::ceil_log2(h);
    let mut acc = [0i64; 3];
    for i in region.top..region.bottom {
        let row = cm::cm_row_s0(i, &region, src, &masker.dst, &masker.flt, rf, &sh);
        for t in 0..3 {
            acc[t] = acc[t].wrapping_add(cm::round_row(row[t], row_shift));
        }
    }
    acc
}

/// One levels 1–3 masking pass.
pub fn cm_level_s123(src: &[Band<i32>; 3], masker: &CsfBands<i32>, rf: &[u32; 3]) -> [i64; 3] {
    let (w, h) = (src[0].width, src[0].height);
    let region = Region::core(w, h);
    let cub = cm::ceil_log2(w);
    let row_shift = cm::ceil_log2(h);
    let mut acc = [0i64; 3];
    for i in region.top..region.bottom {
        let row = cm::cm_row_s123(i, &region, src, &masker.dst, &masker.flt, rf, cub);
        for t in 0..3 {
            acc[t] = acc[t].wrapping_add(cm::round_row(row[t], row_shift));
        }
    }
    acc
}

/// Level-0 denominator: row sums of `|ref|³`, each rounded.
pub fn den_level_s0(reference: &[Band<i16>; 3]) -> [u64; 3] {
    let region = Region::core(reference[0].width, reference[0].height);
    let shift = cm::den_shift_s0(&region);
    let mut acc = [0u64; 3];
    for i in region.top..region.bottom {
        let row = cm::den_row_s0(i, &region, reference);
        for t in 0..3 {
            acc[t] = acc[t].wrapping_add(cm::round_row_u(row[t], shift));
        }
    }
    acc
}

/// Levels 1–3 denominator: row shift `ceil(log2(region height))`.
pub fn den_level_s123(reference: &[Band<i32>; 3], scale: usize) -> [u64; 3] {
    let region = Region::core(reference[0].width, reference[0].height);
    let shift = cm::ceil_log2(region.height());
    let mut acc = [0u64; 3];
    for i in region.top..region.bottom {
        let row = cm::den_row_s123(i, &region, reference, scale);
        for t in 0..3 {
            acc[t] = acc[t].wrapping_add(cm::round_row_u(row[t], shift));
        }
    }
    acc
}

/// Decouple, CSF and mask one level-0 pair of transforms.
fn level_s0(r: &DwtBands<i16>, d: &DwtBands<i16>, rf: &[u16; 3], o: &AdmOptions) -> AdmScaleSums {
    let dec = decouple_level_s0(r, d, o.enhn_gain_limit);
    let den = den_level_s0(&r.hvd);
    // DLM: the restored signal, masked by the additive impairment's CSF.
    let csf_a = csf_level_s0(&dec.a, rf);
    let num = cm_level_s0(&dec.r, &csf_a, rf);
    // AIM: the additive impairment, masked by the restored signal's CSF.
    let aim = if o.skip_aim {
        [0; 3]
    } else {
        let csf_r = csf_level_s0(&dec.r, rf);
        cm_level_s0(&dec.a, &csf_r, rf)
    };
    AdmScaleSums { num, aim, den }
}

/// Decouple, CSF and mask one level 1–3 pair of transforms.
fn level_s123(
    r: &DwtBands<i32>,
    d: &DwtBands<i32>,
    rf: &[u32; 3],
    scale: usize,
    o: &AdmOptions,
) -> AdmScaleSums {
    let dec = decouple_level_s123(r, d, o.enhn_gain_limit);
    let den = den_level_s123(&r.hvd, scale);
    let csf_a = csf_level_s123(&dec.a, rf);
    let num = cm_level_s123(&dec.r, &csf_a, rf);
    let aim = if o.skip_aim {
        [0; 3]
    } else {
        let csf_r = csf_level_s123(&dec.r, rf);
        cm_level_s123(&dec.a, &csf_r, rf)
    };
    AdmScaleSums { num, aim, den }
}

/// Convenience: sums and scores of one frame pair.
pub fn adm_frame(
    reference: &PlaneView,
    distorted: &PlaneView,
    options: &AdmOptions,
) -> Result<AdmScores, MetricsError> {
    let sums = adm_frame_sums(reference, distorted, options)?;
    Ok(adm_scores(&sums, reference.width, reference.height, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random samples (xorshift) in `0..2^bpc`.
    fn noise(w: usize, h: usize, bpc: u32, seed: u64) -> Vec<u16> {
        let mut s = seed | 1;
        (0..w * h)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 20) as u16 & ((1u16 << bpc) - 1)
            })
            .collect()
    }

    #[test]
    fn constant_frame_scores_one() {
        // Every detail band is 0, so each level's numerator and denominator
        // are both just the noise floor: every scale is exactly 1, AIM has
        // no noise floor and is 0, and adm3 = 0.5·1 + 0.5·(1 − 0) = 1.
        for bpc in [8, 10, 12] {
            let s = vec![(1u16 << bpc) / 3; 64 * 48];
            let p = PlaneView::packed(64, 48, bpc, &s);
            let sc = adm_frame(&p, &p, &AdmOptions::default()).unwrap();
            assert_eq!(sc.adm2, 1.0, "bpc {bpc}");
            assert_eq!(sc.scale, [1.0; 4]);
            assert_eq!(sc.aim, 0.0);
            assert_eq!(sc.adm3, 1.0);
        }
    }

    #[test]
    fn regions_follow_libvmaf_borders() {
        // 960 wide: (int)(96 − 0.5) = 95 → [95, 865).
        let r = Region::core(960, 540);
        assert_eq!((r.left, r.right, r.top, r.bottom), (95, 865, 53, 487));
        // Widened: (int)(96 − 1.5) = 94 → right = 960 − 94 + 2 = 868.
        let r = Region::widened(960, 540);
        assert_eq!((r.left, r.right, r.top, r.bottom), (94, 868, 52, 490));
        // Small bands: the border vanishes and the widened region clamps.
        let r = Region::core(10, 6);
        assert_eq!((r.left, r.right, r.top, r.bottom), (0, 10, 0, 6));
        let r = Region::widened(10, 6);
        assert_eq!((r.left, r.right, r.top, r.bottom), (0, 10, 0, 6));
    }

    #[test]
    fn band_sizes_round_up() {
        assert_eq!(band_sizes(1920, 1080), [(960, 540), (480, 270), (240, 135), (120, 68)]);
        assert_eq!(band_sizes(33, 35), [(17, 18), (9, 9), (5, 5), (3, 3)]);
    }

    #[test]
    fn refuses_too_small_and_mismatched() {
        let s = noise(33, 33, 8, 1);
        let ok = PlaneView::packed(33, 33, 8, &s);
        assert!(adm_frame_sums(&ok, &ok, &AdmOptions::default()).is_ok());
        let s2 = noise(32, 40, 8, 2);
        let small = PlaneView::packed(32, 40, 8, &s2);
        assert!(matches!(
            adm_frame_sums(&small, &small, &AdmOptions::default()),
            Err(MetricsError::FrameTooSmall { width: 32, height: 40, .. })
        ));
        assert!(matches!(
            adm_frame_sums(&ok, &small, &AdmOptions::default()),
            Err(MetricsError::PlaneMismatch { .. })
        ));
    }

    #[test]
    fn viewing_geometry_below_1080p_3h_is_einval() {
        let s = noise(40, 40, 8, 3);
        let p = PlaneView::packed(40, 40, 8, &s);
        let near = AdmOptions { norm_view_dist: 2.0, ..AdmOptions::default() };
        assert!(matches!(
            adm_frame_sums(&p, &p, &near),
            Err(MetricsError::AdmViewingGeometry { .. })
        ));
        let far = AdmOptions { norm_view_dist: 4.0, ..AdmOptions::default() };
        assert!(adm_frame_sums(&p, &p, &far).is_ok());
        let bad = AdmOptions { enhn_gain_limit: 0.5, ..AdmOptions::default() };
        assert!(matches!(
            adm_frame_sums(&p, &p, &bad),
            Err(MetricsError::FloatOptionOutOfRange { .. })
        ));
    }

    #[test]
    fn odd_sizes_and_depths_run() {
        for (w, h, bpc) in [(33, 35, 8), (37, 41, 10), (65, 34, 12), (101, 57, 8)] {
            let r = noise(w, h, bpc, 7);
            let d: Vec<u16> = r.iter().map(|&x| x / 2 + (1 << (bpc - 2))).collect();
            let rp = PlaneView::packed(w, h, bpc, &r);
            let dp = PlaneView::packed(w, h, bpc, &d);
            let sc = adm_frame(&rp, &dp, &AdmOptions::default()).unwrap();
            assert!(
                sc.adm2.is_finite() && sc.adm2 > 0.0 && sc.adm2 < 1.0,
                "{w}x{h}@{bpc}: {}",
                sc.adm2
            );
            // With no enhancement allowed the restored part can only shrink.
            let neg = adm_frame(&rp, &dp, &AdmOptions::neg()).unwrap();
            assert!(neg.adm2 <= sc.adm2);
        }
    }

    #[test]
    fn skip_options_follow_libvmaf() {
        let r = noise(64, 64, 8, 11);
        let d = noise(64, 64, 8, 12);
        let rp = PlaneView::packed(64, 64, 8, &r);
        let dp = PlaneView::packed(64, 64, 8, &d);
        let o = AdmOptions { skip_aim: true, ..AdmOptions::default() };
        let sc = adm_frame(&rp, &dp, &o).unwrap();
        assert_eq!(sc.aim, 0.0);
        assert_eq!(sc.adm3, sc.adm2 * 0.5 + 0.5);
        let o = AdmOptions { skip_scale0: true, ..AdmOptions::default() };
        let sc = adm_frame(&rp, &dp, &o).unwrap();
        assert_eq!(sc.num_scale[0], 0.0);
        assert_eq!(sc.den_scale[0], f64::from(1e-10f32));
        assert_eq!(sc.scale[0], 0.0);
    }
}
