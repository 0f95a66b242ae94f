//! The GPU integer VIF kernels against libvmaf 3.2.0's output: every VIF
//! value of every frame of the shared clips and Netflix's fixtures printed
//! the same (`%.6f`), and every value on the synthetic frames of odd and
//! minimal sizes equal to libvmaf's double bit for bit. The checks are the
//! CPU twin's (`vqscope_tests::vif_parity`), with the sums from the kernels.

use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::vif::gpu::VifKernel;
use vqscope_metrics::vif::{VifFeatures, VifOptions, features};
use vqscope_tests::vif_parity::{
    Backend, check_shared_clips, check_synthetic_frames, check_upstream_fixtures,
};

const WORDS: u32 = VifKernel::RESULT_WORDS;

/// The kernel for the current geometry and options (rebuilt when they
/// change), one submission per frame.
struct Gpu {
    ctx: Arc<GpuContext>,
    submitter: Submitter,
    results: Buffer,
    kernel: Option<((usize, usize, u32), VifOptions, VifKernel)>,
}

impl Gpu {
    fn new() -> Self {
        let ctx = test_context();
        let submitter = Submitter::new(&ctx, 1).expect("submitter");
        let results = Buffer::storage(&ctx, "parity results", u64::from(WORDS) * 8).unwrap();
        Self { ctx, submitter, results, kernel: None }
    }
}

impl Backend for Gpu {
    fn vif(
        &mut self,
        reference: &PlaneView,
        distorted: &PlaneView,
        options: &VifOptions,
    ) -> VifFeatures {
        let geometry = (reference.width, reference.height, reference.bpc);
        if self.kernel.as_ref().is_none_or(|(g, o, _)| *g != geometry || o != options) {
            let (w, h, bpc) = (geometry.0 as u32, geometry.1 as u32, geometry.2);
            let kernel = VifKernel::new(&self.ctx, w, h, bpc, *options).unwrap();
            self.kernel = Some((geometry, *options, kernel));
        }
        let (rb, rd) = upload_plane(&self.ctx, &mut self.submitter, reference).unwrap();
        let (db, dd) = upload_plane(&self.ctx, &mut self.submitter, distorted).unwrap();
        let (_, _, kernel) = self.kernel.as_ref().unwrap();
        let r = DevicePlane { buffer: &rb, desc: rd };
        let d = DevicePlane { buffer: &db, desc: dd };
        let results = &self.results;
        self.submitter
            .run(|rec| {
                rec.fill(results, 0xDEAD_BEEF);
                kernel.record(rec, &r, &d, results, 0)
            })
            .expect("run VIF kernels");
        let bytes =
            download_buffer(&self.ctx, &mut self.submitter, results, u64::from(WORDS) * 8).unwrap();
        let words: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
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
