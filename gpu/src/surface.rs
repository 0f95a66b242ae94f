//! A window's Vulkan surface, and the instance extensions a window system
//! needs before one can be made. X11 (Xlib or XCB) and Wayland handles are
//! both accepted: `ash_window` picks `VK_KHR_xlib_surface`,
//! `VK_KHR_xcb_surface` or `VK_KHR_wayland_surface` from the handle's kind.

use std::any::Any;
use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle};

use crate::context::GpuContext;
use crate::error::{GpuError, Result, vk_error};

/// The instance extensions surfaces on `display` need (`VK_KHR_surface`
/// and the window system's own), for [`crate::ContextOptions::instance_extensions`].
pub fn surface_extensions(display: &impl HasDisplayHandle) -> Result<Vec<&'static CStr>> {
    let raw = raw_display(display)?;
    let names = ash_window::enumerate_required_extensions(raw)
        .map_err(vk_error("vkEnumerateInstanceExtensionProperties (surface)"))?;
    Ok(names
        .iter()
        .map(|&name| {
            // SAFETY: ash_window returns pointers to ash's `NAME` constants:
            // static, NUL-terminated C strings.
            unsafe { CStr::from_ptr(name) }
        })
        .collect())
}

fn raw_display(display: &impl HasDisplayHandle) -> Result<RawDisplayHandle> {
    display
        .display_handle()
        .map(|h| h.as_raw())
        .map_err(|e| GpuError::WindowHandle(format!("display handle: {e}")))
}

/// A `VkSurfaceKHR` on a window, which it keeps alive: the surface's
/// handles stay valid for as long as the surface exists, whatever the
/// caller drops first. Swapchains hold an `Arc` of their surface, so the
/// surface is always destroyed after them.
pub struct Surface {
    ctx: Arc<GpuContext>,
    loader: ash::khr::surface::Instance,
    raw: vk::SurfaceKHR,
    /// Declared after `raw` and dropped after it (see `Drop`): the window
    /// the handles point into.
    _window: Arc<dyn Any + Send + Sync>,
}

impl Surface {
    /// The surface of `window`. `ctx` must have been created with
    /// [`surface_extensions`] of the window's display.
    pub fn new<W>(ctx: &Arc<GpuContext>, window: Arc<W>) -> Result<Self>
    where
        W: HasDisplayHandle + HasWindowHandle + Send + Sync + 'static,
    {
        let display = raw_display(&*window)?;
        let handle = window
            .window_handle()
            .map_err(|e| GpuError::WindowHandle(format!("window handle: {e}")))?
            .as_raw();
        // SAFETY: the handles come from a live window that this surface
        // keeps (`_window`) until after it destroys the surface; the
        // instance outlives the surface through `ctx`, which it keeps too.
        let raw =
            unsafe { ash_window::create_surface(&ctx.entry, &ctx.instance, display, handle, None) }
                .map_err(vk_error("vkCreateSurfaceKHR"))?;
        let loader = ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance);
        Ok(Self { ctx: ctx.clone(), loader, raw, _window: window })
    }

    pub fn raw(&self) -> vk::SurfaceKHR {
        self.raw
    }

    /// The context the surface was made on.
    pub fn gpu(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Whether the context's queue can present to this surface.
    pub fn queue_can_present(&self) -> Result<bool> {
        // SAFETY: the physical device, queue family and surface all belong
        // to this instance and are alive.
        unsafe {
            self.loader.get_physical_device_surface_support(
                self.ctx.physical,
                self.ctx.queue_family,
                self.raw,
            )
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfaceSupportKHR"))
    }

    /// Sizes, image counts, usages and transforms the surface allows now.
    pub fn capabilities(&self) -> Result<vk::SurfaceCapabilitiesKHR> {
        // SAFETY: as in `queue_can_present`.
        unsafe { self.loader.get_physical_device_surface_capabilities(self.ctx.physical, self.raw) }
            .map_err(vk_error("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))
    }

    /// The formats and colour spaces a swapchain on it may use.
    pub fn formats(&self) -> Result<Vec<vk::SurfaceFormatKHR>> {
        // SAFETY: as in `queue_can_present`.
        unsafe { self.loader.get_physical_device_surface_formats(self.ctx.physical, self.raw) }
            .map_err(vk_error("vkGetPhysicalDeviceSurfaceFormatsKHR"))
    }

    /// The present modes a swapchain on it may use.
    pub fn present_modes(&self) -> Result<Vec<vk::PresentModeKHR>> {
        // SAFETY: as in `queue_can_present`.
        unsafe {
            self.loader.get_physical_device_surface_present_modes(self.ctx.physical, self.raw)
        }
        .map_err(vk_error("vkGetPhysicalDeviceSurfacePresentModesKHR"))
    }
}

impl Drop for Surface {
    fn drop(&mut self) {
        let _ = self.ctx.wait_idle();
        // SAFETY: every swapchain on this surface holds an `Arc` of it, so
        // none is left; the context's queue, which presents, is idle; the
        // window is still alive (its
        // `Arc` is a later field, dropped after this).
        unsafe { self.loader.destroy_surface(self.raw, None) };
    }
}
