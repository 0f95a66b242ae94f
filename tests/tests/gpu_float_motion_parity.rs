//! The GPU `float_motion` kernels against libvmaf 3.2.0's output on every
//! shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 for `motion`,
//! `motion2` and `motion3`, with the largest |Δ| and the printed (`%.6f`)
//! mismatches reported. The check is the CPU twin's
//! (`vqscope_tests::float_motion_parity`), with the raw scores from the
//! kernels instead.

use vqscope_gpu::testing::assert_no_validation_messages;
use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_motion::gpu::FloatMotionKernel;
use vqscope_metrics::features::float_motion::{FloatMotionParams, frame_score};
use vqscope_tests::float_motion_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::{Kernels, PairRunner};

/// The luma kernel for the current clip's geometry; the previous frame
/// goes in as the pair's "reference", the current one as its "distorted".
struct Gpu {
    runner: PairRunner,
    kernels: Kernels<(usize, usize, u32), FloatMotionKernel>,
}

impl Backend for Gpu {
    fn score(&mut self, prev: &PlaneView, cur: &PlaneView) -> f64 {
        let (w, h, bpc) = (prev.width, prev.height, prev.bpc);
        let ctx = &self.runner.ctx;
        let kernel = self.kernels.get((w, h, bpc), || {
            let taps = FloatMotionParams::default().taps();
            FloatMotionKernel::new(ctx, w as u32, h as u32, bpc, taps, false).unwrap()
        });
        let words =
            self.runner.run(prev, cur, |rec, p, c, results| kernel.record(rec, *p, *c, results, 0));
        frame_score(&[kernel.decode(&words)], &[(w, h)])
    }
}

#[test]
fn gpu_float_motion_matches_libvmaf_on_every_clip() {
    let mut gpu = Gpu { runner: PairRunner::new(1), kernels: Kernels::default() };
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
