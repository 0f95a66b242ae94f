//! Integer VIF on the GPU: [`VifKernel`] records one frame pair's four
//! scales and leaves libvmaf's sixteen integer sums ([`VifFrameSums`]) in a
//! results buffer, equal bit for bit to [`super::frame_sums`].
//!
//! Per frame (after a leading barrier), with `‖` for dispatches that run
//! between the same two barriers:
//!
//! ```text
//! vif_scale[0](input)          ‖ vif_decimate[1](input → s1)      barrier
//! vif_scale[1](s1)             ‖ vif_decimate[2](s1 → s2)         barrier
//! vif_scale[3](s2, decimating)  ‖ vif_scale[2](s2)                 barrier
//! ```
//!
//! `vif_scale[k]` (shaders/metrics/vif_scale.glsl, compiled per scale as
//! vif_scaleK.comp) filters a 240 × 4 tile (vertical sums register-blocked
//! per column and 4 rows, kept in shared memory, then horizontal sums
//! register-blocked per 4 pixels) and adds each workgroup's four `i64` sums
//! atomically to its scale's four of sixteen frame sums; `vif_decimate` blurs
//! and halves reference and distorted at once into `u16` planes that the
//! next scale reads as 16-bit planes. Scale 3 is small and its filter short,
//! so `vif_scale[3]` decimates the scale-2 planes itself as it loads them and
//! runs beside scale 2 rather than a step later (a step is a barrier, and on
//! the H200 the steps of the small scales wait more than they work). The
//! frame sums are zeroed once at [`VifKernel::new`]; the last workgroup of
//! scales 2 and 3 (the last step) copies them to the results and zeroes them
//! again, so a skipped scale 0 reads zero and no reduce dispatch is needed.
//!
//! In a ladder, the lanes that ask for VIF alike share the reference's
//! decimated planes ([`VifReference`], recorded once per frame in the same
//! steps): each lane's `vif_decimate` then runs in its one-plane form on the
//! distorted plane alone ([`VifKernel::sharing`]).
//!
//! The horizontal filter sums of the squares run in double, but only on
//! integers below 2^48, which doubles hold exactly, so they equal the
//! twin's integer sums. The one true floating-point step (the per-pixel
//! gain) is `precise` in the shader, and its double division is checked
//! against the exact remainder and corrected, so it does not rely on the
//! driver's fp64 divide.

use std::any::Any;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
    Submitter, upload_buffer,
};

use super::{DECIMATED_BPC, VifFrameSums, VifOptions, VifScaleSums, check, log2_table, scale_size};
use crate::device::{DevicePlane, PlaneDesc, packed_desc};
use crate::error::MetricsError;
use crate::features::ReferenceTerms;
use crate::plane::PlaneView;

/// Output tile of `vif_scale.glsl` (`TW`, `TH`): must agree with the shader.
const SCALE_TILE: (usize, usize) = (240, 4);
/// Output tile of `vif_decimate.glsl` (`OW`, `OH`): must agree with the shader.
const DECIMATE_TILE: (usize, usize) = (60, 16);
/// `i64` frame sums: four per scale (`FIELDS` in the shader), followed in
/// the sums buffer by scale 3's count of finished workgroups.
const FIELDS: u64 = 16;

/// Twin of `vif_scale.glsl`'s push constants (std430: the double at 64).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct VifScalePush {
    reference: PlaneDesc,
    distorted: PlaneDesc,
    enhn_gain_limit: f64,
    out_base: u32,
    /// Workgroups of scales 2 and 3 together: the last of them finishes the
    /// frame.
    finish_groups: u32,
}

/// Twin of `vif_decimate.glsl`'s push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct VifDecimatePush {
    reference: PlaneDesc,
    distorted: PlaneDesc,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::twin;
    vec![
        twin!(VifScalePush as "Push" in SCALE_SHADERS {
            ref_plane = reference, dist_plane = distorted, egl = enhn_gain_limit,
            out_base, finish_groups,
        }),
        twin!(VifDecimatePush as "Push" in DECIMATE_SHADERS {
            ref_plane = reference, dist_plane = distorted,
        }),
    ]
}

