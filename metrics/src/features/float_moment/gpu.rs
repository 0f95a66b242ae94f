//! float_moment on the GPU: the four integer sums of [`super::moment_sums`],
//! bit-identical, from one dispatch of shaders/metrics/moment.comp (whole
//! rows per workgroup) and reduce.comp.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder};

use super::{MomentSums, scaler};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;

/// Samples one workgroup aims to cover (whole rows, so a little more).
const GROUP_SAMPLES: u32 = 16384;
/// Sums per workgroup: Σref, Σdis, Σref², Σdis².
const FIELDS: u32 = 4;

/// Twin of moment.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct MomentPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    rows_per_group: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_MOMENT, twin};
    vec![twin!(MomentPush as "Push" in [METRICS_MOMENT] { ref_plane, dis_plane, rows_per_group })]
}

/// The moment kernel for one luma geometry.
pub struct MomentKernel {
    width: u32,
    height: u32,
    bpc: u32,
    rows_per_group: u32,
    groups: u32,
    pipeline: ComputePipeline,
    reducer: crate::reduce::Reducer,
    partials: Buffer,
}

impl MomentKernel {
    /// int64 result slots per frame pair.
    pub const RESULT_WORDS: u32 = FIELDS;

    /// A kernel for `width × height` luma planes at `bpc` bits; refused
    /// where the twin refuses (a depth libvmaf does not scale, an empty
    /// plane).
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        scaler(bpc)?;
        if width == 0 || height == 0 {
            return Err(MetricsError::FrameTooSmall {
                feature: "float_moment",
                width: width as usize,
                height: height as usize,
                reason: "a plane needs at least one sample",
            });
        }
        let rows_per_group = GROUP_SAMPLES.div_ceil(width).max(1);
        let groups = height.div_ceil(rows_per_group);
        let partials =
            Buffer::storage(ctx, "moment partials", u64::from(groups) * u64::from(FIELDS) * 8)?;
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/moment",
                ..PipelineDesc::new(vqscope_shaders::METRICS_MOMENT)
            },
        )?;
        let reducer = crate::reduce::Reducer::new(ctx)?;
        Ok(Self { width, height, bpc, rows_per_group, groups, pipeline, reducer, partials })
    }

    /// Records the sums of the luma pair into `results[offset_words..+4]`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        for (name, p) in [("reference", reference), ("distorted", distorted)] {
            let d = &p.desc;
            if (d.width, d.height, d.bpc) != (self.width, self.height, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "float_moment: {name} plane is {}x{} at {} bits, kernel built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        // Earlier frames may still read the partials.
        rec.barrier();
        let push = MomentPush {
            ref_plane: reference.desc,
            dis_plane: distorted.desc,
            rows_per_group: self.rows_per_group,
        };
        rec.dispatch(
            &self.pipeline,
            &[
                Binding::Buffer(reference.buffer),
                Binding::Buffer(distorted.buffer),
                Binding::Buffer(&self.partials),
            ],
            bytemuck::bytes_of(&push),
            [self.groups, 1, 1],
        )?;
        rec.barrier();
        self.reducer.record(rec, &self.partials, FIELDS, self.groups, results, offset_words)
    }

    /// The four sums from the kernel's result words.
    pub fn decode(words: &[i64]) -> MomentSums {
        std::array::from_fn(|i| words[i] as u64)
    }
}
