//! `float_ssim` on the GPU, with its per-pixel SSIM map kept on the device
//! for the dashboard's heat map. Every per-pixel value equals the CPU twin's
//! ([`crate::features::float_ssim`]) bit for bit; only the final sums differ in rounding.
//!
//! Per frame, [`SsimKernel::record`] records three steps, each after a
//! barrier:
//!
//! 1. `ssim_decimate` ×2 (reference, distorted): samples to floats on the
//!    0–255 scale, box-decimated by the pre-scale factor (one invocation per
//!    decimated sample);
//! 2. `ssim_scale`: one fused dispatch, each workgroup walking down four
//!    32x16 map tiles on large scales, one on small ones — the five Gaussian
//!    windows with both passes in shared
//!    memory, the per-pixel l/c/s terms, the map, and one record of four
//!    double partial sums per tile;
//! 3. `ssim_fold`: one workgroup folds the records into the four means.
//!
//! libvmaf adds the per-pixel doubles one by one in raster order; no
//! parallel reduction rounds the same way, so the means here differ from the
//! twin's by a few double ulps (far below the float rounding that follows).
//! The reduction's order is fixed by the tile grid, not by scheduling, so
//! the same input gives the same bits on every run and at every subgroup
//! size.
//!
//! The stages are shared with `float_ms_ssim` ([`crate::features::float_ms_ssim::gpu`]),
//! which adds only its low-pass step between scales.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
    Timestamps,
};

use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::Steps;
use crate::features::float_ssim::{
    GAUSSIAN_LEN, SsimConstants, SsimOptions, SsimScore, box_kernel, prescale,
};

/// Map tile of one `ssim_scale` partial record (TW x TH in ssim_scale.comp).
const TILE_W: u32 = 32;
const TILE_H: u32 = 16;
/// Tiles one `ssim_scale` workgroup walks down, one below the other, on
/// large scales: each reuses 10 of the previous tile's 26 rows of horizontal
/// filtering.
const BANDS: u32 = 4;
/// Fewest workgroups a banded `ssim_scale` dispatch may have. A workgroup's
/// walk down its tiles is serial, so on a small scale banding leaves the
/// device idle: on the H100 (132 SMs) bands sped up scales of 270 and more
/// workgroups (4K MS-SSIM scales 0-2) and slowed those of 75 and fewer
/// (scale 3 0.019 -> 0.026 ms, scale 4 0.011 -> 0.024, float_ssim's
/// pre-scaled 480x270 0.018 -> 0.026).
const MIN_BANDED_WORKGROUPS: u32 = 240;

/// Tiles per `ssim_scale` workgroup for a scale of `groups` tile records.
fn bands_for([gx, gy]: [u32; 2]) -> u32 {
    if gx * gy.div_ceil(BANDS) >= MIN_BANDED_WORKGROUPS { BANDS } else { 1 }
}
/// Doubles per `ssim_scale` tile record: l·c·s, l, c, s.
const RECORD: u32 = 4;
/// Workgroup side of `ssim_decimate` (local size 16x16).
const DECIMATE_WG: u32 = 16;

/// Twin of ssim_decimate.comp's push constants (52 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DecimatePush {
    plane: PlaneDesc,
    out_width: u32,
    out_height: u32,
    factor: u32,
    weight: f32,
    sample_scale: f32,
}

/// Twin of ssim_scale.comp's push constants (40 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct ScalePush {
    width: u32,
    height: u32,
    a_offset: u32,
    b_offset: u32,
    write_map: u32,
    partial_base: u32,
    c1: f32,
    c2: f32,
    c3: f32,
    bands: u32,
}

/// Twin of the push constants of ssim_scale.comp built with `FROM_FRAME`
/// (108 bytes): [`ScalePush`] (its plane offsets unused), then the frame's
/// planes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FrameScalePush {
    scale: ScalePush,
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    sample_scale: f32,
}

