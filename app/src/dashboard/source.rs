//! Where the dashboard's frames come from. [`Inputs`] names the pair (each
//! side a file or a side of the generated demo, so a file dropped on one
//! side of the demo replaces just that side) and opens it as often as needed: the scorer and
//! the display each read with their own [`Pair`], so scoring runs ahead of
//! playback without either waiting for the other. [`FrameFeed`] serves the
//! display: a read-ahead [`Decoder`] plus a small cache of recent pairs, so
//! stepping back a few frames is instant and never blocks the UI.

use std::collections::VecDeque;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Result, bail};
use vqscope_video::{
    Decoder, Frame, FramePair, Pair, PairOptions, RawGeometry, SourceInfo, Transfer, VideoSource,
    open_input, open_scaled_to, with_transfer,
};

use vqscope_renderer::color::DEFAULT_PEAK_NITS;

use super::demo::{DemoSource, Side};
use super::state::InputSide;

/// One side of the pair.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    File(PathBuf),
    /// A side of the generated demo pair (see `demo.rs`).
    Demo(Side),
}

/// The pair the dashboard shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub reference: Source,
    pub distorted: Source,
    /// Geometry of raw `.yuv` files (`-w -h -p -b`), for either side.
    pub raw: Option<RawGeometry>,
    /// The transfer both sides are shown with instead of their tags'
    /// (`--transfer`), for HDR files tagged wrongly or not at all.
    pub transfer: Option<Transfer>,
    /// The display peak HDR is tone-mapped to (`--peak-nits`).
    pub peak_nits: u16,
}

impl Inputs {
    /// The pair of files named. Each is opened as often as needed (see the
    /// module's doc), so stdin and pipes, which can be read once, are
    /// refused here in one line instead of failing on the second read.
    pub fn files(reference: PathBuf, distorted: PathBuf, raw: Option<RawGeometry>) -> Result<Self> {
        let is_pipe = |path: &PathBuf| {
            std::fs::metadata(path)
                .map(|m| m.file_type())
                .is_ok_and(|t| t.is_fifo() || t.is_socket() || t.is_char_device())
        };
        for path in [&reference, &distorted] {
            let what = if path.as_os_str() == "-" {
                "stdin"
            } else if is_pipe(path) {
                "a pipe"
            } else {
                continue;
            };
            bail!(
                "{}: {what} can be read only once, and the dashboard reads each input again to \
                 step back and to score; save it to a file (`vqscope score` reads it once)",
                path.display()
            );
        }
        Ok(Inputs {
            reference: Source::File(reference),
            distorted: Source::File(distorted),
            raw,
            transfer: None,
            peak_nits: DEFAULT_PEAK_NITS,
        })
    }

    /// The generated demo pair.
    pub fn demo() -> Self {
        Inputs {
            reference: Source::Demo(Side::Reference),
            distorted: Source::Demo(Side::Distorted),
            raw: None,
            transfer: None,
            peak_nits: DEFAULT_PEAK_NITS,
        }
    }

    pub fn is_demo(&self) -> bool {
        *self == Inputs { transfer: self.transfer, peak_nits: self.peak_nits, ..Self::demo() }
    }

    /// These inputs with `side` read from `path` instead (a dropped file).
    pub fn replaced(&self, side: InputSide, path: PathBuf) -> Self {
        let mut next = self.clone();
        match side {
            InputSide::Reference => next.reference = Source::File(path),
            InputSide::Distorted => next.distorted = Source::File(path),
        }
        next
    }

    fn open_source(&self, source: &Source) -> Result<Box<dyn VideoSource>> {
        Ok(match source {
            Source::File(path) => open_input(path, self.raw)?,
            Source::Demo(side) => Box::new(DemoSource::new(*side)),
        })
    }

    /// Opens both inputs. A distorted file of another size or format is
    /// scaled to the reference's by ffmpeg ([`open_scaled_to`]; the header
    /// says so), as people do before libvmaf; what cannot be scaled (stdin,
    /// raw) must match, or [`Pair::new`] refuses it in one line.
    pub fn open(&self) -> Result<Pair> {
        let reference = self.open_source(&self.reference)?;
        let distorted = match &self.distorted {
            Source::File(path) => open_scaled_to(path, self.raw, &reference.info().geometry)?,
            demo => self.open_source(demo)?,
        };
        let (reference, distorted) = match self.transfer {
            Some(t) => (with_transfer(reference, t), with_transfer(distorted, t)),
            None => (reference, distorted),
        };
        Ok(Pair::new(reference, distorted, PairOptions::default())?)
    }

