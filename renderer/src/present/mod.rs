//! Showing rendered frames in a window.
//!
//! The renderer draws every pixel with compute shaders into a storage image.
//! Swapchain images are rarely usable as storage images (their format is
//! usually BGRA, and many drivers do not offer storage usage on them), so
//! the [`Presenter`] keeps an offscreen image the size of the window in the
//! format of its [`Output`] (`R8G8B8A8_UNORM` for SDR, `A2B10G10R10` for
//! HDR10), lets the caller record its drawing into it, and then blits it
//! into the acquired swapchain image: `vkCmdBlitImage` converts RGBA to BGRA
//! for free. One blit per frame costs far less than the fused pass that
//! fills it.
//!
//! SDR or HDR10 ([`hdr`]): with `--hdr-output auto` a window whose pictures
//! are HDR ([`Presenter::set_hdr_content`]) is shown in HDR10 where the
//! surface offers the `HDR10_ST2084` colour space in a 10-bit format; the
//! swapchain is then made in it, its HDR metadata set where the device has
//! `VK_EXT_hdr_metadata`, and the app draws for [`Output::Hdr10`].
//!
//! The Vulkan objects (surface, swapchain, semaphores) are the `gpu` crate's
//! RAII types; this module decides their size, format and mode and runs the
//! frame protocol. [`run_window`] (module `event_loop`) is the winit loop
//! around it, and module `input` maps winit's events to [`InputEvent`]s.
//!
//! Synchronisation, in one place so it can be checked (the per-image
//! present semaphores and the swapchain image barriers are described in
//! `vqscope_gpu::Swapchain`):
//! - A ring of [`PresentOptions::frames_in_flight`] acquire semaphores, each
//!   reused only after the submission that waited on it has finished (its
//!   timeline ticket), so acquire never gets a semaphore with a pending wait.
//! - The offscreen image is shared by all frames in flight; barriers in
//!   each command buffer order the next frame's drawing after the previous
//!   frame's blit (a pipeline barrier's first scope covers earlier
//!   submissions on the same queue).

mod event_loop;
pub mod hdr;
mod input;

use std::error::Error as StdError;
use std::sync::Arc;

use thiserror::Error;
use vqscope_gpu::{
    Acquired, ContextOptions, GpuContext, GpuError, Image, Presented, Recorder, Semaphore,
    Submitter, Surface, Swapchain, SwapchainDesc, Ticket, vk,
};
use winit::dpi::PhysicalSize;
use winit::raw_window_handle::HasDisplayHandle;
use winit::window::Window;

pub use event_loop::{Frame, WindowOptions, display_available, run_window};
pub use hdr::{HdrOutput, OutputChoice};
pub use input::InputEvent;

use crate::fused::Output;

/// Everything that can go wrong while showing frames.
#[derive(Debug, Error)]
pub enum PresentError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// No display server to open a window on: run `vqscope screenshot` or the
    /// headless commands instead, or start one (`Xvfb :99 &`, `DISPLAY=:99`).
    #[error("no display: {0}")]
    NoDisplay(String),
    /// The window system refused something (event loop, window, handles).
    #[error("window system: {0}")]
    Window(String),
    /// The surface cannot be shown by this device and queue.
    #[error("cannot present: {0}")]
    Unsupported(String),
    /// The app's draw closure failed; the window was closed.
    #[error("drawing the frame failed: {0}")]
    Draw(Box<dyn StdError + Send + Sync>),
}

pub type Result<T, E = PresentError> = std::result::Result<T, E>;

/// How frames reach the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PresentMode {
    /// Wait for vertical blank (FIFO): no tearing, never faster than the
    /// display, the host blocks instead of spinning. Always supported.
    #[default]
    Vsync,
    /// Replace the queued frame (MAILBOX): no tearing, renders as fast as
    /// it can. For benchmarks; falls back to `Immediate`, then `Vsync`.
    Mailbox,
    /// Show at once (IMMEDIATE): may tear. For benchmarks; falls back to
    /// `Mailbox`, then `Vsync`.
    Immediate,
}

