//! YUV4MPEG2 (y4m): header parsing, sequential reading from any byte
//! stream (pipes, stdin, an ffmpeg child), and random access into files.
//!
//! # What we do with formats libvmaf resamples
//!
//! libvmaf's `vmaf` tool inherits Daala's y4m reader, which converts some
//! 8-bit layouts before scoring: `422` is treated as MPEG-2-sited and its
//! chroma filtered a quarter pixel to JPEG siting, `420paldv` chroma is
//! re-sited to `420jpeg`, `411` is upsampled to 4:2:2, and `mono` becomes
//! 4:2:0 with flat chroma (128). In libvmaf 3.2 the CLI reads frames straight
//! into its pictures (`fetch_into_vmaf_picture`) and *refuses* every format
//! that needs such a conversion; earlier versions scored the converted
//! chroma.
//!
//! vqscope never resamples: frames reach the metrics exactly as stored.
//! `420`, `420jpeg`, `420mpeg2` and `420paldv` are all plain 4:2:0 (siting
//! is recorded in [`ChromaSiting`] for display only), `422` is plain 4:2:2,
//! `mono` is [`ChromaFormat::Mono`] with no chroma planes, `444alpha` drops
//! the alpha plane, and `411` is rejected (convert it with ffmpeg).
//! VMAF and its features (VIF, ADM, motion) and SSIM/MS-SSIM use luma
//! only, so their scores are unaffected by this choice. PSNR's luma term is
//! unaffected too; `psnr_cb`/`psnr_cr` are computed on the stored chroma,
//! so for 8-bit `422`/`420paldv` they can differ from what libvmaf before
//! 3.2 printed (it measured re-sited chroma), and for `mono` there are no
//! chroma planes to measure (older libvmaf compared two flat 128 planes and
//! printed its PSNR ceiling).
//!
//! # Random access
//!
//! A frame is `FRAME[ params]\n` followed by the planes. When the first
//! FRAME line is bare, the remaining size divides evenly and spot checks at
//! 16 frames spread over the file (the last included) find bare FRAME lines
//! where a fixed stride puts them, frame `i` starts at
//! `header_len + i * (6 + frame_len)` and the frame count is the quotient:
//! opening costs 17 tiny reads even for a huge file on a slow disk. Every
//! read checks the bare `FRAME\n` before the data again. Otherwise (FRAME
//! parameters, a truncated file) we build an index by walking the FRAME
//! lines — a few bytes read per frame, never the data — which also finds a
//! trailing partial frame and names it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Result, Shown, VideoError, check_dimensions};
use crate::frame::{
    ChromaFormat, ColorInfo, ColorMatrix, ColorRange, Frame, FrameData, Geometry, PixelFormat,
    Rational, Transfer,
};
use crate::input::Assumed;
use crate::lines::{Line, excerpt, read_line};

/// Where chroma samples sit relative to luma; informational only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChromaSiting {
    /// Centred between luma samples (`420jpeg`, and `420` by convention).
    Center,
    /// Co-sited horizontally with the left luma sample (`420mpeg2`).
    Left,
    /// PAL-DV: Cr and Cb on alternate lines (`420paldv`).
    PalDv,
    /// Not meaningful (4:4:4, mono) or not stated.
    Unspecified,
}

/// Interlacing as declared by the `I` tag. vqscope scores every frame as a
/// progressive picture, as ffmpeg's libvmaf filter does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interlace {
    Progressive,
    TopFirst,
    BottomFirst,
    Mixed,
    Unknown,
}

/// Everything the stream header says.
#[derive(Debug, Clone, PartialEq)]
pub struct Y4mHeader {
    pub width: u32,
    pub height: u32,
    /// `F` tag; 25:1 (ffmpeg's default) when absent or 0:0.
    pub frame_rate: Rational,
    pub interlace: Interlace,
    /// `A` tag; `None` when absent or 0:0 (unknown).
    pub aspect: Option<Rational>,
    /// The `C` tag as written (`420` when absent, as older writers omit it).
    pub colorspace: String,
    pub format: PixelFormat,
    pub siting: ChromaSiting,
    pub color: ColorInfo,
    /// Bytes of an alpha plane stored after the chroma (`444alpha`), skipped.
    pub alpha_bytes: usize,
    /// Every `X` tag, without the leading `X`.
    pub extensions: Vec<String>,
    /// Which of `frame_rate` and `color` are defaults rather than tags.
    pub assumed: Assumed,
}