    /// Reference frame `r` and distorted frame `d`, read synchronously (the
    /// headless path of a view with display offsets).
    pub fn read_sides(&self, r: u64, d: u64) -> Result<(Frame, Frame)> {
        if r == d {
            let p = self.read(r)?;
            return Ok((p.reference, p.distorted));
        }
        Ok((self.read(r)?.reference, self.read(d)?.distorted))
    }

    /// Pair `index`, read synchronously (the headless path).
    pub fn read(&self, index: u64) -> Result<FramePair> {
        let mut pair = self.open()?;
        pair.seek(index);
        match pair.next_pair()? {
            Some(p) => Ok(p),
            None => bail!("frame {index} is past the end of the clip"),
        }
    }
}

/// What the header and side panel say about the clip.
#[derive(Debug, Clone)]
pub struct ClipInfo {
    pub reference: SourceInfo,
    pub distorted: SourceInfo,
    pub frame_count: Option<u64>,
}

impl ClipInfo {
    pub fn of(pair: &Pair) -> Self {
        ClipInfo {
            reference: pair.reference().info().clone(),
            distorted: pair.distorted().info().clone(),
            frame_count: pair.frame_count(),
        }
    }

    /// Whether either side is shown as HDR (PQ or HLG, tagged or by
    /// `--transfer`): what `--hdr-output auto` goes by.
    pub fn is_hdr(&self) -> bool {
        [&self.reference, &self.distorted]
            .iter()
            .any(|s| s.color.transfer != vqscope_video::Transfer::Sdr)
    }
}

/// Pairs kept for instant stepping.
const CACHE: usize = 24;
/// Pairs the decoder reads ahead.
const DEPTH: usize = 6;
/// Frames before the clip's end from which the feed takes every pair to
/// the end, so that its decoder starts again from frame 0 that far ahead
/// of a playback that wraps (measured on an H100: starting it at the last
/// DEPTH frames left 13 of 960 frames late in a 16 s loop of a 4K H.265
/// pair).
const WRAP_LEAD: u64 = (CACHE / 2) as u64;
/// Pairs read before the one asked for when stepping back past the cache:
/// what the cache holds besides the read-ahead.
const BACK_FILL: u64 = (CACHE - DEPTH - 1) as u64;
/// How far past the pairs the decoder is heading to a pair asked for is
/// read on to rather than sought (besides a side offset's span, see
/// [`FrameFeed::show`]): a seek in a compressed input decodes again
/// from the seek point before the pair, most often further back than
/// this.
const READ_ON: u64 = BACK_FILL;
/// Memory the cache may take beyond its [`CACHE`] pairs to hold both
/// sides of a side offset (`]`): 1 GiB (of device memory for pictures
/// decoded there), 43 pairs of 4K 8-bit frames. A larger offset seeks
/// every few frames.
const SPAN_BYTES: usize = 1 << 30;

/// Frames for the display, never blocking.
pub struct FrameFeed {
    decoder: Decoder,
    /// Shared with the pictures being built, so handing a pair out copies
    /// nothing (a 4K pair is 25 MB).
    cache: VecDeque<Arc<FramePair>>,
    /// The index the decoder will deliver next.
    next: u64,
    /// The index the last seek was for (the decoder may have started
    /// before it, see [`BACK_FILL`]).
    sought: u64,
    /// The clip's length, where known.
    frames: Option<u64>,
    /// The decoder has started again from frame 0 after the last pair,
    /// ahead of a playback that wraps (see [`FrameFeed::drain`]).
    wrapped: bool,
    /// Last decoding error, shown to the user; playback goes on.
    pub error: Option<String>,
    /// Seeks [`FrameFeed::get`] made for pairs the decoder was not heading
    /// to (the read from frame 0 ahead of the wrap is not one); `bench
    /// playback` reports them.
    pub seeks: u64,
    /// The frames the two sides show, the earlier first (equal without a
    /// side offset): the cache keeps the pairs nearest them.
    shown: (u64, u64),
    /// The largest span ([`FrameFeed::span`]) whose pairs fit in
    /// [`SPAN_BYTES`].
    max_span: u64,
}

