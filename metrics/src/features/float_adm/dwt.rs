//! One level of libvmaf's float Daubechies-2 wavelet transform.
//!
//! The same separable 4-tap structure and mirror as integer ADM's
//! ([`crate::features::adm::dwt::taps`]), in float: each output is
//! `((((0 + c0·s0) + c1·s1) + c2·s2) + c3·s3)`, every product and sum
//! rounded to float, the vertical pass first (kept as a float row), then
//! the horizontal one.

use crate::features::adm::dwt::{half, taps};
use crate::features::adm::{Band, DwtBands};

/// Low-pass analysis taps: libvmaf's double literals rounded to float.
pub const LO: [f32; 4] = [
    0.482962913144690_f64 as f32,
    0.836516303737469_f64 as f32,
    0.224143868041857_f64 as f32,
    -0.129409522550921_f64 as f32,
];
/// High-pass analysis taps.
pub const HI: [f32; 4] = [
    -0.129409522550921_f64 as f32,
    -0.224143868041857_f64 as f32,
    0.836516303737469_f64 as f32,
    -0.482962913144690_f64 as f32,
];

/// One 4-tap filter in libvmaf's order, starting from a zero accumulator.
#[inline]
pub fn filter(c: &[f32; 4], s: [f32; 4]) -> f32 {
    let mut acc = 0.0f32;
    for k in 0..4 {
        acc += c[k] * s[k];
    }
    acc
}

/// One level of the transform of `src` (at least 2 samples a side): the
/// four bands, `ceil(w/2) × ceil(h/2)`.
pub fn dwt(src: &Band<f32>) -> DwtBands<f32> {
    let (w, h) = (src.width, src.height);
    let (ow, oh) = (half(w), half(h));
    let mut out = DwtBands::zeros(ow, oh);
    let mut lo_row = vec![0.0f32; w];
    let mut hi_row = vec![0.0f32; w];
    for i in 0..oh {
        let rows = taps(i, h);
        for j in 0..w {
            let s = rows.map(|r| src.at(j, r));
            lo_row[j] = filter(&LO, s);
            hi_row[j] = filter(&HI, s);
        }
        for j in 0..ow {
            let cols = taps(j, w);
            let l = cols.map(|c| lo_row[c]);
            let hh = cols.map(|c| hi_row[c]);
            let at = i * ow + j;
            out.a.data[at] = filter(&LO, l);
            // libvmaf's band_v: low vertical, high horizontal.
            out.hvd[1].data[at] = filter(&HI, l);
            out.hvd[0].data[at] = filter(&LO, hh);
            out.hvd[2].data[at] = filter(&HI, hh);
        }
    }
    out
}
