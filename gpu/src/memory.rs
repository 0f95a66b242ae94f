//! Buffers and images with their memory from gpu-allocator. Each owns its
//! allocation and an `Arc` of the context, so it frees itself before the
//! device can go away.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};

use crate::context::GpuContext;
use crate::error::{GpuError, Result, vk_error};

/// A buffer and its memory.
pub struct Buffer {
    ctx: Arc<GpuContext>,
    raw: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
}

impl Buffer {
    /// A buffer of `size` bytes (at least 4) in `location`.
    pub fn new(
        ctx: &Arc<GpuContext>,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self> {
        let size = size.max(4);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let device = &ctx.device;
        // SAFETY: create info without pointers; the device outlives the buffer through `ctx`.
        let raw =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_error("vkCreateBuffer"))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        let allocation = ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).allocate(
            &AllocationCreateDesc {
                name,
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            },
        );
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: `raw` is unbound and used by nothing; it is not used again.
                unsafe { device.destroy_buffer(raw, None) };
                return Err(e.into());
            }
        };
        // SAFETY: the allocation is unbound memory of this device, large and aligned enough for
        // `raw` (its requirements were allocated for).
        let bound =
            unsafe { device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) };
        if let Err(e) = bound {
            // SAFETY: binding failed, so nothing uses `raw`; it is not used again.
            unsafe { device.destroy_buffer(raw, None) };
            let _ = ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(allocation);
            return Err(vk_error("vkBindBufferMemory")(e));
        }
        Ok(Self { ctx: ctx.clone(), raw, allocation: Some(allocation), size })
    }

    /// A device-local storage buffer that can also be copied to and from.
    pub fn storage(ctx: &Arc<GpuContext>, name: &str, size: u64) -> Result<Self> {
        Self::new(
            ctx,
            name,
            size,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::GpuOnly,
        )
    }

    /// A host-visible buffer to copy from (uploads).
    pub fn staging(ctx: &Arc<GpuContext>, name: &str, size: u64) -> Result<Self> {
        Self::new(ctx, name, size, vk::BufferUsageFlags::TRANSFER_SRC, MemoryLocation::CpuToGpu)
    }

    /// Host memory, cached on the CPU side, that the GPU copies from: frames
    /// are read into it straight from their files and the device pulls them
    /// over the bus, so no CPU copy into [`Buffer::staging`] (which may be
    /// device memory written through the BAR) is made.
    pub fn host_source(ctx: &Arc<GpuContext>, name: &str, size: u64) -> Result<Self> {
        Self::new(ctx, name, size, vk::BufferUsageFlags::TRANSFER_SRC, MemoryLocation::GpuToCpu)
    }

    /// A host-visible buffer to copy into (readbacks).
    pub fn readback(ctx: &Arc<GpuContext>, name: &str, size: u64) -> Result<Self> {
        Self::new(
            ctx,
            name,
            size,
            vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuToCpu,
        )
    }

    pub fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// The context (device) the buffer belongs to.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The mapped bytes of a host-visible buffer.
    pub fn mapped(&self) -> Result<&[u8]> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_slice())
            .map(|s| &s[..self.size as usize])
            .ok_or_else(|| GpuError::Usage("buffer is not host-visible".into()))
    }

    /// The mapped bytes of a host-visible buffer, writable.
    pub fn mapped_mut(&mut self) -> Result<&mut [u8]> {
        let size = self.size as usize;
        self.allocation
            .as_mut()
            .and_then(|a| a.mapped_slice_mut())
            .map(|s| &mut s[..size])
            .ok_or_else(|| GpuError::Usage("buffer is not host-visible".into()))
    }

    /// Copies `data` into the start of a host-visible buffer.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let dst = self.mapped_mut()?;
        if data.len() > dst.len() {
            return Err(GpuError::Usage(format!(
                "writing {} bytes into a {}-byte buffer",
                data.len(),
                dst.len()
            )));
        }
        dst[..data.len()].copy_from_slice(data);
        Ok(())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: owned by this value; users hold `&self` only while recording, and the owner waits
        // for submissions before dropping (see `Submitter`).
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.take() {
            let _ = self.ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(a);
        }
    }
}

/// A 2-D image with one view, for storage and sampled access.
pub struct Image {
    ctx: Arc<GpuContext>,
    raw: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
    width: u32,
    height: u32,
    format: vk::Format,
}

impl Image {
    /// A device-local 2-D image in GENERAL-ready state (layout UNDEFINED
    /// until the first barrier; see [`crate::Recorder::image_layout`]).
    pub fn new(
        ctx: &Arc<GpuContext>,
        name: &str,
        width: u32,
        height: u32,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
    ) -> Result<Self> {
        if width == 0 || height == 0 {
            return Err(GpuError::Usage(format!("image {name} has size {width}x{height}")));
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width, height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let device = &ctx.device;
        // SAFETY: create info without pointers; the device outlives the image through `ctx`.
        let raw = unsafe { device.create_image(&info, None) }.map_err(vk_error("vkCreateImage"))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_image_memory_requirements(raw) };
        let allocation = ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).allocate(
            &AllocationCreateDesc {
                name,
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            },
        );
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: `raw` is unbound and used by nothing; it is not used again.
                unsafe { device.destroy_image(raw, None) };
                return Err(e.into());
            }
        };
        let free = |allocation: Allocation| {
            // SAFETY: called only on failure paths below, where nothing uses `raw` yet.
            unsafe { device.destroy_image(raw, None) };
            let _ = ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(allocation);
        };
        // SAFETY: the allocation is unbound memory of this device, large and aligned enough for
        // `raw` (its requirements were allocated for).
        let bound =
            unsafe { device.bind_image_memory(raw, allocation.memory(), allocation.offset()) };
        if let Err(e) = bound {
            free(allocation);
            return Err(vk_error("vkBindImageMemory")(e));
        }
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(color_range());
        // SAFETY: the image is bound to memory; the view info names it with a matching format and
        // range.
        let view = match unsafe { device.create_image_view(&view_info, None) } {
            Ok(v) => v,
            Err(e) => {
                free(allocation);
                return Err(vk_error("vkCreateImageView")(e));
            }
        };
        Ok(Self {
            ctx: ctx.clone(),
            raw,
            view,
            allocation: Some(allocation),
            width,
            height,
            format,
        })
    }

    pub fn raw(&self) -> vk::Image {
        self.raw
    }

    pub fn view(&self) -> vk::ImageView {
        self.view
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    pub fn format(&self) -> vk::Format {
        self.format
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: owned by this value, view before image (reverse creation order); owners wait for
        // submissions that use them before dropping.
        unsafe {
            self.ctx.device.destroy_image_view(self.view, None);
            self.ctx.device.destroy_image(self.raw, None);
        }
        if let Some(a) = self.allocation.take() {
            let _ = self.ctx.allocator.lock().unwrap_or_else(|e| e.into_inner()).free(a);
        }
    }
}

/// The whole colour subresource of a single-level, single-layer image.
pub fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}
