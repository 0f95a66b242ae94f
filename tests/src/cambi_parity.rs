//! The libvmaf parity check of `cambi`: score frames of every shared clip
//! pair under each CAMBI option set libvmaf's reference reports use, and
//! require every value to print (`%.6f`) exactly as libvmaf 3.2.0 printed
//! it in `refs/NAME.{extra,aomctc,models}.json`.
//!
//! The option sets: `full_ref=true` (`extra`: `cambi`, `cambi_source`,
//! `cambi_full_reference`), the defaults (`aomctc`: `cambi`) and the v1
//! models' `cambi_high_res_speedup=1080:cambi_max_val=17:
//! cambi_vis_lum_threshold=0.06` (`models`:
//! `cambi_hrs_1080_cmxv_17_vlt_0.06`).

use vqscope_metrics::features::cambi::{CambiOptions, CambiScore};

use crate::clips::{
    PAIRS, distorted_y4m, libvmaf_frames, libvmaf_ref_json, printed, reference_y4m,
};
use crate::motion_psnr::{Plane, y4m_frames};

/// Which output of a [`CambiScore`] a report column holds.
#[derive(Debug, Clone, Copy)]
pub enum Output {
    Cambi,
    Source,
    FullReference,
}

impl Output {
    fn of(self, score: &CambiScore) -> f64 {
        match self {
            Self::Cambi => score.cambi,
            Self::Source => score.source.expect("cambi_source needs full_ref"),
            Self::FullReference => {
                score.full_reference.expect("cambi_full_reference needs full_ref")
            }
        }
    }
}

/// One option set and the report columns libvmaf wrote for it.
pub struct Case {
    pub options: CambiOptions,
    /// `(report kind, column name, output)`.
    pub columns: &'static [(&'static str, &'static str, Output)],
}

/// Every CAMBI option set in the reference reports.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            options: CambiOptions { full_ref: true, ..Default::default() },
            columns: &[
                ("extra", "cambi", Output::Cambi),
                ("extra", "cambi_source", Output::Source),
                ("extra", "cambi_full_reference", Output::FullReference),
            ],
        },
        Case { options: CambiOptions::default(), columns: &[("aomctc", "cambi", Output::Cambi)] },
        Case {
            options: CambiOptions {
                cambi_high_res_speedup: 1080,
                cambi_max_val: 17.0,
                cambi_vis_lum_threshold: 0.06,
                ..Default::default()
            },
            columns: &[("models", "cambi_hrs_1080_cmxv_17_vlt_0.06", Output::Cambi)],
        },
    ]
}

/// What scores a frame: the CPU twin (or, later, a GPU kernel).
pub trait Backend {
    /// The outputs for the luma planes of one frame pair under `options`.
    fn score(&mut self, options: &CambiOptions, reference: &Plane, distorted: &Plane)
    -> CambiScore;
}

/// Scores every `stride`-th frame (and always the last) of every shared
/// clip pair under every [`cases`] option set, prints per clip and column
/// the values compared and the largest |Δ|, and panics listing every value
/// whose printed form differs from libvmaf's.
pub fn check_shared_clips(backend: &mut impl Backend, stride: usize) {
    let mut failures = Vec::new();
    let mut compared = 0;
    for pair in PAIRS {
        let frames: Vec<(Plane, Plane)> = y4m_frames(&reference_y4m(pair))
            .zip(y4m_frames(&distorted_y4m(pair)))
            .map(|(r, d)| (Plane::of(&r, 0), Plane::of(&d, 0)))
            .collect();
        let last = frames.len() - 1;
        let picked: Vec<usize> =
            (0..frames.len()).filter(|&i| i % stride == 0 || i == last).collect();
        for case in cases() {
            let want: Vec<Vec<f64>> = case
                .columns
                .iter()
                .map(|(kind, key, _)| libvmaf_frames(&libvmaf_ref_json(pair, kind), key))
                .collect();
            for w in &want {
                assert_eq!(w.len(), frames.len(), "{pair}: libvmaf scored a different frame count");
            }
            let mut max_diff = vec![0f64; case.columns.len()];
            for &i in &picked {
                let (r, d) = &frames[i];
                let score = backend.score(&case.options, r, d);
                for (c, (kind, key, output)) in case.columns.iter().enumerate() {
                    let (ours, theirs) = (output.of(&score), want[c][i]);
                    max_diff[c] = max_diff[c].max((ours - theirs).abs());
                    compared += 1;
                    if printed(ours) != printed(theirs) {
                        failures.push(format!(
                            "{pair} frame {i} {kind}.{key}: ours {ours:.9} libvmaf {theirs:.6}"
                        ));
                    }
                }
            }
            for (c, (kind, key, _)) in case.columns.iter().enumerate() {
                println!(
                    "{pair}: {kind}.{key}: {} frames, max |Δ| {:.3e}",
                    picked.len(),
                    max_diff[c]
                );
            }
        }
    }
    assert!(compared > 0, "nothing compared");
    assert!(failures.is_empty(), "printed values differing from libvmaf 3.2.0:\n{failures:#?}");
}
