//! The CPU twin of `float_vif` against libvmaf 3.2.0's float build on every
//! shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 for `vif_scale0..3`
//! (the check itself, shared with the GPU test, is in
//! `vqscope_tests::float_vif_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_vif::{FloatVifOptions, float_vif};
use vqscope_tests::float_vif_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> [f64; 4] {
        let v = float_vif(reference, distorted, &FloatVifOptions::default()).expect("float_vif");
        [v[0], v[1], v[2], v[3]]
    }
}

#[test]
fn float_vif_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
