//! SpEED's per-pixel work on the GPU: the anti-aliasing filter and the
//! decimation by 16 ([`super::decimate`], without prescale) of one or more
//! planes of the shared upload, bit-identical to the twin. What remains per
//! plane — the 3-tap blur of a plane 16 times smaller, the 25×25
//! covariance, its eigenvalues and the solve — runs on the host from the
//! decimated planes the kernel leaves in the result words (a 1080p 4:2:0
//! frame's four chroma planes: 4 × 60 × 33 floats, 31 KiB).
//!
//! Per frame, after a barrier (shaders/metrics/speed_decimate_*.comp):
//! 1. `decimate_v`, per plane: the vertical pass at the rows 16·y only
//!    (of the float difference of two planes for `speed_temporal`);
//! 2. `decimate_h`, per plane: the horizontal pass at the columns 16·x,
//!    each result's float bits in a 32-bit half of the result words.
//!
//! Both passes are sums of separately rounded float products in tap order,
//! `precise` in the shaders, as in libvmaf (its AVX convolution adds the
//! same products in the same order).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
    Submitter, upload_buffer,
};

use super::{Dimensions, antialias_taps};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::float_vif::filter::FloatPlane;
use crate::features::float_vif::scaler;

/// Local size of both passes (`local_size_x`, `_y`).
const GROUP_W: u32 = 64;
const GROUP_H: u32 = 4;

/// Twin of speed_decimate_v.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct VerticalPush {
    plane: PlaneDesc,
    minus: PlaneDesc,
    subtract: u32,
    taps_len: u32,
    out_rows: u32,
    out_base: u32,
}

/// Twin of speed_decimate_h.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct HorizontalPush {
    width: u32,
    out_w: u32,
    out_h: u32,
    taps_len: u32,
    in_base: u32,
    out_index: u32,
}

/// The twins above as the layout test checks them against the SPIR-V.
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_SPEED_DECIMATE_H, METRICS_SPEED_DECIMATE_V, twin};
    vec![
        twin!(VerticalPush as "Push" in [METRICS_SPEED_DECIMATE_V] {
            plane, minus, subtract, taps_len, out_rows, out_base
        }),
        twin!(HorizontalPush as "Push" in [METRICS_SPEED_DECIMATE_H] {
            width, out_w, out_h, taps_len, in_base, out_index
        }),
    ]
}

fn pipeline(
    ctx: &Arc<GpuContext>,
    name: &str,
    shader: &Shader,
) -> vqscope_gpu::Result<ComputePipeline> {
    ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
}

/// The decimation kernels for `planes` planes of one size, bit depth and
/// kernel scale, with their intermediate allocated once.
pub struct SpeedDecimateKernel {
    width: u32,
    height: u32,
    bpc: u32,
    /// The decimated size.
    out: (u32, u32),
    planes: u32,
    taps_len: u32,
    vertical_pass: ComputePipeline,
    horizontal_pass: ComputePipeline,
    taps: Buffer,
    /// Every plane's vertical pass at the kept rows.
    vertical: Buffer,
}

impl SpeedDecimateKernel {
    /// Kernels for `planes` planes whose top-left `width × height` samples
    /// at `bpc` bits SpEED reads (libvmaf's chroma size can leave out the
    /// last column and row of an odd-sized frame's planes), refused where
    /// the twin refuses. `feature` names the extractor in errors.
    pub fn new(
        ctx: &Arc<GpuContext>,
        feature: &'static str,
        width: u32,
        height: u32,
        bpc: u32,
        kernelscale: f64,
        planes: u32,
    ) -> Result<Self, MetricsError> {
        scaler(bpc)?;
        let dims = Dimensions::new(feature, width as usize, height as usize, 1.0)?;
        let (dw, dh) = (dims.operating.0 as u32, dims.operating.1 as u32);
        let taps = antialias_taps(kernelscale);
        let mut submitter = Submitter::new(ctx, 1)?;
        let bytes: Vec<u8> = taps.iter().flat_map(|t| t.to_le_bytes()).collect();
        let rows = u64::from(planes) * u64::from(dh) * u64::from(width);
        Ok(Self {
            width,
            height,
            bpc,
            out: (dw, dh),
            planes,
            taps_len: taps.len() as u32,
            vertical_pass: pipeline(
                ctx,
                "metrics/speed_decimate_v",
                vqscope_shaders::METRICS_SPEED_DECIMATE_V,
            )?,
            horizontal_pass: pipeline(
                ctx,
                "metrics/speed_decimate_h",
                vqscope_shaders::METRICS_SPEED_DECIMATE_H,
            )?,
            taps: upload_buffer(ctx, &mut submitter, "speed taps", &bytes)?,
            vertical: Buffer::storage(ctx, "speed vertical", rows * 4)?,
        })
    }

