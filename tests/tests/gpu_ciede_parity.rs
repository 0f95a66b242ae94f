//! The GPU `ciede` kernel against libvmaf 3.2.0's output on every shared
//! clip pair: per frame |ours − libvmaf| ≤ 1e-6, with the largest |Δ| and
//! the printed (`%.6f`) mismatches reported per clip. The check is the CPU
//! twin's (`vqscope_tests::ciede_parity`), with the scores from the kernel.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, packed_desc, plane_bytes};
use vqscope_metrics::features::ciede::gpu::CiedeKernel;
use vqscope_metrics::features::ciede::score;
use vqscope_tests::ciede_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::Kernels;
use vqscope_video::ChromaFormat;

struct Gpu {
    ctx: std::sync::Arc<vqscope_gpu::GpuContext>,
    submitter: Submitter,
    results: Buffer,
    kernels: Kernels<(usize, usize, u32, ChromaFormat), CiedeKernel>,
}

/// One side's three planes packed into one buffer, as the frame upload
/// leaves them; returns the buffer and each plane's descriptor.
fn upload_side(
    ctx: &std::sync::Arc<vqscope_gpu::GpuContext>,
    submitter: &mut Submitter,
    planes: &[PlaneView; 3],
) -> (Buffer, Vec<vqscope_metrics::device::PlaneDesc>) {
    let mut bytes = Vec::new();
    let mut descs = Vec::new();
    for p in planes {
        descs.push(packed_desc(p.width, p.height, p.bpc, bytes.len() as u32));
        bytes.extend(plane_bytes(p));
    }
    (upload_buffer(ctx, submitter, "clip planes", &bytes).unwrap(), descs)
}

impl Backend for Gpu {
    fn score(
        &mut self,
        format: ChromaFormat,
        reference: &[PlaneView; 3],
        distorted: &[PlaneView; 3],
    ) -> f64 {
        let (w, h, bpc) = (reference[0].width, reference[0].height, reference[0].bpc);
        let ctx = &self.ctx;
        let kernel = self.kernels.get((w, h, bpc, format), || {
            CiedeKernel::new(ctx, w as u32, h as u32, bpc, format).unwrap()
        });
        let (rb, rd) = upload_side(ctx, &mut self.submitter, reference);
        let (db, dd) = upload_side(ctx, &mut self.submitter, distorted);
        let r: Vec<DevicePlane> =
            rd.iter().map(|&desc| DevicePlane { buffer: &rb, desc }).collect();
        let d: Vec<DevicePlane> =
            dd.iter().map(|&desc| DevicePlane { buffer: &db, desc }).collect();
        let results = &self.results;
        self.submitter
            .run(|rec| {
                rec.fill(results, 0xDEAD_BEEF);
                rec.barrier();
                kernel.record(rec, &r, &d, results, 0)
            })
            .expect("run the kernel");
        let bytes = download_buffer(ctx, &mut self.submitter, results, 8).unwrap();
        let word = i64::from_le_bytes(bytes[..8].try_into().unwrap());
        score(CiedeKernel::decode(&[word]), w as u32, h as u32)
    }
}

#[test]
fn gpu_ciede_matches_libvmaf_on_every_clip() {
    let ctx = test_context();
    let submitter = Submitter::new(&ctx, 1).expect("submitter");
    let results = Buffer::storage(&ctx, "parity results", 8).unwrap();
    let mut gpu = Gpu { ctx, submitter, results, kernels: Kernels::default() };
    check_shared_clips(&mut gpu);
    assert_no_validation_messages();
}
