//! `vqscope screenshot`: a test scene rendered headless to PNG.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use vqscope_gpu::{ContextOptions, GpuContext, Submitter};
use vqscope_renderer::{Renderer, ScanMode, capture, scenes};

use crate::output::{check_output, parse_size};

#[derive(clap::Args)]
pub struct Args {
    /// Scene to render (showcase, rects, circles, lines, images, yuv10, text,
    /// clips, translucent, dashboard, 10k, 100k, 1m).
    #[arg(long)]
    scene: String,
    /// Output size as WIDTHxHEIGHT (or 720p, 1080p, 4k).
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// PNG file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<()> {
    check_output(&args.output, args.force)?;
    render_scene(&args.scene, args.size, &args.output)
}

/// Renders scene `name` at `size` into the PNG `output`.
pub fn render_scene(name: &str, size: (u32, u32), output: &Path) -> Result<()> {
    let (width, height) = size;
    let scene = scenes::build(name, width, height)
        .ok_or_else(|| anyhow!("unknown scene `{name}`; known: {}", scenes::NAMES.join(", ")))?;
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    let mut submitter = Submitter::new(&ctx, 1)?;
    let mut renderer = Renderer::new(&ctx, ScanMode::Subgroup, None)?;
    let rgba = renderer.render_to_rgba(&mut submitter, &scene)?;
    capture::save_png(output, width, height, &rgba).with_context(|| format!("scene {name}"))?;
    eprintln!("wrote {} ({width}x{height}, scene {name})", output.display());
    Ok(())
}
