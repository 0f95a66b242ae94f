//! `float_vif` on the GPU: the per-scale sums of the CPU twin
//! ([`super::frame_sums`]), bit-identical. Every per-pixel value (input
//! floats, decimated planes, the five filtered planes, each pixel's `num`
//! and `den`) equals the twin's bit for bit, and the sums keep libvmaf's
//! `f32` order exactly (the shared [`crate::row_sums`]): one invocation per
//! row adds that row's stored values in column order, then one invocation
//! per scale and quantity adds the row totals in row order.
//!
//! Per frame, [`FloatVifKernel::record`] records, each group after a
//! barrier:
//!
//! 1. `float_vif_input`: the luma pair to floats (`v / 2^(bpc−8) − 128`);
//! 2. per scale `k`: `float_vif_stat` (filters in shared-memory tiles and
//!    the statistic, per-pixel `num`/`den` stored), beside it
//!    `float_vif_decimate` ×2 towards scale `k + 1` and the row sums of
//!    scale `k − 1` (num and den, each row left to right), which touch
//!    disjoint memory;
//! 3. the row sums of scale 3, then their totals, which leave the eight
//!    sums (num, den per scale) as `f64` bits in the result buffer.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder, Shader, Submitter,
    Timestamps, upload_buffer,
};

use super::filter::filter_taps;
use super::stat::{EPS, StatConstants, log2_poly};
use super::{FloatVifOptions, FloatVifSums, check_options, scale_sizes, scaler};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::Steps;
use crate::features::float_ssim::gpu::check_plane;
use crate::row_sums::{ResultWord, RowLayout, RowSegment, RowSums, RowValues};

/// Output tile of `float_vif_decimate` (TW x TH).
const TILE: (u32, u32) = (32, 8);
/// `float_vif_stat`'s tile: vertical-pass columns, rows, and pixels per
/// horizontal task (`VCOLS`, `TH`, `P` in the shader).
const STAT_VCOLS: u32 = 128;
const STAT_TH: u32 = 8;
const STAT_P: u32 = 4;
/// Local size of `float_vif_input` (16 x 16).
const INPUT_WG: u32 = 16;
/// Where the taps start in the constants buffer (after the log2
/// polynomial and eps), as float_vif_common.glsl lays it out.
const CONST_TAPS: u32 = 10;
/// The largest filter the shaders hold (`TAPS_MAX`).
const TAPS_MAX: usize = 69;

/// Twin of float_vif_input.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct InputPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    dis_at: u32,
    sample_scale: f32,
}

/// Twin of float_vif_decimate.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DecimatePush {
    src_width: u32,
    src_height: u32,
    src_dis_at: u32,
    dst_width: u32,
    dst_height: u32,
    dst_dis_at: u32,
    taps_at: u32,
    taps: u32,
}

/// Twin of float_vif_stat.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct StatPush {
    sigma_nsq: f64,
    width: u32,
    height: u32,
    dis_at: u32,
    den_at: u32,
    taps_at: u32,
    gain_limit: f32,
    sigma_max_inv: f32,
    /// Puts the next `f64` at its alignment.
    pad0: u32,
    /// [`exact_reciprocal`] of `sigma_nsq`, or 0 (divide).
    sigma_nsq_reciprocal: f64,
}

/// `1/x` where it is a double and `x` a positive normal power of two (the
/// default `vif_sigma_nsq` is 2), else 0. A product with an exact
/// reciprocal is the quotient's correctly rounded value, as the division's
/// is, so float_vif_stat.comp multiplies instead of dividing by
/// `sigma_nsq` (one double division a pixel fewer) where this is not 0.
fn exact_reciprocal(x: f64) -> f64 {
    const FRACTION: u64 = (1 << 52) - 1;
    let bits = x.to_bits();
    let power_of_two = x > 0.0 && x.is_normal() && bits & FRACTION == 0;
    let reciprocal = 1.0 / x;
    if power_of_two && reciprocal.is_normal() { reciprocal } else { 0.0 }
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_FLOAT_VIF_DECIMATE, METRICS_FLOAT_VIF_INPUT, METRICS_FLOAT_VIF_STAT, twin,
    };
    vec![
        twin!(InputPush as "Push" in [METRICS_FLOAT_VIF_INPUT] {
            ref_plane, dis_plane, dis_at, sample_scale,
        }),
        twin!(DecimatePush as "Push" in [METRICS_FLOAT_VIF_DECIMATE] {
            src_width, src_height, src_dis_at, dst_width, dst_height, dst_dis_at, taps_at, taps,
        }),
        twin!(StatPush as "Push" in [METRICS_FLOAT_VIF_STAT] {
            sigma_nsq, width, height, dis_at, den_at, taps_at, gain_limit, sigma_max_inv, pad0,
            sigma_nsq_reciprocal,
        }),
    ]
}

