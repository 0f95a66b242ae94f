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

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use vqscope_gpu::{Buffer, GpuContext, Recorder, Submitter, Ticket, Timestamps};
use vqscope_video::{DeviceFramePair, FramePair, FrameUploader, Geometry};

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

struct InFlight {
    ticket: Ticket,
    slot: usize,
    index: u64,
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
    instances: Vec<Instance>,
    names: Arc<[String]>,
    result_words: u32,
    results: Vec<Buffer>,
    timestamps: Vec<Timestamps>,
    in_flight: VecDeque<InFlight>,
    /// Ring slot of each recent frame, for temporal features' earlier frames.
    recent_slots: VecDeque<(u64, usize)>,
    pending: BTreeMap<u64, PendingRow>,
    last_times: KernelTimes,
    /// Two timestamps around [`ScorePipeline::time_resident`]'s batch.
    resident_stamps: Timestamps,
}

/// The planes of the uploaded pair `up`, with the reference luma of ring
/// slot `earlier` (which holds its frame at the same offsets) when given.
fn frame_planes<'a>(
    uploader: &'a FrameUploader,
    up: &DeviceFramePair,
    earlier: Option<usize>,
) -> FramePlanes<'a> {
    let buffer = uploader.slot_buffer(up.slot);
    let (r, d) = (&up.reference, &up.distorted);
    FramePlanes {
        reference: (0..r.plane_count).map(|i| uploaded_plane(buffer, r, i)).collect(),
        distorted: (0..d.plane_count).map(|i| uploaded_plane(buffer, d, i)).collect(),
        earlier_reference: earlier_luma(uploader, up, earlier),
        earlier_distorted: earlier_distorted_luma(uploader, up, earlier),
    }
}

/// The reference luma of ring slot `earlier`, which holds its frame at the
/// same offsets as `up`'s.
fn earlier_luma<'a>(
    uploader: &'a FrameUploader,
    up: &DeviceFramePair,
    earlier: Option<usize>,
) -> Option<DevicePlane<'a>> {
    earlier.map(|s| uploaded_plane(uploader.slot_buffer(s), &up.reference, 0))
}

/// The distorted luma of ring slot `earlier`, likewise.
fn earlier_distorted_luma<'a>(
    uploader: &'a FrameUploader,
    up: &DeviceFramePair,
    earlier: Option<usize>,
) -> Option<DevicePlane<'a>> {
    earlier.map(|s| uploaded_plane(uploader.slot_buffer(s), &up.distorted, 0))
}

