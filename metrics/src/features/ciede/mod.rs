//! CIEDE2000 (`ciede2000`): the exact CPU twin of libvmaf 3.2.0's `ciede`
//! extractor, the mean colour difference ΔE₀₀ of a frame pair reported as
//! `45 − 20·log10(mean ΔE)`.
//!
//! Per pixel libvmaf takes the luma sample and the chroma samples that its
//! upsampler puts there ([`ChromaReader`]), turns each YUV triple into
//! CIELAB (BT.709 limited range → sRGB transfer → XYZ, D65 → Lab), and
//! evaluates the CIEDE2000 formula with kL = 0.65, kC = 1, kH = 4. The
//! arithmetic is a mix of float and double that this twin follows step by
//! step: what libvmaf stores in a `float` is rounded to `f32` here at the
//! same point, and every library call is the same function at the same
//! precision (`pow`, `atan2`, `sin`, `cos`, `exp`, `sqrt` in double, one
//! `powf` in float), which Rust takes from the same libm. The frame's ΔE
//! values are summed in a double in raster order; the host turns the sum
//! into the score.

pub mod feature;
pub mod gpu;

use std::f64::consts::PI;

use vqscope_video::ChromaFormat;

use crate::MetricsError;
use crate::plane::{PlaneView, check_pair};

/// The name libvmaf's extractor goes by.
const FEATURE: &str = "ciede";

/// libvmaf's `powf(25., 7)`: 25⁷ = 6103515625 rounded to float.
const POW25_7_F32: f32 = 6_103_515_648.0;

/// libvmaf's `pow(25, 7)`, exact in double.
const POW25_7: f64 = 6_103_515_625.0;

/// The bit depths libvmaf's ciede reads; anything else it refuses.
pub fn check_depth(bpc: u32) -> Result<(), MetricsError> {
    match bpc {
        8 | 10 | 12 | 16 => Ok(()),
        _ => Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "bpc",
            value: i64::from(bpc),
            allowed: "8, 10, 12 or 16",
        }),
    }
}

/// Which chroma sample libvmaf's ciede pairs with each luma sample.
///
/// libvmaf first builds a 4:4:4 copy of each frame by repeating chroma
/// samples, then reads all three planes at the luma position:
/// - 4:4:4: the chroma sample at the same position.
/// - 4:2:0: the sample at `(x/2, y/2)`. For odd sizes libvmaf's own picture
///   holds only `⌊w/2⌋ × ⌊h/2⌋` chroma samples and it reads past them; here
///   the last column and row take the chroma sample that covers them in the
///   full `⌈w/2⌉ × ⌈h/2⌉` plane (what libvmaf would read had its picture
///   kept the whole plane).
/// - 4:2:2: libvmaf's upsampler halves the *rows* instead of the columns and
///   reads `w` samples from the start of chroma row `y/2`, running through
///   that row's padding into the rows after it. Its pictures pad each chroma
///   row of `⌊w/2⌋` samples with zeros to a multiple of 32 samples, so luma
///   `(x, y)` reads padded row `y/2 + x / span`, column `x % span`
///   (`span` = ⌊w/2⌋ rounded up to 32): a chroma sample, or 0 in the padding.
///   This reproduces libvmaf's output, wrong colours included. Frames so
///   short that the read would leave the plane are refused.
/// - 4:0:0: refused, as libvmaf refuses it (no colour to compare).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChromaReader {
    kind: ChromaKind,
    /// 4:2:2 only: samples per padded row of libvmaf's chroma picture.
    span: u32,
    /// 4:2:2 only: chroma samples per row libvmaf's picture holds (⌊w/2⌋).
    width: u32,
}

/// The three upsampling rules; the discriminants are what ciede.comp's
/// `chroma_kind` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum ChromaKind {
    Yuv444 = 0,
    Yuv420 = 1,
    Yuv422 = 2,
}

