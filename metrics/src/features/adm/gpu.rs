//! Integer ADM on the GPU: the kernels that reproduce [`super::adm_frame_sums`]
//! bit for bit, so [`super::adm_scores`] of [`AdmKernel::decode`]'s sums
//! gives libvmaf's values.
//!
//! Per frame, [`AdmKernel::record`] clears the row sums, then records
//! (9 dispatches):
//! 1. `adm_dwt0`: level 0 of the wavelet transform of both input planes;
//!    each invocation decouples its sample (reference against distorted)
//!    right away and keeps the restored and additive parts and their CSF
//!    `flt` sums, and adds the denominator terms into the level's row sums;
//! 2. per level 1–3, `adm_dwt`: the same on the previous level's `a` bands;
//! 3. per level, `adm_cm`: contrast masking of a 32×8 tile of the scored
//!    region from those, its numerator and AIM terms added into the row
//!    sums. A level's masking only needs its own level, so it is recorded
//!    beside the next level's transform, between the same barriers;
//! 4. `adm_rows` (one workgroup per level and field): rounds and shifts
//!    each **row** sum as libvmaf does, and adds the rows into the 36 int64
//!    results.
//!
//! In a ladder, the lanes that ask for ADM alike share the reference's part
//! ([`AdmReference`], recorded once per frame a step ahead of them): its
//! wavelet bands at every level and the denominator row sums, which depend
//! on the reference alone. Each lane's wavelet kernels then transform only
//! the distorted image and read the reference's detail bands to decouple
//! ([`AdmKernel::sharing`]); masking and the numerator stay per lane.
//!
//! Decoupling where the wavelet samples are made, rather than in the
//! masking kernel, does it once per sample instead of again for each tile's
//! one-sample ring, and the masking reads packed results instead of eight
//! bands. Row sums are added across tiles with int64 atomics. Integer sums
//! do not depend on the order of addition, so nothing here depends on the
//! device's subgroup size or scheduling.

use std::any::Any;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
};

use super::{
    AdmFrameSums, AdmOptions, AdmScaleSums, Region, SCALES, band_sizes, cm, csf, decouple,
};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;
use crate::features::ReferenceTerms;

/// Output tile of the ADM kernels; must match `TW`/`TH` in the shaders.
const TILE_W: u32 = 32;
const TILE_H: u32 = 8;
/// adm_dwt0.comp's tile height (two output rows per invocation).
const DWT0_TILE_H: u32 = 16;
/// int64 row sums per row and results per level: num, aim, den × h, v, d.
const FIELDS: u32 = 9;
/// int32 word planes of a level's buffer (layout in adm_common.glsl).
const LEVEL0_PLANES: u64 = 6;
const LEVEL123_PLANES: u64 = 10;

/// Twin of adm_dwt0.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Dwt0Push {
    ref_plane: PlaneDesc,
    dis_plane: PlaneDesc,
    width: u32,
    height: u32,
    core: CoreRegion,
    rows_base: u32,
    decouple: u32,
    decouple_consts: DecoupleConsts,
    rf01: u32,
    rf2: u32,
}

/// Twin of adm_dwt.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DwtPush {
    in_width: u32,
    in_height: u32,
    width: u32,
    height: u32,
    scale: u32,
    core: CoreRegion,
    rows_base: u32,
    decouple_consts: DecoupleConsts,
    den_cub: u32,
    den_sq: u32,
    rf: [u32; 3],
}

/// The scored region `[left, right) × [top, bottom)` of a band, as the
/// shaders' push constants spell it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CoreRegion {
    left: u32,
    top: u32,
    right: u32,
    bottom: u32,
}

/// The decoupling's constants, as the wavelet shaders' push constants
/// spell them: f32 bits of cos²(1°), f64 bits of the enhancement gain limit.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DecoupleConsts {
    cos_bits: u32,
    egl_lo: u32,
    egl_hi: u32,
}

/// Twin of adm_cm.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CmPush {
    width: u32,
    height: u32,
    core: CoreRegion,
    rows_base: u32,
    skip_aim: u32,
    rf: [u32; 3],
    cub: [u32; 3],
}

/// Twin of `RowsLevel` in adm_rows.comp (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowsLevel {
    rows: u32,
    base: u32,
    /// Row shift of num/aim in bits 0–7, of den in bits 8–15.
    shifts: u32,
    pad: u32,
}

