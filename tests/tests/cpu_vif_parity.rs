//! The CPU twin of integer VIF against libvmaf 3.2.0's printed output (the
//! checks, and what they compare, are in `vqscope_tests::vif_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::vif::{VifFeatures, VifOptions, vif_frame};
use vqscope_tests::vif_parity::{
    Backend, check_shared_clips, check_synthetic_frames, check_upstream_fixtures,
};

struct Cpu;

impl Backend for Cpu {
    fn vif(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &VifOptions,
    ) -> VifFeatures {
        vif_frame(reference, distorted, options).expect("vif")
    }
}

#[test]
fn vif_matches_libvmaf_on_shared_clips() {
    check_shared_clips(&mut Cpu);
}

#[test]
fn vif_matches_libvmaf_on_upstream_fixtures() {
    check_upstream_fixtures(&mut Cpu);
}

#[test]
fn vif_matches_libvmaf_bit_exactly_on_synthetic_frames() {
    check_synthetic_frames(&mut Cpu);
}
