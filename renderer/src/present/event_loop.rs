//! [`run_window`]: the winit event loop around a [`Presenter`]. It opens the
//! window (X11, or Wayland where `WAYLAND_DISPLAY` is set), creates the
//! context with the surface's instance extensions, and calls the app's
//! closure for each frame with the input that arrived since the last one.
//!
//! Frames are drawn on demand, so an idle window costs no CPU: the loop
//! sleeps in [`ControlFlow::Wait`] and draws when input arrives, when the
//! window system asks (expose, resize, un-occlude), or when the previous
//! frame asked for another ([`Frame::request_redraw`] at once, for
//! playback and animation; [`Frame::redraw_after`] later, for polling
//! progress made on other threads).

use std::sync::Arc;
use std::time::{Duration, Instant};

use vqscope_gpu::{ContextOptions, GpuContext, Image, Recorder};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use super::input::InputEvent;
use super::{
    FrameStatus, OutputChoice, PresentError, PresentOptions, Presenter, Result, window_context,
};
use crate::fused::Output;

/// What the app's per-frame closure gets besides the recorder and image.
pub struct Frame<'a> {
    events: &'a [InputEvent],
    index: u64,
    size: (u32, u32),
    window: &'a Window,
    ctx: &'a Arc<GpuContext>,
    choice: &'a OutputChoice,
    choice_is_new: bool,
    next: &'a mut NextFrame,
}

/// What a frame asked of the loop.
#[derive(Debug, Default)]
struct NextFrame {
    exit: bool,
    /// Draw again as soon as this frame is shown.
    now: bool,
    /// Draw again at this time, unless something else draws first.
    at: Option<Instant>,
    /// Whether the pictures are HDR now, if the frame said.
    hdr_content: Option<bool>,
}

impl Frame<'_> {
    /// Input since the previous drawn frame.
    pub fn events(&self) -> &[InputEvent] {
        self.events
    }

    /// This frame's number, from 0; see [`PresentOptions::frames_in_flight`].
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Size of the offscreen image being drawn, in pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// What the offscreen image is for: draw with a renderer set to it
    /// ([`crate::Renderer::set_output`]).
    pub fn output(&self) -> Output {
        self.choice.output
    }

    /// SDR or HDR10 and why, and whether that is new since the last frame
    /// drawn (true on the first): for `-v`, and for the one line
    /// [`OutputChoice::refused`] deserves.
    pub fn output_choice(&self) -> (&OutputChoice, bool) {
        (self.choice, self.choice_is_new)
    }

    /// Whether the pictures shown are HDR (PQ or HLG); see
    /// [`Presenter::set_hdr_content`]. A change applies from the next frame,
    /// which is drawn at once.
    pub fn set_hdr_content(&mut self, hdr: bool) {
        self.next.hdr_content = Some(hdr);
    }

    /// The window, to set its title, cursor or size.
    pub fn window(&self) -> &Window {
        self.window
    }

    /// The context, to create pipelines and buffers (lazily, on frame 0).
    pub fn gpu(&self) -> &Arc<GpuContext> {
        self.ctx
    }

    /// Closes the window after this frame is shown; [`run_window`] returns.
    pub fn exit(&mut self) {
        self.next.exit = true;
    }

    /// Draws the next frame as soon as this one is shown (paced by the
    /// present mode): for playback and animation. Without this or
    /// [`Frame::redraw_after`], the next frame waits for input.
    pub fn request_redraw(&mut self) {
        self.next.now = true;
    }

    /// Draws the next frame `delay` from now at the latest (input may draw
    /// one sooner): for polling work that other threads make progress on.
    pub fn redraw_after(&mut self, delay: Duration) {
        let at = Instant::now() + delay;
        self.next.at = Some(self.next.at.map_or(at, |t| t.min(at)));
    }
}

/// How [`run_window`] opens its window.
#[derive(Debug, Clone)]
pub struct WindowOptions {
    pub title: String,
    /// Initial inner size in physical pixels.
    pub size: (u32, u32),
    pub resizable: bool,
    pub present: PresentOptions,
    /// Validation and device choice; the window extensions are added.
    pub context: ContextOptions,
}

