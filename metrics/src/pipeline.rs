//! Scoring a clip on the GPU, frame pair after frame pair, for any set of
//! registry features. Each pair is uploaded once into a ring slot; every
//! feature instance records its kernels into the same command buffer,
//! interleaved step by step with the others' (`Recorder::interleave`), and
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
//! submission. Features that read only the reference run once for every
//! lane that asks for them alike, and the reference-only part of the
//! others' work ([`Feature::reference_terms`]: VIF's decimated reference
//! planes) is recorded once per frame for all their lanes' instances,
//! which read it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use vqscope_gpu::{Buffer, GpuContext, Recorder, Submitter, Ticket, Timestamps};
use vqscope_video::scale::FrameScale;
use vqscope_video::{
    DeviceFrame, DeviceFrameGroup, Frame, FrameGroup, FramePair, FrameUploader, Geometry,
};

use crate::MetricsError;
use crate::device::{DevicePlane, uploaded_plane};
use crate::features::{
    self, Extractor, Feature, FeatureOptions, FramePlanes, ReferenceTerms, Setup,
};
use crate::scale::GpuScale;

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

/// GPU milliseconds of the last finished frame's passes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelTimes {
    /// `(pass, ms)`: the upload, then the kernels, named after the feature
    /// when one ran alone, else `kernels` (they run interleaved, so their
    /// times do not separate; `ScorePipeline::time_dispatches` times each
    /// dispatch alone).
    pub passes: Vec<(&'static str, f64)>,
}

/// A built feature instance and where its words and values go.
struct Instance {
    name: &'static str,
    extractor: Box<dyn Extractor>,
    /// First result word and word count in a slot's result buffer.
    offset: u32,
    words: u32,
    /// The lanes its values go to (one, or every lane of a ladder for an
    /// instance that reads only the reference), each with the frame table
    /// column of each value.
    users: Vec<(usize, Vec<usize>)>,
}

/// Reference-only terms that several lanes' instances read, and those
/// lanes: they run on a frame when one of them has it.
struct Terms {
    part: Arc<dyn ReferenceTerms>,
    lanes: Vec<usize>,
}

/// One rendition of the pipeline: the names of its values and its frames
/// still waiting for values.
struct Lane {
    /// The instances whose values fill its rows, in report order.
    uses: Vec<usize>,
    names: Arc<[String]>,
    pending: BTreeMap<u64, PendingRow>,
    /// The frames pushed with the lane present: `first..end`.
    frames: Option<(u64, u64)>,
    /// Why the lane stopped (an instance refused a frame); it records and
    /// delivers nothing more.
    failure: Option<MetricsError>,
    failed: bool,
}

struct InFlight {
    ticket: Ticket,
    slot: usize,
    index: u64,
    /// Per instance, whether its kernels ran on this frame.
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
    /// The clip's geometry: the reference's, and every lane's as scored.
    geometry: Geometry,
    /// Declared before the resources its submissions use (see above).
    submitter: Submitter,
    uploader: FrameUploader,
    instances: Vec<Instance>,
    terms: Vec<Terms>,
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
    /// Per lane, the GPU scale of a distorted input read at another size
    /// ([`ScorePipeline::scale_lane`]).
    scales: Vec<Option<GpuScale>>,
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

/// What one instance is built from: its request, the lanes that use it and
/// the reference-only terms it reads (an index into the terms' plans).
struct Plan<'a> {
    request: &'a Request,
    subsample: u64,
    lanes: Vec<usize>,
    terms: Option<usize>,
}

/// Whether two requests (with their lanes' subsampling) give the same
/// values from the same frames.
fn alike(a: &Request, a_subsample: u64, b: &Request, b_subsample: u64) -> bool {
    a.feature.name() == b.feature.name()
        && a.options.same_as(&b.options)
        && a_subsample == b_subsample
}

/// What a [`ScorePipeline`] of several lanes shares between them
/// ([`ScorePipeline::with_lanes_sharing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharing {
    /// Instances of features that read only the reference (motion): only
    /// right when every lane is pushed the same frames.
    pub reference_only: bool,
    /// The reference-only terms of features that read both frames
    /// ([`Feature::reference_terms`]).
    pub terms: bool,
}

