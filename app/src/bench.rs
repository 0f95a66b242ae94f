//! `vqscope bench`: benchmarks as programs, timed with the GPU's own
//! timestamps. `ui` renders each scene repeatedly at each size with both
//! compaction variants and prints the median GPU milliseconds per pass
//! (binning as one figure, then its four passes on a line of their own);
//! `metrics`, `input`, `scale`, `playback` and `decode` live in their own
//! modules.

use std::sync::Arc;

use anyhow::{Result, bail};
use vqscope_gpu::{Binding, ContextOptions, GpuContext, Submitter, vk};
use vqscope_metrics::pipeline::FrameScores;
use vqscope_renderer::{Output, Renderer, ScanMode, Scene, scenes};
use vqscope_video::VideoSource;

use crate::dashboard::demo::{self, DemoSource, Side};
use crate::dashboard::scores::History;
use crate::dashboard::source::ClipInfo;
use crate::dashboard::state::State;
use crate::dashboard::{MODEL, view};

use crate::output::{outln, parse_size};
use crate::stats::median;

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: `ui`, `metrics`, `input`, `scale`, `playback` or `decode`.
    what: String,
    /// Scenes to render (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "dashboard,10k,100k,1m")]
    scenes: Vec<String>,
    /// Sizes (comma-separated WIDTHxHEIGHT, 1080p or 4k).
    #[arg(long, value_delimiter = ',', value_parser = parse_size, default_value = "1080p,4k")]
    sizes: Vec<(u32, u32)>,
    /// `ui`: draw for an HDR10 window (the fused pass's HDR10_OUTPUT variant, PQ into
    /// a 10-bit image) instead of an SDR one.
    #[arg(long)]
    hdr10: bool,
    /// `ui`: bin scenes of at most this many primitives in one pass (0:
    /// never); the renderer's own limit if absent. Times either binning on
    /// the same scene, or tunes the limit.
    #[arg(long = "one-pass-limit")]
    one_pass_limit: Option<u32>,
    /// `ui`: `true` draws each scene with the fused pass specialised to the
    /// shading paths its images can take (a CPU driver's way), `false` with
    /// every path (a GPU's); the renderer's own choice if absent. Times
    /// either way in one binary.
    #[arg(long = "specialise-shading")]
    specialise_shading: Option<bool>,
    /// Timed repetitions per case (after one warm-up).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// `metrics` and `input`: frame sizes (comma-separated).
    #[arg(long = "metric-sizes", value_delimiter = ',', value_parser = parse_size, default_value = "576x324,1080p,4k")]
    metric_sizes: Vec<(u32, u32)>,
    /// `metrics`: only these rows (comma-separated registry feature names
    /// or model versions, e.g. `float_vif,vmaf_float_v0.6.1`); all if
    /// absent. A slow device (lavapipe) can then time a few features.
    #[arg(long = "metric-features", value_delimiter = ',')]
    metric_features: Vec<String>,
    /// `metrics`: under each row, also the GPU ms per frame of a ladder of
    /// this many renditions against one reference (frame resident, as the
    /// row's), with the lanes sharing the reference's work and without;
    /// 0 or 1: no ladder.
    #[arg(long, default_value_t = 0)]
    lanes: usize,
    /// `metrics` and `input`: frame pairs per case; `scale`: scales per case.
    #[arg(long, default_value_t = 32)]
    frames: u64,
    /// `metrics`: keep the synthetic y4m clips in this folder (to score the
    /// same content with another tool; clips already there are not
    /// overwritten).
    #[arg(long = "keep-y4m")]
    keep_y4m: Option<std::path::PathBuf>,
    /// `playback`: the clip to play and score (none: the demo); the window
    /// sizes are `--sizes`. `decode`: the pair whose inputs to decode, each
    /// alone and without scoring (`--decode` picks the decoder).
    #[command(flatten)]
    open: crate::dashboard::OpenArgs,
    /// `playback`: seconds to play at each size.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// `playback`: show the distorted side this many frames later
    /// (negative: earlier), as the dashboard's `]` and `[` keys do.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    offset: i64,
}

