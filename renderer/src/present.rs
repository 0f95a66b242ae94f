//! Showing rendered frames in a window.
//!
//! The renderer draws every pixel with compute shaders into an RGBA8 storage
//! image. Swapchain images are rarely usable as storage images (their format
//! is usually BGRA, and many drivers do not offer storage usage on them), so
//! the [`Presenter`] keeps an offscreen `R8G8B8A8_UNORM` image the size of the
//! window, lets the caller record its drawing into it, and then blits it into
//! the acquired swapchain image: `vkCmdBlitImage` converts RGBA to BGRA for
//! free. One blit per frame costs far less than the fused pass that fills it.
//!
//! [`run_window`] is the event loop around it: it opens a winit window,
//! creates the [`GpuContext`] with the surface's instance extensions, and
//! calls the app's closure once per frame with the input events that arrived
//! since the last frame.
//!
//! Synchronisation, in one place so it can be checked:
//! - A ring of [`PresentOptions::frames_in_flight`] acquire semaphores, each
//!   reused only after the submission that waited on it has finished (its
//!   timeline ticket), so acquire never gets a semaphore with a pending wait.
//! - One present semaphore per swapchain image: the submission signals the
//!   semaphore of the image it drew into, and presentation waits on it.
//!   Reacquiring that image proves the previous presentation consumed the
//!   semaphore; a per-frame ring could not prove that.
//! - The acquire semaphore is waited at the transfer stage, the only stage
//!   that touches the swapchain image, and the swapchain image's layout
//!   transition starts at that stage so it is chained after the wait.
//! - The offscreen image is shared by all frames in flight; barriers in
//!   each command buffer order the next frame's drawing after the previous
//!   frame's blit (a pipeline barrier's first scope covers earlier
//!   submissions on the same queue).

use std::error::Error as StdError;
use std::ffi::CStr;
use std::sync::Arc;

use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use thiserror::Error;
use vqscope_gpu::ash;
use vqscope_gpu::{
    ContextOptions, GpuContext, GpuError, Image, Recorder, Submitter, Ticket, color_range, vk,
    vk_error,
};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::ModifiersState;
use winit::window::{Window, WindowId};

/// The format of the offscreen image the renderer draws into.
pub const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// Lines scrolled per 100 pixels of a touchpad's pixel-precise scroll, so the
/// app sees one unit whatever the device reports.
const PIXELS_PER_SCROLL_LINE: f64 = 100.0 / 3.0;

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
}

