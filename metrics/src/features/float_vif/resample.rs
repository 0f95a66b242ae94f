//! libvmaf's float frame resamplers (`vif_scale_frame_s` in
//! `vif_tools.c`: nearest, bilinear, bicubic, lanczos4), which the
//! `*_prescale` options of the float extractors and SpEED use, and the
//! bilinear half-size downscale of float motion's `motion_add_scale1`.
//!
//! Every expression is libvmaf's, in its precision: the ratios are `f32`
//! divisions, each source coordinate `(i + 0.5)·ratio − 0.5` is computed
//! in `double` and stored as a `float`, the mirror works on `float`s, the
//! weights and sums are `f32` products and sums left to right (the
//! Lanczos kernel itself is `double`, with libm's `sin`).

// Index loops, as in libvmaf's C: they keep the port checkable line by
// line, and the order of every float operation visible.
#![allow(clippy::needless_range_loop)]

/// The ratio `src / dst` of one axis, a float division as in libvmaf.
pub fn scale_ratio(src: usize, dst: usize) -> f32 {
    src as f32 / dst as f32
}

/// The source coordinate of output index `i`: `(i + 0.5)·ratio − 0.5`,
/// computed in double (the constants are doubles) and stored as a float.
fn source_coordinate(i: usize, ratio: f32) -> f32 {
    ((i as f64 + 0.5) * f64::from(ratio) - 0.5) as f32
}

/// libvmaf's resampling mirror, in float: `−i` below 0, `2·right − i`
/// above `right`.
fn reflect(i: f32, right: f32) -> f32 {
    if i < 0.0 {
        -i
    } else if i > right {
        2.0 * right - i
    } else {
        i
    }
}

/// A row-major float plane as the resamplers read it.
#[derive(Clone, Copy)]
pub struct Samples<'a> {
    pub data: &'a [f32],
    pub width: usize,
    pub height: usize,
}

impl Samples<'_> {
    fn at(&self, x: i32, y: i32) -> f32 {
        self.data[y as usize * self.width + x as usize]
    }

    /// The mirrored integer index of float position `i` on an axis of `n`
    /// samples, through libvmaf's float mirror and C's truncating cast.
    fn index(i: f32, n: usize) -> i32 {
        reflect(i, (n - 1) as f32) as i32
    }
}

/// One bilinear sample at float coordinates `(x, y)`, libvmaf's expression
/// left to right in float.
fn bilinear(src: Samples<'_>, x: f32, y: f32) -> f32 {
    let x1 = Samples::index(x.floor(), src.width);
    let x2 = Samples::index(x.ceil(), src.width);
    let y1 = Samples::index(y.floor(), src.height);
    let y2 = Samples::index(y.ceil(), src.height);
    let dx = x - x1 as f32;
    let dy = y - y1 as f32;
    (1.0 - dy) * (1.0 - dx) * src.at(x1, y1)
        + (1.0 - dy) * dx * src.at(x2, y1)
        + dy * (1.0 - dx) * src.at(x1, y2)
        + dy * dx * src.at(x2, y2)
}

/// `bicubic_kernel` (a = −0.75), in float.
fn bicubic_kernel(t: f32) -> f32 {
    let a = -0.75f32;
    let t = if t < 0.0 { -t } else { t };
    if t < 1.0 {
        return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    }
    if t < 2.0 {
        return (((t - 5.0) * t + 8.0) * t - 4.0) * a;
    }
    0.0
}

/// One bicubic sample (`bicubic_interpolation`).
fn bicubic(src: Samples<'_>, x: f32, y: f32) -> f32 {
    let x0 = f64::from(x).floor() as i32;
    let y0 = f64::from(y).floor() as i32;
    let dx = x - x0 as f32;
    let dy = y - y0 as f32;
    let wx: [f32; 4] = std::array::from_fn(|k| bicubic_kernel((k as i32 - 1) as f32 - dx));
    let wy: [f32; 4] = std::array::from_fn(|k| bicubic_kernel((k as i32 - 1) as f32 - dy));
    let mut v = 0.0f32;
    for j in 0..4 {
        for i in 0..4 {
            let xi = Samples::index((x0 + i as i32 - 1) as f32, src.width);
            let yi = Samples::index((y0 + j as i32 - 1) as f32, src.height);
            let w = wx[i] * wy[j];
            v += src.at(xi, yi) * w;
        }
    }
    v
}

