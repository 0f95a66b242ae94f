//! CAMBI on the GPU: every step of [`super::Cambi::score`] as integer
//! kernels over the shared luma plane, per picture (the distorted, and the
//! reference with `full_ref`), exact against the CPU twin.
//!
//! Per picture: shaders/metrics/cambi_range.comp (at 9 to 15 bits, whether
//! a luma sample exceeds the bit depth, which libvmaf refuses: a flag word
//! after the scores), cambi_preprocess.comp (decimation to the
//! working size through the twin's position tables, 10 bits,
//! anti-dithering), cambi_mask.comp (the spatial mask, from the image),
//! then per scale cambi_scale.comp (2x decimation and mode filter; the grid
//! of counted codes, every scale's at its own place). Then, one dispatch
//! each for all five scales at once (the scales are independent from here
//! on, and the small ones alone would leave most of a GPU idle):
//! cambi_cvalues.comp (column histograms slid down the rows and added
//! across each pixel's window: the integers libvmaf's sliding histograms
//! hold; the c-value is the same float product) and the top-k sum: a radix
//! select on the c-values' bits (cambi_select_high.comp, cambi_pass2.comp,
//! cambi_select_low.comp) that finds the same multiset libvmaf's
//! quickselect keeps and sums it exactly in fixed point (units of 2^-24;
//! every non-zero c-value is at least 0.5). A table in the tables buffer
//! gives the kernels each scale's size, place, top-k count and c-value
//! workgroups.
//!
//! The host turns each scale's sum into the double libvmaf adds in
//! quickselect order: the exact sum rounded once. libvmaf's running double
//! sum is exact too while it stays below 2^29 (its terms being multiples of
//! 2^-24), so the two agree bit for bit on any top-k sum below 2^29 (over
//! 500 million: an average c-value above 64 at 4K); above that they may
//! differ in the last bit.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, DeviceInfo, GpuContext, GpuError, PipelineDesc, Recorder,
    Submitter, Timestamps, upload_buffer, vk,
};

use super::cvalues::{CONTRAST_WEIGHTS, RECIPROCAL_LEN, reciprocal};
use super::{Cambi, CambiScore, NUM_SCALES, mask, preprocess};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::Steps;

/// Side of the 2D workgroups of the per-pixel kernels.
const TILE: u32 = 16;
/// Columns a cambi_cvalues.comp workgroup covers (its `COLUMNS`; they must
/// agree): it scores the middle `COLUMNS − 2·pad`.
const CVALUE_COLUMNS: u32 = 192;
/// Rows a cambi_cvalues.comp workgroup scores on a CPU device (lavapipe):
/// lavapipe ends an invocation's loops after 65535 iterations in all, and
/// each row costs up to `(num_diffs + 1)·window` of them per chunk of codes.
pub const CPU_CVALUE_ROWS: u32 = 4;
/// Rows a cambi_cvalues.comp workgroup scores on a GPU: each chunk of codes
/// first fills the column histograms over the window's rows (65 at 4K), so
/// more rows share that refill; fewer keep more workgroups for the small
/// scales.
pub const GPU_CVALUE_ROWS: u32 = 16;
/// Bytes of shared memory cambi_cvalues.comp uses (its `hist` and range).
const CVALUE_SHARED: u32 = CVALUE_COLUMNS * 35 * 4 + 8;
/// Invocations of cambi_pass2.comp's workgroups.
const THREADS: u32 = 256;
/// cambi_pass2.comp workgroups per scale at most (about what a large GPU
/// holds at once; each invocation strides over the rest).
const PASS2_GROUPS: u32 = 1024;
/// Workgroups a dispatch may count on along one axis (Vulkan's minimum).
const MAX_GROUPS: u32 = 65535;
/// Bins of each radix-select histogram (16 bits of a float): a scale's
/// lie at `scale · BINS` (cambi_common.glsl's `CAMBI_BINS`).
const BINS: u64 = 1 << 16;
/// Words of each scale's entry in a picture's scale table, and the fields
/// (cambi_common.glsl's `CAMBI_SCALE_*`).
const SCALE_WORDS: usize = 8;
/// Word offset of the per-picture tables in the tables buffer (after the
/// thresholds, weights and reciprocals; cambi_common.glsl).
const PICTURE_TABLES: usize = 64 + RECIPROCAL_LEN;
/// One picture's phase names, each after `prefix`.
macro_rules! cambi_phases {
    ($prefix:literal) => {
        [
            concat!($prefix, "preprocess"),
            concat!($prefix, "mask"),
            concat!($prefix, "scale 0"),
            concat!($prefix, "scale 1"),
            concat!($prefix, "scale 2"),
            concat!($prefix, "scale 3"),
            concat!($prefix, "scale 4"),
            concat!($prefix, "cvalues"),
            concat!($prefix, "select high"),
            concat!($prefix, "pass2"),
            concat!($prefix, "select low"),
        ]
    };
}
/// Phases of [`CambiKernel::record_profiled`] for one picture, and with
/// `full_ref` (the distorted picture's, then the reference's).
const PHASES: [&str; 11] = cambi_phases!("");
const PHASES_FULL_REF: [&str; 22] = {
    let reference: [&str; 11] = cambi_phases!("ref ");
    let mut all = [""; 22];
    let mut i = 0;
    while i < 11 {
        all[i] = PHASES[i];
        all[11 + i] = reference[i];
        i += 1;
    }
    all
};
/// The fixed-point unit of the kernels' sums: 2^-24.
const FIXED_ONE: f64 = (1u64 << 24) as f64;