impl ScorePipeline {
    /// Builds every instance of `set` for clips of `geometry`; size and
    /// option errors come from the features (the same as the CPU twins').
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        set: &FeatureSet,
    ) -> Result<Self, MetricsError> {
        let setup = Setup { ctx, geometry, subsample: set.subsample.max(1) };
        let requests = set.ordered();
        // Each instance on a thread of its own: building is mostly the
        // driver compiling pipelines (or finding them in the cache), which
        // runs in parallel. The first error in report order wins.
        let extractors: Vec<Result<Box<dyn Extractor>, MetricsError>> = std::thread::scope(|s| {
            let threads: Vec<_> =
                requests.iter().map(|r| s.spawn(|| r.feature.build(&setup, &r.options))).collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        let mut built = Vec::new();
        let mut offset = 0u32;
        for (request, extractor) in requests.iter().zip(extractors) {
            let extractor = extractor?;
            let words = extractor.result_words();
            built.push((request.feature.name(), extractor, offset, words));
            offset += words;
        }
        // Columns: every instance's ordinary values, then the late ones.
        let mut names: Vec<String> = Vec::new();
        let mut maps: Vec<Vec<usize>> = vec![Vec::new(); built.len()];
        for late in [false, true] {
            for (k, (_, extractor, ..)) in built.iter().enumerate() {
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
        let instances: Vec<Instance> = built
            .into_iter()
            .zip(maps)
            .map(|((name, extractor, offset, words), columns)| Instance {
                name,
                extractor,
                offset,
                words,
                columns,
            })
            .collect();
        let words = u64::from(offset.max(1));
        let results = (0..SLOTS)
            .map(|_| Buffer::readback(ctx, "frame results", words * 8))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let timestamps = (0..SLOTS)
            .map(|_| Timestamps::new(ctx, instances.len() as u32 + 2))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        Ok(Self {
            ctx: Arc::clone(ctx),
            submitter: Submitter::new(ctx, SLOTS)?,
            uploader: FrameUploader::new(ctx, geometry, SLOTS)?,
            instances,
            names: names.into(),
            result_words: offset,
            results,
            timestamps,
            in_flight: VecDeque::new(),
            recent_slots: VecDeque::new(),
            pending: BTreeMap::new(),
            last_times: KernelTimes::default(),
            resident_stamps: Timestamps::new(ctx, 2)?,
        })
    }

    /// The names of every frame's values, in report order.
    pub fn columns(&self) -> &Arc<[String]> {
        &self.names
    }

    /// Bytes the host reads back per frame.
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
        self.instances.iter().flat_map(|i| i.extractor.aggregates()).collect()
    }

    /// Submits `pair`; returns the frames whose values became final.
    pub fn push(&mut self, pair: &FramePair) -> Result<Vec<FrameScores>, MetricsError> {
        let mut done = Vec::new();
        if self.in_flight.len() >= SLOTS - 1 {
            self.complete_oldest(&mut done)?;
        }
        let earlier: Vec<Option<usize>> = self
            .instances
            .iter()
            .map(|inst| match inst.extractor.earlier_reference(pair.index) {
                None => Ok(None),
                Some(p) => self
                    .recent_slots
                    .iter()
                    .find(|(i, _)| *i == p)
                    .map(|(_, s)| Some(*s))
                    .ok_or_else(|| {
                        MetricsError::Usage(format!(
                            "{}: frame {p} is no longer on the GPU (frames must be pushed in \
                             order, without gaps)",
                            inst.name
                        ))
                    }),
            })
            .collect::<Result<_, _>>()?;
        let Self { submitter, uploader, instances, results, timestamps, .. } = self;
        let mut slot = 0;
        let ticket = submitter.submit(|rec| {
            let stamps = &timestamps[uploader.next_slot()];
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            let up = uploader.upload(rec, pair)?;
            slot = up.slot;
            rec.timestamp(stamps, 1);
            let mut planes = frame_planes(uploader, &up, None);
            for (k, (inst, earlier)) in instances.iter().zip(&earlier).enumerate() {
                planes.earlier_reference = earlier_luma(uploader, &up, *earlier);
                planes.earlier_distorted = earlier_distorted_luma(uploader, &up, *earlier);
                inst.extractor.record(rec, &planes, &results[up.slot], inst.offset, None)?;
                rec.timestamp(stamps, 2 + k as u32);
            }
            Ok(())
        })?;
        self.recent_slots.push_back((pair.index, slot));
        while self.recent_slots.len() > SLOTS {
            self.recent_slots.pop_front();
        }
        self.in_flight.push_back(InFlight { ticket, slot, index: pair.index });
        Ok(done)
    }

    /// Records every instance for the pair already uploaded as `up`, each
    /// temporal one against the same frame (the same work as against an
    /// earlier one).
    fn record_resident(
        instances: &[Instance],
        uploader: &FrameUploader,
        up: &DeviceFramePair,
        out: &Buffer,
        rec: &mut Recorder<'_>,
    ) -> vqscope_gpu::Result<()> {
        let planes = frame_planes(uploader, up, Some(up.slot));
        for inst in instances {
            inst.extractor.record(rec, &planes, out, inst.offset, None)?;
        }
        Ok(())
    }

    /// GPU milliseconds per frame with the pair already on the GPU: waits
    /// for everything in flight, uploads `pair` once, then records every
    /// instance `repeats` times back to back in one submission between two
    /// timestamps, so the GPU never idles on the host. Returns no scores.
    pub fn time_resident(&mut self, pair: &FramePair, repeats: u32) -> Result<f64, MetricsError> {
        self.submitter.wait_all()?;
        let Self { submitter, uploader, instances, results, resident_stamps: stamps, .. } = self;
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

    /// Each instance's dispatches alone between barriers, on `pair`
    /// uploaded once: per instance, `(feature, [(phase, median ms)])` over
    /// `frames` frames, after at least 200 ms of the instance back to back
    /// (an idle GPU clocks down). For benchmarks; returns no scores.
    #[allow(clippy::type_complexity)]
    pub fn time_dispatches(
        &mut self,
        pair: &FramePair,
        frames: usize,
    ) -> Result<Vec<(&'static str, Vec<(&'static str, f64)>)>, MetricsError> {
        self.submitter.wait_all()?;
        let Self { ctx, submitter, uploader, instances, results, .. } = self;
        let mut uploaded = None;
        submitter.run(|rec| {
            uploaded = Some(uploader.upload(rec, pair)?);
            Ok(())
        })?;
        let up = uploaded.expect("the upload ran");
        let planes = frame_planes(uploader, &up, Some(up.slot));
        let out = &results[up.slot];
        let mut timed = Vec::new();
        for inst in instances.iter() {
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
        let mut done = Vec::new();
        while !self.in_flight.is_empty() {
            self.complete_oldest(&mut done)?;
        }
        for k in 0..self.instances.len() {
            let flushed = self.instances[k].extractor.flush();
            self.fill(k, flushed);
        }
        self.release(&mut done);
        // Every instance delivers every frame; nothing may stay behind.
        if let Some((index, _)) = self.pending.first_key_value() {
            return Err(MetricsError::Usage(format!("frame {index} is missing values")));
        }
        Ok(done)
    }

    /// Waits for the oldest frame in flight and hands its words to the
    /// instances.
    fn complete_oldest(&mut self, done: &mut Vec<FrameScores>) -> Result<(), MetricsError> {
        let Some(frame) = self.in_flight.pop_front() else { return Ok(()) };
        self.submitter.wait(frame.ticket)?;
        let bytes = self.results[frame.slot].mapped()?;
        let words: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let ms = self.timestamps[frame.slot].read_intervals_ms()?;
        self.last_times = KernelTimes {
            passes: std::iter::once("upload")
                .chain(self.instances.iter().map(|i| i.name))
                .zip(ms)
                .collect(),
        };
        for k in 0..self.instances.len() {
            let inst = &mut self.instances[k];
            let range = inst.offset as usize..(inst.offset + inst.words) as usize;
            let values = inst.extractor.frame(frame.index, &words[range]);
            if let Some(failure) = inst.extractor.take_failure() {
                return Err(failure);
            }
            self.fill(k, values);
        }
        self.release(done);
        Ok(())
    }

    /// Stores instance `k`'s values in their frames' rows.
    fn fill(&mut self, k: usize, values: Vec<features::FrameValues>) {
        let width = self.names.len();
        for (index, frame_values) in values {
            let row = self
                .pending
                .entry(index)
                .or_insert_with(|| PendingRow { values: vec![f64::NAN; width], filled: 0 });
            for (j, v) in frame_values.into_iter().enumerate() {
                row.values[self.instances[k].columns[j]] = v;
            }
            row.filled += self.instances[k].columns.len();
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
}