impl Y4mHeader {
    pub fn geometry(&self) -> Geometry {
        Geometry { width: self.width, height: self.height, format: self.format }
    }

    /// Bytes of picture data after each FRAME line.
    pub fn payload_bytes(&self) -> usize {
        self.geometry().frame_bytes() + self.alpha_bytes
    }

    /// Short description for `vqscope info`.
    pub fn describe(&self) -> String {
        let scan = match self.interlace {
            Interlace::Progressive | Interlace::Unknown => "",
            Interlace::TopFirst => ", interlaced (top field first)",
            Interlace::BottomFirst => ", interlaced (bottom field first)",
            Interlace::Mixed => ", mixed interlacing",
        };
        format!("y4m C{}{scan}", self.colorspace)
    }
}

/// Maps a `C` tag to pixel format, siting and alpha presence.
fn colorspace(tag: &str) -> Option<(ChromaFormat, u32, ChromaSiting, bool)> {
    use ChromaFormat::*;
    use ChromaSiting::*;
    let fixed = match tag {
        "420" | "420jpeg" => Some((Yuv420, 8, Center, false)),
        "420mpeg2" => Some((Yuv420, 8, Left, false)),
        "420paldv" => Some((Yuv420, 8, PalDv, false)),
        "422" => Some((Yuv422, 8, Unspecified, false)),
        "444" => Some((Yuv444, 8, Unspecified, false)),
        "444alpha" => Some((Yuv444, 8, Unspecified, true)),
        "mono" => Some((Mono, 8, Unspecified, false)),
        _ => None,
    };
    if fixed.is_some() {
        return fixed;
    }
    // High bit depth: 420p10, 422p12, 444p16, mono10 … (ffmpeg's spellings).
    let (chroma, depth) = if let Some(d) = tag.strip_prefix("mono") {
        (Mono, d)
    } else {
        let chroma = match tag.get(..4)? {
            "420p" => Yuv420,
            "422p" => Yuv422,
            "444p" => Yuv444,
            _ => return None,
        };
        (chroma, &tag[4..])
    };
    if depth.is_empty() || !depth.bytes().all(|b| b.is_ascii_digit()) || depth.len() > 2 {
        return None;
    }
    let depth: u32 = depth.parse().ok()?;
    let siting = if chroma == Yuv420 { Center } else { Unspecified };
    (9..=16).contains(&depth).then_some((chroma, depth, siting, false))
}

fn parse_u64(v: &str) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

fn parse_ratio(v: &str) -> Option<Rational> {
    let (n, d) = v.split_once(':')?;
    let n = u32::try_from(parse_u64(n)?).ok()?;
    let d = u32::try_from(parse_u64(d)?).ok()?;
    Some(Rational::new(n, d))
}

/// Maps a colour-matrix X tag value; no y4m writer standardises one, so we
/// accept the names ffmpeg uses for `colorspace`.
fn matrix(v: &str) -> Option<ColorMatrix> {
    match v.to_ascii_lowercase().as_str() {
        "bt709" | "709" => Some(ColorMatrix::Bt709),
        "bt601" | "601" | "bt470bg" | "smpte170m" | "fcc" => Some(ColorMatrix::Bt601),
        "bt2020" | "2020" | "bt2020nc" | "bt2020ncl" | "bt2020c" | "bt2020cl" => {
            Some(ColorMatrix::Bt2020)
        }
        _ => None,
    }
}

