//! `vqscope screenshot`: a test scene, the dashboard at a frame of a clip
//! (`--dashboard`), or a frame's SSIM heat map (`--ssim-map`), rendered
//! headless to PNG.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use vqscope_gpu::{ContextOptions, Submitter};
use vqscope_renderer::{Renderer, ScanMode, capture, scenes};

use crate::output::{check_output, check_report_path, parse_size, replace_atomically, shown};

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("clip_view").args(["dashboard", "ssim_map"]))]
pub struct Args {
    /// Scene to render (showcase, rects, circles, lines, images, yuv10, heatmap, text,
    /// clips, translucent, dashboard, 10k, 100k, 1m).
    #[arg(
        long,
        required_unless_present_any = ["dashboard", "ssim_map"],
        conflicts_with_all = ["dashboard", "ssim_map"]
    )]
    scene: Option<String>,
    /// Render the real dashboard on -r/-d (the demo without them), after
    /// scoring the whole clip.
    #[arg(long, conflicts_with = "ssim_map")]
    dashboard: bool,
    /// Render frame --frame's per-pixel luma SSIM of -r/-d as a heat map
    /// (bright = damaged), with a title line and a legend.
    #[arg(long)]
    ssim_map: bool,
    /// Dashboard / SSIM map: reference input.
    #[arg(short = 'r', long, requires = "clip_view")]
    reference: Option<PathBuf>,
    /// Dashboard / SSIM map: distorted input.
    #[arg(short = 'd', long, requires = "clip_view")]
    distorted: Option<PathBuf>,
    /// Dashboard / SSIM map: frame to show, from 0.
    #[arg(long, default_value_t = 0, requires = "clip_view")]
    frame: u64,
    /// SSIM map: the SSIM values LO,HI the colour ramp spans (LO and below
    /// brightest, HI and above black) [default: 0.5,1].
    #[arg(long, value_parser = parse_range, requires = "ssim_map")]
    range: Option<(f32, f32)>,
    /// Dashboard: view mode (side, wipe, diff, ssim, ciede: the CIEDE2000 ΔE map, cambi: the
    /// CAMBI banding map).
    #[arg(
        long,
        default_value = "side",
        value_parser = ["side", "wipe", "diff", "ssim", "ciede", "cambi"]
    )]
    mode: String,
    /// Dashboard: magnification in screen pixels per sample, centred (default: fit).
    #[arg(long, requires = "dashboard")]
    zoom: Option<f32>,
    /// Dashboard: display offsets REF,DIS in frames (as the `{`/`}` and
    /// `[`/`]` keys set them): the sides show --frame plus their offset;
    /// scores still pair frame N with frame N.
    #[arg(long, value_parser = parse_offsets, allow_hyphen_values = true, requires = "dashboard")]
    offsets: Option<(i64, i64)>,
    /// Dashboard: cursor position X,Y, to show what hovering there shows.
    #[arg(long, value_parser = parse_point, requires = "dashboard")]
    cursor: Option<[f32; 2]>,
    /// Dashboard: show the key and mouse help, as `?` does in the window.
    #[arg(long = "help-overlay")]
    help_overlay: bool,
    /// Dashboard: the VMAF model, as `vqscope score --model` takes it (default
    /// version=vmaf_v0.6.1); a bootstrap model draws its 95% band in the plot.
    #[arg(short = 'm', long)]
    model: Option<String>,
    /// Dashboard: also compute this libvmaf feature, as `vqscope score --feature`
    /// takes it (repeatable).
    #[arg(long = "feature", value_name = "NAME[=OPT=V:…]")]
    features: Vec<String>,
    /// Dashboard: the plot's second series, by its report name (`psnr_y`,
    /// `integer_adm2`, a --feature's value...), as `P` picks it in the window.
    #[arg(long)]
    series: Option<String>,
    /// Dashboard: how HDR and wide-gamut inputs are shown (as in the window).
    #[command(flatten)]
    display: crate::dashboard::DisplayArgs,
    #[command(flatten)]
    decode: crate::decode_arg::DecodeArg,
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
    // What was asked is checked before where it goes: a bad flag is named
    // as such even when the output also exists.
    check_flag_combination(&args)?;
    args.decode.apply()?;
    let scene = args.scene.as_deref().unwrap_or("showcase");
    if !args.dashboard && !args.ssim_map && !scenes::NAMES.contains(&scene) {
        return Err(unknown_scene(scene));
    }
    check_output(&args.output, args.force)?;
    // Before any rendering: an unwritable folder, or an input (even
    // through a hard link) as the output, is refused up front.
    let inputs: Vec<&Path> =
        [&args.reference, &args.distorted].into_iter().flatten().map(|p| p.as_path()).collect();
    check_report_path("-o", &args.output, &inputs)?;
    if args.dashboard {
        return dashboard(&args);
    }
    if args.ssim_map {
        return ssim_map(&args);
    }
    render_scene(scene, args.size, &args.output)
}