impl ChromaReader {
    /// The reader for `width × height` frames in `format`; refuses what
    /// libvmaf's ciede refuses (monochrome, empty frames) or reads outside
    /// its picture for (4:2:2 frames a few rows tall).
    pub fn new(format: ChromaFormat, width: u32, height: u32) -> Result<Self, MetricsError> {
        if width == 0 || height == 0 {
            return Err(MetricsError::FrameTooSmall {
                feature: FEATURE,
                width: width as usize,
                height: height as usize,
                reason: "a frame needs at least one pixel",
            });
        }
        let kind = match format {
            ChromaFormat::Mono => {
                return Err(MetricsError::Usage(
                    "ciede: monochrome (4:0:0) input has no colour to compare; libvmaf's ciede \
                     refuses it (EINVAL)"
                        .to_owned(),
                ));
            }
            ChromaFormat::Yuv444 => ChromaKind::Yuv444,
            ChromaFormat::Yuv420 => ChromaKind::Yuv420,
            ChromaFormat::Yuv422 => ChromaKind::Yuv422,
        };
        let chroma_width = width >> 1;
        let span = chroma_width.div_ceil(32) * 32;
        if kind == ChromaKind::Yuv422 {
            // The last padded row libvmaf reads must lie inside the plane.
            let last_row = u64::from((height - 1) >> 1) + u64::from((width - 1) / span.max(1));
            if span == 0 || last_row >= u64::from(height) {
                return Err(MetricsError::FrameTooSmall {
                    feature: FEATURE,
                    width: width as usize,
                    height: height as usize,
                    reason: "libvmaf's 4:2:2 upsampling reads past the chroma plane of so short a \
                             frame",
                });
            }
        }
        Ok(Self { kind, span, width: chroma_width })
    }

    pub fn kind(&self) -> ChromaKind {
        self.kind
    }

    /// The padded chroma row length of libvmaf's picture (⌊w/2⌋ rounded up
    /// to 32 samples), which only 4:2:2's lookup uses.
    pub fn span(&self) -> u32 {
        self.span
    }

    /// Where the chroma of luma `(x, y)` lies in the chroma planes, or
    /// `None` where libvmaf reads a zero of its row padding.
    pub fn locate(&self, x: usize, y: usize) -> Option<(usize, usize)> {
        match self.kind {
            ChromaKind::Yuv444 => Some((x, y)),
            ChromaKind::Yuv420 => Some((x >> 1, y >> 1)),
            ChromaKind::Yuv422 => {
                let span = self.span as usize;
                let (row, col) = ((y >> 1) + x / span, x % span);
                (col < self.width as usize).then_some((col, row))
            }
        }
    }

    /// The chroma plane size this reader needs for `width × height` luma
    /// (the stored plane: halves rounded up).
    pub fn plane_size(&self, width: usize, height: usize) -> (usize, usize) {
        match self.kind {
            ChromaKind::Yuv444 => (width, height),
            ChromaKind::Yuv420 => (width.div_ceil(2), height.div_ceil(2)),
            ChromaKind::Yuv422 => (width.div_ceil(2), height),
        }
    }
}

/// A colour in CIELAB, as libvmaf's `LABColor` holds it (floats).
pub type Lab = [f32; 3];

/// libvmaf's sRGB transfer (`rgb_to_xyz_map`): linear light from a gamma
/// encoded component, in double.
fn linearise(c: f64) -> f64 {
    if c > 10.0 / 255.0 { ((c + 0.055) * (1.0 / 1.055)).powf(2.4) } else { c * (1.0 / 12.92) }
}

/// CIELAB's f(t) (`xyz_to_lab_map`): a cube root through `pow(t, 1/3)`
/// above ε, the linear segment below; libvmaf returns it as a float.
fn lab_f(t: f64) -> f32 {
    const KAPPA: f64 = 24389.0 / 27.0;
    const EPSILON: f64 = 216.0 / 24389.0;
    if t > EPSILON { t.powf(1.0 / 3.0) as f32 } else { ((KAPPA * t + 16.0) * (1.0 / 116.0)) as f32 }
}

/// One YUV triple (samples at `bpc` bits) in CIELAB: libvmaf's
/// `get_lab_color`, BT.709 limited range, D65 white.
pub fn lab(y: u16, u: u16, v: u16, bpc: u32) -> Lab {
    let scale = f64::from(1u32 << (bpc - 8));
    let y = (f64::from(y) - 16.0 * scale) * (1.0 / (219.0 * scale));
    let u = (f64::from(u) - 128.0 * scale) * (1.0 / (224.0 * scale));
    let v = (f64::from(v) - 128.0 * scale) * (1.0 / (224.0 * scale));
    let r = linearise(y + 1.28033 * v);
    let g = linearise(y - 0.21482 * u - 0.38059 * v);
    let b = linearise(y + 2.12798 * u);
    let cx = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    let cy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    let cz = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
    let fx = f64::from(lab_f(cx * (1.0 / 0.95047)));
    let fy = f64::from(lab_f(cy));
    let fz = f64::from(lab_f(cz * (1.0 / 1.08883)));
    [(116.0 * fy - 16.0) as f32, (500.0 * (fx - fy)) as f32, (200.0 * (fy - fz)) as f32]
}