impl Default for PresentOptions {
    fn default() -> Self {
        Self { mode: PresentMode::Vsync, frames_in_flight: 2 }
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
/// extensions the window system needs, and the swapchain device extension.
/// Everything else (validation, device choice) comes from `options`.
pub fn window_context(
    display: &impl HasDisplayHandle,
    options: &ContextOptions,
) -> Result<Arc<GpuContext>> {
    let raw = display
        .display_handle()
        .map_err(|e| PresentError::Window(format!("display handle: {e}")))?
        .as_raw();
    let required = ash_window::enumerate_required_extensions(raw)
        .map_err(vk_error("vkEnumerateInstanceExtensionProperties (surface)"))?;
    let mut options = options.clone();
    for &name in required {
        // SAFETY: ash_window returns pointers to ash's static, NUL-terminated
        // extension names.
        let name: &'static CStr = unsafe { CStr::from_ptr(name) };
        if !options.instance_extensions.contains(&name) {
            options.instance_extensions.push(name);
        }
    }
    options.swapchain = true;
    Ok(Arc::new(GpuContext::new(&options)?))
}

/// A window's surface and swapchain, and the offscreen image drawn into.
pub struct Presenter {
    ctx: Arc<GpuContext>,
    surface_fn: ash::khr::surface::Instance,
    swapchain_fn: ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// One per swapchain image, signalled by the frame that drew into it.
    present_semaphores: Vec<vk::Semaphore>,
    /// One per frame in flight, each with the ticket of the last submission
    /// that waited on it.
    acquire_semaphores: Vec<(vk::Semaphore, Ticket)>,
    format: vk::SurfaceFormatKHR,
    extent: vk::Extent2D,
    mode: PresentMode,
    options: PresentOptions,
    offscreen: Option<Image>,
    offscreen_layout: vk::ImageLayout,
    submitter: Submitter,
    frame: u64,
    /// The swapchain no longer matches the surface (resize, out of date,
    /// suboptimal): rebuild it before the next frame.
    stale: bool,
    /// Declared last: the surface must not outlive the window it shows.
    window: Arc<Window>,
}

impl Presenter {
    /// Creates the surface on `window` and a swapchain of its current size.
    /// `ctx` must come from [`window_context`] (or have the same extensions).
    pub fn new(
        ctx: &Arc<GpuContext>,
        window: Arc<Window>,
        options: PresentOptions,
    ) -> Result<Self> {
        let display = window
            .display_handle()
            .map_err(|e| PresentError::Window(format!("display handle: {e}")))?
            .as_raw();
        let handle = window
            .window_handle()
            .map_err(|e| PresentError::Window(format!("window handle: {e}")))?
            .as_raw();
        // SAFETY: the handles are valid for the window, which this presenter
        // keeps alive (and destroys the surface before releasing); the
        // instance outlives the surface through `ctx`.
        let surface = unsafe {
            ash_window::create_surface(ctx.entry(), ctx.instance(), display, handle, None)
        }
        .map_err(vk_error("vkCreateSurfaceKHR"))?;
        let surface_fn = ash::khr::surface::Instance::new(ctx.entry(), ctx.instance());
        let swapchain_fn = ash::khr::swapchain::Device::new(ctx.instance(), ctx.device());
        let options =
            PresentOptions { frames_in_flight: options.frames_in_flight.max(1), ..options };
        let submitter = match Submitter::new(ctx, options.frames_in_flight) {
            Ok(s) => s,
            Err(e) => {
                unsafe { surface_fn.destroy_surface(surface, None) };
                return Err(e.into());
            }
        };
        // From here on Drop cleans up whatever exists.
        let mut this = Self {
            ctx: ctx.clone(),
            surface_fn,
            swapchain_fn,
            surface,
            swapchain: vk::SwapchainKHR::null(),
            images: Vec::new(),
            present_semaphores: Vec::new(),
            acquire_semaphores: Vec::new(),
            format: vk::SurfaceFormatKHR::default(),
            extent: vk::Extent2D::default(),
            mode: options.mode,
            options,
            offscreen: None,
            offscreen_layout: vk::ImageLayout::UNDEFINED,
            submitter,
            frame: 0,
            stale: true,
            window,
        };
        let supported = unsafe {
            this.surface_fn.get_physical_device_surface_support(
                ctx.physical_device(),
                ctx.queue_family(),
                surface,
            )
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfaceSupportKHR"))?;
        if !supported {
            return Err(PresentError::Unsupported(format!(
                "queue family {} of {} cannot present to this window",
                ctx.queue_family(),
                ctx.info().name
            )));
        }
        this.format = this.choose_format()?;
        for _ in 0..options.frames_in_flight {
            let semaphore = this.create_semaphore()?;
            this.acquire_semaphores.push((semaphore, Ticket(0)));
        }
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

    /// The swapchain's format (BGRA or RGBA, UNORM where the surface offers it).
    pub fn surface_format(&self) -> vk::Format {
        self.format.format
    }

    /// Frames submitted so far; the next frame's index.
    pub fn frame_index(&self) -> u64 {
        self.frame
    }

    /// The swapchain must be rebuilt before the next frame: call on a
    /// window resize (X11 drivers do not always report out-of-date).
    pub fn resized(&mut self) {
        self.stale = true;
    }

    /// Draws and shows one frame: acquires a swapchain image, calls `draw`
    /// with a recorder and the offscreen image in GENERAL layout (write it
    /// with compute shaders or transfers, leave it in GENERAL), blits it
    /// into the swapchain image and presents it. The recording is submitted
    /// only if `draw` succeeds; on failure its error is returned and the
    /// acquired image is presented cleared to black, so the swapchain stays
    /// usable.
    pub fn render<E>(
        &mut self,
        draw: impl FnOnce(&mut Recorder<'_>, &Image) -> Result<(), E>,
    ) -> Result<FrameStatus, E>
    where
        E: From<PresentError>,
    {
        if self.stale {
            self.recreate().map_err(E::from)?;
        }
        if self.offscreen.is_none() {
            return Ok(FrameStatus::Skipped);
        }
        let slot = (self.frame % self.acquire_semaphores.len() as u64) as usize;
        let (acquire, last_use) = self.acquire_semaphores[slot];
        self.submitter.wait(last_use).map_err(|e| E::from(e.into()))?;
        let Some(index) = self.acquire(acquire).map_err(E::from)? else {
            return Ok(FrameStatus::Skipped);
        };
        let target = self.images[index as usize];
        let present_semaphore = self.present_semaphores[index as usize];
        let offscreen = self.offscreen.as_ref().expect("checked above");
        let offscreen_layout = self.offscreen_layout;
        let ctx = self.ctx.clone();
        let device = ctx.device();
        let extent = self.extent;

        let mut draw_error = None;
        let submitted = self.submitter.submit_with(
            &[(acquire, vk::PipelineStageFlags2::ALL_TRANSFER)],
            &[present_semaphore],
            |rec| {
                rec.image_layout(offscreen.raw(), offscreen_layout, vk::ImageLayout::GENERAL);
                if let Err(e) = draw(rec, offscreen) {
                    draw_error = Some(e);
                    return Err(GpuError::Usage("the draw closure failed".into()));
                }
                rec.image_layout(
                    offscreen.raw(),
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                );
                record_blit(device, rec, offscreen, target, extent);
                Ok(())
            },
        );
        let ticket = match submitted {
            Ok(ticket) => {
                self.offscreen_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
                ticket
            }
            Err(gpu_error) => {
                // The image is acquired and the acquire semaphore will be
                // signalled: hand both back by presenting a black frame.
                let recovered = self.submitter.submit_with(
                    &[(acquire, vk::PipelineStageFlags2::ALL_TRANSFER)],
                    &[present_semaphore],
                    |rec| {
                        record_clear(device, rec, target);
                        Ok(())
                    },
                );
                if let Ok(ticket) = recovered {
                    self.acquire_semaphores[slot].1 = ticket;
                    self.frame += 1;
                    let _ = self.present(index, present_semaphore);
                }
                return Err(draw_error.unwrap_or_else(|| E::from(gpu_error.into())));
            }
        };
        self.acquire_semaphores[slot].1 = ticket;
        self.frame += 1;
        self.present(index, present_semaphore).map_err(E::from)?;
        Ok(FrameStatus::Presented)
    }

    /// Acquires the next swapchain image, signalling `semaphore`. `None`
    /// when there is nothing to draw into even after rebuilding once.
    fn acquire(&mut self, semaphore: vk::Semaphore) -> Result<Option<u32>> {
        for _ in 0..2 {
            if self.swapchain == vk::SwapchainKHR::null() {
                return Ok(None);
            }
            let acquired = unsafe {
                self.swapchain_fn.acquire_next_image(
                    self.swapchain,
                    u64::MAX,
                    semaphore,
                    vk::Fence::null(),
                )
            };
            match acquired {
                Ok((index, suboptimal)) => {
                    // A suboptimal image is still signalled and usable: show
                    // it, rebuild before the next frame.
                    self.stale |= suboptimal;
                    return Ok(Some(index));
                }
                Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    self.stale = true;
                    self.recreate()?;
                }
                Err(e) => return Err(vk_error("vkAcquireNextImageKHR")(e).into()),
            }
        }
        Ok(None)
    }

    fn present(&mut self, index: u32, wait: vk::Semaphore) -> Result<()> {
        let swapchains = [self.swapchain];
        let indices = [index];
        let waits = [wait];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // Tells the window system a frame is coming (Wayland frame pacing).
        self.window.pre_present_notify();
        let presented =
            self.ctx.with_queue(|q| unsafe { self.swapchain_fn.queue_present(q, &info) });
        match presented {
            Ok(suboptimal) => self.stale |= suboptimal,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => self.stale = true,
            Err(e) => return Err(vk_error("vkQueuePresentKHR")(e).into()),
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
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.ctx.physical_device(), self.surface)
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))?;
        let extent = if caps.current_extent.width != u32::MAX {
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
            self.destroy_swapchain();
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
        let modes = unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.ctx.physical_device(), self.surface)
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfacePresentModesKHR"))?;
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
        let mut image_count = caps.min_image_count + 1;
        if caps.max_image_count != 0 {
            image_count = image_count.min(caps.max_image_count);
        }
        let alpha = [
            vk::CompositeAlphaFlagsKHR::OPAQUE,
            vk::CompositeAlphaFlagsKHR::INHERIT,
            vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
            vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        ]
        .into_iter()
        .find(|&a| caps.supported_composite_alpha.contains(a))
        .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE);
        let old = self.swapchain;
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(image_count)
            .image_format(self.format.format)
            .image_color_space(self.format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(alpha)
            .present_mode(mode)
            .clipped(true)
            .old_swapchain(old);
        let swapchain = unsafe { self.swapchain_fn.create_swapchain(&info, None) }
            .map_err(vk_error("vkCreateSwapchainKHR"))?;
        self.destroy_swapchain();
        self.swapchain = swapchain;
        self.images = unsafe { self.swapchain_fn.get_swapchain_images(swapchain) }
            .map_err(vk_error("vkGetSwapchainImagesKHR"))?;
        for _ in 0..self.images.len() {
            let semaphore = self.create_semaphore()?;
            self.present_semaphores.push(semaphore);
        }
        let same_size = self
            .offscreen
            .as_ref()
            .is_some_and(|i| i.width() == extent.width && i.height() == extent.height);
        if !same_size {
            self.offscreen = None;
            self.offscreen = Some(Image::new(
                &self.ctx,
                "presenter offscreen",
                extent.width,
                extent.height,
                OFFSCREEN_FORMAT,
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

    /// A UNORM 8-bit format: the renderer writes display-ready values, so the
    /// blit must copy bytes unchanged (an sRGB swapchain would encode twice).
    fn choose_format(&self) -> Result<vk::SurfaceFormatKHR> {
        let formats = unsafe {
            self.surface_fn
                .get_physical_device_surface_formats(self.ctx.physical_device(), self.surface)
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfaceFormatsKHR"))?;
        let blittable = |format: vk::Format| {
            let props = unsafe {
                self.ctx
                    .instance()
                    .get_physical_device_format_properties(self.ctx.physical_device(), format)
            };
            props.optimal_tiling_features.contains(vk::FormatFeatureFlags::BLIT_DST)
        };
        let usable: Vec<_> = formats.iter().filter(|f| blittable(f.format)).collect();
        [vk::Format::B8G8R8A8_UNORM, vk::Format::R8G8B8A8_UNORM]
            .iter()
            .find_map(|&want| {
                usable.iter().copied().copied().find(|f| {
                    f.format == want && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR
                })
            })
            .or_else(|| usable.first().copied().copied())
            .ok_or_else(|| {
                PresentError::Unsupported(format!(
                    "no surface format can be blitted into (offered: {formats:?})"
                ))
            })
    }

    fn create_semaphore(&self) -> Result<vk::Semaphore> {
        unsafe { self.ctx.device().create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
            .map_err(|e| vk_error("vkCreateSemaphore")(e).into())
    }

    /// Destroys the swapchain and its present semaphores; the device must be
    /// idle.
    fn destroy_swapchain(&mut self) {
        let device = self.ctx.device();
        for semaphore in self.present_semaphores.drain(..) {
            unsafe { device.destroy_semaphore(semaphore, None) };
        }
        self.images.clear();
        if self.swapchain != vk::SwapchainKHR::null() {
            unsafe { self.swapchain_fn.destroy_swapchain(self.swapchain, None) };
            self.swapchain = vk::SwapchainKHR::null();
        }
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        // Reverse order of creation, after everything in flight finished.
        let _ = self.ctx.wait_idle();
        let _ = self.submitter.wait_all();
        self.offscreen = None;
        self.destroy_swapchain();
        for (semaphore, _) in self.acquire_semaphores.drain(..) {
            unsafe { self.ctx.device().destroy_semaphore(semaphore, None) };
        }
        unsafe { self.surface_fn.destroy_surface(self.surface, None) };
        // The submitter, the window and the context go with the fields.
    }
}

/// Records the blit of the offscreen image (TRANSFER_SRC) into the acquired
/// swapchain image, leaving the latter ready to present.
fn record_blit(
    device: &ash::Device,
    rec: &mut Recorder<'_>,
    offscreen: &Image,
    target: vk::Image,
    extent: vk::Extent2D,
) {
    let to_dst = swapchain_to_transfer_dst(target);
    let dep = vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_dst));
    let layers = vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    };
    // The offscreen image matches the swapchain's extent; clamp anyway so a
    // mismatch can never read or write out of bounds.
    let w = extent.width.min(offscreen.width()) as i32;
    let h = extent.height.min(offscreen.height()) as i32;
    let corners = [vk::Offset3D { x: 0, y: 0, z: 0 }, vk::Offset3D { x: w, y: h, z: 1 }];
    let region = vk::ImageBlit {
        src_subresource: layers,
        src_offsets: corners,
        dst_subresource: layers,
        dst_offsets: corners,
    };
    let to_present = swapchain_to_present(target);
    let dep_present =
        vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_present));
    unsafe {
        device.cmd_pipeline_barrier2(rec.raw(), &dep);
        device.cmd_blit_image(
            rec.raw(),
            offscreen.raw(),
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            target,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &[region],
            vk::Filter::NEAREST,
        );
        device.cmd_pipeline_barrier2(rec.raw(), &dep_present);
    }
}

/// Records a black clear of the acquired swapchain image (the recovery
/// frame after a failed draw), leaving it ready to present.
fn record_clear(device: &ash::Device, rec: &mut Recorder<'_>, target: vk::Image) {
    let to_dst = swapchain_to_transfer_dst(target);
    let to_present = swapchain_to_present(target);
    let black = vk::ClearColorValue { float32: [0.0, 0.0, 0.0, 1.0] };
    unsafe {
        device.cmd_pipeline_barrier2(
            rec.raw(),
            &vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_dst)),
        );
        device.cmd_clear_color_image(
            rec.raw(),
            target,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &black,
            &[color_range()],
        );
        device.cmd_pipeline_barrier2(
            rec.raw(),
            &vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&to_present)),
        );
    }
}

