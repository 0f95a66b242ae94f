//! Scoring a clip on the GPU, frame pair after frame pair, for any set of
//! registry features. Each pair is uploaded once into a ring slot; every
//! feature instance records its kernels into the same command buffer and
//! leaves its reduced int64 sums in that slot's host-visible result buffer
//! (a few hundred bytes). Up to `SLOTS` pairs are in flight on a timeline
//! semaphore; the host hands each finished slot's words to the instances,
//! which turn them into libvmaf's values. Temporal instances (motion) may
//! hold a frame's values back until later frames arrive, so a frame comes
//! out once every instance has delivered it, in frame order, or at
//! [`ScorePipeline::finish`].
//!
//! For an encoding ladder one pipeline scores several renditions against
//! one reference ([`ScorePipeline::with_lanes`]): each rendition is a lane
//! with its own instances, columns and rows, while the reference is
//! uploaded once per frame and every lane's kernels go into the same
//! submission.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use vqscope_gpu::{Buffer, GpuContext, Recorder, Submitter, Ticket, Timestamps};
use vqscope_video::{DeviceFrame, Frame, FrameGroup, FramePair, FrameUploader, Geometry};

use crate::MetricsError;
use crate::device::{DevicePlane, uploaded_plane};
use crate::features::{self, Extractor, Feature, FeatureOptions, FramePlanes, Setup};

/// Pairs in flight at once (also the upload ring's size: motion compares
/// with at most two frames back, so it must be at least 3).
const SLOTS: usize = 4;

/// The feature instances to run, each a registry feature with its options:
/// what `--feature NAME=k=v` strings and models ask for. Requests that give
/// the same outputs under the same names (same feature, same parameters)
/// run once, as in libvmaf.
#[derive(Debug, Clone, Default)]
pub struct FeatureSet {
    requests: Vec<Request>,
    /// libvmaf's `--subsample`: only every n-th frame is scored there, so
    /// side outputs (CAMBI's heat maps) skip the others; 0 and 1 mean all.
    subsample: u64,
}

#[derive(Clone)]
struct Request {
    feature: &'static dyn Feature,
    options: FeatureOptions,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({:?})", self.feature.name(), self.options)
    }
}

impl FeatureSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tells the features that only frames whose index is a multiple of
    /// `n` are reported (libvmaf's `--subsample`, which skips the others).
    pub fn set_subsample(&mut self, n: u64) {
        self.subsample = n;
    }

    /// Adds `feature` with `options`, merged into an equal request if there
    /// is one (its non-parameter options, such as `debug`, are then set
    /// too).
    pub fn add(&mut self, feature: &'static dyn Feature, options: FeatureOptions) {
        match self
            .requests
            .iter_mut()
            .find(|r| r.feature.name() == feature.name() && r.options.same_params(&options))
        {
            Some(existing) => existing.options.merge(&options),
            None => self.requests.push(Request { feature, options }),
        }
    }

    /// Adds a feature from libvmaf's `--feature` syntax: `NAME` or
    /// `NAME=opt=value:opt=value`.
    pub fn add_spec(&mut self, spec: &str) -> Result<(), MetricsError> {
        let (name, list) = spec.split_once('=').unwrap_or((spec, ""));
        let feature = features::find(name)?;
        let mut options = feature.default_options();
        options.parse_list(name, list)?;
        self.add(feature, options);
        Ok(())
    }

    /// Whether nothing was asked for.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The requests in report order: registry order, then order of adding.
    fn ordered(&self) -> Vec<&Request> {
        let rank = |r: &Request| {
            features::REGISTRY
                .iter()
                .position(|f| f.name() == r.feature.name())
                .unwrap_or(usize::MAX)
        };
        let mut ordered: Vec<&Request> = self.requests.iter().collect();
        ordered.sort_by_key(|r| rank(r));
        ordered
    }
}

/// One frame's values, in the order of [`ScorePipeline::columns`].
#[derive(Debug, Clone, PartialEq)]
pub struct FrameScores {
    pub index: u64,
    /// The names of `values` (shared by every frame of a run).
    pub names: Arc<[String]>,
    pub values: Vec<f64>,
}

