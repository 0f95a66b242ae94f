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

/// Two inputs checked to be comparable.
pub struct Pair {
    reference: Box<dyn VideoSource>,
    distorted: Box<dyn VideoSource>,
    options: PairOptions,
    next: u64,
    warnings: Vec<String>,
    ended: bool,
    /// Pairs to score as known when the pair was made (both counts known),
    /// which the warning made then already told the user.
    planned: Option<u64>,
    /// The pair read by [`Pair::has_frames`], handed out next.
    peeked: Option<FramePair>,
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

impl Pair {
    /// Checks the inputs and plans the frames to score. Warnings known now
    /// (unequal frame counts) are in [`Pair::warnings`].
    pub fn new(
        reference: Box<dyn VideoSource>,
        distorted: Box<dyn VideoSource>,
        options: PairOptions,
    ) -> Result<Self> {
        check_compatible(reference.as_ref(), distorted.as_ref())?;
        let mut pair = Pair {
            reference,
            distorted,
            options,
            next: 0,
            warnings: Vec::new(),
            ended: false,
            planned: None,
            peeked: None,
        };
        pair.planned = pair.frame_count();
        let (r, d) = (pair.available_ref(), pair.available_dist());
        if let (Some(r), Some(d)) = (r, d) {
            let capped = options.frame_cnt.is_some_and(|c| c <= r.min(d));
            if r != d && !capped {
                pair.warn_unequal(r, d);
            }
        }
        Ok(pair)
    }

    fn available_ref(&self) -> Option<u64> {
        let n = self.reference.info().frame_count?;
        Some(n.saturating_sub(self.options.frame_skip_ref))
    }

    fn available_dist(&self) -> Option<u64> {
        let n = self.distorted.info().frame_count?;
        Some(n.saturating_sub(self.options.frame_skip_dist))
    }

    fn warn_unequal(&mut self, r: u64, d: u64) {
        let (rp, dp) = (
            crate::error::Shown(self.reference.info().path.clone()),
            crate::error::Shown(self.distorted.info().path.clone()),
        );
        self.warnings.push(format!(
            "reference {rp} has {r} frames to score and distorted {dp} has {d}: scoring the first {}",
            r.min(d)
        ));
    }

    /// Number of pairs that will be scored, when both counts are known.
    pub fn frame_count(&self) -> Option<u64> {
        let n = self.available_ref()?.min(self.available_dist()?);
        Some(self.options.frame_cnt.map_or(n, |c| c.min(n)))
    }

    /// Messages for the user (unequal lengths, inputs that ended early);
    /// the caller prints them. Complete once [`Pair::next_pair`] has
    /// returned `None`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether there is at least one pair to score, known cheaply: `false`
    /// at once when the frame counts say so (a y4m file of 0 frames,
    /// skips past the end, `frame_cnt` 0); otherwise the first pair is read
    /// and kept for [`Pair::next_pair`], so nothing is read twice. Call it
    /// before setting up the GPU, so that an empty input says "no frames"
    /// rather than failing on a huge frame size. When it returns `false`,
    /// [`Pair::warnings`] says which input was empty.
    pub fn has_frames(&mut self) -> Result<bool> {
        if self.frame_count() == Some(0) {
            return Ok(false);
        }
        let position = self.next;
        match self.next_pair()? {
            Some(p) => {
                self.peeked = Some(p);
                self.next = position;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub fn reference(&self) -> &dyn VideoSource {
        self.reference.as_ref()
    }

    pub fn distorted(&self) -> &dyn VideoSource {
        self.distorted.as_ref()
    }

    pub fn options(&self) -> PairOptions {
        self.options
    }

    /// Pair `index` by random access (the player's seek).
    pub fn read(&mut self, index: u64) -> Result<FramePair> {
        if let Some(p) = self.peeked.take().filter(|p| p.index == index) {
            self.next = index + 1;
            self.ended = false;
            return Ok(p);
        }
        let reference = self.reference.read_frame(index + self.options.frame_skip_ref)?;
        let distorted = self.distorted.read_frame(index + self.options.frame_skip_dist)?;
        self.next = index + 1;
        self.ended = false;
        Ok(FramePair { index, reference, distorted })
    }

    /// A second reader of the same two inputs at the same position, for
    /// reading pairs on another thread; `None` when either input has a
    /// single sequential reader (a pipe, ffmpeg).
    pub fn reopen(&self) -> Option<Result<Pair>> {
        let reference = self.reference.reopen()?;
        let distorted = self.distorted.reopen()?;
        Some(reference.and_then(|reference| {
            Ok(Pair {
                reference,
                distorted: distorted?,
                options: self.options,
                next: self.next,
                warnings: self.warnings.clone(),
                ended: self.ended,
                planned: self.planned,
                peeked: None,
            })
        }))
    }

    /// The index of the pair [`Pair::next_pair`] returns next.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Moves the sequential position so that [`Pair::next_pair`] returns
    /// pair `index` next.
    pub fn seek(&mut self, index: u64) {
        self.next = index;
        self.ended = false;
    }

    /// The next pair, `None` when either input (or `frame_cnt`) ends. If one
    /// input ends before the other, or before the length its container
    /// announced, a warning is recorded (see the module documentation).
    pub fn next_pair(&mut self) -> Result<Option<FramePair>> {
        if self.ended || self.options.frame_cnt.is_some_and(|c| self.next >= c) {
            return Ok(None);
        }
        let index = self.next;
        if let Some(p) = self.peeked.take().filter(|p| p.index == index) {
            self.next += 1;
            return Ok(Some(p));
        }
        let r = read_or_end(self.reference.as_mut(), index + self.options.frame_skip_ref)?;
        let d = read_or_end(self.distorted.as_mut(), index + self.options.frame_skip_dist)?;
        match (r, d) {
            (Some(reference), Some(distorted)) => {
                self.next += 1;
                Ok(Some(FramePair { index, reference, distorted }))
            }
            (r, d) => {
                self.ended = true;
                self.warn_at_end(index, r.is_some(), d.is_some());
                Ok(None)
            }
        }
    }

    /// The warnings due when reading pair `index` found the end of one or
    /// both inputs (`*_left`: that input still had a frame).
    fn warn_at_end(&mut self, index: u64, ref_left: bool, dist_left: bool) {
        let mut found = Vec::new();
        // Unequal lengths, unless the warning made up front said so.
        if ref_left != dist_left && self.planned != Some(index) {
            let (long, short, long_role, short_role) = if ref_left {
                (&self.reference, &self.distorted, "reference", "distorted")
            } else {
                (&self.distorted, &self.reference, "distorted", "reference")
            };
            found.push(format!(
                "{short_role} {} ended before {long_role} {}: scored {}",
                crate::error::Shown(short.info().path.clone()),
                crate::error::Shown(long.info().path.clone()),
                frames(index),
            ));
        }
        for (left, source) in [(ref_left, &self.reference), (dist_left, &self.distorted)] {
            if !left && let Some(w) = source.end_warning() {
                found.push(w);
            }
        }
        for w in found {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }
}

/// `1 frame`, `2 frames`.
fn frames(n: u64) -> String {
    if n == 1 { "1 frame".into() } else { format!("{n} frames") }
}

/// Frame `index`, or `None` if the input has fewer frames.
fn read_or_end(src: &mut dyn VideoSource, index: u64) -> Result<Option<Frame>> {
    match src.read_frame(index) {
        Ok(f) => Ok(Some(f)),
        Err(VideoError::FrameOutOfRange { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
