//! Every container we do not parse ourselves (mp4, mkv, webm, ivf, …) is
//! decoded by an `ffmpeg` child process writing y4m to a pipe, which
//! [`Y4mStream`] reads. `ffprobe` supplies what y4m cannot carry: the
//! colour matrix and range, the codec name and the stored frame count.
//!
//! The output keeps the source's chroma layout and bit depth (`yuv420p10le`
//! stays `yuv420p10le`; semi-planar and packed layouts such as `nv12` or
//! `p010le` are unpacked to the planar format with the same samples), so
//! ffmpeg performs no scaling or dithering and the frames are bit-identical
//! to `ffmpeg -i X -f yuv4mpegpipe`. Layouts y4m cannot hold (RGB, 4:1:1,
//! 4:4:0) are converted by ffmpeg and the description says so.
//!
//! The one exception is asked for: [`FfmpegSource::open_scaled`] conforms an
//! input of another size or format to the reference's with ffmpeg's `scale`
//! filter, bicubic as its default, as people run `ffmpeg -vf scale=W:H`
//! before libvmaf; the description says that too. It asks swscale for its C
//! rounding ([`SWS_FLAGS`]): at 8 bits the bytes are then those of the GPU
//! scale ([`crate::scale`]), not those of ffmpeg's faster x86 rounding.
//!
//! # Seeking
//!
//! Two ways to land on frame `i` of a compressed stream:
//! * restart ffmpeg with `-ss t` before `-i`: fast (decodes from the
//!   keyframe before `t`), but `t` is a timestamp, and mapping a frame index
//!   to a timestamp is exact only for constant-rate streams with a known
//!   start time; variable frame rate, edit lists and B-frame delays make it
//!   land a frame or two off, which silently misaligns reference and
//!   distorted;
//! * restart from frame 0 and discard `i` decoded frames: always exact,
//!   costs decoding time proportional to `i`.
//!
//! We take the exact one: going forward continues the running decoder
//! (skipping frames as needed), going backward restarts from 0 and skips.
//! A small cache of the most recently decoded frames (64 MiB, at least two
//! frames) makes the common case of stepping back a frame or two instant.
//! A keyframe index (from `ffprobe -show_packets`) would make far jumps
//! fast without giving up exactness; it is the next step if players need it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::error::{Result, Shown, VideoError};
use crate::frame::{
    ChromaFormat, ColorInfo, ColorMatrix, ColorRange, Frame, Geometry, Rational, Transfer,
};
use crate::input::{Assumed, DecodedBy, FFMPEG_READER, SourceInfo, VideoSource};
use crate::scale::SWS_FLAGS;
use crate::y4m::Y4mStream;

/// Bytes of decoded frames kept for stepping backwards.
const CACHE_BYTES: usize = 64 << 20;

/// Which programs to run; [`Default`] finds `ffmpeg` and `ffprobe` on PATH.
#[derive(Debug, Clone)]
pub struct FfmpegTools {
    pub ffmpeg: PathBuf,
    pub ffprobe: PathBuf,
}

impl Default for FfmpegTools {
    fn default() -> Self {
        FfmpegTools { ffmpeg: "ffmpeg".into(), ffprobe: "ffprobe".into() }
    }
}

/// What ffprobe reports for the first video stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probe {
    pub codec: String,
    pub pix_fmt: String,
    pub width: u32,
    pub height: u32,
    pub color_space: String,
    pub color_range: String,
    pub color_transfer: String,
    pub nb_frames: Option<u64>,
    pub format_name: String,
    /// `r_frame_rate`, when the stream states one.
    pub frame_rate: Option<Rational>,
}

