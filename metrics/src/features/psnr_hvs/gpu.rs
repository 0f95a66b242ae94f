//! `psnr_hvs` on the GPU: the three planes' float sums of
//! [`super::plane_sum`], bit-identical, left as float bits in three result
//! words; the host finishes with [`super::plane_value`] and
//! [`PsnrHvsScore::from_plane_values`], as the twin does.
//!
//! Per frame pair, after a barrier:
//!
//! 1. `psnr_hvs_block`: one invocation per 8x8 block computes the 64 values
//!    the block adds (DCT, variances, masking, CSF weights), bit for bit as
//!    [`super::block_terms`] (its masking floors by a double product with
//!    [`Tables::mask_reciprocals`] where the twin divides), with the block
//!    in registers (every loop unrolled); the workgroup's 64 blocks store
//!    their terms together from shared memory, and their total in double (a
//!    quarter window's, for [`PlaneSum`]'s estimates). First the 256 blocks
//!    of each plane's first window of terms, then, beside
//!    `psnr_hvs_sum_first` walking those windows (one subgroup each), the
//!    rest;
//! 2. [`PlaneSum`], the three planes side by side: each plane's float sum
//!    of its terms in libvmaf's order. `psnr_hvs_sum_window` runs one
//!    workgroup per window of 16384 terms (about a thousand at 4K): on one
//!    or two grids guessed from the quarter totals before the window, the
//!    composed integer step pairs of each 64-term chunk and of the window.
//!    `psnr_hvs_sum` then walks each plane with one workgroup, 256 chunks or
//!    windows a round, from those pairs; only chunks where the sum leaves
//!    its binade are added term by term (a subgroup's width at a time).
//!
//! libvmaf's accumulator is a single float per plane, so every addition
//! rounds and no tree or partial sums of floats or doubles reproduce its
//! value; [`PlaneSum`] reproduces the serial float additions exactly with
//! integer steps that compose, and explains why.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Submitter,
    Timestamps, upload_buffer, vk,
};
use vqscope_video::Geometry;

use super::{COEFFS, PsnrHvsScore, Tables, blocks_along, check_geometry, plane_value};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::Steps;

/// What [`PsnrHvsKernel::record`] times: the blocks' terms (and their
/// quarter-window totals) with the first windows' walks beside them, then
/// the sum's two other passes.
pub const PHASES: [&str; 3] = ["blocks + first windows", "sum windows", "sum walk"];

/// Invocations per `psnr_hvs_block` workgroup (its `local_size_x`), one a
/// block; its dispatches start at multiples of it.
const BLOCK_GROUP: u32 = 64;
/// 32-bit words of one plane's tables (`TABLE_WORDS` in
/// psnr_hvs_block.comp; the two must agree): 64 CSF and 64 mask floats,
/// then the mask's 64 reciprocals as doubles.
const TABLE_WORDS: usize = 4 * COEFFS;
/// Terms of a chunk (`PER` in psnr_hvs_sum.glsl).
const CHUNK: u32 = 64;
/// Chunks of a window (`CHUNKS` there).
const CHUNKS: u32 = 256;
/// Terms of a window.
const WINDOW: u32 = CHUNK * CHUNKS;
/// `uvec4`s per window in the windows buffer (`WIN_STRIDE` there).
const WIN_STRIDE: u64 = 2;
// A `psnr_hvs_block` workgroup's terms are a quarter window, whose total it
// writes.
const _: () = assert!(BLOCK_GROUP * COEFFS as u32 * 4 == WINDOW);
/// Rounds per `psnr_hvs_sum` dispatch on a CPU device: lavapipe ends a
/// shader's loops after 65535 iterations in all, and a round's loops take
/// at most 113 iterations, plus 3 per crossing (of which a walk has at most
/// [`MAX_CROSSINGS`]; `walk_round` in psnr_hvs_sum.glsl), so 400 rounds
/// take at most 45,962; a long walk continues in further dispatches from
/// the state the previous one stored. Other devices walk a sum in one
/// dispatch (each further one costs a barrier even when the walk is done).
const CPU_ROUNDS: u32 = 400;
/// Most additions of finite terms that leave a grid (see [`PlaneSum`]):
/// each raises the grid's exponent, from -149 to at most 105 (infinity,
/// after which the sum stops).
const MAX_CROSSINGS: u32 = 105 + 149;
/// Most terms of one sum: keeps every term index and window start in 32
/// bits and a plane's windows within one dispatch's workgroup count.
const MAX_TERMS: u32 = 1 << 30;

