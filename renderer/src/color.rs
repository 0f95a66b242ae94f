//! How a picture's YUV samples become the window's colours: the host twin
//! of `yuv_to_rgb` and `to_display` in `shaders/ui/fused.comp` (the same
//! constants and steps in the same order; the two must agree, which
//! `tests/tests/screenshots.rs` checks on the GPU).
//!
//! SDR BT.601/709 pictures are shown as coded. Wide-gamut (BT.2020) and HDR
//! pictures are brought to an SDR window as players do: PQ (SMPTE ST 2084)
//! decoded to nits, HLG (ARIB STD-B67) through BT.2100's OOTF at a 1000-nit
//! nominal peak; both tone-mapped from a [`SOURCE_PEAK_NITS`] source to the
//! display peak with BT.2390's EETF, applied to the largest of R, G and B
//! so hues are kept; BT.2020 primaries mapped to BT.709's in linear light
//! (out-of-gamut colours clipped); then BT.1886's gamma 2.4 with the
//! display peak as white.
//!
//! An HDR10 window (`Output::Hdr10`) gets the pictures' light as it is, not
//! tone-mapped: [`hdr10_rgb`] and [`extended_to_pq`] twin the shader's
//! `HDR10_OUTPUT` variant, which composites in an extended SDR space (the
//! UI's colours as they are, white at [`REFERENCE_WHITE_NITS`]) and stores
//! PQ-coded BT.2020.

pub use crate::scene::DEFAULT_PEAK_NITS;
use crate::scene::{Transfer, YuvFormat, YuvMatrix};

/// The luminance taken as the HDR source's peak (mastering metadata is not
/// read; 1000 nits is what most HDR10 and HLG content is graded for).
pub const SOURCE_PEAK_NITS: f32 = 1000.0;

/// Where an HDR10 window puts the UI's (and SDR pictures') white: BT.2408's
/// HDR reference white, so text and panels sit beside HDR pictures as
/// bright as diffuse white in them.
pub const REFERENCE_WHITE_NITS: f32 = 203.0;

const PQ_M1: f32 = 0.159_301_76;
const PQ_M2: f32 = 78.84375;
const PQ_C1: f32 = 0.835_937_5;
const PQ_C2: f32 = 18.851_563;
const PQ_C3: f32 = 18.6875;

/// PQ signal in [0, 1] to nits.
pub fn pq_to_nits(e: f32) -> f32 {
    let p = e.clamp(0.0, 1.0).powf(1.0 / PQ_M2);
    10000.0 * ((p - PQ_C1).max(0.0) / (PQ_C2 - PQ_C3 * p)).powf(1.0 / PQ_M1)
}

/// Nits to PQ signal in [0, 1].
pub fn nits_to_pq(nits: f32) -> f32 {
    let y = (nits / 10000.0).clamp(0.0, 1.0).powf(PQ_M1);
    ((PQ_C1 + PQ_C2 * y) / (1.0 + PQ_C3 * y)).powf(PQ_M2)
}

/// HLG signal in [0, 1] to scene-linear light in [0, 1].
fn hlg_to_scene(e: f32) -> f32 {
    let e = e.clamp(0.0, 1.0);
    if e <= 0.5 {
        e * e / 3.0
    } else {
        (((e - 0.559_910_7) / 0.178_832_77).exp() + 0.284_668_92) / 12.0
    }
}

