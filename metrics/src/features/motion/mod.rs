//! Integer motion (`integer_motion`, `integer_motion2`, `integer_motion3`):
//! the exact CPU twin of libvmaf 3.2.0's integer motion extractor.
//!
//! Motion looks at the **reference** video only. For a frame and the one
//! before it, libvmaf 3.2 blurs the raw difference `prev − cur` with a 5-tap
//! integer filter (vertical pass, round and shift by the bit depth; then
//! horizontal pass, round and shift by 16) and sums the absolute values: the
//! frame's SAD. The filter is linear, but the rounding after each pass is
//! not: blurring each frame and subtracting would give different integers, so
//! the difference must be blurred, as here.
//!
//! The work splits in two:
//! - [`motion_sad`]: one frame pair → one `u64`. Pure integer arithmetic; this
//!   is what the GPU kernel mirrors.
//! - [`MotionScorer`]: the host side. It turns the SAD sequence into the
//!   per-frame scores libvmaf prints, including `integer_motion2`, which needs
//!   the *next* frame's SAD, so a frame's scores come out one frame late.
//!
//! This matches libvmaf **v3.2.0**, whose edge handling differs from v2.x
//! (v2.3.1 prints `integer_motion2` up to ~0.002 different on our clips).

pub mod feature;
pub mod gpu;

use crate::error::MetricsError;
use crate::plane::PlaneView;
use crate::plane::check_pair;

/// libvmaf's 5-tap motion blur; the taps sum to 65536 (2^16).
pub const FILTER: [u16; 5] = [3571, 16004, 26386, 16004, 3571];

/// Half the filter width: taps reach two samples either side.
const RADIUS: i64 = 2;

/// Smallest plane side the one-bounce mirror can serve: with fewer than 3
/// samples a tap two away would reflect out of the plane again (libvmaf reads
/// out of bounds there; we refuse).
pub const MIN_SIDE: usize = 3;

/// libvmaf's default `motion_max_val`: scores are clipped to it.
pub const DEFAULT_MAX_VAL: f64 = 10000.0;

/// Reflects a tap index into `0..size` the way libvmaf 3.2 does on all four
/// sides: `-k → k` (the edge sample is not repeated) and `size-1+k →
/// size-1-k`, i.e. `n → 2·size − n − 2`. One bounce only; needs `size ≥ 3`.
#[inline]
pub fn mirror(idx: i64, size: usize) -> usize {
    let size = size as i64;
    let m = if idx < 0 {
        -idx
    } else if idx >= size {
        2 * size - idx - 2
    } else {
        idx
    };
    m as usize
}

/// Vertical pass for row `i`: for each column, the 5-tap sum of
/// `prev − cur` over rows `i−2..=i+2` (mirrored), rounded and shifted right
/// by the bit depth (arithmetic shift, so negative values round toward −∞
/// after adding half). libvmaf accumulates in int32 at 8 bits and int64 above;
/// at 8 bits the int32 sum cannot overflow (|sum| ≤ 65536·255), so one i64
/// path gives the same integers for every depth.
pub fn vertical_row(prev: &PlaneView, cur: &PlaneView, i: usize, out: &mut [i32]) {
    let shift = prev.bpc;
    let round = 1i64 << (shift - 1);
    let rows: [usize; 5] =
        std::array::from_fn(|k| mirror(i as i64 - RADIUS + k as i64, prev.height));
    for (j, o) in out.iter_mut().enumerate().take(prev.width) {
        let mut acc = 0i64;
        for (k, &r) in rows.iter().enumerate() {
            let diff = i64::from(prev.at(j, r)) - i64::from(cur.at(j, r));
            acc += i64::from(FILTER[k]) * diff;
        }
        *o = ((acc + round) >> shift) as i32;
    }
}

/// Horizontal pass over one vertically blurred row, then `Σ|val|`.
/// Each output is the mirrored 5-tap sum, `(+32768) >> 16`. The row total is
/// kept in a `u32` that wraps, as libvmaf's per-row sum does (it can only
/// wrap for rows wider than about 65 000 samples); the caller widens it.
pub fn horizontal_row_sad(row: &[i32]) -> u32 {
    let w = row.len();
    let mut row_sad = 0u32;
    for j in 0..w {
        let mut acc = 0i64;
        for (k, &f) in FILTER.iter().enumerate() {
            let col = mirror(j as i64 - RADIUS + k as i64, w);
            acc += i64::from(f) * i64::from(row[col]);
        }
        let val = ((acc + 32768) >> 16) as i32;
        row_sad = row_sad.wrapping_add(val.unsigned_abs());
    }
    row_sad
}

