//! Files the device reads where they lie: a file mapped read-only into the
//! process and imported as device memory (`VK_EXT_external_memory_host`),
//! so that a copy on the GPU pulls frames straight from the page cache, with
//! no CPU copy at all (a read into a host buffer is one).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;

use ash::vk;

use crate::context::GpuContext;
use crate::error::{GpuError, Result, vk_error};
use crate::memory::Buffer;

/// What the device offers for importing host memory (`None` on a context
/// without [`crate::ContextOptions::host_import`] or a device without the
/// extension).
pub(crate) struct HostImport {
    pub(crate) fns: ash::ext::external_memory_host::Device,
    /// `minImportedHostPointerAlignment`: the address and the size of an
    /// import are multiples of it.
    pub(crate) alignment: u64,
}

impl HostImport {
    /// The device's import alignment, read with the properties chain.
    pub(crate) fn alignment(instance: &ash::Instance, physical: vk::PhysicalDevice) -> u64 {
        let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
        // SAFETY: the physical device belongs to this live instance; the chain outlives the call.
        unsafe { instance.get_physical_device_properties2(physical, &mut props) };
        host.min_imported_host_pointer_alignment
    }
}

/// A file mapped read-only, whole, at an address the mapping chose (page
/// aligned), unmapped on drop.
pub(crate) struct FileMapping {
    address: *mut libc::c_void,
    /// Bytes mapped: the file's length rounded up to whole pages.
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; reading it
// from several threads is as safe as reading any shared immutable memory.
unsafe impl Send for FileMapping {}
// SAFETY: as above; nothing mutates through a `&FileMapping`.
unsafe impl Sync for FileMapping {}

impl FileMapping {
    fn new(file: &File, len: usize) -> std::io::Result<Self> {
        // SAFETY: a fresh shared read-only mapping of an open file, at an address the kernel
        // picks; the file descriptor may close afterwards (the mapping keeps the file).
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self { address, len })
    }
}

impl Drop for FileMapping {
    fn drop(&mut self) {
        // SAFETY: the range is this value's own mapping, and the device memory imported from it
        // was freed before (see `Buffer`'s drop).
        unsafe { libc::munmap(self.address, self.len) };
    }
}

/// Device memory imported from a [`FileMapping`]: the memory is freed before
/// the mapping goes (the order of [`ImportedMemory::free`]).
pub(crate) struct ImportedMemory {
    memory: vk::DeviceMemory,
    mapping: FileMapping,
}

impl ImportedMemory {
    /// Frees the memory, then unmaps the file.
    ///
    /// # Safety
    /// No buffer bound to the memory is in use or alive.
    pub(crate) unsafe fn free(self, device: &ash::Device) {
        // SAFETY: the caller guarantees nothing uses the memory; it was allocated on `device`.
        unsafe { device.free_memory(self.memory, None) };
        drop(self.mapping);
    }
}

impl Buffer {
    /// The whole file at `path` as a buffer the device copies from, read in
    /// place: mapped read-only and imported, so that copies out of it go
    /// from the page cache to the device. An error when the context was not
    /// made with [`crate::ContextOptions::host_import`], the device cannot
    /// import it (its alignment exceeds a page, or the driver refuses a
    /// file's pages), or the file cannot be mapped.
    pub fn import_file(ctx: &Arc<GpuContext>, path: &Path) -> Result<Self> {
        let import = ctx.host_import.as_ref().ok_or_else(|| {
            GpuError::Usage("this context imports no host memory (host_import)".into())
        })?;
        let failed = |what: &str, e: std::io::Error| {
            GpuError::Usage(format!("{what} {}: {e}", path.display()))
        };
        let file = File::open(path).map_err(|e| failed("cannot open", e))?;
        let file_len = file.metadata().map_err(|e| failed("cannot read", e))?.len();
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        if import.alignment > page || !page.is_multiple_of(import.alignment.max(1)) {
            return Err(GpuError::Usage(format!(
                "the device imports host memory in {} byte units, not pages of {page}",
                import.alignment
            )));
        }
        let usage = vk::BufferUsageFlags::TRANSFER_SRC;
        let handle = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let query =
            vk::PhysicalDeviceExternalBufferInfo::default().usage(usage).handle_type(handle);
        let mut external_props = vk::ExternalBufferProperties::default();
        // SAFETY: the physical device belongs to the context's live instance; the structures
        // outlive the call.
        unsafe {
            ctx.instance.get_physical_device_external_buffer_properties(
                ctx.physical,
                &query,
                &mut external_props,
            )
        };
        let features = external_props.external_memory_properties.external_memory_features;
        if !features.contains(vk::ExternalMemoryFeatureFlags::IMPORTABLE) {
            return Err(GpuError::Usage("the device imports no host memory for buffers".into()));
        }
        let size = file_len.max(1).next_multiple_of(page);
        let mapping =
            FileMapping::new(&file, size as usize).map_err(|e| failed("cannot map", e))?;
        let device = &ctx.device;
        let mut host_props = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: the pointer is the start of a live mapping of `size` bytes, aligned to a page
        // (a multiple of the import alignment); the output struct outlives the call.
        unsafe {
            (import.fns.fp().get_memory_host_pointer_properties_ext)(
                device.handle(),
                handle,
                mapping.address,
                &mut host_props,
            )
        }
        .result()
        .map_err(vk_error("vkGetMemoryHostPointerPropertiesEXT"))?;
        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: the create info and its chain live through the call.
        let raw =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_error("vkCreateBuffer"))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        let types = requirements.memory_type_bits & host_props.memory_type_bits;
        let memory = (types != 0)
            .then(|| types.trailing_zeros())
            .ok_or_else(|| {
                GpuError::Usage(format!(
                    "no memory type imports {} for a buffer (pointer types {:#x}, buffer {:#x})",
                    path.display(),
                    host_props.memory_type_bits,
                    requirements.memory_type_bits
                ))
            })
            .and_then(|index| {
                let mut import_info = vk::ImportMemoryHostPointerInfoEXT::default()
                    .handle_type(handle)
                    .host_pointer(mapping.address);
                let allocate = vk::MemoryAllocateInfo::default()
                    .allocation_size(size)
                    .memory_type_index(index)
                    .push_next(&mut import_info);
                // SAFETY: the imported range is the live mapping, its address and size multiples
                // of the import alignment; the mapping outlives the memory (`ImportedMemory`).
                unsafe { device.allocate_memory(&allocate, None) }
                    .map_err(vk_error("vkAllocateMemory (host import)"))
            })
            .and_then(|memory| {
                // SAFETY: fresh memory of `size` bytes, at least the buffer's requirements.
                match unsafe { device.bind_buffer_memory(raw, memory, 0) } {
                    Ok(()) => Ok(memory),
                    Err(e) => {
                        // SAFETY: the memory is bound to nothing and not used again.
                        unsafe { device.free_memory(memory, None) };
                        Err(vk_error("vkBindBufferMemory (host import)")(e))
                    }
                }
            });
        match memory {
            Ok(memory) => Ok(Buffer::imported(ctx, raw, ImportedMemory { memory, mapping }, size)),
            Err(e) => {
                // SAFETY: `raw` is unbound and used by nothing; it is not used again.
                unsafe { device.destroy_buffer(raw, None) };
                Err(e)
            }
        }
    }
}
