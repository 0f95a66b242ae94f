//! vqscope-video: reads reference and distorted inputs (y4m, raw yuv, and
//! other containers through ffmpeg) into [`Frame`]s.

pub mod frame;

pub use frame::{ChromaFormat, ColorInfo, ColorMatrix, ColorRange, Frame, Geometry, PixelFormat};
