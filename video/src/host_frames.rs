//! Frame memory the GPU copies from directly. An upload ring
//! ([`crate::FrameUploader`]) opens a [`HostFramePool`] of blocks of host
//! memory that the device can read (`Buffer::host_source`); while it is
//! open, readers of y4m and raw files (`buffers::take`) read their
//! frames into these blocks instead of the heap, and the upload records a
//! device copy from the block. The frame then crosses the CPU once (the
//! file read) instead of twice (read, then copy into staging memory).
//!
//! A block goes back to its pool when the last holder lets go of it: the
//! frame (recycled or dropped) and the upload slot that copied from it,
//! which keeps it until that slot is used again, i.e. until the device has
//! finished the copy.

use std::sync::{Arc, Mutex, Weak};

use vqscope_gpu::{Buffer, GpuContext};

/// Pools open now, for readers to take blocks from.
static OPEN: Mutex<Vec<Weak<Shared>>> = Mutex::new(Vec::new());

/// Blocks of host memory for frames of up to `block_bytes`, made on demand
/// up to a bound and used again. Dropping the pool closes it: readers take
/// heap memory again, and blocks still out are freed when let go.
pub struct HostFramePool {
    /// Held only to keep the pool open.
    _shared: Arc<Shared>,
}

struct Shared {
    ctx: Arc<GpuContext>,
    block_bytes: usize,
    max_blocks: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    free: Vec<Buffer>,
    made: usize,
}

/// Host memory a pool holds at most: the read-ahead of the decode workers
/// at 4K plus the frames in flight, as `buffers` keeps on the heap.
const MAX_POOL_BYTES: usize = 1 << 30;

impl HostFramePool {
    /// Opens a pool for frames of up to `block_bytes` each.
    pub fn open(ctx: &Arc<GpuContext>, block_bytes: usize) -> Self {
        let shared = Arc::new(Shared {
            ctx: ctx.clone(),
            block_bytes: block_bytes.max(1),
            max_blocks: (MAX_POOL_BYTES / block_bytes.max(1)).max(2),
            state: Mutex::new(State::default()),
        });
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        open.retain(|p| p.strong_count() > 0);
        open.push(Arc::downgrade(&shared));
        HostFramePool { _shared: shared }
    }
}

/// A block for a frame of `len` bytes from an open pool whose blocks fit it
/// (never more than twice too large), or `None`: no such pool, the pool is
/// at its bound, or the device refused the memory.
pub(crate) fn take(len: usize) -> Option<HostBlock> {
    let pools: Vec<Arc<Shared>> = {
        let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        open.iter().filter_map(Weak::upgrade).collect()
    };
    pools
        .into_iter()
        .filter(|p| p.block_bytes >= len && p.block_bytes / 2 <= len)
        .find_map(|p| p.take())
}

impl Shared {
    fn take(self: &Arc<Self>) -> Option<HostBlock> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let buffer = match state.free.pop() {
            Some(buffer) => buffer,
            None if state.made < self.max_blocks => {
                let buffer =
                    Buffer::host_source(&self.ctx, "frame host memory", self.block_bytes as u64)
                        .ok()
                        .filter(|b| b.mapped().is_ok())?;
                state.made += 1;
                buffer
            }
            None => return None,
        };
        Some(HostBlock { buffer: Some(buffer), pool: Arc::downgrade(self) })
    }
}

/// One block of a pool's host memory, mapped; back to its pool on drop.
pub struct HostBlock {
    /// Always `Some` until dropped.
    buffer: Option<Buffer>,
    pool: Weak<Shared>,
}

impl HostBlock {
    /// The device buffer over the block, to copy from.
    pub fn buffer(&self) -> &Buffer {
        self.buffer.as_ref().expect("a block holds its buffer until dropped")
    }

    /// The block's bytes (`take` keeps only blocks whose mapping works).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.buffer().mapped().expect("pool blocks are mapped")
    }

    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut().and_then(|b| b.mapped_mut().ok()).expect("pool blocks are mapped")
    }
}

impl Drop for HostBlock {
    fn drop(&mut self) {
        let (Some(buffer), Some(pool)) = (self.buffer.take(), self.pool.upgrade()) else {
            return;
        };
        pool.state.lock().unwrap_or_else(|e| e.into_inner()).free.push(buffer);
    }
}
