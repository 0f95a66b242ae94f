//! `vqscope screenshot`: a test scene, or the dashboard at a frame of a
//! clip (`--dashboard`), rendered headless to PNG.

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
    #[arg(long, required_unless_present = "dashboard", conflicts_with = "dashboard")]
    scene: Option<String>,
    /// Render the real dashboard on -r/-d (the demo without them), after
    /// scoring the whole clip.
    #[arg(long)]
    dashboard: bool,
    /// Dashboard: reference input.
    #[arg(short = 'r', long, requires = "dashboard")]
    reference: Option<PathBuf>,
    /// Dashboard: distorted input.
    #[arg(short = 'd', long, requires = "dashboard")]
    distorted: Option<PathBuf>,
    /// Dashboard: frame to show.
    #[arg(long, default_value_t = 0, requires = "dashboard")]
    frame: u64,
    /// Dashboard: view mode (side, wipe, diff).
    #[arg(long, default_value = "side", value_parser = ["side", "wipe", "diff"])]
    mode: String,
    /// Dashboard: magnification in screen pixels per sample, centred (default: fit).
    #[arg(long, requires = "dashboard")]
    zoom: Option<f32>,
    /// Dashboard: cursor position X,Y, to show what hovering there shows.
    #[arg(long, value_parser = parse_point, requires = "dashboard")]
    cursor: Option<[f32; 2]>,
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
    if args.dashboard {
        return dashboard(&args);
    }
    let scene = args.scene.as_deref().unwrap_or("showcase");
    render_scene(scene, args.size, &args.output)
}

fn parse_point(text: &str) -> Result<[f32; 2], String> {
    let (x, y) = text.split_once(',').ok_or(format!("`{text}` is not X,Y"))?;
    let parse = |s: &str| s.trim().parse::<f32>().map_err(|_| format!("`{text}` is not X,Y"));
    Ok([parse(x)?, parse(y)?])
}

/// `--dashboard`: what the window would show at `--frame`.
fn dashboard(args: &Args) -> Result<()> {
    use crate::dashboard::{Shot, render_shot, score_clip, source::Inputs, state::ViewMode};
    let inputs = match (&args.reference, &args.distorted) {
        (Some(r), Some(d)) => {
            Inputs::Files { reference: r.clone(), distorted: d.clone(), raw: None }
        }
        (None, None) => Inputs::Demo,
        _ => anyhow::bail!("--dashboard needs both -r and -d (or neither, for the demo)"),
    };
    let mode = ViewMode::parse(&args.mode).ok_or_else(|| anyhow!("unknown --mode"))?;
    let shot =
        Shot { frame: args.frame, mode, size: args.size, zoom: args.zoom, cursor: args.cursor };
    let rgba = render_shot(&score_clip(&inputs)?, &shot)?;
    let (width, height) = args.size;
    capture::save_png(&args.output, width, height, &rgba).context("dashboard")?;
    eprintln!(
        "wrote {} ({width}x{height}, dashboard at frame {})",
        args.output.display(),
        args.frame
    );
    Ok(())
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
