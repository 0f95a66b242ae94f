//! The GPU `float_ssim` and `float_ms_ssim` kernels against libvmaf 3.2.0's
//! output on every shared clip pair: per frame |ours − libvmaf| ≤ 1e-6, with
//! the largest |Δ| and the printed (`%.6f`) mismatches reported. The check is
//! the CPU twins' (`vqscope_tests::ssim_parity`), with the scores from the
//! kernels instead.

use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, upload_plane};
use vqscope_metrics::ms_ssim::MsSsimScore;
use vqscope_metrics::ms_ssim_gpu::MsSsimKernel;
use vqscope_metrics::ssim::{SsimOptions, SsimScore};
use vqscope_metrics::ssim_gpu::SsimKernel;
use vqscope_tests::ssim_parity::{Backend, check_shared_clips};

/// Both kernels for the current clip's geometry (rebuilt when it changes),
/// recorded into one submission per frame.
struct Gpu {
    ctx: Arc<GpuContext>,
    submitter: Submitter,
    results: Buffer,
    kernels: Option<((usize, usize, u32), SsimKernel, MsSsimKernel)>,
}

const WORDS: u32 = SsimKernel::RESULT_WORDS + MsSsimKernel::RESULT_WORDS;

impl Gpu {
    fn new() -> Self {
        let ctx = test_context();
        let submitter = Submitter::new(&ctx, 1).expect("submitter");
        let results = Buffer::storage(&ctx, "parity results", u64::from(WORDS) * 8).unwrap();
        Self { ctx, submitter, results, kernels: None }
    }
}

impl Backend for Gpu {
    fn score(&mut self, reference: &PlaneView, distorted: &PlaneView) -> (SsimScore, MsSsimScore) {
        let geometry = (reference.width, reference.height, reference.bpc);
        if self.kernels.as_ref().is_none_or(|(g, ..)| *g != geometry) {
            let (w, h, bpc) = (geometry.0 as u32, geometry.1 as u32, geometry.2);
            let ssim = SsimKernel::new(&self.ctx, w, h, bpc, SsimOptions::default()).unwrap();
            let ms_ssim = MsSsimKernel::new(&self.ctx, w, h, bpc).unwrap();
            self.kernels = Some((geometry, ssim, ms_ssim));
        }
        let (_, ssim, ms_ssim) = self.kernels.as_ref().unwrap();
        let (rb, rd) = upload_plane(&self.ctx, &mut self.submitter, reference).unwrap();
        let (db, dd) = upload_plane(&self.ctx, &mut self.submitter, distorted).unwrap();
        let r = DevicePlane { buffer: &rb, desc: rd };
        let d = DevicePlane { buffer: &db, desc: dd };
        let results = &self.results;
        self.submitter
            .run(|rec| {
                rec.fill(results, 0xDEAD_BEEF);
                ssim.record(rec, &r, &d, results, 0)?;
                ms_ssim.record(rec, &r, &d, results, SsimKernel::RESULT_WORDS)
            })
            .expect("run kernels");
        let bytes =
            download_buffer(&self.ctx, &mut self.submitter, results, u64::from(WORDS) * 8).unwrap();
        let words: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        let split = SsimKernel::RESULT_WORDS as usize;
        (SsimKernel::decode(&words[..split]), MsSsimKernel::decode(&words[split..]))
    }
}

#[test]
fn gpu_float_ssim_and_ms_ssim_match_libvmaf_on_every_clip() {
    let mut gpu = Gpu::new();
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
