//! `float_motion` (`motion`, `motion2`, `motion3`): the exact CPU twin of
//! libvmaf 3.2.0's float motion extractor, the temporal feature of the
//! float VMAF models (`VMAF_feature_motion2_score`).
//!
//! Like integer motion it looks at the **reference** video only, but it
//! works the other way round: each frame is copied to float (samples scaled
//! to the 8-bit range, minus 128), blurred on its own with a separable
//! float filter (vertical pass, then horizontal, each output a sequential
//! float sum of float products), and the frame's score is the mean absolute
//! difference between its blur and the previous frame's.
//!
//! The work splits in three:
//! - [`blur`] and [`sad_sums`]: per frame pair, the float sums of
//!   `|blur(prev) − blur(cur)|` (and of the half-size planes with
//!   `motion_add_scale1`). This is what the GPU kernels reproduce bit for
//!   bit; libvmaf adds these floats one by one along a row and then row
//!   after row, so the order is part of the result.
//! - [`plane_sad`] / [`frame_score`]: the float means and their double sum
//!   over planes, on the host.
//! - [`FloatMotionScorer`]: libvmaf's bookkeeping of `motion2` (the smaller
//!   of a frame's score and the next frame's) and `motion3` (blended), so a
//!   frame's values are final once its successor is in.
//!
//! libvmaf keeps the last three blurred frames; a frame's score only needs
//! the blur of the frame before, which the GPU path recomputes from that
//! frame's reference plane (the same floats: the blur depends on nothing
//! else), so no state lives on the GPU between frames.

pub mod feature;
pub mod gpu;

use crate::error::MetricsError;
use crate::features::float_ssim::{FloatPlane, to_float_plane};
use crate::features::float_vif::PrescaleMethod;
pub use crate::features::float_vif::resample::scale_ratio;
use crate::features::float_vif::resample::{Samples, resample};
use crate::features::motion::{c_min, mirror, motion_blend};
use crate::plane::{PlaneView, check_pair};

const FEATURE: &str = "float_motion";

/// libvmaf's default 5-tap motion filter, its float literals as written
/// (they round to the nearest float, as C's do).
#[allow(clippy::excessive_precision)]
pub const FILTER_5: [f32; 5] = [0.054488685, 0.244201342, 0.402619947, 0.244201342, 0.054488685];

/// The 3-tap filter of `motion_filter_size=3`.
#[allow(clippy::excessive_precision)]
pub const FILTER_3: [f32; 3] = [0.166378498, 0.667243004, 0.166378498];

/// The 5-tap identity of `motion_filter_size=1`: the blur leaves each
/// sample as it is (its zero taps still read the mirrored neighbours, so
/// the size limits are the 5-tap ones).
pub const FILTER_IDENTITY: [f32; 5] = [0.0, 0.0, 1.0, 0.0, 0.0];

/// libvmaf's default `motion_filter_size`.
pub const DEFAULT_FILTER_SIZE: i64 = 5;

/// libvmaf's default `motion_max_val`: scores are clipped to it.
pub const DEFAULT_MAX_VAL: f64 = 10000.0;

/// The taps `motion_filter_size` selects: 1 the identity, 3 the 3-tap
/// filter, anything else (libvmaf's default branch) the 5-tap one.
pub fn filter_taps(filter_size: i64) -> &'static [f32] {
    match filter_size {
        1 => &FILTER_IDENTITY,
        3 => &FILTER_3,
        _ => &FILTER_5,
    }
}

/// The options of libvmaf's float motion extractor, with its defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatMotionParams {
    /// `motion_force_zero`: every value is 0 and nothing is computed.
    pub force_zero: bool,
    /// `motion_fps_weight`: multiplies every score.
    pub fps_weight: f64,
    /// `motion_blend_factor`: weight of the raw score in `motion3`.
    pub blend_factor: f64,
    /// `motion_blend_offset`: where the rest of the blend is capped.
    pub blend_offset: f64,
    /// `motion_add_scale1`: add the mean difference of the blurred planes
    /// downscaled to half size (bilinear).
    pub add_scale1: bool,
    /// `motion_filter_size`: see [`filter_taps`].
    pub filter_size: i64,
    /// `motion_add_uv`: add the chroma planes' scores to luma's.
    pub add_uv: bool,
    /// `motion_max_val`: every value is clipped to it.
    pub max_val: f64,
}

