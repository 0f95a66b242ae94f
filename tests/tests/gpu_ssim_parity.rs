//! The GPU `float_ssim` and `float_ms_ssim` kernels against libvmaf 3.2.0's
//! output on every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6, with
//! the largest |Δ| and the printed (`%.6f`) mismatches reported. The check is
//! the CPU twins' (`vqscope_tests::ssim_parity`), with the scores from the
//! kernels instead.

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_ms_ssim::MsSsimScore;
use vqscope_metrics::features::float_ms_ssim::gpu::MsSsimKernel;
use vqscope_metrics::features::float_ssim::gpu::SsimKernel;
use vqscope_metrics::features::float_ssim::{SsimOptions, SsimScore};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};
use vqscope_tests::ssim_parity::{Backend, check_shared_clips};

/// Both kernels for the current clip's geometry, recorded into one
/// submission per frame.
struct Gpu {
    runner: PairRunner,
    kernels: Kernels<(usize, usize, u32), (SsimKernel, MsSsimKernel)>,
}

impl Gpu {
    fn new() -> Self {
        let words = SsimKernel::RESULT_WORDS + MsSsimKernel::RESULT_WORDS;
        Self { runner: PairRunner::new(words), kernels: Kernels::default() }
    }
}

impl Backend for Gpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> (SsimScore, MsSsimScore) {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        let ctx = &self.runner.ctx;
        let (ssim, ms_ssim) = self.kernels.get((w, h, bpc), || {
            let ssim = SsimKernel::new(ctx, w as u32, h as u32, bpc, SsimOptions::default());
            (ssim.unwrap(), MsSsimKernel::new(ctx, w as u32, h as u32, bpc).unwrap())
        });
        let words = self.runner.run(reference, distorted, |rec, r, d, results| {
            ssim.record(rec, r, d, results, 0)?;
            ms_ssim.record(rec, r, d, results, SsimKernel::RESULT_WORDS)
        });
        let split = SsimKernel::RESULT_WORDS as usize;
        (SsimKernel::decode(&words[..split]), MsSsimKernel::decode(&words[split..]))
    }
}

#[test]
fn gpu_float_ssim_and_ms_ssim_match_libvmaf_on_every_clip() {
    let mut gpu = Gpu::new();
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