impl PresentMode {
    fn preference(self) -> &'static [vk::PresentModeKHR] {
        match self {
            PresentMode::Vsync => &[vk::PresentModeKHR::FIFO],
            PresentMode::Mailbox => &[
                vk::PresentModeKHR::MAILBOX,
                vk::PresentModeKHR::IMMEDIATE,
                vk::PresentModeKHR::FIFO,
            ],
            PresentMode::Immediate => &[
                vk::PresentModeKHR::IMMEDIATE,
                vk::PresentModeKHR::MAILBOX,
                vk::PresentModeKHR::FIFO,
            ],
        }
    }

    fn from_vk(mode: vk::PresentModeKHR) -> Self {
        match mode {
            vk::PresentModeKHR::MAILBOX => PresentMode::Mailbox,
            vk::PresentModeKHR::IMMEDIATE => PresentMode::Immediate,
            _ => PresentMode::Vsync,
        }
    }
}

/// How a [`Presenter`] shows frames.
#[derive(Debug, Clone, Copy)]
pub struct PresentOptions {
    pub mode: PresentMode,
    /// Frames the host may record ahead of the GPU (at least 1). When the
    /// draw closure of frame `n` runs, frame `n - frames_in_flight` has
    /// finished on the GPU, so per-frame host-written buffers need a ring of
    /// this many (index it with [`Presenter::frame_index`]).
    pub frames_in_flight: usize,
    /// SDR or HDR10 (see [`hdr::choose_output`]).
    pub hdr: HdrOutput,
    /// Whether the pictures shown are HDR, to begin with (see
    /// [`Presenter::set_hdr_content`]).
    pub hdr_content: bool,
}

impl Default for PresentOptions {
    fn default() -> Self {
        Self {
            mode: PresentMode::Vsync,
            frames_in_flight: 2,
            hdr: HdrOutput::Auto,
            hdr_content: false,
        }
    }
}

/// What became of one call to [`Presenter::render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameStatus {
    /// The closure drew and the frame was queued for presentation.
    Presented,
    /// Nothing to draw into (minimised window, or the surface changed under
    /// us twice in a row); the closure was not called. Try next frame.
    Skipped,
}

/// Creates the [`GpuContext`] for windows on `display`: the surface
/// extensions the window system needs (X11 or Wayland), and the swapchain
/// device extension. Everything else (validation, device choice) comes from
/// `options`.
pub fn window_context(
    display: &impl HasDisplayHandle,
    options: &ContextOptions,
) -> Result<Arc<GpuContext>> {
    let mut options = options.clone();
    for name in vqscope_gpu::surface_extensions(display)? {
        if !options.instance_extensions.contains(&name) {
            options.instance_extensions.push(name);
        }
    }
    options.swapchain = true;
    Ok(Arc::new(GpuContext::new(&options)?))
}

/// A window's surface and swapchain, and the offscreen image drawn into.
///
/// Teardown order is the field order (Rust drops fields as declared), after
/// `Drop` has waited for every submission: the offscreen image, the
/// swapchain (before the surface it was made on, which it also holds), the
/// acquire semaphores, the surface, the command buffers, the window.
pub struct Presenter {
    offscreen: Option<Image>,
    /// None while minimised (a zero-sized surface takes no swapchain).
    swapchain: Option<Swapchain>,
    /// One per frame in flight, each with the ticket of the last submission
    /// that waited on it.
    acquire_semaphores: Vec<(Semaphore, Ticket)>,
    surface: Arc<Surface>,
    submitter: Submitter,
    window: Arc<Window>,
    ctx: Arc<GpuContext>,
    format: vk::SurfaceFormatKHR,
    /// What the swapchain and the offscreen image are made for, and why.
    choice: OutputChoice,
    /// `choice` is new since the last frame drawn.
    choice_is_new: bool,
    hdr_content: bool,
    extent: vk::Extent2D,
    mode: PresentMode,
    options: PresentOptions,
    offscreen_layout: vk::ImageLayout,
    frame: u64,
    /// The swapchain no longer matches the surface (resize, out of date,
    /// suboptimal): rebuild it before the next frame.
    stale: bool,
    /// The surface takes the swapchain's size (Wayland), so nothing goes
    /// out of date when the window's size changes: compare sizes instead.
    sized_by_window: bool,
}

