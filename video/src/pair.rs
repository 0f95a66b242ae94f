//! A reference and a distorted input scored together, frame by frame, with
//! libvmaf's CLI rules: both must agree in size, chroma format and bit
//! depth; `frame_skip_ref` / `frame_skip_dist` drop leading frames of each;
//! `frame_cnt` caps how many pairs are scored; and when one input is longer
//! the extra frames are ignored with a warning, not an error.
//!
//! Warnings come at two times: when the pair is made, if both frame counts
//! are known and differ; and when reading finds the end, if one input ended
//! before the other where that was not known beforehand (a pipe, stdin, an
//! mp4 whose container announced more frames than ffmpeg could decode), or
//! an input delivered fewer frames than its container announced. Callers
//! print [`Pair::warnings`] after making the pair and the rest at the end
//! ([`crate::Decoder::end_warnings`] when reading through a decoder).
//!
//! A [`Group`] is one reference scored against several distorted inputs at
//! once (an encoding ladder): each distorted input is a lane with exactly
//! the rules, skips and warnings of a pair of its own, while the reference
//! is read once per index. A [`Pair`] is a group of one lane.

use crate::error::{Result, VideoError};
use crate::frame::{Frame, Geometry};
use crate::input::VideoSource;

/// libvmaf's `--frame_skip_ref`, `--frame_skip_dist` and `--frame_cnt`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairOptions {
    pub frame_skip_ref: u64,
    pub frame_skip_dist: u64,
    /// Score at most this many pairs (`None`: all).
    pub frame_cnt: Option<u64>,
}

/// The reference and distorted frame at one pair index.
#[derive(Debug, Clone)]
pub struct FramePair {
    /// Index of the pair, from 0 (after the skips).
    pub index: u64,
    pub reference: Frame,
    pub distorted: Frame,
}

impl FramePair {
    /// Hands both frames' memory back for the readers to fill again: call
    /// it when done with a pair (after uploading it) to spare the
    /// allocator 25 MB of fresh pages per 4K pair.
    pub fn recycle(self) {
        self.reference.recycle();
        self.distorted.recycle();
    }
}

/// The reference frame at one index and each lane's distorted frame.
#[derive(Debug)]
pub struct FrameGroup {
    /// Index of the group, from 0 (after the skips).
    pub index: u64,
    pub reference: Frame,
    /// Per lane, its distorted frame; `None` once the lane has ended.
    pub distorted: Vec<Option<Frame>>,
}

impl FrameGroup {
    /// Hands every frame's memory back for the readers to fill again.
    pub fn recycle(self) {
        self.reference.recycle();
        self.distorted.into_iter().flatten().for_each(Frame::recycle);
    }
}

/// One distorted input of a [`Group`] and where it stands.
struct Lane {
    distorted: Box<dyn VideoSource>,
    warnings: Vec<String>,
    /// Its input (or the reference) ended, or reading it failed.
    ended: bool,
    /// The caller closed it ([`Group::close_lane`]): no seek opens it again.
    closed: bool,
    /// The read error that ended it, until taken.
    failure: Option<VideoError>,
    /// Pairs to score as known when the group was made (both counts
    /// known), which the warning made then already told the user.
    planned: Option<u64>,
}

/// A reference and the distorted inputs checked to be comparable with it.
pub struct Group {
    reference: Box<dyn VideoSource>,
    lanes: Vec<Lane>,
    options: PairOptions,
    next: u64,
    /// Every lane has ended.
    ended: bool,
    /// The group read by [`Group::has_frames`], handed out next.
    peeked: Option<FrameGroup>,
}

/// Two inputs checked to be comparable: a [`Group`] of one lane.
pub struct Pair {
    group: Group,
}

fn describe(g: &Geometry) -> String {
    format!("{}x{} {}", g.width, g.height, g.format.ffmpeg_name())
}

/// Fails with one line naming every property in which the inputs differ.
pub fn check_compatible(reference: &dyn VideoSource, distorted: &dyn VideoSource) -> Result<()> {
    let (r, d) = (reference.info(), distorted.info());
    let (rg, dg) = (&r.geometry, &d.geometry);
    let mut differ = Vec::new();
    if (rg.width, rg.height) != (dg.width, dg.height) {
        differ.push("size");
    }
    if rg.format.chroma != dg.format.chroma {
        differ.push("chroma format");
    }
    if rg.format.bit_depth != dg.format.bit_depth {
        differ.push("bit depth");
    }
    if differ.is_empty() {
        return Ok(());
    }
    let list = match differ.as_slice() {
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => unreachable!(),
    };
    Err(VideoError::Mismatch(format!(
        "reference {} ({}) and distorted {} ({}) differ in {list}",
        crate::error::Shown(r.path.clone()),
        describe(rg),
        crate::error::Shown(d.path.clone()),
        describe(dg),
    )))
}