/// Fails unless `line` starts with the `YUV4MPEG2` magic word.
fn check_magic(line: &[u8], path: &Path) -> Result<()> {
    let magic = b"YUV4MPEG2";
    if !line.starts_with(magic) || line.get(magic.len()).is_some_and(|&b| b != b' ') {
        return Err(VideoError::BadMagic {
            path: Shown::new(path),
            found: excerpt(&line[..line.len().min(12)]),
        });
    }
    Ok(())
}

/// Parses a stream header line (without its newline). `path` only names the
/// input in errors. Pure and allocation-bounded: the fuzz target's entry.
pub fn parse_header(line: &[u8], path: &Path) -> Result<Y4mHeader> {
    check_magic(line, path)?;
    let magic = b"YUV4MPEG2";
    // ASCII only: tags are sliced by byte below, and y4m is ASCII by spec.
    let text = std::str::from_utf8(&line[magic.len()..])
        .ok()
        .filter(|t| t.is_ascii())
        .ok_or_else(|| VideoError::header(path, "header is not ASCII text"))?;
    let bad = |what: &str, tag: &str| VideoError::header(path, format!("bad {what} tag `{tag}`"));

    let (mut width, mut height) = (None, None);
    let mut h = Y4mHeader {
        width: 0,
        height: 0,
        frame_rate: Rational::new(25, 1),
        interlace: Interlace::Unknown,
        aspect: None,
        colorspace: "420".into(),
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 },
        siting: ChromaSiting::Center,
        color: ColorInfo::default(),
        alpha_bytes: 0,
        extensions: Vec::new(),
        assumed: Assumed::ALL,
    };
    for tag in text.split(' ').filter(|t| !t.is_empty()) {
        let (key, value) = tag.split_at(1);
        match key {
            "W" => width = Some(parse_u64(value).ok_or_else(|| bad("width", tag))?),
            "H" => height = Some(parse_u64(value).ok_or_else(|| bad("height", tag))?),
            "F" => {
                let r = parse_ratio(value).ok_or_else(|| bad("frame rate", tag))?;
                if r.num != 0 && r.den != 0 {
                    h.frame_rate = r;
                    h.assumed.frame_rate = false;
                } else if r.num != 0 || r.den != 0 {
                    return Err(bad("frame rate", tag));
                }
            }
            "I" => {
                h.interlace = match value {
                    "p" => Interlace::Progressive,
                    "t" => Interlace::TopFirst,
                    "b" => Interlace::BottomFirst,
                    "m" => Interlace::Mixed,
                    "?" | "" => Interlace::Unknown,
                    _ => return Err(bad("interlacing", tag)),
                }
            }
            "A" => {
                let r = parse_ratio(value).ok_or_else(|| bad("aspect", tag))?;
                h.aspect = (r.num != 0 && r.den != 0).then_some(r);
            }
            "C" => h.colorspace = value.to_string(),
            "X" => {
                if let Some((k, v)) = value.split_once('=') {
                    match k.to_ascii_uppercase().as_str() {
                        "COLORRANGE" => match v.to_ascii_uppercase().as_str() {
                            "FULL" => (h.color.range, h.assumed.range) = (ColorRange::Full, false),
                            "LIMITED" => {
                                (h.color.range, h.assumed.range) = (ColorRange::Limited, false)
                            }
                            _ => {}
                        },
                        "COLORTRC" | "COLORTRANSFER" | "TRANSFER" => {
                            if let Some(t) = Transfer::from_name(v) {
                                h.color.transfer = t;
                            }
                        }
                        "COLORMATRIX" | "COLORSPACE" | "MATRIX" => {
                            if let Some(m) = matrix(v) {
                                h.color.matrix = m;
                                h.assumed.matrix = false;
                            }
                        }
                        _ => {}
                    }
                }
                h.extensions.push(value.to_string());
            }
            // Unknown tags are ignored, as the format asks.
            _ => {}
        }
    }
    let width = width.ok_or_else(|| VideoError::header(path, "no width (W) tag"))?;
    let height = height.ok_or_else(|| VideoError::header(path, "no height (H) tag"))?;
    check_dimensions(path, width, height)?;
    (h.width, h.height) = (width as u32, height as u32);

    let Some((chroma, bit_depth, siting, alpha)) = colorspace(&h.colorspace) else {
        let hint = if h.colorspace == "411" {
            " (convert it: ffmpeg -i IN -pix_fmt yuv422p OUT.y4m)"
        } else {
            ""
        };
        return Err(VideoError::Unsupported {
            path: Shown::new(path),
            reason: format!("y4m colour space C{}{hint}", excerpt(h.colorspace.as_bytes())),
        });
    };
    h.format = PixelFormat { chroma, bit_depth };
    h.siting = siting;
    if alpha {
        h.alpha_bytes = h.width as usize * h.height as usize;
    }
    Ok(h)
}

