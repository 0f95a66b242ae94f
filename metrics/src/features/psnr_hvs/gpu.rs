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
//! 2. `psnr_hvs_sum` per plane (the three run side by side): the float sum
//!    of that plane's terms in libvmaf's order, as [`PlaneSum`] explains.
//!
//! libvmaf's accumulator is a single float per plane, so every addition
//! rounds and no tree or partial sums of floats or doubles reproduce its
//! value; [`PlaneSum`] reproduces the serial float additions exactly with
//! integer prefix scans.

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
/// Terms one `psnr_hvs_sum` window covers: its 256 invocations times 64
/// (`GROUP * PER` there).
const SUM_WINDOW: u32 = 256 * 64;
/// Windows per `psnr_hvs_sum` dispatch (`WINDOWS` there): lavapipe ends a
/// shader's loops after 65535 iterations in all, so a long sum continues
/// in further dispatches from the state the previous one stored.
const SUM_WINDOWS: u32 = 128;
/// Most additions of finite terms that leave a grid (see [`PlaneSum`]):
/// each raises the grid's exponent, from -149 to at most 105 (infinity,
/// after which the sum stops).
const MAX_CROSSINGS: u32 = 105 + 149;

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
    term_count: u32,
    first: u32,
    out_word: u32,
    slot: u32,
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
            term_base, term_count, first, out_word, slot,
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

/// One float sum for [`PlaneSum::record`]: `term_count` floats of the
/// terms buffer from float `term_base`, added in order; the sum's float
/// bits go to `results[out_word]`.
#[derive(Debug, Clone, Copy)]
pub struct SumJob {
    pub term_base: u32,
    pub term_count: u32,
    pub out_word: u32,
}

/// The float that adding non-negative finite floats one by one to a float
/// starting at 0 gives (round to nearest even at every step), computed by
/// workgroup scans instead of one invocation's chain of dependent
/// additions; `psnr_hvs_sum` on one workgroup per sum.
///
/// Why it is exact. Write the running sum as `s = S · 2^E`, with `E` the
/// exponent of `s`'s last mantissa bit (`E = -149` while `s < 2^-125`: the
/// subnormals and the lowest normal binade share that spacing), so `S` is
/// an integer below `2^24`. The terms are `≥ 0`, so `s` never falls, and
/// while `s + t < 2^(E+24)` every float between `s` and `s + t` lies on the
/// grid of `2^E`: the rounded sum is `(S + d) · 2^E`, `d` being `t / 2^E`
/// rounded to an integer, a tie going to the even `S + d`. So `d` depends on
/// `t` and on the parity of `S` only: each term is a pair (step from an even
/// `S`, step from an odd `S`), pairs compose associatively (`a` then `b`:
/// from parity `p`, `a_p + b_{(p + a_p) mod 2}`), and a window's running
/// `S` after every term is a prefix scan of integers. `d` is computed from
/// `t`'s bits: below half a unit it is 0, a term reaching `2^(E+24)` is
/// clamped to `2^24`, and composed steps are clamped to `2^25`: a step
/// stays exact while below `2^24` and at least `2^24` once it is not
/// (clamping an `a` may pick the wrong half of the next pair, but the
/// result is past `2^24` either way), which is all a crossing test needs,
/// in 32 bits. The scanned `S` never falls either, so the first term with
/// `S + d ≥ 2^24` is where the sum may leave the grid (`s + t` reaches the next binade, or rounds up to it):
/// only that addition is done as a float addition — in double, rounded to
/// float once, which is the correctly rounded float sum because
/// `53 ≥ 2·24 + 2` — and the next window starts after it on the new sum's
/// grid. Such additions raise `E` each time, so there are at most
/// [`MAX_CROSSINGS`]; all others are integer steps. Terms must be finite
/// (psnr_hvs's are squares of bounded CSF-weighted DCT errors); a sum that
/// overflows to infinity stays there, as the float additions would.
///
/// Each window of [`SUM_WINDOW`] terms: every invocation composes its 64
/// consecutive terms' pairs, a workgroup scan gives each its starting `S`,
/// and the one invocation whose range holds the first crossing walks it
/// again to find and do that addition.
pub struct PlaneSum {
    pipeline: ComputePipeline,
    /// Per sum: `S`, `E`, the next term's index (`uvec4`s).
    state: Buffer,
    slots: usize,
}

impl PlaneSum {
    /// A summer for up to `slots` sums recorded together.
    pub fn new(ctx: &Arc<GpuContext>, slots: usize) -> vqscope_gpu::Result<Self> {
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/psnr_hvs_sum",
                ..PipelineDesc::new(vqscope_shaders::METRICS_PSNR_HVS_SUM)
            },
        )?;
        let state = Buffer::storage(ctx, "psnr_hvs sum state", slots.max(1) as u64 * 16)?;
        Ok(Self { pipeline, state, slots })
    }

    /// Dispatches a sum of `term_count` terms takes: enough windows for
    /// every term plus one per possible crossing, [`SUM_WINDOWS`] a
    /// dispatch (a dispatch with nothing left to add returns at once).
    fn dispatches(term_count: u32) -> u32 {
        (term_count / SUM_WINDOW + 1 + MAX_CROSSINGS).div_ceil(SUM_WINDOWS)
    }

    /// Records `jobs`' sums of `terms`, side by side, after the caller's
    /// barrier.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        terms: &Buffer,
        jobs: &[SumJob],
        results: &Buffer,
    ) -> vqscope_gpu::Result<()> {
        if jobs.len() > self.slots {
            return Err(GpuError::Usage(format!(
                "psnr_hvs: {} sums recorded on a summer for {}",
                jobs.len(),
                self.slots
            )));
        }
        let rounds = jobs.iter().map(|j| Self::dispatches(j.term_count)).max().unwrap_or(0);
        for round in 0..rounds {
            if round > 0 {
                rec.barrier();
            }
            for (slot, job) in jobs.iter().enumerate() {
                let push = SumPush {
                    term_base: job.term_base,
                    term_count: job.term_count,
                    first: u32::from(round == 0),
                    out_word: job.out_word,
                    slot: slot as u32,
                };
                rec.dispatch(
                    &self.pipeline,
                    &[
                        Binding::Buffer(terms),
                        Binding::Buffer(results),
                        Binding::Buffer(&self.state),
                    ],
                    bytemuck::bytes_of(&push),
                    [1, 1, 1],
                )?;
            }
        }
        Ok(())
    }
}

/// `psnr_hvs` for one video geometry, with its tables and terms allocated
/// once.
pub struct PsnrHvsKernel {
    bpc: u32,
    planes: [PlaneSlot; 3],
    block: ComputePipeline,
    sum: PlaneSum,
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
            sum: PlaneSum::new(ctx, 3)?,
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
        rec.barrier();
        let jobs: [SumJob; 3] = std::array::from_fn(|p| SumJob {
            term_base: self.planes[p].term_base,
            term_count: self.planes[p].term_count(),
            out_word: offset_words + p as u32,
        });
        self.sum.record(rec, &self.terms, &jobs, results)?;
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
