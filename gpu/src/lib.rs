//! vqscope-gpu: the Vulkan core shared by the renderer and the metrics —
//! instance and device choice, validation, buffers and images through
//! gpu-allocator, compute pipelines from the shaders crate's records
//! (SPIR-V and the layout read from it), command submission with timeline
//! semaphores, timestamp queries, a window's surface and swapchain, and
//! what the device offers for video decode.
//! It knows nothing of UI or VMAF. All of vqscope's `unsafe` is here.

#![deny(clippy::undocumented_unsafe_blocks)]

mod command;
mod context;
mod error;
mod memory;
mod pipeline;
mod pipeline_cache;
mod semaphore;
mod spirv;
mod submit;
mod surface;
mod swapchain;
pub mod testing;
mod timing;
mod transfer;
mod validation;
mod video;
mod video_decode;

/// The `ash` this context was built with, so crates that drive extensions of
/// their own (the renderer's surface and swapchain) name the very same types
/// without a second, possibly diverging, dependency on it.
pub use ash;
pub use ash::vk;
pub use command::Deferred;
pub use context::{ContextOptions, DeviceInfo, GpuContext, PipelineStats};
pub use error::{GpuError, Result, vk_error};
pub use gpu_allocator::MemoryLocation;
pub use memory::{Buffer, Image, color_range};
pub use pipeline::{BindingKind, ComputePipeline, PipelineDesc, Shader};
pub use pipeline_cache::default_dir as pipeline_cache_dir;
pub use semaphore::Semaphore;
pub use submit::{Binding, Recorder, Submitter, Ticket};
pub use surface::{Surface, surface_extensions};
pub use swapchain::{Acquired, Presented, Swapchain, SwapchainDesc};
pub use timing::{Timestamps, keep_busy, median, phase_medians};
pub use transfer::{download_buffer, download_image, upload_buffer};
pub use validation::all_messages as validation_messages;
pub use video::{DecodeCapabilities, DecodeProfile, DecodeSupport, h264_std_level, h265_std_level};
pub use video_decode::{
    DecodePicture, DecodeSession, H264ParameterSets, H264Picture, H264Pps, H264Reference, H264Sps,
    H265ParameterSets, H265Picture, H265Pps, H265Reference, H265Sps, H265Vps,
    IN_FLIGHT as DECODE_IN_FLIGHT, Nv12Picture, SessionCodec,
};
