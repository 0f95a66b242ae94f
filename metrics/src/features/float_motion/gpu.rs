//! `float_motion` on the GPU: for one plane pair (the earlier and the
//! current reference frame), the float sums of
//! [`crate::features::float_motion::sad_sums`], bit-identical. The host
//! turns them into scores ([`crate::features::float_motion::frame_score`],
//! [`crate::features::float_motion::FloatMotionScorer`]).
//!
//! Per plane pair, after a barrier each (shaders/metrics/float_motion_*.comp):
//! 1. `blur`: both planes to libvmaf's floats and through the vertical and
//!    the horizontal pass, in tiles whose vertical sums stay in shared
//!    memory (one pass over the frame instead of two);
//! 2. `scale` (only with `motion_add_scale1`): both blurs downscaled to
//!    half size;
//! 3. the shared ordered row sums ([`crate::row_sums`]) of `|prev − cur|`
//!    per scale: each row in float, in column order;
//! 4. their totals: per scale the row sums in row order, the float's bits
//!    in a result word.
//!
//! libvmaf adds floats sequentially, so steps 3 and 4 keep its exact order
//! (a tree would round differently, far beyond 1e-6 on a 1080p frame); the
//! per-sample steps are `precise`, so every float equals the twin's.
//!
//! The earlier frame's blur is recomputed from its reference plane rather
//! than kept from the previous frame: the blur depends on nothing else, so
//! the floats are the same, and no state has to survive between
//! submissions (frames in flight, timing runs that record a frame many
//! times, a pipeline restarted mid-clip).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder};

use super::{SadSums, check_plane, scale_ratio, scaled_len};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::plane::PlaneView;
use crate::row_sums::{ResultWord, RowLayout, RowSegment, RowSums, RowValues};

/// Local size of `scale` (`local_size_x`, `_y`).
const GROUP_W: u32 = 64;
const GROUP_H: u32 = 4;
/// `blur`'s tile: vertical-pass columns, rows, and pixels per horizontal
/// task (`VCOLS`, `TH`, `P` in the shader); a tile is `BLUR_VCOLS − 2·radius`
/// outputs wide, rounded down to a multiple of `BLUR_P`.
const BLUR_VCOLS: u32 = 256;
const BLUR_TH: u32 = 4;
const BLUR_P: u32 = 4;
/// Most filter taps the shader holds (`TAPS_MAX`).
const MAX_TAPS: usize = 5;

/// Twin of float_motion_blur.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct BlurPush {
    prev: PlaneDesc,
    cur: PlaneDesc,
}

/// Twin of float_motion_scale.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct ScalePush {
    src_w: u32,
    src_h: u32,
    dst_w: u32,
    dst_h: u32,
    ratio_x: f32,
    ratio_y: f32,
}

/// The twins above as the layout test checks them against the SPIR-V.
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_FLOAT_MOTION_BLUR, METRICS_FLOAT_MOTION_SCALE, twin};
    vec![
        twin!(BlurPush as "Push" in [METRICS_FLOAT_MOTION_BLUR] { prev, cur }),
        twin!(ScalePush as "Push" in [METRICS_FLOAT_MOTION_SCALE] {
            src_w, src_h, dst_w, dst_h, ratio_x, ratio_y
        }),
    ]
}

/// Bytes of `n` floats.
fn floats(n: u32) -> u64 {
    u64::from(n) * 4
}

/// The float motion kernels for one plane geometry and filter, with their
/// intermediates allocated once.
pub struct FloatMotionKernel {
    width: u32,
    height: u32,
    bpc: u32,
    /// The blur's tile width (see [`BLUR_VCOLS`]).
    blur_tile_w: u32,
    /// Half size, with `motion_add_scale1`.
    half: Option<(u32, u32)>,
    /// The blur, specialized to the filter's taps.
    blur_pass: ComputePipeline,
    scale_pass: ComputePipeline,
    row_sums: RowSums,
    /// Scale 0's rows, then scale 1's (if any), for the totals.
    layout: RowLayout,
    /// Both blurred planes.
    blurred: Buffer,
    /// Both half-size planes (a placeholder float without scale 1).
    scaled: Buffer,
    /// Row sums: the full-size rows, then the half-size ones.
    rows: Buffer,
}

