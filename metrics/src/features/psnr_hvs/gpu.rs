//! `psnr_hvs` on the GPU: the three planes' float sums of
//! [`super::plane_sum`], bit-identical, left as float bits in three result
//! words; the host finishes with [`super::plane_value`] and
//! [`PsnrHvsScore::from_plane_values`], as the twin does.
//!
//! Per frame pair, after a barrier:
//!
//! 1. `psnr_hvs_block` once per plane: one invocation per 8x8 block computes
//!    the 64 values the block adds (DCT, variances, masking, CSF weights),
//!    bit for bit as [`super::block_terms`], into the terms buffer;
//! 2. `psnr_hvs_sum` per plane (the three run side by side): one
//!    invocation adds that plane's terms in libvmaf's order, in dispatches
//!    of at most [`BLOCKS_PER_SUM`] blocks, each continuing the running sum
//!    (lavapipe's loop limit, see there).
//!
//! libvmaf's accumulator is a single float per plane, so every addition
//! rounds and no tree or partial sums of floats or doubles reproduce its
//! value; the sum step here is serial: `64 · blocks` dependent float
//! additions per plane (11 million for a 4K luma plane), which dominates
//! the feature's time on a large frame. The block step is fully parallel.
//! An exact parallel form exists and is the way to a fast large-frame sum:
//! the running sum only grows (every term is ≥ 0), and while it stays in
//! one binade each addition is the sum plus the term rounded to that
//! binade's grid, so a run of terms becomes an integer scan (with the
//! grid parity carried for ties), and only the few additions that cross
//! into the next binade need the float addition itself.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Submitter,
    upload_buffer,
};
use vqscope_video::Geometry;

use super::{COEFFS, PsnrHvsScore, Tables, blocks_along, check_geometry, plane_value};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;

/// Invocations per `psnr_hvs_block` workgroup (its `local_size_x`).
const BLOCK_GROUP: u32 = 64;
/// Most blocks one `psnr_hvs_sum` dispatch adds (one loop iteration each):
/// lavapipe ends a shader's loops after 65535 iterations in all, so a
/// plane with more blocks continues in further dispatches, each resuming
/// from the running sum the previous one stored.
const BLOCKS_PER_SUM: u32 = 32768;

/// Twin of psnr_hvs_block.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct BlockPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    blocks_x: u32,
    blocks_y: u32,
    table: u32,
    term_base: u32,
    block_var_scale: f32,
    quadrant_var_scale: f32,
}

/// Twin of psnr_hvs_sum.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct SumPush {
    term_base: u32,
    block_count: u32,
    first: u32,
    out_word: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_PSNR_HVS_BLOCK, METRICS_PSNR_HVS_SUM, twin};
    vec![
        twin!(BlockPush as "Push" in [METRICS_PSNR_HVS_BLOCK] {
            ref_plane, dis_plane, blocks_x, blocks_y, table, term_base, block_var_scale,
            quadrant_var_scale,
        }),
        twin!(SumPush as "Push" in [METRICS_PSNR_HVS_SUM] {
            term_base, block_count, first, out_word,
        }),
    ]
}

/// One plane's place in the kernel: its size, block grid and terms.
#[derive(Debug, Clone, Copy)]
struct PlaneSlot {
    width: u32,
    height: u32,
    blocks_x: u32,
    blocks_y: u32,
    /// First float of the plane's terms in the terms buffer.
    term_base: u32,
}

impl PlaneSlot {
    fn blocks(&self) -> u32 {
        self.blocks_x * self.blocks_y
    }

    fn term_count(&self) -> u32 {
        self.blocks() * COEFFS as u32
    }
}

/// `psnr_hvs` for one video geometry, with its tables and terms allocated
/// once.
pub struct PsnrHvsKernel {
    bpc: u32,
    planes: [PlaneSlot; 3],
    block: ComputePipeline,
    sum: ComputePipeline,
    /// Per plane: 64 CSF weights, then 64 masking weights (floats).
    tables: Buffer,
    /// Every block's 64 terms, plane after plane.
    terms: Buffer,
}

impl PsnrHvsKernel {
    /// int64 result slots per frame pair: the float sums of Y, Cb and Cr
    /// (their bits in the low 32 bits).
    pub const RESULT_WORDS: u32 = 3;