/// Checks a FRAME line (newline stripped). Frame parameters are allowed and
/// ignored: they only restate per-frame interlacing or carry X tags.
fn check_frame_line(line: &[u8], path: &Path, frame: u64) -> Result<()> {
    if line.starts_with(b"FRAME") && (line.len() == 5 || line[5] == b' ') {
        Ok(())
    } else {
        Err(VideoError::FrameHeader {
            path: Shown::new(path),
            frame,
            reason: format!(
                "expected `FRAME`, found `{}` (frame of the wrong length?)",
                excerpt(line)
            ),
        })
    }
}

/// The error for a FRAME line cut off by the end of input (or too long).
fn unterminated(line: &[u8], path: &Path, frame: u64) -> VideoError {
    match check_frame_line(line, path, frame) {
        Err(e) if !b"FRAME".starts_with(line) => e,
        _ => VideoError::FrameHeader {
            path: Shown::new(path),
            frame,
            reason: "FRAME line not terminated (truncated file?)".into(),
        },
    }
}

/// Reads the stream header from `r`, leaving it at the first FRAME line.
/// Returns the header and its length in bytes, newline included.
pub fn read_header(r: &mut impl BufRead, path: &Path) -> Result<(Y4mHeader, u64)> {
    match read_line(r).map_err(|e| VideoError::io(path, None, e))? {
        Line::Full(l) => {
            let len = l.len() as u64 + 1;
            Ok((parse_header(&l, path)?, len))
        }
        Line::Eof => Err(VideoError::Empty { path: Shown::new(path) }),
        Line::Unterminated(l) | Line::TooLong(l) => {
            check_magic(&l, path)?; // a bad magic is the clearer message
            Err(VideoError::header(path, "header line has no newline (truncated file or too long)"))
        }
    }
}

/// Reads exactly `len` bytes of frame `frame` into a recycled buffer, or a
/// new one grown only as data arrives so a lying header cannot make us
/// allocate gigabytes.
fn read_payload(r: &mut impl Read, len: usize, path: &Path, frame: u64) -> Result<FrameData> {
    let mut data = crate::buffers::take(len);
    data.read_from(r, len).map_err(|e| VideoError::io(path, Some(frame), e))?;
    if data.len() != len {
        return Err(VideoError::Truncated {
            path: Shown::new(path),
            frame,
            expected: len as u64,
            got: data.len() as u64,
        });
    }
    Ok(data)
}

/// Reads one FRAME line at the current position. `Ok(false)` at a clean end
/// of stream.
fn read_frame_line(r: &mut impl BufRead, path: &Path, frame: u64) -> Result<bool> {
    match read_line(r).map_err(|e| VideoError::io(path, Some(frame), e))? {
        Line::Eof => Ok(false),
        Line::Full(l) => check_frame_line(&l, path, frame).map(|_| true),
        Line::Unterminated(l) | Line::TooLong(l) => Err(unterminated(&l, path, frame)),
    }
}

/// A y4m stream read front to back: stdin, a pipe, an ffmpeg child.
pub struct Y4mStream<R> {
    reader: BufReader<R>,
    path: PathBuf,
    header: Y4mHeader,
    next: u64,
}

impl<R: Read> Y4mStream<R> {
    /// Reads the header; `path` names the input in errors (`-` = stdin).
    pub fn new(reader: R, path: &Path) -> Result<Self> {
        let mut reader = BufReader::with_capacity(1 << 16, reader);
        let (header, _) = read_header(&mut reader, path)?;
        Ok(Y4mStream { reader, path: path.to_path_buf(), header, next: 0 })
    }

