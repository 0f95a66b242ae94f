//! CAMBI on the GPU: every step of [`super::Cambi::score`] as integer
//! kernels over the shared luma plane, per picture (the distorted, and the
//! reference with `full_ref`), exact against the CPU twin.
//!
//! Per picture: shaders/metrics/cambi_preprocess.comp (decimation to the
//! working size through the twin's position tables, 10 bits,
//! anti-dithering), cambi_zero.comp and cambi_mask.comp (the spatial mask),
//! then per scale cambi_scale.comp (2x decimation and mode filter; the grid
//! of counted codes), cambi_cvalues.comp (column histograms slid down the
//! rows and added across each pixel's window: the integers libvmaf's
//! sliding histograms hold; the c-value is the same float product) and the
//! top-k sum: a radix select on the c-values' bits
//! (cambi_select_high.comp, cambi_pass2.comp, cambi_select_low.comp) that
//! finds the same multiset libvmaf's quickselect keeps and sums it exactly
//! in fixed point (units of 2^-24; every non-zero c-value is at least 0.5).
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
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Submitter,
    upload_buffer,
};

use super::cvalues::{CONTRAST_WEIGHTS, RECIPROCAL_LEN, reciprocal};
use super::{Cambi, CambiScore, NUM_SCALES, mask, preprocess};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;

