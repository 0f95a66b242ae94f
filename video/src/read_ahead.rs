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
use crate::pair::{Group, PairOptions, read_or_end};

/// Frames held read ahead by all the inputs of one run together, at most
/// (a ladder of many 4K renditions must not hold gigabytes of frames).
pub const READ_AHEAD_BYTES: usize = 2 << 30;

/// How one of several inputs read at once is read ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Reading threads (one unless the input can be reopened).
    pub workers: usize,
    /// Frames kept ready.
    pub depth: usize,
}

impl Plan {
    /// For each of `inputs` inputs with frames of `frame_bytes` bytes: the
    /// machine's cores shared among them (one to six threads each), and
    /// [`READ_AHEAD`] frames each unless that would hold more than
    /// [`READ_AHEAD_BYTES`] in all (then fewer, at least two).
    pub fn shared(inputs: usize, frame_bytes: usize) -> Plan {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Plan::for_cores(cores, inputs, frame_bytes)
    }

    fn for_cores(cores: usize, inputs: usize, frame_bytes: usize) -> Plan {
        let inputs = inputs.max(1);
        let depth = READ_AHEAD_BYTES / inputs / frame_bytes.max(1);
        Plan { workers: (cores / inputs).clamp(1, 6), depth: depth.clamp(2, READ_AHEAD) }
    }
}

/// A [`Group`] of `reference` and `distorted` whose every input is read
/// ahead on threads of its own, sharing the cores and the read-ahead
/// budget ([`Plan::shared`]); `workers` overrides the threads per input.
pub fn read_ahead_group(
    reference: Box<dyn VideoSource>,
    distorted: Vec<Box<dyn VideoSource>>,
    options: PairOptions,
    workers: Option<usize>,
) -> Result<Group> {
    let frame_bytes = reference.info().geometry.frame_bytes();
    let mut plan = Plan::shared(distorted.len() + 1, frame_bytes);
    if let Some(n) = workers {
        plan.workers = n;
    }
    let ahead = |source| Box::new(ReadAhead::new(source, plan)) as Box<dyn VideoSource>;
    Group::new(ahead(reference), distorted.into_iter().map(ahead).collect(), options)
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
    plan: Plan,
    info: SourceInfo,
    assumed: Assumed,
    /// The index the read-ahead frames start at.
    next: u64,
    end_warning: Option<String>,
}

impl ReadAhead {
    /// Reads `source` ahead as `plan` says.
    pub fn new(source: Box<dyn VideoSource>, plan: Plan) -> Self {
        ReadAhead {
            info: source.info().clone(),
            assumed: source.assumed(),
            source: Some(source),
            decoder: None,
            plan,
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
                let Plan { workers, depth } = self.plan;
                self.decoder = Some(Decoder::spawn_workers(sequence, depth, workers.max(1))?);
            }
            // Starting the workers failed before: the input went with them.
            (None, None) => {
                return Err(VideoError::Decoder("the read-ahead threads did not start".into()));
            }
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

#[cfg(test)]
mod tests {
    use super::{Plan, READ_AHEAD, READ_AHEAD_BYTES};

    #[test]
    fn inputs_share_the_cores_and_a_bounded_read_ahead() {
        let hd = 1920 * 1080 * 3 / 2;
        assert_eq!(Plan::for_cores(16, 9, hd), Plan { workers: 1, depth: READ_AHEAD });
        assert_eq!(Plan::for_cores(16, 2, hd), Plan { workers: 6, depth: READ_AHEAD });
        // 31 inputs of 4K 10-bit frames: 8 each would hold 6 GB.
        let uhd10 = 3840 * 2160 * 3;
        let plan = Plan::for_cores(64, 31, uhd10);
        assert_eq!(plan, Plan { workers: 2, depth: 2 });
        assert!(31 * plan.depth * uhd10 <= READ_AHEAD_BYTES);
        assert_eq!(Plan::for_cores(2, 4, uhd10), Plan { workers: 1, depth: READ_AHEAD });
        assert_eq!(Plan::for_cores(1, 0, 0), Plan { workers: 1, depth: READ_AHEAD });
    }
}