impl Default for FloatMotionParams {
    fn default() -> Self {
        Self {
            force_zero: false,
            fps_weight: 1.0,
            blend_factor: 1.0,
            blend_offset: 40.0,
            add_scale1: false,
            filter_size: DEFAULT_FILTER_SIZE,
            add_uv: false,
            max_val: DEFAULT_MAX_VAL,
        }
    }
}

impl FloatMotionParams {
    /// The blur taps these options select.
    pub fn taps(&self) -> &'static [f32] {
        filter_taps(self.filter_size)
    }

    /// How many planes of a frame are scored: luma, plus both chroma planes
    /// with `motion_add_uv`.
    pub fn planes(&self) -> usize {
        if self.add_uv { 3 } else { 1 }
    }
}

/// Checks that a frame's plane can go through the float motion path: a bit
/// depth libvmaf's float copy scales (8, 10, 12, 16; it reads any other
/// depth as bytes), and sides long enough for the filter's one-bounce
/// mirror (`radius + 1` samples: libvmaf reads outside the plane below).
pub fn check_plane(plane: &PlaneView<'_>, taps: &[f32]) -> Result<(), MetricsError> {
    if !matches!(plane.bpc, 8 | 10 | 12 | 16) {
        return Err(MetricsError::OptionOutOfRange {
            feature: FEATURE,
            option: "bpc",
            value: i64::from(plane.bpc),
            allowed: "8, 10, 12 or 16",
        });
    }
    let min_side = taps.len() / 2 + 1;
    if plane.width < min_side || plane.height < min_side {
        return Err(MetricsError::FrameTooSmall {
            feature: FEATURE,
            width: plane.width,
            height: plane.height,
            reason: if min_side == 3 {
                "the 5-tap blur needs at least 3 samples each way"
            } else {
                "the 3-tap blur needs at least 2 samples each way"
            },
        });
    }
    Ok(())
}

/// A plane as libvmaf's `picture_copy` hands it to the motion code: the
/// sample scaled to the 8-bit range in float (a division by a power of two,
/// exact), plus the offset −128 (exact too).
pub fn float_plane(plane: &PlaneView<'_>) -> FloatPlane {
    let mut out = to_float_plane(plane);
    for v in &mut out.data {
        *v += -128.0;
    }
    out
}

/// One tap sum of the separable blur: `((0 + t0·s0) + t1·s1) + …` in float,
/// each product rounded before it is added, as both libvmaf's scalar edge
/// code and its AVX scanlines do (so the border and the interior agree).
/// `sample(k)` is the mirrored source sample under tap `k`.
#[inline]
fn tap_sum(taps: &[f32], sample: impl Fn(usize) -> f32) -> f32 {
    let mut acc = 0.0f32;
    for (k, &t) in taps.iter().enumerate() {
        acc += t * sample(k);
    }
    acc
}

/// libvmaf's float motion blur: a vertical pass into a float plane, then a
/// horizontal pass over it, both mirroring `−k → k`, `n−1+k → n−1−k`.
pub fn blur(src: &FloatPlane, taps: &[f32]) -> FloatPlane {
    let (w, h) = (src.width, src.height);
    let radius = (taps.len() / 2) as i64;
    let mut vertical = FloatPlane::zeros(w, h);
    for y in 0..h {
        let rows: Vec<usize> =
            (0..taps.len()).map(|k| mirror(y as i64 - radius + k as i64, h)).collect();
        for x in 0..w {
            vertical.data[y * w + x] = tap_sum(taps, |k| src.at(x, rows[k]));
        }
    }
    let mut out = FloatPlane::zeros(w, h);
    for x in 0..w {
        let cols: Vec<usize> =
            (0..taps.len()).map(|k| mirror(x as i64 - radius + k as i64, w)).collect();
        for y in 0..h {
            out.data[y * w + x] = tap_sum(taps, |k| vertical.at(cols[k], y));
        }
    }
    out
}

