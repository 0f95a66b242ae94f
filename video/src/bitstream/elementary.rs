//! The video stream of an input file as Annex B. Raw Annex B files
//! (`.h264`, `.264`, `.h265`, `.265`, `.hevc`) are read directly;
//! containers (mp4, mkv, …) through `ffmpeg -c:v copy` with the
//! `*_mp4toannexb` filter, which only rewrites length-prefixed NAL units as
//! Annex B and decodes nothing, so it costs little more than reading the
//! file. [`AnnexBReader`] reads as far as it is asked: to the first SPS to
//! learn the stream's parameters, then on to the end from the same child
//! when the whole stream is wanted (a second ffmpeg would cost its start
//! again); dropped early, it kills the child, so a long file is never read
//! through for its parameters alone.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::nal::{complete_units, h264_type, h265_type_and_layer, rbsp};
use super::{ParameterSets, ParseError, h264, h265};
use crate::error::{Result, Shown, VideoError};
use crate::ffmpeg::{FfmpegTools, file_url, last_line, missing, probe};

/// The codecs whose parameter sets vqscope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    H264,
    H265,
}

impl Codec {
    pub fn name(self) -> &'static str {
        match self {
            Codec::H264 => "H.264",
            Codec::H265 => "H.265",
        }
    }

    /// A `level_idc` as people write the level: "5.1" (H.264 counts tenths,
    /// with 9 for level 1b; H.265 thirtieths).
    pub fn level_name(self, level_idc: u32) -> String {
        let (whole, tenths) = match self {
            Codec::H264 if level_idc == 9 => return "1b".into(),
            Codec::H264 => (level_idc / 10, level_idc % 10),
            Codec::H265 => (level_idc / 30, level_idc % 30 / 3),
        };
        if tenths == 0 { whole.to_string() } else { format!("{whole}.{tenths}") }
    }

    /// The codec of a raw elementary stream, from its file extension.
    pub(crate) fn from_extension(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "h264" | "264" => Some(Codec::H264),
            "h265" | "265" | "hevc" => Some(Codec::H265),
            _ => None,
        }
    }

    /// The codec ffprobe names `codec_name` (`h264`, `hevc`), if it is one
    /// of these.
    pub fn from_ffprobe_name(name: &str) -> Option<Self> {
        match name {
            "h264" => Some(Codec::H264),
            "hevc" => Some(Codec::H265),
            _ => None,
        }
    }

    /// The bitstream filter and muxer that turn this codec's packets into
    /// an Annex B stream.
    pub(crate) fn annexb(self) -> [&'static str; 4] {
        match self {
            Codec::H264 => ["-bsf:v", "h264_mp4toannexb", "-f", "h264"],
            Codec::H265 => ["-bsf:v", "hevc_mp4toannexb", "-f", "hevc"],
        }
    }
}

/// Bytes read before giving up on finding an SPS: encoders put it first,
/// so a stream without one here is not a stream of this codec.
const SCAN_LIMIT: usize = 16 << 20;

/// The parameter sets of a stream's start: `Ok(None)` while the first SPS
/// is not yet whole in `stream` (a reader then reads more); `at_end` says
/// `stream` is all there is. For H.265 the first base-layer VPS before the
/// SPS comes with it.
pub fn parameter_sets(
    stream: &[u8],
    codec: Codec,
    at_end: bool,
) -> Result<Option<ParameterSets>, ParseError> {
    let mut video = None;
    for unit in complete_units(stream, at_end) {
        match codec {
            Codec::H264 if h264_type(unit) == Some(7) => {
                let sequence = h264::parse_sps(&rbsp(unit))?;
                return Ok(Some(ParameterSets { sequence, video: None }));
            }
            Codec::H264 => {}
            Codec::H265 => match h265_type_and_layer(unit) {
                Some((32, 0)) if video.is_none() => video = Some(h265::parse_vps(&rbsp(unit))?),
                Some((33, 0)) => {
                    let sequence = h265::parse_sps(&rbsp(unit))?;
                    return Ok(Some(ParameterSets { sequence, video }));
                }
                _ => {}
            },
        }
    }
    Ok(None)
}