/// Twin of psnr_hvs_block.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct BlockPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    blocks_x: u32,
    blocks_y: u32,
    table: u32,
    block_var_scale: f32,
    quadrant_var_scale: f32,
    block_begin: u32,
    block_end: u32,
    window_base: u32,
}

/// Twin of the push constants of psnr_hvs_sum_first.comp,
/// psnr_hvs_sum_total.comp and psnr_hvs_sum_window.comp; the four must
/// agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct PassPush {
    term_base: u32,
    term_count: u32,
    window_base: u32,
}

/// Twin of psnr_hvs_sum.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct SumPush {
    term_base: u32,
    term_count: u32,
    window_base: u32,
    first: u32,
    out_word: u32,
    slot: u32,
    rounds: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_PSNR_HVS_BLOCK, METRICS_PSNR_HVS_SUM, METRICS_PSNR_HVS_SUM_FIRST,
        METRICS_PSNR_HVS_SUM_TOTAL, METRICS_PSNR_HVS_SUM_WINDOW, twin,
    };
    vec![
        twin!(BlockPush as "Push" in [METRICS_PSNR_HVS_BLOCK] {
            ref_plane, dis_plane, blocks_x, blocks_y, table, block_var_scale, quadrant_var_scale,
            block_begin, block_end, window_base,
        }),
        twin!(PassPush as "Push" in [
            METRICS_PSNR_HVS_SUM_FIRST, METRICS_PSNR_HVS_SUM_TOTAL, METRICS_PSNR_HVS_SUM_WINDOW
        ] {
            term_base, term_count, window_base,
        }),
        twin!(SumPush as "Push" in [METRICS_PSNR_HVS_SUM] {
            term_base, term_count, window_base, first, out_word, slot, rounds,
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

/// The float that adding non-negative floats one by one to a float starting
/// at 0 gives (round to nearest even at every step), computed by many
/// workgroups instead of one invocation's chain of dependent additions.
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
/// from parity `p`, `a_p + b_{(p + a_p) mod 2}`), and a run of terms has a
/// pair too. `d` is computed from `t`'s bits: below half a unit it is 0, a
/// term reaching `2^(E+24)` is clamped to `2^24`, and composed steps are
/// clamped to `2^25`. By induction over any grouping, a composed step is
/// exact while the true one is below `2^24` and at least `2^24` once it is
/// not (clamping an `a` may pick the wrong half of the next pair, but the
/// result is past `2^24` either way), which is all a crossing test needs,
/// in 32 bits. `S` never falls either, so if a run's composed step keeps
/// `S` below `2^24`, every addition in it stayed on the grid and `S` plus
/// the step is the float sum after the run; otherwise the run holds the
/// first addition that may leave the grid (`s + t` reaches the next binade,
/// or rounds up to it). Only such additions are done as float additions —
/// in double, rounded to float once, which is the correctly rounded float
/// sum because `53 ≥ 2·24 + 2` — and the sum goes on after them on the new
/// sum's grid. They raise `E` each time, so there are at most
/// [`MAX_CROSSINGS`]; all others are integer steps. A term that is infinite
/// or NaN counts as `2^128`, which overflows the sum to infinity; the sum
/// stops there, as float additions of finite terms would leave it (the
/// terms are squares of bounded CSF-weighted DCT errors, always finite).
///
/// How the work is spread. The terms are cut into windows of [`WINDOW`]
/// terms, each [`CHUNKS`] chunks of [`CHUNK`]:
///
/// 0. `psnr_hvs_sum_first`, one workgroup per sum, as soon as the sum's
///    first window of terms is written: a sum's first window starts at
///    exactly 0, so it is walked as pass 3 walks the rest, and the exact
///    state after it stored; the sum grows fast there and crosses a binade
///    every few chunks, so this runs beside other work (the rest of the
///    terms, in [`PsnrHvsKernel`]) to hide that latency. Its chunks take
///    their candidate grids from a scan of the chunk totals; its first
///    subgroup walks them, a subgroup's width of chunks a scan (no
///    workgroup barriers), and the terms of a chunk where the sum leaves
///    its binade a subgroup's width a scan.
/// 1. `psnr_hvs_sum_total`, one workgroup per quarter window: the quarter's
///    total in double. [`PsnrHvsKernel`]'s blocks pass writes these itself.
/// 2. `psnr_hvs_sum_window`, one workgroup per window after the first: the
///    totals of the quarters before it estimate the float sum at its start.
///    Its chunks' terms come through shared memory a slice at a time, read
///    in whole sectors. After `n`
///    non-negative terms a float sum lies within a factor `(1 ± 2^-24)^n`
///    of the exact one, in practice far closer, so the true grid is the
///    estimate's except near a power of two. The candidate grids are the
///    estimate's and, where the window should cross into the next binade
///    or the estimate lies within 1/64 of a binade's edge, the neighbour on
///    that side (else the estimate's alone, stored twice). On them each
///    invocation composes its chunk's pair and the workgroup the window's;
///    all are stored.
/// 3. `psnr_hvs_sum`, one workgroup per sum, walks in rounds from the exact
///    state `(S, E, next term)` pass 0 left after the first window (`walk_round` in
///    psnr_hvs_sum.glsl): its 256 invocations take the next 256 items (the
///    chunks left in the current window, then whole windows), each item's
///    pair on grid `E` (pass 2's where `E` is a candidate of the item's
///    window; a chunk off the candidates computes its pair from its terms;
///    a window off them counts as a crossing), scan the pairs (within each
///    subgroup, then across the subgroups: four workgroup barriers a
///    round) and find the first item where `S` reaches `2^24`. A window
///    there is split into its chunks next round; a chunk's terms are added
///    by the first subgroup, a subgroup's width a scan (integer steps, and
///    the float additions where the sum leaves its binade). With no
///    crossing the round ends after its 256 items. On a GPU one dispatch
///    walks the whole sum; on a CPU device [`CPU_ROUNDS`] rounds a
///    dispatch.
///
/// So a 4K luma plane's ~660 windows take three rounds, plus about two for
/// each binade the sum crosses after the first window (about ten); a window
/// off its candidates costs a round more, its chunks' pairs computed from
/// their terms. Every round advances past a window start, walks a crossing,
/// or splits a window, and each window is split at most once, which bounds
/// the rounds (see [`PlaneSum::rounds`]).
pub struct PlaneSum {
    first: ComputePipeline,
    total: ComputePipeline,
    window: ComputePipeline,
    walk: ComputePipeline,
    /// Per sum: `S`, `E`, the next term's index, split (`uvec4`s).
    state: Buffer,
    /// Per window: its candidate grids, its pairs on them.
    windows: Buffer,
    /// Per window: its four quarters' totals (doubles).
    quarters: Buffer,
    /// Per chunk: its pairs on its window's candidate grids.
    chunks: Buffer,
    slots: usize,
    window_capacity: u64,
    /// Most rounds of one `psnr_hvs_sum` dispatch ([`CPU_ROUNDS`] on a CPU
    /// device, else every round a sum may take).
    rounds_per_dispatch: u32,
}

impl PlaneSum {
    /// A summer for up to `slots` sums recorded together, of `max_terms`
    /// terms in all.
    pub fn new(ctx: &Arc<GpuContext>, slots: usize, max_terms: u64) -> vqscope_gpu::Result<Self> {
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        // Each sum may end in a partial window.
        let window_capacity = max_terms / u64::from(WINDOW) + slots as u64;
        let windows =
            Buffer::storage(ctx, "psnr_hvs sum windows", window_capacity.max(1) * WIN_STRIDE * 16)?;
        let quarters =
            Buffer::storage(ctx, "psnr_hvs sum quarter totals", window_capacity.max(1) * 4 * 8)?;
        let chunks = Buffer::storage(
            ctx,
            "psnr_hvs sum chunks",
            window_capacity.max(1) * u64::from(CHUNKS) * 16,
        )?;
        Ok(Self {
            // Both walks scan within subgroups (lanes 0 .. size - 1).
            first: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/psnr_hvs_sum_first",
                    full_subgroups: true,
                    ..PipelineDesc::new(vqscope_shaders::METRICS_PSNR_HVS_SUM_FIRST)
                },
            )?,
            total: pipeline(
                "metrics/psnr_hvs_sum_total",
                vqscope_shaders::METRICS_PSNR_HVS_SUM_TOTAL,
            )?,
            window: pipeline(
                "metrics/psnr_hvs_sum_window",
                vqscope_shaders::METRICS_PSNR_HVS_SUM_WINDOW,
            )?,
            walk: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/psnr_hvs_sum",
                    full_subgroups: true,
                    ..PipelineDesc::new(vqscope_shaders::METRICS_PSNR_HVS_SUM)
                },
            )?,
            state: Buffer::storage(ctx, "psnr_hvs sum state", slots.max(1) as u64 * 16)?,
            windows,
            quarters,
            chunks,
            slots,
            window_capacity,
            rounds_per_dispatch: if ctx.info().device_type == vk::PhysicalDeviceType::CPU {
                CPU_ROUNDS
            } else {
                u32::MAX
            },
        })
    }

    /// Windows of a sum of `term_count` terms.
    fn windows_of(term_count: u32) -> u32 {
        term_count.div_ceil(WINDOW)
    }

    /// Most rounds pass 3 takes for `term_count` terms. A round either ends
    /// after its items, which passes at least one window start unless it is
    /// the last (its items are the rest of a window and at least one window,
    /// or a split window's 256 chunks); or walks a chunk holding a
    /// crossing; or splits a window, which the next round covers in chunks,
    /// so no window is split twice.
    fn rounds(term_count: u32) -> u32 {
        2 * Self::windows_of(term_count) + 1 + MAX_CROSSINGS
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
        let window_base = self.window_bases(jobs)?;
        self.record_totals(rec, terms, jobs, &window_base)?;
        self.record_first(rec, terms, jobs, &window_base)?;
        rec.barrier();
        self.record_rest(rec, terms, jobs, &window_base, results, &mut Steps::new(None))
    }

    /// Each job's first window in the windows buffer, once `jobs` are known
    /// to fit.
    fn window_bases(&self, jobs: &[SumJob]) -> vqscope_gpu::Result<Vec<u32>> {
        if jobs.len() > self.slots {
            return Err(GpuError::Usage(format!(
                "psnr_hvs: {} sums recorded on a summer for {}",
                jobs.len(),
                self.slots
            )));
        }
        if let Some(job) = jobs.iter().find(|j| j.term_count > MAX_TERMS) {
            return Err(GpuError::Usage(format!(
                "psnr_hvs: a sum of {} terms; at most {MAX_TERMS}",
                job.term_count
            )));
        }
        let mut window_base = Vec::with_capacity(jobs.len());
        let mut next = 0u64;
        for job in jobs {
            window_base.push(next as u32);
            next += u64::from(Self::windows_of(job.term_count));
        }
        if next > self.window_capacity {
            return Err(GpuError::Usage(format!(
                "psnr_hvs: {next} windows of terms recorded on a summer for {}",
                self.window_capacity
            )));
        }
        Ok(window_base)
    }

    /// Each sum's quarter-window totals (`psnr_hvs_sum_total`), which the
    /// passes after the first windows read; the psnr_hvs kernel's blocks
    /// pass writes them itself.
    fn record_totals(
        &self,
        rec: &mut Recorder<'_>,
        terms: &Buffer,
        jobs: &[SumJob],
        window_base: &[u32],
    ) -> vqscope_gpu::Result<()> {
        for (job, &base) in jobs.iter().zip(window_base) {
            let quarters = job.term_count.div_ceil(WINDOW / 4);
            if quarters == 0 {
                continue;
            }
            let push = PassPush {
                term_base: job.term_base,
                term_count: job.term_count,
                window_base: base,
            };
            rec.dispatch(
                &self.total,
                &[Binding::Buffer(terms), Binding::Buffer(&self.quarters)],
                bytemuck::bytes_of(&push),
                [quarters, 1, 1],
            )?;
        }
        Ok(())
    }

    /// Each sum's first window (`psnr_hvs_sum_first`), once its first
    /// [`WINDOW`] terms are written: it reads nothing else, so the caller
    /// may record other work beside it without a barrier.
    fn record_first(
        &self,
        rec: &mut Recorder<'_>,
        terms: &Buffer,
        jobs: &[SumJob],
        window_base: &[u32],
    ) -> vqscope_gpu::Result<()> {
        for (job, &base) in jobs.iter().zip(window_base) {
            if job.term_count == 0 {
                continue;
            }
            // The window's terms alone where their offset allows (every
            // device's storage buffer offset alignment divides 256 bytes).
            let (first_terms, term_base) = if job.term_base % 64 == 0 {
                let len = job.term_count.min(WINDOW);
                (Binding::BufferRange(terms, u64::from(job.term_base) * 4, u64::from(len) * 4), 0)
            } else {
                (Binding::Buffer(terms), job.term_base)
            };
            let bindings = [first_terms, Binding::Buffer(&self.windows)];
            let push = PassPush { term_base, term_count: job.term_count, window_base: base };
            rec.dispatch(&self.first, &bindings, bytemuck::bytes_of(&push), [1, 1, 1])?;
        }
        Ok(())
    }

    /// The passes after the first windows, once every term and quarter
    /// total is written and [`PlaneSum::record_first`]'s work is done, with
    /// `steps` stamping the end of each (windows, walk).
    fn record_rest(
        &self,
        rec: &mut Recorder<'_>,
        terms: &Buffer,
        jobs: &[SumJob],
        window_base: &[u32],
        results: &Buffer,
        steps: &mut Steps<'_>,
    ) -> vqscope_gpu::Result<()> {
        // Every window but the first (the totals of all quarters before it
        // estimate its start).
        let bindings = [
            Binding::Buffer(terms),
            Binding::Buffer(&self.windows),
            Binding::Buffer(&self.chunks),
            Binding::Buffer(&self.quarters),
        ];
        for (job, &base) in jobs.iter().zip(window_base) {
            let count = Self::windows_of(job.term_count).saturating_sub(1);
            if count == 0 {
                continue;
            }
            let push = PassPush {
                term_base: job.term_base,
                term_count: job.term_count,
                window_base: base,
            };
            rec.dispatch(&self.window, &bindings, bytemuck::bytes_of(&push), [count, 1, 1])?;
        }
        steps.barrier(rec);
        let dispatches = jobs
            .iter()
            .map(|j| Self::rounds(j.term_count).div_ceil(self.rounds_per_dispatch))
            .max()
            .unwrap_or(0);
        for round in 0..dispatches {
            if round > 0 {
                rec.barrier();
            }
            for (slot, (job, &base)) in jobs.iter().zip(window_base).enumerate() {
                let push = SumPush {
                    term_base: job.term_base,
                    term_count: job.term_count,
                    window_base: base,
                    first: u32::from(round == 0),
                    out_word: job.out_word,
                    slot: slot as u32,
                    rounds: self.rounds_per_dispatch,
                };
                rec.dispatch(
                    &self.walk,
                    &[
                        Binding::Buffer(terms),
                        Binding::Buffer(&self.windows),
                        Binding::Buffer(&self.chunks),
                        Binding::Buffer(results),
                        Binding::Buffer(&self.state),
                    ],
                    bytemuck::bytes_of(&push),
                    [1, 1, 1],
                )?;
            }
        }
        steps.barrier(rec);
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
        // Per plane, TABLE_WORDS words: the CSF, the mask (floats), the
        // mask's reciprocals (doubles); psnr_hvs_block.comp reads them there.
        let table_bytes: Vec<u8> = (0..3)
            .flat_map(|p| {
                let t = Tables::libvmaf(p);
                let floats = t.csf.into_iter().chain(t.mask).flat_map(f32::to_le_bytes);
                floats.chain(t.mask_reciprocals().into_iter().flat_map(f64::to_le_bytes))
            })
            .collect();
        debug_assert_eq!(table_bytes.len(), 3 * 4 * TABLE_WORDS);
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
            sum: PlaneSum::new(ctx, 3, u64::from(next))?,
            tables,
            terms,
        })
    }

    /// Records the three planes' sums into `results[offset_words..+3]`.
    /// `reference` and `distorted` hold Y, Cb and Cr. With `stamps`, a
    /// timestamp starts the work and one ends each of [`PHASES`].
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
        results: &Buffer,
        offset_words: u32,
        stamps: Option<&Timestamps>,
    ) -> vqscope_gpu::Result<()> {
        self.check(reference, distorted)?;
        let mut steps = Steps::new(stamps.map(|s| (s, 0)));
        let jobs: [SumJob; 3] = std::array::from_fn(|p| SumJob {
            term_base: self.planes[p].term_base,
            term_count: self.planes[p].term_count(),
            out_word: offset_words + p as u32,
        });
        let window_base = self.sum.window_bases(&jobs)?;
        // Earlier frames may still read the terms.
        steps.barrier(rec);
        // The blocks of each plane's first window, then that window's walk
        // (a chain of rounds on one workgroup) beside the other blocks.
        // The blocks also write the quarter-window totals, in place of
        // the sum's own pass over the terms.
        let first_blocks = WINDOW / COEFFS as u32;
        for (p, &base) in window_base.iter().enumerate() {
            self.record_blocks(rec, reference, distorted, p, 0..first_blocks, base)?;
        }
        rec.barrier();
        self.sum.record_first(rec, &self.terms, &jobs, &window_base)?;
        for (p, &base) in window_base.iter().enumerate() {
            self.record_blocks(rec, reference, distorted, p, first_blocks..u32::MAX, base)?;
        }
        steps.barrier(rec);
        self.sum.record_rest(rec, &self.terms, &jobs, &window_base, results, &mut steps)
    }

    /// Plane `p`'s blocks in `blocks` (clipped to the plane's; starting at
    /// a multiple of [`BLOCK_GROUP`]), if any; the plane's sum starts at
    /// window `window_base` of the summer's buffers.
    fn record_blocks(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
        p: usize,
        blocks: std::ops::Range<u32>,
        window_base: u32,
    ) -> vqscope_gpu::Result<()> {
        debug_assert_eq!(blocks.start % BLOCK_GROUP, 0, "a workgroup is a quarter window");
        let slot = &self.planes[p];
        let end = blocks.end.min(slot.blocks());
        if blocks.start >= end {
            return Ok(());
        }
        let push = BlockPush {
            ref_plane: reference[p].desc,
            dis_plane: distorted[p].desc,
            blocks_x: slot.blocks_x,
            blocks_y: slot.blocks_y,
            table: p as u32,
            block_var_scale: 1.0f32 / 63.0 * 64.0,
            quadrant_var_scale: 1.0f32 / 15.0 * 16.0,
            block_begin: blocks.start,
            block_end: end,
            window_base,
        };
        rec.dispatch(
            &self.block,
            &[
                Binding::Buffer(reference[p].buffer),
                Binding::Buffer(distorted[p].buffer),
                Binding::Buffer(&self.tables),
                Binding::BufferRange(
                    &self.terms,
                    u64::from(slot.term_base + blocks.start * COEFFS as u32) * 4,
                    u64::from(end - blocks.start) * COEFFS as u64 * 4,
                ),
                Binding::Buffer(&self.sum.quarters),
            ],
            bytemuck::bytes_of(&push),
            [(end - blocks.start).div_ceil(BLOCK_GROUP), 1, 1],
        )
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