/// Side of libvmaf's half-size plane: `(int)(n · 0.5 + 0.5)`.
pub fn scaled_len(n: usize) -> usize {
    (n as f64 * 0.5 + 0.5) as usize
}

/// libvmaf's half-size bilinear downscale of a blurred plane (for
/// `motion_add_scale1`); a plane whose half size is its size is copied.
pub fn downscale(src: &FloatPlane) -> FloatPlane {
    let (dw, dh) = (scaled_len(src.width), scaled_len(src.height));
    let samples = Samples { data: &src.data, width: src.width, height: src.height };
    FloatPlane { width: dw, height: dh, data: resample(PrescaleMethod::Bilinear, samples, dw, dh) }
}

/// `Σ|a − b|` as libvmaf adds it: a float running sum along each row, then
/// the row sums into a float running total, in raster order. (libvmaf
/// takes `fabs` of the float difference in double and adds it to the float
/// row sum in double before storing it back; for two floats a double sum
/// rounded to float is the correctly rounded float sum, so this is plain
/// float addition.)
pub fn abs_diff_sum(a: &FloatPlane, b: &FloatPlane) -> f32 {
    let mut total = 0.0f32;
    for y in 0..a.height {
        let (ra, rb) = (&a.data[y * a.width..][..a.width], &b.data[y * b.width..][..b.width]);
        let mut line = 0.0f32;
        for (&p, &q) in ra.iter().zip(rb) {
            line += (p - q).abs();
        }
        total += line;
    }
    total
}

/// The float sums of one plane pair's blurred difference: at full size,
/// and at half size with `motion_add_scale1`. What the GPU returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SadSums {
    pub scale0: f32,
    pub scale1: Option<f32>,
}

/// The sums of `|prev − cur|` over two blurred planes.
pub fn sad_sums(prev: &FloatPlane, cur: &FloatPlane, add_scale1: bool) -> SadSums {
    SadSums {
        scale0: abs_diff_sum(prev, cur),
        scale1: add_scale1.then(|| abs_diff_sum(&downscale(prev), &downscale(cur))),
    }
}

/// The float mean of a sum over `w × h` samples: libvmaf divides the float
/// by the `int` product `w·h` (converted to float), in float.
fn float_mean(sum: f32, w: usize, h: usize) -> f32 {
    sum / (w as i32).wrapping_mul(h as i32) as f32
}

/// A plane's score from its sums: the float mean, plus the half-size
/// plane's float mean (a float addition) with `motion_add_scale1`.
pub fn plane_sad(sums: SadSums, width: usize, height: usize) -> f32 {
    let s0 = float_mean(sums.scale0, width, height);
    match sums.scale1 {
        None => s0,
        Some(s1) => s0 + float_mean(s1, scaled_len(width), scaled_len(height)),
    }
}

/// A frame's raw score from its planes' sums (`sizes[i]` the size of plane
/// `i`): luma's, plus each chroma plane's added in double with
/// `motion_add_uv`.
pub fn frame_score(sums: &[SadSums], sizes: &[(usize, usize)]) -> f64 {
    let mut score = 0.0f64;
    for (i, (s, &(w, h))) in sums.iter().zip(sizes).enumerate() {
        let plane = f64::from(plane_sad(*s, w, h));
        score = if i == 0 { plane } else { score + plane };
    }
    score
}