/// Checks that a plane pair can go through the motion filter: same size and
/// depth, a depth libvmaf handles, and at least [`MIN_SIDE`] samples each way.
pub fn check_planes(prev: &PlaneView, cur: &PlaneView) -> Result<(), MetricsError> {
    check_pair("motion", prev, cur)?;
    if !(8..=16).contains(&prev.bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: "motion",
            option: "bpc",
            value: i64::from(prev.bpc),
            allowed: "8 to 16",
        });
    }
    if prev.width < MIN_SIDE || prev.height < MIN_SIDE {
        return Err(MetricsError::FrameTooSmall {
            feature: "motion",
            width: prev.width,
            height: prev.height,
            reason: "the 5-tap blur needs at least 3 samples each way",
        });
    }
    Ok(())
}

/// The integer SAD of the blurred difference between the previous reference
/// luma plane and the current one: the quantity libvmaf turns into
/// `VMAF_integer_feature_motion_sad_score`. Row sums wrap in `u32` and are
/// added into a `u64`, as in libvmaf; a GPU reduction must keep that shape.
pub fn motion_sad(prev: &PlaneView, cur: &PlaneView) -> Result<u64, MetricsError> {
    check_planes(prev, cur)?;
    let mut row = vec![0i32; prev.width];
    let mut sad = 0u64;
    for i in 0..prev.height {
        vertical_row(prev, cur, i, &mut row);
        // An all-zero row blurs to zero; libvmaf skips it, with the same sum.
        if row.iter().any(|&v| v != 0) {
            sad += u64::from(horizontal_row_sad(&row));
        }
    }
    Ok(sad)
}

/// The options of libvmaf's integer motion extractor, with its defaults.
/// (The `vmaf_v0.6.1` model sets none of them.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionParams {
    /// Every score is 0 (`motion_force_zero`).
    pub force_zero: bool,
    /// `motion_blend_factor`: weight of the raw score in `integer_motion3`.
    pub blend_factor: f64,
    /// `motion_blend_offset`: the value the rest of the blend is capped at.
    pub blend_offset: f64,
    /// `motion_fps_weight`: multiplies the per-frame score.
    pub fps_weight: f64,
    /// `motion_max_val`: every score is clipped to it.
    pub max_val: f64,
    /// `motion_five_frame_window`: compare with the frame two back and take
    /// motion2 over frames i−1 and i+1.
    pub five_frame_window: bool,
    /// `motion_moving_average`: motion3 averages with the previous frame's.
    pub moving_average: bool,
}

impl Default for MotionParams {
    fn default() -> Self {
        Self {
            force_zero: false,
            blend_factor: 1.0,
            blend_offset: 40.0,
            fps_weight: 1.0,
            max_val: DEFAULT_MAX_VAL,
            five_frame_window: false,
            moving_average: false,
        }
    }
}

impl MotionParams {
    /// First frame that has a SAD: 1, or 2 with the five-frame window.
    pub fn min_index(&self) -> u64 {
        if self.five_frame_window { 2 } else { 1 }
    }

    /// How many frames back the SAD of a frame compares against.
    pub fn distance(&self) -> u64 {
        self.min_index()
    }
}

/// C's `MIN(x, y)`: `x < y ? x : y` (returns `y` when either is NaN).
#[inline]
pub(crate) fn c_min(x: f64, y: f64) -> f64 {
    if x < y { x } else { y }
}

/// The per-frame score libvmaf stores as `VMAF_integer_feature_motion_sad_score`
/// (and, in debug mode, `integer_motion`): `min(sad / 256 / (w·h) · fps_weight,
/// max_val)`, evaluated left to right in double, with `w·h` as a wrapping
/// 32-bit unsigned product as in libvmaf.
pub fn sad_score(sad: u64, width: u32, height: u32, params: &MotionParams) -> f64 {
    let area = f64::from(width.wrapping_mul(height));
    c_min(sad as f64 / 256.0 / area * params.fps_weight, params.max_val)
}

/// libvmaf's motion blend: `score·factor + (1 − factor)·min(offset, score)`
/// in that order (no fused multiply-add). With the default factor 1 it is the
/// identity.
pub fn motion_blend(score: f64, factor: f64, offset: f64) -> f64 {
    score * factor + (1.0 - factor) * c_min(offset, score)
}