/// Twin of adm_rows.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowsPush {
    levels: [RowsLevel; SCALES],
    out_base: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::twin;
    use vqscope_shaders::{METRICS_ADM_CM, METRICS_ADM_DWT, METRICS_ADM_DWT0, METRICS_ADM_ROWS};
    vec![
        twin!(Dwt0Push as "Push" in [METRICS_ADM_DWT0] {
            ref_plane, dis_plane, width, height,
            left = core.left, top = core.top, right = core.right, bottom = core.bottom,
            rows_base, decouple,
            cos_bits = decouple_consts.cos_bits,
            egl_lo = decouple_consts.egl_lo,
            egl_hi = decouple_consts.egl_hi,
            rf01, rf2,
        }),
        twin!(DwtPush as "Push" in [METRICS_ADM_DWT] {
            in_width, in_height, width, height, scale,
            left = core.left, top = core.top, right = core.right, bottom = core.bottom,
            rows_base,
            cos_bits = decouple_consts.cos_bits,
            egl_lo = decouple_consts.egl_lo,
            egl_hi = decouple_consts.egl_hi,
            den_cub, den_sq, rf,
        }),
        twin!(CmPush as "Push" in [METRICS_ADM_CM] {
            width, height,
            left = core.left, top = core.top, right = core.right, bottom = core.bottom,
            rows_base, skip_aim, rf, cub,
        }),
        twin!(RowsLevel as "RowsLevel" in [METRICS_ADM_ROWS] { rows, base, shifts, pad }),
        twin!(RowsPush as "Push" in [METRICS_ADM_ROWS] { levels, out_base }),
    ]
}

/// What one level needs at record time, computed once.
struct Level {
    width: u32,
    height: u32,
    /// Masking tiles of the core region (columns, rows).
    groups: [u32; 2],
    cm: CmPush,
    /// Whether its masking pass runs (level 0 is skipped by `skip_scale0`).
    active: bool,
}

/// How the wavelet kernels split the images (their specialization constant
/// 1, `MODE`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Both images: a pair scored alone.
    Both = 0,
    /// The reference alone: a ladder's [`AdmReference`].
    Reference = 1,
    /// The distorted image alone, with the reference's bands from an
    /// [`AdmReference`]: a lane of that ladder.
    Distorted = 2,
}

/// What the kernels of one frame size and option set dispatch, computed
/// once: shared by [`AdmKernel`] and [`AdmReference`], whose row sums have
/// the same layout.
struct Layout {
    levels: Vec<Level>,
    /// int64 words of the row sums.
    row_words: u32,
    /// Level 0's push constants, planes left to `record`.
    dwt0_push: Dwt0Push,
    /// Levels 1–3's push constants.
    dwt_push: [DwtPush; SCALES - 1],
    rows_push: RowsPush,
}

impl Layout {
    /// Checks the geometry and options as the twin does.
    fn new(width: u32, height: u32, bpc: u32, options: &AdmOptions) -> Result<Self, MetricsError> {
        super::check_geometry(width as usize, height as usize, bpc)?;
        options.validate()?;
        let sizes = band_sizes(width as usize, height as usize);
        let mut levels = Vec::with_capacity(SCALES);
        let mut rows_levels = [RowsLevel::zeroed(); SCALES];
        let mut row_words = 0u32;
        for (scale, &(w, h)) in sizes.iter().enumerate() {
            let core = Region::core(w, h);
            let active = scale > 0 || !options.skip_scale0;
            rows_levels[scale] = RowsLevel {
                rows: if active { core.height() as u32 } else { 0 },
                base: row_words,
                shifts: row_shifts(scale, h, &core),
                pad: 0,
            };
            levels.push(Level {
                width: w as u32,
                height: h as u32,
                groups: [
                    (core.width() as u32).div_ceil(TILE_W),
                    (core.height() as u32).div_ceil(TILE_H),
                ],
                cm: cm_push(scale, w, h, &core, row_words, options),
                active,
            });
            row_words += core.height() as u32 * FIELDS;
        }
        Ok(Self {
            dwt0_push: dwt0_push(sizes[0], &levels[0].cm, options),
            dwt_push: std::array::from_fn(|i| dwt_push(i + 1, &sizes, &levels[i + 1].cm, options)),
            levels,
            row_words,
            rows_push: RowsPush { levels: rows_levels, out_base: 0 },
        })
    }

