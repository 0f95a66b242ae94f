//! vqscope-tests: cross-crate tests (libvmaf parity on the shared clips,
//! screenshot goldens, the bad-input matrix, CLI runs) and the helpers they
//! share for finding and unpacking the reference material in `../shared`.

#![forbid(unsafe_code)]

pub mod adm_parity;
pub mod cambi_parity;
pub mod ciede_parity;
pub mod clips;
pub mod float_adm_parity;
pub mod float_motion_parity;
pub mod float_psnr_parity;
pub mod float_vif_parity;
pub mod golden;
pub mod gpu_pair;
pub mod motion_psnr;
pub mod proc_stat;
pub mod psnr_hvs_parity;
pub mod report_diff;
pub mod speed_parity;
pub mod ssim_parity;
pub mod vif_parity;
pub mod xvfb;