/// BT.2390's EETF: a PQ value `e` of a source normalised to [0, 1] onto
/// [0, `max_lum`], identity below the knee.
fn eetf(e: f32, max_lum: f32) -> f32 {
    let ks = 1.5 * max_lum - 0.5;
    if e < ks {
        return e;
    }
    let t = (e - ks) / (1.0 - ks);
    let (t2, t3) = (t * t, t * t * t);
    (2.0 * t3 - 3.0 * t2 + 1.0) * ks
        + (t3 - 2.0 * t2 + t) * (1.0 - ks)
        + (-2.0 * t3 + 3.0 * t2) * max_lum
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Non-linear R'G'B' in [0, 1] to linear light in nits, SDR with `white`
/// nits as its white.
fn to_nits(rgb: [f32; 3], transfer: Transfer, white: f32) -> [f32; 3] {
    match transfer {
        Transfer::Pq => rgb.map(pq_to_nits),
        Transfer::Hlg => {
            let scene = rgb.map(hlg_to_scene);
            let ys = dot(scene, [0.2627, 0.6780, 0.0593]);
            scene.map(|c| SOURCE_PEAK_NITS * ys.powf(0.2) * c)
        }
        Transfer::Sdr => rgb.map(|c| c.powf(2.4) * white),
    }
}

/// Linear BT.2020 RGB to linear BT.709 RGB (BT.2087), unclipped.
fn bt2020_to_bt709(lin: [f32; 3]) -> [f32; 3] {
    [
        dot(lin, [1.6605, -0.5876, -0.0728]),
        dot(lin, [-0.1246, 1.1329, -0.0083]),
        dot(lin, [-0.0182, -0.1006, 1.1187]),
    ]
}

/// Linear BT.709 RGB to linear BT.2020 RGB (BT.2087).
fn bt709_to_bt2020(lin: [f32; 3]) -> [f32; 3] {
    [
        dot(lin, [0.6274, 0.3293, 0.0433]),
        dot(lin, [0.0691, 0.9195, 0.0114]),
        dot(lin, [0.0164, 0.0880, 0.8956]),
    ]
}

/// `x^e` with `x`'s sign: the extended space's negative (out of BT.709's
/// gamut) components keep their magnitude through the gamma.
fn signed_pow(x: f32, e: f32) -> f32 {
    x.signum() * x.abs().powf(e)
}

/// A wide-gamut or HDR picture's non-linear R'G'B' in [0, 1] to the
/// window's R'G'B'.
fn to_display(rgb: [f32; 3], matrix: YuvMatrix, transfer: Transfer, peak: f32) -> [f32; 3] {
    let mut lin = to_nits(rgb, transfer, peak);
    let m = lin[0].max(lin[1]).max(lin[2]);
    if transfer != Transfer::Sdr && peak < SOURCE_PEAK_NITS && m > 0.0 {
        let source = nits_to_pq(SOURCE_PEAK_NITS);
        let e = (nits_to_pq(m) / source).min(1.0);
        let mapped = pq_to_nits(eetf(e, nits_to_pq(peak) / source) * source);
        lin = lin.map(|c| c * (mapped / m));
    }
    if matrix == YuvMatrix::Bt2020 {
        lin = bt2020_to_bt709(lin);
    }
    lin.map(|c| (c / peak).clamp(0.0, 1.0).powf(1.0 / 2.4))
}

/// A wide-gamut or HDR picture's non-linear R'G'B' in [0, 1], not
/// tone-mapped, to the HDR10 window's extended compositing space: BT.709
/// primaries, gamma 2.4, [`REFERENCE_WHITE_NITS`] as 1.0, unbounded.
fn to_extended(rgb: [f32; 3], matrix: YuvMatrix, transfer: Transfer) -> [f32; 3] {
    let mut lin = to_nits(rgb, transfer, REFERENCE_WHITE_NITS);
    if matrix == YuvMatrix::Bt2020 {
        lin = bt2020_to_bt709(lin);
    }
    lin.map(|c| signed_pow(c / REFERENCE_WHITE_NITS, 1.0 / 2.4))
}

/// A colour composited for an HDR10 window (the UI's R'G'B' as drawn in an
/// SDR window, or a picture's [`to_extended`] value) to the PQ-coded
/// BT.2020 R'G'B' in [0, 1] stored.
pub fn extended_to_pq(e: [f32; 3]) -> [f32; 3] {
    let lin = e.map(|c| signed_pow(c, 2.4) * REFERENCE_WHITE_NITS);
    bt709_to_bt2020(lin).map(nits_to_pq)
}

/// A YUV sample triple's non-linear R'G'B' in [0, 1], in the picture's own
/// primaries and transfer.
fn coded_rgb(format: &YuvFormat, yuv: [f32; 3]) -> [f32; 3] {
    let [y, cb, cr] = yuv;
    let scale = (1u32 << (format.bit_depth - 8)) as f32;
    let maxv = ((1u32 << format.bit_depth) - 1) as f32;
    let (yn, cbn, crn) = if format.full_range {
        (y / maxv, (cb - 128.0 * scale) / maxv, (cr - 128.0 * scale) / maxv)
    } else {
        (
            (y - 16.0 * scale) / (219.0 * scale),
            (cb - 128.0 * scale) / (224.0 * scale),
            (cr - 128.0 * scale) / (224.0 * scale),
        )
    };
    let (kr, kb) = match format.matrix {
        YuvMatrix::Bt601 => (0.299, 0.114),
        YuvMatrix::Bt709 => (0.2126, 0.0722),
        YuvMatrix::Bt2020 => (0.2627, 0.0593),
    };
    let kg = 1.0 - kr - kb;
    [
        yn + 2.0 * (1.0 - kr) * crn,
        yn - (2.0 * kb * (1.0 - kb) / kg) * cbn - (2.0 * kr * (1.0 - kr) / kg) * crn,
        yn + 2.0 * (1.0 - kb) * cbn,
    ]
    .map(|c| c.clamp(0.0, 1.0))
}

/// Whether a picture of `format` is more than BT.601/709 SDR shown as coded.
fn needs_mapping(format: &YuvFormat) -> bool {
    format.matrix == YuvMatrix::Bt2020 || format.transfer != Transfer::Sdr
}

/// The window's R'G'B' in [0, 1] for one YUV sample triple (integers of
/// `format`'s depth and range) with the display peak `peak_nits`.
pub fn display_rgb(format: &YuvFormat, peak_nits: u16, yuv: [f32; 3]) -> [f32; 3] {
    let rgb = coded_rgb(format, yuv);
    if needs_mapping(format) {
        to_display(rgb, format.matrix, format.transfer, f32::from(peak_nits))
    } else {
        rgb
    }
}

/// The PQ-coded BT.2020 R'G'B' in [0, 1] an HDR10 window shows for one YUV
/// sample triple of an opaque picture (no tone mapping: the display does
/// its own).
pub fn hdr10_rgb(format: &YuvFormat, yuv: [f32; 3]) -> [f32; 3] {
    let rgb = coded_rgb(format, yuv);
    extended_to_pq(if needs_mapping(format) {
        to_extended(rgb, format.matrix, format.transfer)
    } else {
        rgb
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pq_round_trips_and_hits_the_standards_points() {
        // ST 2084: code value 1.0 is 10000 nits; 100 nits is about 0.5081.
        assert!((pq_to_nits(1.0) - 10000.0).abs() < 1.0);
        assert!((nits_to_pq(100.0) - 0.5081).abs() < 1e-3);
        for nits in [0.1f32, 1.0, 100.0, 203.0, 1000.0, 4000.0] {
            assert!((pq_to_nits(nits_to_pq(nits)) - nits).abs() / nits < 1e-3, "{nits}");
        }
    }

    #[test]
    fn hlg_is_continuous_at_its_knee_and_reaches_one() {
        assert!((hlg_to_scene(0.5) - 1.0 / 12.0).abs() < 1e-6);
        assert!((hlg_to_scene(0.500_001) - 1.0 / 12.0).abs() < 1e-5);
        assert!((hlg_to_scene(1.0) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn eetf_keeps_the_shadows_and_lands_the_peak() {
        let max_lum = 0.6;
        assert_eq!(eetf(0.2, max_lum), 0.2);
        assert!((eetf(1.0, max_lum) - max_lum).abs() < 1e-6);
        let mut last = 0.0;
        for i in 0..=100 {
            let v = eetf(i as f32 / 100.0, max_lum);
            assert!(v >= last && v <= max_lum + 1e-6, "monotone and bounded at {i}");
            last = v;
        }
    }

    fn format(matrix: YuvMatrix, transfer: Transfer) -> YuvFormat {
        YuvFormat {
            width: 1,
            height: 1,
            bit_depth: 10,
            subsampling: crate::scene::Subsampling::Yuv420,
            matrix,
            full_range: false,
            transfer,
        }
    }

    #[test]
    fn hdr_white_and_black() {
        // PQ at the source peak (1000 nits, grey) lands on the window's
        // white (the display peak); a brighter grey is clipped to it; black
        // stays black.
        let pq = format(YuvMatrix::Bt2020, Transfer::Pq);
        let code = |nits: f32| 64.0 + 876.0 * nits_to_pq(nits);
        for nits in [1000.0, 4000.0] {
            let white = display_rgb(&pq, 203, [code(nits), 512.0, 512.0]);
            assert!(white.iter().all(|c| (c - 1.0).abs() < 0.01), "{nits}: {white:?}");
        }
        let black = display_rgb(&pq, 203, [64.0, 512.0, 512.0]);
        assert!(black.iter().all(|c| *c < 1e-3), "{black:?}");
        // Below the knee a 20-nit grey keeps its light: 20/203 of white.
        let grey = display_rgb(&pq, 203, [code(20.0), 512.0, 512.0]);
        let expected = (20.0f32 / 203.0).powf(1.0 / 2.4);
        assert!(grey.iter().all(|c| (c - expected).abs() < 0.01), "{grey:?} vs {expected}");
    }

    #[test]
    fn hdr10_passes_pq_through_and_puts_sdr_white_at_203_nits() {
        // A PQ BT.2020 grey comes out with its own PQ value: no tone mapping.
        let pq = format(YuvMatrix::Bt2020, Transfer::Pq);
        for v in [0.0f32, 0.25, 0.5081, 0.75, 0.9] {
            let out = hdr10_rgb(&pq, [64.0 + 876.0 * v, 512.0, 512.0]);
            assert!(out.iter().all(|c| (c - v).abs() < 2e-4), "{v}: {out:?}");
        }
        // ST 2084 puts BT.2408's 203 nits at 58 % of the signal: an SDR
        // picture's white and the UI's white land there.
        let sdr = format(YuvMatrix::Bt709, Transfer::Sdr);
        let white = hdr10_rgb(&sdr, [940.0, 512.0, 512.0]);
        assert!(white.iter().all(|c| (c - 0.5806).abs() < 1e-3), "{white:?}");
        assert_eq!(extended_to_pq([1.0; 3]), white);
        // A BT.709 primary is inside BT.2020: no component goes negative,
        // and the red's PQ value stays the largest.
        let red = extended_to_pq([1.0, 0.0, 0.0]);
        assert!(red[0] > red[1] && red[1] > 0.0 && red[2] > 0.0, "{red:?}");
    }

    #[test]
    fn sdr_bt709_is_shown_as_coded() {
        let f = format(YuvMatrix::Bt709, Transfer::Sdr);
        let rgb = display_rgb(&f, 203, [64.0 + 438.0, 512.0, 512.0]);
        assert!(rgb.iter().all(|c| (c - 0.5).abs() < 1e-6), "{rgb:?}");
    }
}
