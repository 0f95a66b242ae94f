//! SpEED's per-pixel work on the GPU, bit-identical to the twin: the
//! prescale's resampling, the anti-aliasing filter and the decimation by 16
//! ([`super::decimate`]), the local mean removal ([`super::remove_local_mean`])
//! and the 25×25 covariance matrix ([`super::covariance_matrix`]) of one or
//! more planes of the shared upload. What remains per plane — the
//! eigenvalues, the solve and the entropies — runs on the host from the
//! centered planes and the covariance sums the kernels leave in the result
//! words (a 1080p 4:2:0 frame's four chroma planes: 4 × 60 × 33 floats and
//! 4 × 325 doubles, 18 KiB).
//!
//! Per frame, after a barrier (shaders/metrics/speed_*.comp):
//! 0. with a prescale, `resample`, per plane: the floats (or the float
//!    difference of two planes for `speed_temporal`) resampled to the
//!    prescaled size (nearest, bilinear or bicubic; Lanczos stays on the
//!    host, see [`SpeedKernel::runs`]);
//! 1. `decimate_v`, per plane: the vertical pass at the rows 16·y only
//!    (of the float difference of two planes for `speed_temporal`, or of
//!    pass 0's floats);
//! 2. `decimate_h`, per plane: the horizontal pass at the columns 16·x;
//! 3. `center`, all planes: each decimated sample minus its scale-4 blur,
//!    kept for the next passes and written to the result words;
//! 4. `means`: the 25 window means of each plane;
//! 5. `covariance`: the 325 covariance sums of each plane, in the order of
//!    libvmaf's AVX-512 kernel, with fused multiply-adds (the device's own
//!    where its `fma()` rounds once, else an exact emulation).
//!
//! The filter passes are sums of separately rounded float products in tap
//! order, `precise` in the shaders, as in libvmaf (its AVX convolution adds
//! the same products in the same order).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{
    Binding, Buffer, ComputePipeline, GpuContext, GpuError, PipelineDesc, Recorder, Shader,
    Submitter, Timestamps, upload_buffer,
};

use super::linalg::Square;
use super::{
    Dimensions, ELEMENTS, NUM_SCALES, SpeedOptions, almost_one, antialias_taps, covariance_entry,
    covariance_from_entries, covariance_pairs,
};
use crate::device::{DevicePlane, PlaneDesc, fma_fuses};
use crate::error::MetricsError;
use crate::features::Steps;
use crate::features::float_vif::filter::{FloatPlane, filter_taps};
use crate::features::float_vif::resample::scale_ratio;
use crate::features::float_vif::{PrescaleMethod, scaler};

/// Local size of the filter passes (`local_size_x`, `_y`).
const GROUP_W: u32 = 64;
const GROUP_H: u32 = 4;

/// Covariance sums per plane: the lower triangle of the 25×25 matrix.
const ELEMENTS_PAIRS: u32 = (ELEMENTS * (ELEMENTS + 1) / 2) as u32;

/// Pairs a workgroup of speed_covariance.comp sums (`PAIRS`).
const COVARIANCE_PAIRS: u32 = 16;

/// Shared memory speed_covariance.comp declares: two tiles of 5 rows of
/// `TILE_STRIDE` = 261 doubles and `TILE_PAD` = 16 (speed_tile.glsl), then
/// 16 lanes and a tail for each of its pairs.
const COVARIANCE_SHARED: u32 = (2 * 5 * 261 + 16 + COVARIANCE_PAIRS * 17) * 8;

/// Twin of speed_decimate_v.comp's push constants; the two must agree.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct VerticalPush {
    plane: PlaneDesc,
    minus: PlaneDesc,
    subtract: u32,
    taps_len: u32,
    out_rows: u32,
    out_base: u32,
    float_base: u32,
}

/// Twin of speed_resample.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct ResamplePush {
    plane: PlaneDesc,
    minus: PlaneDesc,
    subtract: u32,
    src_w: u32,
    src_h: u32,
    dst_w: u32,
    dst_h: u32,
    ratio_x: f32,
    ratio_y: f32,
    out_base: u32,
}

/// Twin of speed_decimate_h.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct HorizontalPush {
    width: u32,
    out_w: u32,
    out_h: u32,
    taps_len: u32,
    in_base: u32,
    out_base: u32,
}

/// Twin of speed_center.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CenterPush {
    width: u32,
    height: u32,
    taps_len: u32,
    out_index: u32,
}

