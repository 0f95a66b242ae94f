//! The GPU bicubic scale (`vqscope_metrics::scale::GpuScale`) against its
//! CPU twin (`vqscope_video::scale::FrameScale`, itself held to ffmpeg's
//! bytes in video/tests/scale_ffmpeg.rs): random frames of random sizes,
//! growing and shrinking, odd sizes, tiny ones, one axis unchanged, in
//! 4:2:0, 4:2:2, 4:4:4 and gray at 8 bits, 4:2:0, 4:4:4 and gray at 10 and
//! 4:2:0 at 12 bits; source
//! planes at junk-led offsets with padded strides. Every output byte must
//! equal the twin's (the last word's bytes past a plane are 0), no byte
//! outside the output planes may be written, at every lavapipe subgroup
//! size, with no validation message.

use vqscope_gpu::testing::{
    Rng, assert_no_validation_messages, at_every_lavapipe_subgroup_size, test_context,
};
use vqscope_gpu::{Buffer, Submitter, download_buffer};
use vqscope_metrics::device::{DevicePlane, PlaneDesc, packed_desc};
use vqscope_metrics::scale::GpuScale;
use vqscope_metrics::testing::{HostPlane, POISON, upload_planes};
use vqscope_video::scale::FrameScale;
use vqscope_video::testing::random_frame;
use vqscope_video::{ChromaFormat, Frame, Geometry, PixelFormat};

/// Plane `i` of `frame` as a host plane whose rows are padded with junk.
fn host_plane(rng: &mut Rng, frame: &Frame, i: usize) -> HostPlane {
    let (w, h) = frame.geometry.plane_size(i);
    let (w, h) = (w as usize, h as usize);
    let stride = w + rng.below(3) as usize;
    let bpc = frame.geometry.format.bit_depth;
    let samples = frame.plane_samples(i);
    let mut padded = Vec::with_capacity(stride * h);
    for row in samples.chunks_exact(w) {
        padded.extend_from_slice(row);
        padded.extend((w..stride).map(|_| rng.below(1 << bpc) as u16));
    }
    HostPlane { width: w, height: h, stride, bpc, samples: padded }
}

fn sizes(rng: &mut Rng) -> Vec<((u32, u32), (u32, u32))> {
    let mut sizes = vec![
        ((3, 3), (7, 5)),
        ((7, 5), (3, 3)),
        ((64, 36), (64, 71)),
        ((97, 41), (13, 41)),
        ((160, 90), (640, 360)),
        ((640, 360), (161, 91)),
        ((640, 2), (23, 2)),
    ];
    for _ in 0..5 {
        let mut side = || rng.below(300) as u32 + 2;
        sizes.push(((side(), side()), (side(), side())));
    }
    sizes
}

#[test]
fn gpu_scale_matches_twin() {
    if !at_every_lavapipe_subgroup_size("gpu_scale_matches_twin") {
        return;
    }
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5CA1_E6B0);
    let formats = [
        (ChromaFormat::Yuv420, 8),
        (ChromaFormat::Yuv422, 8),
        (ChromaFormat::Yuv444, 8),
        (ChromaFormat::Mono, 8),
        (ChromaFormat::Yuv420, 10),
        (ChromaFormat::Yuv444, 10),
        (ChromaFormat::Mono, 10),
        (ChromaFormat::Yuv420, 12),
    ];
    for (chroma, bit_depth) in formats {
        let format = PixelFormat { chroma, bit_depth };
        for ((sw, sh), (dw, dh)) in sizes(&mut rng) {
            let from = Geometry { width: sw, height: sh, format };
            let to = Geometry { width: dw, height: dh, format };
            let what = format!("{} {sw}x{sh} -> {dw}x{dh}", format.ffmpeg_name());
            let frame = random_frame(&mut rng, from);
            let scale = FrameScale::new(from, to).unwrap();
            let want = scale.scale(&frame);
            let n = chroma.plane_count();
            let hosts: Vec<HostPlane> = (0..n).map(|i| host_plane(&mut rng, &frame, i)).collect();
            let refs: Vec<&HostPlane> = hosts.iter().collect();
            let (src_buffer, src_descs) = upload_planes(&ctx, &mut submitter, &mut rng, &refs);
            // Output planes packed, each after one word left alone.
            let mut dst_descs: Vec<PlaneDesc> = Vec::new();
            let mut end = 0u32;
            for i in 0..n {
                let (w, h) = to.plane_size(i);
                let desc = packed_desc(w as usize, h as usize, bit_depth, end + 4);
                end = desc.offset + (to.plane_bytes(i) as u32).div_ceil(4) * 4;
                dst_descs.push(desc);
            }
            let len = u64::from(end + 4);
            let dst_buffer = Buffer::storage(&ctx, "scaled planes", len).unwrap();
            let gpu = GpuScale::new(&ctx, scale.clone()).unwrap();
            let src: Vec<DevicePlane> =
                src_descs.iter().map(|&desc| DevicePlane { buffer: &src_buffer, desc }).collect();
            let dst: Vec<DevicePlane> =
                dst_descs.iter().map(|&desc| DevicePlane { buffer: &dst_buffer, desc }).collect();
            submitter
                .run(|rec| {
                    rec.fill(&dst_buffer, POISON);
                    rec.barrier();
                    gpu.record(rec, &src, &dst)
                })
                .unwrap();
            let bytes = download_buffer(&ctx, &mut submitter, &dst_buffer, len).unwrap();
            let mut expect = POISON.to_le_bytes().repeat(len as usize / 4);
            for (i, desc) in dst_descs.iter().enumerate() {
                let at = desc.offset as usize;
                let plane = want.plane_bytes(i);
                let padded = plane.len().div_ceil(4) * 4;
                expect[at..at + padded].fill(0);
                expect[at..at + plane.len()].copy_from_slice(plane);
            }
            if let Some(at) = bytes.iter().zip(&expect).position(|(a, b)| a != b) {
                panic!("{what}: byte {at} is {}, the twin's {}", bytes[at], expect[at]);
            }
        }
    }
    assert_no_validation_messages();
}

