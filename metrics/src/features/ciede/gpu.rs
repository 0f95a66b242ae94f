//! ciede on the GPU: every pixel's ΔE₀₀ as [`super::delta_e_map`] gives
//! it, from one fused dispatch of shaders/metrics/ciede.comp (chroma
//! lookup, both CIELAB conversions, the formula, the map and a workgroup
//! partial sum), then ciede_fold.comp for the frame's sum.
//!
//! The per-pixel floats equal the twin's except where a libm call's exact
//! value lies within a few double ulps of a float rounding boundary (the
//! shader evaluates libm's functions in double itself; see
//! ciede_math.glsl): none of 4.2M random pixels differs, on lavapipe or on
//! an H100 (`gpu_ciede`'s agreement test). The frame sum is a fixed-order
//! tree of doubles where libvmaf adds in raster order: the same to about
//! 1e-16 relative, and the same on every run.
//!
//! Whether the device's `fma()` on doubles rounds once is asked once per
//! kernel (`fma_fuses`) and given to the shader as a specialization
//! constant: exact products then take one `fma` instead of Dekker's split.
//!
//! 8-bit frames of [`LAB_TABLE_MIN_PIXELS`] or more read their colours from
//! a table of all 2^24 YUV triples' CIELAB and chroma (ciede_lab_fill.comp,
//! 256 MiB, filled by the first such kernel on a device and shared by those
//! made while it lives: `LabTable::shared`) instead of converting both
//! sides of every pixel: the conversion is about half of a pixel's
//! arithmetic, and the table holds what the same GLSL function gives, so
//! the values do not change. Deeper samples would need 2^30 entries or
//! more; they convert.
//!
//! The ΔE map stays on the device for display: [`CiedeKernel::delta_e_map`].

use std::sync::{Arc, Mutex, PoisonError, Weak};

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Submitter,
};
use vqscope_video::ChromaFormat;

use super::{ChromaReader, check_depth};
use crate::device::{DevicePlane, PlaneDesc, fma_fuses};
use crate::error::MetricsError;

/// Invocations per workgroup of ciede.comp and ciede_fold.comp.
const THREADS: u32 = 256;
/// Raster pixels one ciede.comp workgroup covers.
const GROUP_PIXELS: u32 = THREADS * 4;
/// Workgroups a dispatch may count on along x (Vulkan's minimum limit).
const MAX_GROUPS: u32 = 65535;
/// The smallest 8-bit frame that reads its colours from the Lab table.
/// Filling the table converts 2^24 colours, as many as 16 frame pairs of
/// this size do: any clip worth the 256 MiB has more frames, and smaller
/// frames (and the tests' odd little ones) keep converting.
pub const LAB_TABLE_MIN_PIXELS: u64 = 1 << 19;
/// Bytes of each half of the Lab table (U < 128, U >= 128): a vec4 per
/// 8-bit YUV triple, 128 MiB, the largest binding every device allows.
const LAB_HALF_BYTES: u64 = (1 << 23) * 16;

/// Twin of ciede.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CiedePush {
    ref_luma: PlaneDesc,
    dis_luma: PlaneDesc,
    ref_cb: u32,
    ref_cr: u32,
    dis_cb: u32,
    dis_cr: u32,
    ref_cb_stride: u32,
    ref_cr_stride: u32,
    dis_cb_stride: u32,
    dis_cr_stride: u32,
    chroma_kind: u32,
    chroma_span: u32,
}

/// Twin of ciede_fold.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct FoldPush {
    groups: u32,
    out_word: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_CIEDE, METRICS_CIEDE_FOLD, METRICS_CIEDE_LAB_TABLE, twin};
    vec![
        twin!(CiedePush as "Push" in [METRICS_CIEDE, METRICS_CIEDE_LAB_TABLE] {
            ref_luma, dis_luma, ref_cb, ref_cr, dis_cb, dis_cr, ref_cb_stride,
            ref_cr_stride, dis_cb_stride, dis_cr_stride, chroma_kind, chroma_span,
        }),
        twin!(FoldPush as "Push" in [METRICS_CIEDE_FOLD] { groups, out_word }),
    ]
}

/// The ciede kernels for one geometry, with the ΔE map they leave.
pub struct CiedeKernel {
    width: u32,
    height: u32,
    bpc: u32,
    reader: ChromaReader,
    groups: u32,
    pipeline: ComputePipeline,
    fold: ComputePipeline,
    map: Buffer,
    partials: Buffer,
    /// The Lab table that `pipeline` reads (its LAB_TABLE variant), if any.
    lab_table: Option<Arc<LabTable>>,
}

