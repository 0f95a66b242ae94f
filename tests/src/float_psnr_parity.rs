//! The libvmaf parity check of `float_psnr` and `float_ansnr` (`float_ansnr`,
//! `float_anpsnr`), shared by the CPU twins' test and the GPU kernels'
//! test: score every frame of every shared clip pair with a [`Backend`] and
//! compare with libvmaf 3.2.0's `extra.json` (which ran both extractors):
//! per frame |ours − libvmaf| ≤ 1e-6, with each clip's largest |Δ| and
//! printed (`%.6f`) mismatches reported per feature.

use vqscope_metrics::PlaneView;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::ssim_parity::{TOLERANCE, Tally, luma_frames};

/// The three values compared, in [`Backend::score`]'s order.
pub const NAMES: [&str; 3] = ["float_psnr", "float_ansnr", "float_anpsnr"];

/// What scores a frame pair: the CPU twins or the GPU kernels.
pub trait Backend {
    /// `[float_psnr, float_ansnr, float_anpsnr]` of one pair of luma planes.
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 3];
}

/// Scores every frame of every shared clip pair with `backend`, prints per
/// clip and feature the value count, max |Δ| and printed mismatches, and
/// panics when any value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "extra");
        let want = NAMES.map(|name| libvmaf_frames(&json, name));
        let (w, h, bpc, refs) = luma_frames(&reference_y4m(pair));
        let (dw, dh, dbpc, diss) = luma_frames(&distorted_y4m(pair));
        assert_eq!((w, h, bpc), (dw, dh, dbpc), "{pair}: inputs differ");
        assert_eq!(refs.len(), diss.len(), "{pair}: frame counts differ");
        assert_eq!(refs.len(), want[0].len(), "{pair}: libvmaf scored a different frame count");
        assert!(!refs.is_empty(), "{pair}: no frames");

        let mut tallies: [Tally; 3] = Default::default();
        for (i, (r, d)) in refs.iter().zip(&diss).enumerate() {
            let rv = PlaneView::packed(w, h, bpc, r);
            let dv = PlaneView::packed(w, h, bpc, d);
            let ours = backend.score(&rv, &dv);
            for (k, tally) in tallies.iter_mut().enumerate() {
                tally.add(&format!("{pair} frame {i} {}", NAMES[k]), ours[k], want[k][i]);
            }
        }
        for (name, t) in NAMES.iter().zip(&mut tallies) {
            println!(
                "{pair}: {name}: {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
                t.values, t.max_diff, t.max_at, t.printed_mismatches
            );
            failures.append(&mut t.failures);
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
