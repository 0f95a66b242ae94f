//! Frames to the GPU, once. A [`FrameUploader`] owns a ring of slots, each
//! a host-visible staging buffer and a device buffer big enough for one
//! reference and its distorted frames (one for a pair, one per rendition
//! for an encoding ladder, whose reference is uploaded once for all).
//! Uploading copies the frames into the slot's staging memory and records
//! the copy into the caller's command buffer; the returned
//! [`DeviceFramePair`] (or [`DeviceFrameGroup`]) is the handle every
//! consumer (each metric kernel, the renderer) reads from. Nobody uploads a
//! second copy.
//!
//! Slot `i` is reused by the pair uploaded `slots` later. The caller records
//! uploads inside a [`vqscope_gpu::Submitter`] ring of at least as many slots,
//! whose `submit` waits for the slot's previous submission before recording:
//! that wait is what makes rewriting the staging memory safe.

use std::sync::Arc;

use vqscope_gpu::{Buffer, GpuContext, Recorder};

use crate::frame::{Frame, Geometry};
use crate::host_frames::HostFramePool;
use crate::pair::FramePair;

/// Where one plane lies in a slot's device buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaneLayout {
    /// Byte offset of sample (0, 0); a multiple of 4.
    pub offset: u32,
    pub width: u32,
    pub height: u32,
    pub bytes_per_sample: u32,
}

/// One uploaded frame: its geometry and where its planes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceFrame {
    pub geometry: Geometry,
    /// Planes in Y, Cb, Cr order (`plane_count` of them are valid).
    pub planes: [PlaneLayout; 3],
    pub plane_count: usize,
}

/// A reference/distorted pair on the GPU: both frames lie in the device
/// buffer of ring slot `slot` ([`FrameUploader::slot_buffer`]), valid until
/// `slots` more pairs have been uploaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceFramePair {
    pub index: u64,
    pub slot: usize,
    pub reference: DeviceFrame,
    pub distorted: DeviceFrame,
}

/// A reference and its distorted frames on the GPU, all in the device
/// buffer of ring slot `slot`; `distorted[k]` is `None` for a lane that had
/// no frame (its input ended).
///
/// A lane whose input comes at another size ([`FrameUploader::set_lane_input`])
/// has its frame uploaded as it is to `inputs[k]`; `distorted[k]` is then
/// where the caller scales it to (nothing is there until it does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFrameGroup {
    pub index: u64,
    pub slot: usize,
    pub reference: DeviceFrame,
    pub distorted: Vec<Option<DeviceFrame>>,
    pub inputs: Vec<Option<DeviceFrame>>,
}

struct Slot {
    staging: Buffer,
    device: Buffer,
    /// Host blocks and device planes the slot's last upload copied from,
    /// kept until the slot is used again (its copy is then done) so no
    /// reader refills or frees them first.
    held: Vec<Arc<dyn Send + Sync>>,
}

/// The staging ring.
pub struct FrameUploader {
    slots: Vec<Slot>,
    geometry: Geometry,
    /// The geometry of each lane's distorted frames as uploaded: `geometry`,
    /// or another size for a lane scaled on the GPU.
    inputs: Vec<Geometry>,
    next: usize,
    /// Host memory that readers put frames of these sizes into while the
    /// ring exists, copied to the device without a CPU copy.
    _pools: Vec<HostFramePool>,
}