/// All motion values libvmaf prints for one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionFrame {
    pub index: u64,
    /// `VMAF_integer_feature_motion_sad_score`; also `integer_motion` (debug).
    pub motion: f64,
    /// `integer_motion2`.
    pub motion2: f64,
    /// `integer_motion3`.
    pub motion3: f64,
}

/// Turns the per-frame SADs into libvmaf's per-frame motion scores, as frames
/// arrive.
///
/// Feed it one entry per frame in order with [`push`](Self::push) (the SAD of
/// frame `i` against frame `i − distance`, or `None` for the first frames,
/// which have none). libvmaf's `integer_motion2` for frame `i` is
/// `min(score[i], score[i+1])` (the last frame keeps its own score; frames
/// before the first SAD get 0), and the first frames' `integer_motion3` is
/// stamped from the first real score — so a frame's scores are returned once
/// the next frame (with the five-frame window, sometimes two) has been pushed.
/// [`finish`](Self::finish) returns the rest at end of stream.
#[derive(Debug, Clone)]
pub struct MotionScorer {
    width: u32,
    height: u32,
    params: MotionParams,
    /// Scores of frames `base..`, kept while some frame still needs them.
    scores: std::collections::VecDeque<f64>,
    base: u64,
    /// Next frame to emit.
    next: u64,
    /// `min(blend(score[min_index]), max_val)` once that score is known.
    stamp: Option<f64>,
    prev_processed: f64,
}

impl MotionScorer {
    /// A scorer for a luma plane of `width × height`.
    pub fn new(width: u32, height: u32, params: MotionParams) -> Self {
        Self {
            width,
            height,
            params,
            scores: Default::default(),
            base: 0,
            next: 0,
            stamp: None,
            prev_processed: 0.0,
        }
    }

    /// The parameters this scorer was built with.
    pub fn params(&self) -> &MotionParams {
        &self.params
    }

    /// Number of frames pushed so far (= index of the next frame to push).
    pub fn pushed(&self) -> u64 {
        self.base + self.scores.len() as u64
    }

    /// Which earlier frame the next pushed frame's SAD must compare against,
    /// or `None` when libvmaf computes no SAD for it (its score is 0).
    pub fn sad_partner(&self) -> Option<u64> {
        let i = self.pushed();
        if self.params.force_zero || i < self.params.min_index() {
            None
        } else {
            Some(i - self.params.distance())
        }
    }

    /// Adds the next frame's SAD (`None` exactly when
    /// [`sad_partner`](Self::sad_partner) is `None`) and returns every frame
    /// whose scores are now final, in order.
    pub fn push(&mut self, sad: Option<u64>) -> Vec<MotionFrame> {
        let wanted = self.sad_partner().is_some();
        assert_eq!(sad.is_some(), wanted, "motion: frame {} SAD presence", self.pushed());
        let score = sad.map_or(0.0, |s| sad_score(s, self.width, self.height, &self.params));
        if self.pushed() == self.params.min_index() {
            self.stamp = Some(self.processed(score));
        }
        self.scores.push_back(score);
        let mut out = Vec::new();
        while self.ready(self.next) {
            out.push(self.emit(true));
        }
        out
    }

    /// End of stream: the scores of every frame not yet returned.
    pub fn finish(&mut self) -> Vec<MotionFrame> {
        let mut out = Vec::new();
        while self.next < self.pushed() {
            let has_next = self.next + 1 < self.pushed();
            out.push(self.emit(has_next));
        }
        out
    }

    /// Frame `i` can be emitted once frame `i+1` is in and, for the frames
    /// before the first SAD, once the stamp is known.
    fn ready(&self, i: u64) -> bool {
        i + 1 < self.pushed() && (i >= self.params.min_index() || self.stamp.is_some())
    }

    fn score(&self, i: u64) -> f64 {
        self.scores[(i - self.base) as usize]
    }

    /// `min(blend(x), max_val)`: libvmaf's motion3 before any averaging.
    fn processed(&self, x: f64) -> f64 {
        let p = &self.params;
        c_min(motion_blend(x, p.blend_factor, p.blend_offset), p.max_val)
    }

    /// motion2 of frame `i`: 0 before the first SAD, the frame's own score on
    /// the last frame, else the smaller of the lower neighbour (`i`, or `i−1`
    /// with the five-frame window, when that has a SAD) and `i+1`.
    fn motion2(&self, i: u64, has_next: bool) -> f64 {
        let min_idx = self.params.min_index();
        if i < min_idx {
            return 0.0;
        }
        if !has_next {
            return self.score(i);
        }
        let hi = self.score(i + 1);
        let lo_idx = i + 1 - self.params.distance();
        if lo_idx >= min_idx { c_min(self.score(lo_idx), hi) } else { hi }
    }

