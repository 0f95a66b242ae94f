//! `vqscope bench scale`: GPU milliseconds of `--scale-distorted`'s scale
//! pass alone (both passes over every plane, [`GpuScale`]) at the sizes
//! ladders scale most, 720p to 1080p and 1080p to 4K, 8-bit and 10-bit
//! 4:2:0: `frames` scales of one frame already on the GPU recorded back to
//! back in one submission, a timestamp after each. The result is checked
//! against the CPU twin once per case, so a fast wrong kernel cannot pass.

use std::sync::Arc;

use anyhow::{Result, bail};
use vqscope_gpu::{Buffer, ContextOptions, GpuContext, Submitter, download_buffer, upload_buffer};
use vqscope_metrics::device::{DevicePlane, packed_desc};
use vqscope_metrics::scale::GpuScale;
use vqscope_video::scale::FrameScale;
use vqscope_video::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat};

use crate::output::outln;

/// (from, to) sizes measured.
const CASES: [((u32, u32), (u32, u32)); 2] =
    [((1280, 720), (1920, 1080)), ((1920, 1080), (3840, 2160))];

pub fn run(frames: u64) -> Result<()> {
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    let frames = frames.clamp(2, 1000) as u32;
    outln!("device: {} ({frames} scales per case, 4:2:0)", ctx.info().name)?;
    outln!("{:<24} {:>6} {:>10} {:>10} {:>10}", "scale", "bits", "median ms", "min", "max")?;
    let mut submitter = Submitter::new(&ctx, 1)?;
    for bit_depth in [8, 10] {
        let format = PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth };
        for ((sw, sh), (dw, dh)) in CASES {
            let from = Geometry { width: sw, height: sh, format };
            let to = Geometry { width: dw, height: dh, format };
            let frame = test_frame(from);
            let scale = FrameScale::new(from, to)?;
            let (src_buffer, src) = upload_packed(&ctx, &mut submitter, &frame)?;
            let (dst_len, dst) = packed_layout(to);
            let dst_buffer = Buffer::storage(&ctx, "scaled planes", dst_len)?;
            let gpu = GpuScale::new(&ctx, scale.clone())?;
            let planes = |buffer, descs: &[_]| -> Vec<DevicePlane<'_>> {
                descs.iter().map(|&desc| DevicePlane { buffer, desc }).collect()
            };
            let (src, dst_planes) = (planes(&src_buffer, &src), planes(&dst_buffer, &dst));
            let (median, min, max) =
                vqscope_gpu::testing::frame_ms(&ctx, &mut submitter, frames, |rec| {
                    gpu.record(rec, &src, &dst_planes)
                });
            let bytes = download_buffer(&ctx, &mut submitter, &dst_buffer, dst_len)?;
            let want = scale.scale(&frame);
            for (i, desc) in dst.iter().enumerate() {
                let plane = want.plane_bytes(i);
                let at = desc.offset as usize;
                if bytes[at..at + plane.len()] != *plane {
                    bail!("{sw}x{sh} -> {dw}x{dh}: plane {i} differs from the CPU twin");
                }
            }
            let label = format!("{sw}x{sh} -> {dw}x{dh}");
            outln!("{label:<24} {bit_depth:>6} {median:>10.3} {min:>10.3} {max:>10.3}")?;
        }
    }
    Ok(())
}

/// A frame with edges and gradients (every sample a function of its place).
fn test_frame(geometry: Geometry) -> Frame {
    let depth = geometry.format.bit_depth;
    let mut data = Vec::with_capacity(geometry.frame_bytes());
    for p in 0..3 {
        let (w, h) = geometry.plane_size(p);
        for y in 0..h {
            for x in 0..w {
                let v = ((x * 7 + y * 3 + p as u32 * 50) ^ (x / 16 * 40)) % (1 << depth);
                if depth == 8 {
                    data.push(v as u8);
                } else {
                    data.extend_from_slice(&(v as u16).to_le_bytes());
                }
            }
        }
    }
    Frame { geometry, color: ColorInfo::default(), index: 0, data: data.into() }
}

/// Byte length and plane descriptors of `geometry`'s planes packed one
/// after another, each on a word.
fn packed_layout(geometry: Geometry) -> (u64, Vec<vqscope_metrics::device::PlaneDesc>) {
    let mut descs = Vec::new();
    let mut end = 0u32;
    for i in 0..3 {
        let (w, h) = geometry.plane_size(i);
        descs.push(packed_desc(w as usize, h as usize, geometry.format.bit_depth, end));
        end += (geometry.plane_bytes(i) as u32).div_ceil(4) * 4;
    }
    (u64::from(end), descs)
}

/// `frame`'s planes uploaded packed as [`packed_layout`] lays them out.
fn upload_packed(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    frame: &Frame,
) -> Result<(Buffer, Vec<vqscope_metrics::device::PlaneDesc>)> {
    let (len, descs) = packed_layout(frame.geometry);
    let mut bytes = vec![0u8; len as usize];
    for (i, desc) in descs.iter().enumerate() {
        let plane = frame.plane_bytes(i);
        bytes[desc.offset as usize..desc.offset as usize + plane.len()].copy_from_slice(plane);
    }
    Ok((upload_buffer(ctx, submitter, "frame planes", &bytes)?, descs))
}