    /// Level `scale`'s buffer of `planes` int32 word planes.
    fn level_buffer(
        &self,
        ctx: &Arc<GpuContext>,
        scale: usize,
        planes: u64,
    ) -> vqscope_gpu::Result<Buffer> {
        let l = &self.levels[scale];
        Buffer::storage(ctx, "adm level", planes * u64::from(l.width * l.height) * 4)
    }

    /// Records the wavelet transform of level 0 into `level`; `bands` is
    /// binding 4 (read in [`Mode::Distorted`] only).
    fn record_dwt0(
        &self,
        rec: &mut Recorder<'_>,
        pipeline: &ComputePipeline,
        (reference, distorted): (&DevicePlane<'_>, &DevicePlane<'_>),
        level: &Buffer,
        row_sums: &Buffer,
        bands: &Buffer,
    ) -> vqscope_gpu::Result<()> {
        let l0 = &self.levels[0];
        let push =
            Dwt0Push { ref_plane: reference.desc, dis_plane: distorted.desc, ..self.dwt0_push };
        rec.dispatch(
            pipeline,
            &[
                Binding::Buffer(reference.buffer),
                Binding::Buffer(distorted.buffer),
                Binding::Buffer(level),
                Binding::Buffer(row_sums),
                Binding::Buffer(bands),
            ],
            bytemuck::bytes_of(&push),
            [l0.width.div_ceil(TILE_W), l0.height.div_ceil(DWT0_TILE_H), 1],
        )
    }

    /// Records the wavelet transform of level `scale` (1–3) from `src` (the
    /// previous level's buffer) into `dst`; `bands` is binding 3 (read in
    /// [`Mode::Distorted`] only).
    fn record_dwt(
        &self,
        rec: &mut Recorder<'_>,
        pipeline: &ComputePipeline,
        scale: usize,
        (src, dst): (&Buffer, &Buffer),
        row_sums: &Buffer,
        bands: &Buffer,
    ) -> vqscope_gpu::Result<()> {
        let level = &self.levels[scale];
        rec.dispatch(
            pipeline,
            &[
                Binding::Buffer(src),
                Binding::Buffer(dst),
                Binding::Buffer(row_sums),
                Binding::Buffer(bands),
            ],
            bytemuck::bytes_of(&self.dwt_push[scale - 1]),
            [level.width.div_ceil(TILE_W), level.height.div_ceil(TILE_H), 1],
        )
    }
}

/// The wavelet pipelines of `mode`: level 0's and levels 1–3's.
fn dwt_pipelines(
    ctx: &Arc<GpuContext>,
    mode: Mode,
) -> vqscope_gpu::Result<(ComputePipeline, ComputePipeline)> {
    use vqscope_shaders::{METRICS_ADM_DWT, METRICS_ADM_DWT0};
    let which = match mode {
        Mode::Both => "",
        Mode::Reference => " reference",
        Mode::Distorted => " distorted",
    };
    let spec = [(1u32, mode as u32)];
    let pipeline = |name: &str, shader: &Shader| {
        ComputePipeline::new(
            ctx,
            &PipelineDesc { name, specialization: &spec, ..PipelineDesc::new(shader) },
        )
    };
    Ok((
        pipeline(&format!("metrics/adm_dwt0{which}"), METRICS_ADM_DWT0)?,
        pipeline(&format!("metrics/adm_dwt{which}"), METRICS_ADM_DWT)?,
    ))
}

/// ADM's reference-only work in a ladder: the reference's wavelet bands at
/// every level and the denominator (the row sums of the cubes of the
/// reference's detail coefficients over the core), made once per frame for the kernels of every lane
/// ([`AdmKernel::sharing`]), which then transform only the distorted image,
/// read the reference's detail bands to decouple, and take the denominator
/// from here.
pub struct AdmReference {
    width: u32,
    height: u32,
    bpc: u32,
    layout: Layout,
    dwt0: ComputePipeline,
    dwt: ComputePipeline,
    /// Per level: the reference's bands (adm_dwt0.comp / adm_dwt.comp,
    /// `MODE` 1).
    bands: Vec<Buffer>,
    /// The row sums, of which the den fields are written, cleared every
    /// frame.
    den_sums: Buffer,
}

impl AdmReference {
    /// Int32 word planes of a level's bands: level 0 packs two int16 to a
    /// word.
    const PLANES: [u64; SCALES] = [2, 4, 4, 4];

