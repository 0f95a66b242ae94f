//! The commands a [`Recorder`] can hold back instead of recording at once,
//! and the interleaving that puts several independent kernels' commands
//! side by side.
//!
//! Each kernel records its steps with a global barrier between them, so a
//! frame of several features used to run as the sum of every feature's
//! steps, each step draining the GPU before the next began. Interleaved,
//! step `j` of every feature runs between the same two barriers: the
//! small dispatches of one feature (VIF's coarse scales, ADM's last levels,
//! motion's blur) fill the device beside another's, and the barriers count
//! as the longest feature's instead of all of them together. Every command
//! of a kernel still follows its own earlier steps through a barrier, since
//! each barrier orders all earlier compute and transfer writes.

use ash::vk;

use crate::context::GpuContext;
use crate::error::{GpuError, Result};
use crate::pipeline::{BindingKind, ComputePipeline};
use crate::submit::{Binding, Recorder};

/// One command of the few the metrics record.
pub(crate) enum Command {
    Dispatch(Dispatch),
    /// [`Recorder::barrier`].
    Barrier,
    CopyBuffer {
        src: vk::Buffer,
        dst: vk::Buffer,
        region: vk::BufferCopy,
    },
    Fill {
        buffer: vk::Buffer,
        value: u32,
    },
}

/// A checked dispatch: the pipeline, what is bound to each slot, the push
/// constants and the workgroup counts.
pub(crate) struct Dispatch {
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    buffers: Vec<(u32, vk::DescriptorBufferInfo)>,
    images: Vec<(u32, vk::DescriptorImageInfo)>,
    push: Vec<u8>,
    groups: [u32; 3],
}