impl Lane {
    /// Frames the lane's distorted input has past its skip, when known.
    fn available(&self, options: &PairOptions) -> Option<u64> {
        let n = self.distorted.info().frame_count?;
        Some(n.saturating_sub(options.frame_skip_dist))
    }
}

impl Group {
    /// Checks every distorted input against the reference and plans the
    /// frames to score. Warnings known now (unequal frame counts) are in
    /// [`Group::warnings`].
    pub fn new(
        reference: Box<dyn VideoSource>,
        distorted: Vec<Box<dyn VideoSource>>,
        options: PairOptions,
    ) -> Result<Self> {
        for d in &distorted {
            check_compatible(reference.as_ref(), d.as_ref())?;
        }
        let lanes = distorted
            .into_iter()
            .map(|distorted| Lane {
                distorted,
                warnings: Vec::new(),
                ended: false,
                closed: false,
                failure: None,
                planned: None,
            })
            .collect();
        let mut group = Group { reference, lanes, options, next: 0, ended: false, peeked: None };
        for k in 0..group.lanes.len() {
            group.lanes[k].planned = group.frame_count(k);
            let (r, d) = (group.available_ref(), group.lanes[k].available(&options));
            if let (Some(r), Some(d)) = (r, d) {
                let capped = options.frame_cnt.is_some_and(|c| c <= r.min(d));
                if r != d && !capped {
                    group.warn_unequal(k, r, d);
                }
            }
        }
        Ok(group)
    }

    fn available_ref(&self) -> Option<u64> {
        let n = self.reference.info().frame_count?;
        Some(n.saturating_sub(self.options.frame_skip_ref))
    }

    fn warn_unequal(&mut self, k: usize, r: u64, d: u64) {
        let (rp, dp) = (
            crate::error::Shown(self.reference.info().path.clone()),
            crate::error::Shown(self.lanes[k].distorted.info().path.clone()),
        );
        self.lanes[k].warnings.push(format!(
            "reference {rp} has {r} frames to score and distorted {dp} has {d}: scoring the first {}",
            r.min(d)
        ));
    }

    /// Number of lanes (distorted inputs).
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// Number of pairs lane `k` will score, when both counts are known.
    pub fn frame_count(&self, k: usize) -> Option<u64> {
        let n = self.available_ref()?.min(self.lanes[k].available(&self.options)?);
        Some(self.options.frame_cnt.map_or(n, |c| c.min(n)))
    }

    /// Whether every lane announces the same number of pairs to score (all
    /// lengths known): then they will see the same frames, unless an input
    /// turns out shorter than its container said.
    pub fn same_announced_length(&self) -> bool {
        let first = self.frame_count(0);
        first.is_some() && (1..self.lanes.len()).all(|k| self.frame_count(k) == first)
    }

    /// Lane `k`'s messages for the user (unequal lengths, inputs that
    /// ended early), as a pair of its own would have them; complete once
    /// the lane has ended.
    pub fn warnings(&self, k: usize) -> &[String] {
        &self.lanes[k].warnings
    }

    /// The read error that ended lane `k`, once: the other lanes go on.
    pub fn take_failure(&mut self, k: usize) -> Option<VideoError> {
        self.lanes[k].failure.take()
    }

