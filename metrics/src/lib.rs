//! vqscope-metrics: VMAF and its features. Each feature has a GPU kernel
//! driver and an exact CPU twin; the VMAF model, pooling and the report
//! writers turn per-frame features into libvmaf-compatible output.

pub mod adm;
pub mod device;
pub mod error;
pub mod model;
pub mod motion;
pub mod motion_gpu;
pub mod ms_ssim;
pub mod ms_ssim_gpu;
pub mod pipeline;
pub mod plane;
pub mod pool;
pub mod psnr;
pub mod psnr_gpu;
pub mod reduce;
pub mod report;
pub mod ssim;
pub mod ssim_gpu;
pub mod vif;

pub use error::MetricsError;
pub use plane::PlaneView;