/// The parameter sets of `path`: a raw elementary stream by its extension,
/// anything else through ffmpeg (H.264 and H.265 only; other codecs are an
/// [`VideoError::Unsupported`] naming the codec).
pub fn read_parameter_sets(path: &Path, tools: &FfmpegTools) -> Result<ParameterSets> {
    let (codec, container) = match Codec::from_extension(path) {
        Some(codec) => (codec, false),
        None => {
            let probed = probe(path, tools)?;
            let codec =
                Codec::from_ffprobe_name(&probed.codec).ok_or_else(|| VideoError::Unsupported {
                    path: Shown::new(path),
                    reason: format!(
                        "{} video: device decode covers H.264 and H.265 only",
                        probed.codec
                    ),
                })?;
            (codec, true)
        }
    };
    AnnexBReader::open(path, codec, container, tools)?.parameter_sets()
}

/// A file's video stream as Annex B, read from its start as far as asked
/// (see the module's note).
pub struct AnnexBReader {
    path: PathBuf,
    codec: Codec,
    source: Box<dyn Read + Send>,
    /// The `ffmpeg -c:v copy` child of a container, until it is waited for.
    child: Option<Child>,
    /// The file's size, for a raw stream.
    size: Option<u64>,
    /// The stream's bytes read so far.
    read: Vec<u8>,
    /// Whether `source` has ended.
    ended: bool,
}

impl AnnexBReader {
    /// The stream of `codec` in `path`: the file itself, or with
    /// `container` ffmpeg's Annex B copy of its first video stream.
    pub fn open(path: &Path, codec: Codec, container: bool, tools: &FfmpegTools) -> Result<Self> {
        if !container {
            let file = std::fs::File::open(path)
                .map_err(|source| VideoError::Open { path: Shown::new(path), source })?;
            let size = file.metadata().map_err(|e| VideoError::io(path, None, e))?.len();
            let mut reader = Self::over(path, codec, Box::new(file));
            reader.size = Some(size);
            return Ok(reader);
        }
        let mut child = Command::new(&tools.ffmpeg)
            .args(["-nostdin", "-v", "error", "-i"])
            .arg(file_url(path))
            .args(["-map", "0:v:0", "-c:v", "copy"])
            .args(codec.annexb())
            .arg("-")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| missing(path, &tools.ffmpeg, e))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut reader = Self::over(path, codec, Box::new(stdout));
        reader.child = Some(child);
        Ok(reader)
    }

    fn over(path: &Path, codec: Codec, source: Box<dyn Read + Send>) -> Self {
        AnnexBReader {
            path: path.to_path_buf(),
            codec,
            source,
            child: None,
            size: None,
            read: Vec::new(),
            ended: false,
        }
    }

    /// The stream's first parameter sets: read until its first SPS is
    /// whole (for H.265 with the base-layer VPS before it).
    pub fn parameter_sets(&mut self) -> Result<ParameterSets> {
        match self.scan()? {
            Some(sets) => Ok(sets),
            None => {
                self.finish_child()?;
                let what = if self.size.is_some() { "the file" } else { "ffmpeg's Annex B output" };
                Err(no_sps(&self.path, self.codec, what))
            }
        }
    }

    /// The whole stream, or `None` when it is over `limit` bytes (a raw
    /// file of that size is not read at all).
    pub fn read_all(mut self, limit: u64) -> Result<Option<Vec<u8>>> {
        if self.size.is_some_and(|size| size > limit) {
            return Ok(None);
        }
        let room = (limit + 1).saturating_sub(self.read.len() as u64);
        (&mut self.source)
            .take(room)
            .read_to_end(&mut self.read)
            .map_err(|e| VideoError::io(&self.path, None, e))?;
        if self.read.len() as u64 > limit {
            return Ok(None);
        }
        self.finish_child()?;
        Ok(Some(std::mem::take(&mut self.read)))
    }

    /// Reads until the first SPS is whole; `None` when the stream ends
    /// first. Each read takes as much as has been read so far (64 KiB at
    /// first), so scanning the growing buffer again after each read stays
    /// linear overall.
    fn scan(&mut self) -> Result<Option<ParameterSets>> {
        let (path, codec) = (&self.path, self.codec);
        let bad = |e: ParseError| VideoError::Bitstream {
            path: Shown::new(path),
            codec: codec.name(),
            reason: e.to_string(),
        };
        loop {
            if let Some(sets) = parameter_sets(&self.read, codec, self.ended).map_err(bad)? {
                return Ok(Some(sets));
            }
            if self.ended {
                return Ok(None);
            }
            if self.read.len() >= SCAN_LIMIT {
                return Err(bad(ParseError::new(format!(
                    "no sequence parameter set in the first {} MiB",
                    SCAN_LIMIT >> 20
                ))));
            }
            let want = self.read.len().max(64 << 10) as u64;
            let n = (&mut self.source)
                .take(want)
                .read_to_end(&mut self.read)
                .map_err(|e| VideoError::io(path, None, e))?;
            self.ended = (n as u64) < want;
        }
    }

    /// Waits for ffmpeg, once its output has ended: an error with the
    /// last line it printed if it failed.
    fn finish_child(&mut self) -> Result<()> {
        let Some(child) = self.child.take() else { return Ok(()) };
        let output = child.wait_with_output().map_err(|e| VideoError::io(&self.path, None, e))?;
        if output.status.success() {
            return Ok(());
        }
        Err(VideoError::Ffmpeg {
            path: Shown::new(&self.path),
            frame: None,
            message: last_line(&String::from_utf8_lossy(&output.stderr)),
        })
    }
}

