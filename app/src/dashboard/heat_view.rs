//! The dashboard's heat-map views: a per-pixel map computed on the GPU from
//! the pair being shown and drawn in place by the fused pass (external map
//! slot [`super::view::MAP_SLOT`]), never read back. The SSIM view maps
//! `float_ssim` ([`SsimMapper`]), the ΔE view CIEDE2000
//! ([`DeltaEMapper`]), the banding view CAMBI's c-values ([`CambiMapper`]);
//! this module holds what they share: the map's
//! geometry on the picture and the choice of mapper for a view mode.

use std::sync::Arc;

use anyhow::Result;
use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_video::{FrameUploader, Geometry};

use super::cambi::CambiMapper;
use super::delta_e::DeltaEMapper;
use super::pictures::Pictures;
use super::ssim::SsimMapper;
use super::state::ViewMode;

/// A map's geometry, which is all the scene needs to draw it.
///
/// Cell `(x, y)` covers picture samples `[(x + origin)·scale,
/// (x + origin + 1)·scale)` across, likewise down; a border of
/// `origin·scale` samples has no value (SSIM's window does not fit there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapInfo {
    pub width: u32,
    pub height: u32,
    pub scale: u32,
    pub origin: u32,
}

impl MapInfo {
    /// The picture-sample rectangle the map covers: `(x0, y0, x1, y1)`.
    pub fn covered(&self) -> [f32; 4] {
        let k = self.scale as f32;
        let o = self.origin as f32 * k;
        [o, o, o + self.width as f32 * k, o + self.height as f32 * k]
    }
}

/// The mapper of one heat-map view (boxed: the SSIM kernels are large,
/// and only one mapper lives at a time).
pub enum HeatMapper {
    Ssim(Box<SsimMapper>),
    DeltaE(Box<DeltaEMapper>),
    Cambi(Box<CambiMapper>),
}

impl HeatMapper {
    /// The mapper `mode` draws, for clips of `geometry`; None for views
    /// without a map. Fails (with the feature's reason) for clips the
    /// feature cannot score.
    pub fn for_mode(
        mode: ViewMode,
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
    ) -> Option<Result<Self>> {
        let bpc = geometry.format.bit_depth;
        match mode {
            ViewMode::Ssim => Some(
                SsimMapper::new(ctx, geometry.width, geometry.height, bpc)
                    .map(|m| HeatMapper::Ssim(Box::new(m))),
            ),
            ViewMode::DeltaE => {
                Some(DeltaEMapper::new(ctx, geometry).map(|m| HeatMapper::DeltaE(Box::new(m))))
            }
            ViewMode::Cambi => {
                Some(CambiMapper::new(ctx, geometry).map(|m| HeatMapper::Cambi(Box::new(m))))
            }
            ViewMode::Side | ViewMode::Wipe | ViewMode::Diff => None,
        }
    }

    pub fn info(&self) -> MapInfo {
        match self {
            HeatMapper::Ssim(m) => m.info(),
            HeatMapper::DeltaE(m) => m.info(),
            HeatMapper::Cambi(m) => m.info(),
        }
    }

    /// The buffer to bind as the external map slot.
    pub fn map_buffer(&self) -> &Buffer {
        match self {
            HeatMapper::Ssim(m) => m.map_buffer(),
            HeatMapper::DeltaE(m) => m.map_buffer(),
            HeatMapper::Cambi(m) => m.map_buffer(),
        }
    }

    /// `Pictures::shown` of the pair the map holds, if any.
    pub fn shown(&self) -> Option<(u64, u64)> {
        match self {
            HeatMapper::Ssim(m) => m.shown,
            HeatMapper::DeltaE(m) => m.shown,
            HeatMapper::Cambi(m) => m.shown,
        }
    }

    /// Forgets the pair the map holds (its input was replaced).
    pub fn forget(&mut self) {
        match self {
            HeatMapper::Ssim(m) => m.shown = None,
            HeatMapper::DeltaE(m) => m.shown = None,
            HeatMapper::Cambi(m) => m.shown = None,
        }
    }

    /// Records the map of the uploaded pictures into `rec`.
    pub fn record(
        &mut self,
        rec: &mut Recorder<'_>,
        pictures: &Pictures,
        uploader: &FrameUploader,
    ) -> Result<()> {
        match self {
            HeatMapper::Ssim(m) => m.record(rec, pictures, uploader),
            HeatMapper::DeltaE(m) => m.record(rec, pictures, uploader),
            HeatMapper::Cambi(m) => m.record(rec, pictures, uploader),
        }
    }
}
