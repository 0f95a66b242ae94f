//! vqscope-metrics: VMAF and its features. Each feature has a GPU kernel
//! driver and an exact CPU twin; the VMAF model, pooling and the report
//! writers turn per-frame features into libvmaf-compatible output.

#![forbid(unsafe_code)]

pub mod device;
pub mod error;
pub mod features;
pub mod frontend;
pub mod model;
pub mod pipeline;
pub mod plane;
pub mod pool;
pub mod reduce;
pub mod report;
pub mod row_sums;
pub mod scale;
pub mod testing;
pub mod vmaf;

pub use error::MetricsError;
pub use plane::PlaneView;
