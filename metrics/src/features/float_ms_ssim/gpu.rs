//! `float_ms_ssim` on the GPU: the five scales of the CPU twin
//! ([`crate::features::float_ms_ssim`]) with the stages of [`crate::features::float_ssim::gpu`] (input
//! conversion, the fused per-scale pass, the fold) plus one kernel of its
//! own, `ssim_lpf`, the 9x9 low-pass step to the next coarser scale.
//!
//! Per frame, [`MsSsimKernel::record`] records (a line per barrier):
//!
//! 1. `ssim_decimate` ×2: reference and distorted samples to floats (scale 0);
//! 2. `ssim_lpf` (scale 0 → 1, both planes) and `ssim_scale` (scale 0);
//! 3. `ssim_lpf` (1 → 2) and `ssim_scale` (1);
//! 4. `ssim_lpf` (2 → 3) and `ssim_scale` (2);
//! 5. `ssim_lpf` (3 → 4) and `ssim_scale` (3);
//! 6. `ssim_scale` (4);
//! 7. `ssim_fold` ×5, one workgroup each.
//!
//! The host combines the fifteen l/c/s means exactly as the twin does
//! ([`crate::features::float_ms_ssim::combine_scales`]).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder, Timestamps,
};

use crate::device::DevicePlane;
use crate::error::MetricsError;
use crate::features::Steps;
use crate::features::float_ms_ssim::{
    MsSsimScore, SCALES, check_size, combine_scales, scale_sizes,
};
use crate::features::float_ssim::LcsMeans;
use crate::features::float_ssim::gpu::{
    Samples, ScaleLayout, SsimStages, check_plane, mean_from_word,
};

/// Workgroup side of `ssim_lpf` (local size 16x16).
const LPF_WG: u32 = 16;
/// Result slots per scale: the means of l·c·s, l, c, s.
const PER_SCALE: u32 = 4;

/// Twin of ssim_lpf.comp's push constants (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct LpfPush {
    src_width: u32,
    src_height: u32,
    dst_width: u32,
    dst_height: u32,
    src_offset: [u32; 2],
    dst_offset: [u32; 2],
}

/// The twin above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_SSIM_LPF, twin};
    vec![twin!(LpfPush as "Push" in [METRICS_SSIM_LPF] {
        src_width, src_height, dst_width, dst_height, src_offset, dst_offset,
    })]
}

/// `float_ms_ssim` of one frame size, with its intermediates allocated once.
pub struct MsSsimKernel {
    stages: SsimStages,
    lpf: ComputePipeline,
    width: u32,
    height: u32,
    bpc: u32,
    scales: [ScaleLayout; SCALES],
    planes: Buffer,
    no_map: Buffer,
    partials: Buffer,
}

impl MsSsimKernel {
    /// Result slots: per scale 0–4, the means of l·c·s, l, c and s as f64
    /// bit patterns.
    pub const RESULT_WORDS: u32 = SCALES as u32 * PER_SCALE;