/// GPU milliseconds of the scale pass alone (both passes, all planes) at
/// the sizes ladders scale most: 1080p to 4K and 720p to 1080p, 8-bit and
/// 10-bit 4:2:0. The output is checked against the twin once.
#[test]
#[ignore = "timing; run on a real GPU (or lavapipe, slowly)"]
fn scale_timing() {
    let ctx = test_context();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut rng = Rng(0x5CA1_7111);
    let cases = [((1920, 1080), (3840, 2160)), ((1280, 720), (1920, 1080))];
    for bit_depth in [8, 10] {
        let format = PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth };
        for ((sw, sh), (dw, dh)) in cases {
            let from = Geometry { width: sw, height: sh, format };
            let to = Geometry { width: dw, height: dh, format };
            let frame = random_frame(&mut rng, from);
            let scale = FrameScale::new(from, to).unwrap();
            let hosts: Vec<HostPlane> = (0..3).map(|i| host_plane(&mut rng, &frame, i)).collect();
            let refs: Vec<&HostPlane> = hosts.iter().collect();
            let (src_buffer, src_descs) = upload_planes(&ctx, &mut submitter, &mut rng, &refs);
            let mut dst_descs = Vec::new();
            let mut end = 0u32;
            for i in 0..3 {
                let (w, h) = to.plane_size(i);
                dst_descs.push(packed_desc(w as usize, h as usize, bit_depth, end));
                end += (to.plane_bytes(i) as u32).div_ceil(4) * 4;
            }
            let dst_buffer = Buffer::storage(&ctx, "scaled planes", u64::from(end)).unwrap();
            let gpu = GpuScale::new(&ctx, scale.clone()).unwrap();
            let src: Vec<DevicePlane> =
                src_descs.iter().map(|&desc| DevicePlane { buffer: &src_buffer, desc }).collect();
            let dst: Vec<DevicePlane> =
                dst_descs.iter().map(|&desc| DevicePlane { buffer: &dst_buffer, desc }).collect();
            let (median, min, max) =
                vqscope_gpu::testing::frame_ms(&ctx, &mut submitter, 20, |rec| {
                    gpu.record(rec, &src, &dst)
                });
            let bytes = download_buffer(&ctx, &mut submitter, &dst_buffer, u64::from(end)).unwrap();
            let want = scale.scale(&frame);
            for (i, desc) in dst_descs.iter().enumerate() {
                let plane = want.plane_bytes(i);
                let at = desc.offset as usize;
                assert!(bytes[at..at + plane.len()] == *plane, "plane {i} differs from the twin");
            }
            println!(
                "scale {sw}x{sh} -> {dw}x{dh} {} on {}: median {median:.3} ms (min {min:.3}, max \
                 {max:.3})",
                format.ffmpeg_name(),
                ctx.info().name
            );
        }
    }
}
