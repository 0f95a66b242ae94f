//! The CPU twin of `cambi` against libvmaf 3.2.0's own output on every
//! shared clip pair, under every CAMBI option set of the reference reports:
//! every printed digit must match (the check itself is in
//! `vqscope_tests::cambi_parity`).

use vqscope_metrics::features::cambi::{Cambi, CambiOptions, CambiScore};
use vqscope_tests::cambi_parity::{Backend, check_pinned, check_shared_clips};
use vqscope_tests::motion_psnr::Plane;

struct Cpu;

impl Backend for Cpu {
    fn score(
        &mut self,
        options: &CambiOptions,
        reference: &Plane,
        distorted: &Plane,
    ) -> CambiScore {
        let cambi =
            Cambi::new(options, distorted.w, distorted.h, distorted.bpc).expect("cambi setup");
        cambi.score(&distorted.view(), &reference.view()).expect("cambi score")
    }
}

/// Every frame of every clip: CAMBI has no state between frames, so the
/// frames are independent checks.
#[test]
fn cambi_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu, 1);
}

/// The option sets the shared reports leave out, against libvmaf 3.2.0's
/// values pinned in `vqscope_tests::cambi_parity::pinned`.
#[test]
fn cambi_matches_libvmaf_under_other_options() {
    check_pinned(&mut Cpu);
}