/// A plane as the record functions take it: its buffer and layout.
type PlaneRef<'a> = (&'a Buffer, PlaneDesc);

/// Where a kernel's decimated reference planes of scales 1 and 2 are.
enum ReferencePlanes {
    /// Its own, decimated beside the distorted planes.
    Own(Vec<Buffer>),
    /// A ladder's, which [`VifReference`] decimates once for every lane.
    Shared(Arc<VifReference>),
}

/// The integer VIF kernels for one frame size, depth and option set, with
/// every intermediate allocated once.
pub struct VifKernel {
    width: u32,
    height: u32,
    bpc: u32,
    options: VifOptions,
    scale_pipelines: Vec<ComputePipeline>,
    /// Scales 1 and 2's decimations: of both planes with its own reference
    /// planes, of the distorted plane alone with shared ones.
    decimate_pipelines: Vec<ComputePipeline>,
    log2: Buffer,
    /// The distorted planes of scales 1 and 2 (scale 3 decimates scale 2 as
    /// it reads it).
    distorted: Vec<Buffer>,
    reference: ReferencePlanes,
    /// The layout of scales 1 and 2's planes (16-bit, packed).
    descs: [PlaneDesc; 2],
    /// The sixteen frame sums and scales 2 and 3's workgroup count, zero
    /// between frames.
    sums: Buffer,
    /// Workgroups of `vif_scale` per scale, as `[x, y]`.
    scale_groups: [[u32; 2]; 4],
}

/// VIF's reference-only work in a ladder: the reference's decimated planes
/// of scales 1 and 2, made once per frame for the kernels of every lane
/// ([`VifKernel::sharing`]), which then decimate only their distorted
/// planes. The decimation is the only reference-only part that VIF stores:
/// the scale kernels' reference terms (the filtered x and x², two of the
/// five filtered products) are made and used inside a tile. Shared, they
/// would be stored per pixel (a 32-bit mean and a 48-bit square sum, 12
/// bytes) and read back by every lane: at scale 0 of a 4K frame about
/// 100 MB a lane, where the lane now reads 2 bytes a pixel (17 MB) and the
/// kernel already waits on memory more than it computes.
pub struct VifReference {
    width: u32,
    height: u32,
    bpc: u32,
    /// Scales 1 and 2's one-plane decimations.
    decimate_pipelines: Vec<ComputePipeline>,
    planes: Vec<Buffer>,
    descs: [PlaneDesc; 2],
}

impl VifReference {
    /// Builds the one-plane decimations and allocates the planes for
    /// frames of `width × height` at `bpc` bits.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
    ) -> Result<Self, MetricsError> {
        let descs = decimated_descs(width, height);
        Ok(Self {
            width,
            height,
            bpc,
            decimate_pipelines: decimate_pipelines(ctx, true)?,
            planes: decimated_planes(ctx, &descs, "vif decimated reference")?,
            descs,
        })
    }

    /// The reference's planes of scales 1 and 2.
    fn plane(&self, scale: usize) -> PlaneRef<'_> {
        (&self.planes[scale - 1], self.descs[scale - 1])
    }
}