/// UNDEFINED → TRANSFER_DST for an acquired swapchain image. The source
/// stage is the stage the acquire semaphore is waited at, which chains the
/// transition after the presentation engine released the image; UNDEFINED
/// because every frame overwrites the whole image.
fn swapchain_to_transfer_dst(image: vk::Image) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
        .src_access_mask(vk::AccessFlags2::NONE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .image(image)
        .subresource_range(color_range())
}

/// TRANSFER_DST → PRESENT_SRC. No destination access: the present semaphore
/// signal (all commands) orders the write and the transition before
/// presentation, and makes them visible to it.
fn swapchain_to_present(image: vk::Image) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .dst_access_mask(vk::AccessFlags2::NONE)
        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
        .image(image)
        .subresource_range(color_range())
}

/// Input the app sees, in the order it arrived since the previous frame.
/// Coordinates are physical pixels, the same pixels as the offscreen image.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputEvent {
    /// A key went down or up (with repeats); winit's event as is, for its
    /// logical key, physical key code and text.
    Key(KeyEvent),
    /// Shift, control, alt or super changed.
    Modifiers(ModifiersState),
    CursorMoved {
        x: f64,
        y: f64,
    },
    CursorLeft,
    MouseButton {
        button: MouseButton,
        pressed: bool,
    },
    /// Scroll in lines; positive `y` scrolls content down (wheel up).
    Scroll {
        x: f32,
        y: f32,
    },
    /// The window's new inner size; the offscreen image follows from the
    /// next frame on ([`Frame::size`] tells the size drawn at).
    Resized {
        width: u32,
        height: u32,
    },
    Focused(bool),
    /// DPI scale factor changed (the app may want larger text).
    ScaleFactor(f64),
    /// A file was dragged from another program and dropped on the window
    /// (one event per file); the last `CursorMoved` says roughly where.
    DroppedFile(std::path::PathBuf),
}

