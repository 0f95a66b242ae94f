//! Reading ahead on threads of their own, so the GPU side never waits on
//! the disk or on ffmpeg. Inputs that can be opened twice (y4m and raw
//! files) are read by several workers at once, worker `w` of `k` taking
//! pairs `w`, `w + k`, …: one thread parses about 6 GB/s, and a 4K pair is
//! 25 MB. The consumer takes pairs from the workers in turn, so they arrive
//! in order. Pipes and ffmpeg have one reader, so one worker.
//!
//! Frames travel through bounded channels: at most `depth` pairs wait in
//! them (plus one being read per worker), which bounds memory whatever the
//! input length. Errors come through the channels like frames. A seek
//! gives every worker a fresh channel and drops the old ones, pairs read
//! ahead included: a worker blocked on a full old channel wakes at once
//! (its send fails) and takes the seek, so after a jump every worker reads
//! its first pair in parallel. Dropping the [`Decoder`] stops and joins the
//! threads (which drops the inputs, killing any ffmpeg child).

use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;

use crate::error::{Result, VideoError};
use crate::pair::{FramePair, Pair};

/// What a [`Decoder`] reads ahead: something read in index order that can
/// be opened again for another worker. A [`Pair`] yields frame pairs; a
/// [`crate::read_ahead::Sequence`] one input's frames.
pub trait Reader: Send + Sized + 'static {
    type Item: Send + 'static;

    /// A second reader of the same inputs at the same position, for another
    /// thread; `None` when an input has a single sequential reader.
    fn reopen(&self) -> Option<Result<Self>>;

    /// The index [`Reader::next_item`] returns next.
    fn position(&self) -> u64;

    /// Moves the position so that [`Reader::next_item`] returns `index` next.
    fn seek(&mut self, index: u64);

    /// The next item, `None` at the end.
    fn next_item(&mut self) -> Result<Option<Self::Item>>;

    /// Messages for the user, complete once [`Reader::next_item`] has
    /// returned `None`.
    fn warnings(&self) -> &[String];
}

impl Reader for Pair {
    type Item = FramePair;

    fn reopen(&self) -> Option<Result<Self>> {
        Pair::reopen(self)
    }

    fn position(&self) -> u64 {
        Pair::position(self)
    }

    fn seek(&mut self, index: u64) {
        Pair::seek(self, index);
    }

    fn next_item(&mut self) -> Result<Option<FramePair>> {
        self.next_pair()
    }

    fn warnings(&self) -> &[String] {
        Pair::warnings(self)
    }
}

/// Pairs a scoring run's decoder reads ahead: enough to keep the GPU fed
/// through a slow frame, few enough that 4K pairs do not pile up.
pub const READ_AHEAD: usize = 8;

enum Command<T> {
    /// Continue from pair `index` (plus the worker's offset), sending into
    /// `tx` from now on.
    Seek { index: u64, tx: SyncSender<Item<T>> },
}

enum Item<T> {
    Read(T),
    /// End of input, with the warnings gathered by then.
    End(Vec<String>),
    Error(VideoError),
}

/// Workers to use for an input that can be opened several times: enough
/// to outrun the GPU at 4K on a many-core host, while leaving cores to the
/// consumer (copying into staging memory) and to everything else.
fn default_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / 2).clamp(1, 6)
}

/// One reading thread and its two channels.
struct Worker<T> {
    rx: Receiver<Item<T>>,
    commands: Sender<Command<T>>,
    thread: JoinHandle<()>,
}

/// A pair (or another [`Reader`]) being read ahead on background threads.
pub struct Decoder<R: Reader = Pair> {
    workers: Vec<Worker<R::Item>>,
    /// The worker whose channel holds the next pair.
    turn: usize,
    /// Capacity of each worker's channel.
    per_worker: usize,
    warnings: Vec<String>,
    /// How many of `warnings` the pair had when the decoder started.
    initial_warnings: usize,
    finished: bool,
}

impl<R: Reader> Decoder<R> {
    /// Starts reading `pair` from its current position, keeping up to
    /// `depth` (at least 1) decoded pairs ready, on as many workers as the
    /// inputs and the machine allow.
    pub fn spawn(pair: R, depth: usize) -> Result<Self> {
        Self::spawn_workers(pair, depth, default_workers())
    }

    /// Like [`Decoder::spawn`] with at most `workers` reading threads (one
    /// if the inputs cannot be reopened).
    pub fn spawn_workers(pair: R, depth: usize, workers: usize) -> Result<Self> {
        let warnings = pair.warnings().to_vec();
        let mut pairs = vec![pair];
        while pairs.len() < workers {
            match pairs[0].reopen() {
                Some(p) => pairs.push(p?),
                None => break,
            }
        }
        let stride = pairs.len() as u64;
        let per_worker = depth.max(1).div_ceil(pairs.len());
        let workers = pairs
            .into_iter()
            .enumerate()
            .map(|(w, pair)| {
                let (tx, rx) = mpsc::sync_channel(per_worker);
                let (commands, crx) = mpsc::channel();
                let placement = Placement { offset: w as u64, stride };
                let thread = std::thread::Builder::new()
                    .name(format!("vqscope-decode-{w}"))
                    .spawn(move || run(pair, placement, tx, crx))
                    .map_err(|e| VideoError::Decoder(format!("cannot start thread: {e}")))?;
                Ok(Worker { rx, commands, thread })
            })
            .collect::<Result<Vec<_>>>()?;
        let initial_warnings = warnings.len();
        Ok(Decoder { workers, turn: 0, per_worker, warnings, initial_warnings, finished: false })
    }