/// Parses ffprobe's `key=value` lines.
pub fn parse_probe(text: &str) -> Probe {
    let mut p = Probe::default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = v.trim();
        match k.trim() {
            "codec_name" => p.codec = v.into(),
            "pix_fmt" => p.pix_fmt = v.into(),
            "width" => p.width = v.parse().unwrap_or(0),
            "height" => p.height = v.parse().unwrap_or(0),
            "color_space" => p.color_space = v.into(),
            "color_range" => p.color_range = v.into(),
            "color_transfer" => p.color_transfer = v.into(),
            "nb_frames" => p.nb_frames = v.parse().ok().filter(|&n| n > 0),
            "format_name" => p.format_name = v.into(),
            "r_frame_rate" => {
                p.frame_rate = v
                    .split_once('/')
                    .and_then(|(n, d)| Some(Rational::new(n.parse().ok()?, d.parse().ok()?)))
                    .filter(|r| r.num > 0 && r.den > 0)
            }
            _ => {}
        }
    }
    p
}

/// The planar pixel format ffmpeg should emit for a source `pix_fmt`, and
/// whether that is a real conversion (not just unpacking the same samples).
pub fn output_pix_fmt(src: &str) -> (String, bool) {
    let name = src.trim_end_matches("le").trim_end_matches("be");
    let planar = |c: ChromaFormat, depth: u32| -> String {
        crate::frame::PixelFormat { chroma: c, bit_depth: depth }.ffmpeg_name()
    };
    use ChromaFormat::*;
    let same = |c, d| (planar(c, d), false);
    match name {
        "nv12" | "nv21" => return same(Yuv420, 8),
        "nv16" | "yuyv422" | "uyvy422" | "yvyu422" => return same(Yuv422, 8),
        "nv24" | "nv42" => return same(Yuv444, 8),
        "p010" => return same(Yuv420, 10),
        "p012" => return same(Yuv420, 12),
        "p016" => return same(Yuv420, 16),
        "p210" | "y210" => return same(Yuv422, 10),
        "p216" => return same(Yuv422, 16),
        "p410" => return same(Yuv444, 10),
        "p416" => return same(Yuv444, 16),
        "gray" | "ya8" => return same(Mono, 8),
        _ => {}
    }
    if let Some(d) = name.strip_prefix("gray")
        && let Ok(depth @ 9..=16) = d.parse::<u32>()
    {
        return same(Mono, depth);
    }
    for prefix in ["yuva", "yuvj", "yuv"] {
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let chroma = match rest.get(..4) {
            Some("420p") => Yuv420,
            Some("422p") => Yuv422,
            Some("444p") => Yuv444,
            _ => break,
        };
        let depth = if rest.len() == 4 {
            Some(8)
        } else {
            rest[4..].parse::<u32>().ok().filter(|d| (9..=16).contains(d))
        };
        if let Some(depth) = depth {
            return same(chroma, depth);
        }
    }
    // Anything else needs a real conversion; keep as much as y4m can hold.
    let depth = if ["10", "12"].iter().any(|d| name.contains(d)) {
        if name.contains("12") { 12 } else { 10 }
    } else if ["16", "48", "64"].iter().any(|d| name.contains(d)) {
        16
    } else {
        8
    };
    let rgb =
        ["rgb", "bgr", "gbr", "argb", "abgr", "x2rgb", "x2bgr"].iter().any(|p| name.starts_with(p));
    let chroma = if rgb || name.contains("440") {
        Yuv444
    } else if name.contains("411") {
        Yuv422
    } else {
        Yuv420
    };
    (planar(chroma, depth), true)
}

/// Colour from ffprobe's tags; unknown tags keep the BT.709 limited default,
/// except that JPEG-range (`yuvj…`) formats are full range.
/// Which of [`probe_color`]'s values are defaults: the stream does not tag
/// them (ffmpeg's y4m output always states the frame rate).
pub fn probe_assumed(p: &Probe) -> Assumed {
    let tagged = |v: &str, known: &[&str]| known.contains(&v);
    Assumed {
        frame_rate: false,
        matrix: !tagged(
            &p.color_space,
            &["bt470bg", "smpte170m", "fcc", "bt2020nc", "bt2020c", "bt709"],
        ),
        range: !tagged(&p.color_range, &["pc", "jpeg", "tv", "mpeg"])
            && !p.pix_fmt.starts_with("yuvj"),
    }
}