/// The instances `sets` need (lane `k` asks for `sets[k]`), per lane the
/// plans it uses in report order, and the reference-only terms to build:
/// per terms, the plan whose request builds them. A request that reads
/// only the reference and is asked the same way by several lanes is planned
/// once for all of them (with `sharing.reference_only`); the instances of a
/// request that reads both frames and is asked alike by several lanes share
/// its terms, if the feature has any (with `sharing.terms`).
fn plan<'a>(
    sets: &[&'a FeatureSet],
    sharing: Sharing,
) -> (Vec<Plan<'a>>, Vec<Vec<usize>>, Vec<usize>) {
    let mut plans: Vec<Plan<'a>> = Vec::new();
    let mut uses = Vec::new();
    for (k, set) in sets.iter().enumerate() {
        let subsample = set.subsample.max(1);
        let mut lane = Vec::new();
        for request in set.ordered() {
            let shared = plans.iter().position(|p| {
                sharing.reference_only
                    && !request.feature.reads_distorted()
                    && alike(p.request, p.subsample, request, subsample)
            });
            let at = shared.unwrap_or_else(|| {
                plans.push(Plan { request, subsample, lanes: Vec::new(), terms: None });
                plans.len() - 1
            });
            plans[at].lanes.push(k);
            lane.push(at);
        }
        uses.push(lane);
    }
    let mut terms: Vec<usize> = Vec::new();
    for i in 0..plans.len() {
        let p = &plans[i];
        if !sharing.terms || !p.request.feature.reads_distorted() {
            continue;
        }
        let first = (0..i).find(|&j| {
            let q = &plans[j];
            q.request.feature.reads_distorted()
                && alike(q.request, q.subsample, p.request, p.subsample)
        });
        if let Some(first) = first {
            let t = plans[first].terms.unwrap_or_else(|| {
                terms.push(first);
                terms.len() - 1
            });
            plans[first].terms = Some(t);
            plans[i].terms = Some(t);
        }
    }
    (plans, uses, terms)
}

