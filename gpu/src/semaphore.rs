//! Binary semaphores: the GPU-side signal between acquiring a swapchain
//! image, drawing into it and presenting it. Timeline semaphores, which
//! order vqscope's own submissions, belong to the [`crate::Submitter`];
//! the presentation engine only speaks binary ones.

use std::sync::Arc;

use ash::vk;

use crate::context::GpuContext;
use crate::error::{Result, vk_error};

/// One binary semaphore, destroyed with the value.
pub struct Semaphore {
    ctx: Arc<GpuContext>,
    raw: vk::Semaphore,
}

impl Semaphore {
    pub fn new(ctx: &Arc<GpuContext>) -> Result<Self> {
        // SAFETY: a plain create info with no chained structures; the device
        // lives as long as `ctx`, which the semaphore keeps.
        let raw = unsafe { ctx.device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
            .map_err(vk_error("vkCreateSemaphore"))?;
        Ok(Self { ctx: ctx.clone(), raw })
    }

    /// The handle, for [`crate::Submitter::submit_with`]'s waits and signals.
    pub fn raw(&self) -> vk::Semaphore {
        self.raw
    }
}

impl Drop for Semaphore {
    fn drop(&mut self) {
        // A semaphore must not be destroyed while a submission waits on or
        // signals it: wait for the context's queue first, the only one its
        // submissions go to (cheap when already idle).
        let _ = self.ctx.wait_idle();
        // SAFETY: created on this device and used only on the context's
        // queue, which is idle, so no queue operation still refers to it;
        // the handle is not used again.
        unsafe { self.ctx.device.destroy_semaphore(self.raw, None) };
    }
}