/// `lanczos4_kernel(x, a)`: evaluated in double (`a·sin(πx)·sin(πx/a) /
/// (π²x²)`), returned as a float.
fn lanczos4_kernel(x: f32, a: f32) -> f32 {
    if x == 0.0 {
        return 1.0;
    }
    if x > -a && x < a {
        let (xd, ad) = (f64::from(x), f64::from(a));
        let pi = std::f64::consts::PI;
        return (ad * (pi * xd).sin() * (pi * xd / ad).sin() / (pi * pi * xd * xd)) as f32;
    }
    0.0
}

/// One Lanczos-4 sample (`lanczos4_interpolation`): the 9×9 weighted sum
/// divided by the sum of the weights, both in float.
fn lanczos4(src: Samples<'_>, x: f32, y: f32) -> f32 {
    const A: i32 = 4;
    let x0 = f64::from(x).floor() as i32;
    let y0 = f64::from(y).floor() as i32;
    let dx = x - x0 as f32;
    let dy = y - y0 as f32;
    let wx: [f32; 9] = std::array::from_fn(|k| lanczos4_kernel((k as i32 - A) as f32 - dx, 4.0));
    let wy: [f32; 9] = std::array::from_fn(|k| lanczos4_kernel((k as i32 - A) as f32 - dy, 4.0));
    let (mut value, mut weight_sum) = (0.0f32, 0.0f32);
    for iy in 0..9 {
        for ix in 0..9 {
            let w = wx[ix] * wy[iy];
            weight_sum += w;
            let xi = Samples::index((x0 + ix as i32 - A) as f32, src.width);
            let yi = Samples::index((y0 + iy as i32 - A) as f32, src.height);
            value += src.at(xi, yi) * w;
        }
    }
    value / weight_sum
}

/// `vif_scale_frame_s`: `src` resampled to `dst_w × dst_h` with `method`
/// (row-major, tightly packed). A plane already of that size is copied.
pub fn resample(
    method: super::PrescaleMethod,
    src: Samples<'_>,
    dst_w: usize,
    dst_h: usize,
) -> Vec<f32> {
    use super::PrescaleMethod as M;
    if (src.width, src.height) == (dst_w, dst_h) {
        return src.data.to_vec();
    }
    let (rx, ry) = (scale_ratio(src.width, dst_w), scale_ratio(src.height, dst_h));
    let mut out = Vec::with_capacity(dst_w * dst_h);
    for y in 0..dst_h {
        let yy = source_coordinate(y, ry);
        for x in 0..dst_w {
            let xx = source_coordinate(x, rx);
            out.push(match method {
                // Nearest truncates `i·ratio` (a float product).
                M::Nearest => src.at((x as f32 * rx) as i32, (y as f32 * ry) as i32),
                M::Bilinear => bilinear(src, xx, yy),
                M::Bicubic => bicubic(src, xx, yy),
                M::Lanczos4 => lanczos4(src, xx, yy),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::PrescaleMethod;
    use super::*;

    #[test]
    fn a_constant_plane_stays_constant() {
        let data = vec![7.5f32; 13 * 9];
        let src = Samples { data: &data, width: 13, height: 9 };
        for m in PrescaleMethod::NAMES {
            let m = PrescaleMethod::from_name(m).unwrap();
            for (w, h) in [(7, 5), (26, 18), (10, 4)] {
                let out = resample(m, src, w, h);
                assert_eq!(out.len(), w * h);
                assert!(out.iter().all(|&v| (v - 7.5).abs() < 1e-4), "{m:?} {w}x{h}: {out:?}");
            }
        }
    }

    #[test]
    fn nearest_picks_truncated_positions() {
        let data: Vec<f32> = (0..8).map(|v| v as f32).collect();
        let src = Samples { data: &data, width: 8, height: 1 };
        assert_eq!(resample(PrescaleMethod::Nearest, src, 3, 1), [0.0, 2.0, 5.0]);
    }
}