/// Twin of cambi_preprocess.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct PreprocessPush {
    plane: PlaneDesc,
    width: u32,
    height: u32,
    x_table: u32,
    y_table: u32,
    anti_dither: u32,
    pad: [u32; 3],
}

/// Twin of cambi_range.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RangePush {
    plane: PlaneDesc,
    bit: u32,
    pad: [u32; 3],
}

/// The range flag's bit of the distorted picture and of the reference.
const RANGE_BITS: [u32; 2] = [1, 2];

/// Twin of cambi_common.glsl's push constants (every other CAMBI kernel);
/// the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
struct CambiPush {
    width: u32,
    height: u32,
    src_width: u32,
    step: u32,
    mask_shift: u32,
    mask_width: u32,
    mask_threshold: u32,
    pad: u32,
    num_diffs: u32,
    band_base: u32,
    band_size: u32,
    vlt_luma: u32,
    scales: u32,
    rows: u32,
    offset: u32,
    out_word: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_CAMBI_CVALUES, METRICS_CAMBI_MASK, METRICS_CAMBI_PASS2, METRICS_CAMBI_PREPROCESS,
        METRICS_CAMBI_RANGE, METRICS_CAMBI_SCALE, METRICS_CAMBI_SELECT_HIGH,
        METRICS_CAMBI_SELECT_LOW, twin,
    };
    vec![
        twin!(RangePush as "Push" in [METRICS_CAMBI_RANGE] {
            plane, bit, pad0 = pad, pad1 = pad + 4, pad2 = pad + 8,
        }),
        twin!(PreprocessPush as "Push" in [METRICS_CAMBI_PREPROCESS] {
            plane, width, height, x_table, y_table, anti_dither, pad0 = pad, pad1 = pad + 4,
            pad2 = pad + 8,
        }),
        twin!(CambiPush as "Push" in [
            METRICS_CAMBI_MASK, METRICS_CAMBI_SCALE, METRICS_CAMBI_CVALUES,
            METRICS_CAMBI_SELECT_HIGH, METRICS_CAMBI_PASS2, METRICS_CAMBI_SELECT_LOW
        ] {
            width, height, src_width, step, mask_shift, mask_width, mask_threshold, pad,
            num_diffs, band_base, band_size, vlt_luma, scales, rows, offset, out_word,
        }),
    ]
}

