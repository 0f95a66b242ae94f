//! The dashboard: reference and distorted clip side by side (or wiped, or
//! differenced), per-frame VMAF plotted live while the clip is scored on a
//! background thread, everything drawn by the fused renderer.
//!
//! `vqscope -r REF -d DIS` opens the window; `vqscope` alone opens it on
//! the generated demo pair, or, with no display, renders the demo to
//! `vqscope-demo.png` and writes its scores to `vqscope-demo.json`;
//! `vqscope screenshot --dashboard` renders any frame headless after
//! scoring the whole clip. Modules: `state` (the pure state machine),
//! `layout` (rectangles), `view` (the scene), `scores` (the scoring
//! thread), `source` and `demo` (inputs), `pictures` (frames as pictures).

pub mod cambi;
pub mod decimate;
pub mod delta_e;
pub mod demo;
pub mod heat_view;
pub mod layout;
pub mod pictures;
pub mod playback;
pub mod scores;
pub mod source;
pub mod ssim;
pub mod state;
pub mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use vqscope_gpu::{Binding, ContextOptions, GpuContext, Submitter};
use vqscope_metrics::report::Format;
use vqscope_renderer::present::{HdrOutput, InputEvent, WindowOptions, run_window};
use vqscope_renderer::{Renderer, ScanMode, SceneBuffers, capture};
use vqscope_video::{FramePair, FrameUploader};
use winit::event::MouseButton;
use winit::keyboard::{Key as WinitKey, NamedKey};

use crate::info::RawArgs;
use heat_view::HeatMapper;
use pictures::Pictures;
use scores::{History, Scorer};
use source::{ClipInfo, FrameFeed, Inputs};
use state::{Input, InputSide, Key, State, ViewMode};
use vqscope_metrics::model::Model;

/// `vqscope [-r REF -d DIS]`: the inputs of the dashboard window.
#[derive(clap::Args)]
pub struct OpenArgs {
    /// Reference input (y4m, raw .yuv with -w -h -p -b, or anything ffmpeg reads).
    #[arg(short = 'r', long, requires = "distorted")]
    pub reference: Option<PathBuf>,
    /// Distorted input.
    #[arg(short = 'd', long, requires = "reference")]
    pub distorted: Option<PathBuf>,
    #[command(flatten)]
    pub raw: RawArgs,
    /// VMAF model to start with, as `vqscope score --model` takes it (`version=NAME` or
    /// `path=FILE`); `V` in the window cycles through it and the built-in models.
    #[arg(short = 'm', long = "model")]
    pub model: Option<String>,
    /// Also compute this libvmaf feature, as `vqscope score --feature` takes it
    /// (`NAME` or `NAME=OPT=V:…`; repeatable); `P` plots any computed value.
    #[arg(long = "feature", value_name = "NAME[=OPT=V:…]")]
    pub features: Vec<String>,
    /// Play in a loop: from the last frame on to the first (`L` in the window toggles it).
    #[arg(long = "loop")]
    pub looping: bool,
    #[command(flatten)]
    pub decode: crate::decode_arg::DecodeArg,
    #[command(flatten)]
    pub display: DisplayArgs,
}

/// `vqscope [-r REF -d DIS]`: how the dashboard window shows them (not
/// part of [`OpenArgs`], which the headless `bench playback` shares).
#[derive(clap::Args)]
pub struct WindowArgs {
    /// HDR10 output: auto (when the inputs are HDR, PQ or HLG, and the display offers HDR10:
    /// their light as graded, the UI's white at 203 nits), on (whenever the display offers it),
    /// off (always SDR, HDR tone-mapped to --peak-nits).
    #[arg(long, value_enum, default_value_t = HdrOutputArg::Auto, value_name = "WHEN")]
    pub hdr_output: HdrOutputArg,
    /// Say on stderr what the window does: SDR or HDR10 output, and why.
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

/// `--hdr-output`'s values.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum HdrOutputArg {
    Auto,
    On,
    Off,
}

impl From<HdrOutputArg> for HdrOutput {
    fn from(arg: HdrOutputArg) -> Self {
        match arg {
            HdrOutputArg::Auto => HdrOutput::Auto,
            HdrOutputArg::On => HdrOutput::On,
            HdrOutputArg::Off => HdrOutput::Off,
        }
    }
}

