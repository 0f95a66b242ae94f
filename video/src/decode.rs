//! Reading ahead on threads of their own, so the GPU side never waits on
//! the disk or on ffmpeg. Inputs that can be opened twice (y4m and raw
//! files) are read by several workers at once, worker `w` of `k` taking
//! pairs `w`, `w + k`, …: one thread parses about 6 GB/s, and a 4K pair is
//! 25 MB. The consumer takes pairs from the workers in turn, so they arrive
//! in order. Pipes and ffmpeg have one reader, so one worker.
//!
//! Frames travel through bounded channels: at most `depth` pairs wait in
//! them (plus one being read per worker), which bounds memory whatever the
//! input length. Errors come through the channels like frames; a seek bumps
//! a generation number so pairs read before it are dropped instead of
//! shown; dropping the [`Decoder`] stops and joins the threads (which drops
//! the inputs, killing any ffmpeg child).

use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;

use crate::error::{Result, VideoError};
use crate::pair::{FramePair, Pair};

enum Command {
    Seek { index: u64, generation: u64 },
}

enum Item {
    Pair(FramePair),
    /// End of input, with the warnings gathered by then.
    End(Vec<String>),
    Error(VideoError),
}

struct Msg {
    generation: u64,
    item: Item,
}

/// Workers to use for an input that can be opened several times: enough
/// to outrun the GPU at 4K on a many-core host, while leaving cores to the
/// consumer (copying into staging memory) and to everything else.
fn default_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / 2).clamp(1, 6)
}

/// One reading thread and its two channels.
struct Worker {
    rx: Receiver<Msg>,
    commands: Sender<Command>,
    thread: JoinHandle<()>,
}

/// A pair being read ahead on background threads.
pub struct Decoder {
    workers: Vec<Worker>,
    /// The worker whose channel holds the next pair.
    turn: usize,
    generation: u64,
    warnings: Vec<String>,
    finished: bool,
}

impl Decoder {
    /// Starts reading `pair` from its current position, keeping up to
    /// `depth` (at least 1) decoded pairs ready, on as many workers as the
    /// inputs and the machine allow.
    pub fn spawn(pair: Pair, depth: usize) -> Result<Self> {
        Self::spawn_workers(pair, depth, default_workers())
    }

    /// Like [`Decoder::spawn`] with at most `workers` reading threads (one
    /// if the inputs cannot be reopened).
    pub fn spawn_workers(pair: Pair, depth: usize, workers: usize) -> Result<Self> {
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
        Ok(Decoder { workers, turn: 0, generation: 0, warnings, finished: false })
    }

    /// Number of reading threads.
    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// Next pair, blocking until it is read; `Ok(None)` at the end of the
    /// inputs (then [`Decoder::warnings`] is complete).
    pub fn recv(&mut self) -> Result<Option<FramePair>> {
        loop {
            let Some(worker) = self.current() else {
                return Ok(None);
            };
            let msg = worker.rx.recv().map_err(|_| self.died())?;
            if let Some(out) = self.accept(msg) {
                return out;
            }
        }
    }

    /// Like [`Decoder::recv`] but never blocks: `Ok(None)` also when the
    /// next pair is not ready yet (check [`Decoder::is_finished`]).
    pub fn try_recv(&mut self) -> Result<Option<FramePair>> {
        loop {
            let Some(worker) = self.current() else {
                return Ok(None);
            };
            let msg = match worker.rx.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Err(self.died()),
            };
            if let Some(out) = self.accept(msg) {
                return out;
            }
        }
    }

    /// The worker holding the next pair, `None` once finished.
    fn current(&self) -> Option<&Worker> {
        if self.finished { None } else { self.workers.get(self.turn) }
    }

    /// Whether the end of the inputs (or an error) has been received.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Continue from pair `index`; pairs already read ahead are discarded.
    pub fn seek(&mut self, index: u64) {
        self.generation += 1;
        self.finished = false;
        self.turn = 0;
        for w in &self.workers {
            let _ = w.commands.send(Command::Seek { index, generation: self.generation });
        }
    }

    /// Warnings about the inputs (unequal lengths) known so far.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn accept(&mut self, msg: Msg) -> Option<Result<Option<FramePair>>> {
        if msg.generation != self.generation {
            return None; // read before the last seek
        }
        Some(match msg.item {
            Item::Pair(p) => {
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
        })
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

impl Drop for Decoder {
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
fn run(mut pair: Pair, at: Placement, tx: SyncSender<Msg>, commands: Receiver<Command>) {
    let mut generation = 0;
    let mut index = pair.position() + at.offset;
    let mut idle = false;
    loop {
        let cmd = if idle {
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
        if let Some(Command::Seek { index: to, generation: g }) = cmd {
            index = to.saturating_add(at.offset);
            generation = g;
            idle = false;
            continue; // take any later seek before reading
        }
        pair.seek(index);
        let item = match pair.next_pair() {
            Ok(Some(p)) => {
                index = index.saturating_add(at.stride);
                Item::Pair(p)
            }
            Ok(None) => {
                idle = true;
                Item::End(pair.warnings().to_vec())
            }
            Err(e) => {
                idle = true;
                Item::Error(e)
            }
        };
        if tx.send(Msg { generation, item }).is_err() {
            return;
        }
    }
}
