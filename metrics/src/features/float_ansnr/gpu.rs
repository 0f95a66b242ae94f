//! float_ansnr on the GPU: [`super::ansnr_sums`] bit for bit.
//!
//! Per frame, [`AnsnrKernel::record`] records three steps, each after a
//! barrier:
//!
//! 1. `ansnr_filter`: 16×16 tiles; both filters and the two per-pixel terms
//!    `rf²` and `(rf − df)²`, every float operation in the twin's order;
//! 2. `ansnr_sum` with one invocation per row: each row's float sums, left
//!    to right;
//! 3. `ansnr_sum` with a single invocation: the row sums, top to bottom,
//!    into the frame's result word.
//!
//! libvmaf accumulates in float, and float additions in any other order
//! would drift far beyond the reported digits; steps 2 and 3 are that order,
//! so the sums equal the twin's exactly (and do not depend on the subgroup
//! size or on scheduling).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder, Submitter, Timestamps,
    upload_buffer,
};

use super::{AnsnrSums, DIS_TAPS, REF_TAPS};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::float_ssim::gpu::{Steps, check_plane};
use crate::plane::PlaneView;

/// Side of an `ansnr_filter` tile (its local size is TILE x TILE).
const TILE: u32 = 16;
/// Local size of `ansnr_sum`.
const SUM_GROUP: u32 = 64;

/// Twin of ansnr_filter.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FilterPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    inv_scaler: f32,
}

/// Twin of ansnr_sum.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct SumPush {
    sums: u32,
    count: u32,
    item_step: u32,
    elem_step: u32,
    dst_base: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_ANSNR_FILTER, METRICS_ANSNR_SUM, twin};
    vec![
        twin!(FilterPush as "Push" in [METRICS_ANSNR_FILTER] { ref_plane, dis_plane, inv_scaler }),
        twin!(SumPush as "Push" in [METRICS_ANSNR_SUM] {
            sums, count, item_step, elem_step, dst_base,
        }),
    ]
}

fn pipeline(
    ctx: &Arc<GpuContext>,
    name: &str,
    shader: &vqscope_gpu::Shader,
) -> vqscope_gpu::Result<ComputePipeline> {
    ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
}

/// The float_ansnr kernels for one luma geometry, with their intermediates.
pub struct AnsnrKernel {
    width: u32,
    height: u32,
    bpc: u32,
    inv_scaler: f32,
    filter: ComputePipeline,
    sum: ComputePipeline,
    /// The twin's taps, reference then distorted.
    taps: Buffer,
    /// `(rf², (rf − df)²)` per pixel, column-major.
    terms: Buffer,
    /// Each row's `(sig, noise)`.
    rows: Buffer,
}

impl AnsnrKernel {
    /// Result slots per frame pair: one word holding the two float sums.
    pub const RESULT_WORDS: u32 = 1;

    /// Barriers (so timestamps) per [`AnsnrKernel::record_timed`], the
    /// leading one included.
    pub const TIMED_STEPS: u32 = 4;

    /// A kernel for `width × height` luma planes at `bpc` bits; refused
    /// where the twin refuses (a depth outside libvmaf's table, a plane
    /// below 3×3).
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
        let depth = super::check(&shape, &shape)?;
        let mut submitter = Submitter::new(ctx, 1)?;
        let taps: Vec<u8> =
            REF_TAPS.iter().chain(&DIS_TAPS).flat_map(|t| t.to_le_bytes()).collect();
        let taps = upload_buffer(ctx, &mut submitter, "float_ansnr taps", &taps)?;
        let pixels = u64::from(width) * u64::from(height);
        Ok(Self {
            width,
            height,
            bpc,
            inv_scaler: 1.0 / depth.scaler,
            filter: pipeline(ctx, "metrics/ansnr_filter", vqscope_shaders::METRICS_ANSNR_FILTER)?,
            sum: pipeline(ctx, "metrics/ansnr_sum", vqscope_shaders::METRICS_ANSNR_SUM)?,
            taps,
            terms: Buffer::storage(ctx, "float_ansnr terms", pixels * 8)?,
            rows: Buffer::storage(ctx, "float_ansnr row sums", u64::from(height) * 8)?,
        })
    }

    /// Records one frame pair: its sums into `results[offset_words]`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.record_steps(rec, reference, distorted, results, offset_words, Steps::new(None))
    }

    /// [`AnsnrKernel::record`] with a timestamp after each of its
    /// [`AnsnrKernel::TIMED_STEPS`] barriers, from query `first` of `stamps`
    /// (reset beforehand): query `first` marks the start, `first + i` the
    /// end of step `i` (filter, row sums, total).
    #[allow(clippy::too_many_arguments)]
    pub fn record_timed(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        stamps: &Timestamps,
        first: u32,
    ) -> vqscope_gpu::Result<()> {
        let steps = Steps::new(Some((stamps, first)));
        self.record_steps(rec, reference, distorted, results, offset_words, steps)
    }

    fn record_steps(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        mut steps: Steps<'_>,
    ) -> vqscope_gpu::Result<()> {
        for plane in [reference, distorted] {
            check_plane(super::FEATURE, plane, self.width, self.height, self.bpc)?;
        }
        let (w, h) = (self.width, self.height);
        // Earlier frames may still read the terms and row sums.
        steps.barrier(rec);
        let push = FilterPush {
            ref_plane: reference.desc,
            dis_plane: distorted.desc,
            inv_scaler: self.inv_scaler,
        };
        rec.dispatch(
            &self.filter,
            &[
                Binding::Buffer(reference.buffer),
                Binding::Buffer(distorted.buffer),
                Binding::Buffer(&self.taps),
                Binding::Buffer(&self.terms),
            ],
            bytemuck::bytes_of(&push),
            [h.div_ceil(TILE), w.div_ceil(TILE), 1],
        )?;
        steps.barrier(rec);
        let rows = SumPush { sums: h, count: w, item_step: 1, elem_step: h, dst_base: 0 };
        self.record_sum(rec, &self.terms, &self.rows, &rows)?;
        steps.barrier(rec);
        let total =
            SumPush { sums: 1, count: h, item_step: 0, elem_step: 1, dst_base: offset_words };
        self.record_sum(rec, &self.rows, results, &total)?;
        steps.barrier(rec);
        Ok(())
    }

    fn record_sum(
        &self,
        rec: &mut Recorder<'_>,
        src: &Buffer,
        dst: &Buffer,
        push: &SumPush,
    ) -> vqscope_gpu::Result<()> {
        rec.dispatch(
            &self.sum,
            &[Binding::Buffer(src), Binding::Buffer(dst)],
            bytemuck::bytes_of(push),
            [push.sums.div_ceil(SUM_GROUP), 1, 1],
        )
    }

    /// The frame's sums from its result word: `sig`'s float bits in the low
    /// half, `noise`'s in the high half.
    pub fn decode(words: &[i64]) -> AnsnrSums {
        let word = words[0] as u64;
        AnsnrSums { sig: f32::from_bits(word as u32), noise: f32::from_bits((word >> 32) as u32) }
    }
}
