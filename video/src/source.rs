//! One door for every input: [`open_input`] picks the y4m, raw or ffmpeg
//! reader from the path, the user's raw geometry and the file's first bytes,
//! and hands back a [`VideoSource`] that the rest of vqscope uses without
//! caring which it is.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Result, Shown, VideoError};
use crate::ffmpeg::{FfmpegSource, FfmpegTools};
use crate::frame::{ColorInfo, Frame, Geometry, Rational};
use crate::input::{Assumed, DecodedBy, SourceInfo, VideoSource};
use crate::raw::{RawFile, RawGeometry, RawStream};
use crate::scale::{FrameScale, SCALE_NAME};
use crate::y4m::{Y4mFile, Y4mStream};

/// Refuses inputs that are one stream given twice: `-` (stdin) twice, or
/// the same pipe or device under two names (`-r - -d /dev/stdin`, one FIFO
/// as both inputs). Two readers would each get part of the stream, and the
/// second usually reports an empty or damaged file. Call it with every
/// input before opening any (opening reads the header). Regular files may
/// appear more than once; paths that cannot be looked up are left to
/// [`open_input`] to report.
pub fn check_stream_inputs(paths: &[&Path]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut stdin_given = false;
    let mut streams: Vec<(&Path, (u64, u64))> = Vec::new();
    for &path in paths {
        let meta = if path.as_os_str() == "-" {
            if stdin_given {
                return Err(VideoError::SameStream(
                    "stdin (`-`) is given as two inputs, but it can be read only once: save \
                     one of them to a file"
                        .into(),
                ));
            }
            stdin_given = true;
            stdin_metadata()
        } else {
            std::fs::metadata(path).ok()
        };
        let Some(meta) = meta.filter(|m| !m.is_file() && !m.is_dir()) else {
            continue;
        };
        let id = (meta.dev(), meta.ino());
        if let Some((first, _)) = streams.iter().find(|(_, other)| *other == id) {
            return Err(VideoError::SameStream(format!(
                "{} and {} are the same stream (a pipe or device), which can be read only \
                 once: save it to a file",
                Shown::new(first),
                Shown::new(path),
            )));
        }
        streams.push((path, id));
    }
    Ok(())
}

/// What stdin is (a pipe, a file, a terminal), from a duplicate of its
/// descriptor.
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