impl ReferenceTerms for VifReference {
    /// Steps aligned with [`VifKernel::record`]'s: after the leading
    /// barrier, scale 1's decimation (beside the lanes' scale 0 and their
    /// own decimation), then scale 2's (beside their scale 1, which is the
    /// first to read scale 1's planes), whose planes the lanes read in the
    /// step after.
    fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &[DevicePlane<'_>],
    ) -> vqscope_gpu::Result<()> {
        let r = &reference[0];
        check_plane("reference", r, (self.width, self.height, self.bpc))?;
        rec.barrier();
        let input = (r.buffer, r.desc);
        record_decimate(rec, &self.decimate_pipelines[0], input, None, self.plane(1), None)?;
        rec.barrier();
        record_decimate(
            rec,
            &self.decimate_pipelines[1],
            self.plane(1),
            None,
            self.plane(2),
            None,
        )?;
        rec.barrier();
        Ok(())
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

impl VifKernel {
    /// `i64` result slots [`VifKernel::record`] writes: `num_log`, `den_log`,
    /// `num_non_log`, `den_non_log` of scales 0 to 3 in that order.
    pub const RESULT_WORDS: u32 = 16;

    /// Checks the frame and options as the CPU twin does ([`super::check`]),
    /// builds the pipelines, uploads the log2 table and allocates the
    /// decimated planes and the frame sums.
    pub fn new(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: VifOptions,
    ) -> Result<Self, MetricsError> {
        Self::build(ctx, width, height, bpc, options, 0, None)
    }

    /// [`VifKernel::new`] for a lane of a ladder: it reads the reference's
    /// decimated planes from `reference`, which the pipeline records every
    /// frame, and decimates only the distorted plane. Its sums equal
    /// [`VifKernel::new`]'s bit for bit: each plane's decimation is the same
    /// arithmetic alone or beside the other.
    pub fn sharing(
        ctx: &Arc<GpuContext>,
        options: VifOptions,
        reference: Arc<VifReference>,
    ) -> Result<Self, MetricsError> {
        let (w, h, bpc) = (reference.width, reference.height, reference.bpc);
        Self::build(ctx, w, h, bpc, options, 0, Some(reference))
    }

    /// [`VifKernel::new`] with the shader's hardware quotient moved by
    /// `ulps` before its correction step. Only for tests: it shows that the
    /// correction recovers the correctly rounded quotient, which an exact
    /// driver (lavapipe) would otherwise never exercise.
    #[doc(hidden)]
    pub fn with_division_perturbation(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: VifOptions,
        ulps: i32,
    ) -> Result<Self, MetricsError> {
        Self::build(ctx, width, height, bpc, options, ulps, None)
    }

    fn build(
        ctx: &Arc<GpuContext>,
        width: u32,
        height: u32,
        bpc: u32,
        options: VifOptions,
        ulps: i32,
        shared: Option<Arc<VifReference>>,
    ) -> Result<Self, MetricsError> {
        let shape = PlaneView {
            width: width as usize,
            height: height as usize,
            stride: width as usize,
            bpc,
            samples: &[],
        };
        check(&shape, &shape, &options)?;

        let mut submitter = Submitter::new(ctx, 1)?;
        let fused_fma = crate::device::fma_fuses(ctx, &mut submitter)?;
        let scale_pipelines = (0..4u32)
            .map(|k| scale_pipeline(ctx, k, k == 0 && bpc == 8, fused_fma, ulps))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let decimate_pipelines = decimate_pipelines(ctx, shared.is_some())?;
        let descs = decimated_descs(width, height);
        let distorted = decimated_planes(ctx, &descs, "vif decimated distorted")?;
        let reference = match shared {
            Some(shared) => ReferencePlanes::Shared(shared),
            None => ReferencePlanes::Own(decimated_planes(ctx, &descs, "vif decimated reference")?),
        };
        let (w, h) = (width as usize, height as usize);
        let scale_groups: [[u32; 2]; 4] = std::array::from_fn(|k| {
            let (sw, sh) = scale_size(w, h, k);
            [sw.div_ceil(SCALE_TILE.0) as u32, sh.div_ceil(SCALE_TILE.1) as u32]
        });
        let sums = Buffer::storage(ctx, "vif frame sums", (FIELDS + 1) * 8)?;

        let table: Vec<u8> = log2_table().as_slice().iter().flat_map(|v| v.to_le_bytes()).collect();
        let log2 = upload_buffer(ctx, &mut submitter, "vif log2 table", &table)?;
        submitter.run(|rec| {
            rec.fill(&sums, 0);
            rec.barrier();
            Ok(())
        })?;

        Ok(Self {
            width,
            height,
            bpc,
            options,
            scale_pipelines,
            decimate_pipelines,
            log2,
            distorted,
            reference,
            descs,
            sums,
            scale_groups,
        })
    }

    /// Records one frame pair: every scale's statistics and the decimations
    /// between them, leaving [`VifKernel::RESULT_WORDS`] `i64` in `results`
    /// from `offset_words` (read them with [`VifKernel::decode`]). Starts
    /// with a barrier, so frames recorded back to back may share the
    /// kernel's intermediates.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.record_dispatches(rec, reference, distorted, results, offset_words, &mut |rec, end| {
            if end {
                rec.barrier();
            }
        })
    }

    /// Labels of the intervals [`VifKernel::record_profiled`] times, in order.
    pub const PROFILE_PHASES: [&'static str; 6] =
        ["scale0", "decimate1", "scale1", "decimate2", "scale3", "scale2"];

    /// [`VifKernel::record`] with every dispatch alone between two barriers
    /// and a timestamp after each (`stamps` needs 7 queries; interval `i` is
    /// [`VifKernel::PROFILE_PHASES`]`[i]`). Serialises what `record` overlaps,
    /// so the sum exceeds `record`'s time a little. For timing only.
    pub fn record_profiled(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        stamps: &vqscope_gpu::Timestamps,
    ) -> vqscope_gpu::Result<()> {
        let mut next_stamp = 0;
        self.record_dispatches(rec, reference, distorted, results, offset_words, &mut |rec, _| {
            rec.barrier();
            rec.timestamp(stamps, next_stamp);
            next_stamp += 1;
        })
    }

    /// The frame's dispatches, calling `after_dispatch(rec, step_end)` first
    /// (as the end of whatever came before: earlier frames may still use the
    /// intermediates) and after each dispatch (also in scale 0's place when
    /// `skip_scale0` leaves it out). `step_end` marks the end of a step,
    /// which the next step's dispatches must follow. Three steps: scale 0
    /// and the first decimation, scale 1 and the second, then scales 3 and 2.
    /// Scale 3 goes before scale 2: each of its workgroups decimates its own
    /// input and so takes longest, and started first they finish with scale
    /// 2's (on the H200, with vif_scale.glsl's subgroup finish, this took the
    /// four scales at 4K from 0.248 to 0.246 ms).
    fn record_dispatches(
        &self,
        rec: &mut Recorder<'_>,
        reference: &DevicePlane<'_>,
        distorted: &DevicePlane<'_>,
        results: &Buffer,
        offset_words: u32,
        after_dispatch: &mut dyn FnMut(&mut Recorder<'_>, bool),
    ) -> vqscope_gpu::Result<()> {
        let want = (self.width, self.height, self.bpc);
        check_plane("reference", reference, want)?;
        check_plane("distorted", distorted, want)?;
        after_dispatch(rec, true);
        let input = ((reference.buffer, reference.desc), (distorted.buffer, distorted.desc));
        let dist = |scale: usize| (&self.distorted[scale - 1], self.descs[scale - 1]);
        let refs = |scale: usize| match &self.reference {
            ReferencePlanes::Own(planes) => (&planes[scale - 1], self.descs[scale - 1]),
            ReferencePlanes::Shared(shared) => shared.plane(scale),
        };
        // With shared reference planes, only the distorted plane is
        // decimated (the ladder's `VifReference` does the reference in the
        // same steps).
        let decimate = |rec: &mut Recorder<'_>, from: (PlaneRef<'_>, PlaneRef<'_>), to: usize| {
            let pipeline = &self.decimate_pipelines[to - 1];
            match &self.reference {
                ReferencePlanes::Own(_) => {
                    record_decimate(rec, pipeline, from.0, Some(from.1), refs(to), Some(dist(to)))
                }
                ReferencePlanes::Shared(_) => {
                    record_decimate(rec, pipeline, from.1, None, dist(to), None)
                }
            }
        };
        let out = (results, offset_words);
        if !self.options.skip_scale0 {
            self.record_scale(rec, 0, input.0, input.1, out)?;
        }
        after_dispatch(rec, false);
        decimate(rec, input, 1)?;
        after_dispatch(rec, true);
        self.record_scale(rec, 1, refs(1), dist(1), out)?;
        after_dispatch(rec, false);
        decimate(rec, (refs(1), dist(1)), 2)?;
        after_dispatch(rec, true);
        // Scale 3 reads scale 2's planes and decimates them itself.
        self.record_scale(rec, 3, refs(2), dist(2), out)?;
        after_dispatch(rec, false);
        self.record_scale(rec, 2, refs(2), dist(2), out)?;
        after_dispatch(rec, true);
        Ok(())
    }

    /// The sums of one frame from its [`VifKernel::RESULT_WORDS`] result
    /// words, with this kernel's `skip_scale0` (which [`super::features`]
    /// needs to report scale 0 as libvmaf does).
    pub fn decode(&self, words: &[i64]) -> VifFrameSums {
        assert!(words.len() >= Self::RESULT_WORDS as usize, "VIF needs 16 result words");
        let scales = std::array::from_fn(|k| {
            let w = &words[4 * k..4 * k + 4];
            VifScaleSums { num_log: w[0], den_log: w[1], num_non_log: w[2], den_non_log: w[3] }
        });
        VifFrameSums { scales, skip_scale0: self.options.skip_scale0 }
    }

    /// The options this kernel was built with.
    pub fn options(&self) -> VifOptions {
        self.options
    }

    /// Records scale `k`'s statistics (scale 3's from scale 2's planes); the
    /// last workgroup of scales 2 and 3 moves the frame sums to `results`
    /// from word `out_base`.
    fn record_scale(
        &self,
        rec: &mut Recorder<'_>,
        k: usize,
        (r, rd): PlaneRef<'_>,
        (d, dd): PlaneRef<'_>,
        (results, out_base): (&Buffer, u32),
    ) -> vqscope_gpu::Result<()> {
        let push = VifScalePush {
            reference: rd,
            distorted: dd,
            enhn_gain_limit: self.options.enhn_gain_limit,
            out_base,
            finish_groups: self.scale_groups[2..].iter().map(|[x, y]| x * y).sum(),
        };
        let [gx, gy] = self.scale_groups[k];
        rec.dispatch(
            &self.scale_pipelines[k],
            &[
                Binding::Buffer(r),
                Binding::Buffer(d),
                Binding::Buffer(&self.log2),
                Binding::Buffer(&self.sums),
                Binding::Buffer(results),
            ],
            bytemuck::bytes_of(&push),
            [gx, gy, 1],
        )
    }
}