/// Alignment of every range a dispatch binds (a storage-buffer range
/// offset must be a multiple of minStorageBufferOffsetAlignment, at most
/// 256). Each dispatch binds exactly the ranges it touches, so the
/// dispatches between two barriers touch disjoint memory (and validation
/// can see that they do).
const RANGE_ALIGN: u64 = 256;

/// Where one scale's data lives: the byte ranges of its two planes
/// (reference, then distorted from float `n`), of its per-pixel num and den
/// (den from float `n`) and of its num and den row totals (den from float
/// `height`); and its taps in the constants buffer.
#[derive(Debug, Clone, Copy)]
struct ScaleLayout {
    width: u32,
    height: u32,
    planes: (u64, u64),
    pixels: (u64, u64),
    rows: (u64, u64),
    taps_at: u32,
    taps: u32,
}

impl ScaleLayout {
    fn samples(&self) -> u32 {
        self.width * self.height
    }
}

/// Reserves `floats` floats at the next aligned byte of `*end`.
fn place(end: &mut u64, floats: u32) -> (u64, u64) {
    let at = end.next_multiple_of(RANGE_ALIGN);
    let len = u64::from(floats) * 4;
    *end = at + len;
    (at, len)
}

/// Pixel columns of a `float_vif_stat` tile for a filter of `taps` taps
/// (`TW` in the shader): what the vertical pass's columns leave beside the
/// halo, in whole horizontal tasks.
fn stat_tile_width(taps: u32) -> u32 {
    (STAT_VCOLS - 2 * (taps / 2)) / STAT_P * STAT_P
}

fn pipeline(
    ctx: &Arc<GpuContext>,
    name: &str,
    shader: &Shader,
) -> vqscope_gpu::Result<ComputePipeline> {
    ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
}

/// `float_vif_stat` for each scale, its filter width a specialization
/// constant (the shader's block loops need it at compile time).
fn stat_pipelines(
    ctx: &Arc<GpuContext>,
    scales: &[ScaleLayout; 4],
) -> vqscope_gpu::Result<[ComputePipeline; 4]> {
    let make = |s: &ScaleLayout| {
        let spec = [(0u32, s.taps)];
        ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/float_vif_stat",
                specialization: &spec,
                ..PipelineDesc::new(vqscope_shaders::METRICS_FLOAT_VIF_STAT)
            },
        )
    };
    Ok([make(&scales[0])?, make(&scales[1])?, make(&scales[2])?, make(&scales[3])?])
}

/// `float_vif` for one luma geometry and option set, intermediates
/// allocated once.
pub struct FloatVifKernel {
    width: u32,
    height: u32,
    bpc: u32,
    first_scale: usize,
    stat_constants: StatConstants,
    scales: [ScaleLayout; 4],
    input: ComputePipeline,
    decimate: ComputePipeline,
    /// `float_vif_stat` per scale, specialized to the scale's filter width.
    stat: [ComputePipeline; 4],
    row_sums: RowSums,
    consts: Buffer,
    planes: Buffer,
    pixels: Buffer,
    row_totals: Buffer,
}

impl FloatVifKernel {
    /// Result slots: num and den of scales 0..3 in turn, each the bits of
    /// its `f32` sum widened to `f64` (0 for a scale not computed).
    pub const RESULT_WORDS: u32 = 8;