    fn emit(&mut self, has_next: bool) -> MotionFrame {
        let i = self.next;
        let motion = self.score(i);
        let motion2 = self.motion2(i, has_next);
        let motion3 = if i < self.params.min_index() {
            let stamp = self.stamp.unwrap_or(0.0);
            self.prev_processed = stamp;
            stamp
        } else {
            let processed = self.processed(motion2);
            let m3 = if self.params.moving_average {
                (processed + self.prev_processed) / 2.0
            } else {
                processed
            };
            self.prev_processed = processed;
            m3
        };
        self.next += 1;
        self.trim();
        MotionFrame { index: i, motion, motion2, motion3 }
    }

    /// Drops scores no future frame reads (the oldest one needed is the
    /// lower neighbour of the next frame, `next − 1`).
    fn trim(&mut self) {
        let keep_from = self.next.saturating_sub(1);
        while self.base < keep_from && !self.scores.is_empty() {
            self.scores.pop_front();
            self.base += 1;
        }
    }
}

/// Scores a whole sequence of SADs at once (index 0.. in order), as libvmaf
/// prints them after its flush. Convenience for tests and offline use.
pub fn score_sequence(
    width: u32,
    height: u32,
    params: MotionParams,
    sads: &[Option<u64>],
) -> Vec<MotionFrame> {
    let mut scorer = MotionScorer::new(width, height, params);
    let mut out = Vec::with_capacity(sads.len());
    for &s in sads {
        out.extend(scorer.push(s));
    }
    out.extend(scorer.finish());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(w: usize, h: usize, bpc: u32, s: &[u16]) -> PlaneView<'_> {
        PlaneView::packed(w, h, bpc, s)
    }

    /// A 5×5 plane, zero except `v` at the centre.
    fn impulse(v: u16) -> Vec<u16> {
        let mut s = vec![0u16; 25];
        s[12] = v;
        s
    }

    #[test]
    fn mirror_reflects_without_repeating_the_edge() {
        assert_eq!(mirror(-1, 5), 1);
        assert_eq!(mirror(-2, 5), 2);
        assert_eq!(mirror(0, 5), 0);
        assert_eq!(mirror(4, 5), 4);
        assert_eq!(mirror(5, 5), 3);
        assert_eq!(mirror(6, 5), 2);
    }

    #[test]
    fn identical_frames_have_zero_sad() {
        let s: Vec<u16> = (0..7 * 6).map(|i| (i * 37 % 256) as u16).collect();
        let p = plane(7, 6, 8, &s);
        assert_eq!(motion_sad(&p, &p).unwrap(), 0);
    }

    #[test]
    fn constant_shift_has_zero_sad_only_if_blur_rounds_to_zero() {
        // A uniform difference of 1 blurs to (65536 + 128) >> 8 = 256, then
        // (256·65536 + 32768) >> 16 = 256 per sample.
        let a = vec![11u16; 16];
        let b = vec![10u16; 16];
        let sad = motion_sad(&plane(4, 4, 8, &a), &plane(4, 4, 8, &b)).unwrap();
        assert_eq!(sad, 256 * 16);
    }

    /// Hand-derived: an impulse at the centre of a 5-row column. Rows 0 and 4
    /// see it twice through the mirror (3571 + 3571 = 7142).
    /// 255·7142 = 1821210, +128, >>8 = 7114; 255·16004 → 15941; 255·26386 → 26283.
    #[test]
    fn vertical_pass_of_an_impulse_through_the_mirror() {
        let zero = vec![0u16; 25];
        let imp = impulse(255);
        let (p, z) = (plane(5, 5, 8, &imp), plane(5, 5, 8, &zero));
        let expect = [7114, 15941, 26283, 15941, 7114];
        let mut row = [0i32; 5];
        for (i, &e) in expect.iter().enumerate() {
            vertical_row(&p, &z, i, &mut row);
            assert_eq!(row, [0, 0, e, 0, 0], "row {i}");
        }
    }

    /// Negative sums shift arithmetically (floor): −1821210 + 128 = −1821082,
    /// floor(/256) = −7114, where truncation would give −7113.
    #[test]
    fn vertical_pass_floors_negative_differences() {
        let zero = vec![0u16; 25];
        let imp = impulse(255);
        let (p, z) = (plane(5, 5, 8, &imp), plane(5, 5, 8, &zero));
        let mut row = [0i32; 5];
        vertical_row(&z, &p, 0, &mut row);
        assert_eq!(row, [0, 0, -7114, 0, 0]);
        vertical_row(&z, &p, 2, &mut row);
        assert_eq!(row, [0, 0, -26283, 0, 0]);
    }

    /// 10 bits shift by 10: 1023·26386 = 26992878, +512, >>10 = 26360.
    #[test]
    fn vertical_pass_shifts_by_bit_depth() {
        let zero = vec![0u16; 25];
        let imp = impulse(1023);
        let (p, z) = (plane(5, 5, 10, &imp), plane(5, 5, 10, &zero));
        let mut row = [0i32; 5];
        vertical_row(&p, &z, 2, &mut row);
        assert_eq!(row, [0, 0, 26360, 0, 0]);
        vertical_row(&p, &z, 4, &mut row);
        assert_eq!(row, [0, 0, 7135, 0, 0]);
    }

    /// Hand-derived: 7142·26283 = 187713186 → 2864; 16004·26283 → 6418;
    /// 26386·26283 = 693503238 → 10582. Sum 2·2864 + 2·6418 + 10582.
    #[test]
    fn horizontal_pass_of_an_impulse_row() {
        assert_eq!(horizontal_row_sad(&[0, 0, 26283, 0, 0]), 29146);
        assert_eq!(horizontal_row_sad(&[0, 0, -26283, 0, 0]), 29146);
    }

    /// The whole 5×5 impulse, rows 7888 + 17678 + 29146 + 17678 + 7888
    /// (each row derived as in the tests above), both signs.
    /// libvmaf sums a row in a `u32`: 70 000 samples of 65 280 (a uniform
    /// 8-bit difference of 255 blurs to 65 280 everywhere) total
    /// 4 569 600 000, which wraps to 4 569 600 000 − 2^32 = 274 632 704.
    #[test]
    fn row_sums_wrap_in_u32() {
        let row = vec![65280i32; 70_000];
        assert_eq!(horizontal_row_sad(&row), 274_632_704);
    }

    #[test]
    fn sad_of_an_impulse() {
        let zero = vec![0u16; 25];
        let imp = impulse(255);
        let (p, z) = (plane(5, 5, 8, &imp), plane(5, 5, 8, &zero));
        assert_eq!(motion_sad(&p, &z).unwrap(), 80278);
        assert_eq!(motion_sad(&z, &p).unwrap(), 80278);
    }

    #[test]
    fn stride_is_respected() {
        // Same 5×5 impulse inside rows of 8 samples with junk padding.
        let mut a = vec![999u16; 40];
        let mut b = vec![777u16; 40];
        for y in 0..5 {
            for x in 0..5 {
                a[y * 8 + x] = 0;
                b[y * 8 + x] = 0;
            }
        }
        a[2 * 8 + 2] = 255;
        let pa = PlaneView { width: 5, height: 5, stride: 8, bpc: 8, samples: &a };
        let pb = PlaneView { width: 5, height: 5, stride: 8, bpc: 8, samples: &b };
        assert_eq!(motion_sad(&pa, &pb).unwrap(), 80278);
    }

    #[test]
    fn too_small_planes_are_refused() {
        let s = vec![0u16; 10];
        let p = plane(5, 2, 8, &s);
        assert!(motion_sad(&p, &p).is_err());
        let s = vec![0u16; 9];
        let p = plane(3, 3, 8, &s);
        assert_eq!(motion_sad(&p, &p).unwrap(), 0);
    }

    #[test]
    fn score_divides_by_256_and_area_then_clips() {
        let p = MotionParams::default();
        assert_eq!(sad_score(256 * 6, 3, 2, &p), 1.0);
        assert_eq!(sad_score(256 * 6 * 20000, 3, 2, &p), 10000.0);
        let w = MotionParams { fps_weight: 2.0, max_val: 1.5, ..p };
        assert_eq!(sad_score(256 * 3, 3, 2, &w), 1.0);
        assert_eq!(sad_score(256 * 6, 3, 2, &w), 1.5);
    }

    /// Scores directly in units of 256·w·h so score k ⇔ SAD 256·k (w=h=1).
    fn sads(k: &[u64]) -> Vec<Option<u64>> {
        k.iter().enumerate().map(|(i, &k)| (i > 0).then_some(k * 256)).collect()
    }

    #[test]
    fn motion2_is_min_with_next_and_motion3_stamps_frame_zero() {
        let out = score_sequence(1, 1, MotionParams::default(), &sads(&[0, 5, 3, 4, 7]));
        let m: Vec<f64> = out.iter().map(|f| f.motion).collect();
        let m2: Vec<f64> = out.iter().map(|f| f.motion2).collect();
        let m3: Vec<f64> = out.iter().map(|f| f.motion3).collect();
        assert_eq!(m, [0.0, 5.0, 3.0, 4.0, 7.0]);
        assert_eq!(m2, [0.0, 3.0, 3.0, 4.0, 7.0]);
        assert_eq!(m3, [5.0, 3.0, 3.0, 4.0, 7.0]);
        assert_eq!(out.iter().map(|f| f.index).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn single_frame_and_two_frames() {
        let one = score_sequence(1, 1, MotionParams::default(), &[None]);
        assert_eq!((one[0].motion, one[0].motion2, one[0].motion3), (0.0, 0.0, 0.0));
        let two = score_sequence(1, 1, MotionParams::default(), &sads(&[0, 9]));
        assert_eq!((two[0].motion2, two[0].motion3), (0.0, 9.0));
        assert_eq!((two[1].motion2, two[1].motion3), (9.0, 9.0));
    }

    #[test]
    fn streaming_emits_each_frame_once_the_next_is_known() {
        let mut s = MotionScorer::new(1, 1, MotionParams::default());
        assert_eq!(s.sad_partner(), None);
        assert!(s.push(None).is_empty());
        assert_eq!(s.sad_partner(), Some(0));
        let f0 = s.push(Some(256 * 2));
        assert_eq!(f0.len(), 1);
        assert_eq!((f0[0].index, f0[0].motion3), (0, 2.0));
        assert_eq!(s.sad_partner(), Some(1));
        let f1 = s.push(Some(256));
        assert_eq!((f1[0].index, f1[0].motion2), (1, 1.0));
        let last = s.finish();
        assert_eq!((last[0].index, last[0].motion2), (2, 1.0));
        assert!(s.finish().is_empty());
    }

    #[test]
    fn blend_and_moving_average() {
        // blend(x) = 0.5x + 0.5·min(4, x); motion3 averages with the previous.
        let p = MotionParams {
            blend_factor: 0.5,
            blend_offset: 4.0,
            moving_average: true,
            ..Default::default()
        };
        let out = score_sequence(1, 1, p, &sads(&[0, 10, 2, 6]));
        // motion2: 0, 2, 2, 6. processed: stamp = blend(10) = 7; 2; 2; 5.
        let m3: Vec<f64> = out.iter().map(|f| f.motion3).collect();
        assert_eq!(m3, [7.0, (2.0 + 7.0) / 2.0, 2.0, (5.0 + 2.0) / 2.0]);
    }

    #[test]
    fn five_frame_window() {
        let p = MotionParams { five_frame_window: true, ..Default::default() };
        let mut s = MotionScorer::new(1, 1, p);
        assert!(s.push(None).is_empty());
        assert_eq!(s.sad_partner(), None);
        assert!(s.push(None).is_empty());
        assert_eq!(s.sad_partner(), Some(0));
        let mut out = s.push(Some(256 * 6));
        assert_eq!(out.len(), 2, "frames 0 and 1 wait for the stamp");
        assert_eq!(s.sad_partner(), Some(1));
        out.extend(s.push(Some(256 * 4)));
        out.extend(s.push(Some(256 * 5)));
        out.extend(s.push(Some(256 * 3)));
        out.extend(s.finish());
        let m2: Vec<f64> = out.iter().map(|f| f.motion2).collect();
        let m3: Vec<f64> = out.iter().map(|f| f.motion3).collect();
        // scores 0 0 6 4 5 3; motion2[i] = min(s[i−1] if i−1 ≥ 2, s[i+1]).
        assert_eq!(m2, [0.0, 0.0, 4.0, 5.0, 3.0, 3.0]);
        assert_eq!(m3, [6.0, 6.0, 4.0, 5.0, 3.0, 3.0]);
    }

    #[test]
    fn force_zero_needs_no_sad() {
        let p = MotionParams { force_zero: true, ..Default::default() };
        let out = score_sequence(1, 1, p, &[None, None, None]);
        assert!(out.iter().all(|f| f.motion == 0.0 && f.motion2 == 0.0 && f.motion3 == 0.0));
    }
}
