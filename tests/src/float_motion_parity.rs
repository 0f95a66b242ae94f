//! The libvmaf parity check of `float_motion`, shared by the CPU twin's test
//! and the GPU kernels' test: stream every shared clip's reference luma
//! frames through [`FloatMotionScorer`], with each frame's raw score from a
//! [`Backend`], and compare every per-frame `motion`, `motion2` and
//! `motion3` with libvmaf 3.2.0's (`refs/NAME.extra.json`): |Δ| ≤ 1e-6,
//! reporting per clip and value the largest |Δ| and how many printed
//! (`%.6f`) values differ.

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_motion::{
    FloatMotionFrame, FloatMotionParams, FloatMotionScorer,
};

use crate::clips::{PAIRS, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::ssim_parity::{TOLERANCE, Tally, luma_frames};

/// A value of a frame.
type Getter = fn(&FloatMotionFrame) -> f64;

/// libvmaf's names of the three values, with how to read each.
const KEYS: [(&str, Getter); 3] =
    [("motion", |f| f.motion), ("motion2", |f| f.motion2), ("motion3", |f| f.motion3)];

/// What computes a frame's raw score: the CPU twin or the GPU kernels.
pub trait Backend {
    /// The raw score (default options) of luma plane `cur` against `prev`.
    fn score(&mut self, prev: &PlaneView, cur: &PlaneView) -> f64;
}

/// Scores every frame of every shared clip with `backend`, prints each
/// clip's and value's max |Δ| and printed mismatches, and panics when any
/// value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "extra");
        let (w, h, bpc, frames) = luma_frames(&reference_y4m(pair));
        let mut scorer = FloatMotionScorer::new(FloatMotionParams::default());
        let mut ours: Vec<FloatMotionFrame> = Vec::new();
        for (i, cur) in frames.iter().enumerate() {
            let score = (i > 0).then(|| {
                let prev = PlaneView::packed(w, h, bpc, &frames[i - 1]);
                backend.score(&prev, &PlaneView::packed(w, h, bpc, cur))
            });
            ours.extend(scorer.push(score));
        }
        ours.extend(scorer.finish());
        assert_eq!(ours.len(), frames.len(), "{pair}: one value set per frame");
        for (key, get) in KEYS {
            let want = libvmaf_frames(&json, key);
            assert_eq!(want.len(), ours.len(), "{pair}: libvmaf scored a different frame count");
            let mut tally = Tally::default();
            for (i, f) in ours.iter().enumerate() {
                assert_eq!(f.index, i as u64, "{pair}: frames in order");
                tally.add(&format!("{pair} frame {i} {key}"), get(f), want[i]);
            }
            println!(
                "{pair} {key}: {} values, max |Δ| {:.3e}, printed mismatches {}",
                tally.values, tally.max_diff, tally.printed_mismatches
            );
            failures.extend(tally.failures);
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