pub fn probe_color(p: &Probe) -> ColorInfo {
    let matrix = match p.color_space.as_str() {
        "bt470bg" | "smpte170m" | "fcc" => ColorMatrix::Bt601,
        "bt2020nc" | "bt2020c" => ColorMatrix::Bt2020,
        _ => ColorMatrix::Bt709,
    };
    let range = match p.color_range.as_str() {
        "pc" | "jpeg" => ColorRange::Full,
        "tv" | "mpeg" => ColorRange::Limited,
        _ if p.pix_fmt.starts_with("yuvj") => ColorRange::Full,
        _ => ColorRange::Limited,
    };
    let transfer = Transfer::from_name(&p.color_transfer).unwrap_or_default();
    ColorInfo { matrix, range, transfer }
}

/// The error for a tool that cannot be started: missing from PATH, or failing to run.
pub(crate) fn missing(path: &Path, program: &Path, e: std::io::Error) -> VideoError {
    if e.kind() == std::io::ErrorKind::NotFound {
        VideoError::FfmpegMissing { path: Shown::new(path), program: program.display().to_string() }
    } else {
        VideoError::Ffmpeg {
            path: Shown::new(path),
            frame: None,
            message: format!("cannot run {}: {e}", program.display()),
        }
    }
}

/// `path` as ffmpeg and ffprobe must be given it: a `file:` URL with an
/// absolute or `./`-prefixed path, so that a name with a colon (`a:b.mp4`)
/// is not taken for a protocol and one starting with `-` not for an option.
pub fn file_url(path: &Path) -> OsString {
    let mut url = OsString::from("file:");
    if !path.is_absolute() {
        url.push("./");
    }
    url.push(path.as_os_str());
    url
}

/// Last meaningful line of a tool's stderr, for a one-line error.
pub(crate) fn last_line(text: &str) -> String {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no message").to_string()
}

/// Runs ffprobe on the first video stream of `path`.
pub fn probe(path: &Path, tools: &FfmpegTools) -> Result<Probe> {
    let out = Command::new(&tools.ffprobe)
        .args(["-v", "error", "-select_streams", "v:0", "-show_entries"])
        .arg("stream=codec_name,width,height,pix_fmt,color_space,color_range,color_transfer,nb_frames,r_frame_rate:format=format_name")
        .args(["-of", "default=noprint_wrappers=1"])
        .arg(file_url(path))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(path, &tools.ffprobe, e))?;
    if !out.status.success() {
        return Err(VideoError::Ffmpeg {
            path: Shown::new(path),
            frame: None,
            message: format!(
                "ffprobe cannot read it: {}",
                last_line(&String::from_utf8_lossy(&out.stderr))
            ),
        });
    }
    let p = parse_probe(&String::from_utf8_lossy(&out.stdout));
    if p.pix_fmt.is_empty() {
        return Err(VideoError::Unsupported {
            path: Shown::new(path),
            reason: "no video stream (or ffprobe does not know its pixel format)".into(),
        });
    }
    Ok(p)
}

/// One running decoder.
struct Running {
    child: Child,
    stream: Y4mStream<ChildStdout>,
    stderr: Option<JoinHandle<()>>,
    stderr_text: Arc<Mutex<String>>,
}

impl Running {
    /// Stops the child (if still running) and returns how it ended plus the
    /// tail of what it printed.
    fn finish(mut self, kill: bool) -> (Option<ExitStatus>, String) {
        if kill {
            let _ = self.child.kill();
        }
        // Closing our end first lets a child blocked on a full pipe exit.
        drop(self.stream.into_inner());
        let status = self.child.wait().ok();
        if let Some(t) = self.stderr.take() {
            let _ = t.join();
        }
        let text = self.stderr_text.lock().map(|t| t.clone()).unwrap_or_default();
        (status, text)
    }
}

