//! Frames read while an upload ring is open lie in its host memory and go
//! to the device by a device copy, not through staging: their planes must
//! land exactly where and as the staging path puts a heap copy of the same
//! frame, and a block must not be refilled while a copy from it may be
//! pending.

mod common;

use std::sync::Arc;

use common::{bare, bytes_of, frame_planes, write_temp, y4m_bytes};
use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_gpu::{Submitter, download_buffer};
use vqscope_video::{DeviceFramePair, Frame, FrameUploader, open_input};

/// A y4m header, its plane sizes and depth.
type Case = (&'static str, Vec<(u32, u32)>, u32);

/// Plane byte counts that are not multiples of 4, so the device layout's
/// word padding differs from the frame's packing.
fn cases() -> Vec<Case> {
    vec![
        ("YUV4MPEG2 W35 H19 F25:1 C420jpeg", vec![(35, 19), (18, 10), (18, 10)], 8),
        ("YUV4MPEG2 W21 H9 F25:1 C422p10", vec![(21, 9), (11, 9), (11, 9)], 10),
    ]
}

/// The bytes of each plane of `frame` as the device holds them.
fn device_planes(bytes: &[u8], up: &DeviceFramePair, distorted: bool) -> Vec<Vec<u8>> {
    let frame = if distorted { &up.distorted } else { &up.reference };
    frame.planes[..frame.plane_count]
        .iter()
        .map(|p| {
            let len = (p.width * p.height * p.bytes_per_sample) as usize;
            bytes[p.offset as usize..p.offset as usize + len].to_vec()
        })
        .collect()
}

#[test]
fn host_memory_frames_reach_the_device_as_staged_heap_frames_do() {
    let ctx = test_context();
    for (header, dims, depth) in cases() {
        let frames = 7;
        let path = write_temp("host_upload.y4m", &y4m_bytes(header, &dims, depth, frames, &bare));
        let geometry = open_input(&path, None).unwrap().info().geometry;
        let mut ring = FrameUploader::new(&ctx, geometry, 2).unwrap();
        let mut submitter = Submitter::new(&ctx, 2).unwrap();
        // Opened after the ring: its frames are read into the ring's pool.
        let mut source = open_input(&path, None).unwrap();
        let mut previous: Option<Arc<_>> = None;
        for f in 0..u64::from(frames) {
            let frame = source.next_frame().unwrap().expect("frame");
            let block = frame.data.host_block().cloned().expect("read into host memory");
            let heap = Frame { data: frame.data.to_vec().into(), ..frame.clone() };
            assert!(heap.data.host_block().is_none());
            let mut up = None;
            let ticket = submitter
                .submit(|rec| {
                    up = Some(ring.upload_frames(rec, f, &frame, &heap)?);
                    Ok(())
                })
                .unwrap();
            let up = up.unwrap();
            // Handed back before the copy is known to be done: the next
            // frame must not be read into the same block.
            frame.recycle();
            if let Some(earlier) = &previous {
                assert!(!Arc::ptr_eq(earlier, &block), "frame {f} reused a block still held");
            }
            submitter.wait(ticket).unwrap();
            let slot = ring.slot_buffer(up.slot);
            let bytes = download_buffer(&ctx, &mut submitter, slot, slot.size()).unwrap();
            let expected: Vec<Vec<u8>> = frame_planes(&dims, f as u32, depth)
                .iter()
                .map(|p| bytes_of(std::slice::from_ref(p), depth))
                .collect();
            assert_eq!(device_planes(&bytes, &up, false), expected, "{header}: frame {f}, host");
            assert_eq!(device_planes(&bytes, &up, true), expected, "{header}: frame {f}, staged");
            previous = Some(block);
        }
        drop(ring);
        std::fs::remove_file(&path).ok();
    }
    assert_no_validation_messages();
}

/// A picture decoded on the device stays there: its planes (made from NV12
/// or P010 by the device pass, here from random pictures at an odd cropped
/// size) must land in the slot exactly as a heap copy of the host twin's
/// planes does, read back the same on the host, and be kept alive by the
/// slot while its copy may be pending (the frame is dropped before the
/// wait; validation reports a buffer destroyed while in use).
#[test]
fn device_planes_reach_the_slot_as_heap_frames_do() {
    device_planes_reach_the_slot(1);
    device_planes_reach_the_slot(2);
}

/// [`device_planes_reach_the_slot_as_heap_frames_do`] for 8-bit (NV12,
/// `bytes_per_sample` 1) or 10-bit (P010, 2) pictures.
fn device_planes_reach_the_slot(bytes_per_sample: u32) {
    use vqscope_gpu::{Nv12Picture, upload_buffer};
    use vqscope_video::bitstream::Crop;
    use vqscope_video::device_decode::{Nv12ToPlanes, crop};
    use vqscope_video::frame_data::FrameData;
    use vqscope_video::{ChromaFormat, ColorInfo, Geometry, PixelFormat};

    let ctx = test_context();
    let (coded_w, coded_h) = (64u32, 48u32);
    let window = Crop { left: 2, right: 9, top: 4, bottom: 3 };
    let (w, h) = (coded_w - 11, coded_h - 7); // 53 x 41: odd planes, chroma rounds up
    let bit_depth = if bytes_per_sample == 2 { 10 } else { 8 };
    let geometry = Geometry {
        width: w,
        height: h,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth },
    };
    let coded = ((coded_w, coded_h), bytes_per_sample);
    let pass = Nv12ToPlanes::new(&ctx).unwrap();
    let mut ring = FrameUploader::new(&ctx, geometry, 2).unwrap();
    let mut submitter = Submitter::new(&ctx, 2).unwrap();
    let mut seed = 0x9e37_79b9_u32;
    for f in 0..3u64 {
        let nv12: Vec<u8> = (0..coded_w * coded_h * 3 / 2 * bytes_per_sample)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 24) as u8
            })
            .collect();
        let luma = (coded_w * coded_h * bytes_per_sample) as usize;
        let host = Nv12Picture {
            width: coded_w,
            height: coded_h,
            bytes_per_sample,
            luma: nv12[..luma].to_vec(),
            chroma: nv12[luma..].to_vec(),
        };
        let want = crop(&host, &window, (w, h));
        let expected = vec![want.y.clone(), want.u.clone(), want.v.clone()];
        let source = upload_buffer(&ctx, &mut submitter, "nv12", &nv12).unwrap();
        let mut planes = None;
        submitter
            .run(|rec| {
                planes = Some(pass.record(rec, &source, coded, &window, (w, h))?);
                Ok(())
            })
            .unwrap();
        let color = ColorInfo::default();
        let on_device =
            Frame { geometry, color, index: f, data: FrameData::device(Arc::new(planes.unwrap())) };
        let heap = Frame { geometry, color, index: f, data: expected.concat().into() };
        let mut up = None;
        let ticket = submitter
            .submit(|rec| {
                up = Some(ring.upload_frames(rec, f, &on_device, &heap)?);
                Ok(())
            })
            .unwrap();
        let up = up.unwrap();
        // Dropped before the copy is known to be done: the slot must hold
        // the planes.
        drop(on_device);
        submitter.wait(ticket).unwrap();
        let slot = ring.slot_buffer(up.slot);
        let bytes = download_buffer(&ctx, &mut submitter, slot, slot.size()).unwrap();
        assert_eq!(device_planes(&bytes, &up, false), expected, "frame {f}, device planes");
        assert_eq!(device_planes(&bytes, &up, true), expected, "frame {f}, staged heap");
    }
    // Read on the host, the planes come back as the frame's bytes.
    let mut planes = None;
    // Every byte 0x40: words 0x4040, which hold the value 0x101 in 10 bits.
    let nv12 = vec![0x40u8; (coded_w * coded_h * 3 / 2 * bytes_per_sample) as usize];
    let source = upload_buffer(&ctx, &mut submitter, "nv12", &nv12).unwrap();
    submitter
        .run(|rec| {
            planes = Some(pass.record(rec, &source, coded, &window, (w, h))?);
            Ok(())
        })
        .unwrap();
    let data = FrameData::device(Arc::new(planes.unwrap()));
    assert_eq!(data.len(), geometry.frame_bytes());
    let sample: &[u8] = if bytes_per_sample == 2 { &[0x01, 0x01] } else { &[0x40] };
    assert!(data.chunks(sample.len()).all(|b| b == sample));
    assert!(data.device_planes().is_some());
    let mut copy = data.clone();
    copy[0] = 9;
    assert!(copy.device_planes().is_none() && copy[0] == 9 && data[0] == sample[0]);
    drop(ring);
    assert_no_validation_messages();
}