/// A float's square in double, exact (libvmaf's `pow(x, 2)` of a float).
fn sq(x: f32) -> f64 {
    f64::from(x) * f64::from(x)
}

/// The hue angle h' in [0, 2π) (`get_h_prime`): `atan2(b, a')` in double,
/// kept as a float, 0 for a neutral colour.
fn hue_angle(b: f32, a_prime: f32) -> f32 {
    if b == 0.0 && a_prime == 0.0 {
        return 0.0;
    }
    let h = f64::from(b).atan2(f64::from(a_prime)) as f32;
    if h < 0.0 { (f64::from(h) + 2.0 * PI) as f32 } else { h }
}

/// Δh' (`get_delta_h_prime`): the hue difference wrapped into [−π, π]; 0
/// when either colour has no chroma (tested on C, not C').
fn delta_hue(c1: f32, c2: f32, h1: f32, h2: f32) -> f32 {
    if c1 == 0.0 || c2 == 0.0 {
        0.0
    } else if f64::from((h1 - h2).abs()) <= PI {
        h2 - h1
    } else if h2 <= h1 {
        (f64::from(h2 - h1) + 2.0 * PI) as f32
    } else {
        (f64::from(h2 - h1) - 2.0 * PI) as f32
    }
}

/// H̄' (`get_upcase_h_bar_prime`): the mean hue, across the wrap when the
/// hues lie more than π apart (no special case for a neutral colour).
fn mean_hue(h1: f32, h2: f32) -> f32 {
    let sum = f64::from(h1 + h2);
    if f64::from(h1 - h2).abs() > PI { ((sum + 2.0 * PI) / 2.0) as f32 } else { (sum / 2.0) as f32 }
}

/// T (`get_upcase_t`) in double, before libvmaf keeps it as a float
/// ([`hue_weight`]). Public for `gpu_ciede`'s test of the shader's cheap T,
/// which needs how far this value lies from a float rounding boundary.
pub fn hue_weight_f64(h_bar: f32) -> f64 {
    let h = f64::from(h_bar);
    1.0 - 0.17 * (h - PI / 6.0).cos() + 0.24 * (2.0 * h).cos() + 0.32 * (3.0 * h + PI / 30.0).cos()
        - 0.20 * (4.0 * h - 7.0 * PI / 20.0).cos()
}

/// T as libvmaf keeps it, a float.
pub fn hue_weight(h_bar: f32) -> f32 {
    hue_weight_f64(h_bar) as f32
}

/// R_T (`get_r_sub_t`): the rotation term, with libvmaf's float
/// conversions between degrees and radians and its float `powf`s.
fn rotation(c_bar_prime: f32, h_bar: f32) -> f32 {
    let degrees = (f64::from(h_bar) * (180.0 / PI)) as f32;
    let offset = ((f64::from(degrees) - 275.0) * (1.0 / 25.0)) as f32;
    let c7 = c_bar_prime.powf(7.0);
    let ratio = c7 / (c7 + POW25_7_F32);
    let angle_degrees = (60.0 * (-f64::from(offset * offset)).exp()) as f32;
    let angle = (f64::from(angle_degrees) * (PI / 180.0)) as f32;
    (-2.0 * f64::from(ratio).sqrt() * f64::from(angle).sin()) as f32
}

