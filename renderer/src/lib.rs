//! vqscope-renderer: the UI renderer. A [`Scene`] of primitives (rounded
//! rectangles, circles, rings, lines, RGBA and YUV images, heat maps of
//! float grids, text, clips) is encoded into GPU buffers and drawn by one
//! fused compute shader over screen tiles, after binning them into per-bin
//! and per-tile lists ([`fused`]); the result is read back as PNG
//! ([`capture`]) or shown in a window ([`present`]).

#![forbid(unsafe_code)]

pub mod capture;
pub mod color;
pub mod encode;
pub mod fused;
pub mod glyphs;
pub mod heat;
pub mod paint;
pub mod present;
pub mod scene;
pub mod scenes;
pub mod text;

pub use fused::{ONE_PASS_BINNING_PRIMS, Output, PassTimes, Renderer, ScanMode, SceneBuffers};
pub use scene::{
    Color, ExternalYuv, MAX_EXTERNAL_MAPS, MapId, Rect, RectStyle, Sampling, Scene, Subsampling,
    TextureId, Transfer, YuvFormat, YuvId, YuvMatrix, YuvPicture,
};
pub use text::{Align, TextRun, VAlign};

use thiserror::Error;

/// Everything that can stop a frame from rendering.
#[derive(Debug, Error)]
pub enum RenderError {
    #[error(transparent)]
    Gpu(#[from] vqscope_gpu::GpuError),
    #[error("cannot render a {width}x{height} frame")]
    EmptyTarget { width: u32, height: u32 },
    #[error("texture {0} was never added to the scene")]
    UnknownTexture(u32),
    #[error("YUV picture {0} was never added to the scene")]
    UnknownPicture(u32),
    #[error("map {0} was never added to the scene")]
    UnknownMap(u32),
    #[error("bad heat map: {0}")]
    BadMap(String),
    #[error("bad YUV picture: {0}")]
    BadPicture(String),
    #[error(
        "the scene's {what} need {bytes} bytes, more than the device's largest storage buffer \
         ({limit} bytes): too many primitives, or too many large ones"
    )]
    ListsTooLarge { what: &'static str, bytes: u64, limit: u32 },
    #[error("push_clip and pop_clip calls do not pair up")]
    UnbalancedClip,
    #[error(transparent)]
    Atlas(#[from] glyphs::AtlasError),
    #[error("writing {path}: {message}")]
    Png { path: String, message: String },
}
