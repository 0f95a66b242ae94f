//! The SSIM view's GPU side: `float_ssim` ([`SsimKernel`]) run on the pair
//! being shown, its per-pixel map left in a device buffer that the fused
//! pass reads in place (external map slot 0), so the map never travels
//! through the host and the UI never waits for it.
//!
//! The kernel runs only while the SSIM view is on, and only when the shown
//! pair changes: its recording goes into the frame's own command buffer,
//! ahead of the renderer's, and the kernel's leading barrier orders it
//! after every earlier submission on the queue, so a map still being read
//! by a frame in flight is never overwritten under it.

use std::sync::Arc;

use anyhow::{Context, Result};
use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_metrics::PlaneView;
use vqscope_metrics::device::{DevicePlane, packed_desc, plane_bytes};
use vqscope_metrics::ssim::{MAP_ORIGIN, SsimOptions};
use vqscope_metrics::ssim_gpu::SsimKernel;

use super::pictures::Pictures;

/// The SSIM map's geometry, which is all the scene needs to draw it.
///
/// The map lies on SSIM's own grid, not the picture's: the frame is first
/// box-decimated by `scale` (libvmaf's automatic pre-scale), then the 11-tap
/// Gaussian window keeps only positions where it lies inside the picture,
/// so cell `(x, y)` covers picture samples `[(x + MAP_ORIGIN)·scale,
/// (x + MAP_ORIGIN + 1)·scale)` across, likewise down, and a border of
/// `MAP_ORIGIN·scale` samples has no value at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SsimMapInfo {
    pub width: u32,
    pub height: u32,
    pub scale: u32,
}

impl SsimMapInfo {
    /// The picture-sample rectangle the map covers: `(x0, y0, x1, y1)`.
    pub fn covered(&self) -> [f32; 4] {
        let k = self.scale as f32;
        let o = MAP_ORIGIN as f32 * k;
        [o, o, o + self.width as f32 * k, o + self.height as f32 * k]
    }
}

/// Buffers a recorded SSIM run reads from; they must outlive the command
/// buffer they were recorded into (the window keeps them with that frame's
/// other per-frame buffers).
pub struct SsimUpload {
    _staging: Buffer,
    _reference: Buffer,
    _distorted: Buffer,
}

/// One [`SsimKernel`] for the clip's luma size, and which pair its map
/// currently holds.
pub struct SsimMapper {
    ctx: Arc<GpuContext>,
    kernel: SsimKernel,
    /// The kernel's four means; the view does not read them back (that
    /// would make the UI wait), but the kernel must write them somewhere.
    results: Buffer,
    /// `Pictures::shown` of the pair the map was last recorded for.
    pub shown: Option<(u64, u64)>,
}

impl SsimMapper {
    /// A mapper for `width` x `height` luma at `bpc` bits; fails (with
    /// libvmaf's reason) for pictures SSIM cannot score, e.g. smaller than
    /// its 11x11 window.
    pub fn new(ctx: &Arc<GpuContext>, width: u32, height: u32, bpc: u32) -> Result<Self> {
        let kernel = SsimKernel::new(ctx, width, height, bpc, SsimOptions::default())?;
        let results = Buffer::storage(
            ctx,
            "dashboard ssim results",
            u64::from(SsimKernel::RESULT_WORDS) * 8,
        )?;
        Ok(SsimMapper { ctx: ctx.clone(), kernel, results, shown: None })
    }

    pub fn info(&self) -> SsimMapInfo {
        SsimMapInfo {
            width: self.kernel.map_width(),
            height: self.kernel.map_height(),
            scale: self.kernel.scale(),
        }
    }

    /// The buffer to bind as external map slot 0.
    pub fn map_buffer(&self) -> &Buffer {
        self.kernel.map_buffer()
    }

    /// Records the upload of the pictures' luma and the kernel into `rec`.
    /// The map is poisoned with NaN first, so a kernel that wrote nothing
    /// shows magenta rather than a perfect score.
    pub fn record(&mut self, rec: &mut Recorder<'_>, pictures: &Pictures) -> Result<SsimUpload> {
        let (rs, ds) = (pictures.luma_samples(false), pictures.luma_samples(true));
        let (w, h, bpc) =
            (pictures.reference.width, pictures.reference.height, pictures.reference.bit_depth);
        let r = PlaneView::packed(w as usize, h as usize, bpc, &rs);
        let d = PlaneView::packed(w as usize, h as usize, bpc, &ds);
        let (rb, db) = (plane_bytes(&r), plane_bytes(&d));
        let total = (rb.len() + db.len()) as u64;
        let mut staging = Buffer::staging(&self.ctx, "dashboard ssim staging", total)?;
        staging.write(&[rb.as_slice(), db.as_slice()].concat())?;
        let reference = Buffer::storage(&self.ctx, "dashboard ssim reference", rb.len() as u64)?;
        let distorted = Buffer::storage(&self.ctx, "dashboard ssim distorted", db.len() as u64)?;
        rec.copy_buffer(&staging, 0, &reference, 0, rb.len() as u64);
        rec.copy_buffer(&staging, rb.len() as u64, &distorted, 0, db.len() as u64);
        rec.fill(self.kernel.map_buffer(), f32::NAN.to_bits());
        let planes = [(&reference, &r), (&distorted, &d)].map(|(buffer, p)| DevicePlane {
            buffer,
            desc: packed_desc(p.width, p.height, p.bpc, 0),
        });
        // The kernel starts with a barrier: the copies and the fill above
        // come first, as does every earlier submission's read of the map.
        self.kernel
            .record(rec, &planes[0], &planes[1], &self.results, 0)
            .context("recording the SSIM map")?;
        self.shown = Some(pictures.shown);
        Ok(SsimUpload { _staging: staging, _reference: reference, _distorted: distorted })
    }
}