/// How HDR and wide-gamut inputs are shown in an SDR window.
#[derive(clap::Args, Debug, Clone)]
pub struct DisplayArgs {
    /// The inputs' transfer when their tags are missing or wrong: auto (the tags; untagged
    /// is SDR), sdr, pq (HDR10, SMPTE ST 2084) or hlg. ffmpeg's y4m output carries no tag;
    /// vqscope reads `XCOLORTRC=smpte2084|arib-std-b67` in a y4m header.
    #[arg(long, default_value = "auto", value_parser = ["auto", "sdr", "pq", "hlg"])]
    pub transfer: String,
    /// Peak luminance of your display in nits: HDR inputs are tone-mapped so that this is
    /// the window's white (80-10000; 203 is BT.2408's HDR reference white). An HDR10 window
    /// (--hdr-output) is not tone-mapped: the display maps what it cannot show.
    #[arg(
        long,
        value_name = "NITS",
        default_value_t = vqscope_renderer::color::DEFAULT_PEAK_NITS,
        value_parser = clap::value_parser!(u16).range(80..=10000)
    )]
    pub peak_nits: u16,
}

impl DisplayArgs {
    /// The transfer to show the inputs with instead of their tags', if any.
    pub fn transfer(&self) -> Option<vqscope_video::Transfer> {
        match self.transfer.as_str() {
            "auto" => None,
            name => vqscope_video::Transfer::from_name(name),
        }
    }
}

impl OpenArgs {
    /// The inputs named, or the demo when none are.
    pub fn inputs(&self) -> Result<Inputs> {
        self.decode.apply()?;
        let raw = self.raw.geometry()?;
        let inputs = match (&self.reference, &self.distorted) {
            (Some(r), Some(d)) => Inputs::files(r.clone(), d.clone(), raw)?,
            (None, None) if raw.is_none() => Inputs::demo(),
            _ => bail!("give both -r REF and -d DIS (or neither, for the demo)"),
        };
        Ok(Inputs {
            transfer: self.display.transfer(),
            peak_nits: self.display.peak_nits,
            ..inputs
        })
    }
}

/// The model the dashboard predicts VMAF with unless told otherwise.
pub const MODEL: &str = scores::MODEL;

/// The models `V` cycles through: the one asked for (if not built in),
/// then every built-in model, each as its `--model` string; the float
/// models (the same models on libvmaf's float features) come last.
fn model_choices(asked: Option<&str>) -> Vec<String> {
    let mut choices: Vec<String> = asked.map(str::to_owned).into_iter().collect();
    let names = || vqscope_metrics::model::builtin_names();
    let is_float = |n: &&str| n.starts_with("vmaf_float");
    for name in names().filter(|n| !is_float(n)).chain(names().filter(is_float)) {
        let spec = format!("version={name}");
        if !choices.contains(&spec) {
            choices.push(spec);
        }
    }
    choices
}

/// Size of the window when it opens.
const WINDOW: (u32, u32) = (1280, 720);

/// `vqscope` with or without inputs: the window, or with no display the
/// dashboard rendered to a PNG and the scores to a JSON report.
pub fn run(args: OpenArgs, window_args: WindowArgs) -> Result<()> {
    let inputs = args.inputs()?;
    let models = model_choices(args.model.as_deref());
    let features: Arc<[String]> = args.features.into();
    // A bad --model or --feature is a one-line error now, not a notice later.
    scores::selection(&Model::from_spec(&models[0])?, &features)?;
    if !vqscope_renderer::present::display_available() {
        let what = if inputs.is_demo() { "the demo dashboard" } else { "the dashboard" };
        eprintln!(
            "vqscope: no display (neither DISPLAY nor WAYLAND_DISPLAY is set): rendering {what} \
             to a PNG instead"
        );
        return headless(Path::new(""), &inputs, &models[0], &features);
    }
    window(inputs, models, features, args.looping, window_args)
}

/// A frame the headless path renders.
#[derive(Debug, Clone)]
pub struct Shot {
    pub frame: u64,
    pub mode: ViewMode,
    pub size: (u32, u32),
    /// Magnification (screen pixels per sample), centred; None: fit.
    pub zoom: Option<f32>,
    /// A cursor position, to show hover feedback.
    pub cursor: Option<[f32; 2]>,
    /// Display offsets `(reference, distorted)` in frames (see
    /// [`State::ref_offset`]).
    pub offsets: (i64, i64),
    /// The help overlay (`?` in the window) on top.
    pub help: bool,
    /// The plot's second series by its report name (`P` in the window);
    /// None: the first of [`History::plottable`].
    pub series: Option<String>,
}

/// A clip scored to the end, ready to render any frame of.
pub struct Scored {
    pub inputs: Inputs,
    /// The model's `--model` string.
    pub model: String,
    pub clip: ClipInfo,
    pub history: History,
    /// Frames per second the scoring ran at (for the report).
    pub fps: f64,
}

