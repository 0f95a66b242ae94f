//! The GPU motion and PSNR kernels against libvmaf 3.2.0's printed output:
//! the kernels' SADs and SSEs go through the same host scoring as the CPU
//! twins' (`MotionScorer`, `PsnrSetup`), and every per-frame
//! `integer_motion`, `integer_motion2`, `integer_motion3`,
//! `VMAF_integer_feature_motion_sad_score` and `psnr_y/cb/cr` of every
//! shared clip pair and upstream fixture must equal libvmaf's `%.6f` digits.

use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Buffer, GpuContext, Submitter, download_buffer};
use vqscope_metrics::device::{DevicePlane, PlaneDesc, upload_plane};
use vqscope_metrics::features::motion::gpu::MotionKernel;
use vqscope_metrics::features::psnr::ChromaLayout;
use vqscope_metrics::features::psnr::gpu::PsnrKernel;
use vqscope_tests::motion_psnr::{
    Backend, Fixture, Plane, check_fixture, check_shared_clips, check_v1_options,
};

/// The sums from the GPU kernels; kernels are built for the first frame's
/// geometry and rebuilt when it changes (a new clip).
struct Gpu {
    ctx: Arc<GpuContext>,
    submitter: Submitter,
    motion: Option<((usize, usize, u32), MotionKernel)>,
    psnr: Option<((usize, usize, u32, ChromaLayout), PsnrKernel)>,
}

impl Gpu {
    fn new() -> Self {
        let ctx = test_context();
        let submitter = Submitter::new(&ctx, 1).expect("submitter");
        Self { ctx, submitter, motion: None, psnr: None }
    }

    fn upload<'a>(
        &mut self,
        planes: impl IntoIterator<Item = &'a Plane>,
    ) -> Vec<(Buffer, PlaneDesc)> {
        planes
            .into_iter()
            .map(|p| upload_plane(&self.ctx, &mut self.submitter, &p.view()).expect("upload"))
            .collect()
    }

    /// Records with `record` into a poisoned result buffer, returns `n` words.
    fn results(
        &mut self,
        n: u32,
        record: impl FnOnce(&mut vqscope_gpu::Recorder<'_>, &Buffer) -> vqscope_gpu::Result<()>,
    ) -> Vec<i64> {
        let len = u64::from(n) * 8;
        let results = Buffer::storage(&self.ctx, "parity results", len).expect("results");
        self.submitter
            .run(|rec| {
                rec.fill(&results, 0xDEAD_BEEF);
                rec.barrier();
                record(rec, &results)
            })
            .expect("run kernel");
        let bytes = download_buffer(&self.ctx, &mut self.submitter, &results, len).expect("read");
        bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

impl Backend for Gpu {
    fn sad(&mut self, prev: &Plane, cur: &Plane) -> u64 {
        let key = (cur.w, cur.h, cur.bpc);
        if self.motion.as_ref().is_none_or(|(k, _)| *k != key) {
            let kernel = MotionKernel::new(&self.ctx, cur.w as u32, cur.h as u32, cur.bpc);
            self.motion = Some((key, kernel.expect("motion kernel")));
        }
        let planes = self.upload([prev, cur]);
        let kernel = self.motion.take().expect("kernel");
        let words = self.results(MotionKernel::RESULT_WORDS, |rec, results| {
            let prev = DevicePlane { buffer: &planes[0].0, desc: planes[0].1 };
            let cur = DevicePlane { buffer: &planes[1].0, desc: planes[1].1 };
            kernel.1.record(rec, prev, cur, results, 0)
        });
        self.motion = Some(kernel);
        MotionKernel::decode(&words)
    }

    fn sse(&mut self, layout: ChromaLayout, reference: &[Plane], distorted: &[Plane]) -> [u64; 3] {
        let luma = &reference[0];
        let key = (luma.w, luma.h, luma.bpc, layout);
        if self.psnr.as_ref().is_none_or(|(k, _)| *k != key) {
            let kernel = PsnrKernel::new(&self.ctx, luma.w as u32, luma.h as u32, luma.bpc, layout);
            self.psnr = Some((key, kernel.expect("psnr kernel")));
        }
        let r = self.upload(reference);
        let d = self.upload(distorted);
        let kernel = self.psnr.take().expect("kernel");
        let words = self.results(PsnrKernel::RESULT_WORDS, |rec, results| {
            kernel.1.record(rec, &device_planes(&r), &device_planes(&d), results, 0)
        });
        self.psnr = Some(kernel);
        PsnrKernel::decode(&words)
    }
}

fn device_planes(uploaded: &[(Buffer, PlaneDesc)]) -> Vec<DevicePlane<'_>> {
    uploaded.iter().map(|(buffer, desc)| DevicePlane { buffer, desc: *desc }).collect()
}

#[test]
fn shared_clips_match_libvmaf() {
    check_shared_clips(&mut Gpu::new());
    assert_no_validation_messages();
}

#[test]
fn upstream_src01_10bit_matches_libvmaf() {
    check_fixture(&mut Gpu::new(), Fixture::Src01TenBit);
    assert_no_validation_messages();
}

#[test]
fn upstream_sparks_10bit_matches_libvmaf() {
    check_fixture(&mut Gpu::new(), Fixture::SparksTenBit);
    assert_no_validation_messages();
}

#[test]
fn upstream_q160x90_8bit_matches_libvmaf() {
    check_fixture(&mut Gpu::new(), Fixture::Q160x90EightBit);
    assert_no_validation_messages();
}

#[test]
fn v1_motion_options_match_libvmaf() {
    check_v1_options(&mut Gpu::new());
    assert_no_validation_messages();
}
