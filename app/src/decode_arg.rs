//! `--decode`: which decoder reads compressed inputs, one option for every
//! command that opens them, and the GPU context such inputs share.

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use vqscope_gpu::{ContextOptions, GpuContext};
use vqscope_video::DecodeChoice;

#[derive(clap::Args, Debug, Clone)]
pub struct DecodeArg {
    /// Which decoder reads compressed inputs (anything but y4m and raw yuv): `auto` (the
    /// default) decodes H.264 (progressive, 8-bit 4:2:0) and H.265 (Main, Main 10) on the
    /// Vulkan device when the device has a decode queue for it and takes the whole stream, and
    /// everything else with ffmpeg; `gpu` decodes on the device or fails; `cpu` always uses
    /// ffmpeg. The device decodes exactly as ffmpeg does. Pictures decoded on the device stay
    /// there for the metrics and the renderer; stepping back or jumping decodes again from the
    /// last seek point before the frame. `score --verbose` says per input which decoder read
    /// it and why.
    #[arg(
        long = "decode",
        value_name = "DECODE",
        default_value = "auto",
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

/// [`gpu_context`] begun early, on another thread, so that the context is
/// made while the inputs open: ffmpeg's start and its probe take about as
/// long as the driver takes to make a device. Only when no input will be
/// decoded on the device (`--decode cpu`, or inputs no decoder reads):
/// otherwise such an input brings the context the command must share.
pub struct EarlyContext(Option<JoinHandle<vqscope_gpu::Result<GpuContext>>>);

impl EarlyContext {
    /// Begins the context for a command reading `inputs` (`raw`: as raw
    /// yuv), after `--decode` was applied.
    pub fn begin(options: ContextOptions, inputs: &[&Path], raw: bool) -> Self {
        let early = vqscope_video::decode_choice() == DecodeChoice::Cpu
            || !inputs.iter().any(|path| vqscope_video::may_need_a_decoder(path, raw));
        Self(early.then(|| std::thread::spawn(move || GpuContext::new(&options))))
    }

    /// The context: the one begun early, else [`gpu_context`]'s.
    pub fn take(mut self, options: &ContextOptions) -> anyhow::Result<Arc<GpuContext>> {
        match self.0.take().map(JoinHandle::join) {
            Some(Ok(made)) => Ok(Arc::new(made?)),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => gpu_context(options),
        }
    }
}

impl Drop for EarlyContext {
    /// A command that fails before it needs the context still waits for
    /// it: a process must not exit while a thread is inside the driver.
    fn drop(&mut self) {
        if let Some(making) = self.0.take() {
            let _ = making.join();
        }
    }
}
