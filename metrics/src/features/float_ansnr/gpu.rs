//! float_ansnr on the GPU: [`super::ansnr_sums`] bit for bit.
//!
//! Per frame, [`AnsnrKernel::record`] records three steps, each after a
//! barrier:
//!
//! 1. `ansnr_filter`: 16×16 tiles; both filters and the two per-pixel terms
//!    `rf²` and `(rf − df)²`, every float operation in the twin's order;
//! 2. the shared ordered row sums ([`crate::row_sums`]): each row's float
//!    sums, left to right;
//! 3. their totals: the row sums, top to bottom, into the frame's two
//!    result words.
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
use crate::features::Steps;
use crate::features::float_ssim::gpu::check_plane;
use crate::plane::PlaneView;
use crate::row_sums::{ResultWord, RowLayout, RowSegment, RowSums, RowValues};

/// Side of an `ansnr_filter` tile (its local size is TILE x TILE).
const TILE: u32 = 16;

/// Twin of ansnr_filter.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FilterPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    inv_scaler: f32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_ANSNR_FILTER, twin};
    vec![twin!(FilterPush as "Push" in [METRICS_ANSNR_FILTER] { ref_plane, dis_plane, inv_scaler })]
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
    row_sums: RowSums,
    /// Field 0 `rf²`, field 1 `(rf − df)²`, one plane each.
    layout: RowLayout,
    /// The twin's taps, reference then distorted.
    taps: Buffer,
    /// The `rf²` plane, then the `(rf − df)²` plane, row-major.
    terms: Buffer,
    /// Each row's `sig`, then each row's `noise`.
    rows: Buffer,
}

impl AnsnrKernel {
    /// Result slots per frame pair: the float sums `sig` and `noise`.
    pub const RESULT_WORDS: u32 = 2;

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
            row_sums: RowSums::new(ctx, RowValues::Stored, ResultWord::FloatBits)?,
            layout: RowLayout::single(
                RowSegment { rows: height, cols: width, vals_base: 0, sums_base: 0 },
                2,
            ),
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
            [w.div_ceil(TILE), h.div_ceil(TILE), 1],
        )?;
        steps.barrier(rec);
        self.row_sums.record_rows(
            rec,
            Binding::Buffer(&self.terms),
            Binding::Buffer(&self.rows),
            &self.layout,
        )?;
        steps.barrier(rec);
        self.row_sums.record_totals(
            rec,
            Binding::Buffer(&self.rows),
            results,
            &self.layout,
            offset_words,
        )?;
        steps.barrier(rec);
        Ok(())
    }

    /// The frame's sums from its two result words (`sig`, `noise`).
    pub fn decode(words: &[i64]) -> AnsnrSums {
        AnsnrSums {
            sig: ResultWord::FloatBits.decode(words[0]),
            noise: ResultWord::FloatBits.decode(words[1]),
        }
    }
}