    /// A kernel for `width` x `height` luma planes at `bpc` bits. Refuses
    /// what [`crate::features::float_ms_ssim::float_ms_ssim`] refuses, with the same error.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        check_size(width as usize, height as usize)?;
        let sizes = scale_sizes(width as usize, height as usize);
        let (mut bytes, mut doubles) = (0, 0);
        let scales =
            sizes.map(|(w, h)| ScaleLayout::place(w as u32, h as u32, &mut bytes, &mut doubles));
        let planes = Buffer::storage(ctx, "ms_ssim planes", bytes)?;
        // Bound in place of the map, which MS-SSIM does not keep.
        let no_map = Buffer::storage(ctx, "ms_ssim no map", 4)?;
        let partials = Buffer::storage(ctx, "ms_ssim partials", u64::from(doubles) * 8)?;
        let lpf = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/ssim_lpf",
                ..PipelineDesc::new(vqscope_shaders::METRICS_SSIM_LPF)
            },
        )?;
        Ok(Self {
            stages: SsimStages::new(ctx, true)?,
            lpf,
            width,
            height,
            bpc,
            scales,
            planes,
            no_map,
            partials,
        })
    }

    /// Records one frame: leaves the per-scale means in `results` from
    /// `offset_words` ([`MsSsimKernel::RESULT_WORDS`] slots).
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

    /// Barriers (so timestamps) per [`MsSsimKernel::record_timed`], the
    /// leading one included.
    pub const TIMED_STEPS: u32 = 8;

    /// [`MsSsimKernel::record`] with a timestamp after each of its
    /// [`MsSsimKernel::TIMED_STEPS`] barriers, from query `first` of
    /// `stamps` (reset beforehand): the steps are the input, the five
    /// scale passes (each with the low-pass step to the next scale) and the
    /// folds.
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
            check_plane("float_ms_ssim", plane, self.width, self.height, self.bpc)?;
        }
        steps.barrier(rec);
        self.stages.record_inputs(rec, reference, distorted, 1, &self.scales[0], &self.planes)?;
        steps.barrier(rec);
        // Scale i's SSIM and the step to scale i+1 read the same planes and
        // write different ones, so they share a barrier interval.
        for i in 0..SCALES {
            if i + 1 < SCALES {
                self.record_lpf(rec, &self.scales[i], &self.scales[i + 1])?;
            }
            let no_map = Err(&self.no_map);
            // Scale 0 is the frame's samples; the low-pass table's negative
            // taps can make later scales' samples negative.
            let samples = if i == 0 { Samples::Nonnegative } else { Samples::Signed };
            let (layout, planes) = (&self.scales[i], &self.planes);
            self.stages.record_scale(rec, samples, layout, planes, no_map, &self.partials)?;
            steps.barrier(rec);
        }
        for (i, layout) in self.scales.iter().enumerate() {
            let out = offset_words + i as u32 * PER_SCALE;
            self.stages.record_fold(rec, layout, &self.partials, results, out)?;
        }
        steps.barrier(rec);
        Ok(())
    }

    fn record_lpf(
        &self,
        rec: &mut Recorder<'_>,
        src: &ScaleLayout,
        dst: &ScaleLayout,
    ) -> vqscope_gpu::Result<()> {
        let push = LpfPush {
            src_width: src.width,
            src_height: src.height,
            dst_width: dst.width,
            dst_height: dst.height,
            src_offset: [0, src.b_offset()],
            dst_offset: [0, dst.b_offset()],
        };
        let ((src_at, src_len), (dst_at, dst_len)) = (src.span(), dst.span());
        rec.dispatch(
            &self.lpf,
            &[
                Binding::BufferRange(&self.planes, src_at, src_len),
                Binding::BufferRange(&self.planes, dst_at, dst_len),
            ],
            bytemuck::bytes_of(&push),
            [dst.width.div_ceil(LPF_WG), dst.height.div_ceil(LPF_WG), 2],
        )
    }

    /// The float planes of every scale (reference and distorted, as the
    /// twin's `to_float_plane` and `downscale` make them), for tests and
    /// debugging views: the buffer and, per scale, `(width, height,
    /// reference offset, distorted offset)` with offsets in bytes.
    pub fn scale_planes(&self) -> (&Buffer, [(u32, u32, u64, u64); SCALES]) {
        (&self.planes, self.scales.map(|l| (l.width, l.height, l.a_byte, l.b_byte)))
    }

    /// The frame's scores from its [`MsSsimKernel::RESULT_WORDS`] result
    /// slots, combined on the host as the twin combines them.
    pub fn decode(words: &[i64]) -> MsSsimScore {
        let means: [LcsMeans; SCALES] = std::array::from_fn(|i| {
            let at = |f: usize| mean_from_word(words[i * PER_SCALE as usize + f]);
            LcsMeans { ssim: at(0), l: at(1), c: at(2), s: at(3) }
        });
        combine_scales(&means)
    }
}
