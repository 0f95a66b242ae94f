//! The libvmaf parity check of `float_vif`, shared by the CPU twin's test
//! and the GPU kernels' test: every shared clip pair's luma planes, each
//! frame scored by a [`Backend`], compared with libvmaf 3.2.0's float build
//! (`clips/refs/*.extra.json`, `vif_scale0..3`): per frame
//! |ours − libvmaf| ≤ 1e-6, with the largest |Δ| and the printed (`%.6f`)
//! mismatches reported per clip and per scale.

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_vif::FEATURE_NAMES;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::ssim_parity::{TOLERANCE, Tally, luma_frames};

/// What scores a frame pair: the CPU twin or the GPU kernels.
pub trait Backend {
    /// `vif_scale0..3` (default options) of one pair of luma planes.
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 4];
}

/// Scores every frame of every shared clip pair with `backend`, prints each
/// clip's and scale's value count, max |Δ| and printed mismatches, and
/// panics when any value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "extra");
        let want: Vec<Vec<f64>> =
            FEATURE_NAMES[..4].iter().map(|n| libvmaf_frames(&json, n)).collect();
        let (w, h, bpc, refs) = luma_frames(&reference_y4m(pair));
        let (dw, dh, dbpc, diss) = luma_frames(&distorted_y4m(pair));
        assert_eq!((w, h, bpc), (dw, dh, dbpc), "{pair}: inputs differ");
        assert_eq!(refs.len(), diss.len(), "{pair}: frame counts differ");
        assert_eq!(refs.len(), want[0].len(), "{pair}: libvmaf scored a different frame count");
        assert!(!refs.is_empty(), "{pair}: no frames");

        let mut tallies: [Tally; 4] = Default::default();
        for (i, (r, d)) in refs.iter().zip(&diss).enumerate() {
            let rv = PlaneView::packed(w, h, bpc, r);
            let dv = PlaneView::packed(w, h, bpc, d);
            let ours = backend.score(&rv, &dv);
            for (s, t) in tallies.iter_mut().enumerate() {
                t.add(&format!("{pair} frame {i} {}", FEATURE_NAMES[s]), ours[s], want[s][i]);
            }
        }
        for (s, t) in tallies.iter_mut().enumerate() {
            println!(
                "{pair} {}: {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
                FEATURE_NAMES[s], t.values, t.max_diff, t.max_at, t.printed_mismatches
            );
            failures.append(&mut t.failures);
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
