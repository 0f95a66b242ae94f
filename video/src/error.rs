//! Every way reading an input can fail. Each error names the file (and the
//! frame, where one is involved) so a one-line message is enough for a user
//! to find the problem; bad input always ends here, never in a panic.

use std::fmt;
use std::path::{Path, PathBuf};

/// Result alias for this crate.
pub type Result<T, E = VideoError> = std::result::Result<T, E>;

/// Largest width or height accepted, checked before anything is allocated.
pub const MAX_DIMENSION: u32 = 16384;

/// A path as shown in messages: `-` reads as `stdin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown(pub PathBuf);

impl Shown {
    pub fn new(path: &Path) -> Self {
        Shown(path.to_path_buf())
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.as_os_str() == "-" {
            f.write_str("stdin")
        } else {
            write!(f, "{}", self.0.display())
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("{path}: cannot open: {source}")]
    Open {
        path: Shown,
        #[source]
        source: std::io::Error,
    },

    #[error("{path}: read error{}: {source}", at_frame(*frame))]
    Io {
        path: Shown,
        frame: Option<u64>,
        #[source]
        source: std::io::Error,
    },

    #[error("{path}: file is empty")]
    Empty { path: Shown },

    #[error("{path}: not a YUV4MPEG2 file (bad magic {found:?})")]
    BadMagic { path: Shown, found: String },

    #[error("{path}: bad y4m header: {reason}")]
    Header { path: Shown, reason: String },

    #[error(
        "{path}: frame size {width}x{height} is out of range (each side must be 1..={MAX_DIMENSION})"
    )]
    Dimensions { path: Shown, width: u64, height: u64 },

    #[error("{path}: frame {frame}: bad frame header: {reason}")]
    FrameHeader { path: Shown, frame: u64, reason: String },

    #[error("{path}: frame {frame} is truncated: expected {expected} bytes, got {got}")]
    Truncated { path: Shown, frame: u64, expected: u64, got: u64 },

    #[error(
        "{path}: file size {size} is not a whole number of {frame_bytes}-byte frames ({whole} whole frames, then {trailing} stray bytes): wrong size or pixel format?"
    )]
    PartialFrame { path: Shown, size: u64, frame_bytes: u64, whole: u64, trailing: u64 },

    #[error("{path}: frame {frame} does not exist (the input has {count} frames)")]
    FrameOutOfRange { path: Shown, frame: u64, count: u64 },

    #[error(
        "{path}: cannot go back to frame {frame} (input is a pipe, already at frame {position})"
    )]
    NotSeekable { path: Shown, frame: u64, position: u64 },

    #[error("{path}: unsupported input: {reason}")]
    Unsupported { path: Shown, reason: String },

    #[error("{path}: `{program}` is not installed or not on PATH; it is needed to read this file")]
    FfmpegMissing { path: Shown, program: String },

    #[error("{path}: ffmpeg failed{}: {message}", at_frame(*frame))]
    Ffmpeg { path: Shown, frame: Option<u64>, message: String },

    /// A malformed or missing parameter set in an H.264 or H.265 stream.
    #[error("{path}: {codec} stream: {reason}")]
    Bitstream { path: Shown, codec: &'static str, reason: String },

    #[error("{0}")]
    Mismatch(String),

    /// One stream given as two inputs (see [`crate::source::check_stream_inputs`]).
    #[error("{0}")]
    SameStream(String),

    /// `--decode gpu` for an input the device does not decode.
    #[error("{path}: cannot be decoded on the device (--decode gpu): {reason}")]
    DeviceRefused { path: Shown, reason: String },

    /// Decoding on the device failed part-way: a read error of the input.
    #[error("{path}: decoding on the device failed{}: {message}", at_frame(*frame))]
    DeviceDecode { path: Shown, frame: Option<u64>, message: String },

    #[error("decode thread stopped: {0}")]
    Decoder(String),
}

fn at_frame(frame: Option<u64>) -> String {
    frame.map(|f| format!(" at frame {f}")).unwrap_or_default()
}

impl VideoError {
    /// An I/O error while reading `path`, optionally at `frame`.
    pub fn io(path: &Path, frame: Option<u64>, source: std::io::Error) -> Self {
        VideoError::Io { path: Shown::new(path), frame, source }
    }

    /// A header problem in `path`.
    pub fn header(path: &Path, reason: impl Into<String>) -> Self {
        VideoError::Header { path: Shown::new(path), reason: reason.into() }
    }
}

/// Rejects sizes that are zero, above [`MAX_DIMENSION`], or whose frame
/// would not fit in memory, before any buffer is sized from them.
pub fn check_dimensions(path: &Path, width: u64, height: u64) -> Result<()> {
    let ok = |v: u64| (1..=u64::from(MAX_DIMENSION)).contains(&v);
    if ok(width) && ok(height) {
        Ok(())
    } else {
        Err(VideoError::Dimensions { path: Shown::new(path), width, height })
    }
}