/// An input decoded by ffmpeg.
pub struct FfmpegSource {
    tools: FfmpegTools,
    out_pix_fmt: String,
    /// Size to scale to (`-vf scale=W:H`), when conforming to a reference.
    scale_to: Option<(u32, u32)>,
    info: SourceInfo,
    running: Option<Running>,
    /// Index the running decoder produces next.
    next: u64,
    /// Index `next_frame` returns next.
    cursor: u64,
    cache: VecDeque<Frame>,
    /// The frame count ffprobe read from the container, if any.
    announced: Option<u64>,
    /// Set when decoding ended cleanly before `announced` frames: the
    /// warning [`VideoSource::end_warning`] gives.
    shortfall: Option<String>,
    /// What the stream does not tag.
    assumed: Assumed,
    /// Why the device does not decode it, when that was considered.
    not_on_device: Option<String>,
}

impl FfmpegSource {
    /// Probes `path` and starts decoding it with ffmpeg from PATH.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, FfmpegTools::default())
    }

    pub fn open_with(path: &Path, tools: FfmpegTools) -> Result<Self> {
        Self::open_as(path, tools, None)
    }

    /// Probes `path` and decodes it scaled to `target`'s size and converted
    /// to its pixel format by ffmpeg (`-vf scale=W:H`, bicubic: the
    /// filter's default), for a distorted input made at another resolution.
    /// The description names the size and format it was scaled from.
    pub fn open_scaled(path: &Path, tools: FfmpegTools, target: &Geometry) -> Result<Self> {
        Self::open_as(path, tools, Some(target))
    }

    fn open_as(path: &Path, tools: FfmpegTools, target: Option<&Geometry>) -> Result<Self> {
        let p = probe(path, &tools)?;
        let (out_pix_fmt, converted) = match target {
            Some(t) => (t.format.ffmpeg_name(), false),
            None => output_pix_fmt(&p.pix_fmt),
        };
        let container = p.format_name.split(',').next().unwrap_or("").to_string();
        let mut description = format!("{} in {container}{FFMPEG_READER}", p.codec);
        if converted {
            description.push_str(&format!(" (converted from {})", p.pix_fmt));
        }
        if let Some(t) = target {
            description.push_str(&format!(
                ", scaled from {}x{} {} to {}x{} {} by ffmpeg's bicubic scale",
                p.width, p.height, p.pix_fmt, t.width, t.height, out_pix_fmt
            ));
        }
        let mut src = FfmpegSource {
            tools,
            out_pix_fmt,
            scale_to: target.map(|t| (t.width, t.height)),
            info: SourceInfo {
                path: path.to_path_buf(),
                geometry: crate::frame::Geometry {
                    width: 0,
                    height: 0,
                    format: crate::frame::PixelFormat {
                        chroma: ChromaFormat::Yuv420,
                        bit_depth: 8,
                    },
                },
                color: probe_color(&p),
                frame_rate: crate::frame::Rational::new(25, 1),
                frame_count: p.nb_frames,
                seekable: true,
                description,
                scaled_from: target.map(|_| (p.width, p.height)),
                frames_at: None,
            },
            running: None,
            next: 0,
            cursor: 0,
            cache: VecDeque::new(),
            announced: p.nb_frames,
            shortfall: None,
            assumed: probe_assumed(&p),
            not_on_device: None,
        };
        src.start()?;
        let h = src.running.as_ref().map(|r| r.stream.header().clone());
        if let Some(h) = h {
            src.info.geometry = h.geometry();
            src.info.frame_rate = h.frame_rate;
        }
        Ok(src)
    }

    /// Records why the device does not decode this input
    /// ([`VideoSource::decoded_by`] says it).
    pub fn decoded_by_ffmpeg_because(mut self, why: String) -> Self {
        self.not_on_device = Some(why);
        self
    }

    fn path(&self) -> &Path {
        &self.info.path
    }

    fn err(&self, frame: Option<u64>, message: String) -> VideoError {
        VideoError::Ffmpeg { path: Shown::new(self.path()), frame, message }
    }

    /// (Re)starts decoding from frame 0.
    fn start(&mut self) -> Result<()> {
        if let Some(r) = self.running.take() {
            r.finish(true);
        }
        let path = self.info.path.clone();
        let mut child = Command::new(&self.tools.ffmpeg)
            .args(["-nostdin", "-hide_banner", "-loglevel", "error", "-i"])
            .arg(file_url(&path))
            .args(["-map", "0:v:0", "-an", "-sn", "-dn"])
            .args(
                self.scale_to
                    .map(|(w, h)| ["-vf".to_string(), format!("scale={w}:{h}:flags={SWS_FLAGS}")])
                    .iter()
                    .flatten(),
            )
            .args(["-vsync", "passthrough", "-f", "yuv4mpegpipe", "-pix_fmt"])
            .arg(&self.out_pix_fmt)
            .args(["-strict", "-1", "-"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| missing(&path, &self.tools.ffmpeg, e))?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(self.err(None, "no pipes to the ffmpeg process".into()));
        };
        let text = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&text);
        // Drain stderr so ffmpeg never blocks on it; keep the tail only.
        let thread = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                if let Ok(mut t) = sink.lock() {
                    t.push_str(&line);
                    t.push('\n');
                    if t.len() > 8192 {
                        let cut = t.len() - 4096;
                        let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                        t.drain(..cut);
                    }
                }
            }
        });
        match Y4mStream::new(stdout, &path) {
            Ok(stream) => {
                self.running =
                    Some(Running { child, stream, stderr: Some(thread), stderr_text: text });
                self.next = 0;
                Ok(())
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = thread.join();
                let said = text.lock().map(|t| t.clone()).unwrap_or_default();
                let message = if said.trim().is_empty() {
                    format!("no y4m output ({e})")
                } else {
                    last_line(&said)
                };
                Err(self.err(None, message))
            }
        }
    }

    /// Decodes the next frame of the running decoder; `None` at the end,
    /// after checking that ffmpeg exited cleanly.
    fn decode_next(&mut self, keep: bool) -> Result<Option<Frame>> {
        let index = self.next;
        let Some(run) = self.running.as_mut() else {
            return Ok(None);
        };
        let got = if keep {
            run.stream.next_frame()
        } else {
            run.stream.skip_frame().map(|more| {
                more.then(|| Frame {
                    geometry: self.info.geometry,
                    color: self.info.color,
                    index,
                    data: Default::default(),
                })
            })
        };
        match got {
            Ok(Some(mut f)) => {
                f.color = self.info.color;
                self.next += 1;
                Ok(Some(f))
            }
            Ok(None) => {
                let (status, text) =
                    self.running.take().map(|r| r.finish(false)).unwrap_or_default();
                if status.is_some_and(|s| s.success()) {
                    self.info.frame_count = Some(index);
                    self.note_shortfall(index, &text);
                    Ok(None)
                } else {
                    Err(self.err(Some(index), last_line(&text)))
                }
            }
            Err(e) => {
                let (_, text) = self.running.take().map(|r| r.finish(true)).unwrap_or_default();
                let message = if text.trim().is_empty() { e.to_string() } else { last_line(&text) };
                Err(self.err(Some(index), message))
            }
        }
    }

    /// Records a warning when ffmpeg ended cleanly after `decoded` frames
    /// though the container announced more (a truncated file: ffmpeg
    /// decodes what is there, complains on stderr and exits 0).
    fn note_shortfall(&mut self, decoded: u64, stderr: &str) {
        let Some(announced) = self.announced.filter(|&a| a > decoded) else {
            return;
        };
        let said = if stderr.trim().is_empty() {
            String::new()
        } else {
            // Without ffmpeg's `[mov,mp4,… @ 0x55…] ` prefix: a pointer
            // that differs from run to run says nothing to the user.
            let line = last_line(stderr);
            let said = match line.split_once(" @ 0x").and_then(|(_, rest)| rest.split_once("] ")) {
                Some((_, said)) if line.starts_with('[') => said.to_string(),
                _ => line,
            };
            format!("; ffmpeg said `{said}`")
        };
        self.shortfall = Some(format!(
            "{}: ffmpeg decoded {decoded} of the {announced} frames its container announces \
             ({} missing: truncated file?){said}",
            Shown::new(self.path()),
            announced - decoded,
        ));
    }

    fn remember(&mut self, f: &Frame) {
        let size = f.data.len().max(1);
        let keep = (CACHE_BYTES / size).max(2);
        while self.cache.len() >= keep {
            self.cache.pop_front();
        }
        self.cache.push_back(f.clone());
    }

    fn out_of_range(&self, index: u64) -> VideoError {
        VideoError::FrameOutOfRange {
            path: Shown::new(self.path()),
            frame: index,
            count: self.info.frame_count.unwrap_or(self.next),
        }
    }
}