impl WindowOptions {
    /// A resizable, vsynced window; context options from the environment.
    pub fn new(title: &str, size: (u32, u32)) -> Self {
        Self {
            title: title.to_owned(),
            size,
            resizable: true,
            present: PresentOptions::default(),
            context: ContextOptions::from_env(),
        }
    }
}

/// Opens a window and calls `draw` for each frame until the window is
/// closed or the closure calls [`Frame::exit`]. `draw` records its work into
/// the offscreen image (GENERAL layout, [`Frame::output`]'s format), which
/// is then shown. The first frame is drawn at once; later ones on input, on
/// the window system's request, or when a frame asked for one (see the
/// module doc); none are drawn while the window is minimised.
///
/// Returns the first error: [`PresentError::NoDisplay`] without a display
/// server, and the closure's own errors as they are. Only one event loop may
/// exist per process (winit's rule), so call this once.
pub fn run_window<E>(
    options: WindowOptions,
    draw: impl FnMut(&mut Frame<'_>, &mut Recorder<'_>, &Image) -> Result<(), E>,
) -> Result<(), E>
where
    E: From<PresentError>,
{
    check_display().map_err(E::from)?;
    let mut builder = EventLoop::builder();
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        // Tests and tools open windows off the main thread; neither X11 nor
        // Wayland cares (one flag serves both backends).
        use winit::platform::x11::EventLoopBuilderExtX11;
        builder.with_any_thread(true);
    }
    let event_loop = builder.build().map_err(|e| {
        E::from(PresentError::NoDisplay(format!(
            "cannot open the window ({}): {}",
            display_variables(),
            without_source_location(&e.to_string())
        )))
    })?;
    event_loop.set_control_flow(ControlFlow::Wait);
    let mut app = Runner {
        options,
        draw,
        state: None,
        events: Vec::new(),
        error: None,
        next: NextFrame::default(),
        visible: true,
    };
    let ran = event_loop.run_app(&mut app);
    // Tear the presenter down before the window system connection goes.
    app.state = None;
    if let Some(e) = app.error {
        return Err(e);
    }
    ran.map_err(|e| E::from(PresentError::Window(format!("event loop: {e}"))))
}

/// Whether a display server is named (`DISPLAY` for X11 or
/// `WAYLAND_DISPLAY` for Wayland): [`run_window`] can then try to open a
/// window; without either it fails with [`PresentError::NoDisplay`].
pub fn display_available() -> bool {
    if cfg!(all(unix, not(target_os = "macos"))) {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        set("DISPLAY") || set("WAYLAND_DISPLAY")
    } else {
        true
    }
}

/// A clear error before winit tries: it would say much the same, but not
/// what to do about it.
fn check_display() -> Result<()> {
    if display_available() {
        return Ok(());
    }
    Err(PresentError::NoDisplay(
        "neither DISPLAY nor WAYLAND_DISPLAY is set; use the headless commands, or start a \
         virtual display (Xvfb :99 & export DISPLAY=:99)"
            .into(),
    ))
}

/// `DISPLAY=…` and `WAYLAND_DISPLAY=…`, those that are set, for error
/// messages.
fn display_variables() -> String {
    let set: Vec<String> = ["DISPLAY", "WAYLAND_DISPLAY"]
        .into_iter()
        .filter_map(|name| Some(format!("{name}={}", std::env::var(name).ok()?)))
        .collect();
    set.join(" ")
}

struct Running {
    // Declared first: dropped before the window it presents to.
    presenter: Presenter,
    ctx: Arc<GpuContext>,
    window: Arc<Window>,
}

struct Runner<E, F> {
    options: WindowOptions,
    draw: F,
    state: Option<Running>,
    events: Vec<InputEvent>,
    error: Option<E>,
    /// What the last frame asked for.
    next: NextFrame,
    /// Not minimised or occluded: frames are worth drawing.
    visible: bool,
}

