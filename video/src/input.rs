//! What every input is, whoever reads it: [`SourceInfo`] (geometry, colour,
//! frame rate, which of them vqscope assumed) and the [`VideoSource`] trait
//! the y4m, raw and ffmpeg readers implement. [`crate::source`] picks the
//! reader; the readers depend on this module, not on that one.

use std::fmt;
use std::path::PathBuf;

use crate::error::{Result, Shown};
use crate::frame::{ColorInfo, Frame, Geometry, Rational};

/// The words in [`SourceInfo::description`] that mark an input ffmpeg decodes.
pub(crate) const FFMPEG_READER: &str = " via ffmpeg";

/// What vqscope knows about an input before reading frames.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub path: PathBuf,
    pub geometry: Geometry,
    pub color: ColorInfo,
    pub frame_rate: Rational,
    /// `None` when it cannot be known without decoding everything (pipes,
    /// containers that do not store it).
    pub frame_count: Option<u64>,
    /// Whether `read_frame` can go backwards cheaply.
    pub seekable: bool,
    /// Container and reader, e.g. `y4m C420p10` or `h264 in mp4 via ffmpeg`.
    pub description: String,
    /// The size the input was made at, when it is scaled to the
    /// reference's (by ffmpeg, [`crate::open_scaled_to`], or on the GPU).
    pub scaled_from: Option<(u32, u32)>,
    /// The geometry its frames come at when that is not `geometry`: an
    /// input read at its own size for the GPU to scale to `geometry`
    /// ([`crate::source::open_to_scale`]).
    pub frames_at: Option<Geometry>,
}

/// Which of a [`SourceInfo`]'s values are vqscope's defaults rather than
/// something the input states: an untagged y4m is taken as BT.709 limited
/// range at 25 fps (as ffmpeg takes it), raw yuv always.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Assumed {
    pub frame_rate: bool,
    pub matrix: bool,
    pub range: bool,
}

impl Assumed {
    /// Everything stated by the input.
    pub const NONE: Assumed = Assumed { frame_rate: false, matrix: false, range: false };
    /// Nothing stated: every value is a default.
    pub const ALL: Assumed = Assumed { frame_rate: true, matrix: true, range: true };
}

impl SourceInfo {
    /// Whether ffmpeg decodes this input (a compressed one), not vqscope's
    /// own y4m and raw readers.
    pub fn decoded_by_ffmpeg(&self) -> bool {
        self.description.contains(FFMPEG_READER)
    }

    /// The text `vqscope info` prints for one input, with the values in
    /// `assumed` marked as defaults (`BT.709 limited range (assumed: not
    /// tagged)`), so that a default is not read as a fact about the file.
    pub fn display(&self, assumed: Assumed) -> impl fmt::Display + '_ {
        InfoText { info: self, assumed }
    }
}

struct InfoText<'a> {
    info: &'a SourceInfo,
    assumed: Assumed,
}

impl fmt::Display for SourceInfo {
    /// [`SourceInfo::display`] with every value taken as stated by the
    /// input (callers that know better use that).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display(Assumed::NONE).fmt(f)
    }
}

impl fmt::Display for InfoText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (info, a) = (self.info, self.assumed);
        let g = &info.geometry;
        let frames = info.frame_count.map_or_else(|| "unknown".to_string(), |n| n.to_string());
        writeln!(f, "{}", Shown(info.path.clone()))?;
        writeln!(f, "  format:       {}", info.description)?;
        writeln!(f, "  size:         {}x{}", g.width, g.height)?;
        writeln!(f, "  pixel format: {}", g.format.ffmpeg_name())?;
        writeln!(f, "  bit depth:    {}", g.format.bit_depth)?;
        writeln!(f, "  frames:       {frames}")?;
        let rate = info.frame_rate;
        let note = if a.frame_rate { ", assumed: not stated in the input" } else { "" };
        writeln!(f, "  frame rate:   {rate} ({:.3} fps{note})", rate.as_f64())?;
        let note = match (a.matrix, a.range) {
            (true, true) => " (assumed: not tagged)",
            (true, false) => " (matrix assumed: not tagged)",
            (false, true) => " (range assumed: not tagged)",
            (false, false) => "",
        };
        write!(f, "  colour:       {}{note}", info.color)
    }
}

/// Which decoder reads a compressed input, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedBy {
    /// The Vulkan device: what it decodes ("H.264 High, 4:2:0 8-bit on DEVICE").
    Device(String),
    /// ffmpeg, and why not the device when it was considered.
    Ffmpeg(Option<String>),
}

impl fmt::Display for DecodedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodedBy::Device(what) => write!(f, "decoded on the device ({what})"),
            DecodedBy::Ffmpeg(Some(why)) => write!(f, "decoded by ffmpeg: {why}"),
            DecodedBy::Ffmpeg(None) => write!(f, "decoded by ffmpeg"),
        }
    }
}

/// A video input: frames by index or in order.
pub trait VideoSource: Send {
    fn info(&self) -> &SourceInfo;

    /// Frame `index` (from 0). Pipes can only move forward: asking for a
    /// frame before the current position is an error there.
    fn read_frame(&mut self, index: u64) -> Result<Frame>;

    /// The frame after the last one read (frame 0 first), `None` at the end.
    fn next_frame(&mut self) -> Result<Option<Frame>>;

    /// A second, independent reader of the same file, so several threads
    /// can read frames at once; `None` for inputs with a single sequential
    /// reader (pipes, ffmpeg).
    fn reopen(&self) -> Option<Result<Box<dyn VideoSource>>> {
        None
    }

    /// Once a read has found the end: a warning when the input ended
    /// before the length its container announced (a truncated mp4 that
    /// ffmpeg decodes in part without failing), `None` otherwise. The
    /// message names the file; [`crate::Pair`] collects it.
    fn end_warning(&self) -> Option<String> {
        None
    }

    /// Which values of [`VideoSource::info`] are defaults, not read from
    /// the input (none, unless the reader says otherwise).
    fn assumed(&self) -> Assumed {
        Assumed::NONE
    }

    /// For a compressed input, which decoder reads it (`--verbose`,
    /// `vqscope info`); `None` for the inputs vqscope reads itself.
    fn decoded_by(&self) -> Option<DecodedBy> {
        None
    }
}
