//! The GPU `float_psnr` and `float_ansnr` kernels against libvmaf 3.2.0's
//! output on every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6, with
//! the largest |Δ| and the printed (`%.6f`) mismatches reported. The check
//! is the CPU twins' (`vqscope_tests::float_psnr_parity`), with the sums
//! from the kernels and the host scoring the registry uses.

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_ansnr::ansnr_scores;
use vqscope_metrics::features::float_ansnr::gpu::AnsnrKernel;
use vqscope_metrics::features::float_psnr::gpu::FloatPsnrKernel;
use vqscope_metrics::features::float_psnr::{FloatDepth, float_psnr_score};
use vqscope_tests::float_psnr_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};

/// Both kernels for the current clip's geometry, recorded into one
/// submission per frame.
struct Gpu {
    runner: PairRunner,
    kernels: Kernels<(usize, usize, u32), (FloatPsnrKernel, AnsnrKernel)>,
}

impl Backend for Gpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 3] {
        let (w, h, bpc) = (reference.width as u32, reference.height as u32, reference.bpc);
        let ctx = &self.runner.ctx;
        let (psnr, ansnr) = self.kernels.get((w as usize, h as usize, bpc), || {
            let psnr = FloatPsnrKernel::new(ctx, w, h, bpc).unwrap();
            (psnr, AnsnrKernel::new(ctx, w, h, bpc).unwrap())
        });
        let words = self.runner.run(reference, distorted, |rec, r, d, results| {
            psnr.record(rec, r, d, results, 0)?;
            ansnr.record(rec, r, d, results, FloatPsnrKernel::RESULT_WORDS)
        });
        let split = FloatPsnrKernel::RESULT_WORDS as usize;
        let depth = FloatDepth::of("float_psnr", bpc).unwrap();
        let sum = FloatPsnrKernel::decode(&words[..split]);
        let sums = AnsnrKernel::decode(&words[split..]);
        let [ansnr, anpsnr] = ansnr_scores(&sums, w, h, &depth);
        [float_psnr_score(sum, w, h, &depth), ansnr, anpsnr]
    }
}

#[test]
fn gpu_float_psnr_and_ansnr_match_libvmaf_on_every_clip() {
    let words = FloatPsnrKernel::RESULT_WORDS + AnsnrKernel::RESULT_WORDS;
    let mut gpu = Gpu { runner: PairRunner::new(words), kernels: Kernels::default() };
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