    /// Checks the geometry and options as [`AdmKernel::new`] does, builds
    /// the reference-only pipelines and allocates the bands and sums.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: &AdmOptions,
    ) -> Result<Self, MetricsError> {
        let layout = Layout::new(width, height, bpc, options)?;
        let bands = (0..SCALES)
            .map(|scale| layout.level_buffer(ctx, scale, Self::PLANES[scale]))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let den_sums = Buffer::storage(ctx, "adm den row sums", u64::from(layout.row_words) * 8)?;
        let (dwt0, dwt) = dwt_pipelines(ctx, Mode::Reference)?;
        Ok(Self { width, height, bpc, layout, dwt0, dwt, bands, den_sums })
    }
}

impl ReferenceTerms for AdmReference {
    /// A step ahead of [`AdmKernel::record`]'s, whose level `s` transform
    /// reads this level `s`: the den sums are cleared in step 0 (after
    /// the frame's upload; the previous frame's lanes read them before
    /// it), level 0 is made in step 1 (beside the lanes' clearing of their
    /// row sums), level `s` in step `s + 1`, each a step before the lanes'
    /// transform of that level, and the den sums are complete long before
    /// the lanes' last step reads them.
    fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()> {
        let r = &reference[0];
        check_plane("reference", r, (self.width, self.height, self.bpc))?;
        rec.fill(&self.den_sums, 0);
        rec.barrier();
        let l = &self.layout;
        l.record_dwt0(rec, &self.dwt0, (r, r), &self.bands[0], &self.den_sums, r.buffer)?;
        for scale in 1..SCALES {
            rec.barrier();
            let (src, dst) = (&self.bands[scale - 1], &self.bands[scale]);
            l.record_dwt(rec, &self.dwt, scale, (src, dst), &self.den_sums, src)?;
        }
        rec.barrier();
        Ok(())
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// The integer ADM kernels for one frame size, bit depth and option set,
/// with every intermediate buffer allocated once.
pub struct AdmKernel {
    width: u32,
    height: u32,
    bpc: u32,
    layout: Layout,
    dwt0: ComputePipeline,
    dwt: ComputePipeline,
    cm0: ComputePipeline,
    cm123: ComputePipeline,
    rows: ComputePipeline,
    /// Per level: its band `a`, decoupled parts and `flt` sums
    /// (adm_common.glsl).
    level_bufs: Vec<Buffer>,
    /// int64 per (level, core row, field), cleared every frame.
    row_sums: Buffer,
    /// A ladder's reference bands and den sums, which this kernel reads
    /// instead of making its own.
    shared: Option<Arc<AdmReference>>,
}

impl AdmKernel {
    /// int64 result slots: per level, `num[3]`, `aim[3]`, `den[3]` (den as
    /// u64 bits).
    pub const RESULT_WORDS: u32 = SCALES as u32 * FIELDS;

    /// Labels of the intervals [`AdmKernel::record_profiled`] times, in
    /// order (`dwt0` includes clearing the row sums).
    pub const PROFILE_PHASES: [&'static str; 9] =
        ["dwt0", "cm0", "dwt1", "cm1", "dwt2", "cm2", "dwt3", "cm3", "rows"];

    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: &AdmOptions,
    ) -> Result<Self, MetricsError> {
        Self::build(ctx, width, height, bpc, options, None)
    }

    /// [`AdmKernel::new`] for a lane of a ladder: it reads the reference's
    /// bands and den sums from `reference` (built with the same options),
    /// which the pipeline records every frame, and transforms only the
    /// distorted image. Its sums equal [`AdmKernel::new`]'s bit for bit:
    /// each image's transform is the same arithmetic alone or beside the
    /// other, and the decoupling reads the same reference values.
    pub fn sharing(
        ctx: &Arc<GpuContext>,
        options: &AdmOptions,
        reference: Arc<AdmReference>,
    ) -> Result<Self, MetricsError> {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        Self::build(ctx, w, h, bpc, options, Some(reference))
    }

    fn build(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: &AdmOptions,
        shared: Option<Arc<AdmReference>>,
    ) -> Result<Self, MetricsError> {
        let layout = Layout::new(width, height, bpc, options)?;
        let level_bufs = (0..SCALES)
            .map(|scale| {
                let planes = if scale == 0 { LEVEL0_PLANES } else { LEVEL123_PLANES };
                layout.level_buffer(ctx, scale, planes)
            })
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let row_sums = Buffer::storage(ctx, "adm row sums", u64::from(layout.row_words) * 8)?;
        let pipeline = |name: &str, shader: &Shader, level0: bool| {
            let spec = [(0u32, u32::from(level0))];
            ComputePipeline::new(
                ctx,
                &PipelineDesc { name, specialization: &spec, ..PipelineDesc::new(shader) },
            )
        };
        use vqscope_shaders::{METRICS_ADM_CM, METRICS_ADM_ROWS};
        let mode = if shared.is_some() { Mode::Distorted } else { Mode::Both };
        let (dwt0, dwt) = dwt_pipelines(ctx, mode)?;
        Ok(Self {
            width,
            height,
            bpc,
            layout,
            dwt0,
            dwt,
            cm0: pipeline("metrics/adm_cm level 0", METRICS_ADM_CM, true)?,
            cm123: pipeline("metrics/adm_cm levels 1-3", METRICS_ADM_CM, false)?,
            rows: pipeline("metrics/adm_rows", METRICS_ADM_ROWS, false)?,
            level_bufs,
            row_sums,
            shared,
        })
    }

    /// Records one frame pair's ADM: leaves [`Self::RESULT_WORDS`] int64 in
    /// `results` from `offset_words` (see [`Self::decode`]).
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

    /// [`AdmKernel::record`] with every dispatch alone between two barriers
    /// and a timestamp after each (`stamps` needs 10 queries; interval `i`
    /// is [`AdmKernel::PROFILE_PHASES`]`[i]`). Serialises what `record`
    /// overlaps, so the sum exceeds `record`'s time a little. For timing
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

    /// The dispatches of one frame, calling `phase_end` after each of the
    /// [`Self::PROFILE_PHASES`] (also after a skipped one).
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
        rec.fill(&self.row_sums, 0);
        rec.barrier();
        let l = &self.layout;
        // With a ladder's reference bands: the distorted image alone (both
        // planes of the push constants are the distorted one), reading the
        // reference's bands of the level made, and its den sums.
        let (planes, bands, den_sums) = match &self.shared {
            None => ((reference, distorted), None, &self.row_sums),
            Some(shared) => ((distorted, distorted), Some(&shared.bands), &shared.den_sums),
        };
        let level0_bands = bands.map_or(planes.0.buffer, |b| &b[0]);
        l.record_dwt0(rec, &self.dwt0, planes, &self.level_bufs[0], &self.row_sums, level0_bands)?;
        phase_end(rec);
        rec.barrier();
        for scale in 0..SCALES {
            // Masking of this level beside the transform of the next.
            self.record_cm(rec, scale)?;
            phase_end(rec);
            if scale + 1 < SCALES {
                let (src, dst) = (&self.level_bufs[scale], &self.level_bufs[scale + 1]);
                let level_bands = bands.map_or(src, |b| &b[scale + 1]);
                l.record_dwt(rec, &self.dwt, scale + 1, (src, dst), &self.row_sums, level_bands)?;
                phase_end(rec);
            }
            rec.barrier();
        }
        let push = RowsPush { out_base: offset_words, ..l.rows_push };
        rec.dispatch(
            &self.rows,
            &[Binding::Buffer(&self.row_sums), Binding::Buffer(results), Binding::Buffer(den_sums)],
            bytemuck::bytes_of(&push),
            [FIELDS, SCALES as u32, 1],
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
        let want = (self.width, self.height, self.bpc);
        check_plane("reference", reference, want)?;
        check_plane("distorted", distorted, want)?;
        let end = (u64::from(offset_words) + u64::from(Self::RESULT_WORDS)) * 8;
        if end > results.size() {
            return Err(GpuError::Usage(format!(
                "adm: results buffer of {} bytes cannot hold words up to {end} bytes",
                results.size()
            )));
        }
        Ok(())
    }

    fn record_cm(&self, rec: &mut Recorder<'_>, scale: usize) -> vqscope_gpu::Result<()> {
        let level = &self.layout.levels[scale];
        if !level.active {
            return Ok(());
        }
        let pipeline = if scale == 0 { &self.cm0 } else { &self.cm123 };
        rec.dispatch(
            pipeline,
            &[Binding::Buffer(&self.level_bufs[scale]), Binding::Buffer(&self.row_sums)],
            bytemuck::bytes_of(&level.cm),
            [level.groups[0], level.groups[1], 1],
        )
    }

    /// The twin's sums from the [`Self::RESULT_WORDS`] int64 `record` left.
    pub fn decode(words: &[i64]) -> AdmFrameSums {
        assert!(words.len() >= Self::RESULT_WORDS as usize, "adm: too few result words");
        let mut sums = AdmFrameSums::default();
        for (scale, s) in sums.scales.iter_mut().enumerate() {
            let w = &words[scale * FIELDS as usize..][..FIELDS as usize];
            *s = AdmScaleSums {
                num: [w[0], w[1], w[2]],
                aim: [w[3], w[4], w[5]],
                den: [w[6] as u64, w[7] as u64, w[8] as u64],
            };
        }
        sums
    }
}

/// The masking kernel's constants for one level (band `w × h`).
fn cm_push(
    scale: usize,
    w: usize,
    h: usize,
    core: &Region,
    rows_base: u32,
    o: &AdmOptions,
) -> CmPush {
    let (rf, cub) = if scale == 0 {
        let rf = csf::i_rfactor_s0(o).map(u32::from);
        (rf, cm::CmShiftsS0::new(w).cub)
    } else {
        let rf = csf::i_rfactor_s123(scale, o);
        (rf, [cm::ceil_log2(w); 3])
    };
    CmPush {
        width: w as u32,
        height: h as u32,
        core: CoreRegion {
            left: core.left as u32,
            top: core.top as u32,
            right: core.right as u32,
            bottom: core.bottom as u32,
        },
        rows_base,
        skip_aim: u32::from(o.skip_aim),
        rf,
        cub,
    }
}

/// Level 0's wavelet kernel constants (band `w × h`), sharing the core, row
/// sums and CSF factors of its masking constants `cm`.
fn dwt0_push((w, h): (usize, usize), cm: &CmPush, o: &AdmOptions) -> Dwt0Push {
    Dwt0Push {
        ref_plane: PlaneDesc::zeroed(),
        dis_plane: PlaneDesc::zeroed(),
        width: w as u32,
        height: h as u32,
        core: cm.core,
        rows_base: cm.rows_base,
        decouple: u32::from(!o.skip_scale0),
        decouple_consts: decouple_consts(o),
        rf01: cm.rf[0] | cm.rf[1] << 16,
        rf2: cm.rf[2],
    }
}

/// The wavelet kernel constants of level `scale` (1–3), sharing the core,
/// row sums and CSF factors of its masking constants `cm`.
fn dwt_push(
    scale: usize,
    sizes: &[(usize, usize); SCALES],
    cm: &CmPush,
    o: &AdmOptions,
) -> DwtPush {
    let (iw, ih) = sizes[scale - 1];
    let core_width = (cm.core.right - cm.core.left) as usize;
    DwtPush {
        in_width: iw as u32,
        in_height: ih as u32,
        width: cm.width,
        height: cm.height,
        scale: scale as u32,
        core: cm.core,
        rows_base: cm.rows_base,
        decouple_consts: decouple_consts(o),
        den_cub: cm::ceil_log2(core_width),
        den_sq: cm::DEN_S123_SQ[scale - 1],
        rf: cm.rf,
    }
}

fn decouple_consts(o: &AdmOptions) -> DecoupleConsts {
    let egl = o.enhn_gain_limit.to_bits();
    DecoupleConsts {
        cos_bits: decouple::cos_1deg_sq().to_bits(),
        egl_lo: egl as u32,
        egl_hi: (egl >> 32) as u32,
    }
}

/// Per-row rounding shifts of one level (mod.rs `cm_level_*`,
/// `den_level_*`), packed as adm_rows.comp reads them.
fn row_shifts(scale: usize, h: usize, core: &Region) -> u32 {
    let cm_shift = cm::ceil_log2(h);
    let den_shift = if scale == 0 { cm::den_shift_s0(core) } else { cm::ceil_log2(core.height()) };
    cm_shift | den_shift << 8
}

/// Refuses a plane of another geometry than the kernel's `(width, height,
/// bpc)`.
fn check_plane(what: &str, p: &DevicePlane<'_>, want: (u32, u32, u32)) -> vqscope_gpu::Result<()> {
    let d = &p.desc;
    if (d.width, d.height, d.bpc) != want {
        return Err(GpuError::Usage(format!(
            "adm: {what} plane is {}x{} at {} bits, the kernel was built for {}x{} at {}",
            d.width, d.height, d.bpc, want.0, want.1, want.2
        )));
    }
    Ok(())
}
