//! A swapchain: its images and the per-image semaphores presentation waits
//! on, created and destroyed as one group. Choosing its size, format and
//! mode is the caller's business (the renderer's presenter); this module
//! owns the Vulkan objects and the commands that touch swapchain images.
//!
//! Synchronisation this module is responsible for:
//! - One present semaphore per swapchain image: the submission that draws
//!   into image `i` signals semaphore `i`, and presenting `i` waits on it.
//!   Reacquiring image `i` proves the previous presentation consumed it,
//!   which a per-frame ring of semaphores could not prove.
//! - The acquire semaphore (the caller's) must be waited at the transfer
//!   stage, the only stage that touches the swapchain image; the image's
//!   layout transition starts at that stage, so it is chained after the
//!   wait ([`Swapchain::record_blit`], [`Swapchain::record_clear`]).

use std::sync::Arc;

use ash::vk;

use crate::error::{Result, vk_error};
use crate::memory::{Image, color_range};
use crate::semaphore::Semaphore;
use crate::submit::Recorder;
use crate::surface::Surface;

/// What a swapchain is made of; the caller checks each against the
/// surface's capabilities, formats and modes.
#[derive(Debug, Clone, Copy)]
pub struct SwapchainDesc {
    pub format: vk::SurfaceFormatKHR,
    pub extent: vk::Extent2D,
    pub present_mode: vk::PresentModeKHR,
    pub min_image_count: u32,
    pub composite_alpha: vk::CompositeAlphaFlagsKHR,
    pub pre_transform: vk::SurfaceTransformFlagsKHR,
}

/// What [`Swapchain::acquire`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// Image `index` will be ready once the acquire semaphore signals.
    /// `suboptimal`: usable, but the swapchain should be rebuilt.
    Image { index: u32, suboptimal: bool },
    /// The surface changed: rebuild the swapchain; nothing was acquired
    /// and the semaphore will not be signalled.
    OutOfDate,
}

/// What [`Swapchain::present`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presented {
    Optimal,
    /// Presented (or, when out of date, dropped): rebuild the swapchain
    /// before the next frame either way.
    Stale,
}

/// A `VkSwapchainKHR`, its images, and one present semaphore per image.
pub struct Swapchain {
    loader: ash::khr::swapchain::Device,
    raw: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// Created after the swapchain and destroyed before it (in `Drop`).
    present_semaphores: Vec<Semaphore>,
    extent: vk::Extent2D,
    format: vk::SurfaceFormatKHR,
    /// Kept so the surface outlives the swapchain.
    surface: Arc<Surface>,
}