/// Rounds up to a multiple of 4 bytes (planes start on word boundaries).
fn word_align(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Layout of a frame's planes starting at byte `base`; returns the frame
/// and the byte just past it.
fn frame_layout(geometry: &Geometry, base: usize) -> (DeviceFrame, usize) {
    let bps = geometry.format.bytes_per_sample() as u32;
    let mut planes = [PlaneLayout { offset: 0, width: 0, height: 0, bytes_per_sample: bps }; 3];
    let mut at = base;
    let count = geometry.format.chroma.plane_count();
    for (i, plane) in planes.iter_mut().enumerate().take(count) {
        let (w, h) = geometry.plane_size(i);
        *plane = PlaneLayout { offset: at as u32, width: w, height: h, bytes_per_sample: bps };
        at = word_align(at + geometry.plane_bytes(i));
    }
    (DeviceFrame { geometry: *geometry, planes, plane_count: count }, at)
}

impl FrameUploader {
    /// A ring of `slots` slots for pairs of `geometry`.
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        slots: usize,
    ) -> vqscope_gpu::Result<Self> {
        Self::with_lanes(ctx, geometry, slots, 1)
    }

    /// A ring of `slots` slots, each for a reference and `lanes` distorted
    /// frames of `geometry`.
    pub fn with_lanes(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        slots: usize,
        lanes: usize,
    ) -> vqscope_gpu::Result<Self> {
        let inputs = vec![geometry; lanes.max(1)];
        let slots = make_slots(ctx, slots, Self::sized_for(geometry, &inputs))?;
        let pools = open_pools(ctx, geometry, &inputs);
        Ok(Self { slots, geometry, inputs, next: 0, _pools: pools })
    }

    /// Makes lane `k` take distorted frames of `input` (another size, which
    /// the caller scales on the GPU from [`DeviceFrameGroup::inputs`]):
    /// every slot grows by room for one such frame. Call before uploading.
    pub fn set_lane_input(
        &mut self,
        ctx: &Arc<GpuContext>,
        k: usize,
        input: Geometry,
    ) -> vqscope_gpu::Result<()> {
        self.inputs[k] = input;
        self.slots =
            make_slots(ctx, self.slots.len(), Self::sized_for(self.geometry, &self.inputs))?;
        self._pools = open_pools(ctx, self.geometry, &self.inputs);
        Ok(())
    }

    /// Bytes a slot takes: the reference and every lane's frame of
    /// `geometry`, then each lane input of another geometry as uploaded.
    fn sized_for(geometry: Geometry, inputs: &[Geometry]) -> u64 {
        let scaled: u64 =
            inputs.iter().filter(|&&g| g != geometry).map(|g| frame_layout(g, 0).1 as u64).sum();
        Self::slot_size(geometry, inputs.len()) + scaled
    }

    /// Bytes a slot for a reference and `lanes` distorted frames of
    /// `geometry` takes (what must fit the device's storage buffer range).
    pub fn slot_size(geometry: Geometry, lanes: usize) -> u64 {
        let (_, end) = frame_layout(&geometry, 0);
        (1 + lanes as u64) * end as u64
    }

    /// Bytes one slot holds (both frames of a pair).
    pub fn slot_bytes(&self) -> u64 {
        self.slots[0].device.size()
    }

    /// Copies `pair` into the next slot's staging memory and records the
    /// transfer into `rec` (followed by a barrier).
    pub fn upload(
        &mut self,
        rec: &mut Recorder<'_>,
        pair: &FramePair,
    ) -> vqscope_gpu::Result<DeviceFramePair> {
        self.upload_frames(rec, pair.index, &pair.reference, &pair.distorted)
    }

    /// [`FrameUploader::upload`] for two frames that need not come from one
    /// pair (the player shows a side with a frame offset); `index` names
    /// the pair in the returned handle.
    pub fn upload_frames(
        &mut self,
        rec: &mut Recorder<'_>,
        index: u64,
        reference: &Frame,
        distorted: &Frame,
    ) -> vqscope_gpu::Result<DeviceFramePair> {
        let up = self.upload_lanes(rec, index, reference, &[Some(distorted)])?;
        let distorted = up.distorted[0].expect("lane 0 was given");
        Ok(DeviceFramePair { index, slot: up.slot, reference: up.reference, distorted })
    }

    /// Copies `reference` once and each lane's `distorted` frame (`None`:
    /// that lane has none, its space is left as it was) into the next slot
    /// and records the transfer, as [`FrameUploader::upload`].
    pub fn upload_lanes(
        &mut self,
        rec: &mut Recorder<'_>,
        index: u64,
        reference: &Frame,
        distorted: &[Option<&Frame>],
    ) -> vqscope_gpu::Result<DeviceFrameGroup> {
        if distorted.len() > self.inputs.len() {
            return Err(vqscope_gpu::GpuError::Usage(format!(
                "{} distorted frames for an upload ring of {} lanes",
                distorted.len(),
                self.inputs.len()
            )));
        }
        let expected = std::iter::once(&self.geometry).chain(&self.inputs);
        let given = std::iter::once(Some(reference)).chain(distorted.iter().copied());
        for (geometry, frame) in expected.zip(given) {
            let Some(frame) = frame else { continue };
            if frame.geometry != *geometry {
                return Err(vqscope_gpu::GpuError::Usage(format!(
                    "frame {} is {}x{}, the upload ring was made for {}x{}",
                    frame.index,
                    frame.geometry.width,
                    frame.geometry.height,
                    geometry.width,
                    geometry.height
                )));
            }
        }
        let slot_index = self.next;
        self.next = (self.next + 1) % self.slots.len();
        let slot = &mut self.slots[slot_index];
        let (ref_layout, mut end) = frame_layout(&self.geometry, 0);
        let mut layouts = Vec::with_capacity(distorted.len());
        let mut jobs = vec![(ref_layout, reference)];
        let mut scaled = Vec::new();
        for (k, frame) in distorted.iter().enumerate() {
            let (layout, next) = frame_layout(&self.geometry, end);
            end = next;
            layouts.push(frame.map(|_| layout));
            if self.inputs[k] == self.geometry {
                jobs.extend(frame.map(|f| (layout, f)));
            } else {
                scaled.push((k, *frame));
            }
        }
        // Inputs of another size after every lane's frame (whose offsets
        // stay those of an unscaled ring, as earlier-frame readers expect).
        let mut inputs = vec![None; distorted.len()];
        for (k, frame) in scaled {
            let (layout, next) = frame_layout(&self.inputs[k], end);
            end = next;
            inputs[k] = frame.map(|f| {
                jobs.push((layout, f));
                layout
            });
        }
        // The submission that last used this slot is done (see the module
        // doc), and with it the copies from these blocks.
        slot.held.clear();
        let mut staged = Vec::with_capacity(jobs.len());
        let device = slot.device.context().clone();
        for (layout, frame) in jobs {
            // A block or planes of another device (two contexts in one
            // process) are read through staging like heap memory. Planes
            // decoded on this device were written by an earlier submission
            // on its queue, which ends in a barrier.
            let ours = |buffer: &Buffer| Arc::ptr_eq(buffer.context(), &device);
            if let Some(block) = frame.data.host_block().filter(|b| ours(b.buffer())) {
                for (src, dst, len) in plane_copies(&layout, frame, |i| frame.plane_offset(i)) {
                    rec.copy_buffer(block.buffer(), src, &slot.device, dst, len);
                }
                slot.held.push(block.clone());
            } else if let Some(planes) = frame.data.device_planes().filter(|p| ours(&p.buffer)) {
                let at = |i: usize| planes.planes[i].offset as usize;
                for (src, dst, len) in plane_copies(&layout, frame, at) {
                    rec.copy_buffer(&planes.buffer, src, &slot.device, dst, len);
                }
                slot.held.push(planes.clone());
            } else {
                staged.push((layout, frame));
            }
        }
        if !staged.is_empty() {
            write_frames(slot.staging.mapped_mut()?, &staged);
            for (layout, frame) in &staged {
                let at = |i: usize| layout.planes[i].offset as usize;
                for (src, dst, len) in plane_copies(layout, frame, at) {
                    rec.copy_buffer(&slot.staging, src, &slot.device, dst, len);
                }
            }
        }
        rec.barrier();
        Ok(DeviceFrameGroup {
            index,
            slot: slot_index,
            reference: ref_layout,
            distorted: layouts,
            inputs,
        })
    }

    /// The device buffer of ring slot `slot` (for a consumer that needs an
    /// earlier pair, such as motion's previous reference frame).
    pub fn slot_buffer(&self, slot: usize) -> &Buffer {
        &self.slots[slot].device
    }

    /// The slot the next upload will use.
    pub fn next_slot(&self) -> usize {
        self.next
    }

    pub fn slots(&self) -> usize {
        self.slots.len()
    }
}

