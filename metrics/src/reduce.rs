//! The GPU reduction every kernel shares: per-workgroup int64 partial sums
//! folded into a few int64 results in the same command buffer, so the host
//! reads back bytes, not megabytes.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder};

/// Twin of reduce.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
struct ReducePush {
    fields: u32,
    groups: u32,
    out_base: u32,
}

/// The twin above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_REDUCE, twin};
    vec![twin!(ReducePush as "Push" in [METRICS_REDUCE] { fields, groups, out_base })]
}

/// The reduce pipeline.
pub struct Reducer {
    pipeline: ComputePipeline,
}

impl Reducer {
    pub fn new(ctx: &Arc<GpuContext>) -> vqscope_gpu::Result<Self> {
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/reduce",
                ..PipelineDesc::new(vqscope_shaders::METRICS_REDUCE)
            },
        )?;
        Ok(Self { pipeline })
    }

    /// Records: `results[out_base + j] = Σ_g partials[g * fields + j]` for
    /// every field `j`, then a barrier. `partials` holds `groups` records.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        partials: &Buffer,
        fields: u32,
        groups: u32,
        results: &Buffer,
        out_base: u32,
    ) -> vqscope_gpu::Result<()> {
        let push = ReducePush { fields, groups, out_base };
        rec.dispatch(
            &self.pipeline,
            &[Binding::Buffer(partials), Binding::Buffer(results)],
            bytemuck::bytes_of(&push),
            [fields, 1, 1],
        )?;
        rec.barrier();
        Ok(())
    }
}