    /// A kernel for `geometry`; refused where the twin refuses (4:0:0, more
    /// than 12 bits, a plane below 8x8).
    pub fn new(ctx: &Arc<GpuContext>, geometry: &Geometry) -> Result<Self, MetricsError> {
        check_geometry(geometry)?;
        let mut next = 0u32;
        let planes = std::array::from_fn(|p| {
            let (width, height) = geometry.plane_size(p);
            let slot = PlaneSlot {
                width,
                height,
                blocks_x: blocks_along(width as usize) as u32,
                blocks_y: blocks_along(height as usize) as u32,
                term_base: next,
            };
            next += slot.term_count();
            slot
        });
        let table_bytes: Vec<u8> = (0..3)
            .flat_map(|p| {
                let t = Tables::libvmaf(p);
                t.csf.into_iter().chain(t.mask).flat_map(f32::to_le_bytes).collect::<Vec<_>>()
            })
            .collect();
        let mut submitter = Submitter::new(ctx, 1)?;
        let tables = upload_buffer(ctx, &mut submitter, "psnr_hvs tables", &table_bytes)?;
        let terms = Buffer::storage(ctx, "psnr_hvs terms", u64::from(next) * 4)?;
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        Ok(Self {
            bpc: geometry.format.bit_depth,
            planes,
            block: pipeline("metrics/psnr_hvs_block", vqscope_shaders::METRICS_PSNR_HVS_BLOCK)?,
            sum: pipeline("metrics/psnr_hvs_sum", vqscope_shaders::METRICS_PSNR_HVS_SUM)?,
            tables,
            terms,
        })
    }

    /// Records the three planes' sums into `results[offset_words..+3]`.
    /// `reference` and `distorted` hold Y, Cb and Cr.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.check(reference, distorted)?;
        // Earlier frames may still read the terms.
        rec.barrier();
        for (p, slot) in self.planes.iter().enumerate() {
            let push = BlockPush {
                ref_plane: reference[p].desc,
                dis_plane: distorted[p].desc,
                blocks_x: slot.blocks_x,
                blocks_y: slot.blocks_y,
                table: p as u32,
                term_base: slot.term_base,
                block_var_scale: 1.0f32 / 63.0 * 64.0,
                quadrant_var_scale: 1.0f32 / 15.0 * 16.0,
            };
            rec.dispatch(
                &self.block,
                &[
                    Binding::Buffer(reference[p].buffer),
                    Binding::Buffer(distorted[p].buffer),
                    Binding::Buffer(&self.tables),
                    Binding::Buffer(&self.terms),
                ],
                bytemuck::bytes_of(&push),
                [slot.blocks().div_ceil(BLOCK_GROUP), 1, 1],
            )?;
        }
        // Round r adds blocks [r·BLOCKS_PER_SUM, …) of every plane that has
        // them; the planes' walks run side by side.
        let rounds = self.planes.iter().map(|s| s.blocks().div_ceil(BLOCKS_PER_SUM)).max();
        for round in 0..rounds.unwrap_or(0) {
            rec.barrier();
            let first_block = round * BLOCKS_PER_SUM;
            for (p, slot) in self.planes.iter().enumerate() {
                if first_block >= slot.blocks() {
                    continue;
                }
                let push = SumPush {
                    term_base: slot.term_base + first_block * COEFFS as u32,
                    block_count: (slot.blocks() - first_block).min(BLOCKS_PER_SUM),
                    first: u32::from(round == 0),
                    out_word: offset_words + p as u32,
                };
                rec.dispatch(
                    &self.sum,
                    &[Binding::Buffer(&self.terms), Binding::Buffer(results)],
                    bytemuck::bytes_of(&push),
                    [1, 1, 1],
                )?;
            }
        }
        Ok(())
    }

    /// The three planes' float sums from the kernel's result words.
    pub fn decode_sums(words: &[i64]) -> [f32; 3] {
        std::array::from_fn(|p| f32::from_bits(words[p] as u32))
    }

    /// The frame's four values from the kernel's result words.
    pub fn decode(&self, words: &[i64]) -> PsnrHvsScore {
        let sums = Self::decode_sums(words);
        PsnrHvsScore::from_plane_values(std::array::from_fn(|p| {
            let s = &self.planes[p];
            plane_value(sums[p], s.width as usize, s.height as usize, self.bpc)
        }))
    }

    /// The terms buffer the last recorded frame left (for tests): plane
    /// `p`'s terms are the [`PsnrHvsKernel::terms_range`] floats.
    pub fn terms_buffer(&self) -> &Buffer {
        &self.terms
    }

    /// First float and count of plane `p`'s terms in
    /// [`PsnrHvsKernel::terms_buffer`], blocks in raster order.
    pub fn terms_range(&self, p: usize) -> (u32, u32) {
        (self.planes[p].term_base, self.planes[p].term_count())
    }

    /// Refuses plane lists or planes that do not fit the kernel.
    fn check(
        &self,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()> {
        if reference.len() < 3 || distorted.len() < 3 {
            return Err(GpuError::Usage(format!(
                "psnr_hvs: {} reference and {} distorted planes given; Y, Cb and Cr expected",
                reference.len(),
                distorted.len()
            )));
        }
        for (i, plane) in reference[..3].iter().chain(&distorted[..3]).enumerate() {
            let d = &plane.desc;
            let s = &self.planes[i % 3];
            if (d.width, d.height, d.bpc) != (s.width, s.height, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "psnr_hvs: plane {} is {}x{} at {} bits, kernel expects {}x{} at {}",
                    i % 3,
                    d.width,
                    d.height,
                    d.bpc,
                    s.width,
                    s.height,
                    self.bpc
                )));
            }
        }
        Ok(())
    }
}
