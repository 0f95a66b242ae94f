//! One scoring run: the selection's [`Scorer`] on the shared GPU context,
//! fed frame pairs (or, for a ladder, groups of a reference and its
//! renditions, one lane each), pooled as the CLI pools (a [`ReportStream`]
//! without a report file), every frame kept for the Python side.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use vqscope_gpu::GpuContext;
use vqscope_metrics::frontend::{self, ModelLabel};
use vqscope_metrics::pipeline::FrameScores;
use vqscope_metrics::report::ReportStream;
use vqscope_metrics::vmaf::{Scorer, Selection};
use vqscope_video::{FrameGroup, FramePair, Geometry, SourceInfo};

use crate::result::NativeResult;

/// A clip being scored.
pub(crate) struct Run {
    scorer: Scorer,
    labels: Vec<ModelLabel>,
    /// Per lane (one for a pair), its pooling and its frames.
    lanes: Vec<(ReportStream<std::io::Empty>, Vec<FrameScores>)>,
    geometry: Geometry,
    subsample: u64,
    device: String,
    started: Instant,
}

impl Run {
    /// Builds the pipeline for clips of `geometry`, with `lanes` lanes (the
    /// renditions of a ladder; one for a pair), sharing the features that
    /// read only the reference with `same_frames`
    /// ([`Scorer::with_lanes`]); saves the pipeline cache, as the CLI
    /// does, so that the next process starts faster.
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        (selection, labels): (Selection, Vec<ModelLabel>),
        (lanes, same_frames): (usize, bool),
        subsample: u64,
        started: Instant,
    ) -> Result<Self> {
        let selections = vec![&selection; lanes.max(1)];
        let scorer = Scorer::with_lanes(ctx, geometry, &selections, same_frames)?;
        // A cache that cannot be written only costs the next start-up time.
        let _ = ctx.save_pipeline_cache();
        Ok(Self {
            scorer,
            labels,
            lanes: (0..selections.len())
                .map(|_| (ReportStream::pool_only(subsample), Vec::new()))
                .collect(),
            geometry,
            subsample,
            device: ctx.info().name.clone(),
            started,
        })
    }

    /// Makes lane `k` scale its distorted frames on the GPU when its input
    /// is read at another size ([`Scorer::scale_lane`]).
    pub fn scale_lane(&mut self, k: usize, distorted: &SourceInfo) -> Result<()> {
        Ok(self.scorer.scale_lane(k, distorted)?)
    }

    /// Scores the next pair.
    pub fn push(&mut self, pair: &FramePair) -> Result<()> {
        let scored = self.scorer.push(pair)?;
        self.keep(vec![scored])
    }

    /// Scores the next group (lane `k` its distorted frame `k`).
    pub fn push_group(&mut self, group: &FrameGroup) -> Result<()> {
        let scored = self.scorer.push_group(group)?;
        self.keep(scored)
    }

    fn keep(&mut self, scored: Vec<Vec<FrameScores>>) -> Result<()> {
        for (k, (frames, (stream, kept))) in scored.into_iter().zip(&mut self.lanes).enumerate() {
            if let Some(failure) = self.scorer.take_failure(k) {
                return Err(failure.into());
            }
            for f in frames {
                stream.push(&f.names, &f.values)?;
                kept.push(f);
            }
        }
        Ok(())
    }

    /// Waits for the last frames; per lane, the result with its warnings
    /// from reading.
    pub fn finish(mut self, warnings: Vec<Vec<String>>) -> Result<Vec<NativeResult>> {
        let scored = self.scorer.finish_lanes()?;
        self.keep(scored)?;
        let seconds = self.started.elapsed().as_secs_f64();
        let mut results = Vec::new();
        for (k, ((stream, frames), warnings)) in self.lanes.into_iter().zip(warnings).enumerate() {
            if frames.is_empty() {
                bail!("no frames to score");
            }
            let lines = frontend::pooled_lines(&self.labels, |name| stream.pooled_mean(name));
            results.push(NativeResult {
                names: frames[0].names.to_vec(),
                aggregates: self.scorer.lane_aggregates(k),
                pooled: stream.pooled(),
                pooled_lines: lines,
                frames,
                subsample: self.subsample,
                size: (self.geometry.width, self.geometry.height),
                device: self.device.clone(),
                warnings,
                seconds,
            });
        }
        Ok(results)
    }
}
