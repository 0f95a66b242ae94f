//! The GPU `float_vif` kernels against libvmaf 3.2.0's float build on every
//! shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 for `vif_scale0..3`,
//! with the largest |Δ| and the printed (`%.6f`) mismatches reported. The
//! check is the CPU twin's (`vqscope_tests::float_vif_parity`), with the
//! sums from the kernels instead.

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_vif::gpu::FloatVifKernel;
use vqscope_metrics::features::float_vif::{FloatVifOptions, features};
use vqscope_tests::float_vif_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};

/// The kernel for the current clip's geometry.
struct Gpu {
    runner: PairRunner,
    kernels: Kernels<(usize, usize, u32), FloatVifKernel>,
}

impl Backend for Gpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 4] {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        let ctx = &self.runner.ctx;
        let opts = FloatVifOptions::default();
        let kernel = self.kernels.get((w, h, bpc), || {
            FloatVifKernel::new(ctx, w as u32, h as u32, bpc, &opts).expect("float_vif kernel")
        });
        let words = self
            .runner
            .run(reference, distorted, |rec, r, d, results| kernel.record(rec, r, d, results, 0));
        let v = features(&kernel.decode(&words), &opts);
        [v[0], v[1], v[2], v[3]]
    }
}

#[test]
fn gpu_float_vif_matches_libvmaf_on_every_clip() {
    let runner = PairRunner::new(FloatVifKernel::RESULT_WORDS);
    let mut gpu = Gpu { runner, kernels: Kernels::default() };
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
