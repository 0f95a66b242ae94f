//! Float ADM on the GPU: the kernels that reproduce [`super::frame_sums`]
//! bit for bit, so [`super::scores`] of [`FloatAdmKernel::decode`]'s sums
//! gives libvmaf's values.
//!
//! Per frame, [`FloatAdmKernel::record`] records:
//! 1. `float_adm_dwt` per level: the wavelet transform of both images, one
//!    invocation per output sample, which also decouples its sample and
//!    stores the denominator's per-sample term;
//! 2. `float_adm_cm` per level (beside the next level's transform): the
//!    masking thresholds and the numerator's and AIM's per-sample terms;
//! 3. the shared ordered row sums ([`crate::row_sums`]): every row's float
//!    sum per (level, field, row), adding left to right; then per (level,
//!    field) the row sums top to bottom — libvmaf's order of float
//!    additions, which no parallel reduction reproduces.
//!
//! Nothing depends on the subgroup size or on scheduling: every value is
//! computed by one invocation in a fixed order.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
    Submitter, upload_buffer,
};

use super::{FloatAdmOptions, FrameSums, LevelSums, check_geometry, csf, level, rcp};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::adm::{Region, SCALES, band_sizes};
use crate::row_sums::{ResultWord, RowLayout, RowSegment, RowSums, RowValues};

/// Workgroup tile of the per-sample kernels (`local_size` 16×16).
const TILE: u32 = 16;
/// Per-sample fields and results per level: num, aim, den × h, v, d.
const FIELDS: u32 = 9;
/// Float planes of a level buffer (layout in float_adm_common.glsl).
const LEVEL_PLANES: u64 = 8;

/// Twin of float_adm_dwt.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DwtPush {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    in_width: u32,
    in_height: u32,
    width: u32,
    height: u32,
    core: PackedRegion,
    wide: PackedRegion,
    rf: [f32; 3],
    cos_bits: u32,
    egl_lo: u32,
    egl_hi: u32,
    decouple: u32,
    vals_base: u32,
}

/// A region `[left, right) × [top, bottom)` as the shaders read it:
/// `left | top << 16`, `right | bottom << 16`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct PackedRegion {
    lt: u32,
    rb: u32,
}

impl PackedRegion {
    fn new(r: &Region) -> Self {
        Self {
            lt: r.left as u32 | (r.top as u32) << 16,
            rb: r.right as u32 | (r.bottom as u32) << 16,
        }
    }
}

/// Twin of float_adm_cm.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CmPush {
    width: u32,
    height: u32,
    core: PackedRegion,
    rf: [f32; 3],
    bypass_cm: u32,
    vals_base: u32,
}

#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_FLOAT_ADM_CM, METRICS_FLOAT_ADM_DWT, twin};
    vec![
        twin!(DwtPush as "Push" in [METRICS_FLOAT_ADM_DWT] {
            ref_plane, dis_plane, in_width, in_height, width, height,
            core_lt = core.lt, core_rb = core.rb, wide_lt = wide.lt, wide_rb = wide.rb,
            rf, cos_bits, egl_lo, egl_hi, decouple, vals_base,
        }),
        twin!(CmPush as "Push" in [METRICS_FLOAT_ADM_CM] {
            width, height, core_lt = core.lt, core_rb = core.rb, rf, bypass_cm, vals_base,
        }),
    ]
}

/// What one level needs at record time, computed once.
struct Level {
    width: u32,
    height: u32,
    dwt: DwtPush,
    cm: CmPush,
    /// Core region size (columns, rows).
    core: [u32; 2],
    /// Whether it is scored (level 0 is not with `adm_skip_scale0`).
    active: bool,
}

/// The float ADM kernels for one frame size, bit depth and option set,
/// with every intermediate buffer allocated once.
pub struct FloatAdmKernel {
    width: u32,
    height: u32,
    bpc: u32,
    dwt0: ComputePipeline,
    dwt: ComputePipeline,
    cm: ComputePipeline,
    row_sums: RowSums,
    level_bufs: Vec<Buffer>,
    vals: Buffer,
    row_sums_buf: Buffer,
    rcp_table: Buffer,
    levels: Vec<Level>,
    /// Per level, its nine fields' core-region values (an inactive level
    /// has 0 rows, so its sums are 0).
    rows_layout: RowLayout,
}

impl FloatAdmKernel {
    /// int64 result slots: per level, the float bits of num h/v/d, aim
    /// h/v/d, den h/v/d.
    pub const RESULT_WORDS: u32 = SCALES as u32 * FIELDS;

