//! Frame buffers used again instead of allocated afresh. A 4K frame is
//! 12 MB: a new allocation of that size is a fresh memory mapping, so every
//! frame read would fault in 3,000 pages and every frame dropped would unmap
//! them, and with several decode workers those mapping changes serialise in
//! the kernel. Consumers hand frames back with [`crate::FramePair::recycle`]
//! once uploaded; readers take their buffers from here. While an upload
//! ring has a pool of host memory open (`host_frames`), frames that fit its
//! blocks are read there instead.

use std::sync::Mutex;

use crate::frame_data::FrameData;

/// Spare buffers, bounded by [`KEEP_BYTES`].
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// Capacity kept at most: the read-ahead of a few decode workers at 4K.
const KEEP_BYTES: usize = 1 << 30;

/// An empty buffer that can hold `len` bytes without reallocating: a spare
/// one when a fitting one exists (never more than twice too large, so a
/// large spare is not wasted on a small frame), else a new one. New buffers
/// reserve at most 16 MiB up front and grow as data arrives, so a header
/// that lies about the frame size cannot make us allocate gigabytes.
pub(crate) fn take(len: usize) -> FrameData {
    match crate::host_frames::take(len) {
        Some(block) => FrameData::host(block),
        None => take_heap(len).into(),
    }
}

fn take_heap(len: usize) -> Vec<u8> {
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    let fits = |b: &Vec<u8>| b.capacity() >= len && b.capacity() / 2 <= len;
    if let Some(i) = spare.iter().position(fits) {
        let mut buf = spare.swap_remove(i);
        buf.clear();
        return buf;
    }
    Vec::with_capacity(len.min(1 << 24))
}

/// Keeps a heap buffer for a later [`take`], unless the spares are full;
/// a host block goes back to its pool once the upload lets go of it too,
/// and device planes are freed then.
pub(crate) fn give(data: FrameData) {
    if let Some(heap) = data.into_heap() {
        give_heap(heap);
    }
}

fn give_heap(buf: Vec<u8>) {
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    let held: usize = spare.iter().map(Vec::capacity).sum();
    if held + buf.capacity() <= KEEP_BYTES {
        spare.push(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_buffer_comes_back_for_a_frame_it_fits() {
        let mut buf = Vec::with_capacity(3_000_777);
        buf.extend_from_slice(&[7; 100]);
        let at = buf.as_ptr();
        give_heap(buf);
        // Too large a spare for a small frame: a new buffer.
        let small = take_heap(1000);
        assert_ne!(small.as_ptr(), at);
        let again = take_heap(3_000_555);
        assert_eq!(again.as_ptr(), at);
        assert!(again.is_empty() && again.capacity() >= 3_000_555);
        // Nothing spare any more.
        let new = take_heap(3_000_555);
        assert_ne!(new.as_ptr(), at);
    }

    #[test]
    fn new_buffers_reserve_little_for_a_huge_claimed_size() {
        assert!(take_heap(usize::MAX / 2).capacity() <= 1 << 24);
    }
}