    /// Number of reading threads.
    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// Next pair, blocking until it is read; `Ok(None)` at the end of the
    /// inputs (then [`Decoder::warnings`] is complete).
    pub fn recv(&mut self) -> Result<Option<R::Item>> {
        let Some(worker) = self.current() else {
            return Ok(None);
        };
        let item = worker.rx.recv().map_err(|_| self.died())?;
        self.accept(item)
    }

    /// Like [`Decoder::recv`] but never blocks: `Ok(None)` also when the
    /// next pair is not ready yet (check [`Decoder::is_finished`]).
    pub fn try_recv(&mut self) -> Result<Option<R::Item>> {
        let Some(worker) = self.current() else {
            return Ok(None);
        };
        let item = match worker.rx.try_recv() {
            Ok(item) => item,
            Err(TryRecvError::Empty) => return Ok(None),
            Err(TryRecvError::Disconnected) => return Err(self.died()),
        };
        self.accept(item)
    }

    /// The worker holding the next pair, `None` once finished.
    fn current(&self) -> Option<&Worker<R::Item>> {
        if self.finished { None } else { self.workers.get(self.turn) }
    }

    /// Whether the end of the inputs (or an error) has been received.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Continue from pair `index`; pairs already read ahead are discarded.
    pub fn seek(&mut self, index: u64) {
        self.finished = false;
        self.turn = 0;
        for w in &mut self.workers {
            let (tx, rx) = mpsc::sync_channel(self.per_worker);
            w.rx = rx; // drops the old channel and whatever it held
            let _ = w.commands.send(Command::Seek { index, tx });
        }
    }

    /// Warnings about the inputs known so far: the pair's own from when
    /// it was made, then those found at the end (see
    /// [`Decoder::end_warnings`]).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The warnings found while reading, beyond those the pair had when
    /// the decoder started (which a caller has printed already): an input
    /// that ended before the other where that was not known up front (a
    /// pipe, stdin, a truncated mp4), or before the frame count its
    /// container announced. Complete once [`Decoder::recv`] has returned
    /// `Ok(None)`; print them then.
    pub fn end_warnings(&self) -> &[String] {
        &self.warnings[self.initial_warnings..]
    }

    fn accept(&mut self, item: Item<R::Item>) -> Result<Option<R::Item>> {
        match item {
            Item::Read(p) => {
                self.turn = (self.turn + 1) % self.workers.len();
                Ok(Some(p))
            }
            Item::End(w) => {
                self.finished = true;
                for m in w {
                    if !self.warnings.contains(&m) {
                        self.warnings.push(m);
                    }
                }
                Ok(None)
            }
            Item::Error(e) => {
                self.finished = true;
                Err(e)
            }
        }
    }

    fn died(&mut self) -> VideoError {
        self.finished = true;
        VideoError::Decoder("the decode thread ended unexpectedly".into())
    }

    /// Stops the thread and waits for it; reports a panic inside it.
    pub fn shutdown(mut self) -> Result<()> {
        self.stop()
    }

    fn stop(&mut self) -> Result<()> {
        // Dropping every channel end wakes each thread wherever it waits.
        let threads: Vec<_> = self.workers.drain(..).map(|w| w.thread).collect();
        let mut panicked = false;
        for t in threads {
            panicked |= t.join().is_err();
        }
        if panicked {
            return Err(VideoError::Decoder("a decode thread panicked".into()));
        }
        Ok(())
    }
}

impl<R: Reader> Drop for Decoder<R> {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// Which pairs a worker reads: `offset`, `offset + stride`, … counted from
/// the start position.
#[derive(Clone, Copy)]
struct Placement {
    offset: u64,
    stride: u64,
}

/// A worker: read its pairs while there is room, obey seeks, stop when the
/// consumer goes away.
fn run<R: Reader>(
    mut pair: R,
    at: Placement,
    mut tx: SyncSender<Item<R::Item>>,
    commands: Receiver<Command<R::Item>>,
) {
    let mut index = pair.position() + at.offset;
    // Wait for a command before reading on: after the end, an error, or
    // when the consumer dropped the channel (it sought, and the seek with a
    // fresh channel is on its way, or it is gone and so are the commands).
    let mut wait = false;
    loop {
        let cmd = if wait {
            match commands.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        } else {
            match commands.try_recv() {
                Ok(c) => Some(c),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return,
            }
        };
        if let Some(Command::Seek { index: to, tx: fresh }) = cmd {
            index = to.saturating_add(at.offset);
            tx = fresh;
            wait = false;
            continue; // take any later seek before reading
        }
        pair.seek(index);
        let (item, last) = match pair.next_item() {
            Ok(Some(p)) => {
                index = index.saturating_add(at.stride);
                (Item::Read(p), false)
            }
            Ok(None) => (Item::End(pair.warnings().to_vec()), true),
            Err(e) => (Item::Error(e), true),
        };
        wait = tx.send(item).is_err() || last;
    }
}