/// Twin of speed_means.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct WindowPush {
    width: u32,
    height: u32,
    win_w: u32,
    win_h: u32,
}

/// Twin of speed_covariance.comp's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct CovariancePush {
    width: u32,
    height: u32,
    win_w: u32,
    win_h: u32,
    pair_count: u32,
    out_word: u32,
}

/// The twins above as the layout test checks them against the SPIR-V.
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{
        METRICS_SPEED_CENTER, METRICS_SPEED_COVARIANCE, METRICS_SPEED_DECIMATE_H,
        METRICS_SPEED_DECIMATE_V, METRICS_SPEED_MEANS, METRICS_SPEED_RESAMPLE, twin,
    };
    vec![
        twin!(ResamplePush as "Push" in [METRICS_SPEED_RESAMPLE] {
            plane, minus, subtract, src_w, src_h, dst_w, dst_h, ratio_x, ratio_y, out_base
        }),
        twin!(VerticalPush as "Push" in [METRICS_SPEED_DECIMATE_V] {
            plane, minus, subtract, taps_len, out_rows, out_base, float_base
        }),
        twin!(HorizontalPush as "Push" in [METRICS_SPEED_DECIMATE_H] {
            width, out_w, out_h, taps_len, in_base, out_base
        }),
        twin!(CenterPush as "Push" in [METRICS_SPEED_CENTER] {
            width, height, taps_len, out_index
        }),
        twin!(WindowPush as "Push" in [METRICS_SPEED_MEANS] { width, height, win_w, win_h }),
        twin!(CovariancePush as "Push" in [METRICS_SPEED_COVARIANCE] {
            width, height, win_w, win_h, pair_count, out_word
        }),
    ]
}

fn pipeline(
    ctx: &Arc<GpuContext>,
    name: &str,
    shader: &Shader,
    specialization: &[(u32, u32)],
) -> vqscope_gpu::Result<ComputePipeline> {
    ComputePipeline::new(ctx, &PipelineDesc { name, specialization, ..PipelineDesc::new(shader) })
}

/// One plane's statistics as the kernels leave them: the plane after
/// [`super::remove_local_mean`] and its [`super::covariance_matrix`].
#[derive(Debug, Clone, PartialEq)]
pub struct CenteredPlane {
    pub plane: FloatPlane,
    pub covariance: Square,
}

/// The kernels for `planes` planes of one size, bit depth and kernel scale,
/// with their intermediates allocated once.
pub struct SpeedKernel {
    width: u32,
    height: u32,
    bpc: u32,
    dims: Dimensions,
    planes: u32,
    taps_len: u32,
    blur_taps_len: u32,
    /// With a prescale: the resampling pass and the two axes' ratios.
    resample: Option<(ComputePipeline, [f32; 2])>,
    vertical_pass: ComputePipeline,
    horizontal_pass: ComputePipeline,
    center_pass: ComputePipeline,
    means_pass: ComputePipeline,
    covariance_pass: ComputePipeline,
    taps: Buffer,
    blur_taps: Buffer,
    /// [`covariance_pairs`], packed as the covariance pass reads them.
    pairs: Buffer,
    /// Every plane resampled (prescaled size, back to back; one float
    /// without a prescale).
    scaled: Buffer,
    /// Every plane's vertical pass at the kept rows.
    vertical: Buffer,
    /// Every plane decimated, then centered (operating size, back to back).
    decimated: Buffer,
    centered: Buffer,
    /// 25 window means per plane.
    means: Buffer,
}

/// A buffer holding `floats` floats (at least one word).
fn float_buffer(ctx: &Arc<GpuContext>, name: &str, floats: u64) -> vqscope_gpu::Result<Buffer> {
    Buffer::storage(ctx, name, floats.max(1) * 4)
}

/// The resampling method constant of speed_resample.comp, where the GPU
/// resamples with `method`.
fn resample_method(method: PrescaleMethod) -> Option<u32> {
    match method {
        PrescaleMethod::Nearest => Some(0),
        PrescaleMethod::Bilinear => Some(1),
        PrescaleMethod::Bicubic => Some(2),
        // Its weights are libm's double sines.
        PrescaleMethod::Lanczos4 => None,
    }
}

impl SpeedKernel {
    /// Whether the kernels compute SpEED with `options`: everything but a
    /// Lanczos prescale, whose weights need libm's `sin`.
    pub fn runs(options: &SpeedOptions) -> bool {
        almost_one(options.prescale) || resample_method(options.prescale_method).is_some()
    }

