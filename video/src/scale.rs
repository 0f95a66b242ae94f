//! Bicubic scaling with libswscale's integer arithmetic, as ffmpeg's `scale`
//! filter does it at its default (`flags=bicubic`): the CPU twin of the GPU
//! scale kernels (vqscope-metrics `scale`), bit-exact to ffmpeg's plain C
//! path for planar YUV to the same planar YUV at another size.
//!
//! ffmpeg's x86 SIMD path is not that arithmetic by default: at 8 bits it
//! rounds differently unless `accurate_rnd` or `bitexact` is set (either
//! alone is enough; with them its bytes equal the C path's, as
//! `video/tests/scale_ffmpeg.rs` checks), and above 8 bits it differs even
//! then, on random frames by up to a few codes (found by experiment with
//! ffmpeg 5.1: only `-cpuflags 0`, which slows its decoders too, gives the
//! C result there; natural content often agrees). [`SWS_FLAGS`] is what the
//! ffmpeg fallback passes.
//!
//! How swscale scales one plane, and so how this module does:
//!
//! 1. For each axis a filter: every output sample reads `taps` consecutive
//!    input samples from `first`, weighted by 16-bit coefficients. The
//!    weights are Mitchell–Netravali's cubic with B = 0, C = 0.6 evaluated in
//!    fixed point at the distance between the output sample's centre mapped
//!    into the input and each input centre (stretched by the ratio when
//!    shrinking, so the kernel widens); near-zero taps at both ends are cut,
//!    taps that fall outside the plane are folded onto its edge samples, and
//!    the weights are rounded to sum to 2^14 (horizontal) or 2^12 (vertical)
//!    with the rounding error carried from tap to tap.
//! 2. The horizontal pass turns each input row into 15-bit intermediates:
//!    the weighted sum shifted right by 7 (8-bit input) or `bpc - 1`, capped
//!    at 32767 (never floored: bicubic overshoot below zero stays).
//! 3. The vertical pass weights intermediate rows, adds half of the final
//!    shift's unit and shifts by `27 - bpc` (19 at 8 bits), clipping to the
//!    sample range.
//!
//! Chroma planes are scaled the same way between the chroma sizes (rounded
//! up, as [`Geometry::plane_size`]), with sample centres aligned the same
//! way as luma's: swscale's default chroma position for every subsampling.

use crate::error::{Result, VideoError};
use crate::frame::{Frame, Geometry};

/// The swscale flags the ffmpeg fallback scales with (`scale=W:H:flags=…`):
/// bicubic, with the vertical pass rounded as in swscale's C code.
pub const SWS_FLAGS: &str = "bicubic+accurate_rnd+bitexact";

/// How the report and notices name this scaling.
pub const SCALE_NAME: &str = "bicubic, swscale's arithmetic";

/// Mitchell–Netravali's C for swscale's default bicubic (B is 0), in the
/// 2^24 fixed point the filter is evaluated in (truncated, as swscale does).
const BICUBIC_C: i64 = (0.6 * (1u64 << 24) as f64) as i64;

/// The part of a filter's weight that may be cut from either end.
const REDUCE_CUTOFF: f64 = 0.002;

/// Taps at which swscale gives up and scales in two steps (its filter size
/// limit); ratios that need it are refused.
const MAX_TAPS: usize = 256;

/// One axis of a scale: for each output sample the first input sample it
/// reads and `taps` weights (summing to the pass's unit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisFilter {
    pub taps: usize,
    /// First input sample of each output sample; all its taps lie inside.
    pub first: Vec<i32>,
    /// `taps` weights per output sample, output-major.
    pub weights: Vec<i16>,
}

