//! vqscope-metrics: VMAF and its features. Each feature has a GPU kernel
//! driver and an exact CPU twin; the VMAF model, pooling and the report
//! writers turn per-frame features into libvmaf-compatible output.

pub mod adm;
pub mod device;
pub mod error;
pub mod model;
pub mod motion;
pub mod ms_ssim;
pub mod plane;
pub mod pool;
pub mod psnr;
pub mod reduce;
pub mod report;
pub mod ssim;
pub mod vif;

pub use error::MetricsError;
pub use plane::PlaneView;