    /// What [`FloatVifKernel::record_profiled`] times, in order.
    pub const PROFILE_PHASES: [&'static str; 7] =
        ["input", "scale 0", "scale 1", "scale 2", "scale 3", "rows 3", "fold"];

    /// A kernel for `width × height` luma planes at `bpc` bits; refuses what
    /// the twin refuses, with the same errors.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        opts: &FloatVifOptions,
    ) -> Result<Self, MetricsError> {
        scaler(bpc)?;
        check_options(width as usize, height as usize, opts)?;
        let mut consts: Vec<f32> = log2_poly().to_vec();
        consts.push(EPS);
        debug_assert_eq!(consts.len(), CONST_TAPS as usize);
        let sizes = scale_sizes(width as usize, height as usize);
        let (mut planes_len, mut pixels_len, mut rows_len) = (0u64, 0u64, 0u64);
        let scales: [ScaleLayout; 4] = std::array::from_fn(|k| {
            let (w, h) = (sizes[k].0 as u32, sizes[k].1 as u32);
            let taps = filter_taps(k, opts.kernelscale);
            assert!(taps.len() <= TAPS_MAX, "filter of {} taps", taps.len());
            let taps_at = consts.len() as u32;
            consts.extend(&taps);
            ScaleLayout {
                width: w,
                height: h,
                planes: place(&mut planes_len, 2 * w * h),
                pixels: place(&mut pixels_len, 2 * w * h),
                rows: place(&mut rows_len, 2 * h),
                taps_at,
                taps: taps.len() as u32,
            }
        });
        let mut submitter = Submitter::new(ctx, 1)?;
        let const_bytes: Vec<u8> = consts.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok(Self {
            width,
            height,
            bpc,
            first_scale: opts.first_scale(),
            stat_constants: opts.stat_constants(),
            scales,
            input: pipeline(
                ctx,
                "metrics/float_vif_input",
                vqscope_shaders::METRICS_FLOAT_VIF_INPUT,
            )?,
            decimate: pipeline(
                ctx,
                "metrics/float_vif_decimate",
                vqscope_shaders::METRICS_FLOAT_VIF_DECIMATE,
            )?,
            stat: stat_pipelines(ctx, &scales)?,
            row_sums: RowSums::new(ctx, RowValues::Stored, ResultWord::DoubleBits)?,
            consts: upload_buffer(ctx, &mut submitter, "float_vif constants", &const_bytes)?,
            planes: Buffer::storage(ctx, "float_vif planes", planes_len)?,
            pixels: Buffer::storage(ctx, "float_vif pixel values", pixels_len)?,
            row_totals: Buffer::storage(ctx, "float_vif row totals", rows_len)?,
        })
    }

    /// Records one frame pair: leaves [`FloatVifKernel::RESULT_WORDS`] words
    /// in `results` from `offset_words`.
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

