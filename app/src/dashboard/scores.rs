//! Scoring the whole clip on a background thread, so the UI never waits on
//! the metrics: the thread opens the pair with its own readers (reading
//! ahead, several at once for files) and its own GPU context, runs [`vmaf::Scorer`] frame after frame, adds the VMAF
//! prediction and sends each frame's values through a channel. The UI
//! drains the channel into a [`History`] once per drawn frame, which makes
//! the plots fill in live while playback goes on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use vqscope_gpu::ContextOptions;
use vqscope_metrics::model::Model;
use vqscope_metrics::pipeline::FrameScores;
use vqscope_metrics::pool::{Pooled, pool};
use vqscope_metrics::vmaf::{self, Selection};
use vqscope_video::{Decoder, READ_AHEAD};

use super::source::Inputs;

/// What the scoring thread reports.
enum Update {
    Frames(Vec<FrameScores>),
    /// Every frame is scored.
    Done,
    Failed(String),
}

/// The model's name as libvmaf's `--model version=` spells it.
pub const MODEL: &str = "vmaf_v0.6.1";

/// The second series the plot starts with, in the order `P` offers them
/// first: the default model's inputs and luma PSNR.
const FIRST_SERIES: [&str; 4] = ["integer_vif_scale0", "integer_adm2", "integer_motion2", "psnr_y"];

/// Per-frame scores received so far, in frame order.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub frames: Vec<FrameScores>,
    pub done: bool,
    pub error: Option<String>,
}

impl History {
    /// The scores of frame `index`, if they have arrived.
    pub fn get(&self, index: u64) -> Option<&FrameScores> {
        self.frames.binary_search_by_key(&index, |f| f.index).ok().map(|i| &self.frames[i])
    }

    /// `(frame, value)` of `key` for every scored frame that has it.
    pub fn series(&self, key: &str) -> Vec<(u64, f64)> {
        self.frames.iter().filter_map(|f| Some((f.index, f.get(key)?))).collect()
    }

    /// Every value the scorer computes besides the model's own (`vmaf`
    /// and its bootstrap extras `vmaf_*`): what `P` cycles through as the
    /// plot's second series. The four inputs of the default model come
    /// first, then the rest in report order.
    pub fn plottable(&self) -> Vec<&str> {
        let Some(first) = self.frames.first() else { return Vec::new() };
        let mut keys: Vec<&str> = first
            .names
            .iter()
            .map(String::as_str)
            .filter(|k| *k != "vmaf" && !k.starts_with("vmaf_"))
            .collect();
        let rank =
            |k: &&str| FIRST_SERIES.iter().position(|f| f == k).unwrap_or(FIRST_SERIES.len());
        keys.sort_by_key(rank);
        keys
    }

    /// The plot's second series for [`super::state::State::series`]
    /// `index`, once any frame is scored.
    pub fn second_series(&self, index: usize) -> Option<&str> {
        let keys = self.plottable();
        (!keys.is_empty()).then(|| keys[index % keys.len()])
    }

    /// Pooled VMAF over the frames scored so far, and its 1%-low (the mean
    /// of the worst 1% of frames, at least one).
    pub fn pooled(&self) -> Option<(Pooled, f64)> {
        let values: Vec<f64> = self.frames.iter().filter_map(|f| f.get("vmaf")).collect();
        let pooled = pool(&values)?;
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len().div_ceil(100).max(1);
        let low = sorted[..n].iter().sum::<f64>() / n as f64;
        Some((pooled, low))
    }

    /// The `n` frames with the lowest VMAF, worst first (ties: earlier first).
    pub fn worst(&self, n: usize) -> Vec<(u64, f64)> {
        let mut all = self.series("vmaf");
        all.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }

    fn insert(&mut self, scores: FrameScores) {
        match self.frames.binary_search_by_key(&scores.index, |f| f.index) {
            Ok(i) => self.frames[i] = scores,
            Err(i) => self.frames.insert(i, scores),
        }
    }
}

