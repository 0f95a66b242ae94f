//! The GPU integer ADM kernels against libvmaf 3.2.0's output: every ADM
//! value of every frame of the shared clips and Netflix's fixtures printed
//! the same (`%.6f`). The checks are the CPU twin's
//! (`vqscope_tests::adm_parity`), with the integer sums from the kernels and
//! the twin's host scoring (`adm_scores`).

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::adm::gpu::AdmKernel;
use vqscope_metrics::features::adm::{AdmOptions, AdmScores, adm_scores};
use vqscope_tests::adm_parity::{
    Backend, check_csf_modes, check_shared_clips, check_upstream_fixtures, check_v1_options,
};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};

/// The kernel for the current geometry and options, one submission per
/// frame.
struct Gpu {
    runner: PairRunner,
    kernel: Kernels<((usize, usize, u32), AdmOptions), AdmKernel>,
}

impl Gpu {
    fn new() -> Self {
        Self { runner: PairRunner::new(AdmKernel::RESULT_WORDS), kernel: Kernels::default() }
    }
}

impl Backend for Gpu {
    fn adm(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &AdmOptions,
    ) -> AdmScores {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        let ctx = &self.runner.ctx;
        let kernel = self.kernel.get(((w, h, bpc), *options), || {
            AdmKernel::new(ctx, w as u32, h as u32, bpc, options).unwrap()
        });
        let words = self
            .runner
            .run(reference, distorted, |rec, r, d, results| kernel.record(rec, r, d, results, 0));
        adm_scores(&AdmKernel::decode(&words), w, h, options)
    }
}

#[test]
fn gpu_adm_matches_libvmaf_on_shared_clips() {
    check_shared_clips(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn gpu_adm_matches_libvmaf_on_upstream_fixtures() {
    check_upstream_fixtures(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn gpu_adm_v1_options_match_libvmaf_on_shared_clips() {
    check_v1_options(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn gpu_adm_csf_modes_match_libvmaf() {
    check_csf_modes(&mut Gpu::new());
    assert_no_validation_messages();
}
