//! Frames as the GPU kernels see them: planes in a storage buffer of 32-bit
//! words (1 byte per sample up to 8 bits, 2 little-endian bytes above), the
//! layout the video upload path produces. [`DevicePlane`] is the Rust twin
//! of `PlaneDesc` in `shaders/metrics/plane.glsl`.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Submitter, download_buffer,
    upload_buffer,
};

use vqscope_video::DeviceFrame;

use crate::plane::PlaneView;

/// Twin of `PlaneDesc` in plane.glsl (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PlaneDesc {
    pub offset: u32,
    pub width: u32,
    pub height: u32,
    pub stride: u32,
    pub bytes_per_sample: u32,
    pub bpc: u32,
    pub pad: [u32; 2],
}

/// The twin above as the layout test checks it, against every metric
/// shader that declares `PlaneDesc`.
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::reflect::struct_offsets;
    let declaring = vqscope_shaders::ALL
        .iter()
        .copied()
        .filter(|s| s.path.starts_with("metrics/") && struct_offsets(s, "PlaneDesc").is_some());
    vec![vqscope_shaders::twin!(PlaneDesc as "PlaneDesc" in declaring {
        offset, width, height, stride, bytes_per_sample, bpc, pad0 = pad, pad1 = pad + 4,
    })]
}

/// A plane inside a device buffer.
#[derive(Clone, Copy)]
pub struct DevicePlane<'a> {
    pub buffer: &'a Buffer,
    pub desc: PlaneDesc,
}

impl DevicePlane<'_> {
    pub fn width(&self) -> usize {
        self.desc.width as usize
    }

    pub fn height(&self) -> usize {
        self.desc.height as usize
    }
}

/// The bytes of a plane in device layout (tightly packed rows), padded with
/// zeros to whole 32-bit words: shaders read words, and a word that ran
/// past the end of the buffer would read as zero on some drivers and fault
/// on others.
pub fn plane_bytes(plane: &PlaneView) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(plane.width * plane.height * 2);
    for y in 0..plane.height {
        for &v in plane.row(y) {
            if plane.bpc <= 8 {
                bytes.push(v as u8);
            } else {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes
}

/// The kernel view of plane `i` (Y, Cb, Cr) of a frame the shared upload
/// left in `buffer`: what every feature and the dashboard's maps read.
pub fn uploaded_plane<'a>(buffer: &'a Buffer, frame: &DeviceFrame, i: usize) -> DevicePlane<'a> {
    let p = frame.planes[i];
    DevicePlane {
        buffer,
        desc: PlaneDesc {
            offset: p.offset,
            width: p.width,
            height: p.height,
            stride: p.width,
            bytes_per_sample: p.bytes_per_sample,
            bpc: frame.geometry.format.bit_depth,
            pad: [0; 2],
        },
    }
}

/// The descriptor of a tightly packed plane at byte `offset`.
pub fn packed_desc(width: usize, height: usize, bpc: u32, offset: u32) -> PlaneDesc {
    PlaneDesc {
        offset,
        width: width as u32,
        height: height as u32,
        stride: width as u32,
        bytes_per_sample: if bpc <= 8 { 1 } else { 2 },
        bpc,
        pad: [0; 2],
    }
}

/// Uploads a plane into its own device buffer (tests and one-off use; the
/// per-frame path uploads whole frames once through the video crate).
pub fn upload_plane(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    plane: &PlaneView,
) -> vqscope_gpu::Result<(Buffer, PlaneDesc)> {
    let bytes = plane_bytes(plane);
    let buffer = upload_buffer(ctx, submitter, "plane", &bytes)?;
    Ok((buffer, packed_desc(plane.width, plane.height, plane.bpc, 0)))
}

/// Whether the device's `fma()` on doubles rounds once (fma_probe.comp).
/// Vulkan does not say: lavapipe computes it as a product and a sum, NVIDIA
/// fuses it. The operands' exact `a·b + c` is 2^-54, which a product rounded
/// first loses entirely (a·b = 1 + 2^-26 + 2^-54 rounds to 1 + 2^-26).
pub(crate) fn fma_fuses(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
) -> vqscope_gpu::Result<bool> {
    let a = 1.0 + 2f64.powi(-27);
    let operands = [a, a, -(1.0 + 2f64.powi(-26)), 0.0];
    let bytes: Vec<u8> = operands.iter().flat_map(|v| v.to_le_bytes()).collect();
    let probe = upload_buffer(ctx, submitter, "fma probe", &bytes)?;
    let pipeline = ComputePipeline::new(
        ctx,
        &PipelineDesc {
            name: "metrics/fma_probe",
            ..PipelineDesc::new(vqscope_shaders::METRICS_FMA_PROBE)
        },
    )?;
    submitter.run(|rec| {
        rec.dispatch(&pipeline, &[Binding::Buffer(&probe)], &[], [1, 1, 1])?;
        rec.barrier();
        Ok(())
    })?;
    let out = download_buffer(ctx, submitter, &probe, 32)?;
    let fused = f64::from_le_bytes(out[24..32].try_into().expect("8 bytes"));
    Ok(fused == 2f64.powi(-54))
}

/// Every `#[repr(C)]` twin of a GLSL struct in this crate against the
/// compiled SPIR-V.
#[cfg(test)]
mod shader_layouts;
