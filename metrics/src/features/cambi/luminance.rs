//! CAMBI's visibility thresholds (libvmaf's `luminance_tools.c` and the
//! threshold search in `cambi.c`): which 10-bit luma steps a viewer can see,
//! given a display EOTF.
//!
//! Everything here is double arithmetic evaluated once per extractor, so it
//! runs on the host in the same order as libvmaf; the results are small
//! integer tables.

/// libvmaf's `luma_range` for 10-bit limited range, the only one CAMBI uses
/// (`vmaf_luminance_init_luma_range(.., 10, VMAF_PIXEL_RANGE_LIMITED)`).
pub const FOOT: i32 = 16 << 2;
/// Top of 10-bit limited range.
pub const HEAD: i32 = 235 << 2;

/// The display transfer functions CAMBI's `eotf` option names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eotf {
    /// ITU-R BT.1886 with a 300 cd/m² white and 0.01 cd/m² black.
    Bt1886,
    /// SMPTE ST 2084 (PQ).
    Pq,
}

impl Eotf {
    /// The names libvmaf accepts, in its order.
    pub const NAMES: [&'static str; 2] = ["bt1886", "pq"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "bt1886" => Some(Self::Bt1886),
            "pq" => Some(Self::Pq),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Bt1886 => "bt1886",
            Self::Pq => "pq",
        }
    }

    /// Display luminance (cd/m²) of a normalised signal `v` in `[0, 1]`.
    pub fn luminance_of(self, v: f64) -> f64 {
        match self {
            Self::Bt1886 => bt1886(v),
            Self::Pq => pq(v),
        }
    }

    /// Luminance of 10-bit limited-range code `sample` (clipped to the
    /// range first, as libvmaf's `vmaf_luminance_get_luminance` does).
    pub fn luminance(self, sample: i32) -> f64 {
        let clipped = sample.clamp(FOOT, HEAD);
        self.luminance_of(f64::from(clipped - FOOT) / f64::from(HEAD - FOOT))
    }
}

/// BT.1886 with libvmaf's constants (gamma 2.4, Lw 300, Lb 0.01), each
/// power evaluated as libvmaf writes it.
fn bt1886(v: f64) -> f64 {
    const GAMMA: f64 = 2.4;
    const LW: f64 = 300.0;
    const LB: f64 = 0.01;
    let a = (LW.powf(1.0 / GAMMA) - LB.powf(1.0 / GAMMA)).powf(GAMMA);
    let b = LB.powf(1.0 / GAMMA) / (LW.powf(1.0 / GAMMA) - LB.powf(1.0 / GAMMA));
    let base = v + b;
    a * (if base > 0.0 { base } else { 0.0 }).powf(GAMMA)
}

/// PQ with ST 2084's constants, as libvmaf evaluates it.
fn pq(v: f64) -> f64 {
    const M1: f64 = 0.1593017578125;
    const M2: f64 = 78.84375;
    const C1: f64 = 0.8359375;
    const C2: f64 = 18.8515625;
    const C3: f64 = 18.6875;
    let num = v.powf(1.0 / M2) - C1;
    let num = if num > 0.0 { num } else { 0.0 };
    let den = C2 - C3 * v.powf(1.0 / M2);
    10000.0 * (num / den).powf(1.0 / M1)
}

/// Whether a step of `diff` codes up from `sample` is visible: the
/// luminance rise exceeds `tvi_threshold` times the luminance at `sample`.
fn visible(eotf: Eotf, sample: i32, diff: i32, tvi_threshold: f64) -> bool {
    let mean = eotf.luminance(sample);
    let stepped = eotf.luminance(sample + diff);
    stepped - mean > tvi_threshold * mean
}

/// Where `sample` lies relative to the last code at which a step of `diff`
/// is still visible (libvmaf's `tvi_hard_threshold_condition`).
#[derive(Debug, PartialEq, Eq)]
enum Bisect {
    /// Visible here and one code up: the answer lies higher.
    TooSmall,
    /// Visible here, not one code up: this is the answer.
    Correct,
    /// Not visible here: the answer lies lower.
    TooBig,
}