/// The scoring thread and its channel.
pub struct Scorer {
    rx: Receiver<Update>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Scorer {
    /// Starts scoring `inputs` with `model`, psnr and the `--feature`
    /// specs `features` on a thread of its own.
    pub fn spawn(inputs: Inputs, model: Model, features: Arc<[String]>) -> Result<Self> {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("vqscope-score".into())
            .spawn(move || {
                let update = match score(&inputs, &model, &features, &tx, &flag) {
                    Ok(()) => Update::Done,
                    Err(e) => Update::Failed(
                        e.chain().map(|c| c.to_string()).collect::<Vec<_>>().join(": "),
                    ),
                };
                let _ = tx.send(update);
            })
            .context("starting the scoring thread")?;
        Ok(Scorer { rx, stop, thread: Some(thread) })
    }

    /// Moves what has arrived into `history`; returns whether anything did.
    pub fn poll(&self, history: &mut History) -> bool {
        let mut changed = false;
        loop {
            match self.rx.try_recv() {
                Ok(update) => {
                    apply(history, update);
                    changed = true;
                }
                Err(TryRecvError::Empty) => return changed,
                Err(TryRecvError::Disconnected) => {
                    if !history.done && history.error.is_none() {
                        history.error = Some("the scoring thread stopped".into());
                    }
                    return changed;
                }
            }
        }
    }

    /// Blocks until the whole clip is scored (the headless path).
    pub fn wait(mut self, history: &mut History) -> Result<()> {
        while let Ok(update) = self.rx.recv() {
            apply(history, update);
            if history.done || history.error.is_some() {
                break;
            }
        }
        self.join();
        match &history.error {
            Some(e) => anyhow::bail!("scoring failed: {e}"),
            None => Ok(()),
        }
    }

    fn join(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Scorer {
    fn drop(&mut self) {
        self.join();
    }
}

fn apply(history: &mut History, update: Update) {
    match update {
        Update::Frames(frames) => frames.into_iter().for_each(|f| history.insert(f)),
        Update::Done => history.done = true,
        Update::Failed(e) => history.error = Some(e),
    }
}

/// What the dashboard scores: `model`, psnr and the `--feature` specs
/// `features` as `vqscope score` reads them. Also run before a window
/// opens, so a bad spec is a one-line error, not a notice later.
pub fn selection(model: &Model, features: &[String]) -> Result<Selection> {
    let mut selection = Selection::new();
    selection.add_model(model.clone())?;
    selection.add_feature("psnr")?;
    for spec in features {
        selection.add_feature(spec).with_context(|| format!("--feature {spec}"))?;
    }
    Ok(selection)
}

/// The thread's body: every pair through the GPU pipeline, predictions
/// added, sent as they complete. Stops early when the UI goes away.
fn score(
    inputs: &Inputs,
    model: &Model,
    features: &[String],
    tx: &Sender<Update>,
    stop: &AtomicBool,
) -> Result<()> {
    let pair = inputs.open()?;
    let geometry = pair.reference().info().geometry;
    let selection = selection(model, features)?;
    // The inputs' decoding context where they are decoded on the device:
    // on a context of its own the scorer would read every picture back to
    // the host and upload it again (measured on an H100: a 4K H.265 pair
    // scored at 25-30 frames a second while played, against 300 alone).
    let ctx = crate::decode_arg::gpu_context(&ContextOptions::from_env())?;
    let mut scorer = vmaf::Scorer::new(&ctx, geometry, &selection)?;
    let send = |frames: Vec<FrameScores>| -> bool {
        frames.is_empty() || tx.send(Update::Frames(frames)).is_ok()
    };
    let mut decoder = Decoder::spawn(pair, READ_AHEAD)?;
    while let Some(p) = decoder.recv()? {
        if stop.load(Ordering::Relaxed) || !send(scorer.push(&p)?) {
            return Ok(());
        }
        p.recycle();
    }
    send(scorer.finish()?);
    Ok(())
}
