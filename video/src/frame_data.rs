//! A frame's bytes: a heap buffer, a block of host memory that the GPU
//! copies from directly (`host_frames`), or planes that never left the
//! device (a picture decoded there). All read as one byte slice (device
//! planes are read back the first time, and only then); only the upload
//! looks at which it is.

use std::io::Read;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, OnceLock};

use crate::device_decode::DevicePlanes;
use crate::host_frames::HostBlock;

/// The planes of a [`crate::Frame`], back to back.
pub struct FrameData {
    storage: Storage,
}

enum Storage {
    Heap(Vec<u8>),
    /// The first `len` bytes of a block, which an upload slot may share.
    Host {
        block: Arc<HostBlock>,
        len: usize,
    },
    /// Planes on the device, which an upload slot may share, and their
    /// bytes once something on the host has read them.
    Device {
        planes: Arc<DevicePlanes>,
        read_back: OnceLock<Vec<u8>>,
    },
}

impl FrameData {
    pub(crate) fn host(block: HostBlock) -> Self {
        FrameData { storage: Storage::Host { block: Arc::new(block), len: 0 } }
    }

    /// Bytes that are planes on the device.
    pub fn device(planes: Arc<DevicePlanes>) -> Self {
        FrameData { storage: Storage::Device { planes, read_back: OnceLock::new() } }
    }

    /// The block of host memory holding the bytes, if they are in one.
    pub fn host_block(&self) -> Option<&Arc<HostBlock>> {
        match &self.storage {
            Storage::Host { block, .. } => Some(block),
            _ => None,
        }
    }

    /// The planes on the device, if the bytes are there.
    pub fn device_planes(&self) -> Option<&Arc<DevicePlanes>> {
        match &self.storage {
            Storage::Device { planes, .. } => Some(planes),
            _ => None,
        }
    }

    /// The bytes as a heap buffer (copied out of a host block, or read
    /// back from the device).
    pub fn into_vec(self) -> Vec<u8> {
        match self.storage {
            Storage::Heap(v) => v,
            Storage::Device { read_back, .. } if read_back.get().is_some() => {
                read_back.into_inner().unwrap_or_default()
            }
            _ => self.to_vec(),
        }
    }

    /// The heap buffer, if the bytes are in one.
    pub(crate) fn into_heap(self) -> Option<Vec<u8>> {
        match self.storage {
            Storage::Heap(v) => Some(v),
            _ => None,
        }
    }

    /// Appends up to `len` bytes from `r`, fewer only at its end: as
    /// `r.take(len).read_to_end`, into the block where there is room.
    pub fn read_from(&mut self, r: &mut impl Read, len: usize) -> std::io::Result<()> {
        if let Storage::Host { block, len: filled } = &mut self.storage
            && let Some(block) = Arc::get_mut(block)
            && block.bytes().len() - *filled >= len
        {
            let dst = &mut block.bytes_mut()[*filled..*filled + len];
            let mut got = 0;
            while got < len {
                match r.read(&mut dst[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            *filled += got;
            return Ok(());
        }
        r.take(len as u64).read_to_end(self.heap_mut()).map(|_| ())
    }

    /// Keeps the first `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        match &mut self.storage {
            Storage::Heap(v) => v.truncate(len),
            Storage::Host { len: filled, .. } => *filled = len.min(*filled),
            Storage::Device { .. } => self.heap_mut().truncate(len),
        }
    }

    /// Appends `bytes`, into the block where there is room.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let mut slice = bytes;
        self.read_from(&mut slice, bytes.len()).expect("reading a slice cannot fail");
    }

    /// The heap buffer, the bytes moved there first if they are in a block
    /// or on the device.
    fn heap_mut(&mut self) -> &mut Vec<u8> {
        if !matches!(self.storage, Storage::Heap(_)) {
            let bytes = std::mem::take(self).into_vec();
            self.storage = Storage::Heap(bytes);
        }
        match &mut self.storage {
            Storage::Heap(v) => v,
            _ => unreachable!("moved to the heap above"),
        }
    }
}

impl Deref for FrameData {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(v) => v,
            Storage::Host { block, len } => &block.bytes()[..*len],
            Storage::Device { planes, read_back } => read_back.get_or_init(|| {
                // Reading a decoded picture back fails only with the device
                // itself (lost, or out of host memory it can map), which the
                // next submission would report too; a slice cannot say so.
                planes.to_host().unwrap_or_else(|e| {
                    panic!("reading a picture decoded on the device back failed: {e}")
                })
            }),
        }
    }
}

/// Writing bytes in place: a block shared with an upload slot is copied to
/// the heap first, so the copy the device makes is never changed under it.
impl DerefMut for FrameData {
    fn deref_mut(&mut self) -> &mut [u8] {
        let shared = match &self.storage {
            Storage::Heap(_) => false,
            Storage::Host { block, .. } => Arc::strong_count(block) > 1,
            Storage::Device { .. } => true,
        };
        if shared {
            self.heap_mut();
        }
        match &mut self.storage {
            Storage::Heap(v) => v,
            Storage::Host { block, len } => match Arc::get_mut(block) {
                Some(block) => &mut block.bytes_mut()[..*len],
                None => unreachable!("a shared block was moved to the heap above"),
            },
            Storage::Device { .. } => unreachable!("device planes were moved to the heap above"),
        }
    }
}

impl From<Vec<u8>> for FrameData {
    fn from(v: Vec<u8>) -> Self {
        FrameData { storage: Storage::Heap(v) }
    }
}

impl Default for FrameData {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl Clone for FrameData {
    fn clone(&self) -> Self {
        self.to_vec().into()
    }
}

impl PartialEq for FrameData {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for FrameData {}

impl PartialEq<Vec<u8>> for FrameData {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == **other
    }
}

impl AsRef<[u8]> for FrameData {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for FrameData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Device planes are not read back to be described.
        let (kind, len) = match &self.storage {
            Storage::Heap(v) => ("heap", v.len()),
            Storage::Host { len, .. } => ("host block", *len),
            Storage::Device { planes, .. } => ("device planes", planes.frame_bytes()),
        };
        write!(f, "FrameData({len} bytes, {kind})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_data_reads_like_read_to_end_and_compares_by_bytes() {
        let mut d = FrameData::default();
        d.read_from(&mut &[1u8, 2, 3, 4][..], 3).unwrap();
        assert_eq!(&*d, &[1, 2, 3]);
        d.read_from(&mut &[9u8][..], 5).unwrap();
        assert_eq!(&*d, &[1, 2, 3, 9]);
        d.extend_from_slice(&[7]);
        d[0] = 5;
        assert_eq!(d, FrameData::from(vec![5, 2, 3, 9, 7]));
        assert!(d.host_block().is_none());
        assert_eq!(d.clone().into_vec(), vec![5, 2, 3, 9, 7]);
    }
}