/// A pool of host memory for each distinct frame size the ring takes.
fn open_pools(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    inputs: &[Geometry],
) -> Vec<HostFramePool> {
    let mut sizes: Vec<usize> =
        std::iter::once(&geometry).chain(inputs).map(Geometry::frame_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.into_iter().map(|bytes| HostFramePool::open(ctx, bytes)).collect()
}

/// The device copies that put `frame`'s planes where `layout` says: source
/// offset (plane `i` of the frame lies at `src_at(i)` in the source buffer),
/// destination offset and length, per plane.
fn plane_copies<'a>(
    layout: &'a DeviceFrame,
    frame: &'a Frame,
    src_at: impl Fn(usize) -> usize + 'a,
) -> impl Iterator<Item = (u64, u64, u64)> + 'a {
    layout.planes.iter().enumerate().take(layout.plane_count).map(move |(i, plane)| {
        (src_at(i) as u64, u64::from(plane.offset), frame.geometry.plane_bytes(i) as u64)
    })
}

/// `count` slots of `bytes` each (at least one).
fn make_slots(ctx: &Arc<GpuContext>, count: usize, bytes: u64) -> vqscope_gpu::Result<Vec<Slot>> {
    (0..count.max(1))
        .map(|_| {
            Ok(Slot {
                staging: Buffer::staging(ctx, "frame staging", bytes)?,
                device: Buffer::storage(ctx, "frame planes", bytes)?,
                held: Vec::new(),
            })
        })
        .collect()
}

/// Copies every plane of the frames to where their layouts put them, all
/// planes at once on several threads. Layout offsets only grow, so the
/// staging memory splits into one disjoint slice per plane.
fn write_frames(staging: &mut [u8], frames: &[(DeviceFrame, &Frame)]) {
    let mut jobs = Vec::new();
    let mut rest = staging;
    let mut consumed = 0;
    for (layout, frame) in frames {
        for (i, plane) in layout.planes.iter().enumerate().take(layout.plane_count) {
            let bytes = frame.plane_bytes(i);
            let (_, tail) = rest.split_at_mut(plane.offset as usize - consumed);
            let (dst, tail) = tail.split_at_mut(bytes.len());
            consumed = plane.offset as usize + bytes.len();
            rest = tail;
            jobs.push((dst, bytes));
        }
    }
    crate::parallel::copy_all(jobs);
}