/// Twin of ssim_fold.comp's push constants (16 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FoldPush {
    partial_base: u32,
    groups: u32,
    count: u32,
    out_base: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_SSIM_DECIMATE, METRICS_SSIM_FOLD, METRICS_SSIM_SCALE,
        METRICS_SSIM_SCALE_FROM_FRAME, twin,
    };
    vec![
        twin!(DecimatePush as "Push" in [METRICS_SSIM_DECIMATE] {
            plane, out_width, out_height, factor, weight, sample_scale,
        }),
        twin!(ScalePush as "Push" in [METRICS_SSIM_SCALE] {
            width, height, a_offset, b_offset, write_map, partial_base, c1, c2, c3, bands,
        }),
        twin!(FrameScalePush as "Push" in [METRICS_SSIM_SCALE_FROM_FRAME] {
            width = scale.width, height = scale.height, a_offset = scale.a_offset,
            b_offset = scale.b_offset, write_map = scale.write_map,
            partial_base = scale.partial_base, c1 = scale.c1, c2 = scale.c2, c3 = scale.c3,
            bands = scale.bands, ref_plane, dis_plane, sample_scale,
        }),
        twin!(FoldPush as "Push" in [METRICS_SSIM_FOLD] { partial_base, groups, count, out_base }),
    ]
}

fn gpu_usage(message: String) -> GpuError {
    GpuError::Usage(message)
}

/// Alignment of each float plane inside the planes buffer, so that every
/// dispatch binds exactly the planes it touches (a range offset must be a
/// multiple of minStorageBufferOffsetAlignment, at most 256 by the Vulkan
/// spec). Disjoint ranges also let a scale's SSIM pass and the low-pass step
/// to the next scale run between the same two barriers without a hazard.
pub(crate) const PLANE_ALIGN: u64 = 256;

/// Where one scale's planes and partial records live.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScaleLayout {
    pub width: u32,
    pub height: u32,
    /// Byte offsets of the reference and distorted planes (b after a).
    pub a_byte: u64,
    pub b_byte: u64,
    /// First double of this scale's partial records.
    pub partial_base: u32,
}

impl ScaleLayout {
    /// A scale whose samples are read from the frame (no planes in the
    /// buffer: its plane offsets are 0 and unused), its records from double
    /// `*doubles` (advanced past them).
    pub fn place_records(width: u32, height: u32, doubles: &mut u32) -> Self {
        let layout = Self { width, height, a_byte: 0, b_byte: 0, partial_base: *doubles };
        *doubles += layout.partial_len();
        layout
    }

    /// Lays a scale's two planes out from byte `*end` (advanced past them),
    /// its records from double `*doubles` (advanced likewise).
    pub fn place(width: u32, height: u32, end: &mut u64, doubles: &mut u32) -> Self {
        let bytes = u64::from(width * height) * 4;
        let a_byte = end.next_multiple_of(PLANE_ALIGN);
        let b_byte = (a_byte + bytes).next_multiple_of(PLANE_ALIGN);
        *end = b_byte + bytes;
        let layout = Self { width, height, a_byte, b_byte, partial_base: *doubles };
        *doubles += layout.partial_len();
        layout
    }

    pub fn plane_bytes(&self) -> u64 {
        u64::from(self.width * self.height) * 4
    }

    /// The byte range holding both planes.
    pub fn span(&self) -> (u64, u64) {
        (self.a_byte, self.b_byte + self.plane_bytes() - self.a_byte)
    }

    /// The distorted plane's offset in floats from the reference plane's.
    pub fn b_offset(&self) -> u32 {
        ((self.b_byte - self.a_byte) / 4) as u32
    }

    pub fn map_width(&self) -> u32 {
        self.width - (GAUSSIAN_LEN as u32 - 1)
    }

    pub fn map_height(&self) -> u32 {
        self.height - (GAUSSIAN_LEN as u32 - 1)
    }

    /// `ssim_scale` tile records along x and y.
    pub fn groups(&self) -> [u32; 2] {
        [self.map_width().div_ceil(TILE_W), self.map_height().div_ceil(TILE_H)]
    }

    /// Doubles of partial records this scale writes.
    pub fn partial_len(&self) -> u32 {
        let [gx, gy] = self.groups();
        gx * gy * RECORD
    }
}

/// What a scale's input samples may be, which picks the `ssim_scale`
/// pipeline (its `NONNEGATIVE` constant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Samples {
    /// +0.0 or positive: the frame's own samples, or box-decimated ones.
    Nonnegative,
    /// Of either sign: `float_ms_ssim`'s low-passed scales (its table has
    /// negative taps).
    Signed,
}