impl CiedeKernel {
    /// int64 result slots per frame pair: the ΔE sum, as a double's bits.
    pub const RESULT_WORDS: u32 = 1;

    /// Kernels for `width × height` frames in `format` at `bpc` bits;
    /// refused where the twin refuses (monochrome, a depth libvmaf does not
    /// read, 4:2:2 frames too short for libvmaf's upsampling), and for
    /// frames beyond 64 Mi pixels, which one dispatch cannot cover.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        format: ChromaFormat,
    ) -> Result<Self, MetricsError> {
        check_depth(bpc)?;
        let reader = ChromaReader::new(format, width, height)?;
        let pixels = u64::from(width) * u64::from(height);
        let groups = pixels.div_ceil(u64::from(GROUP_PIXELS));
        if groups > u64::from(MAX_GROUPS) {
            return Err(MetricsError::Usage(format!(
                "ciede: a {width}x{height} frame is larger than the {} pixels one dispatch covers",
                u64::from(MAX_GROUPS) * u64::from(GROUP_PIXELS)
            )));
        }
        let groups = groups as u32;
        let map = Buffer::storage(ctx, "ciede delta-E map", pixels * 4)?;
        let partials = Buffer::storage(ctx, "ciede partials", u64::from(groups) * 8)?;
        let mut submitter = Submitter::new(ctx, 1)?;
        let fused = u32::from(fma_fuses(ctx, &mut submitter)?);
        let lab_table = if bpc == 8 && pixels >= LAB_TABLE_MIN_PIXELS {
            match LabTable::shared(ctx, &mut submitter, fused) {
                Ok(table) => Some(table),
                // The table only saves time: a device without 256 MiB to
                // spare converts per pixel.
                Err(e) if e.is_out_of_device_memory() => None,
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        let (name, shader) = match lab_table {
            Some(_) => ("metrics/ciede (Lab table)", vqscope_shaders::METRICS_CIEDE_LAB_TABLE),
            None => ("metrics/ciede", vqscope_shaders::METRICS_CIEDE),
        };
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc { name, specialization: &[(0, fused)], ..PipelineDesc::new(shader) },
        )?;
        let fold = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/ciede_fold",
                ..PipelineDesc::new(vqscope_shaders::METRICS_CIEDE_FOLD)
            },
        )?;
        Ok(Self { width, height, bpc, reader, groups, pipeline, fold, map, partials, lab_table })
    }

    /// Whether this kernel reads its colours from the Lab table.
    pub fn uses_lab_table(&self) -> bool {
        self.lab_table.is_some()
    }

    /// The ΔE₀₀ of every pixel of the last frame pair recorded, one f32 per
    /// pixel, row-major, [`CiedeKernel::map_size`] (no row padding). It is
    /// written by each frame's dispatch: a reader must order itself after
    /// that dispatch (a barrier) and before the next frame's.
    pub fn delta_e_map(&self) -> &Buffer {
        &self.map
    }

    /// Width and height of [`CiedeKernel::delta_e_map`]: the luma size.
    pub fn map_size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Checks one side's planes: luma of the kernel's geometry, chroma of
    /// the size the format implies, all at one depth in one buffer.
    fn check_side(&self, name: &str, planes: &[DevicePlane<'_>]) -> Result<(), GpuError> {
        let usage = |what: String| Err(GpuError::Usage(format!("ciede: {name} {what}")));
        let [luma, cb, cr] = planes else {
            return usage(format!("has {} planes, needs Y, Cb and Cr", planes.len()));
        };
        let l = &luma.desc;
        if (l.width, l.height, l.bpc) != (self.width, self.height, self.bpc) {
            return usage(format!(
                "luma is {}x{} at {} bits, kernel built for {}x{} at {}",
                l.width, l.height, l.bpc, self.width, self.height, self.bpc
            ));
        }
        let (cw, ch) = self.reader.plane_size(self.width as usize, self.height as usize);
        for c in [cb, cr] {
            let d = &c.desc;
            if (d.width as usize, d.height as usize) != (cw, ch)
                || (d.bpc, d.bytes_per_sample) != (l.bpc, l.bytes_per_sample)
            {
                return usage(format!(
                    "chroma plane is {}x{} at {} bits, needs {cw}x{ch} at {}",
                    d.width, d.height, d.bpc, l.bpc
                ));
            }
            if !std::ptr::eq(c.buffer, luma.buffer) {
                return usage("chroma planes must lie in the luma plane's buffer".to_owned());
            }
        }
        Ok(())
    }

    /// Records the ΔE map and the frame's ΔE sum into
    /// `results[offset_words]`. Each side is `[Y, Cb, Cr]`, all three in
    /// one buffer (as the frame upload leaves them).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
        distorted: &[DevicePlane<'_>],
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.check_side("reference", reference)?;
        self.check_side("distorted", distorted)?;
        let push = CiedePush {
            ref_luma: reference[0].desc,
            dis_luma: distorted[0].desc,
            ref_cb: reference[1].desc.offset,
            ref_cr: reference[2].desc.offset,
            dis_cb: distorted[1].desc.offset,
            dis_cr: distorted[2].desc.offset,
            ref_cb_stride: reference[1].desc.stride,
            ref_cr_stride: reference[2].desc.stride,
            dis_cb_stride: distorted[1].desc.stride,
            dis_cr_stride: distorted[2].desc.stride,
            chroma_kind: self.reader.kind() as u32,
            chroma_span: self.reader.span(),
        };
        // Earlier frames may still read the map and the partials.
        rec.barrier();
        let mut bindings = vec![
            Binding::Buffer(reference[0].buffer),
            Binding::Buffer(distorted[0].buffer),
            Binding::Buffer(&self.map),
            Binding::Buffer(&self.partials),
        ];
        bindings.extend(self.lab_table.iter().flat_map(|t| &t.halves).map(Binding::Buffer));
        rec.dispatch(&self.pipeline, &bindings, bytemuck::bytes_of(&push), [self.groups, 1, 1])?;
        rec.barrier();
        let fold = FoldPush { groups: self.groups, out_word: offset_words };
        rec.dispatch(
            &self.fold,
            &[Binding::Buffer(&self.partials), Binding::Buffer(results)],
            bytemuck::bytes_of(&fold),
            [1, 1, 1],
        )
    }

    /// The frame's ΔE sum from the kernel's result word.
    pub fn decode(words: &[i64]) -> f64 {
        f64::from_bits(words[0] as u64)
    }
}

