//! CPU twins of `float_ssim` and `float_ms_ssim` against libvmaf 3.2.0's own
//! output on every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 (the
//! check itself, shared with the GPU test, is in
//! `vqscope_tests::ssim_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_ms_ssim::{MsSsimScore, float_ms_ssim};
use vqscope_metrics::features::float_ssim::{SsimOptions, SsimScore, float_ssim};
use vqscope_tests::ssim_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> (SsimScore, MsSsimScore) {
        let s = float_ssim(reference, distorted, SsimOptions::default()).expect("float_ssim");
        let m = float_ms_ssim(reference, distorted).expect("float_ms_ssim");
        (s, m)
    }
}

#[test]
fn float_ssim_and_ms_ssim_match_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