/// Where a scale pass reads its samples.
pub(crate) enum Source<'a> {
    /// The scale's float planes in the planes buffer.
    Planes(Samples),
    /// The frame's planes (reference, distorted), converted as
    /// [`SsimStages::record_inputs`] would at factor 1.
    Frame(&'a DevicePlane<'a>, &'a DevicePlane<'a>),
}

/// Which feature the stages serve: it decides the pipelines made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SsimFeature {
    /// `float_ssim`: the input conversion/decimation and the scale pass on
    /// [`Samples::Nonnegative`] planes.
    Ssim,
    /// `float_ms_ssim`: the scale pass on [`Source::Frame`] (scale 0) and
    /// on [`Samples::Signed`] planes (the low-passed scales).
    MsSsim,
}

/// The pipelines both SSIM features share: input conversion/decimation, the
/// fused per-scale pass in its three forms and the fold, each made only for
/// the feature that records it.
pub(crate) struct SsimStages {
    decimate: Option<ComputePipeline>,
    /// The scale pass for [`Samples::Nonnegative`] planes.
    scale: Option<ComputePipeline>,
    /// The scale pass for [`Samples::Signed`] planes.
    scale_signed: Option<ComputePipeline>,
    /// The scale pass for [`Source::Frame`].
    scale_from_frame: Option<ComputePipeline>,
    fold: ComputePipeline,
    constants: SsimConstants,
}

fn pipeline(
    ctx: &Arc<GpuContext>,
    name: &str,
    shader: &Shader,
) -> vqscope_gpu::Result<ComputePipeline> {
    ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
}

/// The error of a pass recorded without its pipeline (a stage the feature
/// was not built for).
fn missing<T>(what: &str) -> vqscope_gpu::Result<T> {
    Err(gpu_usage(format!("ssim: no pipeline made for {what}")))
}

