//! The libvmaf parity check of `float_adm`, shared by the CPU twin's test
//! (`cpu_float_adm_parity`) and the GPU kernels' test
//! (`gpu_float_adm_parity`): every value libvmaf 3.2.0's float build
//! printed for every frame of the shared clips (`refs/NAME.extra.json`:
//! `adm2`, `aim`, `adm3`, `adm_scale0..3`) must lie within 1e-6 of ours;
//! the check also counts the printed (`%.6f`) values that differ and
//! reports the largest |Δ| per clip and output. Expected values come only
//! from libvmaf's JSON.

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_adm::{FloatAdmOptions, FloatAdmScores};

use crate::clips::{PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, reference_y4m};
use crate::ssim_parity::{Tally, luma_frames};

/// The agreement bound with libvmaf.
pub const TOLERANCE: f64 = 1e-6;

/// What scores a frame pair: the CPU twin or the GPU kernels.
pub trait Backend {
    fn float_adm(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &FloatAdmOptions,
    ) -> FloatAdmScores;
}

/// The outputs libvmaf printed without `debug`.
const KEYS: [&str; 7] =
    ["adm2", "aim", "adm3", "adm_scale0", "adm_scale1", "adm_scale2", "adm_scale3"];

/// Scores every frame of every shared clip with `backend` at the default
/// options, prints per clip and output the largest |Δ| and the printed
/// mismatches, and panics when a value lies beyond [`TOLERANCE`].
pub fn check_shared_clips(backend: &mut impl Backend) {
    let options = FloatAdmOptions::default();
    let mut failures = Vec::new();
    for pair in PAIRS {
        let json = libvmaf_ref_json(pair, "extra");
        let want: Vec<Vec<f64>> = KEYS.iter().map(|k| libvmaf_frames(&json, k)).collect();
        let (w, h, bpc, refs) = luma_frames(&reference_y4m(pair));
        let (_, _, _, diss) = luma_frames(&distorted_y4m(pair));
        assert_eq!(refs.len(), want[0].len(), "{pair}: libvmaf scored a different frame count");
        let mut tallies: Vec<Tally> = KEYS.iter().map(|_| Tally::default()).collect();
        for (i, (r, d)) in refs.iter().zip(&diss).enumerate() {
            let rv = PlaneView::packed(w, h, bpc, r);
            let dv = PlaneView::packed(w, h, bpc, d);
            let got = backend.float_adm(&rv, &dv, &options);
            let named = got.named();
            for (k, key) in KEYS.iter().enumerate() {
                let ours = named.iter().find(|(n, _)| n == key).expect("named value").1;
                tallies[k].add(&format!("{pair} frame {i} {key}"), ours, want[k][i]);
            }
        }
        for (key, t) in KEYS.iter().zip(&tallies) {
            println!(
                "{pair} {key:10}: {} values, max |Δ| {:.3e}, printed mismatches {}",
                t.values, t.max_diff, t.printed_mismatches
            );
            failures.extend(t.failures.iter().cloned());
        }
    }
    assert!(failures.is_empty(), "beyond {TOLERANCE:e}:\n{failures:#?}");
}