    /// Kernels for `planes` planes whose top-left `width × height` samples
    /// at `bpc` bits SpEED reads (libvmaf's chroma size can leave out the
    /// last column and row of an odd-sized frame's planes), with `options`'
    /// kernel scale and prescale, refused where the twin refuses or where
    /// the kernels do not [`run`](Self::runs). `feature` names the
    /// extractor in errors.
    pub fn new(
        ctx: &Arc<GpuContext>,
        feature: &'static str,
        width: u32,
        height: u32,
        bpc: u32,
        options: &SpeedOptions,
        planes: u32,
    ) -> Result<Self, MetricsError> {
        scaler(bpc)?;
        let dims = Dimensions::new(feature, width as usize, height as usize, options.prescale)?;
        let prescaled = !almost_one(options.prescale);
        let method = resample_method(options.prescale_method);
        if prescaled && method.is_none() {
            return Err(MetricsError::Usage(format!(
                "{feature}: the GPU does not resample with lanczos4 (the host does)"
            )));
        }
        let (sw, sh) = (dims.scaled.0 as u64, dims.scaled.1 as u64);
        let (dw, dh) = (dims.operating.0 as u64, dims.operating.1 as u64);
        let taps = antialias_taps(options.kernelscale);
        let blur_taps = filter_taps(NUM_SCALES, options.kernelscale);
        if ctx.info().max_shared_memory < COVARIANCE_SHARED {
            return Err(MetricsError::Usage(format!(
                "{feature}: the device offers {} bytes of shared memory, the covariances need \
                 {COVARIANCE_SHARED}",
                ctx.info().max_shared_memory
            )));
        }
        let mut submitter = Submitter::new(ctx, 1)?;
        let fused = u32::from(fma_fuses(ctx, &mut submitter)?);
        let floats = |t: &[f32]| -> Vec<u8> { t.iter().flat_map(|v| v.to_le_bytes()).collect() };
        let pairs: Vec<u8> = covariance_pairs()
            .iter()
            .flat_map(|&(x, y)| (x as u32 | (y as u32) << 8).to_le_bytes())
            .collect();
        let n = u64::from(planes);
        Ok(Self {
            width,
            height,
            bpc,
            dims,
            planes,
            taps_len: taps.len() as u32,
            blur_taps_len: blur_taps.len() as u32,
            resample: match (prescaled, method) {
                (true, Some(m)) => Some((
                    pipeline(
                        ctx,
                        "metrics/speed_resample",
                        vqscope_shaders::METRICS_SPEED_RESAMPLE,
                        &[(0, m)],
                    )?,
                    [
                        scale_ratio(width as usize, dims.scaled.0),
                        scale_ratio(height as usize, dims.scaled.1),
                    ],
                )),
                _ => None,
            },
            vertical_pass: pipeline(
                ctx,
                "metrics/speed_decimate_v",
                vqscope_shaders::METRICS_SPEED_DECIMATE_V,
                &[(0, u32::from(prescaled))],
            )?,
            horizontal_pass: pipeline(
                ctx,
                "metrics/speed_decimate_h",
                vqscope_shaders::METRICS_SPEED_DECIMATE_H,
                &[],
            )?,
            center_pass: pipeline(
                ctx,
                "metrics/speed_center",
                vqscope_shaders::METRICS_SPEED_CENTER,
                &[],
            )?,
            means_pass: pipeline(
                ctx,
                "metrics/speed_means",
                vqscope_shaders::METRICS_SPEED_MEANS,
                &[],
            )?,
            covariance_pass: pipeline(
                ctx,
                "metrics/speed_covariance",
                vqscope_shaders::METRICS_SPEED_COVARIANCE,
                &[(0, fused)],
            )?,
            taps: upload_buffer(ctx, &mut submitter, "speed taps", &floats(&taps))?,
            blur_taps: upload_buffer(ctx, &mut submitter, "speed blur taps", &floats(&blur_taps))?,
            pairs: upload_buffer(ctx, &mut submitter, "speed pairs", &pairs)?,
            scaled: float_buffer(ctx, "speed scaled", if prescaled { n * sw * sh } else { 0 })?,
            vertical: float_buffer(ctx, "speed vertical", n * dh * sw)?,
            decimated: float_buffer(ctx, "speed decimated", n * dw * dh)?,
            centered: float_buffer(ctx, "speed centered", n * dw * dh)?,
            means: float_buffer(ctx, "speed means", n * ELEMENTS as u64)?,
        })
    }