/// ΔE₀₀ between two colours (libvmaf's `ciede2000` with kL = 0.65,
/// kC = 1, kH = 4), every intermediate at libvmaf's precision.
pub fn delta_e(c1: Lab, c2: Lab) -> f32 {
    const K_L: f32 = 0.65;
    const K_C: f32 = 1.0;
    const K_H: f32 = 4.0;
    let ([l1, a1, b1], [l2, a2, b2]) = (c1, c2);
    let delta_l = l2 - l1;
    let l_bar = (l1 + l2) / 2.0;
    let chroma1 = (sq(a1) + sq(b1)).sqrt() as f32;
    let chroma2 = (sq(a2) + sq(b2)).sqrt() as f32;
    let c_bar = (chroma1 + chroma2) / 2.0;
    let c_bar7 = f64::from(c_bar).powf(7.0);
    let g = 1.0 - (c_bar7 / (c_bar7 + POW25_7)).sqrt();
    let a_prime1 = (f64::from(a1) + f64::from(a1 / 2.0) * g) as f32;
    let a_prime2 = (f64::from(a2) + f64::from(a2 / 2.0) * g) as f32;
    let c_prime1 = (sq(a_prime1) + sq(b1)).sqrt() as f32;
    let c_prime2 = (sq(a_prime2) + sq(b2)).sqrt() as f32;
    let c_bar_prime = (c_prime1 + c_prime2) / 2.0;
    let delta_c = c_prime2 - c_prime1;
    let l50 = sq(l_bar - 50.0);
    let s_l = (1.0 + (0.015 * l50) / (20.0 + l50).sqrt()) as f32;
    let s_c = (1.0 + 0.045 * f64::from(c_bar_prime)) as f32;
    let h1 = hue_angle(b1, a_prime1);
    let h2 = hue_angle(b2, a_prime2);
    let delta_h = delta_hue(chroma1, chroma2, h1, h2);
    let delta_big_h =
        (2.0 * f64::from(c_prime1 * c_prime2).sqrt() * (f64::from(delta_h) / 2.0).sin()) as f32;
    let h_bar = mean_hue(h1, h2);
    let t = hue_weight(h_bar);
    let s_h = (1.0 + 0.015 * f64::from(c_bar_prime) * f64::from(t)) as f32;
    let r_t = rotation(c_bar_prime, h_bar);
    let lightness = delta_l / (K_L * s_l);
    let chroma = delta_c / (K_C * s_c);
    let hue = delta_big_h / (K_H * s_h);
    (sq(lightness) + sq(chroma) + sq(hue) + f64::from(r_t * chroma * hue)).sqrt() as f32
}

/// A frame's Y, Cb, Cr planes.
pub type YuvPlanes<'a> = [PlaneView<'a>; 3];

/// Checks a frame pair against `reader`: the same geometry on both sides,
/// a depth libvmaf reads, chroma planes of the size the format implies.
fn check_frames(
    reader: &ChromaReader,
    reference: &YuvPlanes<'_>,
    distorted: &YuvPlanes<'_>,
) -> Result<(), MetricsError> {
    for (r, d) in reference.iter().zip(distorted) {
        check_pair(FEATURE, r, d)?;
    }
    let luma = &reference[0];
    check_depth(luma.bpc)?;
    let want = reader.plane_size(luma.width, luma.height);
    for chroma in &reference[1..] {
        if (chroma.width, chroma.height) != want || chroma.bpc != luma.bpc {
            return Err(MetricsError::PlaneMismatch {
                feature: FEATURE,
                ref_width: want.0,
                ref_height: want.1,
                ref_bpc: luma.bpc,
                dis_width: chroma.width,
                dis_height: chroma.height,
                dis_bpc: chroma.bpc,
            });
        }
    }
    Ok(())
}

/// The YUV triple libvmaf's ciede reads at luma `(x, y)`.
fn sample(reader: &ChromaReader, planes: &YuvPlanes<'_>, x: usize, y: usize) -> [u16; 3] {
    let luma = planes[0].at(x, y);
    match reader.locate(x, y) {
        Some((cx, cy)) => [luma, planes[1].at(cx, cy), planes[2].at(cx, cy)],
        None => [luma, 0, 0],
    }
}

/// ΔE₀₀ of every pixel of a frame pair, row-major (`width × height`): the
/// values libvmaf adds up, and what the GPU kernel's map holds.
pub fn delta_e_map(
    reader: &ChromaReader,
    reference: &YuvPlanes<'_>,
    distorted: &YuvPlanes<'_>,
) -> Result<Vec<f32>, MetricsError> {
    check_frames(reader, reference, distorted)?;
    let (w, h, bpc) = (reference[0].width, reference[0].height, reference[0].bpc);
    let mut map = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            let [ry, ru, rv] = sample(reader, reference, x, y);
            let [dy, du, dv] = sample(reader, distorted, x, y);
            map.push(delta_e(lab(ry, ru, rv, bpc), lab(dy, du, dv, bpc)));
        }
    }
    Ok(map)
}

/// libvmaf's frame sum: the per-pixel ΔE added to a double in raster order.
pub fn raster_sum(map: &[f32]) -> f64 {
    map.iter().fold(0.0, |sum, &d| sum + f64::from(d))
}