impl Presenter {
    /// Creates the surface on `window` and a swapchain of its current size.
    /// `ctx` must come from [`window_context`] (or have the same extensions).
    pub fn new(
        ctx: &Arc<GpuContext>,
        window: Arc<Window>,
        options: PresentOptions,
    ) -> Result<Self> {
        let surface = Arc::new(Surface::new(ctx, window.clone())?);
        if !surface.queue_can_present()? {
            return Err(PresentError::Unsupported(format!(
                "queue family {} of {} cannot present to this window",
                ctx.queue_family(),
                ctx.info().name
            )));
        }
        let options =
            PresentOptions { frames_in_flight: options.frames_in_flight.max(1), ..options };
        let submitter = Submitter::new(ctx, options.frames_in_flight)?;
        let acquire_semaphores = (0..options.frames_in_flight)
            .map(|_| Ok((Semaphore::new(ctx)?, Ticket(0))))
            .collect::<Result<Vec<_>>>()?;
        let mut this = Self {
            offscreen: None,
            swapchain: None,
            acquire_semaphores,
            surface,
            submitter,
            window,
            ctx: ctx.clone(),
            format: vk::SurfaceFormatKHR::default(),
            choice: OutputChoice { output: Output::Sdr, reason: String::new(), refused: false },
            choice_is_new: true,
            hdr_content: options.hdr_content,
            extent: vk::Extent2D::default(),
            mode: options.mode,
            options,
            offscreen_layout: vk::ImageLayout::UNDEFINED,
            frame: 0,
            stale: true,
            sized_by_window: false,
        };
        this.recreate()?;
        Ok(this)
    }