/// What the app's per-frame closure gets besides the recorder and image.
pub struct Frame<'a> {
    events: &'a [InputEvent],
    index: u64,
    size: (u32, u32),
    window: &'a Window,
    ctx: &'a Arc<GpuContext>,
    exit: &'a mut bool,
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
        *self.exit = true;
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

/// Opens a window and calls `draw` once per frame until the window is
/// closed or the closure calls [`Frame::exit`]. `draw` records its work into
/// the offscreen image (GENERAL layout, [`OFFSCREEN_FORMAT`]), which is then
/// shown. Frames are drawn continuously, paced by the present mode; none
/// are drawn while the window is minimised.
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
        // Tests and tools open windows off the main thread; X11 does not care.
        use winit::platform::x11::EventLoopBuilderExtX11;
        builder.with_any_thread(true);
    }
    let event_loop = builder.build().map_err(|e| {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        E::from(PresentError::NoDisplay(format!(
            "cannot open the window (DISPLAY={display}): {}",
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
        exit: false,
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

/// A clear error before winit tries: it would say much the same, but not
/// what to do about it.
fn check_display() -> Result<()> {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        if !set("DISPLAY") {
            let wayland = if set("WAYLAND_DISPLAY") {
                " (WAYLAND_DISPLAY is set, but vqscope talks X11: run XWayland)"
            } else {
                ""
            };
            return Err(PresentError::NoDisplay(format!(
                "DISPLAY is not set{wayland}; use the headless commands, or start a virtual \
                 display (Xvfb :99 & export DISPLAY=:99)"
            )));
        }
    }
    Ok(())
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
    exit: bool,
    /// Not minimised or hidden: frames are worth drawing.
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

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(running) = self.state.as_mut() else {
            return;
        };
        let Running { presenter, ctx, window } = running;
        let mut called = false;
        let events = &self.events;
        let draw = &mut self.draw;
        let exit = &mut self.exit;
        let index = presenter.frame_index();
        let rendered = presenter.render(|rec, image| {
            called = true;
            let mut frame =
                Frame { events, index, size: (image.width(), image.height()), window, ctx, exit };
            draw(&mut frame, rec, image)
        });
        if called {
            self.events.clear();
        }
        match rendered {
            Ok(_) if self.exit => event_loop.exit(),
            Ok(FrameStatus::Presented) => window.request_redraw(),
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
        let input = match event {
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
                    if self.visible {
                        running.window.request_redraw();
                    }
                }
                InputEvent::Resized { width: size.width, height: size.height }
            }
            WindowEvent::Occluded(occluded) => {
                self.visible = !occluded;
                if let (false, Some(running)) = (occluded, &self.state) {
                    running.window.request_redraw();
                }
                return;
            }
            WindowEvent::KeyboardInput { event, .. } => InputEvent::Key(event),
            WindowEvent::ModifiersChanged(m) => InputEvent::Modifiers(m.state()),
            WindowEvent::CursorMoved { position, .. } => {
                InputEvent::CursorMoved { x: position.x, y: position.y }
            }
            WindowEvent::CursorLeft { .. } => InputEvent::CursorLeft,
            WindowEvent::MouseInput { state, button, .. } => {
                InputEvent::MouseButton { button, pressed: state == ElementState::Pressed }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let (x, y) = match delta {
                    MouseScrollDelta::LineDelta(x, y) => (x, y),
                    MouseScrollDelta::PixelDelta(p) => (
                        (p.x / PIXELS_PER_SCROLL_LINE) as f32,
                        (p.y / PIXELS_PER_SCROLL_LINE) as f32,
                    ),
                };
                InputEvent::Scroll { x, y }
            }
            WindowEvent::Focused(focused) => InputEvent::Focused(focused),
            WindowEvent::ScaleFactorChanged { scale_factor, .. } => {
                InputEvent::ScaleFactor(scale_factor)
            }
            WindowEvent::DroppedFile(path) => InputEvent::DroppedFile(path),
            _ => return,
        };
        self.events.push(input);
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