    /// int64 result words the decimated planes take (two floats a word).
    pub fn result_words(&self) -> u32 {
        (self.planes * self.out.0 * self.out.1).div_ceil(2)
    }

    /// Records the decimation of `planes` into `results[offset_words..]`:
    /// each a plane, or with a second plane the float difference of the
    /// two (first minus second).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &[(DevicePlane<'_>, Option<DevicePlane<'_>>)],
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        if planes.len() != self.planes as usize {
            return Err(GpuError::Usage(format!(
                "speed: {} planes given, kernel built for {}",
                planes.len(),
                self.planes
            )));
        }
        for p in planes.iter().flat_map(|(a, b)| std::iter::once(a).chain(b)) {
            let d = &p.desc;
            if d.width < self.width || d.height < self.height || d.bpc != self.bpc {
                return Err(GpuError::Usage(format!(
                    "speed: a {}x{} plane at {} bits, kernel built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let (w, (dw, dh)) = (self.width, self.out);
        // Earlier frames may still read the intermediate.
        rec.barrier();
        for (i, (p, minus)) in planes.iter().enumerate() {
            let q = minus.unwrap_or(*p);
            let push = VerticalPush {
                plane: PlaneDesc { width: w, height: self.height, ..p.desc },
                minus: PlaneDesc { width: w, height: self.height, ..q.desc },
                subtract: u32::from(minus.is_some()),
                taps_len: self.taps_len,
                out_rows: dh,
                out_base: i as u32 * dh * w,
            };
            rec.dispatch(
                &self.vertical_pass,
                &[
                    Binding::Buffer(p.buffer),
                    Binding::Buffer(&self.taps),
                    Binding::Buffer(&self.vertical),
                    Binding::Buffer(q.buffer),
                ],
                bytemuck::bytes_of(&push),
                [w.div_ceil(GROUP_W), dh.div_ceil(GROUP_H), 1],
            )?;
        }
        rec.barrier();
        for i in 0..self.planes {
            let push = HorizontalPush {
                width: w,
                out_w: dw,
                out_h: dh,
                taps_len: self.taps_len,
                in_base: i * dh * w,
                out_index: offset_words * 2 + i * dw * dh,
            };
            rec.dispatch(
                &self.horizontal_pass,
                &[
                    Binding::Buffer(&self.vertical),
                    Binding::Buffer(&self.taps),
                    Binding::Buffer(results),
                ],
                bytemuck::bytes_of(&push),
                [dw.div_ceil(GROUP_W), dh.div_ceil(GROUP_H), 1],
            )?;
        }
        Ok(())
    }

    /// The decimated planes, in the order recorded, from the kernel's
    /// result words.
    pub fn decode(&self, words: &[i64]) -> Vec<FloatPlane> {
        let (dw, dh) = (self.out.0 as usize, self.out.1 as usize);
        let floats: Vec<f32> = words
            .iter()
            .flat_map(|&w| [w as u64 as u32, (w as u64 >> 32) as u32])
            .map(f32::from_bits)
            .collect();
        floats
            .chunks_exact(dw * dh)
            .take(self.planes as usize)
            .map(|c| FloatPlane { width: dw, height: dh, data: c.to_vec() })
            .collect()
    }
}
