//! Every failure of the Vulkan core as a named error. Raw `vk::Result`s are
//! mapped at the call site, with the name of the call that failed, so a user
//! reads "vkCreateDevice: out of device memory", not an error code.

use ash::vk;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(
        "cannot load the Vulkan library ({0}); install a Vulkan driver (Debian: libvulkan1 mesa-vulkan-drivers)"
    )]
    Loader(String),
    #[error("{call}: out of host memory")]
    OutOfHostMemory { call: &'static str },
    #[error("{call}: out of device memory")]
    OutOfDeviceMemory { call: &'static str },
    #[error("{call}: the GPU device was lost (driver reset or crash)")]
    DeviceLost { call: &'static str },
    #[error("{call}: initialization failed")]
    InitializationFailed { call: &'static str },
    #[error("{call}: a required layer is not present (install vulkan-validationlayers)")]
    LayerNotPresent { call: &'static str },
    #[error("{call}: a required extension is not present")]
    ExtensionNotPresent { call: &'static str },
    #[error("{call}: a required feature is not present")]
    FeatureNotPresent { call: &'static str },
    #[error("{call}: incompatible driver")]
    IncompatibleDriver { call: &'static str },
    #[error("{call}: the swapchain is out of date")]
    OutOfDate { call: &'static str },
    #[error("{call}: the surface was lost")]
    SurfaceLost { call: &'static str },
    #[error("{call}: timed out")]
    Timeout { call: &'static str },
    #[error("{call}: Vulkan error {result:?}")]
    Other { call: &'static str, result: vk::Result },
    #[error("no usable Vulkan device: {0}")]
    NoSuitableDevice(String),
    #[error("GPU memory allocation failed: {0}")]
    Allocation(#[from] gpu_allocator::AllocationError),
    #[error("invalid SPIR-V: {0}")]
    InvalidSpirv(String),
    /// The window system would not hand over a window's handles.
    #[error("window system: {0}")]
    WindowHandle(String),
    #[error("{0}")]
    Usage(String),
    /// The device's video decoder cannot take this stream or picture.
    #[error("video decode: {0}")]
    VideoDecode(String),
}

impl GpuError {
    /// Whether the device, or the allocator on its behalf, had no memory
    /// left: a caller with a way that needs less (ciede without its Lab
    /// table) can take it instead of failing.
    pub fn is_out_of_device_memory(&self) -> bool {
        matches!(
            self,
            Self::OutOfDeviceMemory { .. }
                | Self::Allocation(gpu_allocator::AllocationError::OutOfMemory)
        )
    }
}

/// Maps a `vk::Result` from `call` to its named error.
pub fn vk_error(call: &'static str) -> impl FnOnce(vk::Result) -> GpuError {
    move |result| match result {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY => GpuError::OutOfHostMemory { call },
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => GpuError::OutOfDeviceMemory { call },
        vk::Result::ERROR_DEVICE_LOST => GpuError::DeviceLost { call },
        vk::Result::ERROR_INITIALIZATION_FAILED => GpuError::InitializationFailed { call },
        vk::Result::ERROR_LAYER_NOT_PRESENT => GpuError::LayerNotPresent { call },
        vk::Result::ERROR_EXTENSION_NOT_PRESENT => GpuError::ExtensionNotPresent { call },
        vk::Result::ERROR_FEATURE_NOT_PRESENT => GpuError::FeatureNotPresent { call },
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => GpuError::IncompatibleDriver { call },
        vk::Result::ERROR_OUT_OF_DATE_KHR => GpuError::OutOfDate { call },
        vk::Result::ERROR_SURFACE_LOST_KHR => GpuError::SurfaceLost { call },
        vk::Result::TIMEOUT => GpuError::Timeout { call },
        result => GpuError::Other { call, result },
    }
}

pub type Result<T> = std::result::Result<T, GpuError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_device_memory_from_vulkan_or_the_allocator() {
        assert!(
            vk_error("vkAllocateMemory")(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
                .is_out_of_device_memory()
        );
        assert!(
            GpuError::Allocation(gpu_allocator::AllocationError::OutOfMemory)
                .is_out_of_device_memory()
        );
        assert!(
            !vk_error("vkAllocateMemory")(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
                .is_out_of_device_memory()
        );
        assert!(!GpuError::Usage("no".to_owned()).is_out_of_device_memory());
    }
}