    /// The operating (decimated) size.
    fn out(&self) -> (u32, u32) {
        (self.dims.operating.0 as u32, self.dims.operating.1 as u32)
    }

    /// Result words the centered planes take (two floats a word).
    fn centered_words(&self) -> u32 {
        let (dw, dh) = self.out();
        (self.planes * dw * dh).div_ceil(2)
    }

    /// int64 result words a frame takes: the centered planes, then each
    /// plane's covariance sums (a double a word).
    pub fn result_words(&self) -> u32 {
        self.centered_words() + self.planes * ELEMENTS_PAIRS
    }

    /// The passes [`SpeedKernel::record_profiled`] times, in order.
    pub fn phases(&self) -> &'static [&'static str] {
        const PASSES: [&str; 6] = [
            "resample",
            "decimate rows",
            "decimate columns",
            "center",
            "window means",
            "covariances",
        ];
        if self.resample.is_some() { &PASSES } else { &PASSES[1..] }
    }

    /// Records the kernels on `planes` into `results[offset_words..]`: each
    /// a plane, or with a second plane the float difference of the two
    /// (first minus second).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        planes: &[(DevicePlane<'_>, Option<DevicePlane<'_>>)],
        results: &Buffer,
        offset_words: u32,
    ) -> vqscope_gpu::Result<()> {
        self.record_steps(rec, planes, results, offset_words, &mut Steps::new(None))
    }

    /// [`SpeedKernel::record`] with a timestamp before the first pass
    /// (query 0 of `stamps`, reset beforehand) and after each of
    /// [`SpeedKernel::phases`], each pass alone between barriers.
    pub fn record_profiled(
        &self,
        rec: &mut Recorder<'_>,
        planes: &[(DevicePlane<'_>, Option<DevicePlane<'_>>)],
        results: &Buffer,
        offset_words: u32,
        stamps: &Timestamps,
    ) -> vqscope_gpu::Result<()> {
        let mut steps = Steps::new(Some((stamps, 0)));
        self.record_steps(rec, planes, results, offset_words, &mut steps)?;
        steps.barrier(rec);
        Ok(())
    }

    fn record_steps(
        &self,
        rec: &mut Recorder<'_>,
        planes: &[(DevicePlane<'_>, Option<DevicePlane<'_>>)],
        results: &Buffer,
        offset_words: u32,
        steps: &mut Steps<'_>,
    ) -> vqscope_gpu::Result<()> {
        if planes.len() != self.planes as usize {
            return Err(GpuError::Usage(format!(
                "speed: {} planes given, kernel built for {}",
                planes.len(),
                self.planes
            )));
        }
        for p in planes.iter().flat_map(|(a, b)| std::iter::once(a).chain(b)) {
            let d = &p.desc;
            if d.width < self.width || d.height < self.height || d.bpc != self.bpc {
                return Err(GpuError::Usage(format!(
                    "speed: a {}x{} plane at {} bits, kernel built for {}x{} at {}",
                    d.width, d.height, d.bpc, self.width, self.height, self.bpc
                )));
            }
        }
        let (sw, sh) = (self.dims.scaled.0 as u32, self.dims.scaled.1 as u32);
        let (w, (dw, dh)) = (sw, self.out());
        // Earlier frames may still read the intermediates.
        steps.barrier(rec);
        if let Some((resample, [ratio_x, ratio_y])) = &self.resample {
            for (i, (p, minus)) in planes.iter().enumerate() {
                let q = minus.unwrap_or(*p);
                let push = ResamplePush {
                    plane: p.desc,
                    minus: q.desc,
                    subtract: u32::from(minus.is_some()),
                    src_w: self.width,
                    src_h: self.height,
                    dst_w: sw,
                    dst_h: sh,
                    ratio_x: *ratio_x,
                    ratio_y: *ratio_y,
                    out_base: i as u32 * sw * sh,
                };
                rec.dispatch(
                    resample,
                    &[
                        Binding::Buffer(p.buffer),
                        Binding::Buffer(q.buffer),
                        Binding::Buffer(&self.scaled),
                    ],
                    bytemuck::bytes_of(&push),
                    [sw.div_ceil(GROUP_W), sh.div_ceil(GROUP_H), 1],
                )?;
            }
            steps.barrier(rec);
        }
        for (i, (p, minus)) in planes.iter().enumerate() {
            let q = minus.unwrap_or(*p);
            let push = VerticalPush {
                plane: PlaneDesc { width: w, height: sh, ..p.desc },
                minus: PlaneDesc { width: w, height: sh, ..q.desc },
                subtract: u32::from(minus.is_some()),
                taps_len: self.taps_len,
                out_rows: dh,
                out_base: i as u32 * dh * w,
                float_base: i as u32 * sw * sh,
            };
            rec.dispatch(
                &self.vertical_pass,
                &[
                    Binding::Buffer(p.buffer),
                    Binding::Buffer(&self.taps),
                    Binding::Buffer(&self.vertical),
                    Binding::Buffer(q.buffer),
                    Binding::Buffer(&self.scaled),
                ],
                bytemuck::bytes_of(&push),
                [w.div_ceil(GROUP_W), dh.div_ceil(GROUP_H), 1],
            )?;
        }
        steps.barrier(rec);
        for i in 0..self.planes {
            let push = HorizontalPush {
                width: w,
                out_w: dw,
                out_h: dh,
                taps_len: self.taps_len,
                in_base: i * dh * w,
                out_base: i * dw * dh,
            };
            rec.dispatch(
                &self.horizontal_pass,
                &[
                    Binding::Buffer(&self.vertical),
                    Binding::Buffer(&self.taps),
                    Binding::Buffer(&self.decimated),
                ],
                bytemuck::bytes_of(&push),
                [dw.div_ceil(GROUP_W), dh.div_ceil(GROUP_H), 1],
            )?;
        }
        steps.barrier(rec);
        let push = CenterPush {
            width: dw,
            height: dh,
            taps_len: self.blur_taps_len,
            out_index: offset_words * 2,
        };
        rec.dispatch(
            &self.center_pass,
            &[
                Binding::Buffer(&self.decimated),
                Binding::Buffer(&self.blur_taps),
                Binding::Buffer(&self.centered),
                Binding::Buffer(results),
            ],
            bytemuck::bytes_of(&push),
            [dw.div_ceil(GROUP_W), dh.div_ceil(GROUP_H), self.planes],
        )?;
        steps.barrier(rec);
        let (ww, wh) = self.dims.window();
        let push = WindowPush { width: dw, height: dh, win_w: ww as u32, win_h: wh as u32 };
        rec.dispatch(
            &self.means_pass,
            &[Binding::Buffer(&self.centered), Binding::Buffer(&self.means)],
            bytemuck::bytes_of(&push),
            [self.planes, 1, 1],
        )?;
        steps.barrier(rec);
        let push = CovariancePush {
            width: dw,
            height: dh,
            win_w: ww as u32,
            win_h: wh as u32,
            pair_count: ELEMENTS_PAIRS,
            out_word: offset_words + self.centered_words(),
        };
        rec.dispatch(
            &self.covariance_pass,
            &[
                Binding::Buffer(&self.centered),
                Binding::Buffer(&self.means),
                Binding::Buffer(&self.pairs),
                Binding::Buffer(results),
            ],
            bytemuck::bytes_of(&push),
            [ELEMENTS_PAIRS.div_ceil(COVARIANCE_PAIRS), self.planes, 1],
        )
    }

    /// The planes' statistics, in the order recorded, from the kernels'
    /// result words.
    pub fn decode(&self, words: &[i64]) -> Vec<CenteredPlane> {
        let (dw, dh) = self.dims.operating;
        let centered = self.centered_words() as usize;
        let floats: Vec<f32> = words[..centered]
            .iter()
            .flat_map(|&w| [w as u64 as u32, (w as u64 >> 32) as u32])
            .map(f32::from_bits)
            .collect();
        let sums = words[centered..].chunks_exact(ELEMENTS_PAIRS as usize);
        floats
            .chunks_exact(dw * dh)
            .zip(sums)
            .take(self.planes as usize)
            .map(|(c, sums)| {
                let entries: Vec<f32> = sums
                    .iter()
                    .map(|&s| covariance_entry(f64::from_bits(s as u64), &self.dims))
                    .collect();
                CenteredPlane {
                    plane: FloatPlane { width: dw, height: dh, data: c.to_vec() },
                    covariance: covariance_from_entries(&entries),
                }
            })
            .collect()
    }
}