/// The raw score of frame `cur` against frame `prev` (reference planes:
/// luma, then Cb and Cr with `motion_add_uv`), blurring both as libvmaf
/// blurs each frame when it arrives.
pub fn motion_score(
    prev: &[PlaneView<'_>],
    cur: &[PlaneView<'_>],
    params: &FloatMotionParams,
) -> Result<f64, MetricsError> {
    let n = params.planes();
    if prev.len() < n || cur.len() < n {
        return Err(MetricsError::Usage(format!(
            "{FEATURE}: motion_add_uv needs chroma planes, the frame has {}",
            prev.len().min(cur.len())
        )));
    }
    let taps = params.taps();
    let mut sums = Vec::with_capacity(n);
    let mut sizes = Vec::with_capacity(n);
    for (p, c) in prev.iter().zip(cur).take(n) {
        check_pair(FEATURE, p, c)?;
        check_plane(p, taps)?;
        let (bp, bc) = (blur(&float_plane(p), taps), blur(&float_plane(c), taps));
        sums.push(sad_sums(&bp, &bc, params.add_scale1));
        sizes.push((p.width, p.height));
    }
    Ok(frame_score(&sums, &sizes))
}

/// All values libvmaf prints for one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatMotionFrame {
    pub index: u64,
    /// `motion` (libvmaf's `debug` output, on by default).
    pub motion: f64,
    /// `motion2`: the smaller of this frame's and the next frame's score.
    pub motion2: f64,
    /// `motion3`: `motion2` blended (frame 0: the blend of frame 1's score).
    pub motion3: f64,
}

/// Turns the raw per-frame scores into libvmaf's per-frame values, as
/// frames arrive. Push one entry per frame in order (`None` for frame 0,
/// which has no predecessor, and for every frame with `motion_force_zero`);
/// a frame's values come back once the next frame is in, the last one's
/// from [`finish`](Self::finish).
///
/// As libvmaf: `motion = min(s·w, max)`; frame 0 has `motion = motion2 =
/// 0` and `motion3 = min(blend(s₁·w), max)` (0 for a one-frame clip);
/// frame `i ≥ 1` has `motion2 = min(min(sᵢ, sᵢ₊₁)·w, max)` and `motion3 =
/// min(blend(min(sᵢ, sᵢ₊₁)·w), max)`, the last frame using its own score
/// (`w` the fps weight; the blend sees the unclipped value).
#[derive(Debug, Clone)]
pub struct FloatMotionScorer {
    params: FloatMotionParams,
    pushed: u64,
    /// The frame waiting for its successor, with its raw score.
    held: Option<(u64, f64)>,
}

impl FloatMotionScorer {
    pub fn new(params: FloatMotionParams) -> Self {
        Self { params, pushed: 0, held: None }
    }

    /// The options this scorer was built with.
    pub fn params(&self) -> &FloatMotionParams {
        &self.params
    }

    /// Number of frames pushed so far (= index of the next frame).
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Whether frame `index` has a raw score to compute (against frame
    /// `index − 1`).
    pub fn scores_frame(&self, index: u64) -> bool {
        !self.params.force_zero && index >= 1
    }

    fn clip(&self, x: f64) -> f64 {
        c_min(x, self.params.max_val)
    }

    fn blended(&self, x: f64) -> f64 {
        let p = &self.params;
        self.clip(motion_blend(x, p.blend_factor, p.blend_offset))
    }

    /// Adds the next frame's raw score (`Some` exactly when
    /// [`scores_frame`](Self::scores_frame) says so) and returns the frames
    /// whose values are now final.
    pub fn push(&mut self, score: Option<f64>) -> Vec<FloatMotionFrame> {
        let index = self.pushed;
        assert_eq!(score.is_some(), self.scores_frame(index), "float_motion: frame {index} score");
        self.pushed += 1;
        let Some(s) = score else {
            if self.params.force_zero {
                return vec![FloatMotionFrame { index, motion: 0.0, motion2: 0.0, motion3: 0.0 }];
            }
            self.held = Some((index, 0.0));
            return Vec::new();
        };
        let w = self.params.fps_weight;
        let out = match self.held.take() {
            Some((0, _)) => FloatMotionFrame {
                index: 0,
                motion: 0.0,
                motion2: 0.0,
                motion3: self.blended(s * w),
            },
            Some((i, prev)) => {
                let low = if prev < s { prev } else { s };
                FloatMotionFrame {
                    index: i,
                    motion: self.clip(prev * w),
                    motion2: self.clip(low * w),
                    motion3: self.blended(low * w),
                }
            }
            None => unreachable!("a scored frame always follows a held one"),
        };
        self.held = Some((index, s));
        vec![out]
    }

    /// End of the clip: the last frame's values.
    pub fn finish(&mut self) -> Vec<FloatMotionFrame> {
        let w = self.params.fps_weight;
        match self.held.take() {
            None => Vec::new(),
            Some((0, _)) => {
                vec![FloatMotionFrame { index: 0, motion: 0.0, motion2: 0.0, motion3: 0.0 }]
            }
            Some((i, s)) => vec![FloatMotionFrame {
                index: i,
                motion: self.clip(s * w),
                motion2: self.clip(s * w),
                motion3: self.blended(s * w),
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(w: usize, h: usize, data: Vec<f32>) -> FloatPlane {
        FloatPlane { width: w, height: h, data }
    }

    #[test]
    fn float_copy_scales_and_offsets() {
        let s8 = [0u16, 255, 128, 1];
        let p = float_plane(&PlaneView::packed(2, 2, 8, &s8));
        assert_eq!(p.data, [-128.0, 127.0, 0.0, -127.0]);
        let s = [0u16, 255, 1023, 512];
        let p = float_plane(&PlaneView::packed(2, 2, 10, &s));
        assert_eq!(p.data, [-128.0, -64.25, 127.75, 0.0]);
    }

    /// A constant plane stays constant only up to the float rounding of the
    /// taps: the 5-tap sum of 1.0 is the float sum of the rounded taps.
    #[test]
    fn blur_of_a_constant_is_the_float_tap_sum() {
        let p = plane(4, 3, vec![1.0; 12]);
        let sum = FILTER_5.iter().fold(0.0f32, |a, &t| a + t);
        let b = blur(&p, &FILTER_5);
        let once = FILTER_5.iter().fold(0.0f32, |a, &t| a + t * sum);
        assert!(b.data.iter().all(|&v| v == once), "{:?} vs {once}", b.data);
    }

    /// An impulse at a corner: with the mirror `−k → k` the edge sample is
    /// not repeated, so the impulse sits under one tap only for each
    /// output near it (a mirror that repeated the edge would add a second).
    #[test]
    fn blur_mirrors_without_repeating_the_edge() {
        let mut data = vec![0.0f32; 25];
        data[0] = 1.0;
        let b = blur(&plane(5, 5, data), &FILTER_5);
        let t = FILTER_5;
        assert_eq!([b.at(0, 0), b.at(1, 0), b.at(2, 0)], [t[2] * t[2], t[1] * t[2], t[0] * t[2]]);
        assert_eq!([b.at(0, 1), b.at(0, 2)], [t[2] * t[1], t[2] * t[0]]);
        assert_eq!([b.at(3, 0), b.at(0, 3), b.at(4, 4)], [0.0; 3]);
    }

    #[test]
    fn identity_filter_keeps_the_plane() {
        let data: Vec<f32> = (0..20).map(|i| i as f32 * 1.25 - 7.0).collect();
        let p = plane(5, 4, data);
        assert_eq!(blur(&p, &FILTER_IDENTITY), p);
    }

    #[test]
    fn sums_run_along_rows_then_over_rows() {
        let a = plane(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = plane(3, 2, vec![0.0, 4.0, 3.5, 0.0, 5.0, 6.0]);
        assert_eq!(abs_diff_sum(&a, &b), 1.0 + 2.0 + 0.5 + 4.0);
        // Rows first, then the total: the two 1s meet in their own row sum
        // (2) before 2^24 sees them; one running sum over all samples would
        // round each 1 away (2^24 + 1 rounds to 2^24).
        let a = plane(2, 2, vec![16_777_216.0, 0.0, 1.0, 1.0]);
        assert_eq!(abs_diff_sum(&a, &plane(2, 2, vec![0.0; 4])), 16_777_218.0);
    }

    #[test]
    fn half_size_and_bilinear_weights() {
        assert_eq!((scaled_len(5), scaled_len(6), scaled_len(1)), (3, 3, 1));
        // 4 → 2: ratio 2, coordinates 0.5 and 2.5: the mean of each pair.
        let p = plane(4, 2, vec![0.0, 2.0, 4.0, 8.0, 0.0, 2.0, 4.0, 8.0]);
        let d = downscale(&p);
        assert_eq!((d.width, d.height), (2, 1));
        assert_eq!(d.data, [1.0, 6.0]);
    }

    #[test]
    fn plane_sad_divides_in_float_and_adds_scale1() {
        let s = SadSums { scale0: 10.0, scale1: None };
        assert_eq!(plane_sad(s, 3, 3), 10.0f32 / 9.0f32);
        let s = SadSums { scale0: 10.0, scale1: Some(1.0) };
        assert_eq!(plane_sad(s, 3, 3), 10.0f32 / 9.0f32 + 0.25);
    }

    fn run(params: FloatMotionParams, scores: &[f64]) -> Vec<FloatMotionFrame> {
        let mut s = FloatMotionScorer::new(params);
        let mut out = Vec::new();
        for (i, &x) in scores.iter().enumerate() {
            out.extend(s.push((i > 0 && !params.force_zero).then_some(x)));
        }
        out.extend(s.finish());
        out
    }

    #[test]
    fn motion2_is_min_with_next_and_frame_zero_takes_frame_one() {
        let out = run(FloatMotionParams::default(), &[0.0, 5.0, 3.0, 4.0, 7.0]);
        let col = |f: fn(&FloatMotionFrame) -> f64| out.iter().map(f).collect::<Vec<_>>();
        assert_eq!(col(|f| f.index as f64), [0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(col(|f| f.motion), [0.0, 5.0, 3.0, 4.0, 7.0]);
        assert_eq!(col(|f| f.motion2), [0.0, 3.0, 3.0, 4.0, 7.0]);
        assert_eq!(col(|f| f.motion3), [5.0, 3.0, 3.0, 4.0, 7.0]);
    }

    #[test]
    fn single_frame_is_all_zero() {
        let out = run(FloatMotionParams::default(), &[0.0]);
        assert_eq!(out, [FloatMotionFrame { index: 0, motion: 0.0, motion2: 0.0, motion3: 0.0 }]);
    }

    /// The blend sees the weighted score before the clip, as in libvmaf:
    /// blend(30) with factor 0.5 and offset 4 is 15 + 2 = 17, clipped to
    /// 10 — not blend(10) = 7.
    #[test]
    fn weight_blend_then_clip() {
        let p = FloatMotionParams {
            fps_weight: 2.0,
            blend_factor: 0.5,
            blend_offset: 4.0,
            max_val: 10.0,
            ..Default::default()
        };
        let out = run(p, &[0.0, 15.0, 1.0]);
        assert_eq!(out[0].motion3, 10.0);
        assert_eq!((out[1].motion, out[1].motion2, out[1].motion3), (10.0, 2.0, 2.0));
        assert_eq!((out[2].motion, out[2].motion2, out[2].motion3), (2.0, 2.0, 2.0));
    }

    #[test]
    fn force_zero_emits_every_frame_at_once() {
        let p = FloatMotionParams { force_zero: true, ..Default::default() };
        let mut s = FloatMotionScorer::new(p);
        assert!(!s.scores_frame(1));
        assert_eq!(s.push(None).len(), 1);
        assert_eq!(s.push(None)[0].motion3, 0.0);
        assert!(s.finish().is_empty());
    }

    #[test]
    fn bad_depths_and_small_planes_are_refused() {
        let s = vec![0u16; 16];
        assert!(check_plane(&PlaneView::packed(4, 4, 9, &s), &FILTER_5).is_err());
        assert!(check_plane(&PlaneView::packed(8, 2, 8, &s), &FILTER_5).is_err());
        assert!(check_plane(&PlaneView::packed(8, 2, 8, &s), &FILTER_3).is_ok());
        assert!(check_plane(&PlaneView::packed(2, 8, 8, &s), &FILTER_IDENTITY).is_err());
    }
}
