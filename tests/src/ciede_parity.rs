//! The libvmaf parity check of `ciede` (`ciede2000`), shared by the CPU
//! twin's test and the GPU kernel's test: read every shared clip pair's Y,
//! Cb and Cr planes, score each frame with a [`Backend`], and compare with
//! libvmaf 3.2.0's `refs/NAME.extra.json`: per frame |ours − libvmaf| ≤ 1e-6.
//! libvmaf prints six decimals, so that bound is all a JSON comparison can
//! check; the largest difference and the count of printed mismatches are
//! reported per clip, so a drift shows before it breaks the bound.

use std::path::Path;

use vqscope_metrics::PlaneView;
use vqscope_video::ChromaFormat;
use vqscope_video::y4m::Y4mFile;

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::ssim_parity::{TOLERANCE, Tally};

/// The frames of a y4m file: each frame's three planes.
pub struct YuvClip {
    pub format: ChromaFormat,
    pub bpc: u32,
    /// (width, height) of the Y, Cb and Cr planes.
    pub sizes: [(usize, usize); 3],
    pub frames: Vec<[Vec<u16>; 3]>,
}

impl YuvClip {
    pub fn read(path: &Path) -> Self {
        let mut file = Y4mFile::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g = file.header().geometry();
        let sizes = std::array::from_fn(|i| {
            let (w, h) = g.plane_size(i);
            (w as usize, h as usize)
        });
        let mut frames = Vec::new();
        while let Some(f) = file.next_frame().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        {
            frames.push(std::array::from_fn(|i| f.plane_samples(i)));
        }
        Self { format: g.format.chroma, bpc: g.format.bit_depth, sizes, frames }
    }

    /// Frame `i`'s planes as views.
    pub fn views(&self, i: usize) -> [PlaneView<'_>; 3] {
        std::array::from_fn(|p| {
            let (w, h) = self.sizes[p];
            PlaneView::packed(w, h, self.bpc, &self.frames[i][p])
        })
    }
}

/// What scores a frame pair: the CPU twin or the GPU kernel.
pub trait Backend {
    /// `ciede2000` of one frame pair.
    fn score(
        &mut self,
        format: ChromaFormat,
        reference: &[PlaneView; 3],
        distorted: &[PlaneView; 3],
    ) -> f64;
}

/// Scores every frame of every shared clip pair with `backend`, prints per
/// clip the value count, max |Δ| and printed mismatches, and panics when any
/// value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let mut failures = Vec::new();
    for pair in PAIRS {
        let want = libvmaf_frames(&libvmaf_ref_json(pair, "extra"), "ciede2000");
        let refs = YuvClip::read(&reference_y4m(pair));
        let diss = YuvClip::read(&distorted_y4m(pair));
        assert_eq!((refs.sizes, refs.bpc), (diss.sizes, diss.bpc), "{pair}: inputs differ");
        assert_eq!(refs.frames.len(), diss.frames.len(), "{pair}: frame counts differ");
        assert_eq!(refs.frames.len(), want.len(), "{pair}: libvmaf scored a different frame count");
        assert!(!want.is_empty(), "{pair}: no frames");
        let mut tally = Tally::default();
        for (i, &theirs) in want.iter().enumerate() {
            let ours = backend.score(refs.format, &refs.views(i), &diss.views(i));
            tally.add(&format!("{pair} frame {i} ciede2000"), ours, theirs);
        }
        println!(
            "{pair}: ciede2000 {} values, max |Δ| {:.3e} ({}), printed mismatches {}",
            tally.values, tally.max_diff, tally.max_at, tally.printed_mismatches
        );
        failures.extend(tally.failures);
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