/// Opens `path` (`-` = stdin). Raw geometry, when given, forces the raw
/// reader; otherwise a `.yuv` extension asks for it, the `YUV4MPEG2` magic
/// selects the y4m reader, and any other file is decoded on the device or
/// by ffmpeg as [`crate::set_decode_choice`] says.
pub fn open_input(path: &Path, raw: Option<RawGeometry>) -> Result<Box<dyn VideoSource>> {
    if path.as_os_str() == "-" {
        let stdin: Box<dyn Read + Send> = Box::new(std::io::stdin());
        return open_stream(path, stdin, raw);
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if raw.is_none() && ext.as_deref() == Some("yuv") {
        return Err(VideoError::Unsupported {
            path: Shown::new(path),
            reason: "raw .yuv needs its width, height, pixel format and bit depth".into(),
        });
    }
    let file =
        File::open(path).map_err(|e| VideoError::Open { path: Shown::new(path), source: e })?;
    let meta = file.metadata().map_err(|e| VideoError::io(path, None, e))?;
    if !meta.is_file() {
        // A FIFO or character device: read it as a stream.
        return open_stream(path, Box::new(file), raw);
    }
    if let Some(raw) = raw {
        let inner = RawFile::open(path, raw)?;
        let info = SourceInfo {
            path: path.to_path_buf(),
            geometry: inner.geometry(),
            color: ColorInfo::default(),
            frame_rate: Rational::new(25, 1),
            frame_count: Some(inner.frame_count()),
            seekable: true,
            description: "raw yuv".into(),
            scaled_from: None,
            frames_at: None,
        };
        return Ok(Box::new(RawFileSource { inner, info }));
    }
    let magic = file_magic(&file).map_err(|e| VideoError::io(path, None, e))?;
    drop(file);
    if magic.is_empty() {
        return Err(VideoError::Empty { path: Shown::new(path) });
    }
    if magic == b"YUV4MPEG2" {
        let inner = Y4mFile::open(path)?;
        let h = inner.header();
        let info = SourceInfo {
            path: path.to_path_buf(),
            geometry: h.geometry(),
            color: h.color,
            frame_rate: h.frame_rate,
            frame_count: Some(inner.frame_count()),
            seekable: true,
            description: h.describe(),
            scaled_from: None,
            frames_at: None,
        };
        return Ok(Box::new(Y4mFileSource { inner, info }));
    }
    if ext.as_deref() == Some("y4m") {
        return Err(VideoError::BadMagic {
            path: Shown::new(path),
            found: crate::lines::excerpt(&magic),
        });
    }
    crate::device_source::open_compressed(path)
}

/// The first bytes of a file, enough to tell y4m (`YUV4MPEG2`) from what a
/// decoder must read.
fn file_magic(file: &File) -> std::io::Result<Vec<u8>> {
    let mut magic = Vec::with_capacity(9);
    file.take(9).read_to_end(&mut magic)?;
    Ok(magic)
}

/// Whether [`open_input`] may hand `path` to a decoder (ffmpeg or the
/// device's), which may then make the decoding GPU context: not for stdin,
/// pipes, raw yuv (`raw`), y4m, or a file it cannot read (it fails
/// instead). A command makes its own context while such inputs open.
pub fn may_need_a_decoder(path: &Path, raw: bool) -> bool {
    // Only a regular file is opened here: opening a FIFO would wait for
    // its writer, and closing it again would cut the writer off.
    if raw || path.as_os_str() == "-" || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(file) = File::open(path) else { return false };
    file_magic(&file).is_ok_and(|magic| !magic.is_empty() && magic != b"YUV4MPEG2")
}

/// Opens the distorted input `path` with frames of `target`'s size and
/// pixel format: as it is when it already has them, else decoded by ffmpeg
/// scaled to that size with the `scale` filter, bicubic ([`SWS_FLAGS`]),
/// and converted to that format, as people run `ffmpeg -vf scale=W:H` on an
/// encode made at another resolution before libvmaf. Only files can be
/// scaled so: stdin and raw input are refused when they do not fit already.
///
/// [`SWS_FLAGS`]: crate::scale::SWS_FLAGS
pub fn open_scaled_to(
    path: &Path,
    raw: Option<RawGeometry>,
    target: &Geometry,
) -> Result<Box<dyn VideoSource>> {
    let source = open_input(path, raw)?;
    if source.info().geometry == *target {
        return Ok(source);
    }
    with_ffmpeg_scale(path, raw, source, target)
}

/// `source` (of `path`, another geometry than `target`) reopened by ffmpeg
/// scaled and converted to `target`; refused for what cannot be reopened.
fn with_ffmpeg_scale(
    path: &Path,
    raw: Option<RawGeometry>,
    source: Box<dyn VideoSource>,
    target: &Geometry,
) -> Result<Box<dyn VideoSource>> {
    let g = source.info().geometry;
    drop(source);
    if path.as_os_str() == "-" || raw.is_some() || !path.is_file() {
        return Err(VideoError::Unsupported {
            path: Shown::new(path),
            reason: format!(
                "it is {}x{} {} and the reference {}x{} {}; only a file can be scaled to the \
                 reference's size, not stdin, a pipe or raw input",
                g.width,
                g.height,
                g.format.ffmpeg_name(),
                target.width,
                target.height,
                target.format.ffmpeg_name()
            ),
        });
    }
    let scaled = FfmpegSource::open_scaled(path, FfmpegTools::default(), target)?;
    Ok(Box::new(
        scaled.decoded_by_ffmpeg_because("ffmpeg scales it to the reference's size".into()),
    ))
}

/// Opens the distorted input `path` for scoring against a reference of
/// `target`'s geometry with `--scale-distorted`: as it is when it fits; read
/// at its own size (a compressed one decoded by ffmpeg at that size) when
/// only the size differs and [`FrameScale`] takes it, its info saying
/// `target`'s geometry with [`SourceInfo::frames_at`] its own, for the
/// scorer to scale each frame on the GPU; otherwise (another pixel format
/// too) scaled and converted by ffmpeg as [`open_scaled_to`] does.
pub fn open_to_scale(
    path: &Path,
    raw: Option<RawGeometry>,
    target: &Geometry,
) -> Result<Box<dyn VideoSource>> {
    let source = open_input(path, raw)?;
    let own = source.info().geometry;
    if own == *target {
        return Ok(source);
    }
    if FrameScale::new(own, *target).is_err() {
        return with_ffmpeg_scale(path, raw, source, target);
    }
    let mut info = source.info().clone();
    info.description.push_str(&format!(
        ", scaled from {}x{} to {}x{} on the GPU ({SCALE_NAME})",
        own.width, own.height, target.width, target.height
    ));
    info.geometry = *target;
    info.scaled_from = Some((own.width, own.height));
    info.frames_at = Some(own);
    Ok(Box::new(ToScale { inner: source, info }))
}

/// An input read at its own size whose info describes it at the size the
/// GPU scales it to ([`open_to_scale`]).
struct ToScale {
    inner: Box<dyn VideoSource>,
    info: SourceInfo,
}

impl VideoSource for ToScale {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        self.inner.read_frame(index)
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        self.inner.next_frame()
    }

    fn reopen(&self) -> Option<Result<Box<dyn VideoSource>>> {
        let info = self.info.clone();
        self.inner.reopen().map(|inner| {
            inner.map(|inner| Box::new(ToScale { inner, info }) as Box<dyn VideoSource>)
        })
    }

    fn end_warning(&self) -> Option<String> {
        self.inner.end_warning()
    }

    fn assumed(&self) -> Assumed {
        self.inner.assumed()
    }

    fn decoded_by(&self) -> Option<DecodedBy> {
        self.inner.decoded_by()
    }
}

