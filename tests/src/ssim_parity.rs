//! The libvmaf parity check of `float_ssim` and `float_ms_ssim`, shared by
//! the CPU twins' test and the GPU kernels' test: read every shared clip
//! pair's luma planes, score each frame with a [`Backend`], and compare with
//! libvmaf 3.2.0's JSON: per frame |ours − libvmaf| ≤ 1e-6 (the contract in
//! DESIGN.md). libvmaf prints six decimals, so that bound is all a JSON
//! comparison can check; the check also counts how many printed values
//! differ and reports the largest difference, so a drift shows before it
//! breaks the bound.

use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_ms_ssim::MsSsimScore;
use vqscope_metrics::features::float_ssim::SsimScore;
use vqscope_video::y4m::Y4mFile;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_json, printed, reference_y4m};

/// libvmaf's agreement bound for the float SSIM features.
pub const TOLERANCE: f64 = 1e-6;

/// What scores a frame pair: the CPU twins or the GPU kernels.
pub trait Backend {
    /// `float_ssim` (default options) and `float_ms_ssim` of one pair of
    /// luma planes.
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> (SsimScore, MsSsimScore);
}

/// Luma planes of every frame of a y4m file, with width, height and bit depth.
pub fn luma_frames(path: &Path) -> (usize, usize, u32, Vec<Vec<u16>>) {
    let mut file = Y4mFile::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let geometry = file.header().geometry();
    let mut frames = Vec::new();
    while let Some(frame) = file.next_frame().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    {
        frames.push(frame.plane_samples(0));
    }
    (geometry.width as usize, geometry.height as usize, geometry.format.bit_depth, frames)
}

/// Largest |Δ| and the number of printed mismatches of one feature.
#[derive(Default)]
pub struct Tally {
    pub max_diff: f64,
    pub max_at: String,
    pub printed_mismatches: usize,
    pub values: usize,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, what: &str, ours: f64, theirs: f64) {
        let diff = (ours - theirs).abs();
        self.values += 1;
        if diff > self.max_diff || self.max_at.is_empty() {
            self.max_diff = diff;
            self.max_at = what.to_string();
        }
        if printed(ours) != printed(theirs) {
            self.printed_mismatches += 1;
            eprintln!(
                "printed mismatch {what}: ours {} libvmaf {}",
                printed(ours),
                printed(theirs)
            );
        }
        // A NaN from either side must fail too.
        if diff.is_nan() || diff > TOLERANCE {
            self.failures
                .push(format!("{what}: ours {ours:.9} libvmaf {theirs:.6} (|Δ| {diff:.3e})"));
        }
    }
}

/// Scores every frame of every shared clip pair with `backend`, prints each
/// feature's value count, max |Δ| and printed mismatches, and panics when
/// any value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut ssim = Tally::default();
    let mut ms_ssim = Tally::default();
    for pair in PAIRS {
        let json = libvmaf_json(pair, "vmaf");
        let want_ssim = libvmaf_frames(&json, "float_ssim");
        let want_ms = libvmaf_frames(&json, "float_ms_ssim");
        let (w, h, bpc, refs) = luma_frames(&reference_y4m(pair));
        let (dw, dh, dbpc, diss) = luma_frames(&distorted_y4m(pair));
        assert_eq!((w, h, bpc), (dw, dh, dbpc), "{pair}: inputs differ");
        assert_eq!(refs.len(), diss.len(), "{pair}: frame counts differ");
        assert_eq!(refs.len(), want_ssim.len(), "{pair}: libvmaf scored a different frame count");
        assert!(!refs.is_empty(), "{pair}: no frames");

        for (i, (r, d)) in refs.iter().zip(&diss).enumerate() {
            let rv = PlaneView::packed(w, h, bpc, r);
            let dv = PlaneView::packed(w, h, bpc, d);
            let (s, m) = backend.score(&rv, &dv);
            ssim.add(&format!("{pair} frame {i} float_ssim"), s.ssim, want_ssim[i]);
            ms_ssim.add(&format!("{pair} frame {i} float_ms_ssim"), m.ms_ssim, want_ms[i]);
        }
    }
    for (name, t) in [("float_ssim", &ssim), ("float_ms_ssim", &ms_ssim)] {
        println!(
            "{name}: {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
            t.values, t.max_diff, t.max_at, t.printed_mismatches
        );
    }
    let failures: Vec<&String> = ssim.failures.iter().chain(&ms_ssim.failures).collect();
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