impl AxisFilter {
    /// The bicubic filter from `src` to `dst` samples whose weights sum to
    /// `one` (2^14 for the horizontal pass, 2^12 for the vertical one).
    /// `None` where swscale would need two steps (a shrink of about 64:1).
    pub fn bicubic(src: u32, dst: u32, one: i64) -> Option<AxisFilter> {
        let (src_n, dst_n) = (i64::from(src), i64::from(dst));
        // Input step per output sample in 16.16, rounded.
        let inc = ((src_n << 16) + (dst_n >> 1)) / dst_n;
        // The fixed-point unit the unnormalised weights are computed in,
        // smaller for large shrinks so that wide sums stay in range.
        let fone: i64 = 1 << (54 - ilog2(src / dst).min(8));
        let n = dst as usize;
        let (mut size, mut first, mut coeffs): (usize, Vec<i32>, Vec<i64>);
        if (inc - 0x10000).abs() < 10 {
            // Nearly one to one: a single tap per sample.
            size = 1;
            first = (0..n as i32).collect();
            coeffs = vec![fone; n];
        } else {
            size = if inc <= 1 << 16 { 5 } else { (1 + (4 * src_n + dst_n - 1) / dst_n) as usize };
            size = size.min((src as usize).saturating_sub(2)).max(1);
            first = Vec::with_capacity(n);
            coeffs = Vec::with_capacity(n * size);
            // The output centre mapped into the input, in 1/2^17 units
            // (both centres are half a sample in, so the offsets cancel).
            let mut centre = inc - 0x10000;
            for _ in 0..n {
                let start = (centre - (size as i64 - 2) * (1 << 16)) / (1 << 17);
                first.push(start as i32);
                for at in start..start + size as i64 {
                    let mut d = (at * (1 << 17) - centre).abs() << 13;
                    if inc > 1 << 16 {
                        d = d * dst_n / src_n;
                    }
                    coeffs.push(cubic(d) / ((1i64 << 54) / fone));
                }
                centre += 2 * inc;
            }
        }
        let cutoff = REDUCE_CUTOFF * fone as f64;
        // Cut near-zero taps on the left (keeping starts increasing), and
        // find how many taps the widest remaining filter needs.
        let mut needed = 0;
        for i in (0..n).rev() {
            let row = &mut coeffs[i * size..(i + 1) * size];
            let mut cut = 0i64;
            for _ in 0..size {
                cut += row[0].abs();
                if cut as f64 > cutoff || (i + 1 < n && first[i] >= first[i + 1]) {
                    break;
                }
                row.rotate_left(1);
                row[size - 1] = 0;
                first[i] += 1;
            }
            let mut kept = size;
            let mut cut = 0i64;
            for j in (1..size).rev() {
                cut += row[j].abs();
                if cut as f64 > cutoff {
                    break;
                }
                kept -= 1;
            }
            needed = needed.max(kept);
        }
        if needed >= MAX_TAPS {
            return None;
        }
        let taps = needed;
        let mut filter: Vec<i64> =
            coeffs.chunks_exact(size).flat_map(|row| row[..taps].iter().copied()).collect();
        for (i, start) in first.iter_mut().enumerate() {
            fold_edges(&mut filter[i * taps..(i + 1) * taps], start, src as i32);
        }
        let mut weights = Vec::with_capacity(n * taps);
        for row in filter.chunks_exact(taps) {
            let mut sum = (row.iter().sum::<i64>() + one / 2) / one;
            if sum == 0 {
                sum = 1;
            }
            let mut error = 0i64;
            for &c in row {
                let v = c + error;
                let w = rounded_div(v, sum);
                weights.push(w as i16);
                error = v - w * sum;
            }
        }
        Some(AxisFilter { taps, first, weights })
    }
}

/// swscale's bicubic weight at distance `d` (2^30 fixed point), scaled by
/// 2^54: Mitchell–Netravali with B = 0 and C = [`BICUBIC_C`].
fn cubic(d: i64) -> i64 {
    const ONE: i64 = 1 << 24;
    let c = BICUBIC_C;
    if d >= 1 << 31 {
        return 0;
    }
    let dd = (d * d) >> 30;
    let ddd = (dd * d) >> 30;
    if d < 1 << 30 {
        (12 * ONE - 6 * c) * ddd + (-18 * ONE + 6 * c) * dd + 6 * ONE * (1 << 30)
    } else {
        (-6 * c) * ddd + (30 * c) * dd + (-48 * c) * d + (24 * c) * (1 << 30)
    }
}

/// Moves taps that start before sample 0 onto it, and taps past the last
/// sample onto that one, shifting the filter so it lies inside `0..len`.
fn fold_edges(row: &mut [i64], start: &mut i32, len: i32) {
    let taps = row.len() as i32;
    if *start < 0 {
        for j in 1..taps {
            let left = (j + *start).max(0);
            let moved = row[j as usize];
            row[j as usize] = 0;
            row[left as usize] += moved;
        }
        *start = 0;
    }
    if *start + taps > len {
        let shift = *start + (taps - len).min(0);
        let mut acc = 0;
        for j in (0..taps).rev() {
            if *start + j >= len {
                acc += row[j as usize];
                row[j as usize] = 0;
            }
        }
        for j in (0..taps).rev() {
            row[j as usize] = if j < shift { 0 } else { row[(j - shift) as usize] };
        }
        *start -= shift;
        row[(len - 1 - *start) as usize] += acc;
    }
}

/// Division rounding halves away from zero.
fn rounded_div(a: i64, b: i64) -> i64 {
    if a >= 0 { (a + (b >> 1)) / b } else { (a - (b >> 1)) / b }
}

/// Floor of log2, 0 for 0 (as libavutil's `av_log2`).
fn ilog2(x: u32) -> u32 {
    x.checked_ilog2().unwrap_or(0)
}

/// The two filters of one plane and the depth they scale at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaneScale {
    pub from: (u32, u32),
    pub to: (u32, u32),
    pub bpc: u32,
    pub horizontal: AxisFilter,
    pub vertical: AxisFilter,
}

impl PlaneScale {
    /// Right shift of the horizontal pass (to 15 bits).
    pub fn h_shift(&self) -> u32 {
        if self.bpc == 8 { 7 } else { self.bpc - 1 }
    }

    /// Right shift of the vertical pass (from 15-bit intermediates and
    /// 2^12 weights to `bpc` bits).
    pub fn v_shift(&self) -> u32 {
        27 - self.bpc
    }

