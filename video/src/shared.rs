//! One input read once for several readers: an encoding ladder scores many
//! distorted renditions against one reference, and decoding that reference
//! once per rendition would repeat the most expensive reading there is.
//! [`share`] wraps the reference in one [`VideoSource`] per reader; each is
//! paired with its rendition through the ordinary [`crate::Pair`] (so every
//! rendition gets exactly the checks, skips and warnings of a run of its
//! own), while the frames come from one reader of the file.
//!
//! The first reader to ask for a frame reads it from the input; a copy
//! waits for the readers that have not taken it yet, and the last one takes
//! that copy itself: N readers cost one read and N − 1 copies per frame.
//! Each reader must ask for frames in increasing order (as [`crate::Pair`]
//! and [`crate::Decoder`] do). A frame is kept until every reader still
//! open has gone past it; a dropped reader no longer holds frames back, so
//! a rendition that ends early (or fails) does not make the others pile
//! frames up.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::Result;
use crate::frame::Frame;
use crate::input::{Assumed, SourceInfo, VideoSource};

/// The input and the frames some reader still needs.
struct Shared {
    source: Box<dyn VideoSource>,
    /// Frames read from `source` that a reader has not taken yet, by index.
    waiting: BTreeMap<u64, Frame>,
    /// Per reader, the lowest index it may ask for next; `None` once the
    /// reader is dropped.
    positions: Vec<Option<u64>>,
}

impl Shared {
    /// Whether a reader other than `reader` may still ask for `index`.
    fn wanted_by_others(&self, reader: usize, index: u64) -> bool {
        self.positions.iter().enumerate().any(|(r, p)| r != reader && p.is_some_and(|p| p <= index))
    }

    /// Recycles the frames every open reader has gone past.
    fn forget_passed(&mut self) {
        let Some(lowest) = self.positions.iter().flatten().min().copied() else {
            for (_, f) in std::mem::take(&mut self.waiting) {
                f.recycle();
            }
            return;
        };
        let kept = self.waiting.split_off(&lowest);
        for (_, f) in std::mem::replace(&mut self.waiting, kept) {
            f.recycle();
        }
    }
}

/// One reader of a shared input.
pub struct SharedSource {
    shared: Arc<Mutex<Shared>>,
    reader: usize,
    info: SourceInfo,
    assumed: Assumed,
    /// The index [`VideoSource::next_frame`] reads next.
    next: u64,
}

/// `readers` sources that all read `source`, each frame once.
pub fn share(source: Box<dyn VideoSource>, readers: usize) -> Vec<SharedSource> {
    let info = source.info().clone();
    let assumed = source.assumed();
    let shared = Arc::new(Mutex::new(Shared {
        source,
        waiting: BTreeMap::new(),
        positions: vec![Some(0); readers],
    }));
    (0..readers)
        .map(|reader| SharedSource {
            shared: Arc::clone(&shared),
            reader,
            info: info.clone(),
            assumed,
            next: 0,
        })
        .collect()
}

/// A frame's copy in a recycled buffer.
fn copy_of(frame: &Frame) -> Frame {
    let mut data = crate::buffers::take(frame.data.len());
    data.extend_from_slice(&frame.data);
    Frame { geometry: frame.geometry, color: frame.color, index: frame.index, data }
}

