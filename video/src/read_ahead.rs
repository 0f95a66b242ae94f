//! One input read ahead on threads of its own, seen as an ordinary
//! [`VideoSource`]. An encoding ladder reads one reference and many
//! distorted inputs; a [`crate::Group`] pairs them on one thread, and
//! wrapping each input in a [`ReadAhead`] lets every input be parsed in
//! parallel (and a reopenable one by several workers) while the group's
//! rules stay sequential and exact.

use crate::decode::{Decoder, READ_AHEAD, Reader};
use crate::error::{Result, VideoError};
use crate::frame::Frame;
use crate::input::{Assumed, SourceInfo, VideoSource};
use crate::pair::read_or_end;

/// Reading threads for each of `inputs` inputs read ahead at once: the
/// machine's cores shared among them, at least one each.
pub fn workers_per_input(inputs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / inputs.max(1)).clamp(1, 6)
}

/// One input's frames in order from a starting index: what a [`Decoder`]
/// reads ahead for a [`ReadAhead`].
pub struct Sequence {
    source: Box<dyn VideoSource>,
    next: u64,
    ended: bool,
    warnings: Vec<String>,
}

impl Reader for Sequence {
    type Item = Frame;

    fn reopen(&self) -> Option<Result<Self>> {
        let source = self.source.reopen()?;
        Some(source.map(|source| Sequence {
            source,
            next: self.next,
            ended: self.ended,
            warnings: self.warnings.clone(),
        }))
    }

    fn position(&self) -> u64 {
        self.next
    }

    fn seek(&mut self, index: u64) {
        self.next = index;
        self.ended = false;
    }

    fn next_item(&mut self) -> Result<Option<Frame>> {
        if self.ended {
            return Ok(None);
        }
        match read_or_end(self.source.as_mut(), self.next)? {
            Some(frame) => {
                self.next += 1;
                Ok(Some(frame))
            }
            None => {
                self.ended = true;
                if let Some(w) = self.source.end_warning()
                    && !self.warnings.contains(&w)
                {
                    self.warnings.push(w);
                }
                Ok(None)
            }
        }
    }

    fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// An input whose frames are read ahead, in order from the first index
/// asked for, by up to `workers` threads. Asking for another index than
/// the next one discards what was read ahead and reads on from there.
pub struct ReadAhead {
    /// The input until the first read starts the workers.
    source: Option<Box<dyn VideoSource>>,
    decoder: Option<Decoder<Sequence>>,
    workers: usize,
    info: SourceInfo,
    assumed: Assumed,
    /// The index the read-ahead frames start at.
    next: u64,
    end_warning: Option<String>,
}

impl ReadAhead {
    /// Reads `source` ahead on at most `workers` threads (one unless the
    /// input can be reopened).
    pub fn new(source: Box<dyn VideoSource>, workers: usize) -> Self {
        ReadAhead {
            info: source.info().clone(),
            assumed: source.assumed(),
            source: Some(source),
            decoder: None,
            workers: workers.max(1),
            next: 0,
            end_warning: None,
        }
    }
}

impl VideoSource for ReadAhead {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        match (&mut self.decoder, self.source.take()) {
            (Some(decoder), _) if index != self.next => decoder.seek(index),
            (Some(_), _) => {}
            (None, Some(source)) => {
                let sequence = Sequence { source, next: index, ended: false, warnings: Vec::new() };
                self.decoder = Some(Decoder::spawn_workers(sequence, READ_AHEAD, self.workers)?);
            }
            (None, None) => unreachable!("the input is either waiting or read ahead"),
        }
        let decoder = self.decoder.as_mut().expect("started above");
        self.next = index + 1;
        match decoder.recv()? {
            Some(frame) => Ok(frame),
            None => {
                self.next = index;
                self.end_warning = decoder.end_warnings().first().cloned();
                Err(VideoError::FrameOutOfRange {
                    path: crate::error::Shown(self.info.path.clone()),
                    frame: index,
                    count: index,
                })
            }
        }
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        let next = self.next;
        read_or_end(self, next)
    }

    fn end_warning(&self) -> Option<String> {
        self.end_warning.clone()
    }

    fn assumed(&self) -> Assumed {
        self.assumed
    }
}
