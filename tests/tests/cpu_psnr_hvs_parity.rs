//! The CPU twin of `psnr_hvs` against libvmaf 3.2.0's own output on every
//! shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 for all four outputs
//! (the check itself, shared with the GPU test, is in
//! `vqscope_tests::psnr_hvs_parity`).

use vqscope_metrics::features::psnr_hvs::{PsnrHvsScore, psnr_hvs};
use vqscope_tests::motion_psnr::Plane;
use vqscope_tests::psnr_hvs_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn score(&mut self, reference: &[Plane; 3], distorted: &[Plane; 3]) -> PsnrHvsScore {
        let r = [reference[0].view(), reference[1].view(), reference[2].view()];
        let d = [distorted[0].view(), distorted[1].view(), distorted[2].view()];
        psnr_hvs(&r, &d).expect("psnr_hvs")
    }
}

#[test]
fn psnr_hvs_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