fn open_stream(
    path: &Path,
    reader: Box<dyn Read + Send>,
    raw: Option<RawGeometry>,
) -> Result<Box<dyn VideoSource>> {
    let (inner, geometry, color, frame_rate, description) = match raw {
        Some(raw) => {
            let s = RawStream::new(reader, path, raw)?;
            let g = s.geometry();
            (
                Stream::Raw(s),
                g,
                ColorInfo::default(),
                Rational::new(25, 1),
                "raw yuv (stream)".to_string(),
            )
        }
        None => {
            let s = Y4mStream::new(reader, path)?;
            let h = s.header().clone();
            (
                Stream::Y4m(s),
                h.geometry(),
                h.color,
                h.frame_rate,
                format!("{} (stream)", h.describe()),
            )
        }
    };
    let info = SourceInfo {
        path: path.to_path_buf(),
        geometry,
        color,
        frame_rate,
        frame_count: None,
        seekable: false,
        description,
        scaled_from: None,
        frames_at: None,
    };
    Ok(Box::new(StreamSource { inner, info }))
}

struct Y4mFileSource {
    inner: Y4mFile,
    info: SourceInfo,
}

impl VideoSource for Y4mFileSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }
    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        let f = self.inner.read_frame(index);
        // The index may have been rebuilt (FRAME lines with parameters).
        self.info.frame_count = Some(self.inner.frame_count());
        f
    }
    fn next_frame(&mut self) -> Result<Option<Frame>> {
        let f = self.inner.next_frame();
        self.info.frame_count = Some(self.inner.frame_count());
        f
    }
    fn reopen(&self) -> Option<Result<Box<dyn VideoSource>>> {
        Some(self.inner.reopen().map(|inner| {
            Box::new(Y4mFileSource { inner, info: self.info.clone() }) as Box<dyn VideoSource>
        }))
    }
    fn assumed(&self) -> Assumed {
        self.inner.header().assumed
    }
}

struct RawFileSource {
    inner: RawFile,
    info: SourceInfo,
}

impl VideoSource for RawFileSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }
    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        self.inner.read_frame(index)
    }
    fn next_frame(&mut self) -> Result<Option<Frame>> {
        self.inner.next_frame()
    }
    fn reopen(&self) -> Option<Result<Box<dyn VideoSource>>> {
        Some(self.inner.reopen().map(|inner| {
            Box::new(RawFileSource { inner, info: self.info.clone() }) as Box<dyn VideoSource>
        }))
    }
    fn assumed(&self) -> Assumed {
        Assumed::ALL
    }
}

enum Stream {
    Y4m(Y4mStream<Box<dyn Read + Send>>),
    Raw(RawStream<Box<dyn Read + Send>>),
}

/// A forward-only input; the frame count becomes known at its end.
struct StreamSource {
    inner: Stream,
    info: SourceInfo,
}

impl StreamSource {
    fn position(&self) -> u64 {
        match &self.inner {
            Stream::Y4m(s) => s.position(),
            Stream::Raw(s) => s.position(),
        }
    }
}

