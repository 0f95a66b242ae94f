//! The SSIM view's GPU side: `float_ssim` ([`SsimKernel`]) run on the pair
//! being shown, reading the luma planes the display uploaded, its
//! per-pixel map left in a device buffer that the fused pass reads in
//! place (external map slot 0), so neither travels through the host and
//! the UI never waits for it.
//!
//! The kernel runs only while the SSIM view is on, and only when the shown
//! pair changes: its recording goes into the frame's own command buffer,
//! ahead of the renderer's, and the kernel's leading barrier orders it
//! after every earlier submission on the queue, so a map still being read
//! by a frame in flight is never overwritten under it.

use std::sync::Arc;

use anyhow::{Context, Result};
use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_metrics::device::uploaded_plane;
use vqscope_metrics::features::float_ssim::gpu::SsimKernel;
use vqscope_metrics::features::float_ssim::{MAP_ORIGIN, SsimOptions};

use vqscope_video::{DeviceFrame, FrameUploader};

use super::heat_view::MapInfo;
use super::pictures::Pictures;

/// One [`SsimKernel`] for the clip's luma size, and which pair its map
/// currently holds.
pub struct SsimMapper {
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
        Ok(SsimMapper { kernel, results, shown: None })
    }

    /// The map lies on SSIM's own grid, not the picture's: the frame is
    /// first box-decimated by `scale` (libvmaf's automatic pre-scale), then
    /// the 11-tap Gaussian window keeps only positions where it lies inside
    /// the picture, [`MAP_ORIGIN`] cells in.
    pub fn info(&self) -> MapInfo {
        MapInfo {
            width: self.kernel.map_width(),
            height: self.kernel.map_height(),
            scale: self.kernel.scale(),
            origin: MAP_ORIGIN as u32,
        }
    }

    /// The buffer to bind as external map slot 0.
    pub fn map_buffer(&self) -> &Buffer {
        self.kernel.map_buffer()
    }

    /// Records the kernel on the pictures' uploaded luma planes into `rec`
    /// (they must be uploaded: [`Pictures::upload`]). The map is poisoned
    /// with NaN first, so a kernel that wrote nothing shows magenta rather
    /// than a perfect score.
    pub fn record(
        &mut self,
        rec: &mut Recorder<'_>,
        pictures: &Pictures,
        uploader: &FrameUploader,
    ) -> Result<()> {
        let (buffer, device) =
            pictures.device(uploader).context("the SSIM map needs the frames on the GPU")?;
        let plane = |frame: &DeviceFrame| uploaded_plane(buffer, frame, 0);
        rec.fill(self.kernel.map_buffer(), f32::NAN.to_bits());
        // The kernel starts with a barrier: the upload and the fill above
        // come first, as does every earlier submission's read of the map.
        self.kernel
            .record(rec, &plane(&device.reference), &plane(&device.distorted), &self.results, 0)
            .context("recording the SSIM map")?;
        self.shown = Some(pictures.shown);
        Ok(())
    }
}