/// `vif_scaleK.comp`: one shader per scale, so the filter taps are
/// compile-time constants and the tap loops unroll into immediates.
const SCALE_SHADERS: [&Shader; 4] = [
    vqscope_shaders::METRICS_VIF_SCALE0,
    vqscope_shaders::METRICS_VIF_SCALE1,
    vqscope_shaders::METRICS_VIF_SCALE2,
    vqscope_shaders::METRICS_VIF_SCALE3,
];

/// `vif_decimateK.comp` for K = 1, 2 (scale 3 decimates its own input).
const DECIMATE_SHADERS: [&Shader; 2] =
    [vqscope_shaders::METRICS_VIF_DECIMATE1, vqscope_shaders::METRICS_VIF_DECIMATE2];

/// The statistics kernel of scale `k`; `sq32` keeps the vertical squares in
/// 32 bits (specialization constant 2, `SQ32`: only for scale 0 of 8-bit
/// input, where they provably fit); `fused_fma` takes the division check's
/// remainder from one fma (constant 3, `FUSED_FMA`: only where
/// [`crate::device::fma_fuses`]); `ulps` is the test-only division perturbation (constant 1,
/// `DIV_PERTURB_ULPS`).
fn scale_pipeline(
    ctx: &Arc<GpuContext>,
    k: u32,
    sq32: bool,
    fused_fma: bool,
    ulps: i32,
) -> vqscope_gpu::Result<ComputePipeline> {
    let name = format!("metrics/vif_scale{k}");
    ComputePipeline::new(
        ctx,
        &PipelineDesc {
            name: &name,
            // Scales 0 and 1 never write `results` (binding 4), so their
            // SPIR-V lacks it; every scale takes scale 3's layout and binds
            // alike (a test checks that the others' bindings are its prefix).
            bindings: vqscope_shaders::METRICS_VIF_SCALE3.bindings,
            specialization: &[(1, ulps as u32), (2, u32::from(sq32)), (3, u32::from(fused_fma))],
            ..PipelineDesc::new(SCALE_SHADERS[k as usize])
        },
    )
}

