//! `--decode`: which decoder reads compressed inputs, one option for every
//! command that opens them, and the GPU context such inputs share.

use std::sync::Arc;

use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_video::DecodeChoice;

#[derive(clap::Args, Debug, Clone)]
pub struct DecodeArg {
    /// Which decoder reads compressed inputs (anything but y4m and raw yuv): `cpu` (the
    /// default) always uses ffmpeg; `auto` decodes H.264 (progressive, 8-bit 4:2:0) and H.265
    /// (Main, Main 10) on the Vulkan device when the device has a decode queue for it and
    /// takes the whole stream, and everything else with ffmpeg; `gpu` decodes on the device or fails. Pictures
    /// decoded on the device stay there for the metrics and the renderer; stepping back or
    /// jumping decodes again from the last IDR picture before the frame. `score --verbose`
    /// says per input which decoder read it and why.
    #[arg(
        long = "decode",
        value_name = "DECODE",
        default_value = "cpu",
        value_parser = DecodeChoice::NAMES
    )]
    choice: String,
}

impl DecodeArg {
    /// Makes the choice for the inputs the command opens from now on.
    pub fn apply(&self) -> anyhow::Result<()> {
        vqscope_video::set_decode_choice(self.choice.parse().map_err(anyhow::Error::msg)?);
        Ok(())
    }
}

/// The GPU context a command works on: the one its inputs are decoded on
/// when some are decoded on the device (their pictures then stay there),
/// else a new one with `options`.
pub fn gpu_context(options: &ContextOptions) -> anyhow::Result<Arc<GpuContext>> {
    match vqscope_video::decoding_context() {
        Some(ctx) => Ok(ctx),
        None => Ok(Arc::new(GpuContext::new(options)?)),
    }
}
