//! Raw planar YUV (`.yuv`): no header, so the user states the geometry
//! (as with libvmaf's `--width --height --pixel_format --bitdepth`). Frames
//! are found by arithmetic; the frame count comes from the file size, and a
//! size that is not a whole number of frames is an error at open, because
//! it almost always means the stated geometry is wrong.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Result, Shown, VideoError, check_dimensions};
use crate::frame::{ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat};

/// Geometry of a raw input, as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawGeometry {
    pub width: u32,
    pub height: u32,
    /// 4:2:0, 4:2:2 or 4:4:4 (libvmaf's `--pixel_format 420|422|444`).
    pub chroma: ChromaFormat,
    /// 8 to 16, as in y4m (above 8: 16-bit little-endian samples). Which
    /// depths a metric accepts is the metric's to say (ADM: 8 to 12).
    pub bit_depth: u32,
}

impl RawGeometry {
    /// Validates the numbers (size range, supported depth) for `path`.
    pub fn geometry(&self, path: &Path) -> Result<Geometry> {
        check_dimensions(path, self.width.into(), self.height.into())?;
        if !(8..=16).contains(&self.bit_depth) {
            return Err(VideoError::Unsupported {
                path: Shown::new(path),
                reason: format!("raw bit depth {} (use 8 to 16)", self.bit_depth),
            });
        }
        Ok(Geometry {
            width: self.width,
            height: self.height,
            format: PixelFormat { chroma: self.chroma, bit_depth: self.bit_depth },
        })
    }
}

/// Reads one whole raw frame, or `None` at a clean end. Grows the buffer as
/// data arrives (bounded by what the input really holds).
pub(crate) fn read_raw_frame(
    r: &mut impl Read,
    geometry: Geometry,
    path: &Path,
    index: u64,
) -> Result<Option<Frame>> {
    let len = geometry.frame_bytes();
    let mut data = crate::buffers::take(len);
    data.read_from(r, len).map_err(|e| VideoError::io(path, Some(index), e))?;
    if data.is_empty() {
        return Ok(None);
    }
    if data.len() != len {
        return Err(VideoError::Truncated {
            path: Shown::new(path),
            frame: index,
            expected: len as u64,
            got: data.len() as u64,
        });
    }
    Ok(Some(Frame { geometry, color: ColorInfo::default(), index, data }))
}

/// A raw yuv file with random access.
pub struct RawFile {
    file: File,
    path: PathBuf,
    geometry: Geometry,
    count: u64,
    next: u64,
}

impl RawFile {
    pub fn open(path: &Path, raw: RawGeometry) -> Result<Self> {
        let geometry = raw.geometry(path)?;
        let file =
            File::open(path).map_err(|e| VideoError::Open { path: Shown::new(path), source: e })?;
        let size = file.metadata().map_err(|e| VideoError::io(path, None, e))?.len();
        let frame_bytes = geometry.frame_bytes() as u64;
        if size % frame_bytes != 0 {
            return Err(VideoError::PartialFrame {
                path: Shown::new(path),
                size,
                frame_bytes,
                whole: size / frame_bytes,
                trailing: size % frame_bytes,
            });
        }
        Ok(RawFile { file, path: path.to_path_buf(), geometry, count: size / frame_bytes, next: 0 })
    }

    /// The same file opened again with its own position, for reading on
    /// another thread.
    pub fn reopen(&self) -> Result<Self> {
        let file = File::open(&self.path)
            .map_err(|e| VideoError::Open { path: Shown::new(&self.path), source: e })?;
        Ok(RawFile { file, path: self.path.clone(), ..*self })
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    pub fn frame_count(&self) -> u64 {
        self.count
    }

    pub fn read_frame(&mut self, index: u64) -> Result<Frame> {
        if index >= self.count {
            return Err(VideoError::FrameOutOfRange {
                path: Shown::new(&self.path),
                frame: index,
                count: self.count,
            });
        }
        let off = index * self.geometry.frame_bytes() as u64;
        self.file
            .seek(SeekFrom::Start(off))
            .map_err(|e| VideoError::io(&self.path, Some(index), e))?;
        let frame = read_raw_frame(&mut self.file, self.geometry, &self.path, index)?;
        self.next = index + 1;
        frame.ok_or_else(|| VideoError::Truncated {
            path: Shown::new(&self.path),
            frame: index,
            expected: self.geometry.frame_bytes() as u64,
            got: 0,
        })
    }

    pub fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.next >= self.count {
            return Ok(None);
        }
        self.read_frame(self.next).map(Some)
    }
}

/// Raw frames read front to back from a pipe or stdin.
pub struct RawStream<R> {
    reader: R,
    path: PathBuf,
    geometry: Geometry,
    next: u64,
}

impl<R: Read> RawStream<R> {
    pub fn new(reader: R, path: &Path, raw: RawGeometry) -> Result<Self> {
        Ok(RawStream { reader, path: path.to_path_buf(), geometry: raw.geometry(path)?, next: 0 })
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    pub fn position(&self) -> u64 {
        self.next
    }

    pub fn next_frame(&mut self) -> Result<Option<Frame>> {
        let f = read_raw_frame(&mut self.reader, self.geometry, &self.path, self.next)?;
        if f.is_some() {
            self.next += 1;
        }
        Ok(f)
    }
}