fn bisect_at(eotf: Eotf, sample: i32, diff: i32, tvi_threshold: f64) -> Bisect {
    if !visible(eotf, sample, diff, tvi_threshold) {
        Bisect::TooBig
    } else if visible(eotf, sample + 1, diff, tvi_threshold) {
        Bisect::TooSmall
    } else {
        Bisect::Correct
    }
}

/// The largest 10-bit code at which a step of `diff` codes is visible
/// (libvmaf's `get_tvi_for_diff`: checks both ends of the range, then
/// bisects; 0 when the step is invisible even at the foot, 1023 when it is
/// visible up to the head).
pub fn tvi_for_diff(diff: i32, tvi_threshold: f64, eotf: Eotf) -> i32 {
    const MAX_VAL: i32 = (1 << 10) - 1;
    let mut foot = FOOT;
    let mut head = HEAD - diff - 1;
    match bisect_at(eotf, foot, diff, tvi_threshold) {
        Bisect::TooBig => return 0,
        Bisect::Correct => return foot,
        Bisect::TooSmall => {}
    }
    match bisect_at(eotf, head, diff, tvi_threshold) {
        Bisect::TooSmall => return MAX_VAL,
        Bisect::Correct => return head,
        Bisect::TooBig => {}
    }
    loop {
        let mid = foot + (head - foot) / 2;
        match bisect_at(eotf, mid, diff, tvi_threshold) {
            Bisect::TooBig => head = mid,
            Bisect::TooSmall => foot = mid,
            Bisect::Correct => return mid,
        }
    }
}

/// The smallest 10-bit code whose luminance reaches `threshold` cd/m², or
/// 0 when the foot already does (libvmaf's `get_vlt_luma`).
pub fn vlt_luma(threshold: f64, eotf: Eotf) -> u16 {
    let mut sample = FOOT;
    while eotf.luminance(sample) < threshold {
        sample += 1;
        // Above the head the luminance stops rising; libvmaf would spin
        // until its 16-bit counter wrapped. The option's range (at most
        // 300 cd/m², BT.1886's white) keeps it from getting here.
        if sample > HEAD {
            break;
        }
    }
    if sample == FOOT { 0 } else { sample as u16 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BT.1886's ends are its black and white levels; PQ's are 0 and
    /// 10000 cd/m².
    #[test]
    fn eotf_ends() {
        assert!((Eotf::Bt1886.luminance(FOOT) - 0.01).abs() < 1e-12);
        assert!((Eotf::Bt1886.luminance(HEAD) - 300.0).abs() < 1e-9);
        assert_eq!(Eotf::Pq.luminance(FOOT), 0.0);
        assert!((Eotf::Pq.luminance(HEAD) - 10000.0).abs() < 1e-6);
        // Clipped outside the range.
        assert_eq!(Eotf::Bt1886.luminance(0), Eotf::Bt1886.luminance(FOOT));
    }

    /// The threshold search returns the last visible code: the step is
    /// visible there and not one code higher (checked from the definition,
    /// for every diff and both EOTFs).
    #[test]
    fn tvi_is_the_last_visible_code() {
        for eotf in [Eotf::Bt1886, Eotf::Pq] {
            for diff in 1..=32 {
                let t = tvi_for_diff(diff, 0.019, eotf);
                if t == 1023 {
                    // Visible all the way: at the last code searched.
                    assert!(visible(eotf, HEAD - diff - 1, diff, 0.019));
                    continue;
                }
                assert!(visible(eotf, t, diff, 0.019), "{eotf:?} diff {diff} at {t}");
                assert!(!visible(eotf, t + 1, diff, 0.019), "{eotf:?} diff {diff} at {t}+1");
                // Larger steps stay visible higher up.
                assert!(t >= tvi_for_diff(diff.max(2) - 1, 0.019, eotf));
            }
        }
    }

    /// `vlt_luma` is the first code at or above the threshold.
    #[test]
    fn vlt_luma_is_the_first_code_at_the_threshold() {
        assert_eq!(vlt_luma(0.0, Eotf::Bt1886), 0);
        let v = i32::from(vlt_luma(0.06, Eotf::Bt1886));
        assert!(Eotf::Bt1886.luminance(v) >= 0.06);
        assert!(Eotf::Bt1886.luminance(v - 1) < 0.06);
    }
}