/// One picture side as the kernels see it.
#[derive(Debug, Clone, Copy)]
struct Side {
    width: u32,
    height: u32,
    x_table: u32,
    y_table: u32,
    pad: u32,
    mask_threshold: u32,
    /// Word offset of its scale table in the tables buffer.
    scales: u32,
    /// Where each scale's grid starts in the codes and c-values (words),
    /// and their end.
    offsets: [u32; NUM_SCALES + 1],
    /// cambi_cvalues.comp workgroups of all scales.
    cvalue_groups: u32,
}

/// cambi_range.comp and the flags it sets, for input whose samples are
/// checked against the bit depth ([`preprocess::checks_bit_depth`]).
struct RangeCheck {
    pipeline: ComputePipeline,
    flags: Buffer,
}

/// The pipelines, in the order a picture runs them.
struct Pipelines {
    preprocess: ComputePipeline,
    mask: ComputePipeline,
    scale: ComputePipeline,
    cvalues: ComputePipeline,
    select_high: ComputePipeline,
    pass2: ComputePipeline,
    select_low: ComputePipeline,
}

/// The CAMBI kernels for one input geometry and option set, with their
/// working buffers (shared by both pictures of a frame).
pub struct CambiKernel {
    cambi: Cambi,
    pipelines: Pipelines,
    sides: Vec<Side>,
    /// Rows a cambi_cvalues.comp workgroup scores.
    rows: u32,
    tables: Buffer,
    /// The working-size image after preprocessing.
    image: Buffer,
    /// Every scale's c-values (float bits), back to back from the first.
    values: Buffer,
    mask: Buffer,
    /// Filtered images of even and odd scales.
    scaled: [Buffer; 2],
    /// Every scale's counted codes, back to back from the first.
    codes: Buffer,
    /// Each scale's radix-select histograms of the high and low 16 bits.
    high: Buffer,
    low: Buffer,
    select: Buffer,
    sums: Buffer,
    /// The bit-depth check, where libvmaf makes it.
    range: Option<RangeCheck>,
}

impl CambiKernel {
    /// Kernels scoring as `cambi` does (the twin, set up for the input),
    /// with the c-value rows [`CambiKernel::rows_for`] the device.
    pub fn new(ctx: &Arc<GpuContext>, cambi: &Cambi) -> Result<Self, MetricsError> {
        Self::with_rows(ctx, cambi, Self::rows_for(ctx.info()))
    }

    /// Rows of a grid a cambi_cvalues.comp workgroup scores on `device`:
    /// [`CPU_CVALUE_ROWS`] on a CPU device (lavapipe), else
    /// [`GPU_CVALUE_ROWS`].
    pub fn rows_for(device: &DeviceInfo) -> u32 {
        if device.device_type == vk::PhysicalDeviceType::CPU {
            CPU_CVALUE_ROWS
        } else {
            GPU_CVALUE_ROWS
        }
    }

