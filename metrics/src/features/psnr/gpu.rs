//! PSNR on the GPU: the per-plane sums of squared differences, bit-identical
//! to [`crate::features::psnr::plane_sse`]. The host turns them into dB with
//! [`crate::features::psnr::PsnrSetup::psnr`].
//!
//! Per frame pair, four dispatches: shaders/metrics/psnr.comp once per plane
//! slot (luma, cb, cr; a slot that is not scored runs on an empty plane and
//! writes zeros), each workgroup taking whole rows so that 8-bit rows can
//! wrap in `u32` as in libvmaf, then reduce.comp folding all three at once.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder};

use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::psnr::ChromaLayout;

/// Samples one workgroup aims to cover (whole rows, so a little more).
const GROUP_SAMPLES: u32 = 8192;
/// Most rows per workgroup (psnr.comp's `MAX_ROWS`).
const MAX_ROWS: u32 = 64;
/// Plane slots in the result: Y, Cb, Cr.
const SLOTS: u32 = 3;

/// Twin of psnr.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct PsnrPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    rows_per_group: u32,
    field: u32,
    fields: u32,
}

/// The twin above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_PSNR, twin};
    vec![twin!(PsnrPush as "Push" in [METRICS_PSNR] {
        ref_plane, dis_plane, rows_per_group, field, fields,
    })]
}

/// The PSNR SSE kernel for one video geometry, with its intermediates
/// allocated once.
pub struct PsnrKernel {
    bpc: u32,
    /// Width and height of each plane the layout has (chroma rounded up).
    sizes: Vec<(u32, u32)>,
    /// Workgroups per plane dispatch (the same for every plane).
    groups: u32,
    pipeline: ComputePipeline,
    reducer: crate::reduce::Reducer,
    /// `groups` records of three int64s (Y, Cb, Cr).
    partials: Buffer,
}

impl PsnrKernel {
    /// int64 result slots one frame pair takes: the SSE of Y, Cb, Cr.
    pub const RESULT_WORDS: u32 = SLOTS;

    /// A kernel for a `width × height` luma plane at `bpc` bits with chroma
    /// planes as `layout` implies (sizes rounded up, as the video crate and
    /// libvmaf have them). Refused where the CPU twin refuses: a bit depth
    /// outside 8..=16, or an empty plane.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        layout: ChromaLayout,
    ) -> Result<Self, MetricsError> {
        if !(8..=16).contains(&bpc) {
            return Err(MetricsError::OptionOutOfRange {
                feature: "psnr",
                option: "bpc",
                value: i64::from(bpc),
                allowed: "8 to 16",
            });
        }
        if width == 0 || height == 0 {
            return Err(MetricsError::FrameTooSmall {
                feature: "psnr",
                width: width as usize,
                height: height as usize,
                reason: "a plane needs at least one sample",
            });
        }
        let sizes = plane_sizes(width, height, layout);
        let groups = group_count(width, height);
        let partials =
            Buffer::storage(ctx, "psnr partials", u64::from(groups) * u64::from(SLOTS) * 8)?;
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/psnr",
                ..PipelineDesc::new(vqscope_shaders::METRICS_PSNR)
            },
        )?;
        Ok(Self {
            bpc,
            sizes,
            groups,
            pipeline,
            reducer: crate::reduce::Reducer::new(ctx)?,
            partials,
        })
    }

    /// Size of plane `i` (0 luma, 1 Cb, 2 Cr) as the kernel expects it.
    pub fn plane_size(&self, i: usize) -> (u32, u32) {
        self.sizes[i]
    }

    /// Records the SSE of each plane pair into `results[offset_words..+3]`.
    /// Pass one plane of each (luma only, libvmaf's `enable_chroma=false`)
    /// or every plane of the layout; slots without a plane read 0.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.check(reference, distorted)?;
        // Earlier frames may still read the partials.
        rec.barrier();
        for slot in 0..SLOTS as usize {
            let (r, d, rows) = match (reference.get(slot), distorted.get(slot)) {
                (Some(r), Some(d)) => {
                    let (_, h) = self.sizes[slot];
                    (*r, *d, h.div_ceil(self.groups))
                }
                // Height 0: every workgroup writes a zero partial.
                _ => {
                    let mut empty = reference[0];
                    empty.desc.height = 0;
                    (empty, empty, 1)
                }
            };
            let push = PsnrPush {
                ref_plane: r.desc,
                dis_plane: d.desc,
                rows_per_group: rows,
                field: slot as u32,
                fields: SLOTS,
            };
            rec.dispatch(
                &self.pipeline,
                &[
                    Binding::Buffer(r.buffer),
                    Binding::Buffer(d.buffer),
                    Binding::Buffer(&self.partials),
                ],
                bytemuck::bytes_of(&push),
                [self.groups, 1, 1],
            )?;
        }
        rec.barrier();
        self.reducer.record(rec, &self.partials, SLOTS, self.groups, results, offset_words)
    }

    /// The three SSEs from the kernel's result words.
    pub fn decode(words: &[i64]) -> [u64; 3] {
        std::array::from_fn(|i| words[i] as u64)
    }

    /// Refuses plane lists or planes that do not fit the kernel.
    fn check(
        &self,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()> {
        let n = reference.len();
        if n != distorted.len() || !(n == 1 || n == self.sizes.len()) {
            return Err(GpuError::Usage(format!(
                "psnr: {n} reference and {} distorted planes given; 1 or {} expected",
                distorted.len(),
                self.sizes.len()
            )));
        }
        for (i, plane) in reference.iter().chain(distorted).enumerate() {
            let d = &plane.desc;
            let (w, h) = self.sizes[i % n];
            if (d.width, d.height, d.bpc) != (w, h, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "psnr: plane {} is {}x{} at {} bits, kernel expects {w}x{h} at {}",
                    i % n,
                    d.width,
                    d.height,
                    d.bpc,
                    self.bpc
                )));
            }
        }
        Ok(())
    }
}

/// Plane sizes of a layout; chroma sizes round up (`(w + 1) >> 1`).
fn plane_sizes(width: u32, height: u32, layout: ChromaLayout) -> Vec<(u32, u32)> {
    let (sx, sy) = match layout {
        ChromaLayout::Mono => return vec![(width, height)],
        ChromaLayout::Yuv420 => (1, 1),
        ChromaLayout::Yuv422 => (1, 0),
        ChromaLayout::Yuv444 => (0, 0),
    };
    let chroma = (width.div_ceil(1 << sx), height.div_ceil(1 << sy));
    vec![(width, height), chroma, chroma]
}

/// Workgroups per plane dispatch: luma rows in groups of about
/// [`GROUP_SAMPLES`] samples, at most [`MAX_ROWS`] rows. A plane of height
/// `h` then takes `h.div_ceil(groups)` rows per group, which is at most the
/// luma's count (chroma is never taller), so every plane fits `MAX_ROWS`.
fn group_count(width: u32, height: u32) -> u32 {
    height.div_ceil(GROUP_SAMPLES.div_ceil(width).clamp(1, MAX_ROWS))
}
