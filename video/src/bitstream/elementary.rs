//! The parameter sets of an input file. Raw Annex B files (`.h264`, `.264`,
//! `.h265`, `.265`, `.hevc`) are read directly; containers (mp4, mkv, …)
//! through `ffmpeg -c:v copy` with the `*_mp4toannexb` filter, which only
//! rewrites length-prefixed NAL units as Annex B and decodes nothing, so it
//! costs little more than reading the file. Either way reading stops at the
//! first SPS: the child is killed there, a long file is never read through.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

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
    if let Some(codec) = Codec::from_extension(path) {
        let file = std::fs::File::open(path)
            .map_err(|source| VideoError::Open { path: Shown::new(path), source })?;
        return scan(file, codec, path)?.ok_or_else(|| no_sps(path, codec, "the file"));
    }
    let probed = probe(path, tools)?;
    let codec = match probed.codec.as_str() {
        "h264" => Codec::H264,
        "hevc" => Codec::H265,
        other => {
            return Err(VideoError::Unsupported {
                path: Shown::new(path),
                reason: format!("{other} video: device decode covers H.264 and H.265 only"),
            });
        }
    };
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
    let found = scan(stdout, codec, path);
    if !matches!(found, Ok(None)) {
        // Done with it (found, or given up): the rest of the file is never
        // read. An error here means it already exited, which is as good.
        let _ = child.kill();
    }
    let output = child.wait_with_output().map_err(|e| VideoError::io(path, None, e))?;
    match found? {
        Some(sets) => Ok(sets),
        None if !output.status.success() => Err(VideoError::Ffmpeg {
            path: Shown::new(path),
            frame: None,
            message: last_line(&String::from_utf8_lossy(&output.stderr)),
        }),
        None => Err(no_sps(path, codec, "ffmpeg's Annex B output")),
    }
}

/// Reads `reader` until the first SPS is whole; `None` when it ends first.
/// Each read takes as much as has been read so far (64 KiB at first), so
/// scanning the growing buffer again after each read stays linear overall.
fn scan(mut reader: impl Read, codec: Codec, path: &Path) -> Result<Option<ParameterSets>> {
    let bad = |e: ParseError| VideoError::Bitstream {
        path: Shown::new(path),
        codec: codec.name(),
        reason: e.to_string(),
    };
    let mut stream = Vec::new();
    loop {
        let want = stream.len().max(64 << 10) as u64;
        let n = (&mut reader)
            .take(want)
            .read_to_end(&mut stream)
            .map_err(|e| VideoError::io(path, None, e))?;
        let at_end = (n as u64) < want;
        if let Some(sets) = parameter_sets(&stream, codec, at_end).map_err(bad)? {
            return Ok(Some(sets));
        }
        if at_end {
            return Ok(None);
        }
        if stream.len() >= SCAN_LIMIT {
            return Err(bad(ParseError::new(format!(
                "no sequence parameter set in the first {} MiB",
                SCAN_LIMIT >> 20
            ))));
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
        let err = scan(std::io::repeat(0xff), Codec::H265, Path::new("s.hevc")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.hevc: H.265 stream: no sequence parameter set in the first 16 MiB"
        );
        // A stream that ends without one is `None`, for the caller to name.
        assert!(scan(&[0u8, 0, 1, 0x02, 1][..], Codec::H265, Path::new("s")).unwrap().is_none());
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
