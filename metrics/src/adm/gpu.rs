//! Integer ADM on the GPU: the kernels that reproduce [`super::adm_frame_sums`]
//! bit for bit, so [`super::adm_scores`] of [`AdmKernel::decode`]'s sums
//! gives libvmaf's values.
//!
//! Per frame, [`AdmKernel::record`] records (10 dispatches):
//! 1. `adm_dwt0` twice (reference, distorted): level 0 of the wavelet
//!    transform from the input planes into the level-0 band buffer;
//! 2. per level 1–3, `adm_dwt` (both images in one dispatch) on the previous
//!    level's `a` band;
//! 3. per level, `adm_cm`: decoupling, CSF, masking and the denominator of
//!    a 32×8 tile of the scored region, summed per tile row into
//!    per-(row, column block) int64 partials. A level's masking only needs
//!    its own bands, so it is recorded beside the next level's transform,
//!    between the same barriers;
//! 4. `adm_rows` (one workgroup per level and field): adds each row's
//!    partials, rounds and shifts the **row** sum as libvmaf does, and adds
//!    the rows into the 36 int64 results.
//!
//! Integer sums do not depend on the order of addition, so nothing here
//! depends on the device's subgroup size or scheduling.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, BindingKind, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder,
};

use super::{
    AdmFrameSums, AdmOptions, AdmScaleSums, MIN_SIZE, Region, SCALES, band_sizes, cm, csf, decouple,
};
use crate::device::{DevicePlane, PlaneDesc};
use crate::error::MetricsError;

/// Output tile of every ADM kernel; must match `TW`/`TH` in the shaders.
const TILE_W: u32 = 32;
const TILE_H: u32 = 8;
/// int64 values per sample and per row partial: num, aim, den × h, v, d.
const FIELDS: u32 = 9;

/// Twin of adm_dwt0.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Dwt0Push {
    plane: PlaneDesc,
    out_width: u32,
    out_height: u32,
    out_offset: u32,
    pad: u32,
}

/// Twin of adm_dwt.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DwtPush {
    in_width: u32,
    in_height: u32,
    out_width: u32,
    out_height: u32,
    scale: u32,
}

/// Twin of adm_cm.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CmPush {
    width: u32,
    height: u32,
    left: u32,
    top: u32,
    right: u32,
    bottom: u32,
    colblocks: u32,
    partial_base: u32,
    rf: [u32; 3],
    cub: [u32; 3],
    den_cub: u32,
    den_sq: u32,
    skip_aim: u32,
    cos_bits: u32,
    egl_lo: u32,
    egl_hi: u32,
}

/// Twin of `RowsLevel` in adm_rows.comp (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowsLevel {
    rows: u32,
    colblocks: u32,
    base: u32,
    /// Row shift of num/aim in bits 0–7, of den in bits 8–15.
    shifts: u32,
}

/// Twin of adm_rows.comp's push constants (the two must agree).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowsPush {
    levels: [RowsLevel; SCALES],
    out_base: u32,
}

/// What one level needs at record time, computed once.
struct Level {
    width: u32,
    height: u32,
    /// Tiles of the core region (columns, rows).
    groups: [u32; 2],
    cm: CmPush,
    /// Whether its masking pass runs (level 0 is skipped by `skip_scale0`).
    active: bool,
}

/// The integer ADM kernels for one frame size, bit depth and option set,
/// with every intermediate buffer allocated once.
pub struct AdmKernel {
    width: u32,
    height: u32,
    bpc: u32,
    dwt0: ComputePipeline,
    dwt: ComputePipeline,
    cm0: ComputePipeline,
    cm123: ComputePipeline,
    rows: ComputePipeline,
    /// Per level: bands a, h, v, d of reference then distorted, int32.
    bands: Vec<Buffer>,
    partials: Buffer,
    levels: Vec<Level>,
    rows_push: RowsPush,
}

