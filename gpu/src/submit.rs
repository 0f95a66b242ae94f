//! Command recording and submission. A [`Submitter`] owns a ring of command
//! buffers and one timeline semaphore: each submission signals the next
//! value, so several can be in flight and the host waits only for the one
//! whose results it needs. [`Recorder`] wraps a command buffer being recorded
//! with the few operations vqscope uses.

use std::sync::Arc;

use ash::vk;

use crate::command::{Command, Dispatch};
use crate::context::GpuContext;
use crate::error::{Result, vk_error};
use crate::memory::{Buffer, Image, color_range};
use crate::pipeline::ComputePipeline;

/// A resource bound to one slot of a compute pipeline.
#[derive(Clone, Copy)]
pub enum Binding<'a> {
    /// The whole buffer.
    Buffer(&'a Buffer),
    /// `size` bytes of the buffer from `offset`.
    BufferRange(&'a Buffer, u64, u64),
    /// A storage image in GENERAL layout.
    Image(&'a Image),
    /// A raw storage image view in GENERAL layout (a swapchain image).
    RawImageView(vk::ImageView),
}

/// A ticket for a submission: the timeline value it signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket(pub u64);

/// A ring of command buffers sharing one timeline semaphore.
pub struct Submitter {
    ctx: Arc<GpuContext>,
    pool: vk::CommandPool,
    buffers: Vec<vk::CommandBuffer>,
    /// Timeline value each ring slot last signalled.
    slot_values: Vec<u64>,
    timeline: vk::Semaphore,
    next_value: u64,
}

impl Submitter {
    /// A ring of `slots` command buffers (the number of submissions that
    /// may be in flight at once).
    pub fn new(ctx: &Arc<GpuContext>, slots: usize) -> Result<Self> {
        let slots = slots.max(1);
        let device = &ctx.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(ctx.queue_family);
        // SAFETY: create info without pointers, for the context's queue family.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateCommandPool"))?;
        let mut this = Self {
            ctx: ctx.clone(),
            pool,
            buffers: Vec::new(),
            slot_values: vec![0; slots],
            timeline: vk::Semaphore::null(),
            next_value: 1,
        };
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(slots as u32);
        // SAFETY: the pool was just created on this device.
        this.buffers = unsafe { device.allocate_command_buffers(&alloc) }
            .map_err(vk_error("vkAllocateCommandBuffers"))?;
        let mut timeline_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let sem_info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline_info);
        // SAFETY: the chained timeline info outlives the call.
        this.timeline = unsafe { device.create_semaphore(&sem_info, None) }
            .map_err(vk_error("vkCreateSemaphore"))?;
        Ok(this)
    }

    /// Records with `record` and submits; returns the ticket to wait on.
    /// Blocks only if the ring slot it reuses is still in flight.
    pub fn submit(
        &mut self,
        record: impl FnOnce(&mut Recorder<'_>) -> Result<()>,
    ) -> Result<Ticket> {
        self.submit_with(&[], &[], record)
    }

    /// Like [`Submitter::submit`], also waiting on and signalling binary
    /// semaphores (swapchain acquire and present).
    pub fn submit_with(
        &mut self,
        wait: &[(vk::Semaphore, vk::PipelineStageFlags2)],
        signal: &[vk::Semaphore],
        record: impl FnOnce(&mut Recorder<'_>) -> Result<()>,
    ) -> Result<Ticket> {
        let slot = (self.next_value as usize) % self.buffers.len();
        self.wait(Ticket(self.slot_values[slot]))?;
        let cmd = self.buffers[slot];
        let device = &self.ctx.device;
        // SAFETY: the ring slot's previous submission finished (waited above), so its command
        // buffer may be reset and re-recorded; the pool allows resetting single buffers.
        unsafe {
            device
                .reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())
                .map_err(vk_error("vkResetCommandBuffer"))?;
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device.begin_command_buffer(cmd, &begin).map_err(vk_error("vkBeginCommandBuffer"))?;
        }
        let mut recorder = Recorder::over(&self.ctx, cmd);
        let recorded = record(&mut recorder);
        // SAFETY: `cmd` is in the recording state, begun above.
        let ended =
            unsafe { device.end_command_buffer(cmd) }.map_err(vk_error("vkEndCommandBuffer"));
        recorded?;
        ended?;

        let value = self.next_value;
        let cmd_infos = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let mut signal_infos = vec![
            vk::SemaphoreSubmitInfo::default()
                .semaphore(self.timeline)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
        ];
        signal_infos.extend(signal.iter().map(|&s| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(s)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        }));
        let wait_infos: Vec<_> = wait
            .iter()
            .map(|&(s, stage)| vk::SemaphoreSubmitInfo::default().semaphore(s).stage_mask(stage))
            .collect();
        let submit = vk::SubmitInfo2::default()
            .command_buffer_infos(&cmd_infos)
            .signal_semaphore_infos(&signal_infos)
            .wait_semaphore_infos(&wait_infos);
        self.ctx
            // SAFETY: the queue lock is held; every array the submit info points to outlives the
            // call, and the command buffer was fully recorded.
            .with_queue(|q| unsafe { device.queue_submit2(q, &[submit], vk::Fence::null()) })
            .map_err(vk_error("vkQueueSubmit2"))?;
        self.slot_values[slot] = value;
        self.next_value += 1;
        Ok(Ticket(value))
    }

    /// Waits until the submission of `ticket` (and all before it) finished.
    pub fn wait(&self, ticket: Ticket) -> Result<()> {
        if ticket.0 == 0 {
            return Ok(());
        }
        let semaphores = [self.timeline];
        let values = [ticket.0];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        // SAFETY: the timeline semaphore belongs to this device; the arrays outlive the call.
        unsafe { self.ctx.device.wait_semaphores(&info, u64::MAX) }
            .map_err(vk_error("vkWaitSemaphores"))
    }

    /// Records, submits and waits: for one-off work (uploads, tests).
    pub fn run(&mut self, record: impl FnOnce(&mut Recorder<'_>) -> Result<()>) -> Result<()> {
        let ticket = self.submit(record)?;
        self.wait(ticket)
    }

    /// Waits for every submission.
    pub fn wait_all(&self) -> Result<()> {
        self.wait(Ticket(self.next_value - 1))
    }
}

impl Drop for Submitter {
    fn drop(&mut self) {
        let _ = self.wait_all();
        // SAFETY: every submission finished (wait_all above), so neither the semaphore nor the
        // pool's command buffers are in use.
        unsafe {
            self.ctx.device.destroy_semaphore(self.timeline, None);
            // Destroying the pool frees its command buffers.
            self.ctx.device.destroy_command_pool(self.pool, None);
        }
    }
}

/// A command buffer being recorded.
pub struct Recorder<'a> {
    ctx: &'a GpuContext,
    cmd: vk::CommandBuffer,
    /// Commands held back while [`Recorder::deferred`] runs, instead of
    /// recorded.
    pub(crate) held: Option<Vec<Command>>,
}

impl<'a> Recorder<'a> {
    /// A recorder over `cmd`, a command buffer of `ctx`'s queue family in
    /// the recording state (for submissions this crate makes itself).
    pub(crate) fn over(ctx: &'a GpuContext, cmd: vk::CommandBuffer) -> Self {
        Recorder { ctx, cmd, held: None }
    }

    pub fn raw(&self) -> vk::CommandBuffer {
        self.check_not_deferring();
        self.cmd
    }

    /// The context the command buffer was allocated from.
    pub(crate) fn context(&self) -> &GpuContext {
        self.ctx
    }

    /// Records `command`, or holds it back while deferring.
    pub(crate) fn issue(&mut self, command: Command) {
        match &mut self.held {
            Some(held) => held.push(command),
            None => command.record(self.ctx, self.cmd),
        }
    }

    /// Whether commands are held back: the commands [`Command`] cannot hold
    /// must not be recorded then (they would run out of order).
    fn check_not_deferring(&self) {
        debug_assert!(self.held.is_none(), "only dispatches, barriers, copies and fills defer");
    }

    /// Binds `bindings` and push constants, then dispatches `groups`.
    pub fn dispatch(
        &mut self,
        pipeline: &ComputePipeline,
        bindings: &[Binding<'_>],
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let dispatch = Dispatch::new(self.ctx, pipeline, bindings, push, groups)?;
        self.issue(Command::Dispatch(dispatch));
        Ok(())
    }

    /// Makes every earlier compute and transfer write visible to later
    /// compute shaders and transfers.
    pub fn barrier(&mut self) {
        self.issue(Command::Barrier);
    }

    /// Moves `image` from `old` to `new` layout, ordering it after earlier
    /// compute/transfer work and before later compute/transfer work.
    pub fn image_layout(&mut self, image: vk::Image, old: vk::ImageLayout, new: vk::ImageLayout) {
        self.check_not_deferring();
        let stages =
            vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER;
        let barrier = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(stages)
            .src_access_mask(vk::AccessFlags2::SHADER_WRITE | vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(stages)
            .dst_access_mask(
                vk::AccessFlags2::SHADER_READ
                    | vk::AccessFlags2::SHADER_WRITE
                    | vk::AccessFlags2::TRANSFER_READ
                    | vk::AccessFlags2::TRANSFER_WRITE,
            )
            .old_layout(old)
            .new_layout(new)
            .image(image)
            .subresource_range(color_range());
        let dep =
            vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&barrier));
        // SAFETY: `cmd` is recording; the barrier names an image of this device.
        unsafe { self.ctx.device.cmd_pipeline_barrier2(self.cmd, &dep) };
    }

    /// Copies `size` bytes between buffers.
    pub fn copy_buffer(
        &mut self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        size: u64,
    ) {
        let region = vk::BufferCopy { src_offset, dst_offset, size };
        self.issue(Command::CopyBuffer { src: src.raw(), dst: dst.raw(), region });
    }

    /// Copies tightly packed rows from `src` at `offset` into `image`, which
    /// must be in GENERAL or TRANSFER_DST layout (`layout`).
    pub fn copy_buffer_to_image(
        &mut self,
        src: &Buffer,
        offset: u64,
        image: &Image,
        layout: vk::ImageLayout,
    ) {
        self.check_not_deferring();
        let region = image_copy_region(offset, image);
        // SAFETY: `cmd` is recording; buffer and image belong to this device and stay alive until
        // the submission finished; the region is the whole image, the buffer sized for it by the
        // caller.
        unsafe {
            self.ctx.device.cmd_copy_buffer_to_image(
                self.cmd,
                src.raw(),
                image.raw(),
                layout,
                &[region],
            )
        };
    }

    /// Copies `image` (in `layout`) into `dst` at `offset`, rows tightly packed.
    pub fn copy_image_to_buffer(
        &mut self,
        image: &Image,
        layout: vk::ImageLayout,
        dst: &Buffer,
        offset: u64,
    ) {
        self.check_not_deferring();
        let region = image_copy_region(offset, image);
        // SAFETY: as in `copy_buffer_to_image`, in the other direction.
        unsafe {
            self.ctx.device.cmd_copy_image_to_buffer(
                self.cmd,
                image.raw(),
                layout,
                dst.raw(),
                &[region],
            )
        };
    }

    /// Fills `buffer` with the 32-bit `value` (test poisoning, clears).
    pub fn fill(&mut self, buffer: &Buffer, value: u32) {
        self.issue(Command::Fill { buffer: buffer.raw(), value });
    }

    /// Clears `image` (in GENERAL or TRANSFER_DST layout, `layout`) to
    /// `rgba`, each channel in 0..=1.
    pub fn clear_image(&mut self, image: &Image, layout: vk::ImageLayout, rgba: [f32; 4]) {
        self.check_not_deferring();
        let colour = vk::ClearColorValue { float32: rgba };
        // SAFETY: the image belongs to this device and the caller keeps it
        // alive until the submission finished (as for every recorded use).
        unsafe {
            self.ctx.device.cmd_clear_color_image(
                self.cmd,
                image.raw(),
                layout,
                &colour,
                &[color_range()],
            )
        };
    }
}

fn image_copy_region(offset: u64, image: &Image) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: offset,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D { width: image.width(), height: image.height(), depth: 1 },
    }
}