impl FrameScores {
    /// The value named `name`, if the frame has it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.names.iter().position(|n| n == name).map(|i| self.values[i])
    }

    /// `(name, value)` pairs in report order.
    pub fn named(&self) -> impl Iterator<Item = (&str, f64)> {
        self.names.iter().map(String::as_str).zip(self.values.iter().copied())
    }
}

/// GPU milliseconds per kernel of the last finished frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelTimes {
    /// `(feature, ms)`, upload first.
    pub passes: Vec<(&'static str, f64)>,
}

/// A built feature instance and where its words and values go.
struct Instance {
    name: &'static str,
    extractor: Box<dyn Extractor>,
    /// First result word and word count in a slot's result buffer.
    offset: u32,
    words: u32,
    /// The frame table column of each of the instance's values.
    columns: Vec<usize>,
}

/// One rendition of the pipeline: its instances, the names of its values
/// and its frames still waiting for values.
struct Lane {
    instances: Vec<Instance>,
    names: Arc<[String]>,
    pending: BTreeMap<u64, PendingRow>,
    /// Why the lane stopped (an instance refused a frame); it records and
    /// delivers nothing more.
    failure: Option<MetricsError>,
    failed: bool,
}

struct InFlight {
    ticket: Ticket,
    slot: usize,
    index: u64,
    /// Per lane, whether its kernels ran on this frame.
    recorded: Vec<bool>,
}

/// A frame whose values are still arriving.
struct PendingRow {
    values: Vec<f64>,
    filled: usize,
}

/// The per-frame GPU scoring pipeline for one clip geometry.
///
/// Teardown depends on the field order (fields drop as declared): the
/// submitter comes before every buffer, pipeline and query pool its
/// submissions use, so its `Drop`, which waits for all of them, runs
/// before any of those is destroyed. Keep new GPU resources below it.
pub struct ScorePipeline {
    ctx: Arc<GpuContext>,
    /// Declared before the resources its submissions use (see above).
    submitter: Submitter,
    uploader: FrameUploader,
    lanes: Vec<Lane>,
    result_words: u32,
    results: Vec<Buffer>,
    timestamps: Vec<Timestamps>,
    in_flight: VecDeque<InFlight>,
    /// Ring slot of each recent frame, for temporal features' earlier frames.
    recent_slots: VecDeque<(u64, usize)>,
    last_times: KernelTimes,
    /// Two timestamps around [`ScorePipeline::time_resident`]'s batch.
    resident_stamps: Timestamps,
}

/// The planes of `reference` and `distorted` in ring slot `slot`, with the
/// luma planes of ring slot `earlier` (which holds its frames at the same
/// offsets) when given.
fn frame_planes<'a>(
    uploader: &'a FrameUploader,
    slot: usize,
    reference: &DeviceFrame,
    distorted: &DeviceFrame,
    earlier: Option<usize>,
) -> FramePlanes<'a> {
    let buffer = uploader.slot_buffer(slot);
    let (r, d) = (reference, distorted);
    FramePlanes {
        reference: (0..r.plane_count).map(|i| uploaded_plane(buffer, r, i)).collect(),
        distorted: (0..d.plane_count).map(|i| uploaded_plane(buffer, d, i)).collect(),
        earlier_reference: earlier_luma(uploader, r, earlier),
        earlier_distorted: earlier_luma(uploader, d, earlier),
    }
}

/// The luma plane of `frame`'s layout in ring slot `earlier`, which holds
/// an earlier frame at the same offsets.
fn earlier_luma<'a>(
    uploader: &'a FrameUploader,
    frame: &DeviceFrame,
    earlier: Option<usize>,
) -> Option<DevicePlane<'a>> {
    earlier.map(|s| uploaded_plane(uploader.slot_buffer(s), frame, 0))
}

