//! Reading ahead on a thread of its own, so the GPU side never waits on the
//! disk or on ffmpeg. Frames travel through a bounded channel: at most
//! `depth` pairs wait in it (plus the one being read), which bounds memory
//! whatever the input length. Errors come through the channel like frames;
//! a seek bumps a generation number so pairs read before it are dropped
//! instead of shown; dropping the [`Decoder`] stops and joins the thread
//! (which drops the inputs, killing any ffmpeg child).

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

/// A pair being read ahead on a background thread.
pub struct Decoder {
    rx: Option<Receiver<Msg>>,
    commands: Option<Sender<Command>>,
    thread: Option<JoinHandle<()>>,
    generation: u64,
    warnings: Vec<String>,
    finished: bool,
}

impl Decoder {
    /// Starts reading `pair` from its current position, keeping up to
    /// `depth` (at least 1) decoded pairs ready.
    pub fn spawn(pair: Pair, depth: usize) -> Result<Self> {
        let (tx, rx) = mpsc::sync_channel(depth.max(1));
        let (ctx, crx) = mpsc::channel();
        let warnings = pair.warnings().to_vec();
        let thread = std::thread::Builder::new()
            .name("vqscope-decode".into())
            .spawn(move || run(pair, tx, crx))
            .map_err(|e| VideoError::Decoder(format!("cannot start thread: {e}")))?;
        Ok(Decoder {
            rx: Some(rx),
            commands: Some(ctx),
            thread: Some(thread),
            generation: 0,
            warnings,
            finished: false,
        })
    }

    /// Next pair, blocking until it is read; `Ok(None)` at the end of the
    /// inputs (then [`Decoder::warnings`] is complete).
    pub fn recv(&mut self) -> Result<Option<FramePair>> {
        loop {
            if self.finished {
                return Ok(None);
            }
            let Some(rx) = &self.rx else {
                return Ok(None);
            };
            let msg = rx.recv().map_err(|_| self.died())?;
            if let Some(out) = self.accept(msg) {
                return out;
            }
        }
    }

    /// Like [`Decoder::recv`] but never blocks: `Ok(None)` also when the
    /// next pair is not ready yet (check [`Decoder::is_finished`]).
    pub fn try_recv(&mut self) -> Result<Option<FramePair>> {
        loop {
            if self.finished {
                return Ok(None);
            }
            let Some(rx) = &self.rx else {
                return Ok(None);
            };
            let msg = match rx.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Err(self.died()),
            };
            if let Some(out) = self.accept(msg) {
                return out;
            }
        }
    }

    /// Whether the end of the inputs (or an error) has been received.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Continue from pair `index`; pairs already read ahead are discarded.
    pub fn seek(&mut self, index: u64) {
        self.generation += 1;
        self.finished = false;
        if let Some(c) = &self.commands {
            let _ = c.send(Command::Seek { index, generation: self.generation });
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
            Item::Pair(p) => Ok(Some(p)),
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
        // Dropping both channel ends wakes the thread wherever it waits.
        self.commands = None;
        self.rx = None;
        match self.thread.take() {
            Some(t) => {
                t.join().map_err(|_| VideoError::Decoder("the decode thread panicked".into()))
            }
            None => Ok(()),
        }
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The thread: read pairs while there is room, obey seeks, stop when the
/// consumer goes away.
fn run(mut pair: Pair, tx: SyncSender<Msg>, commands: Receiver<Command>) {
    let mut generation = 0;
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
        if let Some(Command::Seek { index, generation: g }) = cmd {
            pair.seek(index);
            generation = g;
            idle = false;
            continue; // take any later seek before reading
        }
        let item = match pair.next_pair() {
            Ok(Some(p)) => Item::Pair(p),
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
