//! The GPU `ciede` kernel against libvmaf 3.2.0's output on every shared
//! clip pair: per frame |ours − libvmaf| ≤ 1e-6, with the largest |Δ| and
//! the printed (`%.6f`) mismatches reported per clip. The check is the CPU
//! twin's (`vqscope_tests::ciede_parity`), with the scores from the kernel.
//! On the way, the kernel's ΔE map (what the dashboard draws) is checked
//! against the twin's per-pixel values on this real content: the floats
//! may differ only where a libm value lies within a few double ulps of a
//! float rounding boundary, so nearly none may.

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, packed_desc, plane_bytes};
use vqscope_metrics::features::ciede::gpu::CiedeKernel;
use vqscope_metrics::features::ciede::{ChromaReader, delta_e_map, score};
use vqscope_tests::ciede_parity::{Backend, check_shared_clips};
use vqscope_tests::gpu_pair::Kernels;
use vqscope_video::ChromaFormat;

struct Gpu {
    ctx: std::sync::Arc<vqscope_gpu::GpuContext>,
    submitter: Submitter,
    results: Buffer,
    kernels: Kernels<(usize, usize, u32, ChromaFormat), CiedeKernel>,
    /// Pixels compared, and those whose ΔE float differs from the twin's.
    pixels: usize,
    differing: usize,
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
        let map =
            download_buffer(ctx, &mut self.submitter, kernel.delta_e_map(), (w * h * 4) as u64);
        let reader = ChromaReader::new(format, w as u32, h as u32).unwrap();
        let want = delta_e_map(&reader, reference, distorted).unwrap();
        for (g, t) in map.unwrap().chunks_exact(4).zip(want) {
            let g = f32::from_le_bytes(g.try_into().unwrap());
            if g.to_bits() != t.to_bits() {
                self.differing += 1;
                assert!(((g - t) / t).abs() < 1e-5, "ΔE {g:e} far from the twin's {t:e}");
            }
        }
        self.pixels += w * h;
        score(CiedeKernel::decode(&[word]), w as u32, h as u32)
    }
}

#[test]
fn gpu_ciede_matches_libvmaf_on_every_clip() {
    let ctx = test_context();
    let submitter = Submitter::new(&ctx, 1).expect("submitter");
    let results = Buffer::storage(&ctx, "parity results", 8).unwrap();
    let mut gpu =
        Gpu { ctx, submitter, results, kernels: Kernels::default(), pixels: 0, differing: 0 };
    check_shared_clips(&mut gpu);
    println!("ΔE map: {} of {} pixels differ from the twin", gpu.differing, gpu.pixels);
    assert!(gpu.differing * 1_000_000 <= gpu.pixels, "too many ΔE floats differ from the twin");
    assert_no_validation_messages();
}
