//! The GPU `psnr_hvs` kernels against libvmaf 3.2.0's output on every shared
//! clip pair: per frame |ours − libvmaf| ≤ 1e-6 for all four outputs, with
//! the largest |Δ| and the printed (`%.6f`) mismatches reported. The check
//! is the CPU twin's (`vqscope_tests::psnr_hvs_parity`), with the plane sums
//! from the kernels instead.

use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::device::{DevicePlane, PlaneDesc, upload_plane};
use vqscope_metrics::features::psnr_hvs::PsnrHvsScore;
use vqscope_metrics::features::psnr_hvs::gpu::PsnrHvsKernel;
use vqscope_tests::motion_psnr::Plane;
use vqscope_tests::psnr_hvs_parity::{Backend, check_shared_clips};
use vqscope_video::{ChromaFormat, Geometry, PixelFormat};

/// The kernel for the current clip's geometry (rebuilt when it changes).
struct Gpu {
    ctx: Arc<GpuContext>,
    submitter: Submitter,
    results: Buffer,
    kernel: Option<(Geometry, PsnrHvsKernel)>,
}

impl Backend for Gpu {
    fn score(&mut self, reference: &[Plane; 3], distorted: &[Plane; 3]) -> PsnrHvsScore {
        let (w, h, bpc) = (reference[0].w as u32, reference[0].h as u32, reference[0].bpc);
        // The shared clips are all 4:2:0.
        let chroma = ChromaFormat::Yuv420;
        let g = Geometry { width: w, height: h, format: PixelFormat { chroma, bit_depth: bpc } };
        if self.kernel.as_ref().is_none_or(|(k, _)| *k != g) {
            self.kernel = Some((g, PsnrHvsKernel::new(&self.ctx, &g).expect("psnr_hvs kernel")));
        }
        let kernel = &self.kernel.as_ref().expect("built").1;
        let mut up = |p: &Plane| upload_plane(&self.ctx, &mut self.submitter, &p.view()).unwrap();
        let r: Vec<_> = reference.iter().map(&mut up).collect();
        let d: Vec<_> = distorted.iter().map(&mut up).collect();
        let (rp, dp): (Vec<_>, Vec<_>) =
            (r.iter().map(device_plane).collect(), d.iter().map(device_plane).collect());
        let results = &self.results;
        self.submitter
            .run(|rec| {
                rec.fill(results, 0xDEAD_BEEF);
                rec.barrier();
                kernel.record(rec, &rp, &dp, results, 0, None)
            })
            .expect("run psnr_hvs");
        let bytes = download_buffer(&self.ctx, &mut self.submitter, results, 24).unwrap();
        let words: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        kernel.decode(&words)
    }
}

/// An uploaded plane as the kernel takes it.
fn device_plane((buffer, desc): &(Buffer, PlaneDesc)) -> DevicePlane<'_> {
    DevicePlane { buffer, desc: *desc }
}

#[test]
fn gpu_psnr_hvs_matches_libvmaf_on_every_clip() {
    let ctx = test_context();
    let submitter = Submitter::new(&ctx, 1).expect("submitter");
    let words = u64::from(PsnrHvsKernel::RESULT_WORDS) * 8;
    let results = Buffer::storage(&ctx, "parity results", words).unwrap();
    check_shared_clips(&mut Gpu { ctx, submitter, results, kernel: None });
    assert_no_validation_messages();
}
