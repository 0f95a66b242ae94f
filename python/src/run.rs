//! One scoring run: the selection's [`Scorer`] on the shared GPU context,
//! fed frame pairs, pooled as the CLI pools (a [`ReportStream`] without a
//! report file), every frame kept for the Python side.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use vqscope_gpu::GpuContext;
use vqscope_metrics::frontend::{self, ModelLabel};
use vqscope_metrics::pipeline::FrameScores;
use vqscope_metrics::report::ReportStream;
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::{FramePair, Geometry};

use crate::result::NativeResult;

/// A clip being scored.
pub(crate) struct Run {
    scorer: Scorer,
    labels: Vec<ModelLabel>,
    stream: ReportStream<std::io::Empty>,
    frames: Vec<FrameScores>,
    geometry: Geometry,
    subsample: u64,
    device: String,
    started: Instant,
}

impl Run {
    /// Builds the pipeline for clips of `geometry`; saves the pipeline
    /// cache, as the CLI does, so that the next process starts faster.
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        (selection, labels): (Selection, Vec<ModelLabel>),
        subsample: u64,
        started: Instant,
    ) -> Result<Self> {
        let scorer = Scorer::new(ctx, geometry, &selection)?;
        // A cache that cannot be written only costs the next start-up time.
        let _ = ctx.save_pipeline_cache();
        Ok(Self {
            scorer,
            labels,
            stream: ReportStream::pool_only(subsample),
            frames: Vec::new(),
            geometry,
            subsample,
            device: ctx.info().name.clone(),
            started,
        })
    }

    /// Scores the next pair.
    pub fn push(&mut self, pair: &FramePair) -> Result<()> {
        let scored = self.scorer.push(pair)?;
        self.keep(scored)
    }

    fn keep(&mut self, scored: Vec<FrameScores>) -> Result<()> {
        for f in scored {
            self.stream.push(&f.names, &f.values)?;
            self.frames.push(f);
        }
        Ok(())
    }

    /// Waits for the last frames; the result with `warnings` from reading.
    pub fn finish(mut self, warnings: Vec<String>) -> Result<NativeResult> {
        let scored = self.scorer.finish()?;
        self.keep(scored)?;
        if self.frames.is_empty() {
            bail!("no frames to score");
        }
        let lines = frontend::pooled_lines(&self.labels, |name| self.stream.pooled_mean(name));
        Ok(NativeResult {
            names: self.frames[0].names.to_vec(),
            aggregates: self.scorer.aggregates(),
            pooled: self.stream.pooled(),
            pooled_lines: lines,
            frames: self.frames,
            subsample: self.subsample,
            size: (self.geometry.width, self.geometry.height),
            device: self.device,
            warnings,
            seconds: self.started.elapsed().as_secs_f64(),
        })
    }
}
