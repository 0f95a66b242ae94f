//! vqscope-metrics: VMAF and its features. Each feature has a GPU kernel
//! driver and an exact CPU twin; the VMAF model, pooling and the report
//! writers turn per-frame features into libvmaf-compatible output.

pub mod plane;

pub use plane::PlaneView;
