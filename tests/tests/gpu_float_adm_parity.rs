//! The GPU float ADM kernels against libvmaf 3.2.0's float build on every
//! shared clip pair: the check is the CPU twin's
//! (`vqscope_tests::float_adm_parity`), with the float sums from the kernels
//! and the twin's host scoring (`scores`).

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_adm::gpu::FloatAdmKernel;
use vqscope_metrics::features::float_adm::{FloatAdmOptions, FloatAdmScores, scores};
use vqscope_tests::float_adm_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};

/// The kernel for the current geometry and options, one submission per
/// frame.
struct Gpu {
    runner: PairRunner,
    kernel: Kernels<((usize, usize, u32), FloatAdmOptions), FloatAdmKernel>,
}

impl Backend for Gpu {
    fn float_adm(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &FloatAdmOptions,
    ) -> FloatAdmScores {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        let ctx = &self.runner.ctx;
        let kernel = self.kernel.get(((w, h, bpc), *options), || {
            FloatAdmKernel::new(ctx, w as u32, h as u32, bpc, options).unwrap()
        });
        let words = self
            .runner
            .run(reference, distorted, |rec, r, d, results| kernel.record(rec, r, d, results, 0));
        scores(&FloatAdmKernel::decode(&words), w, h, options)
    }
}

#[test]
fn gpu_float_adm_matches_libvmaf_on_every_clip() {
    let mut gpu =
        Gpu { runner: PairRunner::new(FloatAdmKernel::RESULT_WORDS), kernel: Kernels::default() };
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