impl VideoSource for StreamSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn assumed(&self) -> Assumed {
        match &self.inner {
            Stream::Y4m(s) => s.header().assumed,
            Stream::Raw(_) => Assumed::ALL,
        }
    }

    fn read_frame(&mut self, index: u64) -> Result<Frame> {
        let position = self.position();
        if index < position {
            return Err(VideoError::NotSeekable {
                path: Shown::new(&self.info.path),
                frame: index,
                position,
            });
        }
        while self.position() < index {
            let more = match &mut self.inner {
                Stream::Y4m(s) => s.skip_frame()?,
                Stream::Raw(s) => s.next_frame()?.is_some(),
            };
            if !more {
                break;
            }
        }
        match self.next_frame()? {
            Some(f) if f.index == index => Ok(f),
            _ => Err(VideoError::FrameOutOfRange {
                path: Shown::new(&self.info.path),
                frame: index,
                count: self.position(),
            }),
        }
    }

    fn next_frame(&mut self) -> Result<Option<Frame>> {
        let f = match &mut self.inner {
            Stream::Y4m(s) => s.next_frame()?,
            Stream::Raw(s) => s.next_frame()?,
        };
        if f.is_none() {
            self.info.frame_count = Some(self.position());
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A one-frame 2x2 4:2:0 file with `header` after the magic.
    fn y4m(name: &str, header: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vqscope-info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let mut data = format!("YUV4MPEG2 {header}\nFRAME\n").into_bytes();
        data.extend_from_slice(&[16; 6]);
        std::fs::write(&path, data).unwrap();
        path
    }

    fn shown(path: &Path, raw: Option<RawGeometry>) -> String {
        let source = open_input(path, raw).unwrap();
        source.info().display(source.assumed()).to_string()
    }

    fn line<'a>(text: &'a str, key: &str) -> &'a str {
        text.lines().find(|l| l.trim_start().starts_with(key)).unwrap_or_else(|| panic!("{text}"))
    }

    #[test]
    fn defaults_are_marked_as_assumed() {
        let untagged = shown(&y4m("untagged.y4m", "W2 H2"), None);
        assert_eq!(
            line(&untagged, "colour:"),
            "  colour:       BT.709 limited range (assumed: not tagged)"
        );
        assert_eq!(
            line(&untagged, "frame rate:"),
            "  frame rate:   25/1 (25.000 fps, assumed: not stated in the input)"
        );
        let unknown_rate = shown(&y4m("f00.y4m", "W2 H2 F0:0 XCOLORRANGE=LIMITED"), None);
        assert!(line(&unknown_rate, "frame rate:").contains("assumed"), "{unknown_rate}");
        assert_eq!(
            line(&unknown_rate, "colour:"),
            "  colour:       BT.709 limited range (matrix assumed: not tagged)"
        );
        let tagged =
            shown(&y4m("tagged.y4m", "W2 H2 F30:1 XCOLORRANGE=FULL XCOLORMATRIX=BT709"), None);
        assert!(!tagged.contains("assumed"), "{tagged}");
        assert_eq!(line(&tagged, "colour:"), "  colour:       BT.709 full range");
        assert_eq!(line(&tagged, "frame rate:"), "  frame rate:   30/1 (30.000 fps)");
    }

    #[test]
    fn raw_yuv_states_nothing() {
        let dir = std::env::temp_dir().join(format!("vqscope-info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("clip.yuv");
        std::fs::write(&path, [16u8; 6]).unwrap();
        let raw =
            RawGeometry { width: 2, height: 2, chroma: crate::ChromaFormat::Yuv420, bit_depth: 8 };
        let text = shown(&path, Some(raw));
        assert!(
            line(&text, "frame rate:").ends_with("(25.000 fps, assumed: not stated in the input)")
        );
        assert!(line(&text, "colour:").ends_with("(assumed: not tagged)"), "{text}");
        // Plain Display (callers that cannot tell) states no assumption.
        let source = open_input(&path, Some(raw)).unwrap();
        assert!(!source.info().to_string().contains("assumed"));
    }

    /// Only inputs that a decoder would read count: the command makes its
    /// own GPU context early for the rest.
    #[test]
    fn only_compressed_files_may_need_a_decoder() {
        let dir = std::env::temp_dir().join(format!("vqscope-info-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mp4 = dir.join("clip.mp4");
        std::fs::write(&mp4, b"\0\0\0\x18ftypisom").unwrap();
        let empty = dir.join("empty.mp4");
        std::fs::write(&empty, b"").unwrap();
        assert!(may_need_a_decoder(&mp4, false));
        // Raw geometry given: read as raw yuv whatever the bytes.
        assert!(!may_need_a_decoder(&mp4, true));
        assert!(!may_need_a_decoder(&y4m("plain.y4m", "W2 H2"), false));
        assert!(!may_need_a_decoder(Path::new("-"), false));
        // Errors come from opening, not from a decoder.
        assert!(!may_need_a_decoder(&empty, false));
        assert!(!may_need_a_decoder(&dir.join("missing.mp4"), false));
        assert!(!may_need_a_decoder(&dir, false));
        // A FIFO is not opened (that would wait for a writer): a test that
        // hangs here has opened it.
        let fifo = dir.join("pipe.y4m");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        assert!(!may_need_a_decoder(&fifo, false));
    }
}