impl SharedSource {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A reader that panicked left the map consistent (every change is
        // one call); the others go on.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl VideoSource for SharedSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        let reader = self.reader;
        let mut s = self.lock();
        let others = s.wanted_by_others(reader, index);
        let frame = match s.waiting.remove(&index) {
            Some(f) if others => {
                let copy = copy_of(&f);
                s.waiting.insert(index, f);
                copy
            }
            Some(f) => f,
            None => {
                let f = s.source.read_frame(index)?;
                if others {
                    let copy = copy_of(&f);
                    s.waiting.insert(index, copy);
                }
                f
            }
        };
        s.positions[reader] = Some(index + 1);
        s.forget_passed();
        drop(s);
        self.next = index + 1;
        Ok(frame)
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        match self.read_frame(self.next) {
            Ok(f) => Ok(Some(f)),
            Err(crate::VideoError::FrameOutOfRange { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn end_warning(&self) -> Option<String> {
        self.lock().source.end_warning()
    }

    fn assumed(&self) -> Assumed {
        self.assumed
    }
}

impl Drop for SharedSource {
    fn drop(&mut self) {
        let reader = self.reader;
        let mut s = self.lock();
        s.positions[reader] = None;
        s.forget_passed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{ChromaFormat, ColorInfo, Geometry, PixelFormat, Rational};

    /// A source of `len` one-sample frames whose sample is the index, that
    /// counts its reads.
    struct Counting {
        info: SourceInfo,
        reads: Arc<Mutex<Vec<u64>>>,
    }

    fn counting(len: u64) -> (Box<dyn VideoSource>, Arc<Mutex<Vec<u64>>>) {
        let geometry = Geometry {
            width: 1,
            height: 1,
            format: PixelFormat { chroma: ChromaFormat::Mono, bit_depth: 8 },
        };
        let info = SourceInfo {
            path: "counting".into(),
            geometry,
            color: ColorInfo::default(),
            frame_rate: Rational::new(25, 1),
            frame_count: Some(len),
            seekable: true,
            description: "test".into(),
            scaled_from: None,
        };
        let reads = Arc::new(Mutex::new(Vec::new()));
        (Box::new(Counting { info, reads: Arc::clone(&reads) }), reads)
    }

    impl VideoSource for Counting {
        fn info(&self) -> &SourceInfo {
            &self.info
        }
        fn read_frame(&mut self, index: u64) -> Result<Frame> {
            if index >= self.info.frame_count.unwrap() {
                return Err(crate::VideoError::FrameOutOfRange {
                    path: crate::error::Shown(self.info.path.clone()),
                    frame: index,
                    count: self.info.frame_count.unwrap(),
                });
            }
            self.reads.lock().unwrap().push(index);
            let color = ColorInfo::default();
            Ok(Frame { geometry: self.info.geometry, color, index, data: vec![index as u8] })
        }
        fn next_frame(&mut self) -> Result<Option<Frame>> {
            unreachable!("readers read by index")
        }
    }

    #[test]
    fn every_reader_gets_every_frame_read_once() {
        let (source, reads) = counting(5);
        let mut readers = share(source, 3);
        // Interleaved unevenly, as decode threads run.
        for i in 0..5u64 {
            for r in readers.iter_mut().rev() {
                assert_eq!(r.read_frame(i).unwrap().data, vec![i as u8]);
            }
        }
        assert_eq!(*reads.lock().unwrap(), vec![0, 1, 2, 3, 4]);
        assert!(readers[0].lock().waiting.is_empty());
    }

    #[test]
    fn a_dropped_reader_holds_nothing_back() {
        let (source, reads) = counting(10);
        let mut readers = share(source, 2);
        readers[0].read_frame(0).unwrap();
        let gone = readers.remove(1);
        drop(gone);
        for i in 1..10u64 {
            readers[0].read_frame(i).unwrap();
            assert!(readers[0].lock().waiting.is_empty(), "frame {i} kept for nobody");
        }
        assert_eq!(reads.lock().unwrap().len(), 10);
        assert!(readers[0].next_frame().unwrap().is_none());
    }

    #[test]
    fn a_reader_behind_still_gets_the_frames() {
        let (source, reads) = counting(4);
        let mut readers = share(source, 2);
        for i in 0..4u64 {
            readers[0].read_frame(i).unwrap();
        }
        for i in 0..4u64 {
            assert_eq!(readers[1].read_frame(i).unwrap().index, i);
        }
        assert_eq!(reads.lock().unwrap().len(), 4);
    }
}