impl SsimStages {
    /// The stages `feature` records.
    pub fn new(ctx: &Arc<GpuContext>, feature: SsimFeature) -> vqscope_gpu::Result<Self> {
        let scale = |name, nonnegative: bool, shader| {
            ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name,
                    specialization: &[(0, u32::from(nonnegative))],
                    ..PipelineDesc::new(shader)
                },
            )
        };
        let planes_shader = vqscope_shaders::METRICS_SSIM_SCALE;
        let (ssim, ms_ssim) = (feature == SsimFeature::Ssim, feature == SsimFeature::MsSsim);
        Ok(Self {
            decimate: ssim
                .then(|| {
                    pipeline(ctx, "metrics/ssim_decimate", vqscope_shaders::METRICS_SSIM_DECIMATE)
                })
                .transpose()?,
            scale: ssim.then(|| scale("metrics/ssim_scale", true, planes_shader)).transpose()?,
            scale_signed: ms_ssim
                .then(|| scale("metrics/ssim_scale (signed)", false, planes_shader))
                .transpose()?,
            // The frame's samples are never negative.
            scale_from_frame: ms_ssim
                .then(|| {
                    let shader = vqscope_shaders::METRICS_SSIM_SCALE_FROM_FRAME;
                    scale("metrics/ssim_scale (from frame)", true, shader)
                })
                .transpose()?,
            fold: pipeline(ctx, "metrics/ssim_fold", vqscope_shaders::METRICS_SSIM_FOLD)?,
            constants: SsimConstants::libvmaf(),
        })
    }

    /// Records the scale-0 planes of `layout` from the frame's planes:
    /// converted to floats and box-decimated by `factor` (1: conversion only).
    pub fn record_inputs(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        factor: u32,
        layout: &ScaleLayout,
        planes: &Buffer,
    ) -> vqscope_gpu::Result<()> {
        for (plane, at) in [(reference, layout.a_byte), (distorted, layout.b_byte)] {
            self.record_input(rec, plane, factor, layout, planes, at)?;
        }
        Ok(())
    }

    fn record_input(
        &self,
        rec: &mut Recorder<'_>,
        plane: &DevicePlane<'_>,
        factor: u32,
        layout: &ScaleLayout,
        planes: &Buffer,
        at: u64,
    ) -> vqscope_gpu::Result<()> {
        let (out_width, out_height) = (layout.width, layout.height);
        let push = DecimatePush {
            plane: plane.desc,
            out_width,
            out_height,
            factor,
            weight: box_kernel(factor as usize)[0],
            sample_scale: sample_scale(plane),
        };
        let Some(decimate) = &self.decimate else { return missing("the input conversion") };
        rec.dispatch(
            decimate,
            &[
                Binding::Buffer(plane.buffer),
                Binding::BufferRange(planes, at, layout.plane_bytes()),
            ],
            bytemuck::bytes_of(&push),
            [out_width.div_ceil(DECIMATE_WG), out_height.div_ceil(DECIMATE_WG), 1],
        )
    }

    /// Records the fused pass of one scale, its samples from `source`: its
    /// map into `map` (when given; `None` binds `no_map`, which the shader
    /// then never writes) and its partial records into `partials`.
    pub fn record_scale(
        &self,
        rec: &mut Recorder<'_>,
        source: Source<'_>,
        layout: &ScaleLayout,
        planes: &Buffer,
        map: Result<&Buffer, &Buffer>,
        partials: &Buffer,
    ) -> vqscope_gpu::Result<()> {
        let k = &self.constants;
        let bands = bands_for(layout.groups());
        let push = ScalePush {
            width: layout.width,
            height: layout.height,
            a_offset: 0,
            b_offset: layout.b_offset(),
            write_map: u32::from(map.is_ok()),
            partial_base: layout.partial_base,
            c1: k.c1,
            c2: k.c2,
            c3: k.c3,
            bands,
        };
        let map = map.unwrap_or_else(|no_map| no_map);
        let groups = {
            let [gx, gy] = layout.groups();
            [gx, gy.div_ceil(bands), 1]
        };
        match source {
            Source::Planes(samples) => {
                let pipeline = match samples {
                    Samples::Nonnegative => &self.scale,
                    Samples::Signed => &self.scale_signed,
                };
                let Some(pipeline) = pipeline else { return missing("those samples") };
                let (start, len) = layout.span();
                rec.dispatch(
                    pipeline,
                    &[
                        Binding::BufferRange(planes, start, len),
                        Binding::Buffer(map),
                        Binding::Buffer(partials),
                    ],
                    bytemuck::bytes_of(&push),
                    groups,
                )
            }
            Source::Frame(reference, distorted) => {
                let Some(pipeline) = &self.scale_from_frame else {
                    return missing("the frame's samples");
                };
                let push = FrameScalePush {
                    scale: push,
                    ref_plane: reference.desc,
                    dis_plane: distorted.desc,
                    sample_scale: sample_scale(reference),
                };
                rec.dispatch(
                    pipeline,
                    &[
                        Binding::Buffer(reference.buffer),
                        Binding::Buffer(distorted.buffer),
                        Binding::Buffer(map),
                        Binding::Buffer(partials),
                    ],
                    bytemuck::bytes_of(&push),
                    groups,
                )
            }
        }
    }

    /// Records the fold of one scale's records into its four means at
    /// `results[out_base..out_base + 4]`.
    pub fn record_fold(
        &self,
        rec: &mut Recorder<'_>,
        layout: &ScaleLayout,
        partials: &Buffer,
        results: &Buffer,
        out_base: u32,
    ) -> vqscope_gpu::Result<()> {
        let [gx, gy] = layout.groups();
        let push = FoldPush {
            partial_base: layout.partial_base,
            groups: gx * gy,
            count: layout.map_width() * layout.map_height(),
            out_base,
        };
        rec.dispatch(
            &self.fold,
            &[Binding::Buffer(partials), Binding::Buffer(results)],
            bytemuck::bytes_of(&push),
            [1, 1, 1],
        )
    }
}

/// 2^-(bpc-8), the factor that takes a plane's samples to the 0–255 scale
/// (libvmaf divides by 2^(bpc-8); the product by the inverse is exact).
pub(crate) fn sample_scale(plane: &DevicePlane<'_>) -> f32 {
    1.0 / (1u32 << plane.desc.bpc.saturating_sub(8)) as f32
}

/// Checks that a plane handed to `record` is the size and depth the kernel
/// was built for.
pub(crate) fn check_plane(
    feature: &str,
    plane: &DevicePlane<'_>,
    width: u32,
    height: u32,
    bpc: u32,
) -> vqscope_gpu::Result<()> {
    let d = &plane.desc;
    if (d.width, d.height, d.bpc) != (width, height, bpc) {
        return Err(gpu_usage(format!(
            "{feature}: kernel built for {width}x{height} at {bpc} bits, given a {}x{} plane at {} bits",
            d.width, d.height, d.bpc
        )));
    }
    Ok(())
}