    /// [`FloatVifKernel::record`] with a timestamp before the first step
    /// (query 0 of `stamps`, reset beforehand) and after each of
    /// [`FloatVifKernel::PROFILE_PHASES`].
    pub fn record_profiled(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        stamps: &Timestamps,
    ) -> vqscope_gpu::Result<()> {
        let steps = Steps::new(Some((stamps, 0)));
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
            check_plane("float_vif", plane, self.width, self.height, self.bpc)?;
        }
        // Earlier frames may still read the intermediates.
        steps.barrier(rec);
        self.record_input(rec, reference, distorted)?;
        for k in 0..4 {
            steps.barrier(rec);
            if k >= self.first_scale {
                self.record_stat(rec, k)?;
            }
            if k + 1 < 4 {
                self.record_decimate(rec, k + 1)?;
            }
            if k > self.first_scale {
                self.record_rows(rec, k - 1)?;
            }
        }
        steps.barrier(rec);
        self.record_rows(rec, 3)?;
        steps.barrier(rec);
        self.record_fold(rec, results, offset_words)?;
        steps.barrier(rec);
        Ok(())
    }

    fn record_input(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
    ) -> vqscope_gpu::Result<()> {
        let s = &self.scales[0];
        let push = InputPush {
            ref_plane: reference.desc,
            dis_plane: distorted.desc,
            dis_at: s.samples(),
            sample_scale: 1.0 / scaler(self.bpc).unwrap_or(1.0),
        };
        rec.dispatch(
            &self.input,
            &[
                Binding::Buffer(reference.buffer),
                Binding::Buffer(distorted.buffer),
                Binding::BufferRange(&self.planes, s.planes.0, s.planes.1),
            ],
            bytemuck::bytes_of(&push),
            [self.width.div_ceil(INPUT_WG), self.height.div_ceil(INPUT_WG), 1],
        )
    }

    fn record_stat(&self, rec: &mut Recorder<'_>, k: usize) -> vqscope_gpu::Result<()> {
        let s = &self.scales[k];
        let c = &self.stat_constants;
        let push = StatPush {
            sigma_nsq: c.sigma_nsq,
            width: s.width,
            height: s.height,
            dis_at: s.samples(),
            den_at: s.samples(),
            taps_at: s.taps_at,
            gain_limit: c.gain_limit,
            sigma_max_inv: c.sigma_max_inv,
            pad0: 0,
            sigma_nsq_reciprocal: exact_reciprocal(c.sigma_nsq),
        };
        rec.dispatch(
            &self.stat[k],
            &[
                Binding::BufferRange(&self.planes, s.planes.0, s.planes.1),
                Binding::Buffer(&self.consts),
                Binding::BufferRange(&self.pixels, s.pixels.0, s.pixels.1),
            ],
            bytemuck::bytes_of(&push),
            [s.width.div_ceil(stat_tile_width(s.taps)), s.height.div_ceil(STAT_TH), 1],
        )
    }

    /// Scale `k`'s planes from scale `k − 1`'s, with scale `k`'s taps.
    fn record_decimate(&self, rec: &mut Recorder<'_>, k: usize) -> vqscope_gpu::Result<()> {
        let (src, dst) = (&self.scales[k - 1], &self.scales[k]);
        let push = DecimatePush {
            src_width: src.width,
            src_height: src.height,
            src_dis_at: src.samples(),
            dst_width: dst.width,
            dst_height: dst.height,
            dst_dis_at: dst.samples(),
            taps_at: dst.taps_at,
            taps: dst.taps,
        };
        rec.dispatch(
            &self.decimate,
            &[
                Binding::BufferRange(&self.planes, src.planes.0, src.planes.1),
                Binding::BufferRange(&self.planes, dst.planes.0, dst.planes.1),
                Binding::Buffer(&self.consts),
            ],
            bytemuck::bytes_of(&push),
            [dst.width.div_ceil(TILE.0), dst.height.div_ceil(TILE.1), 2],
        )
    }

    fn record_rows(&self, rec: &mut Recorder<'_>, k: usize) -> vqscope_gpu::Result<()> {
        let s = &self.scales[k];
        // Each range holds num's plane (row totals), then den's.
        let layout = RowLayout::single(
            RowSegment { rows: s.height, cols: s.width, vals_base: 0, sums_base: 0 },
            2,
        );
        self.row_sums.record_rows(
            rec,
            Binding::BufferRange(&self.pixels, s.pixels.0, s.pixels.1),
            Binding::BufferRange(&self.row_totals, s.rows.0, s.rows.1),
            &layout,
        )
    }

    fn record_fold(
        &self,
        rec: &mut Recorder<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        // A scale not computed has no row totals: 0 rows, a sum of 0.
        let layout = RowLayout {
            segments: std::array::from_fn(|k| {
                let s = &self.scales[k];
                RowSegment {
                    rows: if k >= self.first_scale { s.height } else { 0 },
                    cols: s.width,
                    vals_base: 0,
                    sums_base: (s.rows.0 / 4) as u32,
                }
            }),
            count: 4,
            fields: 2,
        };
        self.row_sums.record_totals(
            rec,
            Binding::Buffer(&self.row_totals),
            results,
            &layout,
            offset_words,
        )
    }

    /// The frame's sums from its [`FloatVifKernel::RESULT_WORDS`] words.
    pub fn decode(&self, words: &[i64]) -> FloatVifSums {
        let sum = |i: usize| ResultWord::DoubleBits.decode(words[i]);
        FloatVifSums {
            num: std::array::from_fn(|k| sum(2 * k)),
            den: std::array::from_fn(|k| sum(2 * k + 1)),
            skip_scale0: self.first_scale > 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::exact_reciprocal;

    #[test]
    fn reciprocal_only_where_exact() {
        assert_eq!([exact_reciprocal(2.0), exact_reciprocal(0.25)], [0.5, 4.0]);
        let subnormal = f64::MIN_POSITIVE / 2.0;
        for x in [0.0, -2.0, 0.7, 3.0, 2f64.powi(1023), subnormal, f64::INFINITY, f64::NAN] {
            assert_eq!(exact_reciprocal(x), 0.0, "{x}");
        }
    }
}