impl AdmKernel {
    /// int64 result slots: per level, `num[3]`, `aim[3]`, `den[3]` (den as
    /// u64 bits).
    pub const RESULT_WORDS: u32 = SCALES as u32 * FIELDS;

    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: &AdmOptions,
    ) -> Result<Self, MetricsError> {
        check_geometry(width as usize, height as usize, bpc)?;
        options.validate()?;
        let sizes = band_sizes(width as usize, height as usize);
        let mut bands = Vec::with_capacity(SCALES);
        let mut levels = Vec::with_capacity(SCALES);
        let mut rows_levels = [RowsLevel::zeroed(); SCALES];
        let mut partial_words = 0u32;
        for (scale, &(w, h)) in sizes.iter().enumerate() {
            let bytes = 8 * (w * h) as u64 * 4;
            bands.push(Buffer::storage(ctx, "adm bands", bytes)?);
            let core = Region::core(w, h);
            let colblocks = (core.width() as u32).div_ceil(TILE_W);
            let active = scale > 0 || !options.skip_scale0;
            let cm = cm_push(scale, w, h, &core, colblocks, partial_words, options);
            rows_levels[scale] = RowsLevel {
                rows: if active { core.height() as u32 } else { 0 },
                colblocks,
                base: partial_words,
                shifts: row_shifts(scale, h, &core),
            };
            levels.push(Level {
                width: w as u32,
                height: h as u32,
                groups: [colblocks, (core.height() as u32).div_ceil(TILE_H)],
                cm,
                active,
            });
            partial_words += core.height() as u32 * colblocks * FIELDS;
        }
        let partials = Buffer::storage(ctx, "adm row partials", u64::from(partial_words) * 8)?;
        let sb = BindingKind::StorageBuffer;
        let pipeline = |name: &str, spirv: &[u32], push: usize, level0: Option<bool>| {
            let spec = level0.map(|l| [(0u32, u32::from(l))]);
            ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name,
                    spirv,
                    bindings: &[sb, sb],
                    push_constant_size: push as u32,
                    specialization: spec.as_ref().map_or(&[], |s| s.as_slice()),
                    subgroup_size: None,
                    full_subgroups: false,
                },
            )
        };
        use std::mem::size_of;
        Ok(Self {
            width,
            height,
            bpc,
            dwt0: pipeline(
                "metrics/adm_dwt0",
                vqscope_shaders::METRICS_ADM_DWT0,
                size_of::<Dwt0Push>(),
                None,
            )?,
            dwt: pipeline(
                "metrics/adm_dwt",
                vqscope_shaders::METRICS_ADM_DWT,
                size_of::<DwtPush>(),
                None,
            )?,
            cm0: pipeline(
                "metrics/adm_cm level 0",
                vqscope_shaders::METRICS_ADM_CM,
                size_of::<CmPush>(),
                Some(true),
            )?,
            cm123: pipeline(
                "metrics/adm_cm levels 1-3",
                vqscope_shaders::METRICS_ADM_CM,
                size_of::<CmPush>(),
                Some(false),
            )?,
            rows: pipeline(
                "metrics/adm_rows",
                vqscope_shaders::METRICS_ADM_ROWS,
                size_of::<RowsPush>(),
                None,
            )?,
            bands,
            partials,
            levels,
            rows_push: RowsPush { levels: rows_levels, out_base: 0 },
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
        for (what, p) in [("reference", reference), ("distorted", distorted)] {
            let d = &p.desc;
            if (d.width, d.height, d.bpc) != (self.width, self.height, self.bpc) {
                return Err(GpuError::Usage(format!(
                    "adm: {what} plane is {}x{} at {} bits, the kernel was built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let end = (u64::from(offset_words) + u64::from(Self::RESULT_WORDS)) * 8;
        if end > results.size() {
            return Err(GpuError::Usage(format!(
                "adm: results buffer of {} bytes cannot hold words up to {end} bytes",
                results.size()
            )));
        }
        // Earlier frames may still read the intermediates.
        rec.barrier();
        let l0 = &self.levels[0];
        for (image, p) in [reference, distorted].into_iter().enumerate() {
            let push = Dwt0Push {
                plane: p.desc,
                out_width: l0.width,
                out_height: l0.height,
                out_offset: image as u32 * 4 * l0.width * l0.height,
                pad: 0,
            };
            rec.dispatch(
                &self.dwt0,
                &[Binding::Buffer(p.buffer), Binding::Buffer(&self.bands[0])],
                bytemuck::bytes_of(&push),
                [l0.width.div_ceil(TILE_W), l0.height.div_ceil(TILE_H), 1],
            )?;
        }
        rec.barrier();
        for scale in 0..SCALES {
            // Masking of this level beside the transform of the next.
            self.record_cm(rec, scale)?;
            if scale + 1 < SCALES {
                let (src, dst) = (&self.levels[scale], &self.levels[scale + 1]);
                let push = DwtPush {
                    in_width: src.width,
                    in_height: src.height,
                    out_width: dst.width,
                    out_height: dst.height,
                    scale: scale as u32 + 1,
                };
                rec.dispatch(
                    &self.dwt,
                    &[Binding::Buffer(&self.bands[scale]), Binding::Buffer(&self.bands[scale + 1])],
                    bytemuck::bytes_of(&push),
                    [dst.width.div_ceil(TILE_W), dst.height.div_ceil(TILE_H), 2],
                )?;
            }
            rec.barrier();
        }
        let push = RowsPush { out_base: offset_words, ..self.rows_push };
        rec.dispatch(
            &self.rows,
            &[Binding::Buffer(&self.partials), Binding::Buffer(results)],
            bytemuck::bytes_of(&push),
            [FIELDS, SCALES as u32, 1],
        )?;
        rec.barrier();
        Ok(())
    }

    fn record_cm(&self, rec: &mut Recorder<'_>, scale: usize) -> vqscope_gpu::Result<()> {
        let level = &self.levels[scale];
        if !level.active {
            return Ok(());
        }
        let pipeline = if scale == 0 { &self.cm0 } else { &self.cm123 };
        rec.dispatch(
            pipeline,
            &[Binding::Buffer(&self.bands[scale]), Binding::Buffer(&self.partials)],
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
    colblocks: u32,
    partial_base: u32,
    o: &AdmOptions,
) -> CmPush {
    let (rf, cub, den_cub, den_sq) = if scale == 0 {
        let rf = csf::i_rfactor_s0(o.norm_view_dist, o.ref_display_height).map(u32::from);
        (rf, cm::CmShiftsS0::new(w).cub, 0, 0)
    } else {
        let rf = csf::i_rfactor_s123(scale, o.norm_view_dist, o.ref_display_height);
        let cub = cm::ceil_log2(w);
        (rf, [cub; 3], cm::ceil_log2(core.width()), cm::DEN_S123_SQ[scale - 1])
    };
    let egl = o.enhn_gain_limit.to_bits();
    CmPush {
        width: w as u32,
        height: h as u32,
        left: core.left as u32,
        top: core.top as u32,
        right: core.right as u32,
        bottom: core.bottom as u32,
        colblocks,
        partial_base,
        rf,
        cub,
        den_cub,
        den_sq,
        skip_aim: u32::from(o.skip_aim),
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

/// The twin's frame checks (mod.rs `check_planes`) for one plane geometry.
fn check_geometry(width: usize, height: usize, bpc: u32) -> Result<(), MetricsError> {
    if width < MIN_SIZE || height < MIN_SIZE {
        return Err(MetricsError::FrameTooSmall {
            feature: "adm",
            width,
            height,
            reason: "integer ADM needs at least 33 samples a side: its coarsest wavelet level \
                     would otherwise read outside the frame",
        });
    }
    if !(8..=12).contains(&bpc) {
        return Err(MetricsError::OptionOutOfRange {
            feature: "adm",
            option: "bit depth",
            value: i64::from(bpc),
            allowed: "8 ..= 12 (libvmaf's int32 level-0 sums overflow above 12 bits)",
        });
    }
    Ok(())
}
