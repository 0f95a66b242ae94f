//! CPU twins of `float_psnr` and `float_ansnr` against libvmaf 3.2.0's own
//! output on every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 (the
//! check itself, shared with the GPU test, is in
//! `vqscope_tests::float_psnr_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_ansnr::float_ansnr;
use vqscope_metrics::features::float_psnr::float_psnr;
use vqscope_tests::float_psnr_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 3] {
        let psnr = float_psnr(reference, distorted).expect("float_psnr");
        let [ansnr, anpsnr] = float_ansnr(reference, distorted).expect("float_ansnr");
        [psnr, ansnr, anpsnr]
    }
}

#[test]
fn float_psnr_and_ansnr_match_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