pub fn run(args: Args) -> Result<()> {
    match args.what.as_str() {
        "ui" => bench_ui(&args),
        "metrics" => crate::bench_metrics::run(
            &args.metric_sizes,
            &args.metric_features,
            args.lanes,
            args.frames,
            args.keep_y4m.as_deref(),
        ),
        "input" => crate::bench_input::run(&args.metric_sizes, args.frames),
        "scale" => crate::bench_scale::run(args.frames),
        "playback" => {
            let inputs = args.open.inputs()?;
            crate::dashboard::playback::run(&inputs, &args.sizes, args.seconds, args.offset)
        }
        "decode" => crate::bench_decode::run(&args.open),
        other => {
            bail!("unknown benchmark `{other}`; known: ui, metrics, input, scale, playback, decode")
        }
    }
}

fn bench_ui(args: &Args) -> Result<()> {
    for name in &args.scenes {
        if name != LONG_PLOT && !scenes::NAMES.contains(&name.as_str()) {
            bail!("unknown scene `{name}`; known: {}, {LONG_PLOT}", scenes::NAMES.join(", "));
        }
    }
    let ctx = Arc::new(GpuContext::new(&ContextOptions::from_env())?);
    let info = ctx.info().clone();
    outln!(
        "device: {} (subgroup size {}, {} timed runs per case, median GPU ms, {} output)",
        info.name,
        info.subgroup_size,
        args.runs.max(1),
        if args.hdr10 { "HDR10" } else { "SDR" }
    )?;
    outln!(
        "{:<10} {:>10} {:>8} {:>9} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7}",
        "scene",
        "size",
        "prims",
        "bin list",
        "sg bin",
        "sg fused",
        "sg total",
        "l0 bin",
        "l0 fused",
        "l0 total",
        "speedup"
    )?;
    let mut submitter = Submitter::new(&ctx, 1)?;
    let mut subgroup = Renderer::new(&ctx, ScanMode::Subgroup, None)?;
    let mut lane0 = Renderer::new(&ctx, ScanMode::Lane0, None)?;
    let output = if args.hdr10 { Output::Hdr10 } else { Output::Sdr };
    subgroup.set_output(output)?;
    lane0.set_output(output)?;
    if let Some(limit) = args.one_pass_limit {
        subgroup.set_one_pass_limit(limit);
        lane0.set_one_pass_limit(limit);
    }
    if let Some(on) = args.specialise_shading {
        subgroup.set_specialise_shading(on);
        lane0.set_specialise_shading(on);
    }
    for name in &args.scenes {
        for &(width, height) in &args.sizes {
            let scene = scene(name, width, height).expect("checked");
            let encoded = subgroup.encode(&scene)?;
            let buffers = subgroup.upload(&encoded)?;
            let target = subgroup.target_image(width, height)?;
            submitter.run(|rec| {
                rec.image_layout(
                    target.raw(),
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::GENERAL,
                );
                buffers.record_upload(rec);
                Ok(())
            })?;
            let mut row = Vec::new();
            let mut passes = Vec::new();
            for renderer in [&subgroup, &lane0] {
                let mut bin = Vec::new();
                let mut fused = Vec::new();
                let mut count = Vec::new();
                let mut scan = Vec::new();
                let mut scatter = Vec::new();
                let mut tiles = Vec::new();
                // Keep the GPU busy for 200 ms first: an idle GPU runs at a
                // fraction of its clock until sustained work arrives.
                let warm = std::time::Instant::now();
                while warm.elapsed().as_secs_f64() < 0.2 {
                    submitter.run(|rec| renderer.record(rec, &buffers, Binding::Image(&target)))?;
                }
                for run in 0..=args.runs.max(1) {
                    submitter.run(|rec| renderer.record(rec, &buffers, Binding::Image(&target)))?;
                    let t = renderer.pass_times()?;
                    if run > 0 {
                        bin.push(t.binning_ms());
                        fused.push(t.fused_ms);
                        count.push(t.bin_count_ms);
                        scan.push(t.bin_scan_ms);
                        scatter.push(t.bin_scatter_ms);
                        tiles.push(t.bin_tiles_ms);
                    }
                }
                let (b, f) = (median(bin), median(fused));
                row.push((b, f, b + f));
                passes.push((median(count), median(scan), median(scatter), median(tiles)));
            }
            outln!(
                "{:<10} {:>10} {:>8} {:>9} | {:>9.3} {:>9.3} {:>9.3} | {:>9.3} {:>9.3} {:>9.3} | {:>6.2}x",
                name,
                format!("{width}x{height}"),
                encoded.prims.len(),
                encoded.bin_entries(),
                row[0].0,
                row[0].1,
                row[0].2,
                row[1].0,
                row[1].1,
                row[1].2,
                row[1].2 / row[0].2
            )?;
            outln!(
                "{:<10} binning passes{} (sg | l0): bin_count {:.3} | {:.3}, bin_scan {:.3} | {:.3} ({} chunks), bin_scatter {:.3} | {:.3}, bin_tiles {:.3} | {:.3} ({} tile entries)",
                "",
                if subgroup.bins_in_one_pass(encoded.prims.len() as u32) {
                    ", one pass"
                } else {
                    ""
                },
                passes[0].0,
                passes[1].0,
                passes[0].1,
                passes[1].1,
                encoded.chunk_count(),
                passes[0].2,
                passes[1].2,
                passes[0].3,
                passes[1].3,
                encoded.tile_entries()
            )?;
        }
    }
    Ok(())
}

