//! The GPU integer VIF kernels against libvmaf 3.2.0's output: every VIF
//! value of every frame of the shared clips and Netflix's fixtures printed
//! the same (`%.6f`), and every value on the synthetic frames of odd and
//! minimal sizes equal to libvmaf's double bit for bit. The checks are the
//! CPU twin's (`vqscope_tests::vif_parity`), with the sums from the kernels.

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::vif::gpu::VifKernel;
use vqscope_metrics::features::vif::{VifFeatures, VifOptions, features};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};
use vqscope_tests::vif_parity::{
    Backend, check_shared_clips, check_synthetic_frames, check_upstream_fixtures,
};

/// The kernel for the current geometry and options, one submission per
/// frame.
struct Gpu {
    runner: PairRunner,
    kernel: Kernels<((usize, usize, u32), VifOptions), VifKernel>,
}

impl Gpu {
    fn new() -> Self {
        Self { runner: PairRunner::new(VifKernel::RESULT_WORDS), kernel: Kernels::default() }
    }
}

impl Backend for Gpu {
    fn vif(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &VifOptions,
    ) -> VifFeatures {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        let ctx = &self.runner.ctx;
        let kernel = self.kernel.get(((w, h, bpc), *options), || {
            VifKernel::new(ctx, w as u32, h as u32, bpc, *options).unwrap()
        });
        let words = self
            .runner
            .run(reference, distorted, |rec, r, d, results| kernel.record(rec, r, d, results, 0));
        features(&kernel.decode(&words))
    }
}

#[test]
fn gpu_vif_matches_libvmaf_on_shared_clips() {
    check_shared_clips(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn gpu_vif_matches_libvmaf_on_upstream_fixtures() {
    check_upstream_fixtures(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn gpu_vif_matches_libvmaf_bit_exactly_on_synthetic_frames() {
    check_synthetic_frames(&mut Gpu::new());
    assert_no_validation_messages();
}