/// Side of the 2D workgroups of the per-pixel kernels.
const TILE: u32 = 16;
/// Columns and rows a cambi_cvalues.comp workgroup covers (its `COLUMNS`
/// and `SEGMENT`; they must agree): it scores the middle `COLUMNS − 2·pad`.
const CVALUE_COLUMNS: u32 = 192;
const CVALUE_ROWS: u32 = 4;
/// Bytes of shared memory cambi_cvalues.comp uses (its `hist` and range).
const CVALUE_SHARED: u32 = CVALUE_COLUMNS * 35 * 4 + 8;
/// Invocations of cambi_pass2.comp's workgroups.
const THREADS: u32 = 256;
/// Workgroups a dispatch may count on along one axis (Vulkan's minimum).
const MAX_GROUPS: u32 = 65535;
/// Bins of each radix-select histogram (16 bits of a float).
const BINS: u64 = 1 << 16;
/// Word offset of the position tables in the tables buffer (after the
/// thresholds, weights and reciprocals; cambi_common.glsl).
const POSITIONS: usize = 64 + RECIPROCAL_LEN;
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
    scale: u32,
    k: u32,
    n: u32,
    out_word: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_CAMBI_CVALUES, METRICS_CAMBI_MASK, METRICS_CAMBI_PASS2, METRICS_CAMBI_PREPROCESS,
        METRICS_CAMBI_SCALE, METRICS_CAMBI_SELECT_HIGH, METRICS_CAMBI_SELECT_LOW,
        METRICS_CAMBI_ZERO, twin,
    };
    vec![
        twin!(PreprocessPush as "Push" in [METRICS_CAMBI_PREPROCESS] {
            plane, width, height, x_table, y_table, anti_dither, pad0 = pad, pad1 = pad + 4,
            pad2 = pad + 8,
        }),
        twin!(CambiPush as "Push" in [
            METRICS_CAMBI_ZERO, METRICS_CAMBI_MASK, METRICS_CAMBI_SCALE, METRICS_CAMBI_CVALUES,
            METRICS_CAMBI_SELECT_HIGH, METRICS_CAMBI_PASS2, METRICS_CAMBI_SELECT_LOW
        ] {
            width, height, src_width, step, mask_shift, mask_width, mask_threshold, pad,
            num_diffs, band_base, band_size, vlt_luma, scale, k, n, out_word,
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
}

/// The pipelines, in the order a picture runs them.
struct Pipelines {
    preprocess: ComputePipeline,
    zero: ComputePipeline,
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
    tables: Buffer,
    /// The working-size image after preprocessing.
    image: Buffer,
    /// The zero-derivative map, then each scale's c-values (float bits).
    values: Buffer,
    mask: Buffer,
    /// Filtered images of even and odd scales.
    scaled: [Buffer; 2],
    /// Each scale's counted codes.
    codes: Buffer,
    high: Buffer,
    low: Buffer,
    select: Buffer,
    sums: Buffer,
}

impl CambiKernel {
    /// Kernels scoring as `cambi` does (the twin, set up for the input).
    pub fn new(ctx: &Arc<GpuContext>, cambi: &Cambi) -> Result<Self, MetricsError> {
        let (in_w, in_h, _) = cambi.input();
        let pictures: &[bool] = if cambi.full_ref() { &[false, true] } else { &[false] };
        let mut words: Vec<u32> = Vec::with_capacity(POSITIONS);
        let contrast = cambi.contrast();
        words.extend((0..32).map(|d| contrast.tvi.get(d).copied().map_or(0, u32::from)));
        words.extend(CONTRAST_WEIGHTS.map(|w| w as u32));
        words.extend((0..RECIPROCAL_LEN).map(|n| reciprocal(n).to_bits()));
        let mut sides = Vec::new();
        let mut pixels = 0usize;
        for &source in pictures {
            let working = cambi.working(source);
            let (w, h) = (working.width, working.height);
            pixels = pixels.max(w * h);
            let x_table = words.len() as u32;
            words.extend(preprocess::sample_positions(in_w, w).into_iter().map(|p| p as u32));
            let y_table = words.len() as u32;
            words.extend(preprocess::sample_positions(in_h, h).into_iter().map(|p| p as u32));
            if w.div_ceil(TILE as usize) > MAX_GROUPS as usize
                || h.div_ceil(TILE as usize) > MAX_GROUPS as usize
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
                pad: u32::from(working.window >> 1),
                mask_threshold: mask::mask_index(w, h),
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
        let plane = |name| Buffer::storage(ctx, name, pixels as u64 * 4);
        let pipeline = |name, shader| {
            ComputePipeline::new(ctx, &PipelineDesc { name, ..PipelineDesc::new(shader) })
        };
        use vqscope_shaders as s;
        let pipelines = Pipelines {
            preprocess: pipeline("metrics/cambi_preprocess", s::METRICS_CAMBI_PREPROCESS)?,
            zero: pipeline("metrics/cambi_zero", s::METRICS_CAMBI_ZERO)?,
            mask: pipeline("metrics/cambi_mask", s::METRICS_CAMBI_MASK)?,
            scale: pipeline("metrics/cambi_scale", s::METRICS_CAMBI_SCALE)?,
            cvalues: pipeline("metrics/cambi_cvalues", s::METRICS_CAMBI_CVALUES)?,
            select_high: pipeline("metrics/cambi_select_high", s::METRICS_CAMBI_SELECT_HIGH)?,
            pass2: pipeline("metrics/cambi_pass2", s::METRICS_CAMBI_PASS2)?,
            select_low: pipeline("metrics/cambi_select_low", s::METRICS_CAMBI_SELECT_LOW)?,
        };
        Ok(Self {
            cambi: cambi.clone(),
            pipelines,
            sides,
            tables,
            image: plane("cambi image")?,
            values: plane("cambi values")?,
            mask: plane("cambi mask")?,
            scaled: [plane("cambi scaled even")?, plane("cambi scaled odd")?],
            codes: plane("cambi codes")?,
            high: Buffer::storage(ctx, "cambi high bins", BINS * 4)?,
            low: Buffer::storage(ctx, "cambi low bins", BINS * 4)?,
            select: Buffer::storage(ctx, "cambi select", NUM_SCALES as u64 * 16)?,
            sums: Buffer::storage(ctx, "cambi sums", NUM_SCALES as u64 * 8)?,
        })
    }

    /// int64 result slots per frame: each scale's top-k sum of the
    /// distorted picture, then with `full_ref` of the reference.
    pub fn result_words(&self) -> u32 {
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

    /// [`CambiKernel::record`], also copying the distorted picture's c-value
    /// map of every scale into `maps = (buffer, byte offset)`, laid out as
    /// [`CambiKernel::maps_bytes`] says (libvmaf's `heatmaps_path`, the
    /// dashboard's banding view). The copies are transfers after each
    /// scale's c-values; without `maps` nothing extra is recorded.
    pub fn record_with_maps(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        maps: Option<(&Buffer, u64)>,
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
        for (i, side) in self.sides.iter().enumerate() {
            let plane = if i == 0 { distorted } else { reference };
            let out = offset_words + (i * NUM_SCALES) as u32;
            let maps = if i == 0 { maps } else { None };
            self.record_picture(rec, side, i == 1, plane, results, out, maps)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn record_picture(
        &self,
        rec: &mut Recorder<'_>,
        side: &Side,
        source: bool,
        plane: &DevicePlane<'_>,
        results: &Buffer,
        out_word: u32,
        maps: Option<(&Buffer, u64)>,
    ) -> vqscope_gpu::Result<()> {
        let groups = |w: u32, h: u32| [w.div_ceil(TILE), h.div_ceil(TILE), 1];
        let (sw, sh) = (side.width, side.height);
        // Earlier frames and pictures may still use every buffer.
        rec.barrier();
        rec.fill(&self.sums, 0);
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
        rec.barrier();
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
            ..Default::default()
        };
        rec.dispatch(
            &p.zero,
            &[Binding::Buffer(&self.image), Binding::Buffer(&self.values)],
            bytemuck::bytes_of(&base),
            groups(sw, sh),
        )?;
        rec.barrier();
        rec.dispatch(
            &p.mask,
            &[Binding::Buffer(&self.values), Binding::Buffer(&self.mask)],
            bytemuck::bytes_of(&base),
            groups(sw, sh),
        )?;
        let sizes = self.cambi.scale_sizes(source);
        let counts = self.cambi.topk_counts(source);
        let speedup = self.cambi.speedup();
        let mut input = (&self.image, sw);
        let mut map_at = maps.map(|(_, at)| at);
        for s in 0..NUM_SCALES {
            let (w, h) = (sizes[s].0 as u32, sizes[s].1 as u32);
            let decimate = s > 0 || speedup;
            let shift = s as u32 + u32::from(speedup);
            let push = CambiPush {
                width: w,
                height: h,
                src_width: input.1,
                step: if decimate { 2 } else { 1 },
                mask_shift: shift,
                scale: s as u32,
                k: counts[s] as u32,
                n: w * h,
                out_word: out_word + s as u32,
                ..base
            };
            let push = bytemuck::bytes_of(&push);
            let scaled = &self.scaled[s % 2];
            rec.barrier();
            rec.fill(&self.high, 0);
            rec.fill(&self.low, 0);
            rec.dispatch(
                &p.scale,
                &[
                    Binding::Buffer(input.0),
                    Binding::Buffer(&self.mask),
                    Binding::Buffer(scaled),
                    Binding::Buffer(&self.codes),
                ],
                push,
                groups(w, h),
            )?;
            rec.barrier();
            rec.dispatch(
                &p.cvalues,
                &[
                    Binding::Buffer(&self.codes),
                    Binding::Buffer(&self.tables),
                    Binding::Buffer(&self.values),
                    Binding::Buffer(&self.high),
                ],
                push,
                [w.div_ceil(CVALUE_COLUMNS - 2 * side.pad), h.div_ceil(CVALUE_ROWS), 1],
            )?;
            rec.barrier();
            if let (Some((buffer, _)), Some(at)) = (maps, map_at.as_mut()) {
                // Only read until the next scale's c-values, which come
                // after further barriers.
                let bytes = u64::from(w * h) * 4;
                rec.copy_buffer(&self.values, 0, buffer, *at, bytes);
                *at += bytes;
            }
            rec.dispatch(
                &p.select_high,
                &[Binding::Buffer(&self.high), Binding::Buffer(&self.select)],
                push,
                [1, 1, 1],
            )?;
            rec.barrier();
            let pass_groups = (w * h).div_ceil(THREADS).clamp(1, MAX_GROUPS);
            rec.dispatch(
                &p.pass2,
                &[
                    Binding::Buffer(&self.values),
                    Binding::Buffer(&self.select),
                    Binding::Buffer(&self.low),
                    Binding::Buffer(&self.sums),
                ],
                push,
                [pass_groups, 1, 1],
            )?;
            rec.barrier();
            rec.dispatch(
                &p.select_low,
                &[
                    Binding::Buffer(&self.low),
                    Binding::Buffer(&self.select),
                    Binding::Buffer(&self.sums),
                    Binding::Buffer(results),
                ],
                push,
                [1, 1, 1],
            )?;
            input = (scaled, w);
        }
        Ok(())
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