    /// Scales one plane of `from` samples (row-major, no padding).
    pub fn scale(&self, src: &[u16]) -> Vec<u16> {
        let ((sw, sh), (dw, dh)) = (self.from, self.to);
        let (sw, sh, dw, dh) = (sw as usize, sh as usize, dw as usize, dh as usize);
        assert_eq!(src.len(), sw * sh, "plane of the wrong size");
        let h = &self.horizontal;
        let h_shift = self.h_shift();
        let mut mid = vec![0i32; dw * sh];
        for (src_row, mid_row) in src.chunks_exact(sw).zip(mid.chunks_exact_mut(dw)) {
            for (x, out) in mid_row.iter_mut().enumerate() {
                let at = h.first[x] as usize;
                let w = &h.weights[x * h.taps..(x + 1) * h.taps];
                let sum: i32 =
                    w.iter().zip(&src_row[at..]).map(|(&c, &s)| i32::from(c) * i32::from(s)).sum();
                *out = (sum >> h_shift).min(32767);
            }
        }
        let v = &self.vertical;
        let v_shift = self.v_shift();
        let max = (1i32 << self.bpc) - 1;
        let mut out = vec![0u16; dw * dh];
        for (y, out_row) in out.chunks_exact_mut(dw).enumerate() {
            let at = v.first[y] as usize;
            let w = &v.weights[y * v.taps..(y + 1) * v.taps];
            for (x, o) in out_row.iter_mut().enumerate() {
                let mut sum = 1i32 << (v_shift - 1);
                for (k, &c) in w.iter().enumerate() {
                    sum += mid[(at + k) * dw + x] * i32::from(c);
                }
                *o = (sum >> v_shift).clamp(0, max) as u16;
            }
        }
        out
    }
}

/// The scale of every plane of a frame from one geometry to another of the
/// same pixel format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameScale {
    pub from: Geometry,
    pub to: Geometry,
    pub planes: Vec<PlaneScale>,
}

impl FrameScale {
    /// The scale from `from` to `to`. Refused: a change of pixel format
    /// (that stays with ffmpeg), a depth above 14 bits (swscale keeps those
    /// in another precision), or a shrink swscale would do in two steps.
    pub fn new(from: Geometry, to: Geometry) -> Result<FrameScale> {
        let refuse = |why: String| Err(VideoError::Mismatch(why));
        if from.format != to.format {
            return refuse(format!(
                "scaling on the GPU keeps the pixel format; {} to {} needs ffmpeg",
                from.format.ffmpeg_name(),
                to.format.ffmpeg_name()
            ));
        }
        if !(8..=14).contains(&from.format.bit_depth) {
            return refuse(format!(
                "scaling on the GPU takes 8 to 14 bits, not {}",
                from.format.bit_depth
            ));
        }
        let count = from.format.chroma.plane_count();
        let mut planes = Vec::with_capacity(count);
        for i in 0..count {
            let (a, b) = (from.plane_size(i), to.plane_size(i));
            let (Some(horizontal), Some(vertical)) =
                (AxisFilter::bicubic(a.0, b.0, 1 << 14), AxisFilter::bicubic(a.1, b.1, 1 << 12))
            else {
                return refuse(format!(
                    "{}x{} to {}x{} shrinks too far to scale in one step",
                    from.width, from.height, to.width, to.height
                ));
            };
            planes.push(PlaneScale {
                from: a,
                to: b,
                bpc: from.format.bit_depth,
                horizontal,
                vertical,
            });
        }
        Ok(FrameScale { from, to, planes })
    }

    /// `frame` (of geometry `from`) scaled to `to`, on the CPU.
    pub fn scale(&self, frame: &Frame) -> Frame {
        assert_eq!(frame.geometry, self.from, "frame of another geometry");
        let bytes = self.to.format.bytes_per_sample();
        let mut data = Vec::with_capacity(self.to.frame_bytes());
        for (i, plane) in self.planes.iter().enumerate() {
            for v in plane.scale(&frame.plane_samples(i)) {
                if bytes == 1 {
                    data.push(v as u8);
                } else {
                    data.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        Frame { geometry: self.to, color: frame.color, index: frame.index, data: data.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row's weights sum to the unit and every tap reads inside the
    /// input, for growing, shrinking and nearly equal sizes.
    #[test]
    fn filters_are_normalised_and_inside() {
        for (src, dst) in [
            (5, 17),
            (17, 5),
            (1920, 3840),
            (3840, 1920),
            (8000, 8001),
            (3, 2),
            (2, 3),
            (1, 4),
            (4, 1),
        ] {
            for one in [1 << 12, 1 << 14] {
                let f = AxisFilter::bicubic(src, dst, one).unwrap();
                for (i, row) in f.weights.chunks_exact(f.taps).enumerate() {
                    let sum: i64 = row.iter().map(|&w| i64::from(w)).sum();
                    assert_eq!(sum, one, "{src}->{dst} output {i}");
                    // The GPU kernels read every tap unchecked.
                    let start = f.first[i];
                    assert!(start >= 0, "{src}->{dst} output {i}");
                    assert!(start as usize + f.taps <= src as usize, "{src}->{dst} output {i}");
                }
            }
        }
    }
}