    pub fn header(&self) -> &Y4mHeader {
        &self.header
    }

    /// Index the next frame read will have.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// The next frame, or `None` at a clean end of stream.
    pub fn next_frame(&mut self) -> Result<Option<Frame>> {
        let index = self.next;
        if !read_frame_line(&mut self.reader, &self.path, index)? {
            return Ok(None);
        }
        let mut data =
            read_payload(&mut self.reader, self.header.payload_bytes(), &self.path, index)?;
        data.truncate(self.header.geometry().frame_bytes());
        self.next += 1;
        Ok(Some(Frame { geometry: self.header.geometry(), color: self.header.color, index, data }))
    }

    /// Reads past the next frame without keeping it; `false` at the end.
    pub fn skip_frame(&mut self) -> Result<bool> {
        let index = self.next;
        if !read_frame_line(&mut self.reader, &self.path, index)? {
            return Ok(false);
        }
        let len = self.header.payload_bytes() as u64;
        let got = io::copy(&mut (&mut self.reader).take(len), &mut io::sink())
            .map_err(|e| VideoError::io(&self.path, Some(index), e))?;
        if got != len {
            return Err(VideoError::Truncated {
                path: Shown::new(&self.path),
                frame: index,
                expected: len,
                got,
            });
        }
        self.next += 1;
        Ok(true)
    }

    /// Gives back the underlying reader (for closing a child's pipe).
    pub fn into_inner(self) -> R {
        self.reader.into_inner()
    }
}

/// Where frame data lies in a seekable file.
#[derive(Debug, Clone)]
enum Layout {
    /// Bare `FRAME\n` lines: data of frame `i` at `first + i * stride + 6`.
    Uniform { first: u64, stride: u64 },
    /// Byte offset of each frame's data, found by walking FRAME lines.
    Indexed(Vec<u64>),
}

/// A y4m file with random access by frame index.
pub struct Y4mFile {
    /// Unbuffered: every read follows a seek, lines are read through a tiny
    /// buffer and frame data in one large read.
    file: File,
    path: PathBuf,
    header: Y4mHeader,
    header_len: u64,
    size: u64,
    layout: Layout,
    next: u64,
}

impl Y4mFile {
    /// Opens `path`, parses the header and locates every frame. A trailing
    /// partial frame is an error naming the frame, so a truncated copy is
    /// noticed at once rather than after scoring the rest.
    pub fn open(path: &Path) -> Result<Self> {
        let file =
            File::open(path).map_err(|e| VideoError::Open { path: Shown::new(path), source: e })?;
        let size = file.metadata().map_err(|e| VideoError::io(path, None, e))?.len();
        let (header, header_len) = read_header(&mut BufReader::with_capacity(256, &file), path)?;
        let mut y = Y4mFile {
            file,
            path: path.to_path_buf(),
            header,
            header_len,
            size,
            layout: Layout::Indexed(Vec::new()),
            next: 0,
        };
        let stride = 6 + y.header.payload_bytes() as u64;
        let body = size - header_len;
        let bare_first = body == 0 || y.line_at(header_len, 0)?.0 == b"FRAME";
        y.layout = if bare_first && body % stride == 0 && y.spot_check(stride, body / stride) {
            Layout::Uniform { first: header_len, stride }
        } else {
            y.walk()?
        };
        Ok(y)
    }

    /// Whether the last frame and 15 frames spread between sit where a fixed
    /// stride puts them, behind bare FRAME lines. Cheap (17 tiny reads), and
    /// it catches FRAME parameters anywhere except in files whose parameter
    /// lengths add up to exact multiples of the frame size at every probe.
    fn spot_check(&mut self, stride: u64, count: u64) -> bool {
        let probes = (1..16).map(|k| k * count / 16).chain([count.saturating_sub(1)]);
        for i in probes {
            let pos = self.header_len + i * stride;
            match self.line_at(pos, i) {
                Ok((line, _)) if line == b"FRAME" => {}
                _ => return false,
            }
        }
        true
    }