/// The `bench ui` scene that is the dashboard of a long clip.
const LONG_PLOT: &str = "plot200k";

/// A `bench ui` scene: one of the renderer's, or [`LONG_PLOT`].
fn scene(name: &str, width: u32, height: u32) -> Option<Scene> {
    if name == LONG_PLOT {
        Some(long_plot(width, height))
    } else {
        scenes::build(name, width, height)
    }
}

/// The dashboard of a fully scored 200k-frame clip (2 h 19 min at 24 fps),
/// VMAF with a bootstrap model's interval band and a second series, with
/// one bad frame: what the plots of a film make of the scene.
fn long_plot(width: u32, height: u32) -> Scene {
    const FRAMES: u64 = 200_000;
    let info = |side| DemoSource::new(side).info().clone();
    let clip = ClipInfo {
        reference: info(Side::Reference),
        distorted: info(Side::Distorted),
        frame_count: Some(FRAMES),
    };
    let names: Arc<[String]> =
        ["integer_adm2", "vmaf", "vmaf_ci_p95_lo", "vmaf_ci_p95_hi"].map(String::from).into();
    let frames = (0..FRAMES)
        .map(|index| {
            let t = index as f64;
            let vmaf = if index == 123_457 {
                20.0
            } else {
                88.0 + 6.0 * (t / 3000.0).sin() + 3.0 * (t * 0.7).sin()
            };
            let adm = 0.95 + 0.03 * (t / 5000.0).cos() + 0.01 * (t * 0.3).sin();
            FrameScores {
                index,
                names: names.clone(),
                values: vec![adm, vmaf, vmaf - 4.0, vmaf + 3.0],
            }
        })
        .collect();
    let history = History { frames, done: true, error: None };
    let state = State::new((width, height), (demo::WIDTH, demo::HEIGHT), FRAMES, 24.0);
    view::build(&view::ViewInputs {
        state: &state,
        clip: &clip,
        model: MODEL,
        pictures: None,
        history: &history,
        error: None,
        map: None,
    })
}