impl Dispatch {
    /// Checks `bindings`, `push` and `groups` against `pipeline`'s reflected
    /// layout and the device's limits.
    pub(crate) fn new(
        ctx: &GpuContext,
        pipeline: &ComputePipeline,
        bindings: &[Binding<'_>],
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<Self> {
        let name = pipeline.name();
        if bindings.len() != pipeline.bindings.len() {
            return Err(GpuError::Usage(format!(
                "{name}: {} bindings given, {} expected",
                bindings.len(),
                pipeline.bindings.len()
            )));
        }
        if push.len() as u32 != pipeline.push_constant_size {
            return Err(GpuError::Usage(format!(
                "{name}: {} push-constant bytes given, {} expected",
                push.len(),
                pipeline.push_constant_size
            )));
        }
        let max = ctx.info().max_compute_workgroup_count;
        if groups.iter().zip(max).any(|(&g, m)| g > m) || groups.contains(&0) {
            return Err(GpuError::Usage(format!(
                "{name}: dispatch {groups:?} outside 1..={max:?}"
            )));
        }
        let mut buffers = Vec::with_capacity(bindings.len());
        let mut images = Vec::new();
        for (i, (binding, kind)) in bindings.iter().zip(&pipeline.bindings).enumerate() {
            let slot = i as u32;
            match (binding, kind) {
                (Binding::Buffer(b), BindingKind::StorageBuffer) => buffers.push((
                    slot,
                    vk::DescriptorBufferInfo { buffer: b.raw(), offset: 0, range: vk::WHOLE_SIZE },
                )),
                (Binding::BufferRange(b, offset, range), BindingKind::StorageBuffer) => buffers
                    .push((
                        slot,
                        vk::DescriptorBufferInfo {
                            buffer: b.raw(),
                            offset: *offset,
                            range: *range,
                        },
                    )),
                (Binding::Image(img), BindingKind::StorageImage) => {
                    images.push((slot, storage_image_info(img.view())))
                }
                (Binding::RawImageView(view), BindingKind::StorageImage) => {
                    images.push((slot, storage_image_info(*view)))
                }
                _ => {
                    return Err(GpuError::Usage(format!("{name}: binding {i} expects a {kind:?}")));
                }
            }
        }
        Ok(Self {
            pipeline: pipeline.pipeline,
            layout: pipeline.layout,
            buffers,
            images,
            push: push.to_vec(),
            groups,
        })
    }
}

fn storage_image_info(view: vk::ImageView) -> vk::DescriptorImageInfo {
    vk::DescriptorImageInfo {
        sampler: vk::Sampler::null(),
        image_view: view,
        image_layout: vk::ImageLayout::GENERAL,
    }
}

impl Command {
    /// Records the command into `cmd`.
    pub(crate) fn record(&self, ctx: &GpuContext, cmd: vk::CommandBuffer) {
        let device = &ctx.device;
        match self {
            Command::Dispatch(d) => {
                let mut writes = Vec::with_capacity(d.buffers.len() + d.images.len());
                for (slot, info) in &d.buffers {
                    writes.push(
                        vk::WriteDescriptorSet::default()
                            .dst_binding(*slot)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(std::slice::from_ref(info)),
                    );
                }
                for (slot, info) in &d.images {
                    writes.push(
                        vk::WriteDescriptorSet::default()
                            .dst_binding(*slot)
                            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                            .image_info(std::slice::from_ref(info)),
                    );
                }
                // SAFETY: `cmd` is recording; the pipeline, its layout and every bound resource
                // belong to this device, their counts and kinds were checked against the
                // pipeline's reflected layout when the command was made (`Dispatch::new`), and
                // the callers keep the pipeline and the resources alive until the submission
                // finished.
                unsafe {
                    device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, d.pipeline);
                    ctx.push_descriptor.cmd_push_descriptor_set(
                        cmd,
                        vk::PipelineBindPoint::COMPUTE,
                        d.layout,
                        0,
                        &writes,
                    );
                    if !d.push.is_empty() {
                        device.cmd_push_constants(
                            cmd,
                            d.layout,
                            vk::ShaderStageFlags::COMPUTE,
                            0,
                            &d.push,
                        );
                    }
                    device.cmd_dispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
                }
            }
            Command::Barrier => {
                let stages =
                    vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER;
                let barrier = vk::MemoryBarrier2::default()
                    .src_stage_mask(stages)
                    .src_access_mask(
                        vk::AccessFlags2::SHADER_WRITE | vk::AccessFlags2::TRANSFER_WRITE,
                    )
                    .dst_stage_mask(stages | vk::PipelineStageFlags2::HOST)
                    .dst_access_mask(
                        vk::AccessFlags2::SHADER_READ
                            | vk::AccessFlags2::SHADER_WRITE
                            | vk::AccessFlags2::TRANSFER_READ
                            | vk::AccessFlags2::TRANSFER_WRITE
                            | vk::AccessFlags2::HOST_READ,
                    );
                let dep =
                    vk::DependencyInfo::default().memory_barriers(std::slice::from_ref(&barrier));
                // SAFETY: `cmd` is recording and the barrier has no pointers but the one to
                // itself, which outlives the call.
                unsafe { device.cmd_pipeline_barrier2(cmd, &dep) };
            }
            Command::CopyBuffer { src, dst, region } => {
                // SAFETY: `cmd` is recording; both buffers belong to this device and stay alive
                // until the submission finished (the callers' rule); Vulkan checks ranges only
                // under validation, so callers pass in-range ones.
                unsafe { device.cmd_copy_buffer(cmd, *src, *dst, std::slice::from_ref(region)) };
            }
            Command::Fill { buffer, value } => {
                // SAFETY: `cmd` is recording; the buffer belongs to this device and stays alive
                // until the submission finished.
                unsafe { device.cmd_fill_buffer(cmd, *buffer, 0, vk::WHOLE_SIZE, *value) };
            }
        }
    }
}

/// One kernel's commands for a frame, held back by [`Recorder::deferred`]
/// to be recorded beside others' by [`Recorder::interleave`].
pub struct Deferred {
    commands: Vec<Command>,
}

impl Deferred {
    /// The commands between barriers, in order: step `j` is what follows
    /// the kernel's `j`-th barrier (step 0 what precedes the first).
    fn into_steps(self) -> Vec<Vec<Command>> {
        let mut steps = Vec::new();
        let mut step = Vec::new();
        for command in self.commands {
            match command {
                Command::Barrier => steps.push(std::mem::take(&mut step)),
                command => step.push(command),
            }
        }
        steps.push(step);
        steps
    }
}

impl Recorder<'_> {
    /// Runs `record` with every command held back instead of recorded.
    /// Only dispatches, barriers, buffer copies and fills can be held;
    /// `record` must not use the recorder's other commands.
    pub fn deferred(
        &mut self,
        record: impl FnOnce(&mut Recorder<'_>) -> Result<()>,
    ) -> Result<Deferred> {
        let outer = self.held.replace(Vec::new());
        let recorded = record(self);
        let commands = std::mem::replace(&mut self.held, outer).unwrap_or_default();
        recorded.map(|()| Deferred { commands })
    }

    /// Records independent kernels' held commands side by side
    /// ([`interleaved`]).
    pub fn interleave(&mut self, parts: Vec<Deferred>) {
        for command in interleaved(parts) {
            self.issue(command);
        }
    }
}

/// Independent kernels' commands side by side: step `j` of every part,
/// then one barrier if any part has a barrier there. Each part's commands
/// keep their order and stay behind every barrier that preceded them in
/// the part; parts must not write what another part reads or writes in the
/// same step (features write only their own buffers).
fn interleaved(parts: Vec<Deferred>) -> Vec<Command> {
    let mut out = Vec::new();
    let mut parts: Vec<_> = parts.into_iter().map(|p| p.into_steps().into_iter()).collect();
    loop {
        let mut stepped = false;
        let mut barrier = false;
        for part in &mut parts {
            if let Some(step) = part.next() {
                stepped = true;
                barrier |= part.len() > 0;
                out.extend(step);
            }
        }
        if !stepped {
            return out;
        }
        if barrier {
            out.push(Command::Barrier);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part from a script: `None` a barrier, `Some(v)` a fill marked `v`.
    fn part(script: &[Option<u32>]) -> Deferred {
        let commands = script
            .iter()
            .map(|s| match s {
                None => Command::Barrier,
                Some(value) => Command::Fill { buffer: vk::Buffer::null(), value: *value },
            })
            .collect();
        Deferred { commands }
    }

    fn script(commands: &[Command]) -> Vec<Option<u32>> {
        commands
            .iter()
            .map(|c| match c {
                Command::Fill { value, .. } => Some(*value),
                Command::Barrier => None,
                _ => unreachable!("the tests hold fills and barriers only"),
            })
            .collect()
    }

    #[test]
    fn steps_run_side_by_side_with_one_barrier_each() {
        let a = part(&[None, Some(1), None, Some(2), Some(3), None, Some(4)]);
        let b = part(&[None, Some(10), None, Some(11)]);
        let c = part(&[Some(20)]);
        let got = script(&interleaved(vec![a, b, c]));
        let want =
            [Some(20), None, Some(1), Some(10), None, Some(2), Some(3), Some(11), None, Some(4)];
        assert_eq!(got, want);
    }

    /// On random scripts: every part's commands come out in order, each
    /// behind at least as many barriers as preceded it in its part, and
    /// there are as many barriers as the part with the most.
    #[test]
    fn every_part_keeps_its_order_and_its_barriers() {
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for _ in 0..200 {
            let count = 1 + next(5);
            let scripts: Vec<Vec<Option<u32>>> = (0..count)
                .map(|p| (0..next(12)).map(|i| (next(3) != 0).then_some(p * 1000 + i)).collect())
                .collect();
            let got = script(&interleaved(scripts.iter().map(|s| part(s)).collect()));
            let most = scripts.iter().map(|s| s.iter().filter(|c| c.is_none()).count()).max();
            assert_eq!(got.iter().filter(|c| c.is_none()).count(), most.unwrap_or(0));
            for s in &scripts {
                let mut at = 0;
                let mut barriers_out = 0;
                let mut barriers_in = 0;
                for command in s {
                    match command {
                        None => barriers_in += 1,
                        Some(v) => {
                            while got[at] != Some(*v) {
                                barriers_out += usize::from(got[at].is_none());
                                at += 1;
                            }
                            assert!(barriers_out >= barriers_in, "{v} ran too early: {got:?}");
                        }
                    }
                }
            }
        }
    }
}
