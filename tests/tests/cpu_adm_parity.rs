//! The CPU twin of integer ADM against libvmaf 3.2.0's own output: every
//! ADM value of every frame, printed `%.6f`, must be identical. The checks
//! live in `vqscope_tests::adm_parity`, shared with the GPU kernels' test.
//!
//! Clips: `../shared/clips` (three pairs, 8- and 10-bit, 1080p and 576x324).
//! Upstream fixtures: Netflix's raw yuv test files in
//! `../shared/upstream_fixtures` with libvmaf v3.2.0 CLI output beside them.

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::adm::{AdmOptions, AdmScores, adm_frame};
use vqscope_tests::adm_parity::{
    Backend, check_csf_modes, check_shared_clips, check_upstream_fixtures, check_v1_options,
};

struct Cpu;

impl Backend for Cpu {
    fn adm(&mut self, r: &PlaneView, d: &PlaneView, options: &AdmOptions) -> AdmScores {
        adm_frame(r, d, options).expect("adm")
    }
}

#[test]
fn adm_matches_libvmaf_on_shared_clips() {
    check_shared_clips(&mut Cpu);
}

#[test]
fn adm_matches_libvmaf_on_upstream_fixtures() {
    check_upstream_fixtures(&mut Cpu);
}

#[test]
fn adm_v1_options_match_libvmaf_on_shared_clips() {
    check_v1_options(&mut Cpu);
}

#[test]
fn adm_csf_modes_match_libvmaf() {
    check_csf_modes(&mut Cpu);
}