impl FrameFeed {
    pub fn new(pair: Pair) -> Result<Self> {
        let frames = pair.frame_count();
        let pair_bytes = [pair.reference(), pair.distorted()]
            .iter()
            .map(|side| side.info().geometry.frame_bytes())
            .sum::<usize>();
        Ok(FrameFeed {
            decoder: Decoder::spawn(pair, DEPTH)?,
            cache: VecDeque::new(),
            next: 0,
            sought: 0,
            frames,
            wrapped: false,
            error: None,
            seeks: 0,
            shown: (0, 0),
            max_span: (SPAN_BYTES / pair_bytes.max(1)) as u64,
        })
    }

    /// The two sides show frames `a` and `b`, the pairs [`FrameFeed::get`]
    /// is asked for next. With a side offset (`]`) they are some frames
    /// apart, and every pair is shown twice, once on each side: up to the
    /// memory bound ([`SPAN_BYTES`]) the cache keeps the pairs between and
    /// the decoder reads on to the later side, so playback never seeks;
    /// the pairs of a larger offset do not all fit, and the feed seeks for
    /// them.
    pub fn show(&mut self, a: u64, b: u64) {
        self.shown = (a.min(b), a.max(b));
    }

    /// How many frames apart the two sides shown are, up to `max_span`:
    /// the cache holds that many pairs more and the decoder reads on that
    /// much further.
    fn span(&self) -> u64 {
        (self.shown.1 - self.shown.0).min(self.max_span)
    }

    /// Pairs the cache holds at most.
    fn capacity(&self) -> usize {
        CACHE + self.span() as usize
    }

    /// Pair `index` if it is ready; otherwise asks for it and returns None
    /// (the caller keeps showing the previous pair).
    pub fn get(&mut self, index: u64) -> Option<Arc<FramePair>> {
        self.drain(index);
        if let Some(p) = self.cache.iter().find(|p| p.index == index) {
            return Some(p.clone());
        }
        // Coming soon if the decoder is heading there; else jump. Reading
        // the next loop from frame 0, it pulls nothing for the clip's last
        // frames (`drain`).
        let next_loop = self.wrapped && self.tail(index).is_some();
        let ahead = index >= self.next && index < self.reach() && !next_loop;
        if !ahead || self.decoder.is_finished() {
            // Stepping back past the cache (the pair after `index` is
            // there): read from further back, so that the next steps find
            // their pairs cached instead of seeking each (on a compressed
            // input a seek decodes again from the seek point before it).
            let stepping_back = self.cache.iter().any(|p| p.index == index + 1);
            let from = if stepping_back { index.saturating_sub(BACK_FILL) } else { index };
            self.decoder.seek(from);
            (self.next, self.sought, self.wrapped) = (from, index, false);
            self.seeks += 1;
        }
        self.drain(index);
        self.cache.iter().find(|p| p.index == index).cloned()
    }

    /// The clip's length if `around` is in its last [`WRAP_LEAD`] frames.
    fn tail(&self, around: u64) -> Option<u64> {
        self.frames.filter(|&n| around + WRAP_LEAD >= n)
    }

    /// The decoder is heading to the pairs below this one: its next pair,
    /// or the pair the last seek was for, and [`READ_ON`] and the span
    /// past it.
    fn reach(&self) -> u64 {
        self.next.max(self.sought) + READ_ON + self.span()
    }

