//! A reference and a distorted input scored together, frame by frame, with
//! libvmaf's CLI rules: both must agree in size, chroma format and bit
//! depth; `frame_skip_ref` / `frame_skip_dist` drop leading frames of each;
//! `frame_cnt` caps how many pairs are scored; and when one input is longer
//! the extra frames are ignored with a warning, not an error.

use crate::error::{Result, VideoError};
use crate::frame::{Frame, Geometry};
use crate::source::VideoSource;

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
        let mut pair =
            Pair { reference, distorted, options, next: 0, warnings: Vec::new(), ended: false };
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

    /// Messages for the user (unequal lengths); the caller prints them.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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
    /// input ends before the other, a warning is recorded, as libvmaf does.
    pub fn next_pair(&mut self) -> Result<Option<FramePair>> {
        if self.ended || self.options.frame_cnt.is_some_and(|c| self.next >= c) {
            return Ok(None);
        }
        let index = self.next;
        let r = read_or_end(self.reference.as_mut(), index + self.options.frame_skip_ref)?;
        let d = read_or_end(self.distorted.as_mut(), index + self.options.frame_skip_dist)?;
        match (r, d) {
            (Some(reference), Some(distorted)) => {
                self.next += 1;
                Ok(Some(FramePair { index, reference, distorted }))
            }
            (r, d) => {
                self.ended = true;
                // Warn once, only if not already warned from known counts.
                if r.is_some() != d.is_some() && self.warnings.is_empty() {
                    let (long, short) = if r.is_some() {
                        (&self.reference, &self.distorted)
                    } else {
                        (&self.distorted, &self.reference)
                    };
                    let msg = format!(
                        "{} ended before {}: scored {index} frames",
                        crate::error::Shown(short.info().path.clone()),
                        crate::error::Shown(long.info().path.clone()),
                    );
                    self.warnings.push(msg);
                }
                Ok(None)
            }
        }
    }
}

/// Frame `index`, or `None` if the input has fewer frames.
fn read_or_end(src: &mut dyn VideoSource, index: u64) -> Result<Option<Frame>> {
    match src.read_frame(index) {
        Ok(f) => Ok(Some(f)),
        Err(VideoError::FrameOutOfRange { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