/// The reported value from a frame's ΔE sum: `45 − 20·log10(sum / (w·h))`
/// (`w·h` an unsigned 32-bit product in libvmaf).
pub fn score(sum: f64, width: u32, height: u32) -> f64 {
    45.0 - 20.0 * (sum / f64::from(width.wrapping_mul(height))).log10()
}

/// `ciede2000` of one frame pair, as libvmaf computes it.
pub fn ciede2000(
    format: ChromaFormat,
    reference: &YuvPlanes<'_>,
    distorted: &YuvPlanes<'_>,
) -> Result<f64, MetricsError> {
    let (w, h) = (reference[0].width as u32, reference[0].height as u32);
    let reader = ChromaReader::new(format, w, h)?;
    let map = delta_e_map(&reader, reference, distorted)?;
    Ok(score(raster_sum(&map), w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs from Sharma, Wu and Dalal's CIEDE2000 test data. Their
    /// published ΔE (kL = kC = kH = 1) does not apply to libvmaf's weights
    /// (kL = 0.65, kH = 4); the expected values are the textbook formula
    /// with those weights, evaluated independently in double precision
    /// (Python), for pairs where libvmaf's formula and the textbook agree
    /// (hues less than π apart, so the mean hue needs no wrap).
    #[test]
    fn textbook_pairs_with_libvmaf_weights() {
        let pairs: [(Lab, Lab, f32); 4] = [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 0.963673),
            ([50.0, -1.3802, -84.2814], [50.0, 0.0, -82.7485], 0.483755),
            ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 0.836034),
            ([22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 1.531174),
        ];
        for (c1, c2, want) in pairs {
            let got = delta_e(c1, c2);
            assert!((got - want).abs() < 1e-5, "{c1:?} {c2:?}: {got} vs {want}");
        }
        // Lightness only: ΔL / (kL·S_L) with S_L = 1 at L̄ = 50.
        let got = delta_e([49.0, 0.0, 0.0], [51.0, 0.0, 0.0]);
        assert!((got - 2.0 / 0.65).abs() < 1e-5, "{got}");
    }

    #[test]
    fn lab_of_limited_range_white_and_black() {
        let white = lab(235, 128, 128, 8);
        assert!((white[0] - 100.0).abs() < 1e-3, "{white:?}");
        assert!(white[1].abs() < 0.05 && white[2].abs() < 0.05, "{white:?}");
        let black = lab(16 << 2, 128 << 2, 128 << 2, 10);
        assert!(black[0].abs() < 1e-5 && black[1] == 0.0 && black[2] == 0.0, "{black:?}");
    }

    #[test]
    fn chroma_positions_follow_libvmaf() {
        let r420 = ChromaReader::new(ChromaFormat::Yuv420, 5, 3).unwrap();
        assert_eq!(r420.locate(4, 2), Some((2, 1)));
        // 4:2:2, 100 wide: chroma rows of 50 padded to 64.
        let r422 = ChromaReader::new(ChromaFormat::Yuv422, 100, 4).unwrap();
        assert_eq!(r422.locate(10, 3), Some((10, 1)));
        assert_eq!(r422.locate(55, 0), None);
        assert_eq!(r422.locate(70, 2), Some((6, 2)));
        assert!(ChromaReader::new(ChromaFormat::Yuv422, 100, 1).is_err());
        assert!(ChromaReader::new(ChromaFormat::Mono, 8, 8).is_err());
        assert!(check_depth(9).is_err());
    }

    /// ciede.comp skips unchanged pixels, writing +0: the formula must
    /// give exactly +0 for a colour against itself, every sign of every
    /// term included (a sweep of 8-bit colours, saturated ones among them).
    #[test]
    fn a_colour_against_itself_is_exactly_positive_zero() {
        for y in (0..=255u16).step_by(5) {
            for u in (0..=255u16).step_by(15) {
                for v in (0..=255u16).step_by(15) {
                    let c = lab(y, u, v, 8);
                    let d = delta_e(c, c);
                    assert_eq!(d.to_bits(), 0, "({y}, {u}, {v}) = {c:?}: {d:e}");
                }
            }
        }
    }

    #[test]
    fn identical_frames_give_infinity() {
        let y = [100u16; 4];
        let c = [90u16; 1];
        let planes = [
            PlaneView::packed(2, 2, 8, &y),
            PlaneView::packed(1, 1, 8, &c),
            PlaneView::packed(1, 1, 8, &c),
        ];
        let v = ciede2000(ChromaFormat::Yuv420, &planes, &planes).unwrap();
        assert_eq!(v, f64::INFINITY);
    }
}