/// clap's `requires` counts a bool flag's implicit `false` as present, so
/// it cannot refuse flags given for a view that was not asked for: this
/// does, so a flag is never silently ignored.
fn check_flag_combination(args: &Args) -> Result<()> {
    let dashboard_only = [
        ("--zoom", args.zoom.is_some()),
        ("--offsets", args.offsets.is_some()),
        ("--cursor", args.cursor.is_some()),
        ("--help-overlay", args.help_overlay),
        ("--mode", args.mode != "side"),
        ("--model", args.model.is_some()),
        ("--feature", !args.features.is_empty()),
        ("--series", args.series.is_some()),
    ];
    let clip_view = [
        ("-r", args.reference.is_some()),
        ("-d", args.distorted.is_some()),
        ("--frame", args.frame != 0),
    ];
    if args.range.is_some() && !args.ssim_map {
        anyhow::bail!("--range applies only to --ssim-map");
    }
    if let Some((flag, _)) = dashboard_only.iter().find(|(_, given)| *given)
        && !args.dashboard
    {
        anyhow::bail!("{flag} applies only to --dashboard");
    }
    if let Some((flag, _)) = clip_view.iter().find(|(_, given)| *given)
        && !args.dashboard
        && !args.ssim_map
    {
        anyhow::bail!("{flag} applies only to --dashboard or --ssim-map");
    }
    Ok(())
}

fn parse_offsets(text: &str) -> Result<(i64, i64), String> {
    let bad = || format!("`{text}` is not REF,DIS (whole frames, e.g. 0,-1)");
    let (r, d) = text.split_once(',').ok_or_else(bad)?;
    let parse = |s: &str| s.trim().parse::<i64>().map_err(|_| bad());
    let max = crate::dashboard::state::MAX_OFFSET;
    let (r, d) = (parse(r)?, parse(d)?);
    if r.abs() > max || d.abs() > max {
        return Err(format!("`{text}`: offsets are at most {max} frames either way"));
    }
    Ok((r, d))
}

fn parse_point(text: &str) -> Result<[f32; 2], String> {
    let (x, y) = text.split_once(',').ok_or(format!("`{text}` is not X,Y"))?;
    let parse = |s: &str| s.trim().parse::<f32>().map_err(|_| format!("`{text}` is not X,Y"));
    Ok([parse(x)?, parse(y)?])
}

/// `--range` when not given: per-pixel SSIM of a watchable encode lies
/// mostly in 0.5..1, and a fixed range keeps colours comparable across
/// frames and clips (a range fitted to each frame would make every frame
/// look equally bad).
const DEFAULT_SSIM_RANGE: (f32, f32) = (0.5, 1.0);

