//! The GPU `cambi` kernels against libvmaf 3.2.0's own output: the CPU
//! twin's checks (`vqscope_tests::cambi_parity`) with the scores from the
//! kernels instead. Every printed digit of `refs/NAME.{extra,aomctc,models}
//! .json` must match (every third frame and the last, to keep lavapipe's
//! time down; the twin's test covers every frame), and the pinned option
//! sets must give libvmaf's doubles bit for bit.

use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::features::cambi::gpu::CambiKernel;
use vqscope_metrics::features::cambi::{Cambi, CambiOptions, CambiScore};
use vqscope_tests::cambi_parity::{Backend, check_pinned, check_shared_clips};
use vqscope_tests::motion_psnr::Plane;

/// The kernels for the current options and geometry (rebuilt on change).
struct Gpu {
    ctx: Arc<GpuContext>,
    submitter: Submitter,
    kernel: Option<((CambiOptions, usize, usize, u32), CambiKernel)>,
}

impl Backend for Gpu {
    fn score(
        &mut self,
        options: &CambiOptions,
        reference: &Plane,
        distorted: &Plane,
    ) -> CambiScore {
        let key = (*options, distorted.w, distorted.h, distorted.bpc);
        if self.kernel.as_ref().is_none_or(|(k, _)| *k != key) {
            let cambi = Cambi::new(options, key.1, key.2, key.3).expect("cambi setup");
            self.kernel = Some((key, CambiKernel::new(&self.ctx, &cambi).expect("cambi kernel")));
        }
        let kernel = &self.kernel.as_ref().expect("built").1;
        let (ctx, submitter) = (&self.ctx, &mut self.submitter);
        let (r, rd) = upload_plane(ctx, submitter, &reference.view()).unwrap();
        let (d, dd) = upload_plane(ctx, submitter, &distorted.view()).unwrap();
        let (rp, dp) = (DevicePlane { buffer: &r, desc: rd }, DevicePlane { buffer: &d, desc: dd });
        let len = u64::from(kernel.result_words()) * 8;
        let results = Buffer::storage(ctx, "parity results", len).unwrap();
        submitter.run(|rec| kernel.record(rec, &rp, &dp, &results, 0)).expect("run cambi");
        let bytes = download_buffer(ctx, submitter, &results, len).unwrap();
        let words: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        kernel.decode(&words)
    }
}

fn gpu() -> Gpu {
    let ctx = test_context();
    let submitter = Submitter::new(&ctx, 1).expect("submitter");
    Gpu { ctx, submitter, kernel: None }
}

#[test]
fn gpu_cambi_matches_libvmaf_on_every_clip() {
    check_shared_clips(&mut gpu(), 3);
    assert_no_validation_messages();
}

#[test]
fn gpu_cambi_matches_libvmaf_under_other_options() {
    check_pinned(&mut gpu());
    assert_no_validation_messages();
}