/// Runs `build` on every item, each on a thread of its own: building is
/// mostly the driver compiling pipelines (or finding them in the cache),
/// which runs in parallel. The first error in item order wins.
fn build_in_parallel<T: Sync, U: Send>(
    items: &[T],
    build: impl Fn(&T) -> Result<U, MetricsError> + Sync,
) -> Result<Vec<U>, MetricsError> {
    let build = &build;
    std::thread::scope(|s| {
        let threads: Vec<_> = items.iter().map(|item| s.spawn(move || build(item))).collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// Builds the planned terms (those whose feature has none are `None`), then
/// every planned instance, given its terms.
#[allow(clippy::type_complexity)]
fn build_instances(
    ctx: &Arc<GpuContext>,
    geometry: Geometry,
    plans: &[Plan<'_>],
    terms: &[usize],
) -> Result<(Vec<Box<dyn Extractor>>, Vec<Option<Arc<dyn ReferenceTerms>>>), MetricsError> {
    let setup = |p: &Plan<'_>, terms| Setup { ctx, geometry, subsample: p.subsample, terms };
    let built = build_in_parallel(terms, |&i| {
        let p = &plans[i];
        p.request.feature.reference_terms(&setup(p, None), &p.request.options)
    })?;
    let extractors = build_in_parallel(plans, |p| {
        let terms = p.terms.and_then(|t| built[t].clone());
        p.request.feature.build(&setup(p, terms), &p.request.options)
    })?;
    Ok((extractors, built))
}

impl Lane {
    /// A lane using `uses` of `instances`; gives each used instance the
    /// lane's columns for its values: every instance's ordinary values,
    /// then the late ones.
    fn new(k: usize, uses: Vec<usize>, instances: &mut [Instance]) -> Lane {
        let mut names: Vec<String> = Vec::new();
        let mut maps: Vec<Vec<usize>> = vec![Vec::new(); uses.len()];
        for late in [false, true] {
            for (u, &i) in uses.iter().enumerate() {
                let columns = instances[i].extractor.columns();
                if maps[u].is_empty() {
                    maps[u] = vec![usize::MAX; columns.len()];
                }
                for (j, column) in columns.into_iter().enumerate() {
                    if column.late == late {
                        maps[u][j] = names.len();
                        names.push(column.name);
                    }
                }
            }
        }
        for (&i, map) in uses.iter().zip(maps) {
            instances[i].users.push((k, map));
        }
        Lane {
            uses,
            names: names.into(),
            pending: BTreeMap::new(),
            frames: None,
            failure: None,
            failed: false,
        }
    }

    /// Whether frame `index` was pushed with the lane present.
    fn has_frame(&self, index: u64) -> bool {
        self.frames.is_some_and(|(first, end)| (first..end).contains(&index))
    }

    /// Stores `values` (an instance's, for the columns `columns`) in their
    /// frames' rows.
    fn fill(&mut self, columns: &[usize], values: &[features::FrameValues]) {
        let width = self.names.len();
        for (index, frame_values) in values {
            if !self.has_frame(*index) {
                continue;
            }
            let row = self
                .pending
                .entry(*index)
                .or_insert_with(|| PendingRow { values: vec![f64::NAN; width], filled: 0 });
            for (j, v) in frame_values.iter().enumerate() {
                row.values[columns[j]] = *v;
            }
            row.filled += columns.len();
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

/// Hands `values` of the instance `inst` to each lane that uses it.
fn fill_users(lanes: &mut [Lane], inst: &Instance, values: &[features::FrameValues]) {
    for (k, columns) in &inst.users {
        if !lanes[*k].failed {
            lanes[*k].fill(columns, values);
        }
    }
}

/// An instance to record on a frame, with the distorted frame of a lane
/// and the ring slot of the earlier frame it compares with, if any.
type Run<'a> = (&'a Instance, usize, Option<usize>);

/// Records a frame's kernels on the group `up`, interleaved step by step
/// ([`Recorder::interleave`]): each of `runs` (skipped if its lane has no
/// distorted frame in `up`), leaving the instances' words in `results`,
/// and the reference-only `terms`, whose steps line up ahead of their
/// readers' (see [`ReferenceTerms::record`]); the caller records a barrier
/// before (the upload's), after the previous frame's kernels. Within a step
/// the terms go last: nothing orders commands between two barriers on a
/// GPU, but a driver that runs them in order (lavapipe) then gives a reader
/// recorded a step too early the previous frame's terms, so the tests see
/// the mistake.
fn record_frame(
    rec: &mut Recorder<'_>,
    uploader: &FrameUploader,
    up: &DeviceFrameGroup,
    terms: &[&Terms],
    runs: &[Run<'_>],
    results: &Buffer,
) -> vqscope_gpu::Result<()> {
    let buffer = uploader.slot_buffer(up.slot);
    let r = &up.reference;
    let reference: Vec<DevicePlane<'_>> =
        (0..r.plane_count).map(|i| uploaded_plane(buffer, r, i)).collect();
    let mut parts = Vec::with_capacity(terms.len() + runs.len());
    for &(inst, k, earlier) in runs {
        if let Some(d) = up.distorted[k].as_ref() {
            let planes = frame_planes(uploader, up.slot, r, d, earlier);
            parts.push(
                rec.deferred(|rec| {
                    inst.extractor.record(rec, &planes, results, inst.offset, None)
                })?,
            );
        }
    }
    for t in terms {
        parts.push(rec.deferred(|rec| t.part.record(rec, &reference))?);
    }
    rec.interleave(parts);
    Ok(())
}

impl ScorePipeline {
    /// Builds every instance of `set` for clips of `geometry`; size and
    /// option errors come from the features (the same as the CPU twins').
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        set: &FeatureSet,
    ) -> Result<Self, MetricsError> {
        Self::with_lanes(ctx, geometry, &[set], false)
    }

    /// A pipeline of one lane per set: renditions scored against one
    /// reference ([`ScorePipeline::push_group`]), lane `k` with the
    /// instances of `sets[k]`. With `same_frames` (every lane will be
    /// pushed exactly the same frames: the renditions have the same
    /// length), the instances that read only the reference run once for
    /// all the lanes that ask for them alike.
    pub fn with_lanes(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        sets: &[&FeatureSet],
        same_frames: bool,
    ) -> Result<Self, MetricsError> {
        let sharing = Sharing { reference_only: same_frames, terms: true };
        Self::with_lanes_sharing(ctx, geometry, sets, sharing)
    }

    /// [`ScorePipeline::with_lanes`] sharing only what `sharing` says; with
    /// nothing shared, every lane's instances do all their own work, as
    /// pipelines of their own would, in the same submissions. What sharing
    /// saves is measured this way (`vqscope bench metrics --lanes`).
    pub fn with_lanes_sharing(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        sets: &[&FeatureSet],
        sharing: Sharing,
    ) -> Result<Self, MetricsError> {
        let (plans, uses, planned_terms) = plan(sets, sharing);
        let (extractors, built_terms) = build_instances(ctx, geometry, &plans, &planned_terms)?;
        let terms = built_terms
            .into_iter()
            .enumerate()
            .filter_map(|(t, part)| {
                let lanes = plans.iter().filter(|p| p.terms == Some(t));
                Some(Terms { part: part?, lanes: lanes.flat_map(|p| p.lanes.clone()).collect() })
            })
            .collect();
        let mut offset = 0u32;
        let mut instances: Vec<Instance> = extractors
            .into_iter()
            .zip(&plans)
            .map(|(extractor, plan)| {
                let words = extractor.result_words();
                let name = plan.request.feature.name();
                let inst = Instance { name, extractor, offset, words, users: Vec::new() };
                offset += words;
                inst
            })
            .collect();
        let lanes: Vec<Lane> = uses
            .into_iter()
            .enumerate()
            .map(|(k, uses)| Lane::new(k, uses, &mut instances))
            .collect();
        let words = u64::from(offset.max(1));
        let results = (0..SLOTS)
            .map(|_| Buffer::readback(ctx, "frame results", words * 8))
            .collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let timestamps =
            (0..SLOTS).map(|_| Timestamps::new(ctx, 3)).collect::<vqscope_gpu::Result<Vec<_>>>()?;
        let lanes_count = lanes.len();
        Ok(Self {
            ctx: Arc::clone(ctx),
            geometry,
            submitter: Submitter::new(ctx, SLOTS)?,
            uploader: FrameUploader::with_lanes(ctx, geometry, SLOTS, lanes.len())?,
            instances,
            terms,
            lanes,
            result_words: offset,
            results,
            timestamps,
            in_flight: VecDeque::new(),
            recent_slots: VecDeque::new(),
            last_times: KernelTimes::default(),
            resident_stamps: Timestamps::new(ctx, 2)?,
            scales: (0..lanes_count).map(|_| None).collect(),
        })
    }

    /// Makes lane `k` take distorted frames of `input` (the distorted
    /// input's own size) and scale each on the GPU to the pipeline's
    /// geometry before its kernels read it, bicubic with swscale's
    /// arithmetic ([`GpuScale`]). Call before pushing frames.
    pub fn scale_lane(&mut self, k: usize, input: Geometry) -> Result<(), MetricsError> {
        let scale = FrameScale::new(input, self.geometry)
            .map_err(|e| MetricsError::Usage(e.to_string()))?;
        self.scales[k] = Some(GpuScale::new(&self.ctx, scale)?);
        self.uploader.set_lane_input(&self.ctx, k, input)?;
        Ok(())
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
        self.lanes[k].uses.iter().flat_map(|&i| self.instances[i].extractor.aggregates()).collect()
    }

    /// How many instances run (an instance several lanes share counts once).
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    /// How many reference-only terms run, each shared by several lanes'
    /// instances.
    pub fn terms_count(&self) -> usize {
        self.terms.len()
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
        let earlier: Vec<Option<usize>> = self
            .instances
            .iter()
            .map(|inst| self.earlier_slot(inst, index))
            .collect::<Result<_, _>>()?;
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            if !lane.failed && distorted.get(k).copied().flatten().is_some() {
                lane.frames = Some(lane.frames.map_or((index, index + 1), |(f, _)| (f, index + 1)));
            }
        }
        // Each instance runs if a lane that uses it has this frame, with
        // that lane's distorted frame.
        let lane_of: Vec<Option<usize>> = self
            .instances
            .iter()
            .map(|inst| {
                inst.users.iter().map(|(k, _)| *k).find(|&k| self.lanes[k].has_frame(index))
            })
            .collect();
        // Terms run if a lane whose instances read them has this frame.
        let running_terms: Vec<&Terms> = self
            .terms
            .iter()
            .filter(|t| t.lanes.iter().any(|&k| self.lanes[k].has_frame(index)))
            .collect();
        let Self { submitter, uploader, instances, results, timestamps, scales, .. } = self;
        let mut slot = 0;
        let ticket = submitter.submit(|rec| {
            let stamps = &timestamps[uploader.next_slot()];
            rec.reset_timestamps(stamps);
            rec.timestamp(stamps, 0);
            let up = uploader.upload_lanes(rec, index, reference, distorted)?;
            slot = up.slot;
            // The upload phase's time includes the scale of inputs read at
            // another size.
            let buffer = uploader.slot_buffer(up.slot);
            for ((scale, input), target) in scales.iter().zip(&up.inputs).zip(&up.distorted) {
                if let (Some(scale), Some(input), Some(target)) = (scale, input, target) {
                    let planes = |f: &DeviceFrame| -> Vec<DevicePlane<'_>> {
                        (0..f.plane_count).map(|i| uploaded_plane(buffer, f, i)).collect()
                    };
                    scale.record(rec, &planes(input), &planes(target))?;
                }
            }
            rec.timestamp(stamps, 1);
            let runs: Vec<Run<'_>> = instances
                .iter()
                .enumerate()
                .filter_map(|(i, inst)| Some((inst, lane_of[i]?, earlier[i])))
                .collect();
            record_frame(rec, uploader, &up, &running_terms, &runs, &results[up.slot])?;
            rec.timestamp(stamps, 2);
            Ok(())
        })?;
        self.recent_slots.push_back((index, slot));
        while self.recent_slots.len() > SLOTS {
            self.recent_slots.pop_front();
        }
        let recorded = lane_of.iter().map(Option::is_some).collect();
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

    /// Lane 0's instances, for the timing helpers.
    fn lane_zero_instances(&self) -> Vec<usize> {
        self.lanes[0].uses.clone()
    }

    /// GPU milliseconds per frame with the pair already on the GPU: waits
    /// for everything in flight, uploads `pair` once, then records every
    /// instance (of lane 0) `repeats` times back to back in one submission
    /// between two timestamps, so the GPU never idles on the host. Each
    /// temporal instance runs against the same frame (the same work as
    /// against an earlier one). Returns no scores.
    pub fn time_resident(&mut self, pair: &FramePair, repeats: u32) -> Result<f64, MetricsError> {
        self.time_resident_frames(&pair.reference, &[Some(&pair.distorted)], repeats)
    }

    /// [`ScorePipeline::time_resident`] for a ladder's frames: every lane
    /// that has a distorted frame in `group`, with the terms they share, as
    /// scoring records them.
    pub fn time_resident_group(
        &mut self,
        group: &FrameGroup,
        repeats: u32,
    ) -> Result<f64, MetricsError> {
        let distorted: Vec<Option<&Frame>> = group.distorted.iter().map(Option::as_ref).collect();
        self.time_resident_frames(&group.reference, &distorted, repeats)
    }

    fn time_resident_frames(
        &mut self,
        reference: &Frame,
        distorted: &[Option<&Frame>],
        repeats: u32,
    ) -> Result<f64, MetricsError> {
        self.submitter.wait_all()?;
        let given = |k: usize| distorted.get(k).is_some_and(Option::is_some);
        let Self { submitter, uploader, instances, terms, results, resident_stamps, .. } = self;
        let terms: Vec<&Terms> =
            terms.iter().filter(|t| t.lanes.iter().any(|&k| given(k))).collect();
        submitter.run(|rec| {
            let up = uploader.upload_lanes(rec, 0, reference, distorted)?;
            let runs: Vec<Run<'_>> = instances
                .iter()
                .filter_map(|inst| {
                    let k = inst.users.iter().map(|(k, _)| *k).find(|&k| given(k))?;
                    Some((inst, k, Some(up.slot)))
                })
                .collect();
            rec.reset_timestamps(resident_stamps);
            rec.timestamp(resident_stamps, 0);
            for _ in 0..repeats.max(1) {
                // As after a frame's upload: the terms' first step may
                // overwrite what the last frame's instances read.
                if !terms.is_empty() {
                    rec.barrier();
                }
                record_frame(rec, uploader, &up, &terms, &runs, &results[up.slot])?;
            }
            rec.timestamp(resident_stamps, 1);
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
        let used = self.lane_zero_instances();
        let Self { ctx, submitter, uploader, instances, results, .. } = self;
        let mut uploaded = None;
        submitter.run(|rec| {
            uploaded = Some(uploader.upload(rec, pair)?);
            Ok(())
        })?;
        let up = uploaded.expect("the upload ran");
        let planes = frame_planes(uploader, up.slot, &up.reference, &up.distorted, Some(up.slot));
        let out = &results[up.slot];
        let mut timed = Vec::new();
        for &i in &used {
            let inst = &instances[i];
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
        // A shared instance is right only for lanes that saw the same frames.
        for inst in &self.instances {
            let live: Vec<usize> =
                inst.users.iter().map(|(k, _)| *k).filter(|&k| !self.lanes[k].failed).collect();
            let frames = |k: usize| self.lanes[k].frames;
            if live.iter().any(|&k| frames(k) != frames(live[0])) {
                for k in live {
                    self.lanes[k].fail(MetricsError::LanesDiverged);
                    done[k].clear();
                }
            }
        }
        for inst in &mut self.instances {
            let flushed = inst.extractor.flush();
            fill_users(&mut self.lanes, inst, &flushed);
        }
        for (lane, done) in self.lanes.iter_mut().zip(&mut done) {
            if lane.failed {
                continue;
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
    /// instances that ran on it, their values to the lanes that use them.
    fn complete_oldest(&mut self, done: &mut [Vec<FrameScores>]) -> Result<(), MetricsError> {
        let Some(frame) = self.in_flight.pop_front() else { return Ok(()) };
        self.submitter.wait(frame.ticket)?;
        let bytes = self.results[frame.slot].mapped()?;
        let words: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let ms = self.timestamps[frame.slot].read_intervals_ms()?;
        let mut ran = self.instances.iter().zip(&frame.recorded).filter(|(_, r)| **r);
        let kernels = match (ran.next(), ran.next()) {
            (Some((only, _)), None) => only.name,
            _ => "kernels",
        };
        self.last_times = KernelTimes { passes: ["upload", kernels].into_iter().zip(ms).collect() };
        for (inst, _) in self.instances.iter_mut().zip(&frame.recorded).filter(|(_, r)| **r) {
            let range = inst.offset as usize..(inst.offset + inst.words) as usize;
            let values = inst.extractor.frame(frame.index, &words[range]);
            match inst.extractor.take_failure() {
                Some(failure) => {
                    // The first lane gets the error itself, any other its text.
                    let message = failure.to_string();
                    let mut failure = Some(failure);
                    for (k, _) in &inst.users {
                        let lane = &mut self.lanes[*k];
                        if !lane.failed {
                            let copy = || MetricsError::Usage(message.clone());
                            lane.fail(failure.take().unwrap_or_else(copy));
                            done[*k].clear();
                        }
                    }
                }
                None => fill_users(&mut self.lanes, inst, &values),
            }
        }
        for (lane, done) in self.lanes.iter_mut().zip(done.iter_mut()) {
            if !lane.failed {
                lane.release(done);
            }
        }
        Ok(())
    }
}