impl FloatMotionKernel {
    /// Kernels for `width × height` planes at `bpc` bits blurred with
    /// `taps` (see [`super::filter_taps`]), refused where the twin refuses.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        taps: &[f32],
        add_scale1: bool,
    ) -> Result<Self, MetricsError> {
        let shape = PlaneView {
            width: width as usize,
            height: height as usize,
            stride: 0,
            bpc,
            samples: &[],
        };
        check_plane(&shape, taps)?;
        if taps.len() > MAX_TAPS {
            return Err(MetricsError::Usage(format!(
                "float_motion: a filter of {} taps (the blur holds at most {MAX_TAPS})",
                taps.len()
            )));
        }
        // The shader's TAPS (id 0) and TAP0.. (ids 1..).
        let blur_spec: Vec<(u32, u32)> = std::iter::once((0, taps.len() as u32))
            .chain((1u32..).zip(taps.iter().map(|t| t.to_bits())))
            .collect();
        let half = add_scale1
            .then(|| (scaled_len(width as usize) as u32, scaled_len(height as usize) as u32));
        let (hw, hh) = half.unwrap_or((0, 0));
        let pipeline = |shader| ComputePipeline::new(ctx, &PipelineDesc::new(shader));
        let pair = floats(width * height) * 2;
        let mut layout = RowLayout::single(
            RowSegment { rows: height, cols: width, vals_base: 0, sums_base: 0 },
            1,
        );
        if half.is_some() {
            layout.segments[1] = RowSegment { rows: hh, cols: hw, vals_base: 0, sums_base: height };
            layout.count = 2;
        }
        Ok(Self {
            width,
            height,
            bpc,
            blur_tile_w: (BLUR_VCOLS - 2 * (taps.len() as u32 / 2)) / BLUR_P * BLUR_P,
            half,
            blur_pass: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    specialization: &blur_spec,
                    ..PipelineDesc::new(vqscope_shaders::METRICS_FLOAT_MOTION_BLUR)
                },
            )?,
            scale_pass: pipeline(vqscope_shaders::METRICS_FLOAT_MOTION_SCALE)?,
            row_sums: RowSums::new(ctx, RowValues::AbsDiff, ResultWord::FloatBits)?,
            layout,
            blurred: Buffer::storage(ctx, "float_motion blurred", pair)?,
            scaled: Buffer::storage(ctx, "float_motion scaled", (floats(hw * hh) * 2).max(4))?,
            rows: Buffer::storage(ctx, "float_motion rows", floats(height + hh))?,
        })
    }

    /// int64 result words one plane pair takes: the full-size sum, and the
    /// half-size one with `motion_add_scale1`.
    pub fn result_words(&self) -> u32 {
        if self.half.is_some() { 2 } else { 1 }
    }

    /// Records the sums of `|blur(prev) − blur(cur)|` into
    /// `results[offset_words..]`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        prev: DevicePlane<'_>,
        cur: DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        for (name, plane) in [("prev", &prev), ("cur", &cur)] {
            let d = &plane.desc;
            if (d.width, d.height, d.bpc) != (self.width, self.height, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "float_motion: {name} plane is {}x{} at {} bits, kernel built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let (w, h) = (self.width, self.height);
        let groups = |w: u32, h: u32| [w.div_ceil(GROUP_W), h.div_ceil(GROUP_H), 2];
        // Earlier frames may still read the intermediates.
        rec.barrier();
        let push = BlurPush { prev: prev.desc, cur: cur.desc };
        let tile_w = self.blur_tile_w;
        rec.dispatch(
            &self.blur_pass,
            &[
                Binding::Buffer(prev.buffer),
                Binding::Buffer(cur.buffer),
                Binding::Buffer(&self.blurred),
            ],
            bytemuck::bytes_of(&push),
            [w.div_ceil(tile_w), h.div_ceil(BLUR_TH), 2],
        )?;
        rec.barrier();
        self.record_rows(rec, &self.blurred, 0)?;
        let (hw, hh) = self.half.unwrap_or((0, 0));
        if self.half.is_some() {
            let push = ScalePush {
                src_w: w,
                src_h: h,
                dst_w: hw,
                dst_h: hh,
                ratio_x: scale_ratio(w as usize, hw as usize),
                ratio_y: scale_ratio(h as usize, hh as usize),
            };
            rec.dispatch(
                &self.scale_pass,
                &[Binding::Buffer(&self.blurred), Binding::Buffer(&self.scaled)],
                bytemuck::bytes_of(&push),
                groups(hw, hh),
            )?;
            rec.barrier();
            self.record_rows(rec, &self.scaled, 1)?;
        }
        rec.barrier();
        self.row_sums.record_totals(
            rec,
            Binding::Buffer(&self.rows),
            results,
            &self.layout,
            offset_words,
        )
    }

    /// The row sums of scale `scale`'s plane pair in `planes` (back to
    /// back) into its place in `rows`.
    fn record_rows(
        &self,
        rec: &mut Recorder<'_>,
        planes: &Buffer,
        scale: usize,
    ) -> vqscope_gpu::Result<()> {
        let layout = RowLayout::single(self.layout.segments[scale], 1);
        self.row_sums.record_rows(
            rec,
            Binding::Buffer(planes),
            Binding::Buffer(&self.rows),
            &layout,
        )
    }

    /// The sums from the kernel's result words (float bits in the low 32
    /// bits of each word).
    pub fn decode(&self, words: &[i64]) -> SadSums {
        SadSums {
            scale0: ResultWord::FloatBits.decode(words[0]),
            scale1: self.half.map(|_| ResultWord::FloatBits.decode(words[1])),
        }
    }
}