impl Swapchain {
    /// A swapchain on `surface` with transfer-destination images (the
    /// renderer blits into them). `old`, the swapchain it replaces, hands
    /// over its presentation-engine resources; drop it after this returns.
    pub fn new(
        surface: &Arc<Surface>,
        desc: &SwapchainDesc,
        old: Option<&Swapchain>,
    ) -> Result<Self> {
        let ctx = surface.gpu();
        let loader = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface.raw())
            .min_image_count(desc.min_image_count)
            .image_format(desc.format.format)
            .image_color_space(desc.format.color_space)
            .image_extent(desc.extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(desc.pre_transform)
            .composite_alpha(desc.composite_alpha)
            .present_mode(desc.present_mode)
            .clipped(true)
            .old_swapchain(old.map_or(vk::SwapchainKHR::null(), |o| o.raw));
        // SAFETY: the surface and `old` (retired by this call, destroyed
        // later by its own Drop) are alive and belong to this device.
        let raw = unsafe { loader.create_swapchain(&info, None) }
            .map_err(vk_error("vkCreateSwapchainKHR"))?;
        // From here on Drop destroys what exists.
        let mut this = Self {
            loader,
            raw,
            images: Vec::new(),
            present_semaphores: Vec::new(),
            extent: desc.extent,
            format: desc.format,
            surface: surface.clone(),
        };
        // SAFETY: `raw` was just created on this device.
        this.images = unsafe { this.loader.get_swapchain_images(raw) }
            .map_err(vk_error("vkGetSwapchainImagesKHR"))?;
        for _ in 0..this.images.len() {
            this.present_semaphores.push(Semaphore::new(ctx)?);
        }
        Ok(this)
    }

    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }

    pub fn format(&self) -> vk::SurfaceFormatKHR {
        self.format
    }

    pub fn image_count(&self) -> usize {
        self.images.len()
    }

    /// The semaphore a submission drawing into image `index` must signal,
    /// and [`Swapchain::present`] waits on.
    pub fn present_semaphore(&self, index: u32) -> &Semaphore {
        &self.present_semaphores[index as usize]
    }

    /// Tells the display what HDR this swapchain shows (mastering display
    /// and light levels), where the device has `VK_EXT_hdr_metadata`
    /// ([`crate::GpuContext::hdr_metadata_enabled`]); returns whether it
    /// could. Meant for swapchains in an HDR colour space.
    pub fn set_hdr_metadata(&self, metadata: &vk::HdrMetadataEXT<'_>) -> bool {
        let ctx = self.surface.gpu();
        if !ctx.hdr_metadata_enabled() {
            return false;
        }
        let loader = ash::ext::hdr_metadata::Device::new(&ctx.instance, &ctx.device);
        // SAFETY: the extension is enabled on this device (checked above);
        // the swapchain belongs to it and is alive; one metadata for one
        // swapchain, both slices outliving the call.
        unsafe { loader.set_hdr_metadata(&[self.raw], std::slice::from_ref(metadata)) };
        true
    }

    /// Acquires the next image, signalling `signal` when it is free. Waits
    /// without a time limit for the presentation engine to release one.
    pub fn acquire(&self, signal: &Semaphore) -> Result<Acquired> {
        // SAFETY: the swapchain and semaphore belong to this device; the
        // caller's ring of acquire semaphores guarantees `signal` has no
        // pending operation (it is reused only after the submission that
        // waited on it finished).
        let acquired = unsafe {
            self.loader.acquire_next_image(self.raw, u64::MAX, signal.raw(), vk::Fence::null())
        };
        match acquired {
            Ok((index, suboptimal)) => Ok(Acquired::Image { index, suboptimal }),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Acquired::OutOfDate),
            Err(e) => Err(vk_error("vkAcquireNextImageKHR")(e)),
        }
    }

    /// Queues image `index` for presentation once its present semaphore
    /// signals.
    pub fn present(&self, index: u32) -> Result<Presented> {
        let swapchains = [self.raw];
        let indices = [index];
        let waits = [self.present_semaphore(index).raw()];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let ctx = self.surface.gpu();
        // SAFETY: the queue is held exclusively by `with_queue`; the image
        // index came from `acquire` on this swapchain (an out-of-range one
        // panicked in `present_semaphore` above).
        let presented = ctx.with_queue(|q| unsafe { self.loader.queue_present(q, &info) });
        match presented {
            Ok(false) => Ok(Presented::Optimal),
            Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(Presented::Stale),
            Err(e) => Err(vk_error("vkQueuePresentKHR")(e)),
        }
    }

    /// Records the blit of `src` (TRANSFER_SRC layout, the swapchain's size
    /// or larger) into acquired image `index`, leaving the latter ready to
    /// present. The blit converts RGBA to the swapchain's BGRA for free.
    pub fn record_blit(&self, rec: &mut Recorder<'_>, index: u32, src: &Image) {
        let target = self.images[index as usize];
        let layers = vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        };
        // Clamped so a size mismatch can never read or write out of bounds.
        let w = self.extent.width.min(src.width()) as i32;
        let h = self.extent.height.min(src.height()) as i32;
        let corners = [vk::Offset3D { x: 0, y: 0, z: 0 }, vk::Offset3D { x: w, y: h, z: 1 }];
        let region = vk::ImageBlit {
            src_subresource: layers,
            src_offsets: corners,
            dst_subresource: layers,
            dst_offsets: corners,
        };
        let device = &self.surface.gpu().device;
        let cmd = rec.raw();
        transition(device, cmd, to_transfer_dst(target));
        // SAFETY: both images belong to this device and outlive the
        // recording (the caller waits for the submission before dropping
        // `src` or this swapchain); the layouts are the ones just set up.
        unsafe {
            device.cmd_blit_image(
                cmd,
                src.raw(),
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                target,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
                vk::Filter::NEAREST,
            )
        };
        transition(device, cmd, to_present(target));
    }

    /// Records a black clear of acquired image `index`, leaving it ready to
    /// present: the frame shown when drawing failed, which still consumes
    /// the acquire semaphore and hands the image back.
    pub fn record_clear(&self, rec: &mut Recorder<'_>, index: u32) {
        let target = self.images[index as usize];
        let device = &self.surface.gpu().device;
        let cmd = rec.raw();
        let black = vk::ClearColorValue { float32: [0.0, 0.0, 0.0, 1.0] };
        transition(device, cmd, to_transfer_dst(target));
        // SAFETY: the image belongs to this device, outlives the recording
        // and was just moved to TRANSFER_DST.
        unsafe {
            device.cmd_clear_color_image(
                cmd,
                target,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &black,
                &[color_range()],
            )
        };
        transition(device, cmd, to_present(target));
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        // Reverse order of creation, once nothing uses the images or
        // semaphores: the semaphores (their Drop waits for the context's queue),
        // then the swapchain, then (with the field) this hold on the surface.
        let _ = self.surface.gpu().wait_idle();
        self.present_semaphores.clear();
        // SAFETY: the context's queue, the only one that renders and
        // presents, is idle, so no submission or presentation still uses
        // the swapchain's images; the surface is still alive.
        unsafe { self.loader.destroy_swapchain(self.raw, None) };
    }
}

fn transition(device: &ash::Device, cmd: vk::CommandBuffer, barrier: vk::ImageMemoryBarrier2) {
    let dep = vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&barrier));
    // SAFETY: `cmd` is a command buffer being recorded on this device, and
    // the barrier names an image of this device.
    unsafe { device.cmd_pipeline_barrier2(cmd, &dep) };
}

/// UNDEFINED → TRANSFER_DST for an acquired image. The source stage is the
/// stage the acquire semaphore is waited at, which chains the transition
/// after the presentation engine released the image; UNDEFINED because
/// every frame overwrites the whole image.
fn to_transfer_dst(image: vk::Image) -> vk::ImageMemoryBarrier2<'static> {
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

/// TRANSFER_DST → PRESENT_SRC. No destination access: the present
/// semaphore's signal (all commands) orders the write and the transition
/// before presentation and makes them visible to it.
fn to_present(image: vk::Image) -> vk::ImageMemoryBarrier2<'static> {
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
