//! The CPU twin of `float_adm` against libvmaf 3.2.0's float build on every
//! shared clip pair (the check is `vqscope_tests::float_adm_parity`, shared
//! with the GPU kernels' test).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::float_adm::{FloatAdmOptions, FloatAdmScores, float_adm_frame};
use vqscope_tests::float_adm_parity::{Backend, check_shared_clips};

struct Cpu;

impl Backend for Cpu {
    fn float_adm(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &FloatAdmOptions,
    ) -> FloatAdmScores {
        float_adm_frame(reference, distorted, options).expect("float_adm")
    }
}

#[test]
fn float_adm_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
