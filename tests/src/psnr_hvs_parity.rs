//! The libvmaf parity check of `psnr_hvs`, shared by the CPU twin's test and
//! the GPU kernels' test: score every frame of every shared clip pair (all
//! three planes) with a [`Backend`] and compare `psnr_hvs_y`, `_cb`, `_cr`
//! and `psnr_hvs` with libvmaf 3.2.0's `refs/NAME.extra.json`: per frame
//! |ours − libvmaf| ≤ 1e-6, with each output's largest |Δ| and count of
//! printed (`%.6f`) mismatches reported per clip.

use vqscope_metrics::features::psnr_hvs::PsnrHvsScore;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::motion_psnr::{Plane, y4m_frames};
use crate::ssim_parity::{TOLERANCE, Tally};

/// libvmaf's output names, in the order of [`PsnrHvsScore::values`].
pub const OUTPUTS: [&str; 4] = ["psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"];

/// What scores a frame pair: the CPU twin or the GPU kernels.
pub trait Backend {
    /// `psnr_hvs` of a frame pair given as its Y, Cb and Cr planes.
    fn score(&mut self, reference: &[Plane; 3], distorted: &[Plane; 3]) -> PsnrHvsScore;
}

/// Scores every frame of every shared clip pair with `backend`, prints per
/// clip and output the value count, max |Δ| and printed mismatches, and
/// panics when any value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "extra");
        let want: Vec<Vec<f64>> = OUTPUTS.iter().map(|k| libvmaf_frames(&json, k)).collect();
        let mut tallies: [Tally; 4] = Default::default();
        let frames = y4m_frames(&reference_y4m(pair)).zip(y4m_frames(&distorted_y4m(pair)));
        let mut count = 0;
        for (i, (r, d)) in frames.enumerate() {
            assert!(i < want[0].len(), "{pair}: more frames than libvmaf scored");
            let r: [Plane; 3] = std::array::from_fn(|p| Plane::of(&r, p));
            let d: [Plane; 3] = std::array::from_fn(|p| Plane::of(&d, p));
            let ours = backend.score(&r, &d).values();
            for (k, t) in tallies.iter_mut().enumerate() {
                t.add(&format!("{pair} frame {i} {}", OUTPUTS[k]), ours[k], want[k][i]);
            }
            count += 1;
        }
        assert_eq!(count, want[0].len(), "{pair}: libvmaf scored a different frame count");
        for (name, t) in OUTPUTS.iter().zip(&tallies) {
            println!(
                "{pair}: {name}: {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
                t.values, t.max_diff, t.max_at, t.printed_mismatches
            );
        }
        failures.extend(tallies.into_iter().flat_map(|t| t.failures));
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