    /// [`CambiKernel::new`] with `rows` rows of a grid per c-value
    /// workgroup (at least 1): the values do not depend on it, only the
    /// speed does (and on lavapipe, more than [`CPU_CVALUE_ROWS`] only
    /// holds on small windows and contrast ranges; see
    /// [`CPU_CVALUE_ROWS`]). For tests and timing.
    pub fn with_rows(
        ctx: &Arc<GpuContext>,
        cambi: &Cambi,
        rows: u32,
    ) -> Result<Self, MetricsError> {
        if rows == 0 {
            return Err(MetricsError::Usage("cambi: c-value workgroups need a row".into()));
        }
        let (in_w, in_h, _) = cambi.input();
        let pictures: &[bool] = if cambi.full_ref() { &[false, true] } else { &[false] };
        let mut words: Vec<u32> = Vec::with_capacity(PICTURE_TABLES);
        let contrast = cambi.contrast();
        words.extend((0..32).map(|d| contrast.tvi.get(d).copied().map_or(0, u32::from)));
        words.extend(CONTRAST_WEIGHTS.map(|w| w as u32));
        words.extend((0..RECIPROCAL_LEN).map(|n| reciprocal(n).to_bits()));
        let mut sides = Vec::new();
        let mut pixels = 0usize;
        let mut grids = 0usize;
        for &source in pictures {
            let working = cambi.working(source);
            let (w, h) = (working.width, working.height);
            pixels = pixels.max(w * h);
            let pad = u32::from(working.window >> 1);
            let span = CVALUE_COLUMNS - 2 * pad;
            // The scale table (cambi_common.glsl).
            let scales = words.len() as u32;
            let mut offsets = [0u32; NUM_SCALES + 1];
            let mut groups = 0u64;
            let counts = cambi.topk_counts(source);
            for (s, &(sw, sh)) in cambi.scale_sizes(source).iter().enumerate() {
                let (sw, sh) = (sw as u32, sh as u32);
                let across = sw.div_ceil(span);
                let entry: [u32; SCALE_WORDS] =
                    [sw, sh, offsets[s], counts[s] as u32, groups as u32, across, 0, 0];
                words.extend(entry);
                offsets[s + 1] = offsets[s] + sw * sh;
                groups += u64::from(across) * u64::from(sh.div_ceil(rows));
            }
            words.push(groups as u32);
            grids = grids.max(offsets[NUM_SCALES] as usize);
            let x_table = words.len() as u32;
            words.extend(preprocess::sample_positions(in_w, w).into_iter().map(|p| p as u32));
            let y_table = words.len() as u32;
            words.extend(preprocess::sample_positions(in_h, h).into_iter().map(|p| p as u32));
            if w.div_ceil(TILE as usize) > MAX_GROUPS as usize
                || h.div_ceil(TILE as usize) > MAX_GROUPS as usize
                || groups > u64::from(MAX_GROUPS) * u64::from(MAX_GROUPS)
            {
                return Err(MetricsError::Usage(format!(
                    "cambi: a {w}x{h} working size is larger than one dispatch covers"
                )));
            }
            sides.push(Side {
                width: w as u32,
                height: h as u32,
                x_table,
                y_table,
                pad,
                mask_threshold: mask::mask_index(w, h),
                scales,
                offsets,
                cvalue_groups: groups as u32,
            });
        }
        if ctx.info().max_shared_memory < CVALUE_SHARED {
            return Err(MetricsError::Usage(format!(
                "cambi: the device offers {} bytes of shared memory, the c-values need \
                 {CVALUE_SHARED}",
                ctx.info().max_shared_memory
            )));
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut submitter = Submitter::new(ctx, 1)?;
        let tables = upload_buffer(ctx, &mut submitter, "cambi tables", &bytes)?;
        let plane = |name, words: usize| Buffer::storage(ctx, name, words as u64 * 4);
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        use vqscope_shaders as s;
        let pipelines = Pipelines {
            preprocess: pipeline("metrics/cambi_preprocess", s::METRICS_CAMBI_PREPROCESS)?,
            mask: pipeline("metrics/cambi_mask", s::METRICS_CAMBI_MASK)?,
            scale: pipeline("metrics/cambi_scale", s::METRICS_CAMBI_SCALE)?,
            cvalues: pipeline("metrics/cambi_cvalues", s::METRICS_CAMBI_CVALUES)?,
            select_high: pipeline("metrics/cambi_select_high", s::METRICS_CAMBI_SELECT_HIGH)?,
            pass2: pipeline("metrics/cambi_pass2", s::METRICS_CAMBI_PASS2)?,
            select_low: pipeline("metrics/cambi_select_low", s::METRICS_CAMBI_SELECT_LOW)?,
        };
        let range = if preprocess::checks_bit_depth(cambi.input().2) {
            Some(RangeCheck {
                pipeline: pipeline("metrics/cambi_range", s::METRICS_CAMBI_RANGE)?,
                flags: Buffer::storage(ctx, "cambi range flags", 8)?,
            })
        } else {
            None
        };
        let histograms = NUM_SCALES as u64 * BINS * 4;
        Ok(Self {
            cambi: cambi.clone(),
            pipelines,
            sides,
            rows,
            tables,
            image: plane("cambi image", pixels)?,
            values: plane("cambi values", grids)?,
            mask: plane("cambi mask", pixels)?,
            scaled: [plane("cambi scaled even", pixels)?, plane("cambi scaled odd", pixels)?],
            codes: plane("cambi codes", grids)?,
            high: Buffer::storage(ctx, "cambi high bins", histograms)?,
            low: Buffer::storage(ctx, "cambi low bins", histograms)?,
            select: Buffer::storage(ctx, "cambi select", NUM_SCALES as u64 * 16)?,
            sums: Buffer::storage(ctx, "cambi sums", NUM_SCALES as u64 * 8)?,
            range,
        })
    }

    /// Rows of a grid each c-value workgroup scores.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Names of the intervals [`CambiKernel::record_profiled`] times.
    pub fn phases(&self) -> &'static [&'static str] {
        if self.sides.len() > 1 { &PHASES_FULL_REF } else { &PHASES }
    }

