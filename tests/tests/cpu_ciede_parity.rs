//! The CPU twin of `ciede` against libvmaf 3.2.0's own output on every
//! shared clip pair: per frame |ours − libvmaf| ≤ 1e-6 (the check itself,
//! shared with the GPU test, is in `vqscope_tests::ciede_parity`).

use vqscope_metrics::PlaneView;
use vqscope_metrics::features::ciede::ciede2000;
use vqscope_tests::ciede_parity::{Backend, check_shared_clips};
use vqscope_video::ChromaFormat;

struct Cpu;

impl Backend for Cpu {
    fn score(
        &mut self,
        format: ChromaFormat,
        reference: &[PlaneView; 3],
        distorted: &[PlaneView; 3],
    ) -> f64 {
        ciede2000(format, reference, distorted).expect("ciede")
    }
}

#[test]
fn ciede_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut Cpu);
}