fn parse_range(text: &str) -> Result<(f32, f32), String> {
    let bad = || format!("`{text}` is not LO,HI with LO < HI");
    let (lo, hi) = text.split_once(',').ok_or_else(bad)?;
    let parse = |s: &str| s.trim().parse::<f32>().map_err(|_| bad());
    let (lo, hi) = (parse(lo)?, parse(hi)?);
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// `--ssim-map`: frame `--frame`'s SSIM heat map.
fn ssim_map(args: &Args) -> Result<()> {
    let (Some(reference), Some(distorted)) = (&args.reference, &args.distorted) else {
        anyhow::bail!("--ssim-map needs both -r REF and -d DIS");
    };
    let shot = crate::ssim_map::SsimMapShot {
        reference: reference.clone(),
        distorted: distorted.clone(),
        frame: args.frame,
        size: args.size,
        range: args.range.unwrap_or(DEFAULT_SSIM_RANGE),
    };
    let (rgba, ssim) = crate::ssim_map::render(&shot)?;
    let (width, height) = args.size;
    save_png(&args.output, width, height, &rgba).context("SSIM map")?;
    eprintln!(
        "wrote {} ({width}x{height}, SSIM map of frame {}, float_ssim {ssim:.6})",
        shown(&args.output),
        args.frame
    );
    Ok(())
}

/// `--dashboard`: what the window would show at `--frame`.
fn dashboard(args: &Args) -> Result<()> {
    use crate::dashboard::{Shot, render_shot, score_clip, source::Inputs, state::ViewMode};
    let inputs = match (&args.reference, &args.distorted) {
        (Some(r), Some(d)) => Inputs::files(r.clone(), d.clone(), None)?,
        (None, None) => Inputs::demo(),
        _ => anyhow::bail!("--dashboard needs both -r and -d (or neither, for the demo)"),
    };
    let inputs =
        Inputs { transfer: args.display.transfer(), peak_nits: args.display.peak_nits, ..inputs };
    let mode = ViewMode::parse(&args.mode).ok_or_else(|| anyhow!("unknown --mode"))?;
    let shot = Shot {
        frame: args.frame,
        mode,
        size: args.size,
        zoom: args.zoom,
        cursor: args.cursor,
        offsets: args.offsets.unwrap_or((0, 0)),
        help: args.help_overlay,
        series: args.series.clone(),
    };
    let model =
        args.model.clone().unwrap_or_else(|| format!("version={}", crate::dashboard::MODEL));
    let rgba = render_shot(&score_clip(&inputs, &model, &args.features.clone().into())?, &shot)?;
    let (width, height) = args.size;
    save_png(&args.output, width, height, &rgba).context("dashboard")?;
    eprintln!(
        "wrote {} ({width}x{height}, dashboard at frame {})",
        shown(&args.output),
        args.frame
    );
    Ok(())
}

fn unknown_scene(name: &str) -> anyhow::Error {
    anyhow!("unknown scene `{name}`; known: {}", scenes::NAMES.join(", "))
}

/// Renders scene `name` at `size` into the PNG `output`.
pub fn render_scene(name: &str, size: (u32, u32), output: &Path) -> Result<()> {
    let (width, height) = size;
    let scene = scenes::build(name, width, height).ok_or_else(|| unknown_scene(name))?;
    let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env())?;
    let mut submitter = Submitter::new(&ctx, 1)?;
    let mut renderer = Renderer::new(&ctx, ScanMode::for_device(&ctx), None)?;
    let rgba = renderer.render_to_rgba(&mut submitter, &scene)?;
    save_png(output, width, height, &rgba).with_context(|| format!("scene {name}"))?;
    eprintln!("wrote {} ({width}x{height}, scene {name})", shown(output));
    Ok(())
}

/// Writes the PNG all or nothing (a failed write keeps the old file); `-`
/// is stdout.
fn save_png(output: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    replace_atomically(output, "png", |temp| {
        capture::save_png(temp, width, height, rgba)?;
        // The image crate drops the error of its last buffered write (its
        // BufWriter is flushed on drop), so on a full disk a cut PNG
        // "succeeds": read it back before it replaces anything.
        match capture::load_png(temp) {
            Ok((w, h, pixels)) if (w, h) == (width, height) && pixels == rgba => Ok(()),
            Ok(_) => anyhow::bail!("the PNG read back differs from the picture"),
            Err(_) => anyhow::bail!(
                "the PNG did not reach the disk whole (disk full, or over the file size limit?)"
            ),
        }
    })
}