impl VideoSource for FfmpegSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn assumed(&self) -> Assumed {
        self.assumed
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        if let Some(f) = self.cache.iter().find(|f| f.index == index) {
            self.cursor = index + 1;
            return Ok(f.clone());
        }
        if self.info.frame_count.is_some_and(|n| index >= n) {
            return Err(self.out_of_range(index));
        }
        if self.running.is_none() || index < self.next {
            self.start()?;
        }
        while self.next < index {
            if self.decode_next(false)?.is_none() {
                return Err(self.out_of_range(index));
            }
        }
        match self.decode_next(true)? {
            Some(f) => {
                self.remember(&f);
                self.cursor = index + 1;
                Ok(f)
            }
            None => Err(self.out_of_range(index)),
        }
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.info.frame_count.is_some_and(|n| self.cursor >= n) {
            return Ok(None);
        }
        match self.read_frame(self.cursor) {
            Ok(f) => Ok(Some(f)),
            Err(VideoError::FrameOutOfRange { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn end_warning(&self) -> Option<String> {
        self.shortfall.clone()
    }

    fn decoded_by(&self) -> Option<DecodedBy> {
        Some(DecodedBy::Ffmpeg(self.not_on_device.clone()))
    }
}

impl Drop for FfmpegSource {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.finish(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pix_fmt_mapping() {
        for (src, out, conv) in [
            ("yuv420p", "yuv420p", false),
            ("yuvj420p", "yuv420p", false),
            ("yuv420p10le", "yuv420p10le", false),
            ("yuv420p10be", "yuv420p10le", false),
            ("yuv422p12le", "yuv422p12le", false),
            ("yuv444p", "yuv444p", false),
            ("yuva420p", "yuv420p", false),
            ("nv12", "yuv420p", false),
            ("p010le", "yuv420p10le", false),
            ("gray", "gray", false),
            ("gray10le", "gray10le", false),
            ("rgb24", "yuv444p", true),
            ("gbrp10le", "yuv444p10le", true),
            ("yuv411p", "yuv422p", true),
        ] {
            assert_eq!(output_pix_fmt(src), (out.to_string(), conv), "{src}");
        }
    }

    #[test]
    fn paths_reach_ffmpeg_as_files() {
        assert_eq!(file_url(Path::new("a:b.mp4")), "file:./a:b.mp4");
        assert_eq!(file_url(Path::new("-x.mp4")), "file:./-x.mp4");
        assert_eq!(file_url(Path::new("../v/c.mkv")), "file:./../v/c.mkv");
        assert_eq!(file_url(Path::new("/tmp/a:b.mp4")), "file:/tmp/a:b.mp4");
    }

    #[test]
    fn probe_parsing_and_colour() {
        let p = parse_probe(
            "codec_name=h264\npix_fmt=yuvj420p\ncolor_space=smpte170m\ncolor_range=unknown\nnb_frames=N/A\nformat_name=mov,mp4,m4a\n",
        );
        assert_eq!(p.codec, "h264");
        assert_eq!(p.nb_frames, None);
        let c = probe_color(&p);
        assert_eq!(c.matrix, ColorMatrix::Bt601);
        assert_eq!(c.range, ColorRange::Full);
        let p = parse_probe(
            "pix_fmt=yuv420p\ncolor_space=bt2020nc\ncolor_range=tv\ncolor_transfer=smpte2084\nnb_frames=12",
        );
        assert_eq!(p.nb_frames, Some(12));
        assert_eq!(
            probe_color(&p),
            ColorInfo {
                matrix: ColorMatrix::Bt2020,
                range: ColorRange::Limited,
                transfer: Transfer::Pq
            }
        );
    }
}