    /// The context frames are drawn with.
    pub fn gpu(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// The window shown.
    pub fn window(&self) -> &Arc<Window> {
        &self.window
    }

    /// Size of the swapchain and of the offscreen image, in pixels; zero
    /// while minimised.
    pub fn size(&self) -> (u32, u32) {
        (self.extent.width, self.extent.height)
    }

    /// The present mode in use (the requested one may be unsupported).
    pub fn present_mode(&self) -> PresentMode {
        self.mode
    }

    /// The swapchain's format (BGRA or RGBA, UNORM where the surface offers
    /// it; 10-bit for HDR10).
    pub fn surface_format(&self) -> vk::Format {
        self.format.format
    }

    /// SDR or HDR10, and why.
    pub fn output_choice(&self) -> &OutputChoice {
        &self.choice
    }

    /// Tells whether the pictures shown are HDR (PQ or HLG): with
    /// [`HdrOutput::Auto`] that decides between SDR and HDR10, and a change
    /// rebuilds the swapchain before the next frame.
    pub fn set_hdr_content(&mut self, hdr: bool) {
        if hdr != self.hdr_content {
            self.hdr_content = hdr;
            self.stale = true;
        }
    }

    /// Frames submitted so far; the next frame's index.
    pub fn frame_index(&self) -> u64 {
        self.frame
    }

    /// The swapchain will be rebuilt before the next frame.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The swapchain must be rebuilt before the next frame: call on a
    /// window resize (X11 drivers do not always report out-of-date).
    pub fn resized(&mut self) {
        self.stale = true;
    }

    /// Draws and shows one frame: acquires a swapchain image, calls `draw`
    /// with a recorder, the offscreen image in GENERAL layout (write it
    /// with compute shaders or transfers, leave it in GENERAL) and the
    /// output it is for (and whether that is new since the last frame), blits it
    /// into the swapchain image and presents it. The recording is submitted
    /// only if `draw` succeeds; on failure its error is returned and the
    /// acquired image is presented cleared to black, so the swapchain stays
    /// usable.
    pub fn render<E>(
        &mut self,
        draw: impl FnOnce(&mut Recorder<'_>, &Image, &OutputChoice, bool) -> Result<(), E>,
    ) -> Result<FrameStatus, E>
    where
        E: From<PresentError>,
    {
        if self.sized_by_window {
            // winit applies a Wayland resize the app asked for at once,
            // without a Resized event.
            let PhysicalSize { width, height } = self.window.inner_size();
            self.stale |= (width, height) != (self.extent.width, self.extent.height);
        }
        if self.stale {
            self.recreate().map_err(E::from)?;
        }
        if self.offscreen.is_none() {
            return Ok(FrameStatus::Skipped);
        }
        let slot = (self.frame % self.acquire_semaphores.len() as u64) as usize;
        let last_use = self.acquire_semaphores[slot].1;
        self.submitter.wait(last_use).map_err(|e| E::from(e.into()))?;
        let Some(index) = self.acquire(slot).map_err(E::from)? else {
            return Ok(FrameStatus::Skipped);
        };
        let (Some(swapchain), Some(offscreen)) = (&self.swapchain, &self.offscreen) else {
            unreachable!("acquire returned an image, so both exist");
        };
        let acquire = self.acquire_semaphores[slot].0.raw();
        let waits = [(acquire, vk::PipelineStageFlags2::ALL_TRANSFER)];
        let signals = [swapchain.present_semaphore(index).raw()];
        let offscreen_layout = self.offscreen_layout;
        let (choice, choice_is_new) = (&self.choice, self.choice_is_new);

        let mut draw_error = None;
        let submitted = self.submitter.submit_with(&waits, &signals, |rec| {
            rec.image_layout(offscreen.raw(), offscreen_layout, vk::ImageLayout::GENERAL);
            if let Err(e) = draw(rec, offscreen, choice, choice_is_new) {
                draw_error = Some(e);
                return Err(GpuError::Usage("the draw closure failed".into()));
            }
            rec.image_layout(
                offscreen.raw(),
                vk::ImageLayout::GENERAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            );
            swapchain.record_blit(rec, index, offscreen);
            Ok(())
        });
        let ticket = match submitted {
            Ok(ticket) => {
                self.offscreen_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                self.choice_is_new = false;
                ticket
            }
            Err(gpu_error) => {
                // The image is acquired and the acquire semaphore will be
                // signalled: hand both back by presenting a black frame.
                let recovered = self.submitter.submit_with(&waits, &signals, |rec| {
                    swapchain.record_clear(rec, index);
                    Ok(())
                });
                if let Ok(ticket) = recovered {
                    self.acquire_semaphores[slot].1 = ticket;
                    self.frame += 1;
                    let _ = self.present(index);
                }
                return Err(draw_error.unwrap_or_else(|| E::from(gpu_error.into())));
            }
        };
        self.acquire_semaphores[slot].1 = ticket;
        self.frame += 1;
        self.present(index).map_err(E::from)?;
        Ok(FrameStatus::Presented)
    }

    /// Acquires the next swapchain image, signalling acquire semaphore
    /// `slot`. `None` when there is nothing to draw into even after
    /// rebuilding once.
    fn acquire(&mut self, slot: usize) -> Result<Option<u32>> {
        for _ in 0..2 {
            let Some(swapchain) = &self.swapchain else {
                return Ok(None);
            };
            match swapchain.acquire(&self.acquire_semaphores[slot].0)? {
                Acquired::Image { index, suboptimal } => {
                    // A suboptimal image is still signalled and usable: show
                    // it, rebuild before the next frame.
                    self.stale |= suboptimal;
                    return Ok(Some(index));
                }
                Acquired::OutOfDate => {
                    self.stale = true;
                    self.recreate()?;
                }
            }
        }
        Ok(None)
    }

    fn present(&mut self, index: u32) -> Result<()> {
        let Some(swapchain) = &self.swapchain else {
            return Ok(());
        };
        // Tells the window system a frame is coming (Wayland frame pacing).
        self.window.pre_present_notify();
        if swapchain.present(index)? == Presented::Stale {
            self.stale = true;
        }
        Ok(())
    }

    /// Rebuilds the swapchain and the offscreen image at the surface's
    /// current size; with a zero size (minimised) leaves no swapchain and
    /// stays stale, so frames are skipped until the window comes back.
    fn recreate(&mut self) -> Result<()> {
        // Simplest correct retirement: nothing may still use the old
        // swapchain's images, semaphores or the offscreen image.
        self.ctx.wait_idle()?;
        let caps = self.surface.capabilities()?;
        self.sized_by_window = caps.current_extent.width == u32::MAX;
        let extent = if !self.sized_by_window {
            caps.current_extent
        } else {
            // The surface takes the swapchain's size (Wayland): use the window's.
            let PhysicalSize { width, height } = self.window.inner_size();
            vk::Extent2D {
                width: width.clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: height.clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        };
        if extent.width == 0 || extent.height == 0 {
            self.swapchain = None;
            self.offscreen = None;
            self.extent = vk::Extent2D::default();
            self.stale = true;
            return Ok(());
        }
        if !caps.supported_usage_flags.contains(vk::ImageUsageFlags::TRANSFER_DST) {
            return Err(PresentError::Unsupported(
                "swapchain images cannot be blitted into (no TRANSFER_DST usage)".into(),
            ));
        }
        // Asked each time: the window may have moved to another display.
        self.choose_format()?;
        let modes = self.surface.present_modes()?;
        let mode = self
            .options
            .mode
            .preference()
            .iter()
            .copied()
            .find(|m| modes.contains(m))
            .unwrap_or(vk::PresentModeKHR::FIFO);
        // One more than the minimum, so acquire does not wait for the
        // presentation engine to release an image.
        let mut min_image_count = caps.min_image_count + 1;
        if caps.max_image_count != 0 {
            min_image_count = min_image_count.min(caps.max_image_count);
        }
        let composite_alpha = [
            vk::CompositeAlphaFlagsKHR::OPAQUE,
            vk::CompositeAlphaFlagsKHR::INHERIT,
            vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
            vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        ]
        .into_iter()
        .find(|&a| caps.supported_composite_alpha.contains(a))
        .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE);
        let desc = SwapchainDesc {
            format: self.format,
            extent,
            present_mode: mode,
            min_image_count,
            composite_alpha,
            pre_transform: caps.current_transform,
        };
        let swapchain = Swapchain::new(&self.surface, &desc, self.swapchain.as_ref())?;
        if self.choice.output == Output::Hdr10 {
            // Without the extension the display assumes its own defaults.
            swapchain.set_hdr_metadata(&hdr::hdr10_metadata());
        }
        // The old one (retired by the call above) goes now.
        self.swapchain = Some(swapchain);
        let format = self.choice.output.format();
        let same = self.offscreen.as_ref().is_some_and(|i| {
            i.width() == extent.width && i.height() == extent.height && i.format() == format
        });
        if !same {
            self.offscreen = None;
            self.offscreen = Some(Image::new(
                &self.ctx,
                "presenter offscreen",
                extent.width,
                extent.height,
                format,
                vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::TRANSFER_SRC
                    | vk::ImageUsageFlags::TRANSFER_DST,
            )?);
            self.offscreen_layout = vk::ImageLayout::UNDEFINED;
        }
        self.extent = extent;
        self.mode = PresentMode::from_vk(mode);
        self.stale = false;
        Ok(())
    }
}

impl Presenter {
    /// Decides SDR or HDR10 from the surface's formats now and sets the
    /// swapchain's format; a changed decision is new for the next frame.
    fn choose_format(&mut self) -> Result<()> {
        let formats = self.surface.formats()?;
        let features = |f| self.ctx.format_properties(f).optimal_tiling_features;
        let sdr = hdr::sdr_format(&formats, features).map_err(PresentError::Unsupported)?;
        let hdr10 = if self.ctx.swapchain_colorspace_enabled() {
            hdr::hdr10_format(&formats, features)
        } else {
            Err("Vulkan offers no VK_EXT_swapchain_colorspace here (no HDR colour spaces)".into())
        };
        let mut choice = hdr::choose_output(self.options.hdr, self.hdr_content, &hdr10);
        self.format = match (choice.output, hdr10) {
            (Output::Hdr10, Ok(format)) => {
                if !self.ctx.hdr_metadata_enabled() {
                    choice.reason += "; no HDR metadata (the device lacks VK_EXT_hdr_metadata)";
                }
                format
            }
            _ => sdr,
        };
        if choice != self.choice {
            self.choice_is_new = true;
        }
        self.choice = choice;
        Ok(())
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        // Everything in flight finishes before the fields go (in their
        // declared order, see the struct's doc).
        let _ = self.submitter.wait_all();
        let _ = self.ctx.wait_idle();
    }
}