impl<E, F> Runner<E, F>
where
    E: From<PresentError>,
    F: FnMut(&mut Frame<'_>, &mut Recorder<'_>, &Image) -> Result<(), E>,
{
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Running> {
        let (w, h) = self.options.size;
        let attributes = Window::default_attributes()
            .with_title(self.options.title.clone())
            .with_inner_size(PhysicalSize::new(w.max(1), h.max(1)))
            .with_resizable(self.options.resizable);
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| PresentError::Window(format!("cannot create the window: {e}")))?,
        );
        let ctx = window_context(event_loop, &self.options.context)?;
        let presenter = Presenter::new(&ctx, window.clone(), self.options.present)?;
        Ok(Running { presenter, ctx, window })
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: E) {
        if self.error.is_none() {
            self.error = Some(error);
        }
        event_loop.exit();
    }

    /// Asks winit for a frame (several asks before it comes make one).
    fn wake(&self) {
        if let Some(running) = &self.state {
            running.window.request_redraw();
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(running) = self.state.as_mut() else {
            return;
        };
        let Running { presenter, ctx, window } = running;
        let mut called = false;
        let events = &self.events;
        let draw = &mut self.draw;
        // A frame decides anew what comes after it; a timed redraw still
        // pending is dropped along with the old decision.
        let next = &mut self.next;
        let exit = next.exit;
        *next = NextFrame { exit, ..NextFrame::default() };
        let index = presenter.frame_index();
        let rendered = presenter.render(|rec, image, choice, choice_is_new| {
            called = true;
            let mut frame = Frame {
                events,
                index,
                size: (image.width(), image.height()),
                window,
                ctx,
                choice,
                choice_is_new,
                next,
            };
            draw(&mut frame, rec, image)
        });
        if called {
            self.events.clear();
        }
        if let Some(hdr) = self.next.hdr_content.take() {
            presenter.set_hdr_content(hdr);
            self.next.now |= presenter.is_stale();
        }
        match rendered {
            Ok(_) if self.next.exit => event_loop.exit(),
            Ok(FrameStatus::Presented) if self.next.now => window.request_redraw(),
            Ok(FrameStatus::Presented) => {}
            // The swapchain was rebuilt under us: try again at once.
            Ok(FrameStatus::Skipped) if presenter.size() != (0, 0) => window.request_redraw(),
            // Nothing to draw into (minimised): wait for a resize event
            // rather than spin.
            Ok(FrameStatus::Skipped) => {}
            Err(e) => self.fail(event_loop, e),
        }
    }
}

impl<E, F> ApplicationHandler for Runner<E, F>
where
    E: From<PresentError>,
    F: FnMut(&mut Frame<'_>, &mut Recorder<'_>, &Image) -> Result<(), E>,
{
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() || self.error.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(running) => {
                running.window.request_redraw();
                self.state = Some(running);
            }
            Err(e) => self.fail(event_loop, E::from(e)),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::RedrawRequested => {
                if self.visible {
                    self.redraw(event_loop);
                }
                return;
            }
            WindowEvent::CloseRequested | WindowEvent::Destroyed => {
                event_loop.exit();
                return;
            }
            WindowEvent::Resized(size) => {
                self.visible = size.width > 0 && size.height > 0;
                if let Some(running) = self.state.as_mut() {
                    running.presenter.resized();
                }
            }
            WindowEvent::Occluded(occluded) => {
                self.visible = !occluded;
                if !occluded {
                    self.wake();
                }
                return;
            }
            _ => {}
        }
        if let Some(input) = InputEvent::from_window_event(event) {
            self.events.push(input);
            // The app sees input in the next frame; none is drawn while
            // minimised or occluded (the events wait for it).
            if self.visible {
                self.wake();
            }
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // The timed redraw of `Frame::redraw_after`: due now, or sleep
        // until it is (input or a window system request may come first).
        match self.next.at {
            Some(at) if at <= Instant::now() => {
                self.next.at = None;
                if self.visible {
                    self.wake();
                }
                event_loop.set_control_flow(ControlFlow::Wait);
            }
            Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
            None => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        // Wait idle and destroy the swapchain while the window still exists.
        self.state = None;
    }
}

/// winit's OS errors print where in winit they were raised (`os error at
/// FILE:LINE: message`); a user needs the message only.
fn without_source_location(text: &str) -> &str {
    text.strip_prefix("os error at ")
        .and_then(|rest| rest.split_once(": "))
        .map_or(text, |(_, m)| m)
}