/// The CIELAB colour of every 8-bit YUV triple (ciede_lab_fill.comp), in
/// two halves by U.
struct LabTable {
    halves: [Buffer; 2],
}

impl LabTable {
    /// The device's table, filled with the FUSED_FMA value `fused` the ciede
    /// pipeline gets: one per device while any kernel holds it, as a ladder
    /// builds a kernel per rendition and each would otherwise fill 256 MiB
    /// of its own. A table keeps its device alive (its buffers hold the
    /// context), so the context's address names it while it lives.
    fn shared(
        ctx: &Arc<GpuContext>,
        submitter: &mut Submitter,
        fused: u32,
    ) -> vqscope_gpu::Result<Arc<Self>> {
        static TABLES: Mutex<Vec<(usize, Weak<LabTable>)>> = Mutex::new(Vec::new());
        let mut tables = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
        tables.retain(|(_, table)| table.strong_count() > 0);
        let device = Arc::as_ptr(ctx) as usize;
        let held = tables.iter().find(|(key, _)| *key == device).and_then(|(_, t)| t.upgrade());
        if let Some(table) = held {
            return Ok(table);
        }
        let table = Arc::new(Self::fill(ctx, submitter, fused)?);
        tables.push((device, Arc::downgrade(&table)));
        Ok(table)
    }

    fn fill(
        ctx: &Arc<GpuContext>,
        submitter: &mut Submitter,
        fused: u32,
    ) -> vqscope_gpu::Result<Self> {
        let halves = [
            Buffer::storage(ctx, "ciede Lab table, U < 128", LAB_HALF_BYTES)?,
            Buffer::storage(ctx, "ciede Lab table, U >= 128", LAB_HALF_BYTES)?,
        ];
        let pipeline = ComputePipeline::new(
            ctx,
            &PipelineDesc {
                name: "metrics/ciede_lab_fill",
                specialization: &[(0, fused)],
                ..PipelineDesc::new(vqscope_shaders::METRICS_CIEDE_LAB_FILL)
            },
        )?;
        // One workgroup per chroma pair (V, U), one invocation per luma; the
        // barrier orders the writes before the first frame's reads.
        submitter.run(|rec| {
            let bindings = halves.each_ref().map(Binding::Buffer);
            rec.dispatch(&pipeline, &bindings, &[], [256, 256, 1])?;
            rec.barrier();
            Ok(())
        })?;
        Ok(Self { halves })
    }
}
