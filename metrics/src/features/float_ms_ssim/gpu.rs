//! `float_ms_ssim` on the GPU: the five scales of the CPU twin
//! ([`crate::features::float_ms_ssim`]) with the stages of [`crate::features::float_ssim::gpu`] (input
//! conversion, the fused per-scale pass, the fold) plus one kernel of its
//! own, `ssim_lpf`, the 9x9 low-pass step to the next coarser scale.
//!
//! Per frame, [`MsSsimKernel::record`] records (a line per barrier):
//!
//! 1. `ssim_lpf` (scale 0 → 1, both planes) and `ssim_scale` (scale 0), both
//!    built with `FROM_FRAME`: they read the frame's samples and convert
//!    them as `ssim_decimate` does at factor 1, so scale 0 has no float
//!    planes and no input pass (which took 0.07 ms at 4K on the H100,
//!    writing 66 MB that the next step read again);
//! 2. `ssim_lpf` (1 → 2) and `ssim_scale` (1);
//! 3. `ssim_lpf` (2 → 3) and `ssim_scale` (2);
//! 4. `ssim_lpf` (3 → 4) and `ssim_scale` (3);
//! 5. `ssim_scale` (4);
//! 6. `ssim_fold` ×5, one workgroup each.
//!
//! The host combines the fifteen l/c/s means exactly as the twin does
//! ([`crate::features::float_ms_ssim::combine_scales`]).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder, Timestamps,
};

use crate::device::DevicePlane;
use crate::device::PlaneDesc;
use crate::error::MetricsError;
use crate::features::Steps;
use crate::features::float_ms_ssim::{
    MsSsimScore, SCALES, check_size, combine_scales, scale_sizes,
};
use crate::features::float_ssim::LcsMeans;
use crate::features::float_ssim::gpu::{
    Samples, ScaleLayout, Source, SsimFeature, SsimStages, check_plane, mean_from_word,
    sample_scale,
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

/// Twin of the push constants of ssim_lpf.comp built with `FROM_FRAME`
/// (100 bytes): [`LpfPush`] (its source offsets unused), then the frame's
/// planes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FrameLpfPush {
    lpf: LpfPush,
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    sample_scale: f32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_SSIM_LPF, METRICS_SSIM_LPF_FROM_FRAME, twin};
    vec![
        twin!(LpfPush as "Push" in [METRICS_SSIM_LPF] {
            src_width, src_height, dst_width, dst_height, src_offset, dst_offset,
        }),
        twin!(FrameLpfPush as "Push" in [METRICS_SSIM_LPF_FROM_FRAME] {
            src_width = lpf.src_width, src_height = lpf.src_height,
            dst_width = lpf.dst_width, dst_height = lpf.dst_height,
            src_offset = lpf.src_offset, dst_offset = lpf.dst_offset,
            ref_plane, dis_plane, sample_scale,
        }),
    ]
}

/// `float_ms_ssim` of one frame size, with its intermediates allocated once.
pub struct MsSsimKernel {
    stages: SsimStages,
    lpf: ComputePipeline,
    /// `ssim_lpf` reading the frame (scale 0 → 1).
    lpf_from_frame: ComputePipeline,
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
        // Scale 0 is read from the frame: records only.
        let scales = std::array::from_fn(|i| {
            let (w, h) = (sizes[i].0 as u32, sizes[i].1 as u32);
            if i == 0 {
                ScaleLayout::place_records(w, h, &mut doubles)
            } else {
                ScaleLayout::place(w, h, &mut bytes, &mut doubles)
            }
        });
        let planes = Buffer::storage(ctx, "ms_ssim planes", bytes)?;
        // Bound in place of the map, which MS-SSIM does not keep.
        let no_map = Buffer::storage(ctx, "ms_ssim no map", 4)?;
        let partials = Buffer::storage(ctx, "ms_ssim partials", u64::from(doubles) * 8)?;
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        let lpf = pipeline("metrics/ssim_lpf", vqscope_shaders::METRICS_SSIM_LPF)?;
        let lpf_from_frame = pipeline(
            "metrics/ssim_lpf (from frame)",
            vqscope_shaders::METRICS_SSIM_LPF_FROM_FRAME,
        )?;
        Ok(Self {
            stages: SsimStages::new(ctx, SsimFeature::MsSsim)?,
            lpf,
            lpf_from_frame,
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
    pub const TIMED_STEPS: u32 = 7;

    /// [`MsSsimKernel::record`] with a timestamp after each of its
    /// [`MsSsimKernel::TIMED_STEPS`] barriers, from query `first` of
    /// `stamps` (reset beforehand): the steps are the five scale passes
    /// (each with the low-pass step to the next scale) and the folds.
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
        // Scale i's SSIM and the step to scale i+1 read the same planes and
        // write different ones, so they share a barrier interval.
        for i in 0..SCALES {
            let frame = (i == 0).then_some((reference, distorted));
            if i + 1 < SCALES {
                self.record_lpf(rec, frame, &self.scales[i], &self.scales[i + 1])?;
            }
            let no_map = Err(&self.no_map);
            // Scale 0 is the frame's samples; the low-pass table's negative
            // taps can make later scales' samples negative.
            let source = match frame {
                Some((r, d)) => Source::Frame(r, d),
                None => Source::Planes(Samples::Signed),
            };
            let (layout, planes) = (&self.scales[i], &self.planes);
            self.stages.record_scale(rec, source, layout, planes, no_map, &self.partials)?;
            steps.barrier(rec);
        }
        for (i, layout) in self.scales.iter().enumerate() {
            let out = offset_words + i as u32 * PER_SCALE;
            self.stages.record_fold(rec, layout, &self.partials, results, out)?;
        }
        steps.barrier(rec);
        Ok(())
    }

    /// Records the low-pass step from `src` to `dst`, reading `frame`'s
    /// planes (reference, distorted) where given, else `src`'s.
    fn record_lpf(
        &self,
        rec: &mut Recorder<'_>,
        frame: Option<(&DevicePlane<'_>, &DevicePlane<'_>)>,
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
        let (dst_at, dst_len) = dst.span();
        let out = Binding::BufferRange(&self.planes, dst_at, dst_len);
        let groups = [dst.width.div_ceil(LPF_WG), dst.height.div_ceil(LPF_WG), 2];
        match frame {
            Some((reference, distorted)) => {
                let push = FrameLpfPush {
                    lpf: push,
                    ref_plane: reference.desc,
                    dis_plane: distorted.desc,
                    sample_scale: sample_scale(reference),
                };
                let frame = [Binding::Buffer(reference.buffer), Binding::Buffer(distorted.buffer)];
                let bindings = [frame[0], frame[1], out];
                rec.dispatch(&self.lpf_from_frame, &bindings, bytemuck::bytes_of(&push), groups)
            }
            None => {
                let (src_at, src_len) = src.span();
                let bindings = [Binding::BufferRange(&self.planes, src_at, src_len), out];
                rec.dispatch(&self.lpf, &bindings, bytemuck::bytes_of(&push), groups)
            }
        }
    }

    /// The float planes of scales 1–4 (reference and distorted, as the
    /// twin's `downscale` makes them; scale 0 is read from the frame and
    /// has none), for tests and debugging views: the buffer and, per scale
    /// from 1, `(width, height, reference offset, distorted offset)` with
    /// offsets in bytes.
    pub fn scale_planes(&self) -> (&Buffer, [(u32, u32, u64, u64); SCALES - 1]) {
        let planes = |i: usize| {
            let l = &self.scales[i + 1];
            (l.width, l.height, l.a_byte, l.b_byte)
        };
        (&self.planes, std::array::from_fn(planes))
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