    /// The same file opened again with its own position and the index
    /// already built, for reading on another thread.
    pub fn reopen(&self) -> Result<Self> {
        let file = File::open(&self.path)
            .map_err(|e| VideoError::Open { path: Shown::new(&self.path), source: e })?;
        Ok(Y4mFile {
            file,
            path: self.path.clone(),
            header: self.header.clone(),
            header_len: self.header_len,
            size: self.size,
            layout: self.layout.clone(),
            next: self.next,
        })
    }

    pub fn header(&self) -> &Y4mHeader {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of whole frames in the file.
    pub fn frame_count(&self) -> u64 {
        match &self.layout {
            Layout::Uniform { first, stride } => (self.size - first) / stride,
            Layout::Indexed(v) => v.len() as u64,
        }
    }

    /// The FRAME line starting at `pos` (newline stripped) and the offset
    /// just past it.
    fn line_at(&mut self, pos: u64, frame: u64) -> Result<(Vec<u8>, u64)> {
        self.file
            .seek(SeekFrom::Start(pos))
            .map_err(|e| VideoError::io(&self.path, Some(frame), e))?;
        let mut small = BufReader::with_capacity(128, &self.file);
        match read_line(&mut small).map_err(|e| VideoError::io(&self.path, Some(frame), e))? {
            Line::Full(l) => {
                check_frame_line(&l, &self.path, frame)?;
                let end = pos + l.len() as u64 + 1;
                Ok((l, end))
            }
            Line::Eof => Err(VideoError::FrameHeader {
                path: Shown::new(&self.path),
                frame,
                reason: "file ends where a FRAME line should start".into(),
            }),
            Line::Unterminated(l) | Line::TooLong(l) => Err(unterminated(&l, &self.path, frame)),
        }
    }

    /// Builds the frame index by hopping from FRAME line to FRAME line.
    fn walk(&mut self) -> Result<Layout> {
        let payload = self.header.payload_bytes() as u64;
        let mut offsets = Vec::new();
        let mut pos = self.header_len;
        while pos < self.size {
            let frame = offsets.len() as u64;
            let (_, data) = self.line_at(pos, frame)?;
            if data + payload > self.size {
                return Err(VideoError::Truncated {
                    path: Shown::new(&self.path),
                    frame,
                    expected: payload,
                    got: self.size - data,
                });
            }
            offsets.push(data);
            pos = data + payload;
        }
        Ok(Layout::Indexed(offsets))
    }

    /// Byte offset of frame `index`'s data, verifying the FRAME line.
    fn data_offset(&mut self, index: u64) -> Result<u64> {
        let count = self.frame_count();
        if index >= count {
            return Err(VideoError::FrameOutOfRange {
                path: Shown::new(&self.path),
                frame: index,
                count,
            });
        }
        match self.layout {
            Layout::Uniform { first, stride } => {
                let pos = first + index * stride;
                match self.line_at(pos, index) {
                    Ok((line, data)) if line == b"FRAME" => Ok(data),
                    // A FRAME line with parameters somewhere: the fixed
                    // stride was a coincidence. Index properly and retry.
                    _ => {
                        self.layout = self.walk()?;
                        self.data_offset(index)
                    }
                }
            }
            Layout::Indexed(ref v) => Ok(v[index as usize]),
        }
    }

    /// Frame `index` (from 0).
    pub fn read_frame(&mut self, index: u64) -> Result<Frame> {
        let off = self.data_offset(index)?;
        self.file
            .seek(SeekFrom::Start(off))
            .map_err(|e| VideoError::io(&self.path, Some(index), e))?;
        let mut data =
            read_payload(&mut &self.file, self.header.payload_bytes(), &self.path, index)?;
        data.truncate(self.header.geometry().frame_bytes());
        self.next = index + 1;
        Ok(Frame { geometry: self.header.geometry(), color: self.header.color, index, data })
    }

    /// The frame after the last one read, or `None` past the end.
    pub fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.next >= self.frame_count() {
            return Ok(None);
        }
        self.read_frame(self.next).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Y4mHeader> {
        parse_header(s.as_bytes(), Path::new("t.y4m"))
    }

    #[test]
    fn ffmpeg_header() {
        let h = parse("YUV4MPEG2 W576 H324 F25:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=FULL")
            .unwrap();
        assert_eq!((h.width, h.height), (576, 324));
        assert_eq!(h.frame_rate, Rational::new(25, 1));
        assert_eq!(h.interlace, Interlace::Progressive);
        assert_eq!(h.aspect, Some(Rational::new(1, 1)));
        assert_eq!(h.format.chroma, ChromaFormat::Yuv420);
        assert_eq!(h.format.bit_depth, 10);
        assert_eq!(h.color.range, ColorRange::Full);
        assert_eq!(h.color.matrix, ColorMatrix::Bt709);
        assert_eq!(h.extensions, vec!["YSCSS=420P10", "COLORRANGE=FULL"]);
    }

    #[test]
    fn defaults_when_tags_absent() {
        let h = parse("YUV4MPEG2 W2 H2").unwrap();
        assert_eq!(h.colorspace, "420");
        assert_eq!(h.frame_rate, Rational::new(25, 1));
        assert_eq!(h.interlace, Interlace::Unknown);
        assert_eq!(h.aspect, None);
        assert_eq!(h.color, ColorInfo::default());
    }

    #[test]
    fn matrix_tag() {
        let h = parse("YUV4MPEG2 W2 H2 XCOLORMATRIX=bt2020nc").unwrap();
        assert_eq!(h.color.matrix, ColorMatrix::Bt2020);
        let h = parse("YUV4MPEG2 W2 H2 XCOLORSPACE=SMPTE170M").unwrap();
        assert_eq!(h.color.matrix, ColorMatrix::Bt601);
    }

    #[test]
    fn transfer_tag() {
        let h = parse("YUV4MPEG2 W2 H2 XCOLORTRC=smpte2084").unwrap();
        assert_eq!(h.color.transfer, Transfer::Pq);
        let h = parse("YUV4MPEG2 W2 H2 XCOLORTRC=arib-std-b67").unwrap();
        assert_eq!(h.color.transfer, Transfer::Hlg);
        let h = parse("YUV4MPEG2 W2 H2 XCOLORTRC=bt709").unwrap();
        assert_eq!(h.color.transfer, Transfer::Sdr);
        let h = parse("YUV4MPEG2 W2 H2").unwrap();
        assert_eq!(h.color.transfer, Transfer::Sdr);
    }

    #[test]
    fn high_depth_names() {
        for (c, chroma, depth) in [
            ("mono12", ChromaFormat::Mono, 12),
            ("444p16", ChromaFormat::Yuv444, 16),
            ("422p9", ChromaFormat::Yuv422, 9),
        ] {
            let h = parse(&format!("YUV4MPEG2 W4 H4 C{c}")).unwrap();
            assert_eq!((h.format.chroma, h.format.bit_depth), (chroma, depth));
        }
        for c in ["420p8", "420p17", "420p", "420p0010", "411", "420px"] {
            assert!(parse(&format!("YUV4MPEG2 W4 H4 C{c}")).is_err(), "{c}");
        }
    }

    #[test]
    fn non_ascii_tag_is_an_error_not_a_panic() {
        // Found by the fuzz target: a tag starting with a multi-byte char.
        let e = parse("YUV4MPEG2 W3 H1 \u{562}W3").unwrap_err();
        assert!(e.to_string().contains("not ASCII"), "{e}");
    }

    #[test]
    fn frame_lines() {
        let p = Path::new("x");
        assert!(check_frame_line(b"FRAME", p, 0).is_ok());
        assert!(check_frame_line(b"FRAME Ip XFOO=1", p, 0).is_ok());
        assert!(check_frame_line(b"FRAMES", p, 0).is_err());
        assert!(check_frame_line(b"", p, 0).is_err());
    }
}