/// A built extractor and its feature's name.
type Built = (&'static str, Box<dyn Extractor>);

/// Builds every instance of `sets` (one list per lane), each on a thread of
/// its own: building is mostly the driver compiling pipelines (or finding
/// them in the cache), which runs in parallel. The first error in lane and
/// report order wins.
fn build_instances(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    sets: &[&FeatureSet],
) -> Result<Vec<Vec<Built>>, MetricsError> {
    let requests: Vec<Vec<&Request>> = sets.iter().map(|set| set.ordered()).collect();
    let built: Vec<Vec<Result<Box<dyn Extractor>, MetricsError>>> = std::thread::scope(|s| {
        let threads: Vec<Vec<_>> = requests
            .iter()
            .zip(sets)
            .map(|(lane, set)| {
                lane.iter()
                    .map(|r| {
                        s.spawn(move || {
                            let setup = Setup { ctx, geometry, subsample: set.subsample.max(1) };
                            r.feature.build(&setup, &r.options)
                        })
                    })
                    .collect()
            })
            .collect();
        threads
            .into_iter()
            .map(|lane| {
                lane.into_iter()
                    .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                    .collect()
            })
            .collect()
    });
    requests
        .iter()
        .zip(built)
        .map(|(lane, built)| {
            lane.iter().zip(built).map(|(r, e)| Ok((r.feature.name(), e?))).collect()
        })
        .collect()
}

impl Lane {
    /// Places `built` from result word `offset` on; returns the lane and
    /// the first word past it. Columns: every instance's ordinary values,
    /// then the late ones.
    fn new(built: Vec<Built>, offset: &mut u32) -> Lane {
        let mut names: Vec<String> = Vec::new();
        let mut maps: Vec<Vec<usize>> = vec![Vec::new(); built.len()];
        for late in [false, true] {
            for (k, (_, extractor)) in built.iter().enumerate() {
                let columns = extractor.columns();
                if maps[k].is_empty() {
                    maps[k] = vec![usize::MAX; columns.len()];
                }
                for (j, column) in columns.into_iter().enumerate() {
                    if column.late == late {
                        maps[k][j] = names.len();
                        names.push(column.name);
                    }
                }
            }
        }
        let instances = built
            .into_iter()
            .zip(maps)
            .map(|((name, extractor), columns)| {
                let words = extractor.result_words();
                let inst = Instance { name, extractor, offset: *offset, words, columns };
                *offset += words;
                inst
            })
            .collect();
        Lane {
            instances,
            names: names.into(),
            pending: BTreeMap::new(),
            failure: None,
            failed: false,
        }
    }

    /// Stores instance `i`'s values in their frames' rows.
    fn fill(&mut self, i: usize, values: Vec<features::FrameValues>) {
        let width = self.names.len();
        for (index, frame_values) in values {
            let row = self
                .pending
                .entry(index)
                .or_insert_with(|| PendingRow { values: vec![f64::NAN; width], filled: 0 });
            for (j, v) in frame_values.into_iter().enumerate() {
                row.values[self.instances[i].columns[j]] = v;
            }
            row.filled += self.instances[i].columns.len();
        }
    }

    /// Moves the complete rows at the front of the queue to `done`.
    fn release(&mut self, done: &mut Vec<FrameScores>) {
        while let Some(entry) = self.pending.first_entry() {
            if entry.get().filled < self.names.len() {
                break;
            }
            let (index, row) = entry.remove_entry();
            done.push(FrameScores { index, names: Arc::clone(&self.names), values: row.values });
        }
    }

    /// Stops the lane with `failure`, dropping its unfinished rows.
    fn fail(&mut self, failure: MetricsError) {
        self.failure = Some(failure);
        self.failed = true;
        self.pending.clear();
    }
}

impl ScorePipeline {
    /// Builds every instance of `set` for clips of `geometry`; size and
    /// option errors come from the features (the same as the CPU twins').
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        set: &FeatureSet,
    ) -> Result<Self, MetricsError> {
        Self::with_lanes(ctx, geometry, &[set])
    }

    /// A pipeline of one lane per set: renditions scored against one
    /// reference ([`ScorePipeline::push_group`]), lane `k` with the
    /// instances of `sets[k]`.
    pub fn with_lanes(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        sets: &[&FeatureSet],
    ) -> Result<Self, MetricsError> {
        let mut offset = 0u32;
        let lanes: Vec<Lane> = build_instances(ctx, geometry, sets)?
            .into_iter()
            .map(|built| Lane::new(built, &mut offset))
            .collect();
        let instances: usize = lanes.iter().map(|l| l.instances.len()).sum();
        let words = u64::from(offset.max(1));
        let results = (0..SLOTS)
            .map(|_| Buffer::readback(ctx, "frame results", words * 8))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let timestamps = (0..SLOTS)
            .map(|_| Timestamps::new(ctx, instances as u32 + 2))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        Ok(Self {
            ctx: Arc::clone(ctx),
            submitter: Submitter::new(ctx, SLOTS)?,
            uploader: FrameUploader::with_lanes(ctx, geometry, SLOTS, lanes.len())?,
            lanes,
            result_words: offset,
            results,
            timestamps,
            in_flight: VecDeque::new(),
            recent_slots: VecDeque::new(),
            last_times: KernelTimes::default(),
            resident_stamps: Timestamps::new(ctx, 2)?,
        })
    }

    /// The names of every frame's values, in report order.
    pub fn columns(&self) -> &Arc<[String]> {
        self.lane_columns(0)
    }

    /// The names of lane `k`'s values.
    pub fn lane_columns(&self, k: usize) -> &Arc<[String]> {
        &self.lanes[k].names
    }

    /// Bytes the host reads back per frame (for every lane).
    pub fn readback_bytes(&self) -> u64 {
        u64::from(self.result_words) * 8
    }

    /// GPU time per kernel of the most recently finished frame.
    pub fn last_times(&self) -> &KernelTimes {
        &self.last_times
    }

    /// Clip-level values (libvmaf's `aggregate_metrics`), complete after
    /// [`ScorePipeline::finish`].
    pub fn aggregates(&self) -> Vec<(String, f64)> {
        self.lane_aggregates(0)
    }

    /// Lane `k`'s clip-level values.
    pub fn lane_aggregates(&self, k: usize) -> Vec<(String, f64)> {
        self.lanes[k].instances.iter().flat_map(|i| i.extractor.aggregates()).collect()
    }

    /// What stopped lane `k` (a frame one of its features refused), once;
    /// the other lanes go on.
    pub fn take_failure(&mut self, k: usize) -> Option<MetricsError> {
        self.lanes[k].failure.take()
    }

    /// Lane 0's frames, or its failure.
    fn lane_zero(
        &mut self,
        mut frames: Vec<Vec<FrameScores>>,
    ) -> Result<Vec<FrameScores>, MetricsError> {
        match self.take_failure(0) {
            Some(failure) => Err(failure),
            None => Ok(frames.swap_remove(0)),
        }
    }

    /// Submits `pair`; returns the frames whose values became final.
    pub fn push(&mut self, pair: &FramePair) -> Result<Vec<FrameScores>, MetricsError> {
        let frames = self.push_frames(pair.index, &pair.reference, &[Some(&pair.distorted)])?;
        self.lane_zero(frames)
    }

    /// Submits `group` (lane `k` scores its distorted frame `k`; a lane
    /// without one is skipped); returns, per lane, the frames whose values
    /// became final.
    pub fn push_group(
        &mut self,
        group: &FrameGroup,
    ) -> Result<Vec<Vec<FrameScores>>, MetricsError> {
        let distorted: Vec<Option<&Frame>> = group.distorted.iter().map(Option::as_ref).collect();
        self.push_frames(group.index, &group.reference, &distorted)
    }

    fn push_frames(
        &mut self,
        index: u64,
        reference: &Frame,
        distorted: &[Option<&Frame>],
    ) -> Result<Vec<Vec<FrameScores>>, MetricsError> {
        let mut done = vec![Vec::new(); self.lanes.len()];
        if self.in_flight.len() >= SLOTS - 1 {
            self.complete_oldest(&mut done)?;
        }
        let earlier: Vec<Vec<Option<usize>>> = self
            .lanes
            .iter()
            .map(|lane| lane.instances.iter().map(|inst| self.earlier_slot(inst, index)).collect())
            .collect::<Result<_, _>>()?;
        let recorded: Vec<bool> = (0..self.lanes.len())
            .map(|k| !self.lanes[k].failed && distorted.get(k).copied().flatten().is_some())
            .collect();
        let Self { submitter, uploader, lanes, results, timestamps, .. } = self;
        let mut slot = 0;
        let ticket = submitter.submit(|rec| {
            let stamps = &timestamps[uploader.next_slot()];
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            let up = uploader.upload_lanes(rec, index, reference, distorted)?;
            slot = up.slot;
            rec.timestamp(stamps, 1);
            let mut stamp = 2;
            for (k, lane) in lanes.iter().enumerate() {
                for (inst, earlier) in lane.instances.iter().zip(&earlier[k]) {
                    if let (true, Some(d)) = (recorded[k], &up.distorted[k]) {
                        let planes = frame_planes(uploader, up.slot, &up.reference, d, *earlier);
                        inst.extractor.record(
                            rec,
                            &planes,
                            &results[up.slot],
                            inst.offset,
                            None,
                        )?;
                    }
                    rec.timestamp(stamps, stamp);
                    stamp += 1;
                }
            }
            Ok(())
        })?;
        self.recent_slots.push_back((index, slot));
        while self.recent_slots.len() > SLOTS {
            self.recent_slots.pop_front();
        }
        self.in_flight.push_back(InFlight { ticket, slot, index, recorded });
        Ok(done)
    }

    /// The ring slot of the earlier frame `inst` compares frame `index`
    /// with, if it needs one.
    fn earlier_slot(&self, inst: &Instance, index: u64) -> Result<Option<usize>, MetricsError> {
        let Some(p) = inst.extractor.earlier_reference(index) else { return Ok(None) };
        match self.recent_slots.iter().find(|(i, _)| *i == p) {
            Some((_, s)) => Ok(Some(*s)),
            None => Err(MetricsError::Usage(format!(
                "{}: frame {p} is no longer on the GPU (frames must be pushed in order, without \
                 gaps)",
                inst.name
            ))),
        }
    }

    /// Records lane 0's instances for the pair already uploaded in `slot`,
    /// each temporal one against the same frame (the same work as against
    /// an earlier one).
    fn record_resident(
        instances: &[Instance],
        uploader: &FrameUploader,
        up: &vqscope_video::DeviceFramePair,
        out: &Buffer,
        rec: &mut Recorder<'_>,
    ) -> vqscope_gpu::Result<()> {
        let planes = frame_planes(uploader, up.slot, &up.reference, &up.distorted, Some(up.slot));
        for inst in instances {
            inst.extractor.record(rec, &planes, out, inst.offset, None)?;
        }
        Ok(())
    }

    /// GPU milliseconds per frame with the pair already on the GPU: waits
    /// for everything in flight, uploads `pair` once, then records every
    /// instance (of lane 0) `repeats` times back to back in one submission
    /// between two timestamps, so the GPU never idles on the host. Returns
    /// no scores.
    pub fn time_resident(&mut self, pair: &FramePair, repeats: u32) -> Result<f64, MetricsError> {
        self.submitter.wait_all()?;
        let Self { submitter, uploader, lanes, results, resident_stamps: stamps, .. } = self;
        let instances = &lanes[0].instances;
        submitter.run(|rec| {
            let up = uploader.upload(rec, pair)?;
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            for _ in 0..repeats.max(1) {
                Self::record_resident(instances, uploader, &up, &results[up.slot], rec)?;
            }
            rec.timestamp(stamps, 1);
            Ok(())
        })?;
        // Leave the ring as if nothing was scored: the next frame starts afresh.
        self.recent_slots.clear();
        let ms = self.resident_stamps.read_intervals_ms()?[0];
        Ok(ms / f64::from(repeats.max(1)))
    }

    /// Each instance's (of lane 0) dispatches alone between barriers, on
    /// `pair` uploaded once: per instance, `(feature, [(phase, median
    /// ms)])` over `frames` frames, after at least 200 ms of the instance
    /// back to back (an idle GPU clocks down). For benchmarks; returns no
    /// scores.
    #[allow(clippy::type_complexity)]
    pub fn time_dispatches(
        &mut self,
        pair: &FramePair,
        frames: usize,
    ) -> Result<Vec<(&'static str, Vec<(&'static str, f64)>)>, MetricsError> {
        self.submitter.wait_all()?;
        let Self { ctx, submitter, uploader, lanes, results, .. } = self;
        let mut uploaded = None;
        submitter.run(|rec| {
            uploaded = Some(uploader.upload(rec, pair)?);
            Ok(())
        })?;
        let up = uploaded.expect("the upload ran");
        let planes = frame_planes(uploader, up.slot, &up.reference, &up.distorted, Some(up.slot));
        let out = &results[up.slot];
        let mut timed = Vec::new();
        for inst in lanes[0].instances.iter() {
            let ext = &inst.extractor;
            vqscope_gpu::keep_busy(submitter, Duration::from_millis(200), |rec| {
                ext.record(rec, &planes, out, inst.offset, None)
            })?;
            let phases = ext.phases();
            let ms = vqscope_gpu::phase_medians(ctx, submitter, phases.len(), frames, |rec, s| {
                ext.record(rec, &planes, out, inst.offset, Some(s))
            })?;
            timed.push((inst.name, phases.iter().copied().zip(ms).collect()));
        }
        self.recent_slots.clear();
        Ok(timed)
    }

    /// Waits for every frame in flight and returns all remaining values.
    pub fn finish(&mut self) -> Result<Vec<FrameScores>, MetricsError> {
        let frames = self.finish_lanes()?;
        self.lane_zero(frames)
    }

    /// [`ScorePipeline::finish`] for every lane: per lane, its remaining
    /// frames (a lane that failed has none; see
    /// [`ScorePipeline::take_failure`]).
    pub fn finish_lanes(&mut self) -> Result<Vec<Vec<FrameScores>>, MetricsError> {
        let mut done = vec![Vec::new(); self.lanes.len()];
        while !self.in_flight.is_empty() {
            self.complete_oldest(&mut done)?;
        }
        for (lane, done) in self.lanes.iter_mut().zip(&mut done) {
            if lane.failed {
                continue;
            }
            for i in 0..lane.instances.len() {
                let flushed = lane.instances[i].extractor.flush();
                lane.fill(i, flushed);
            }
            lane.release(done);
            // Every instance delivers every frame; nothing may stay behind.
            if let Some((index, _)) = lane.pending.first_key_value() {
                let missing = MetricsError::Usage(format!("frame {index} is missing values"));
                lane.fail(missing);
                done.clear();
            }
        }
        Ok(done)
    }

    /// Waits for the oldest frame in flight and hands its words to the
    /// instances of the lanes that scored it.
    fn complete_oldest(&mut self, done: &mut [Vec<FrameScores>]) -> Result<(), MetricsError> {
        let Some(frame) = self.in_flight.pop_front() else { return Ok(()) };
        self.submitter.wait(frame.ticket)?;
        let bytes = self.results[frame.slot].mapped()?;
        let words: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let ms = self.timestamps[frame.slot].read_intervals_ms()?;
        let names = self.lanes.iter().flat_map(|l| l.instances.iter().map(|i| i.name));
        self.last_times =
            KernelTimes { passes: std::iter::once("upload").chain(names).zip(ms).collect() };
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            if !frame.recorded[k] || lane.failed {
                continue;
            }
            for i in 0..lane.instances.len() {
                let inst = &mut lane.instances[i];
                let range = inst.offset as usize..(inst.offset + inst.words) as usize;
                let values = inst.extractor.frame(frame.index, &words[range]);
                if let Some(failure) = inst.extractor.take_failure() {
                    lane.fail(failure);
                    done[k].clear();
                    break;
                }
                lane.fill(i, values);
            }
            if !lane.failed {
                lane.release(&mut done[k]);
            }
        }
        Ok(())
    }
}
