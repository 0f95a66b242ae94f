//! float_psnr on the GPU: the integer sum of [`super::noise_sum`],
//! bit-identical, from one dispatch of shaders/metrics/float_psnr.comp
//! (whole rows per workgroup) and reduce.comp.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder};

use super::FEATURE;
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::float_ssim::gpu::check_plane;
use crate::plane::PlaneView;

/// Samples one workgroup aims to cover (whole rows, so a little more).
const GROUP_SAMPLES: u32 = 16384;

/// Twin of float_psnr.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FloatPsnrPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    rows_per_group: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_FLOAT_PSNR, twin};
    vec![twin!(FloatPsnrPush as "Push" in [METRICS_FLOAT_PSNR] {
        ref_plane, dis_plane, rows_per_group,
    })]
}

/// The float_psnr kernel for one luma geometry.
pub struct FloatPsnrKernel {
    width: u32,
    height: u32,
    bpc: u32,
    rows_per_group: u32,
    groups: u32,
    pipeline: ComputePipeline,
    reducer: crate::reduce::Reducer,
    partials: Buffer,
}

impl FloatPsnrKernel {
    /// int64 result slots per frame pair: the sum.
    pub const RESULT_WORDS: u32 = 1;

    /// A kernel for `width × height` luma planes at `bpc` bits; refused
    /// where the twin refuses (a depth outside libvmaf's table, an empty
    /// plane).
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        let shape = PlaneView {
            width: width as usize,
            height: height as usize,
            stride: width as usize,
            bpc,
            samples: &[],
        };
        super::check(FEATURE, &shape, &shape)?;
        let rows_per_group = GROUP_SAMPLES.div_ceil(width).max(1);
        let groups = height.div_ceil(rows_per_group);
        let partials = Buffer::storage(ctx, "float_psnr partials", u64::from(groups) * 8)?;
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/float_psnr",
                ..PipelineDesc::new(vqscope_shaders::METRICS_FLOAT_PSNR)
            },
        )?;
        let reducer = crate::reduce::Reducer::new(ctx)?;
        Ok(Self { width, height, bpc, rows_per_group, groups, pipeline, reducer, partials })
    }

    /// Records the sum of the luma pair into `results[offset_words]`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        for plane in [reference, distorted] {
            check_plane(FEATURE, plane, self.width, self.height, self.bpc)?;
        }
        // Earlier frames may still read the partials.
        rec.barrier();
        let push = FloatPsnrPush {
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
        self.reducer.record(rec, &self.partials, 1, self.groups, results, offset_words)
    }

    /// The sum from the kernel's result word.
    pub fn decode(words: &[i64]) -> u64 {
        words[0] as u64
    }
}