    /// Whether some lane has at least one pair to score, known cheaply
    /// (see [`Pair::has_frames`]); lanes whose counts say they have none
    /// are ended at once.
    pub fn has_frames(&mut self) -> Result<bool> {
        for k in 0..self.lanes.len() {
            if self.frame_count(k) == Some(0) {
                self.lanes[k].ended = true;
            }
        }
        let position = self.next;
        match self.next_group()? {
            Some(g) => {
                self.peeked = Some(g);
                self.next = position;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub fn reference(&self) -> &dyn VideoSource {
        self.reference.as_ref()
    }

    pub fn distorted(&self, k: usize) -> &dyn VideoSource {
        self.lanes[k].distorted.as_ref()
    }

    pub fn options(&self) -> PairOptions {
        self.options
    }

    /// Opens every lane again and continues from the current position.
    fn reset(&mut self) {
        self.ended = false;
        for lane in &mut self.lanes {
            lane.ended = lane.closed;
            lane.failure = None;
        }
    }

    /// Ends lane `k` for good (its rendition failed elsewhere): its input
    /// is read no more and it is `None` in every later group.
    pub fn close_lane(&mut self, k: usize) {
        self.lanes[k].ended = true;
        self.lanes[k].closed = true;
    }

    /// Keeps only the lanes listed (in increasing order), dropping the
    /// others' inputs; lane numbers then count the kept ones.
    pub fn keep_lanes(&mut self, keep: &[usize]) {
        self.lanes = kept(std::mem::take(&mut self.lanes), keep);
        if let Some(peeked) = &mut self.peeked {
            peeked.distorted = kept(std::mem::take(&mut peeked.distorted), keep);
        }
    }

    /// Group `index` by random access (the player's seek); any input's
    /// error is the group's.
    pub fn read(&mut self, index: u64) -> Result<FrameGroup> {
        if let Some(g) = self.peeked.take().filter(|g| g.index == index) {
            self.next = index + 1;
            self.reset();
            return Ok(g);
        }
        let reference = self.reference.read_frame(index + self.options.frame_skip_ref)?;
        let skip = self.options.frame_skip_dist;
        let distorted = self
            .lanes
            .iter_mut()
            .map(|lane| lane.distorted.read_frame(index + skip).map(Some))
            .collect::<Result<Vec<_>>>()?;
        self.next = index + 1;
        self.reset();
        Ok(FrameGroup { index, reference, distorted })
    }

    /// A second reader of the same inputs at the same position, for
    /// reading on another thread; `None` when an input has a single
    /// sequential reader (a pipe, ffmpeg).
    pub fn reopen(&self) -> Option<Result<Group>> {
        let reference = self.reference.reopen()?;
        let mut distorted = Vec::new();
        for lane in &self.lanes {
            distorted.push(lane.distorted.reopen()?);
        }
        Some((|| {
            let lanes = self
                .lanes
                .iter()
                .zip(distorted)
                .map(|(lane, d)| {
                    Ok(Lane {
                        distorted: d?,
                        warnings: lane.warnings.clone(),
                        ended: lane.ended,
                        closed: lane.closed,
                        failure: None,
                        planned: lane.planned,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Group {
                reference: reference?,
                lanes,
                options: self.options,
                next: self.next,
                ended: self.ended,
                peeked: None,
            })
        })())
    }

    /// The index of the group [`Group::next_group`] returns next.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Moves the sequential position so that [`Group::next_group`]
    /// returns group `index` next, every lane open again.
    pub fn seek(&mut self, index: u64) {
        self.next = index;
        self.reset();
    }

    /// The next group, `None` when the reference, every lane or
    /// `frame_cnt` has ended. A lane whose input ends (before the
    /// reference, or before the length its container announced) gets a
    /// warning and is `None` from then on; a lane whose input fails to
    /// read is ended too, its error kept for [`Group::take_failure`].
    /// Only the reference's errors are the group's.
    pub fn next_group(&mut self) -> Result<Option<FrameGroup>> {
        if self.ended || self.options.frame_cnt.is_some_and(|c| self.next >= c) {
            return Ok(None);
        }
        let index = self.next;
        if let Some(g) = self.peeked.take().filter(|g| g.index == index) {
            self.next += 1;
            return Ok(Some(g));
        }
        if self.lanes.iter().all(|l| l.ended) {
            self.ended = true;
            return Ok(None);
        }
        let reference = read_or_end(self.reference.as_mut(), index + self.options.frame_skip_ref)?;
        let mut distorted = Vec::with_capacity(self.lanes.len());
        for lane in &mut self.lanes {
            if lane.ended {
                distorted.push(None);
                continue;
            }
            match read_or_end(lane.distorted.as_mut(), index + self.options.frame_skip_dist) {
                Ok(d) => distorted.push(d),
                Err(e) => {
                    lane.ended = true;
                    lane.failure = Some(e);
                    distorted.push(None);
                }
            }
        }
        let ref_left = reference.is_some();
        for (k, frame) in distorted.iter().enumerate() {
            if self.lanes[k].ended {
                continue;
            }
            let dist_left = frame.is_some();
            if !ref_left || !dist_left {
                self.lanes[k].ended = true;
                self.warn_at_end(k, index, ref_left, dist_left);
            }
        }
        match reference {
            Some(reference) if self.lanes.iter().any(|l| !l.ended) => {
                self.next += 1;
                Ok(Some(FrameGroup { index, reference, distorted }))
            }
            reference => {
                self.ended = true;
                let frames = distorted.into_iter().flatten().chain(reference);
                frames.for_each(Frame::recycle);
                Ok(None)
            }
        }
    }

    /// The warnings due to lane `k` when reading group `index` found the
    /// end of one or both of its inputs (`*_left`: that input still had a
    /// frame).
    fn warn_at_end(&mut self, k: usize, index: u64, ref_left: bool, dist_left: bool) {
        let lane = &self.lanes[k];
        let mut found = Vec::new();
        // Unequal lengths, unless the warning made up front said so.
        if ref_left != dist_left && lane.planned != Some(index) {
            let (long, short, long_role, short_role) = if ref_left {
                (&self.reference, &lane.distorted, "reference", "distorted")
            } else {
                (&lane.distorted, &self.reference, "distorted", "reference")
            };
            found.push(format!(
                "{short_role} {} ended before {long_role} {}: scored {}",
                crate::error::Shown(short.info().path.clone()),
                crate::error::Shown(long.info().path.clone()),
                frames(index),
            ));
        }
        for (left, source) in [(ref_left, &self.reference), (dist_left, &lane.distorted)] {
            if !left && let Some(w) = source.end_warning() {
                found.push(w);
            }
        }
        let warnings = &mut self.lanes[k].warnings;
        for w in found {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
}

impl Pair {
    /// Checks the inputs and plans the frames to score. Warnings known now
    /// (unequal frame counts) are in [`Pair::warnings`].
    pub fn new(
        reference: Box<dyn VideoSource>,
        distorted: Box<dyn VideoSource>,
        options: PairOptions,
    ) -> Result<Self> {
        Ok(Pair { group: Group::new(reference, vec![distorted], options)? })
    }

    /// Number of pairs that will be scored, when both counts are known.
    pub fn frame_count(&self) -> Option<u64> {
        self.group.frame_count(0)
    }

    /// Messages for the user (unequal lengths, inputs that ended early);
    /// the caller prints them. Complete once [`Pair::next_pair`] has
    /// returned `None`.
    pub fn warnings(&self) -> &[String] {
        self.group.warnings(0)
    }

    /// Whether there is at least one pair to score, known cheaply: `false`
    /// at once when the frame counts say so (a y4m file of 0 frames,
    /// skips past the end, `frame_cnt` 0); otherwise the first pair is read
    /// and kept for [`Pair::next_pair`], so nothing is read twice. Call it
    /// before setting up the GPU, so that an empty input says "no frames"
    /// rather than failing on a huge frame size. When it returns `false`,
    /// [`Pair::warnings`] says which input was empty.
    pub fn has_frames(&mut self) -> Result<bool> {
        let has = self.group.has_frames();
        self.failed()?;
        has
    }

    pub fn reference(&self) -> &dyn VideoSource {
        self.group.reference()
    }

    pub fn distorted(&self) -> &dyn VideoSource {
        self.group.distorted(0)
    }

    pub fn options(&self) -> PairOptions {
        self.group.options()
    }

    /// The distorted input's read error, if reading it failed.
    fn failed(&mut self) -> Result<()> {
        self.group.take_failure(0).map_or(Ok(()), Err)
    }

    /// Pair `index` by random access (the player's seek).
    pub fn read(&mut self, index: u64) -> Result<FramePair> {
        let g = self.group.read(index)?;
        Ok(into_pair(g))
    }

    /// A second reader of the same two inputs at the same position, for
    /// reading pairs on another thread; `None` when either input has a
    /// single sequential reader (a pipe, ffmpeg).
    pub fn reopen(&self) -> Option<Result<Pair>> {
        Some(self.group.reopen()?.map(|group| Pair { group }))
    }

    /// The index of the pair [`Pair::next_pair`] returns next.
    pub fn position(&self) -> u64 {
        self.group.position()
    }

    /// Moves the sequential position so that [`Pair::next_pair`] returns
    /// pair `index` next.
    pub fn seek(&mut self, index: u64) {
        self.group.seek(index);
    }

    /// The next pair, `None` when either input (or `frame_cnt`) ends. If one
    /// input ends before the other, or before the length its container
    /// announced, a warning is recorded (see the module documentation).
    pub fn next_pair(&mut self) -> Result<Option<FramePair>> {
        let g = self.group.next_group()?;
        self.failed()?;
        Ok(g.map(into_pair))
    }
}

/// The pair of a group of one lane that has not ended.
fn into_pair(g: FrameGroup) -> FramePair {
    let FrameGroup { index, reference, distorted } = g;
    let distorted = distorted.into_iter().next().flatten().expect("the pair's lane is open");
    FramePair { index, reference, distorted }
}

/// The items of `items` whose positions are in `keep`.
fn kept<T>(items: Vec<T>, keep: &[usize]) -> Vec<T> {
    items.into_iter().enumerate().filter(|(k, _)| keep.contains(k)).map(|(_, x)| x).collect()
}

/// `1 frame`, `2 frames`.
fn frames(n: u64) -> String {
    if n == 1 { "1 frame".into() } else { format!("{n} frames") }
}

/// Frame `index`, or `None` if the input has fewer frames.
pub(crate) fn read_or_end(src: &mut dyn VideoSource, index: u64) -> Result<Option<Frame>> {
    match src.read_frame(index) {
        Ok(f) => Ok(Some(f)),
        Err(VideoError::FrameOutOfRange { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
