//! Scaling a distorted frame to the reference's size on the GPU, bicubic
//! with swscale's integer arithmetic (as ffmpeg's `scale` filter at its
//! default), so that `--scale-distorted` costs no CPU per frame: the frame
//! is uploaded at its own size and scaled into the planes the metric
//! kernels read. Bit-exact to the CPU twin [`vqscope_video::scale`], which
//! its tests hold to ffmpeg's output.
//!
//! Per frame, six dispatches: shaders/metrics/scale_h.comp for each plane
//! (input rows to 15-bit intermediates at the output width), a barrier, then
//! shaders/metrics/scale_v.comp for each plane (intermediate rows to output
//! samples, written as whole words in the upload path's packed layout).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Submitter,
    upload_buffer,
};
use vqscope_video::scale::FrameScale;

use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;

/// scale_h.comp's workgroup size (x, y).
const H_GROUP: (u32, u32) = (64, 4);
/// scale_v.comp's workgroup size.
const V_GROUP: u32 = 256;
/// The most workgroups one dispatch dimension takes (Vulkan's guaranteed
/// minimum of `maxComputeWorkGroupCount`).
const MAX_GROUPS: u32 = 65535;

/// Twin of scale_h.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct HorizontalPush {
    src: PlaneDesc,
    dst_width: u32,
    taps: u32,
    first_at: u32,
    weights_at: u32,
    mid_at: u32,
    shift: u32,
}

/// Twin of scale_v.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct VerticalPush {
    dst: PlaneDesc,
    taps: u32,
    first_at: u32,
    weights_at: u32,
    mid_at: u32,
    shift: u32,
    words: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_SCALE_H, METRICS_SCALE_V, twin};
    vec![
        twin!(HorizontalPush as "Push" in [METRICS_SCALE_H] {
            src, dst_width, taps, first_at, weights_at, mid_at, shift,
        }),
        twin!(VerticalPush as "Push" in [METRICS_SCALE_V] {
            dst, taps, first_at, weights_at, mid_at, shift, words,
        }),
    ]
}

/// Where one plane's filters (word indices into the filter buffer) and
/// intermediates (word index into the intermediate buffer) lie.
#[derive(Debug, Clone, Copy)]
struct PlaneAt {
    h_first: u32,
    h_weights: u32,
    v_first: u32,
    v_weights: u32,
    mid: u32,
}

/// The GPU scale for one pair of geometries, with its filters uploaded and
/// its intermediates allocated once.
pub struct GpuScale {
    scale: FrameScale,
    at: Vec<PlaneAt>,
    filters: Buffer,
    mid: Buffer,
    horizontal: ComputePipeline,
    vertical: ComputePipeline,
}