impl Drop for AnnexBReader {
    /// A child not read to its end is stopped: the rest of the file is
    /// not wanted.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn no_sps(path: &Path, codec: Codec, what: &str) -> VideoError {
    VideoError::Bitstream {
        path: Shown::new(path),
        codec: codec.name(),
        reason: format!("{what} has no sequence parameter set"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names() {
        // H.264 Table A-1 and H.265 Table A.8 (A.9 in later editions) name levels so.
        assert_eq!(Codec::H264.level_name(9), "1b");
        assert_eq!(Codec::H264.level_name(30), "3");
        assert_eq!(Codec::H264.level_name(51), "5.1");
        assert_eq!(Codec::H265.level_name(93), "3.1");
        assert_eq!(Codec::H265.level_name(120), "4");
        assert_eq!(Codec::H265.level_name(186), "6.2");
    }

    #[test]
    fn codec_from_extension() {
        assert_eq!(Codec::from_extension(Path::new("a.264")), Some(Codec::H264));
        assert_eq!(Codec::from_extension(Path::new("a.H264")), Some(Codec::H264));
        assert_eq!(Codec::from_extension(Path::new("a.hevc")), Some(Codec::H265));
        assert_eq!(Codec::from_extension(Path::new("a.h265")), Some(Codec::H265));
        assert_eq!(Codec::from_extension(Path::new("a.mp4")), None);
        assert_eq!(Codec::from_extension(Path::new("h264")), None);
    }

    #[test]
    fn an_endless_stream_without_sps_gives_up() {
        let over = |source: Box<dyn Read + Send>| {
            AnnexBReader::over(Path::new("s.hevc"), Codec::H265, source)
        };
        let err = over(Box::new(std::io::repeat(0xff))).scan().unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.hevc: H.265 stream: no sequence parameter set in the first 16 MiB"
        );
        // A stream that ends without one is `None`, for the caller to name.
        assert!(over(Box::new(&[0u8, 0, 1, 0x02, 1][..])).scan().unwrap().is_none());
    }

    #[test]
    fn waits_for_the_sps_to_be_whole() {
        // An SPS header and one byte, then (later) the next start code.
        let partial = [0, 0, 0, 1, 0x67, 100];
        assert_eq!(parameter_sets(&partial, Codec::H264, false), Ok(None));
        // Whole but cut short: a parse error, not a wait.
        assert!(parameter_sets(&partial, Codec::H264, true).is_err());
        // Nothing that looks like an SPS.
        assert_eq!(parameter_sets(&[0, 0, 1, 0x09, 0x10], Codec::H264, true), Ok(None));
    }
}
