//! The banding view's GPU side: CAMBI ([`CambiKernel`], libvmaf's default
//! options) run on the distorted picture being shown, its finest-scale
//! c-value map copied into a device buffer the fused pass draws in place.
//! As with the SSIM and ΔE views, the kernel runs only while the view is on
//! and only when the shown pair changes, in the frame's own command
//! buffer, after the kernel's leading barrier.
//!
//! Scale 0 is shown, not a maximum over the scales: it is the one map at
//! the picture's own size (the coarser ones would be blown up 2x to 16x,
//! smearing a band over its neighbours), and it carries the largest of the
//! score's scale weights.

use std::sync::Arc;

use anyhow::{Context, Result};
use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_metrics::device::uploaded_plane;
use vqscope_metrics::features::cambi::gpu::CambiKernel;
use vqscope_metrics::features::cambi::heatmap::max_c_value;
use vqscope_metrics::features::cambi::{Cambi, CambiOptions, adjust_window};
use vqscope_video::{FrameUploader, Geometry};

use super::heat_view::MapInfo;
use super::pictures::Pictures;

/// The c-values the banding view's colour ramp spans, turned round (high
/// c-values are banding, so they glow): libvmaf's heat-map scale, whose
/// top ([`max_c_value`], at the default options `window²`) is about the
/// largest c-value possible, brightest; 0 black. The window grows with the
/// picture (65 at 4K), so the range does.
pub fn cambi_range(picture: (u32, u32)) -> (f32, f32) {
    let window = adjust_window(65, picture.0, picture.1, false);
    let default_steps = 1 << CambiOptions::default().max_log_contrast;
    (max_c_value(window, default_steps) as f32, 0.0)
}

/// One [`CambiKernel`] for the clip's geometry, and which pair its map
/// currently holds.
pub struct CambiMapper {
    kernel: CambiKernel,
    /// Scale 0's map first, then the coarser scales' (the kernel copies
    /// them all).
    maps: Buffer,
    /// Where the kernel leaves its per-scale sums, which the view does not
    /// read back (that would make the UI wait).
    results: Buffer,
    /// Scale 0's size: the picture's.
    size: (u32, u32),
    /// `Pictures::shown` of the pair the map was last recorded for.
    pub shown: Option<(u64, u64)>,
}

impl CambiMapper {
    /// A mapper for clips of `geometry`; fails (with libvmaf's reason) for
    /// pictures CAMBI cannot score, e.g. both sides below 216.
    pub fn new(ctx: &Arc<GpuContext>, geometry: Geometry) -> Result<Self> {
        let (w, h) = (geometry.width as usize, geometry.height as usize);
        let cambi = Cambi::new(&CambiOptions::default(), w, h, geometry.format.bit_depth)?;
        let size = cambi.scale_sizes(false)[0];
        let kernel = CambiKernel::new(ctx, &cambi)?;
        let maps = Buffer::storage(ctx, "dashboard cambi maps", kernel.maps_bytes())?;
        let results =
            Buffer::storage(ctx, "dashboard cambi results", u64::from(kernel.result_words()) * 8)?;
        Ok(CambiMapper { kernel, maps, results, size: (size.0 as u32, size.1 as u32), shown: None })
    }

    /// One cell per picture sample (no working-size decimation or speed-up
    /// at the default options).
    pub fn info(&self) -> MapInfo {
        MapInfo { width: self.size.0, height: self.size.1, scale: 1, origin: 0 }
    }

    pub fn map_buffer(&self) -> &Buffer {
        &self.maps
    }

    /// Records the kernel on the pictures' uploaded luma planes into `rec`;
    /// the maps are poisoned with NaN first, so a kernel that wrote nothing
    /// shows magenta rather than no banding.
    pub fn record(
        &mut self,
        rec: &mut Recorder<'_>,
        pictures: &Pictures,
        uploader: &FrameUploader,
    ) -> Result<()> {
        let (buffer, device) =
            pictures.device(uploader).context("the banding map needs the frames on the GPU")?;
        let reference = uploaded_plane(buffer, &device.reference, 0);
        let distorted = uploaded_plane(buffer, &device.distorted, 0);
        rec.fill(&self.maps, f32::NAN.to_bits());
        self.kernel
            .record_with_maps(rec, &reference, &distorted, &self.results, 0, Some((&self.maps, 0)))
            .context("recording the banding map")?;
        self.shown = Some(pictures.shown);
        Ok(())
    }
}
