//! Rendered frames to and from PNG files.

use std::path::Path;

use crate::RenderError;

/// Writes opaque RGBA8 pixels as a PNG.
pub fn save_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), RenderError> {
    let err = |message: String| RenderError::Png { path: path.display().to_string(), message };
    let image = image::RgbaImage::from_raw(width, height, rgba.to_vec())
        .ok_or_else(|| err(format!("{} bytes do not make a {width}x{height} image", rgba.len())))?;
    image.save_with_format(path, image::ImageFormat::Png).map_err(|e| err(e.to_string()))
}

/// Reads a PNG as RGBA8: (width, height, pixels).
pub fn load_png(path: &Path) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let err = |message: String| RenderError::Png { path: path.display().to_string(), message };
    let image = image::open(path).map_err(|e| err(e.to_string()))?.to_rgba8();
    Ok((image.width(), image.height(), image.into_raw()))
}