    /// Labels of the intervals [`FloatAdmKernel::record_profiled`] times.
    pub const PROFILE_PHASES: [&'static str; 10] =
        ["dwt0", "cm0", "dwt1", "cm1", "dwt2", "cm2", "dwt3", "cm3", "rows", "total"];

    /// Checks the geometry and options as the twin does; the GPU path also
    /// needs `adm_p_norm` = 3 (other norms take `powf` per sample, which no
    /// GPU reproduces bit for bit).
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: &FloatAdmOptions,
    ) -> Result<Self, MetricsError> {
        check_geometry(width as usize, height as usize)?;
        options.validate()?;
        if ![8, 10, 12, 16].contains(&bpc) {
            return Err(MetricsError::OptionOutOfRange {
                feature: super::FEATURE,
                option: "bit depth",
                value: i64::from(bpc),
                allowed: "8, 10, 12 or 16",
            });
        }
        if options.p_norm != 3.0 {
            return Err(MetricsError::FeatureOption {
                feature: super::FEATURE.to_owned(),
                option: "adm_p_norm".to_owned(),
                reason: format!(
                    "{} is not computed on the GPU: norms other than 3 take powf per sample, \
                     which the GPU cannot reproduce bit for bit (the CPU twin can)",
                    options.p_norm
                ),
            });
        }
        let sizes = band_sizes(width as usize, height as usize);
        let egl = options.enhn_gain_limit.to_bits();
        let mut levels = Vec::with_capacity(SCALES);
        let mut level_bufs = Vec::with_capacity(SCALES);
        let mut rows_levels = [RowSegment::default(); SCALES];
        let (mut vals_words, mut sums_words) = (0u32, 0u32);
        let (mut in_w, mut in_h) = (width, height);
        for (scale, &(w, h)) in sizes.iter().enumerate() {
            level_bufs.push(Buffer::storage(
                ctx,
                "float adm level",
                LEVEL_PLANES * (w * h) as u64 * 4,
            )?);
            let core = Region::core(w, h);
            let wide = Region::widened(w, h);
            let rf = csf::rfactors(scale, options);
            let active = scale > 0 || !options.skip_scale0;
            let (cols, rows) = (core.width() as u32, core.height() as u32);
            levels.push(Level {
                width: w as u32,
                height: h as u32,
                dwt: DwtPush {
                    ref_plane: PlaneDesc::zeroed(),
                    dis_plane: PlaneDesc::zeroed(),
                    in_width: in_w,
                    in_height: in_h,
                    width: w as u32,
                    height: h as u32,
                    core: PackedRegion::new(&core),
                    wide: PackedRegion::new(&wide),
                    rf,
                    cos_bits: level::cos_1deg_sq().to_bits(),
                    egl_lo: egl as u32,
                    egl_hi: (egl >> 32) as u32,
                    decouple: u32::from(active),
                    vals_base: vals_words,
                },
                cm: CmPush {
                    width: w as u32,
                    height: h as u32,
                    core: PackedRegion::new(&core),
                    rf,
                    bypass_cm: u32::from(options.bypass_cm),
                    vals_base: vals_words,
                },
                core: [cols, rows],
                active,
            });
            rows_levels[scale] = RowSegment {
                rows: if active { rows } else { 0 },
                cols,
                vals_base: vals_words,
                sums_base: sums_words,
            };
            vals_words += FIELDS * cols * rows;
            sums_words += FIELDS * rows;
            (in_w, in_h) = (w as u32, h as u32);
        }
        let mut submitter = Submitter::new(ctx, 1)?;
        let rcp_table =
            upload_buffer(ctx, &mut submitter, "float adm rcp table", rcp::TABLE_BYTES)?;
        let pipeline = |name: &str, shader: &Shader, flag: bool| {
            let spec = [(0u32, u32::from(flag))];
            ComputePipeline::new(
                ctx,
                &PipelineDesc { name, specialization: &spec, ..PipelineDesc::new(shader) },
            )
        };
        use vqscope_shaders::{METRICS_FLOAT_ADM_CM, METRICS_FLOAT_ADM_DWT};
        Ok(Self {
            width,
            height,
            bpc,
            dwt0: pipeline("metrics/float_adm_dwt level 0", METRICS_FLOAT_ADM_DWT, true)?,
            dwt: pipeline("metrics/float_adm_dwt levels 1-3", METRICS_FLOAT_ADM_DWT, false)?,
            cm: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/float_adm_cm",
                    ..PipelineDesc::new(METRICS_FLOAT_ADM_CM)
                },
            )?,
            row_sums: RowSums::new(ctx, RowValues::Stored, ResultWord::FloatBits)?,
            level_bufs,
            vals: Buffer::storage(ctx, "float adm values", u64::from(vals_words.max(1)) * 4)?,
            row_sums_buf: Buffer::storage(
                ctx,
                "float adm row sums",
                u64::from(sums_words.max(1)) * 4,
            )?,
            rcp_table,
            levels,
            rows_layout: RowLayout { segments: rows_levels, count: SCALES as u32, fields: FIELDS },
        })
    }

    /// Records one frame pair's float ADM: leaves [`Self::RESULT_WORDS`]
    /// int64 in `results` from `offset_words` (see [`Self::decode`]).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.record_phases(rec, reference, distorted, results, offset_words, &mut |_| {})
    }

    /// [`FloatAdmKernel::record`] with every dispatch alone between two
    /// barriers and a timestamp after each (`stamps` needs 11 queries;
    /// interval `i` is [`FloatAdmKernel::PROFILE_PHASES`]`[i]`). For timing
    /// only.
    pub fn record_profiled(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        stamps: &vqscope_gpu::Timestamps,
    ) -> vqscope_gpu::Result<()> {
        rec.barrier();
        rec.timestamp(stamps, 0);
        let mut next_stamp = 1;
        self.record_phases(rec, reference, distorted, results, offset_words, &mut |rec| {
            rec.barrier();
            rec.timestamp(stamps, next_stamp);
            next_stamp += 1;
        })
    }

    fn record_phases(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        phase_end: &mut dyn FnMut(&mut Recorder<'_>),
    ) -> vqscope_gpu::Result<()> {
        self.check_inputs(reference, distorted, results, offset_words)?;
        // Earlier frames may still read the intermediates.
        rec.barrier();
        let l0 = &self.levels[0];
        let push = DwtPush { ref_plane: reference.desc, dis_plane: distorted.desc, ..l0.dwt };
        rec.dispatch(
            &self.dwt0,
            &[
                Binding::Buffer(reference.buffer),
                Binding::Buffer(distorted.buffer),
                Binding::Buffer(&self.level_bufs[0]),
                Binding::Buffer(&self.vals),
                Binding::Buffer(&self.rcp_table),
            ],
            bytemuck::bytes_of(&push),
            [l0.width.div_ceil(TILE), l0.height.div_ceil(TILE), 1],
        )?;
        phase_end(rec);
        rec.barrier();
        for scale in 0..SCALES {
            // Masking of this level beside the transform of the next.
            let level = &self.levels[scale];
            if level.active {
                rec.dispatch(
                    &self.cm,
                    &[Binding::Buffer(&self.level_bufs[scale]), Binding::Buffer(&self.vals)],
                    bytemuck::bytes_of(&level.cm),
                    [level.core[0].div_ceil(TILE), level.core[1].div_ceil(TILE), 1],
                )?;
            }
            phase_end(rec);
            if scale + 1 < SCALES {
                let next = &self.levels[scale + 1];
                let src = &self.level_bufs[scale];
                rec.dispatch(
                    &self.dwt,
                    &[
                        Binding::Buffer(src),
                        Binding::Buffer(src),
                        Binding::Buffer(&self.level_bufs[scale + 1]),
                        Binding::Buffer(&self.vals),
                        Binding::Buffer(&self.rcp_table),
                    ],
                    bytemuck::bytes_of(&next.dwt),
                    [next.width.div_ceil(TILE), next.height.div_ceil(TILE), 1],
                )?;
                phase_end(rec);
            }
            rec.barrier();
        }
        self.row_sums.record_rows(
            rec,
            Binding::Buffer(&self.vals),
            Binding::Buffer(&self.row_sums_buf),
            &self.rows_layout,
        )?;
        phase_end(rec);
        rec.barrier();
        self.row_sums.record_totals(
            rec,
            Binding::Buffer(&self.row_sums_buf),
            results,
            &self.rows_layout,
            offset_words,
        )?;
        phase_end(rec);
        rec.barrier();
        Ok(())
    }

    /// Refuses planes of another geometry and a results buffer too small.
    fn check_inputs(
        &self,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        for (what, p) in [("reference", reference), ("distorted", distorted)] {
            let d = &p.desc;
            if (d.width, d.height, d.bpc) != (self.width, self.height, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "float_adm: {what} plane is {}x{} at {} bits, the kernel was built for \
                     {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let end = (u64::from(offset_words) + u64::from(Self::RESULT_WORDS)) * 8;
        if end > results.size() {
            return Err(GpuError::Usage(format!(
                "float_adm: results buffer of {} bytes cannot hold words up to {end} bytes",
                results.size()
            )));
        }
        Ok(())
    }

    /// The twin's sums from the [`Self::RESULT_WORDS`] words `record` left.
    pub fn decode(words: &[i64]) -> FrameSums {
        assert!(words.len() >= Self::RESULT_WORDS as usize, "float_adm: too few result words");
        let f = |w: i64| ResultWord::FloatBits.decode(w);
        let mut sums = FrameSums::default();
        for (scale, l) in sums.levels.iter_mut().enumerate() {
            let w = &words[scale * FIELDS as usize..][..FIELDS as usize];
            *l = LevelSums {
                num: [f(w[0]), f(w[1]), f(w[2])],
                aim: [f(w[3]), f(w[4]), f(w[5])],
                den: [f(w[6]), f(w[7]), f(w[8])],
            };
        }
        sums
    }
}