/// Scores the whole clip (the headless path waits for it).
pub fn score_clip(inputs: &Inputs, model: &str, features: &Arc<[String]>) -> Result<Scored> {
    let scorer_model = Model::from_spec(model)?;
    let pair = inputs.open()?;
    let clip = ClipInfo::of(&pair);
    for w in pair.warnings() {
        eprintln!("vqscope: warning: {w}");
    }
    drop(pair);
    let start = Instant::now();
    let mut history = History::default();
    Scorer::spawn(inputs.clone(), scorer_model, features.clone())?.wait(&mut history)?;
    let fps = history.frames.len() as f64 / start.elapsed().as_secs_f64().max(1e-9);
    Ok(Scored { inputs: inputs.clone(), model: model.to_owned(), clip, history, fps })
}

/// Renders `shot` of a scored clip exactly as the window would show it:
/// RGBA pixels, `shot.size`.
pub fn render_shot(scored: &Scored, shot: &Shot) -> Result<Vec<u8>> {
    let Scored { inputs, clip, history, .. } = scored;
    let count = clip.frame_count.unwrap_or(history.frames.len() as u64);
    if shot.frame >= count {
        bail!(
            "--frame {}: the clip has {count} frames (0..={})",
            shot.frame,
            count.saturating_sub(1)
        );
    }
    let g = clip.reference.geometry;
    let mut state =
        State::new(shot.size, (g.width, g.height), count, clip.reference.frame_rate.as_f64());
    state.peak_nits = inputs.peak_nits;
    state.set_mode(shot.mode);
    state.seek(shot.frame);
    if let Some(zoom) = shot.zoom {
        state.zoom_to(zoom);
    }
    if let Some([x, y]) = shot.cursor {
        state.apply(Input::CursorMoved { x, y });
    }
    state.worst = history.worst(layout::WORST_ROWS).into_iter().map(|(f, _)| f).collect();
    state.ref_offset = shot.offsets.0;
    state.dis_offset = shot.offsets.1;
    state.help = shot.help;
    if let Some(key) = &shot.series {
        let keys = history.plottable();
        state.series = keys.iter().position(|k| k == key).ok_or_else(|| {
            anyhow::anyhow!("--series {key}: not among the computed values ({})", keys.join(", "))
        })?;
    }
    let (r, d) = state.shown_frames();
    let (reference, distorted) = inputs.read_sides(r, d)?;
    let mut pictures = Pictures::new(Arc::new(FramePair { index: r, reference, distorted }));
    if state.mode == ViewMode::Diff {
        pictures.ensure_difference();
    }
    let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env())?;
    let mut submitter = Submitter::new(&ctx, 1)?;
    let mut uploader = pictures::display_uploader(&ctx, pictures.frame(false), 0)?;
    // The same recording as the window's: the upload, then in a heat-map
    // view the kernel on the uploaded planes, before the render.
    let mut mapper = HeatMapper::for_mode(state.mode, &ctx, g);
    submitter.run(|rec| {
        pictures.upload(&mut uploader, rec)?;
        if let Some(Ok(m)) = &mut mapper {
            m.record(rec, &pictures, &uploader)
                .map_err(|e| vqscope_gpu::GpuError::Usage(format!("heat map: {}", one_line(&e))))?;
        }
        Ok(())
    })?;
    let map_info = mapper.as_ref().map(|m| m.as_ref().map(HeatMapper::info).map_err(one_line));
    let scene = view::build(&view::ViewInputs {
        state: &state,
        clip,
        model: vqscope_metrics::frontend::model_label(&scored.model),
        pictures: Some(&pictures),
        history,
        error: None,
        map: map_info,
    });
    let mut renderer = Renderer::new(&ctx, ScanMode::for_device(&ctx), None)?;
    let map = mapper.as_ref().and_then(|m| m.as_ref().ok()).map(HeatMapper::map_buffer);
    let buffers = external_buffers(map, frames_buffer(Some(&pictures), Some(&uploader)));
    Ok(renderer.render_to_rgba_with_maps(&mut submitter, &scene, &buffers)?)
}

/// The renderer's external buffers: slot 0 the heat map (when shown),
/// [`pictures::FRAMES_SLOT`] the uploaded frames. An unused slot is bound
/// to the other buffer, since the shader's layout wants one in each.
fn external_buffers<'a>(
    map: Option<&'a vqscope_gpu::Buffer>,
    frames: Option<&'a vqscope_gpu::Buffer>,
) -> Vec<&'a vqscope_gpu::Buffer> {
    match (map, frames) {
        (Some(m), Some(f)) => vec![m, f],
        (Some(m), None) => vec![m],
        (None, Some(f)) => vec![f, f],
        (None, None) => Vec::new(),
    }
}