/// A mean stored as double bits in an int64 result slot, rounded to float as
/// libvmaf's IQA returns it, then widened as libvmaf reports it.
pub(crate) fn mean_from_word(word: i64) -> f32 {
    f64::from_bits(word as u64) as f32
}

/// `float_ssim` of one frame size, with its intermediates allocated once.
pub struct SsimKernel {
    stages: SsimStages,
    width: u32,
    height: u32,
    bpc: u32,
    scale: u32,
    layout: ScaleLayout,
    planes: Buffer,
    map: Buffer,
    partials: Buffer,
}

impl SsimKernel {
    /// Result slots: the means of l·c·s, l, c and s, as f64 bit patterns.
    pub const RESULT_WORDS: u32 = 4;

    /// A kernel for `width` x `height` luma planes at `bpc` bits. Refuses
    /// what [`crate::features::float_ssim::float_ssim`] refuses, with the same errors.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: SsimOptions,
    ) -> Result<Self, MetricsError> {
        let (scale, sw, sh) = prescale(width as usize, height as usize, options)?;
        let (mut bytes, mut doubles) = (0, 0);
        let layout = ScaleLayout::place(sw as u32, sh as u32, &mut bytes, &mut doubles);
        let planes = Buffer::storage(ctx, "ssim planes", bytes)?;
        let map_len = layout.map_width() * layout.map_height();
        let map = Buffer::storage(ctx, "ssim map", u64::from(map_len) * 4)?;
        let partials = Buffer::storage(ctx, "ssim partials", u64::from(layout.partial_len()) * 8)?;
        Ok(Self {
            stages: SsimStages::new(ctx, SsimFeature::Ssim)?,
            width,
            height,
            bpc,
            scale: scale as u32,
            layout,
            planes,
            map,
            partials,
        })
    }

    /// Records one frame: leaves the four means in `results` at
    /// `offset_words` and the frame's SSIM map in [`SsimKernel::map_buffer`].
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

    /// [`SsimKernel::record`] with a timestamp after each of its
    /// [`SsimKernel::TIMED_STEPS`] barriers, from query `first` of `stamps`
    /// (reset beforehand): query `first` marks the start, `first + i` the
    /// end of step `i` (input, fused scale pass, fold).
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

    /// Barriers (so timestamps) per [`SsimKernel::record_timed`], the
    /// leading one included.
    pub const TIMED_STEPS: u32 = 4;

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
            check_plane("float_ssim", plane, self.width, self.height, self.bpc)?;
        }
        let l = &self.layout;
        steps.barrier(rec);
        self.stages.record_inputs(rec, reference, distorted, self.scale, l, &self.planes)?;
        steps.barrier(rec);
        let source = Source::Planes(Samples::Nonnegative);
        self.stages.record_scale(rec, source, l, &self.planes, Ok(&self.map), &self.partials)?;
        steps.barrier(rec);
        self.stages.record_fold(rec, l, &self.partials, results, offset_words)?;
        steps.barrier(rec);
        Ok(())
    }

    /// The frame's scores from its [`SsimKernel::RESULT_WORDS`] result slots.
    pub fn decode(words: &[i64]) -> SsimScore {
        let mean = |i: usize| f64::from(mean_from_word(words[i]));
        SsimScore { ssim: mean(0), l: mean(1), c: mean(2), s: mean(3) }
    }

    /// The last recorded frame's SSIM map: `map_width() * map_height()`
    /// floats, row-major, each pixel's `l·c·s` (the twin's
    /// [`crate::features::float_ssim::SsimMap::values`]). It lies on the decimated grid:
    /// value `(x, y)` covers input pixels around
    /// `((x + MAP_ORIGIN)·scale, (y + MAP_ORIGIN)·scale)`.
    pub fn map_buffer(&self) -> &Buffer {
        &self.map
    }

    pub fn map_width(&self) -> u32 {
        self.layout.map_width()
    }

    pub fn map_height(&self) -> u32 {
        self.layout.map_height()
    }

    /// The pre-scale decimation factor (the map's grid spacing in input pixels).
    pub fn scale(&self) -> u32 {
        self.scale
    }
}
