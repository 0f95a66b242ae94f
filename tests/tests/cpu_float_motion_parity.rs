//! The CPU twin of `float_motion` against libvmaf 3.2.0's own output on
//! every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 for `motion`,
//! `motion2` and `motion3` (the check, shared with the GPU test, is in
//! `vqscope_tests::float_motion_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_motion::{FloatMotionParams, motion_score};
use vqscope_tests::float_motion_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn score(&mut self, prev: &PlaneView, cur: &PlaneView) -> f64 {
        motion_score(&[*prev], &[*cur], &FloatMotionParams::default()).expect("float_motion")
    }
}

#[test]
fn float_motion_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
