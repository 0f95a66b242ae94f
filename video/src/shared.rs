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
//! frames up. Readers on threads of their own stay within [`MAX_LEAD`]
//! frames of the slowest open one: a reader further ahead waits, so the
//! copies kept for the slow one stay bounded however the speeds differ.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::error::Result;
use crate::frame::Frame;
use crate::input::{Assumed, SourceInfo, VideoSource};

/// How many frames a reader may run ahead of the slowest open reader.
pub const MAX_LEAD: u64 = 16;

/// The input and the frames some reader still needs.
struct Shared {
    source: Box<dyn VideoSource>,
    /// Frames read from `source` that a reader has not taken yet, by index.
    waiting: BTreeMap<u64, Frame>,
    /// Per reader, the lowest index it may ask for next; `None` once the
    /// reader is dropped.
    positions: Vec<Option<u64>>,
    /// Per reader, whether it has asked for a frame yet. Only readers that
    /// have hold the others back (a rendition still being opened, or one
    /// that skips frames first, must not stall the rest), though frames
    /// are kept for every open reader.
    started: Vec<bool>,
}

impl Shared {
    /// Whether a reader other than `reader` may still ask for `index`.
    fn wanted_by_others(&self, reader: usize, index: u64) -> bool {
        self.positions.iter().enumerate().any(|(r, p)| r != reader && p.is_some_and(|p| p <= index))
    }

    /// The lowest index an open reader may still ask for.
    fn lowest(&self) -> Option<u64> {
        self.positions.iter().flatten().min().copied()
    }

    /// The lowest position of the open readers that have started reading.
    fn slowest_started(&self) -> Option<u64> {
        self.positions.iter().zip(&self.started).filter(|(_, s)| **s).flat_map(|(p, _)| *p).min()
    }

    /// Recycles the frames every open reader has gone past.
    fn forget_passed(&mut self) {
        let Some(lowest) = self.lowest() else {
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
    /// The shared state, and the signal that a reader moved on or left.
    shared: Arc<(Mutex<Shared>, Condvar)>,
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
    let shared = Arc::new((
        Mutex::new(Shared {
            source,
            waiting: BTreeMap::new(),
            positions: vec![Some(0); readers],
            started: vec![false; readers],
        }),
        Condvar::new(),
    ));
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
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells waiting readers that the positions changed.
    fn moved(&self) {
        self.shared.1.notify_all();
    }
}

impl VideoSource for SharedSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        let reader = self.reader;
        let mut s = self.lock();
        // Asking for `index` means never asking below it again.
        s.positions[reader] = Some(index);
        s.started[reader] = true;
        s.forget_passed();
        self.moved();
        // The slowest started reader never waits (its index is the lowest).
        while s.slowest_started().is_some_and(|slowest| index >= slowest + MAX_LEAD) {
            s = self.shared.1.wait(s).unwrap_or_else(|e| e.into_inner());
        }
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
        self.moved();
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
        drop(s);
        self.moved();
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

    #[test]
    fn a_reader_ahead_waits_for_the_slowest_then_goes_on() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let len = MAX_LEAD + 8;
        let (source, reads) = counting(len);
        let mut readers = share(source, 2);
        let mut slow = readers.pop().unwrap();
        let mut fast = readers.pop().unwrap();
        assert_eq!(slow.read_frame(0).unwrap().index, 0);
        let taken = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&taken);
        let ahead = std::thread::spawn(move || {
            for i in 0..len {
                assert_eq!(fast.read_frame(i).unwrap().index, i);
                counter.store(i + 1, Ordering::SeqCst);
            }
        });
        // The slow reader, having taken frame 0, stands at 1: the fast one
        // stops after frame MAX_LEAD, with copies of 1..=MAX_LEAD kept.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while taken.load(Ordering::SeqCst) <= MAX_LEAD && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(taken.load(Ordering::SeqCst), MAX_LEAD + 1, "the reader ahead did not wait");
        assert_eq!(slow.lock().waiting.len() as u64, MAX_LEAD, "copies kept for the slow reader");
        for i in 1..len {
            assert_eq!(slow.read_frame(i).unwrap().index, i);
        }
        ahead.join().unwrap();
        assert_eq!(reads.lock().unwrap().len() as u64, len);
    }

    #[test]
    fn readers_starting_past_the_lead_do_not_wait() {
        let (source, _) = counting(MAX_LEAD * 3);
        let mut readers = share(source, 2);
        // As after --frame_skip_ref: both start far from 0.
        let start = MAX_LEAD * 2;
        for r in readers.iter_mut() {
            assert_eq!(r.read_frame(start).unwrap().index, start);
        }
    }
}