    /// Moves what the decoder has ready into the cache until it has given
    /// [`DEPTH`] pairs from `around` on, dropping the pairs farthest from
    /// `around` when full. The rest waits in the decoder's channel, which
    /// holds the decoder back: a feed that took all it could would run the
    /// decoder far ahead of the playback, drop from the full cache the
    /// pairs it was about to show, and then seek back for each (measured:
    /// on a GPU decoding a 1080p pair at ten times the clip's rate, the
    /// feed sought every 6 frames and showed 142 of 480 frames on time).
    ///
    /// Once the decoder has given the clip's last pair and said it ended,
    /// it starts again from frame 0, so that a playback that wraps finds
    /// the first pairs ready (a seek there at the wrap left frames late);
    /// the pairs past the end count as coming after it, and distances in
    /// the cache go round the clip.
    fn drain(&mut self, around: u64) {
        let depth = DEPTH as u64;
        // In the clip's last WRAP_LEAD frames everything to the end is
        // taken, so that the read from frame 0 starts that far ahead of
        // the wrap; out of them the wrap has happened (or playback left
        // the end another way) once playback has reached the decoder's
        // read from frame 0; a side shown some frames earlier (`[`) asks
        // out of them before that.
        let tail = self.tail(around);
        self.wrapped &= tail.is_some() || around > self.next;
        // A decoder not heading to `around` gives nothing worth keeping (the
        // pairs there are cached, or `get` seeks); nor does one reading the
        // next loop from frame 0 for a pair cached from this one (a side
        // shown earlier, playing on to the end).
        let served = self.wrapped && self.cache.iter().any(|p| p.index == around);
        let heading = !served && around < self.reach();
        let to_pull = |next: u64, wrapped: bool| match tail {
            Some(n) if wrapped => n - around.min(n) + next < depth,
            Some(_) => true,
            None => heading && next < around + depth,
        };
        while to_pull(self.next, self.wrapped) {
            match self.decoder.try_recv() {
                Ok(Some(p)) => {
                    self.next = p.index + 1;
                    if !self.cache.iter().any(|c| c.index == p.index) {
                        self.cache.push_back(Arc::new(p));
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    self.error = Some(e.to_string());
                    break;
                }
            }
        }
        if self.decoder.is_finished() && self.error.is_none() && self.frames == Some(self.next) {
            self.decoder.seek(0);
            (self.next, self.sought, self.wrapped) = (0, 0, true);
        }
        // Distances to the frames shown (to `around` where it is not one of
        // them: a caller that did not say), going round the clip.
        let frames = self.frames;
        let (lo, hi) = match self.shown {
            (lo, hi) if (lo..=hi).contains(&around) => (lo, hi),
            _ => (around, around),
        };
        let gap = |index: u64, to: u64| {
            let d = index.abs_diff(to);
            frames.map_or(d, |n| d.min(n.saturating_sub(d)))
        };
        let distance = |index: u64| {
            if (lo..=hi).contains(&index) { 0 } else { gap(index, lo).min(gap(index, hi)) }
        };
        while self.cache.len() > self.capacity() {
            let far = self
                .cache
                .iter()
                .enumerate()
                .max_by_key(|(_, p)| distance(p.index))
                .map(|(i, _)| i);
            match far {
                Some(i) => {
                    let unshared = self.cache.remove(i).and_then(Arc::into_inner);
                    unshared.into_iter().for_each(FramePair::recycle);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::dashboard::demo;

    /// Waits for pair `index` as the display would, polling.
    fn wait_for(feed: &mut FrameFeed, index: u64) -> Arc<FramePair> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(pair) = feed.get(index) {
                assert_eq!(pair.index, index);
                return pair;
            }
            assert!(Instant::now() < deadline, "frame {index} never came");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The demo's feed after playing it frame by frame to its last frame.
    fn played_to_the_end() -> FrameFeed {
        let mut feed = FrameFeed::new(Inputs::demo().open().unwrap()).unwrap();
        for index in 0..demo::FRAMES {
            std::thread::sleep(Duration::from_millis(5));
            wait_for(&mut feed, index);
        }
        feed
    }

    /// Played frame by frame with time for the decoder to read ahead
    /// between frames, the feed shows every frame when it is wanted and
    /// takes from the decoder no more than [`DEPTH`] pairs past it (until
    /// the clip's end is near), so it never drops a pair it is about to
    /// show (and never seeks).
    #[test]
    fn playback_reads_ahead_only_as_far_as_it_shows() {
        let mut feed = FrameFeed::new(Inputs::demo().open().unwrap()).unwrap();
        for index in 0..demo::FRAMES {
            std::thread::sleep(Duration::from_millis(20));
            wait_for(&mut feed, index);
            // (Near the end it takes every pair to the end: WRAP_LEAD.)
            assert!(
                feed.next <= index + DEPTH as u64 || index + WRAP_LEAD >= demo::FRAMES,
                "showing frame {index}, the feed has taken up to frame {}",
                feed.next - 1
            );
        }
        assert_eq!(feed.error, None);
    }

    /// Stepping back frame by frame from the end of the clip, as the left
    /// arrow key does, past what playing forward left in the cache: each
    /// seek reads the pairs before the one asked for too, so the steps
    /// after it find theirs cached (one seek for every dozen steps or so,
    /// not one a step).
    #[test]
    fn stepping_back_seeks_once_for_many_steps() {
        let mut feed = played_to_the_end();
        let before = feed.seeks;
        for index in (0..demo::FRAMES - 1).rev() {
            wait_for(&mut feed, index);
        }
        let seeks = feed.seeks - before;
        assert!(seeks <= 4, "{seeks} seeks for {} steps back", demo::FRAMES - 1);
        assert_eq!(feed.error, None);
    }

    /// Showing the clip's last frame, the feed gets the first ones ready
    /// for a playback that wraps, and plays them without a seek.
    #[test]
    fn the_first_frames_are_ready_before_the_wrap() {
        let mut feed = played_to_the_end();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !feed.cache.iter().any(|p| p.index == 0) {
            assert!(Instant::now() < deadline, "the first frames never came");
            wait_for(&mut feed, demo::FRAMES - 1);
            std::thread::sleep(Duration::from_millis(1));
        }
        let before = feed.seeks;
        for index in 0..demo::FRAMES {
            wait_for(&mut feed, index);
            assert_eq!(feed.seeks, before, "frame {index} after the wrap: the feed sought");
        }
        assert_eq!(feed.error, None);
    }

    /// A jump after the wrap to a frame the cache no longer holds comes,
    /// whatever seeks came before: here a step back from frame 30, which
    /// left the decoder heading to frame 29 when playback went on through
    /// the end and the wrap.
    #[test]
    fn a_jump_after_the_wrap_comes() {
        let mut feed = FrameFeed::new(Inputs::demo().open().unwrap()).unwrap();
        wait_for(&mut feed, 30);
        for index in (29..demo::FRAMES).chain(0..3) {
            std::thread::sleep(Duration::from_millis(5));
            wait_for(&mut feed, index);
        }
        assert!(!feed.cache.iter().any(|p| p.index == 25), "the test wants frame 25 gone");
        wait_for(&mut feed, 25);
        assert_eq!(feed.error, None);
    }

    /// One of the clip's last pairs asked for once the read from frame 0
    /// ahead of the wrap has begun, no longer cached (here dropped by
    /// hand; a wide side offset, `]`, asks that far ahead) comes all the
    /// same: the decoder, reading the next loop, does not pull for the
    /// clip's last frames, so the feed seeks.
    #[test]
    fn a_last_pair_gone_after_the_read_from_frame_0_comes() {
        let mut feed = played_to_the_end();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !feed.wrapped {
            assert!(Instant::now() < deadline, "the read from frame 0 never began");
            wait_for(&mut feed, demo::FRAMES - 1);
            std::thread::sleep(Duration::from_millis(1));
        }
        feed.show(demo::FRAMES - 32, demo::FRAMES - 2);
        let index = demo::FRAMES - 2;
        feed.cache.retain(|p| p.index != index);
        wait_for(&mut feed, index);
        assert_eq!(feed.error, None);
    }

    /// With the distorted side shown some frames later (`]`), each
    /// display frame asks for two pairs `offset` apart (the later side held
    /// at the clip's last frame once there, as the dashboard shows it);
    /// told that span, the feed keeps both in reach without a seek: from
    /// the first frame (the decoder just started, far behind the later
    /// side), through the clip's end (where the read from frame 0 ahead of
    /// the wrap begins while the earlier side still shows the last frames)
    /// and the wrap. The pauses let the decoder finish before the earlier
    /// side is asked for again.
    #[test]
    fn playback_with_a_side_offset_never_seeks() {
        let last = demo::FRAMES - 1;
        for offset in [1, 3, 10, 17, 24, 40] {
            let mut feed = FrameFeed::new(Inputs::demo().open().unwrap()).unwrap();
            for index in (0..demo::FRAMES).chain(0..offset + DEPTH as u64) {
                let later = (index + offset).min(last);
                feed.show(index, later);
                wait_for(&mut feed, index);
                wait_for(&mut feed, later);
                assert_eq!(feed.seeks, 0, "offset {offset}, frame {index}: the feed sought");
                std::thread::sleep(Duration::from_millis(20));
            }
            assert_eq!(feed.error, None);
        }
    }

    /// Inputs that can be read only once (stdin, a named pipe) are refused
    /// up front, naming the input; files pass.
    #[test]
    fn inputs_read_once_are_refused() {
        let dir = std::env::temp_dir().join(format!("vqscope-feed-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (file, fifo) = (dir.join("ref.y4m"), dir.join("pipe.y4m"));
        std::fs::write(&file, b"").unwrap();
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let refused = |r: &Path, d: &Path| {
            Inputs::files(r.to_owned(), d.to_owned(), None).err().map(|e| e.to_string())
        };
        let stdin = refused(&file, Path::new("-")).expect("stdin passed");
        assert!(stdin.starts_with("-: stdin can be read only once"), "{stdin}");
        let pipe = refused(&fifo, &file).expect("a named pipe passed");
        assert!(pipe.starts_with(&format!("{}: a pipe", fifo.display())), "{pipe}");
        assert_eq!(refused(&file, &file), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
