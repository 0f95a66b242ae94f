//! The ΔE view's GPU side: CIEDE2000 ([`CiedeKernel`]) run on the pair being
//! shown, reading all three planes the display uploaded, its per-pixel ΔE
//! map left in a device buffer the fused pass draws in place. As with the
//! SSIM view ([`super::ssim`]), the kernel runs only while the view is on
//! and only when the shown pair changes, in the frame's own command
//! buffer, after a leading barrier.

use std::sync::Arc;

use anyhow::{Context, Result};
use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_metrics::device::{DevicePlane, uploaded_plane};
use vqscope_metrics::features::ciede::gpu::CiedeKernel;
use vqscope_video::{DeviceFrame, FrameUploader, Geometry};

use super::heat_view::MapInfo;
use super::pictures::Pictures;

/// One [`CiedeKernel`] for the clip's geometry, and which pair its map
/// currently holds.
pub struct DeltaEMapper {
    kernel: CiedeKernel,
    /// Where the kernel leaves its frame score, which the view does not
    /// read back (that would make the UI wait).
    results: Buffer,
    /// `Pictures::shown` of the pair the map was last recorded for.
    pub shown: Option<(u64, u64)>,
}

impl DeltaEMapper {
    /// A mapper for clips of `geometry`; fails (with libvmaf's reason) for
    /// clips CIEDE2000 cannot score, e.g. 4:0:0 ones, which have no colour.
    pub fn new(ctx: &Arc<GpuContext>, geometry: Geometry) -> Result<Self> {
        let kernel = CiedeKernel::new(
            ctx,
            geometry.width,
            geometry.height,
            geometry.format.bit_depth,
            geometry.format.chroma,
        )?;
        let results = Buffer::storage(
            ctx,
            "dashboard ciede results",
            u64::from(CiedeKernel::RESULT_WORDS) * 8,
        )?;
        Ok(DeltaEMapper { kernel, results, shown: None })
    }

    /// One cell per picture sample.
    pub fn info(&self) -> MapInfo {
        let (width, height) = self.kernel.map_size();
        MapInfo { width, height, scale: 1, origin: 0 }
    }

    pub fn map_buffer(&self) -> &Buffer {
        self.kernel.delta_e_map()
    }

    /// Records the kernel on the pictures' uploaded planes into `rec`; the
    /// map is poisoned with NaN first, so a kernel that wrote nothing shows
    /// magenta rather than a perfect match.
    pub fn record(
        &mut self,
        rec: &mut Recorder<'_>,
        pictures: &Pictures,
        uploader: &FrameUploader,
    ) -> Result<()> {
        let (buffer, device) =
            pictures.device(uploader).context("the ΔE map needs the frames on the GPU")?;
        let planes = |frame: &DeviceFrame| -> Vec<DevicePlane<'_>> {
            (0..frame.plane_count).map(|i| uploaded_plane(buffer, frame, i)).collect()
        };
        rec.fill(self.kernel.delta_e_map(), f32::NAN.to_bits());
        self.kernel
            .record(rec, &planes(&device.reference), &planes(&device.distorted), &self.results, 0)
            .context("recording the ΔE map")?;
        self.shown = Some(pictures.shown);
        Ok(())
    }
}