impl GpuScale {
    /// Uploads `scale`'s filters and builds the two pipelines.
    pub fn new(ctx: &Arc<GpuContext>, scale: FrameScale) -> Result<Self, MetricsError> {
        let mut words: Vec<i32> = Vec::new();
        let mut at = Vec::with_capacity(scale.planes.len());
        let mut mid_words = 0u64;
        for plane in &scale.planes {
            let mut put = |values: &mut dyn Iterator<Item = i32>| {
                let start = words.len() as u32;
                words.extend(values);
                start
            };
            let (h, v) = (&plane.horizontal, &plane.vertical);
            at.push(PlaneAt {
                h_first: put(&mut h.first.iter().copied()),
                h_weights: put(&mut h.weights.iter().map(|&w| i32::from(w))),
                v_first: put(&mut v.first.iter().copied()),
                v_weights: put(&mut v.weights.iter().map(|&w| i32::from(w))),
                // Sides are at most 2^14 (the video crate's limit): three
                // planes of intermediates stay below 2^30 words.
                mid: mid_words as u32,
            });
            mid_words += u64::from(plane.to.0) * u64::from(plane.from.1);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut submitter = Submitter::new(ctx, 1)?;
        let filters = upload_buffer(ctx, &mut submitter, "scale filters", &bytes)?;
        let mid = Buffer::storage(ctx, "scale intermediates", mid_words * 4)?;
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        Ok(Self {
            horizontal: pipeline("metrics/scale_h", vqscope_shaders::METRICS_SCALE_H)?,
            vertical: pipeline("metrics/scale_v", vqscope_shaders::METRICS_SCALE_V)?,
            scale,
            at,
            filters,
            mid,
        })
    }

    /// Records the scale of the planes `src` (of the scale's input
    /// geometry) into `dst` (of its output geometry, packed: stride equal
    /// to width), one barrier before and one after.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        src: &[DevicePlane<'_>],
        dst: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()> {
        self.check(src, dst)?;
        // An earlier frame's vertical pass may still read the intermediates.
        rec.barrier();
        for ((plane, at), s) in self.scale.planes.iter().zip(&self.at).zip(src) {
            let push = HorizontalPush {
                src: s.desc,
                dst_width: plane.to.0,
                taps: plane.horizontal.taps as u32,
                first_at: at.h_first,
                weights_at: at.h_weights,
                mid_at: at.mid,
                shift: plane.h_shift(),
            };
            rec.dispatch(
                &self.horizontal,
                &[
                    Binding::Buffer(s.buffer),
                    Binding::Buffer(&self.filters),
                    Binding::Buffer(&self.mid),
                ],
                bytemuck::bytes_of(&push),
                [plane.to.0.div_ceil(H_GROUP.0), plane.from.1.div_ceil(H_GROUP.1), 1],
            )?;
        }
        rec.barrier();
        for ((plane, at), d) in self.scale.planes.iter().zip(&self.at).zip(dst) {
            let bytes =
                u64::from(plane.to.0) * u64::from(plane.to.1) * u64::from(d.desc.bytes_per_sample);
            let words = bytes.div_ceil(4) as u32;
            let groups = words.div_ceil(V_GROUP);
            let push = VerticalPush {
                dst: d.desc,
                taps: plane.vertical.taps as u32,
                first_at: at.v_first,
                weights_at: at.v_weights,
                mid_at: at.mid,
                shift: plane.v_shift(),
                words,
            };
            rec.dispatch(
                &self.vertical,
                &[
                    Binding::Buffer(&self.mid),
                    Binding::Buffer(&self.filters),
                    Binding::Buffer(d.buffer),
                ],
                bytemuck::bytes_of(&push),
                [groups.min(MAX_GROUPS), groups.div_ceil(MAX_GROUPS), 1],
            )?;
        }
        rec.barrier();
        Ok(())
    }

    /// Refuses planes that do not fit the scale.
    fn check(&self, src: &[DevicePlane<'_>], dst: &[DevicePlane<'_>]) -> vqscope_gpu::Result<()> {
        let n = self.scale.planes.len();
        if src.len() != n || dst.len() != n {
            return Err(GpuError::Usage(format!(
                "scale: {} source and {} output planes given, {n} expected",
                src.len(),
                dst.len()
            )));
        }
        for ((plane, s), d) in self.scale.planes.iter().zip(src).zip(dst) {
            let bpc = plane.bpc;
            let fits = |p: &PlaneDesc, (w, h): (u32, u32)| {
                (p.width, p.height, p.bpc) == (w, h, bpc) && p.offset.is_multiple_of(4)
            };
            if !fits(&s.desc, plane.from)
                || !fits(&d.desc, plane.to)
                || d.desc.stride != d.desc.width
            {
                return Err(GpuError::Usage(format!(
                    "scale: planes {}x{} -> {}x{} given, {}x{} -> {}x{} at {bpc} bits (output packed) expected",
                    s.desc.width,
                    s.desc.height,
                    d.desc.width,
                    d.desc.height,
                    plane.from.0,
                    plane.from.1,
                    plane.to.0,
                    plane.to.1
                )));
            }
        }
        Ok(())
    }
}