    /// int64 result slots per frame: each scale's top-k sum of the
    /// distorted picture, then with `full_ref` of the reference, then where
    /// samples are checked against the bit depth the range flags.
    pub fn result_words(&self) -> u32 {
        self.score_words() + u32::from(self.range.is_some())
    }

    /// Whether the reference is scored too (`full_ref`).
    pub fn full_ref(&self) -> bool {
        self.sides.len() > 1
    }

    /// The top-k sums' slots.
    fn score_words(&self) -> u32 {
        (self.sides.len() * NUM_SCALES) as u32
    }

    /// Bytes of the distorted picture's c-value maps, every scale's
    /// row-major floats back to back from the first scale: what
    /// [`CambiKernel::record_with_maps`] copies out.
    pub fn maps_bytes(&self) -> u64 {
        let sizes = self.cambi.scale_sizes(false);
        sizes.iter().map(|&(w, h)| (w * h) as u64 * 4).sum()
    }

    /// Records a frame's pictures into `results[offset_words..]`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.record_with_maps(rec, reference, distorted, results, offset_words, None)
    }

    /// [`CambiKernel::record_with_maps`] with a timestamp before the first
    /// step (query 0 of `stamps`, reset beforehand) and after each of
    /// [`CambiKernel::phases`], every dispatch alone between barriers.
    #[allow(clippy::too_many_arguments)]
    pub fn record_profiled(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        maps: Option<(&Buffer, u64)>,
        stamps: &Timestamps,
    ) -> vqscope_gpu::Result<()> {
        let steps = Steps::new(Some((stamps, 0)));
        self.record_steps(rec, reference, distorted, results, offset_words, maps, steps)
    }

    /// [`CambiKernel::record`], also copying the distorted picture's c-value
    /// map of every scale into `maps = (buffer, byte offset)`, laid out as
    /// [`CambiKernel::maps_bytes`] says (libvmaf's `heatmaps_path`, the
    /// dashboard's banding view). The copy is a transfer after the
    /// c-values; without `maps` nothing extra is recorded.
    pub fn record_with_maps(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        maps: Option<(&Buffer, u64)>,
    ) -> vqscope_gpu::Result<()> {
        let steps = Steps::new(None);
        self.record_steps(rec, reference, distorted, results, offset_words, maps, steps)
    }

    #[allow(clippy::too_many_arguments)]
    fn record_steps(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        maps: Option<(&Buffer, u64)>,
        mut steps: Steps<'_>,
    ) -> vqscope_gpu::Result<()> {
        let (w, h, bpc) = self.cambi.input();
        for (name, plane) in [("reference", reference), ("distorted", distorted)] {
            let d = &plane.desc;
            if (d.width as usize, d.height as usize, d.bpc) != (w, h, bpc) {
                return Err(GpuError::Usage(format!(
                    "cambi: {name} luma is {}x{} at {} bits, kernel built for {w}x{h} at {bpc}",
                    d.width, d.height, d.bpc
                )));
            }
        }
        // Earlier frames and pictures may still use every buffer.
        steps.barrier(rec);
        if let Some(range) = &self.range {
            rec.fill(&range.flags, 0);
        }
        for (i, side) in self.sides.iter().enumerate() {
            let plane = if i == 0 { distorted } else { reference };
            let out = offset_words + (i * NUM_SCALES) as u32;
            let maps = if i == 0 { maps } else { None };
            self.record_picture(rec, &mut steps, side, i == 1, plane, results, out, maps)?;
        }
        if let Some(range) = &self.range {
            // After the last picture's final step.
            let at = u64::from(offset_words + self.score_words()) * 8;
            rec.copy_buffer(&range.flags, 0, results, at, 8);
        }
        Ok(())
    }

    /// One picture's dispatches, a step (barrier) after each; the buffers
    /// are free to use at the start.
    #[allow(clippy::too_many_arguments)]
    fn record_picture(
        &self,
        rec: &mut Recorder<'_>,
        steps: &mut Steps<'_>,
        side: &Side,
        source: bool,
        plane: &DevicePlane<'_>,
        results: &Buffer,
        out_word: u32,
        maps: Option<(&Buffer, u64)>,
    ) -> vqscope_gpu::Result<()> {
        let groups = |w: u32, h: u32| [w.div_ceil(TILE), h.div_ceil(TILE), 1];
        let (sw, sh) = (side.width, side.height);
        rec.fill(&self.sums, 0);
        rec.fill(&self.high, 0);
        rec.fill(&self.low, 0);
        let pre = PreprocessPush {
            plane: plane.desc,
            width: sw,
            height: sh,
            x_table: side.x_table,
            y_table: side.y_table,
            anti_dither: u32::from(self.cambi.anti_dither()),
            pad: [0; 3],
        };
        let p = &self.pipelines;
        rec.dispatch(
            &p.preprocess,
            &[
                Binding::Buffer(plane.buffer),
                Binding::Buffer(&self.tables),
                Binding::Buffer(&self.image),
            ],
            bytemuck::bytes_of(&pre),
            groups(sw, sh),
        )?;
        steps.barrier(rec);
        if let Some(range) = &self.range {
            // Beside the mask: the fill above is visible by now.
            let push =
                RangePush { plane: plane.desc, bit: RANGE_BITS[usize::from(source)], pad: [0; 3] };
            let (w, h) = (plane.desc.width, plane.desc.height);
            rec.dispatch(
                &range.pipeline,
                &[Binding::Buffer(plane.buffer), Binding::Buffer(&range.flags)],
                bytemuck::bytes_of(&push),
                groups(w, h),
            )?;
        }
        let contrast = self.cambi.contrast();
        let (band_base, band_size) = contrast.band().unwrap_or((0, 0));
        let base = CambiPush {
            width: sw,
            height: sh,
            mask_width: sw,
            mask_threshold: side.mask_threshold,
            pad: side.pad,
            num_diffs: u32::from(contrast.num_diffs),
            band_base: u32::from(band_base),
            band_size: u32::from(band_size),
            vlt_luma: u32::from(contrast.vlt_luma),
            scales: side.scales,
            rows: self.rows,
            out_word,
            ..Default::default()
        };
        rec.dispatch(
            &p.mask,
            &[Binding::Buffer(&self.image), Binding::Buffer(&self.mask)],
            bytemuck::bytes_of(&base),
            groups(sw, sh),
        )?;
        steps.barrier(rec);
        let sizes = self.cambi.scale_sizes(source);
        let speedup = self.cambi.speedup();
        let mut input = (&self.image, sw);
        for (s, &(w, h)) in sizes.iter().enumerate() {
            let (w, h) = (w as u32, h as u32);
            let decimate = s > 0 || speedup;
            let push = CambiPush {
                width: w,
                height: h,
                src_width: input.1,
                step: if decimate { 2 } else { 1 },
                mask_shift: s as u32 + u32::from(speedup),
                offset: side.offsets[s],
                ..base
            };
            let scaled = &self.scaled[s % 2];
            rec.dispatch(
                &p.scale,
                &[
                    Binding::Buffer(input.0),
                    Binding::Buffer(&self.mask),
                    Binding::Buffer(scaled),
                    Binding::Buffer(&self.codes),
                ],
                bytemuck::bytes_of(&push),
                groups(w, h),
            )?;
            steps.barrier(rec);
            input = (scaled, w);
        }
        let push = bytemuck::bytes_of(&base);
        let cvalue_groups = side.cvalue_groups.max(1);
        rec.dispatch(
            &p.cvalues,
            &[
                Binding::Buffer(&self.codes),
                Binding::Buffer(&self.tables),
                Binding::Buffer(&self.values),
                Binding::Buffer(&self.high),
            ],
            push,
            [cvalue_groups.min(MAX_GROUPS), cvalue_groups.div_ceil(MAX_GROUPS), 1],
        )?;
        steps.barrier(rec);
        if let Some((buffer, at)) = maps {
            // The c-values stay until the next picture or frame, after
            // further barriers.
            let bytes = u64::from(side.offsets[NUM_SCALES]) * 4;
            rec.copy_buffer(&self.values, 0, buffer, at, bytes);
        }
        rec.dispatch(
            &p.select_high,
            &[
                Binding::Buffer(&self.high),
                Binding::Buffer(&self.tables),
                Binding::Buffer(&self.select),
            ],
            push,
            [NUM_SCALES as u32, 1, 1],
        )?;
        steps.barrier(rec);
        let pass_groups = (sizes[0].0 * sizes[0].1).div_ceil(THREADS as usize) as u32;
        rec.dispatch(
            &p.pass2,
            &[
                Binding::Buffer(&self.values),
                Binding::Buffer(&self.tables),
                Binding::Buffer(&self.select),
                Binding::Buffer(&self.low),
                Binding::Buffer(&self.sums),
            ],
            push,
            [pass_groups.clamp(1, PASS2_GROUPS), NUM_SCALES as u32, 1],
        )?;
        steps.barrier(rec);
        rec.dispatch(
            &p.select_low,
            &[
                Binding::Buffer(&self.low),
                Binding::Buffer(&self.tables),
                Binding::Buffer(&self.select),
                Binding::Buffer(&self.sums),
                Binding::Buffer(results),
            ],
            push,
            [NUM_SCALES as u32, 1, 1],
        )?;
        steps.barrier(rec);
        Ok(())
    }

    /// The picture of frame `index` whose samples exceed the bit depth (the
    /// distorted first), as libvmaf's refusal, from the kernel's result words.
    pub fn out_of_range(&self, index: u64, words: &[i64]) -> Option<MetricsError> {
        let flags = if self.range.is_some() { words[self.score_words() as usize] } else { 0 };
        let (_, _, bpc) = self.cambi.input();
        ["distorted", "reference"]
            .into_iter()
            .zip(RANGE_BITS)
            .find(|&(_, bit)| flags & i64::from(bit) != 0)
            .map(|(picture, _)| super::out_of_range(picture, Some(index), bpc))
    }

    /// The frame's outputs from the kernel's result words.
    pub fn decode(&self, words: &[i64]) -> CambiScore {
        let picture = |i: usize| {
            let source = i == 1;
            let counts = self.cambi.topk_counts(source);
            let scales: [f64; NUM_SCALES] = std::array::from_fn(|s| {
                let sum = words[i * NUM_SCALES + s] as u64 as f64 / FIXED_ONE;
                sum / counts[s] as f64
            });
            self.cambi.weigh(&scales, source)
        };
        let dist = picture(0);
        let src = (self.sides.len() > 1).then(|| picture(1));
        self.cambi.combine(dist, src)
    }
}
