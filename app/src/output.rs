//! Shared command-line pieces: sizes like `1920x1080`, and output paths
//! that never overwrite what the user has unless asked.

use std::path::Path;

use anyhow::{Result, bail};

/// Parses `WxH` (also `1080p`, `4k`).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    match text.to_ascii_lowercase().as_str() {
        "720p" => return Ok((1280, 720)),
        "1080p" => return Ok((1920, 1080)),
        "4k" | "2160p" => return Ok((3840, 2160)),
        _ => {}
    }
    let (w, h) = text.split_once(['x', 'X']).ok_or(format!("`{text}` is not WIDTHxHEIGHT"))?;
    let parse =
        |s: &str| s.trim().parse::<u32>().map_err(|_| format!("`{text}` is not WIDTHxHEIGHT"));
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {w}x{h} is outside 1x1..16384x16384"));
    }
    Ok((w, h))
}

/// Refuses to write over an existing file unless `force`, and over a
/// directory ever.
pub fn check_output(path: &Path, force: bool) -> Result<()> {
    if path.is_dir() {
        bail!("{} is a directory", path.display());
    }
    if path.exists() && !force {
        bail!("{} exists; pass --force to overwrite it", path.display());
    }
    Ok(())
}