/// Scales 1 and 2's decimations (each blurs with `FILTERS[k]`), of both
/// planes or, with `one_plane`, of the one bound as the reference
/// (specialization constant 0, `ONE_PLANE`).
fn decimate_pipelines(
    ctx: &Arc<GpuContext>,
    one_plane: bool,
) -> vqscope_gpu::Result<Vec<ComputePipeline>> {
    (1..3)
        .map(|k| {
            let planes = if one_plane { "one plane" } else { "both planes" };
            let name = format!("metrics/vif_decimate{k} {planes}");
            ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: &name,
                    specialization: &[(0, u32::from(one_plane))],
                    ..PipelineDesc::new(DECIMATE_SHADERS[k - 1])
                },
            )
        })
        .collect()
}

/// Records the decimation of `r` into `next_r` and, when given, of `d` into
/// `next_d` (`pipeline` is then a both-planes one, else a one-plane one,
/// whose unused distorted bindings take `r`'s buffers).
fn record_decimate(
    rec: &mut Recorder<'_>,
    pipeline: &ComputePipeline,
    (r, rd): PlaneRef<'_>,
    d: Option<PlaneRef<'_>>,
    (next_r, next_desc): PlaneRef<'_>,
    next_d: Option<PlaneRef<'_>>,
) -> vqscope_gpu::Result<()> {
    let (d, dd) = d.unwrap_or((r, rd));
    let (next_d, _) = next_d.unwrap_or((next_r, next_desc));
    let push = VifDecimatePush { reference: rd, distorted: dd };
    let groups = [
        (next_desc.width as usize).div_ceil(DECIMATE_TILE.0) as u32,
        (next_desc.height as usize).div_ceil(DECIMATE_TILE.1) as u32,
        1,
    ];
    rec.dispatch(
        pipeline,
        &[Binding::Buffer(r), Binding::Buffer(d), Binding::Buffer(next_r), Binding::Buffer(next_d)],
        bytemuck::bytes_of(&push),
        groups,
    )
}

