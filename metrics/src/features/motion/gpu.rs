//! Integer motion on the GPU: the SAD of the blurred reference-frame
//! difference, bit-identical to [`crate::features::motion::motion_sad`]. The host turns
//! the SADs into libvmaf's scores with [`crate::features::motion::MotionScorer`].
//!
//! Per frame pair, three dispatches (shaders/metrics/motion.comp,
//! motion_rows.comp, reduce.comp):
//! 1. one workgroup per 64×16 tile: differences, vertical then horizontal
//!    blur in shared memory, `|val|` summed per row of the tile;
//! 2. one thread per row adds the row's tile sums in a wrapping `u32` (as
//!    libvmaf's per-row sum does), 256 rows per workgroup into an int64;
//! 3. the shared reducer folds those into the one int64 result.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder};

use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::motion::check_planes;
use crate::plane::PlaneView;
use crate::reduce::Reducer;

/// Output tile of one motion.comp workgroup (its `TILE_W`, `TILE_H`).
const TILE_W: u32 = 64;
const TILE_H: u32 = 16;
/// Rows per motion_rows.comp workgroup (its `THREADS`).
const FOLD_ROWS: u32 = 256;

/// Twin of motion.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct MotionPush {
    prev: PlaneDesc,
    cur: PlaneDesc,
}

/// Twin of motion_rows.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowsPush {
    height: u32,
    tiles_x: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_MOTION, METRICS_MOTION_ROWS, twin};
    vec![
        twin!(MotionPush as "Push" in [METRICS_MOTION] { prev, cur }),
        twin!(RowsPush as "Push" in [METRICS_MOTION_ROWS] { height, tiles_x }),
    ]
}

/// The motion SAD kernel for one frame size and bit depth, with its
/// intermediates allocated once.
pub struct MotionKernel {
    width: u32,
    height: u32,
    bpc: u32,
    blur: ComputePipeline,
    rows: ComputePipeline,
    reducer: Reducer,
    /// One `u32` per (tile column, row): the row's `Σ|val|` over the tile.
    segments: Buffer,
    /// One int64 per motion_rows.comp workgroup.
    partials: Buffer,
}

impl MotionKernel {
    /// int64 result slots one frame pair takes: the SAD.
    pub const RESULT_WORDS: u32 = 1;

    /// A kernel for `width × height` luma planes at `bpc` bits, refused
    /// exactly where the CPU twin refuses (bit depth outside 8..=16, a side
    /// under [`crate::features::motion::MIN_SIDE`]).
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        // The twin's own checks, on a sample-less view of the frame size.
        let shape = PlaneView {
            width: width as usize,
            height: height as usize,
            stride: 0,
            bpc,
            samples: &[],
        };
        check_planes(&shape, &shape)?;
        let tiles_x = width.div_ceil(TILE_W);
        let segments =
            Buffer::storage(ctx, "motion segments", u64::from(tiles_x) * u64::from(height) * 4)?;
        let partials =
            Buffer::storage(ctx, "motion partials", u64::from(height.div_ceil(FOLD_ROWS)) * 8)?;
        Ok(Self {
            width,
            height,
            bpc,
            blur: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/motion",
                    ..PipelineDesc::new(vqscope_shaders::METRICS_MOTION)
                },
            )?,
            rows: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/motion_rows",
                    ..PipelineDesc::new(vqscope_shaders::METRICS_MOTION_ROWS)
                },
            )?,
            reducer: Reducer::new(ctx)?,
            segments,
            partials,
        })
    }

    /// Records the SAD of the blurred difference `prev − cur` (reference luma
    /// of the earlier and the current frame) into `results[offset_words]`.
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
                    "motion: {name} plane is {}x{} at {} bits, kernel built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let tiles_x = self.width.div_ceil(TILE_W);
        let fold_groups = self.height.div_ceil(FOLD_ROWS);
        // Earlier frames may still read the intermediates.
        rec.barrier();
        let push = MotionPush { prev: prev.desc, cur: cur.desc };
        rec.dispatch(
            &self.blur,
            &[
                Binding::Buffer(prev.buffer),
                Binding::Buffer(cur.buffer),
                Binding::Buffer(&self.segments),
            ],
            bytemuck::bytes_of(&push),
            [tiles_x, self.height.div_ceil(TILE_H), 1],
        )?;
        rec.barrier();
        let push = RowsPush { height: self.height, tiles_x };
        rec.dispatch(
            &self.rows,
            &[Binding::Buffer(&self.segments), Binding::Buffer(&self.partials)],
            bytemuck::bytes_of(&push),
            [fold_groups, 1, 1],
        )?;
        rec.barrier();
        self.reducer.record(rec, &self.partials, 1, fold_groups, results, offset_words)
    }

    /// The SAD from the kernel's result words (the sum is a `u64` in
    /// libvmaf; it stays far below 2^63).
    pub fn decode(words: &[i64]) -> u64 {
        words[0] as u64
    }
}