/// The frames buffer of the shown pictures, once uploaded.
fn frames_buffer<'a>(
    pictures: Option<&Pictures>,
    uploader: Option<&'a FrameUploader>,
) -> Option<&'a vqscope_gpu::Buffer> {
    let (p, u) = pictures.zip(uploader)?;
    p.device(u).map(|(buffer, _)| buffer)
}

/// An error and its causes on one line, as the header shows it.
fn one_line(e: &anyhow::Error) -> String {
    e.chain().map(|c| c.to_string()).collect::<Vec<_>>().join(": ")
}

/// The first `stem.ext` / `stem-N.ext` pair of names in `dir` where neither
/// file exists, so nothing the user has is overwritten.
fn free_names(dir: &Path, stem: &str, exts: &[&str]) -> Vec<PathBuf> {
    (0u32..)
        .map(|n| {
            let base = if n == 0 { stem.to_string() } else { format!("{stem}-{n}") };
            exts.iter().map(|e| dir.join(format!("{base}.{e}"))).collect::<Vec<_>>()
        })
        .find(|paths| paths.iter().all(|p| !p.exists()))
        .unwrap_or_default()
}

/// `path` from the root, so the header's message says where a file went
/// whatever folder vqscope was started from.
fn full_path(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Writes the scores as a libvmaf-style JSON report.
fn write_report(path: &Path, history: &History, clip: &ClipInfo, fps: f64) -> Result<()> {
    let g = clip.reference.geometry;
    let report = vqscope_metrics::vmaf::report(
        vqscope_metrics::frontend::REPORT_VERSION,
        &history.frames,
        fps,
        (g.width, g.height),
        1,
        Vec::new(),
    );
    let mut file = std::fs::File::create(path).with_context(|| format!("{}", path.display()))?;
    report.write(Format::Json, &mut file).with_context(|| format!("{}", path.display()))?;
    Ok(())
}

/// No display: the dashboard at the clip's worst frame rendered to
/// `vqscope-demo.png` (the demo) or `vqscope-dashboard.png` (inputs), its
/// scores to the `.json` of the same name (or the next free `-N` names, so
/// nothing is overwritten) in `dir`.
pub fn headless(dir: &Path, inputs: &Inputs, model: &str, features: &Arc<[String]>) -> Result<()> {
    let scored = score_clip(inputs, model, features)?;
    // The worst frame says more than the first.
    let frame = scored.history.worst(1).first().map_or(0, |(f, _)| *f);
    let shot = Shot {
        frame,
        mode: ViewMode::Side,
        size: WINDOW,
        zoom: None,
        cursor: None,
        offsets: (0, 0),
        help: false,
        series: None,
    };
    let rgba = render_shot(&scored, &shot)?;
    let stem = if inputs.is_demo() { "vqscope-demo" } else { "vqscope-dashboard" };
    let names = free_names(dir, stem, &["png", "json"]);
    let [png, json] = names.as_slice() else { bail!("no free file name for {stem}.png") };
    capture::save_png(png, WINDOW.0, WINDOW.1, &rgba)?;
    write_report(json, &scored.history, &scored.clip, scored.fps)?;
    eprintln!("vqscope: wrote {} and {} (frame {frame}, the worst)", png.display(), json.display());
    Ok(())
}

/// winit's input as the state machine's, appended to `out`.
fn translate(event: &InputEvent, out: &mut Vec<Input>) {
    match event {
        InputEvent::Key(k) if k.state.is_pressed() => {
            let key = match &k.logical_key {
                WinitKey::Named(NamedKey::Space) => Key::Space,
                WinitKey::Named(NamedKey::ArrowLeft) => Key::Left,
                WinitKey::Named(NamedKey::ArrowRight) => Key::Right,
                WinitKey::Named(NamedKey::Home) => Key::Home,
                WinitKey::Named(NamedKey::End) => Key::End,
                WinitKey::Named(NamedKey::Escape) => Key::Escape,
                WinitKey::Character(s) => match s.chars().next() {
                    Some(c) => Key::Char(c),
                    None => return,
                },
                _ => return,
            };
            out.push(Input::Key(key));
        }
        InputEvent::Modifiers(m) => out.push(Input::Shift(m.shift_key())),
        InputEvent::CursorMoved { x, y } => {
            out.push(Input::CursorMoved { x: *x as f32, y: *y as f32 })
        }
        InputEvent::CursorLeft => out.push(Input::CursorLeft),
        InputEvent::MouseButton { button: MouseButton::Left, pressed } => {
            out.push(if *pressed { Input::Press } else { Input::Release })
        }
        InputEvent::Scroll { y, .. } => out.push(Input::Scroll(*y)),
        _ => {}
    }
}

/// What the window shows and scores: the inputs, and everything opened
/// from them. Replacing a side rebuilds all of it, so nothing can mix
/// frames or scores of the old input with the new one.
struct Session {
    inputs: Inputs,
    /// The `--model` strings `V` cycles through, and the one in use.
    models: Vec<String>,
    model: usize,
    /// The `--feature` specs, scored with every model.
    features: Arc<[String]>,
    clip: ClipInfo,
    scorer: Scorer,
    feed: FrameFeed,
    history: History,
    /// When scoring (re)started, for the report's frame rate.
    started: Instant,
}

impl Session {
    fn open(
        inputs: Inputs,
        models: Vec<String>,
        model: usize,
        features: Arc<[String]>,
    ) -> Result<Self> {
        let pair = inputs.open()?;
        let clip = ClipInfo::of(&pair);
        for w in pair.warnings() {
            eprintln!("vqscope: warning: {w}");
        }
        let scorer =
            Scorer::spawn(inputs.clone(), Model::from_spec(&models[model])?, features.clone())?;
        let feed = FrameFeed::new(pair)?;
        let history = History::default();
        let started = Instant::now();
        Ok(Session { inputs, models, model, features, clip, scorer, feed, history, started })
    }

    /// Reopens `side` from `path`, which must match the other side (size,
    /// chroma format, bit depth); on success scoring starts over. On
    /// failure nothing changes and the error comes back as one line.
    fn replace(&mut self, side: InputSide, path: PathBuf) -> Result<(), String> {
        let inputs = self.inputs.replaced(side, path);
        *self = Session::open(inputs, self.models.clone(), self.model, self.features.clone())
            .map_err(|e| one_line(&e))?;
        Ok(())
    }

    /// Scores again with the next model of the list (the shown frames stay).
    fn next_model(&mut self) -> Result<(), String> {
        let next = (self.model + 1) % self.models.len();
        let model = Model::from_spec(&self.models[next]).map_err(|e| e.to_string())?;
        self.scorer = Scorer::spawn(self.inputs.clone(), model, self.features.clone())
            .map_err(|e| one_line(&e))?;
        self.history = History::default();
        self.model = next;
        self.started = Instant::now();
        Ok(())
    }

    /// The model in use, as `--model` names it.
    fn model_label(&self) -> &str {
        vqscope_metrics::frontend::model_label(&self.models[self.model])
    }

    /// Takes the scores that have arrived; the worst-frames list (and the
    /// frame count of an input that could not tell it) follow them.
    fn poll_scores(&mut self, state: &mut State) {
        let Session { clip, scorer, history, .. } = self;
        if scorer.poll(history) {
            state.worst = history.worst(layout::WORST_ROWS).into_iter().map(|(f, _)| f).collect();
            if clip.frame_count.is_none() {
                state.set_frame_count(history.frames.len() as u64);
            }
        }
    }

    /// Replaces `pictures` with the frames `state` wants shown once the
    /// feed has them (until then the previous ones stay up), and computes
    /// the difference picture when that view is on.
    fn refresh_pictures(&mut self, state: &State, pictures: &mut Option<Pictures>) {
        let shown = state.shown_frames();
        if pictures.as_ref().is_none_or(|p| p.shown != shown)
            && let Some(p) = fetch(&mut self.feed, shown)
        {
            *pictures = Some(p);
        }
        if state.mode == ViewMode::Diff
            && let Some(p) = pictures
        {
            p.ensure_difference();
        }
    }

    fn title(&self) -> String {
        format!(
            "vqscope — {} vs {}",
            self.clip.reference.path.display(),
            self.clip.distorted.path.display()
        )
    }
}

/// The pictures of `shown` (reference, distorted frame) if the feed has
/// both pairs they come from; None while they decode.
fn fetch(feed: &mut FrameFeed, shown: (u64, u64)) -> Option<Pictures> {
    let (r, d) = shown;
    feed.show(r, d);
    let first = feed.get(r)?;
    if r == d {
        return Some(Pictures::new(first));
    }
    let second = feed.get(d)?;
    Some(Pictures::from_pairs(first, second))
}

/// Per-frame buffers a submission reads, kept until its slot comes round
/// again (the presenter has then waited for that frame).
#[derive(Default)]
struct InFlight {
    scene: Option<SceneBuffers>,
}

/// `S` in the window: the view rendered once more, offscreen, and read
/// back. It runs in a submission of its own before the frame's, so it
/// cannot use what the frame's command buffer uploads: it uploads the shown
/// frames again, into its own ring (the layout is the same, so the scene
/// built for the window draws them), and the SSIM map shows as of the last
/// submitted frame.
struct Capturer {
    ctx: Arc<GpuContext>,
    renderer: Renderer,
    submitter: Submitter,
    uploader: Option<FrameUploader>,
}

impl Capturer {
    fn new(ctx: &Arc<GpuContext>) -> Result<Self> {
        Ok(Capturer {
            ctx: ctx.clone(),
            renderer: Renderer::new(ctx, ScanMode::for_device(ctx), None)?,
            submitter: Submitter::new(ctx, 1)?,
            uploader: None,
        })
    }

    fn render(
        &mut self,
        scene: &vqscope_renderer::Scene,
        map: Option<&vqscope_gpu::Buffer>,
        pictures: Option<&Pictures>,
    ) -> Result<Vec<u8>> {
        let mut frames = None;
        if let Some(p) = pictures {
            let up = match &mut self.uploader {
                Some(u) => u,
                None => {
                    self.uploader.insert(pictures::display_uploader(&self.ctx, p.frame(false), 0)?)
                }
            };
            let mut again = p.detached();
            self.submitter.run(|rec| again.upload(up, rec))?;
            frames = again.device(up).map(|(buffer, _)| buffer);
        }
        let buffers = external_buffers(map, frames);
        Ok(self.renderer.render_to_rgba_with_maps(&mut self.submitter, scene, &buffers)?)
    }
}

/// The dashboard window on `inputs`.
fn window(
    inputs: Inputs,
    models: Vec<String>,
    features: Arc<[String]>,
    looping: bool,
    args: WindowArgs,
) -> Result<()> {
    let mut session = Session::open(inputs, models, 0, features)?;
    let g = session.clip.reference.geometry;
    let fps = session.clip.reference.frame_rate.as_f64();
    let mut state =
        State::new(WINDOW, (g.width, g.height), session.clip.frame_count.unwrap_or(1), fps);
    state.peak_nits = session.inputs.peak_nits;
    state.looping = looping;
    let mut pictures: Option<Pictures> = None;
    let mut renderer: Option<Renderer> = None;
    // The shown frames' upload ring, made for the clip's geometry with the
    // first pictures (a dropped file must match the other side, so the
    // geometry never changes).
    let mut uploader: Option<FrameUploader> = None;
    let mut capturer: Option<Capturer> = None;
    // Created when a heat-map view is shown and remade when another one
    // is (None: not yet; an error: the clip cannot be scored for that
    // feature, e.g. too small for SSIM, 4:0:0 for ΔE).
    let mut mapper: Option<(ViewMode, Result<HeatMapper, String>)> = None;
    let mut in_flight: Vec<InFlight> = Vec::new();
    let mut last = Instant::now();
    let mut inputs_now = Vec::new();
    let mut options = WindowOptions::new(&session.title(), WINDOW);
    options.present.hdr = args.hdr_output.into();
    options.present.hdr_content = session.clip.is_hdr();
    let frames_in_flight = options.present.frames_in_flight.max(1);
    run_window(options, |frame, rec, image| -> Result<()> {
        if let (choice, true) = frame.output_choice()
            && (args.verbose || choice.refused)
        {
            eprintln!("vqscope: {}", choice.reason);
        }
        let (w, h) = frame.size();
        if (state.layout.width, state.layout.height) != (w as f32, h as f32) {
            state.apply(Input::Resized { width: w, height: h });
        }
        // Frames are drawn on demand: time spent idle is not playback time.
        let was_playing = state.playing;
        for e in frame.events() {
            if let InputEvent::DroppedFile(path) = e {
                state.file_dropped(path.clone());
                continue;
            }
            inputs_now.clear();
            translate(e, &mut inputs_now);
            for input in inputs_now.drain(..) {
                state.apply(input);
            }
        }
        let now = Instant::now();
        if !was_playing {
            // Paused, the clip stays put but a message still times out.
            state.age_message((now - last).as_secs_f64());
        }
        state.apply(Input::Tick(if was_playing { (now - last).as_secs_f64() } else { 0.0 }));
        last = now;
        if state.quit {
            frame.exit();
        }
        if let Some((side, path)) = state.requests.replace.take() {
            match session.replace(side, path) {
                Ok(()) => {
                    frame.window().set_title(&session.title());
                    state.set_frame_count(session.clip.frame_count.unwrap_or(1));
                    state.worst.clear();
                    pictures = None;
                    if let Some((_, Ok(m))) = &mut mapper {
                        m.forget();
                    }
                }
                Err(e) => state.notice = Some(format!("dropped file not used: {e}")),
            }
        }
        // A dropped file may bring HDR in or take it away.
        frame.set_hdr_content(session.clip.is_hdr());
        if std::mem::take(&mut state.requests.next_model) {
            match session.next_model() {
                Ok(()) => state.worst.clear(),
                Err(e) => state.notice = Some(format!("model not used: {e}")),
            }
        }
        session.poll_scores(&mut state);
        session.refresh_pictures(&state, &mut pictures);
        if let Some(p) = &mut pictures {
            let up = match &mut uploader {
                Some(u) => u,
                None => uploader.insert(pictures::display_uploader(
                    frame.gpu(),
                    p.frame(false),
                    frames_in_flight,
                )?),
            };
            p.upload(up, rec)?;
        }
        let model = session.model_label().to_owned();
        let Session { clip, feed, history, started, .. } = &mut session;
        let slot = (frame.index() as usize) % frames_in_flight;
        in_flight.resize_with(frames_in_flight, InFlight::default);
        in_flight[slot] = InFlight::default();
        if mapper.as_ref().is_some_and(|(mode, _)| *mode != state.mode) {
            mapper = None;
        }
        if mapper.is_none()
            && let Some(m) = HeatMapper::for_mode(state.mode, frame.gpu(), clip.reference.geometry)
        {
            mapper = Some((state.mode, m.map_err(|e| one_line(&e))));
        }
        let map_info = match &mut mapper {
            Some((_, Ok(m))) => match (&pictures, &uploader) {
                (Some(p), Some(up)) if m.shown() != Some(p.shown) => {
                    m.record(rec, p, up)?;
                    Some(Ok(m.info()))
                }
                (Some(_), _) => Some(Ok(m.info())),
                _ => None,
            },
            Some((_, Err(e))) => Some(Err(e.clone())),
            None => None,
        };
        let error = feed.error.as_deref().or(history.error.as_deref());
        let scene = view::build(&view::ViewInputs {
            state: &state,
            clip,
            model: &model,
            pictures: pictures.as_ref(),
            history,
            error,
            map: map_info,
        });
        let map = match &mapper {
            Some((_, Ok(m))) => Some(m.map_buffer()),
            _ => None,
        };
        let maps = external_buffers(map, frames_buffer(pictures.as_ref(), uploader.as_ref()));
        let requests = std::mem::take(&mut state.requests);
        if requests.save_png {
            let c = match &mut capturer {
                Some(c) => c,
                None => capturer.insert(Capturer::new(frame.gpu())?),
            };
            let rgba = c.render(&scene, map, pictures.as_ref())?;
            let [png] =
                free_names(Path::new(""), "vqscope-view", &["png"]).try_into().unwrap_or_default();
            capture::save_png(&png, w, h, &rgba)?;
            let said = format!("wrote {}", full_path(&png).display());
            eprintln!("vqscope: {said}");
            state.inform(said);
        }
        if requests.export {
            let [json] = free_names(Path::new(""), "vqscope-report", &["json"])
                .try_into()
                .unwrap_or_default();
            let elapsed = started.elapsed().as_secs_f64().max(1e-9);
            let fps = history.frames.len() as f64 / elapsed;
            write_report(&json, history, clip, fps)?;
            let said = format!(
                "wrote {} ({} frames scored)",
                full_path(&json).display(),
                history.frames.len()
            );
            eprintln!("vqscope: {said}");
            state.inform(said);
        }
        let renderer = match &mut renderer {
            Some(r) => r,
            None => renderer.insert(Renderer::new(
                frame.gpu(),
                ScanMode::for_device(frame.gpu()),
                None,
            )?),
        };
        renderer.set_output(frame.output())?;
        let encoded = renderer.encode(&scene)?;
        let buffers = renderer.upload(&encoded)?;
        buffers.record_upload(rec);
        renderer.record_with_maps(rec, &buffers, Binding::Image(image), &maps)?;
        in_flight[slot].scene = Some(buffers);
        // The next frame: at once while playing, soon while the shown frames
        // decode or scores arrive (other threads' work); otherwise on input.
        let decoding = feed.error.is_none()
            && pictures.as_ref().is_none_or(|p| p.shown != state.shown_frames());
        if state.playing {
            frame.request_redraw();
        } else if decoding {
            frame.redraw_after(FEED_POLL);
        } else if !history.done && history.error.is_none() {
            frame.redraw_after(SCORES_POLL);
        } else if state.message.is_some() {
            // Shown now, and taken down once it has timed out.
            frame.redraw_after(MESSAGE_POLL);
        }
        Ok(())
    })
}

/// How often the window looks again while a message is up.
const MESSAGE_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// How soon the window looks again for frames being decoded.
const FEED_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// How often the window redraws while scores arrive and nothing else
/// changes: the plot fills in smoothly, and rendering leaves the scoring
/// thread most of the CPU.
const SCORES_POLL: std::time::Duration = std::time::Duration::from_millis(100);

#[cfg(test)]
mod tests {
    use super::source::Source;
    use super::*;
    use vqscope_tests::clips::{distorted_y4m, reference_y4m};

    const ROCKET: &str = "rocket_576x324_420p8_x264crf35";

    /// Drag and drop without a window: a distorted file of another format is
    /// conformed to the reference by ffmpeg (and says so); a reference the
    /// demo's distorted side cannot follow is refused in one line and
    /// changes nothing; a matching file replaces its side and scoring starts
    /// over on the new pair.
    #[test]
    fn dropped_files_are_checked_then_replace_their_side_and_rescore() {
        let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
        let models = model_choices(None);
        let inputs = Inputs::files(r.clone(), d.clone(), None).unwrap();
        let mut session = Session::open(inputs, models, 0, Arc::from([])).unwrap();
        let retina = distorted_y4m("retina_576x324_420p10_x264crf35");
        session.replace(InputSide::Distorted, retina).unwrap();
        assert_eq!(session.clip.distorted.scaled_from, Some((576, 324)));
        assert!(session.clip.distorted.description.contains("yuv420p10"));
        session.replace(InputSide::Distorted, d.clone()).unwrap();
        assert_eq!(session.inputs, Inputs::files(r.clone(), d.clone(), None).unwrap());

        // The distorted file on the reference side: the pair is the encode
        // against itself, which must score (near) perfectly once rescored.
        session.replace(InputSide::Reference, d.clone()).unwrap();
        assert_eq!(session.inputs.reference, Source::File(d.clone()));
        assert!(session.title().contains("dis.y4m vs"), "{}", session.title());
        let deadline = Instant::now() + std::time::Duration::from_secs(120);
        while !session.history.done && session.history.error.is_none() {
            assert!(Instant::now() < deadline, "rescoring did not finish");
            session.scorer.poll(&mut session.history);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(session.history.error, None);
        assert_eq!(session.history.frames.len(), 12);
        let psnr = session.history.series("psnr_y");
        assert!(psnr.iter().all(|(_, v)| *v >= 60.0), "identical sides: {psnr:?}");
    }

    /// `V` rescoring with the next model: from vmaf_v0.6.1 to the bootstrap
    /// model, whose confidence interval the plot draws, then back round.
    #[test]
    fn the_next_model_rescores_with_its_outputs() {
        let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
        let models = model_choices(Some("version=vmaf_v0.6.1"));
        assert_eq!(models[1], "version=vmaf_b_v0.6.3", "{models:?}");
        let mut session =
            Session::open(Inputs::files(r, d, None).unwrap(), models, 0, Arc::from([])).unwrap();
        session.next_model().unwrap();
        assert_eq!(session.model_label(), "vmaf_b_v0.6.3");
        let deadline = Instant::now() + std::time::Duration::from_secs(120);
        while !session.history.done && session.history.error.is_none() {
            assert!(Instant::now() < deadline, "rescoring did not finish");
            session.scorer.poll(&mut session.history);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(session.history.error, None);
        let (lo, hi) =
            (session.history.series("vmaf_ci_p95_lo"), session.history.series("vmaf_ci_p95_hi"));
        assert_eq!((lo.len(), hi.len()), (12, 12));
        assert!(lo.iter().zip(&hi).all(|(l, h)| l.1 < h.1), "{lo:?} {hi:?}");
        for _ in 0..session.models.len() - 1 {
            session.next_model().unwrap();
        }
        assert_eq!(session.model_label(), "vmaf_v0.6.1", "round the list");
    }

    /// The demo's sides are not files, yet a file dropped on one is still
    /// checked against the other (the demo is 480x272, rocket is not; the
    /// generated distorted side cannot be scaled to it).
    #[test]
    fn a_file_dropped_on_the_demo_is_checked_against_the_other_side() {
        let inputs = Inputs::demo().replaced(InputSide::Reference, reference_y4m(ROCKET));
        assert!(!inputs.is_demo());
        let err = one_line(&inputs.open().err().expect("sizes differ"));
        assert!(err.contains("differ in size"), "{err}");
    }
}