/// The layouts of scales 1 and 2's planes of a `width × height` frame
/// (16-bit, packed).
fn decimated_descs(width: u32, height: u32) -> [PlaneDesc; 2] {
    std::array::from_fn(|i| {
        let (w, h) = scale_size(width as usize, height as usize, i + 1);
        packed_desc(w, h, DECIMATED_BPC, 0)
    })
}

/// Buffers for planes of `descs` (rounded up to whole words since the
/// kernels read 32-bit words).
fn decimated_planes(
    ctx: &Arc<GpuContext>,
    descs: &[PlaneDesc; 2],
    label: &str,
) -> vqscope_gpu::Result<Vec<Buffer>> {
    descs
        .iter()
        .map(|d| {
            let bytes = ((d.width * d.height * 2).div_ceil(4) * 4).max(4);
            Buffer::storage(ctx, label, u64::from(bytes))
        })
        .collect()
}

/// Refuses a plane of another geometry than the kernel's `(width, height,
/// bpc)`.
fn check_plane(name: &str, p: &DevicePlane<'_>, want: (u32, u32, u32)) -> vqscope_gpu::Result<()> {
    let got = (p.desc.width, p.desc.height, p.desc.bpc);
    if got != want {
        return Err(GpuError::Usage(format!(
            "vif: {name} plane is {}x{} at {} bits, the kernel was built for {}x{} at {} bits",
            got.0, got.1, got.2, want.0, want.1, want.2
        )));
    }
    Ok(())
}
