//! Frames as every consumer sees them: geometry, pixel format, colour
//! description and the raw planar samples, exactly as they lie in a y4m or
//! raw yuv file (planes back to back, 16-bit samples little-endian).

pub use crate::frame_data::FrameData;

/// Chroma subsampling of a planar YUV frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChromaFormat {
    /// Luma only (y4m `mono`); no chroma planes are stored.
    Mono,
    Yuv420,
    Yuv422,
    Yuv444,
}

impl ChromaFormat {
    /// The chroma format of a raw input's pixel format as libvmaf's
    /// `--pixel_format` names it (`420`, `422`, `444`).
    pub fn from_pixel_format(name: &str) -> Option<Self> {
        match name {
            "420" => Some(ChromaFormat::Yuv420),
            "422" => Some(ChromaFormat::Yuv422),
            "444" => Some(ChromaFormat::Yuv444),
            _ => None,
        }
    }

    /// Horizontal and vertical chroma subsampling shifts.
    pub fn shifts(self) -> (u32, u32) {
        match self {
            ChromaFormat::Mono | ChromaFormat::Yuv444 => (0, 0),
            ChromaFormat::Yuv420 => (1, 1),
            ChromaFormat::Yuv422 => (1, 0),
        }
    }

    /// Number of stored planes.
    pub fn plane_count(self) -> usize {
        if self == ChromaFormat::Mono { 1 } else { 3 }
    }
}

/// Chroma format plus bit depth: what libvmaf calls the pixel format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PixelFormat {
    pub chroma: ChromaFormat,
    /// Bits per sample: 8, 10, 12 (or 16). Above 8, samples take two bytes.
    pub bit_depth: u32,
}

impl PixelFormat {
    pub fn bytes_per_sample(self) -> usize {
        if self.bit_depth > 8 { 2 } else { 1 }
    }
}

/// Width, height and pixel format: everything needed to find the planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
}

impl Geometry {
    /// Width and height of plane `i` in samples (chroma rounds up, as ffmpeg
    /// and libvmaf do for odd sizes).
    pub fn plane_size(&self, i: usize) -> (u32, u32) {
        if i == 0 {
            return (self.width, self.height);
        }
        let (sx, sy) = self.format.chroma.shifts();
        ((self.width + (1 << sx) - 1) >> sx, (self.height + (1 << sy) - 1) >> sy)
    }

    /// Byte length of plane `i`.
    pub fn plane_bytes(&self, i: usize) -> usize {
        let (w, h) = self.plane_size(i);
        w as usize * h as usize * self.format.bytes_per_sample()
    }

    /// Byte length of a whole frame (all planes).
    pub fn frame_bytes(&self) -> usize {
        (0..self.format.chroma.plane_count()).map(|i| self.plane_bytes(i)).sum()
    }
}

/// Colour matrix used to turn YUV into RGB for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ColorMatrix {
    Bt601,
    #[default]
    Bt709,
    Bt2020,
}

/// Quantisation range of the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ColorRange {
    #[default]
    Limited,
    Full,
}

/// Transfer characteristic: how the coded values map to light. Only the
/// display needs it (HDR pictures are tone-mapped for an SDR window); the
/// metrics read the coded values, as libvmaf does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Transfer {
    /// BT.709 / BT.1886 / sRGB-like gamma, or untagged.
    #[default]
    Sdr,
    /// SMPTE ST 2084 (HDR10's perceptual quantiser).
    Pq,
    /// ARIB STD-B67 (hybrid log-gamma).
    Hlg,
}

impl Transfer {
    /// The names ffmpeg gives `color_trc` (and short forms): PQ and HLG;
    /// every other known SDR name is [`Transfer::Sdr`]; `None` for anything
    /// else.
    pub fn from_name(name: &str) -> Option<Transfer> {
        match name.to_ascii_lowercase().as_str() {
            "smpte2084" | "pq" | "st2084" => Some(Transfer::Pq),
            "arib-std-b67" | "hlg" => Some(Transfer::Hlg),
            "bt709" | "bt1886" | "bt470bg" | "bt470m" | "smpte170m" | "gamma22" | "gamma28"
            | "iec61966-2-1" | "srgb" | "bt2020-10" | "bt2020-12" | "bt2020_10bit"
            | "bt2020_12bit" | "sdr" => Some(Transfer::Sdr),
            _ => None,
        }
    }
}

/// How the samples map to colours; defaults to BT.709 limited range, SDR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ColorInfo {
    pub matrix: ColorMatrix,
    pub range: ColorRange,
    pub transfer: Transfer,
}

/// One decoded frame: planes stored back to back in `data` (Y, then Cb, Cr),
/// each tightly packed (stride = plane width), 16-bit samples little-endian.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub geometry: Geometry,
    pub color: ColorInfo,
    /// Index of the frame in its source, counting from 0.
    pub index: u64,
    pub data: FrameData,
}

impl Frame {
    /// Byte offset of plane `i` inside `data`.
    pub fn plane_offset(&self, i: usize) -> usize {
        (0..i).map(|p| self.geometry.plane_bytes(p)).sum()
    }

    /// Raw bytes of plane `i`.
    pub fn plane_bytes(&self, i: usize) -> &[u8] {
        let start = self.plane_offset(i);
        &self.data[start..start + self.geometry.plane_bytes(i)]
    }

    /// Hands the frame's memory back for a later frame to be read into.
    pub fn recycle(self) {
        crate::buffers::give(self.data);
    }

    /// Samples of plane `i` widened to u16, row-major, stride = plane width.
    pub fn plane_samples(&self, i: usize) -> Vec<u16> {
        let bytes = self.plane_bytes(i);
        if self.geometry.format.bytes_per_sample() == 1 {
            bytes.iter().map(|&b| u16::from(b)).collect()
        } else {
            bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
        }
    }
}

impl PixelFormat {
    /// ffmpeg's name for this format (`yuv420p`, `yuv422p10le`, `gray12le`…),
    /// the spelling users know from `ffprobe` and `vmaf --pixel_format`.
    pub fn ffmpeg_name(self) -> String {
        let base = match self.chroma {
            ChromaFormat::Mono => "gray",
            ChromaFormat::Yuv420 => "yuv420p",
            ChromaFormat::Yuv422 => "yuv422p",
            ChromaFormat::Yuv444 => "yuv444p",
        };
        if self.bit_depth > 8 { format!("{base}{}le", self.bit_depth) } else { base.to_string() }
    }
}

impl std::fmt::Display for ColorInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let matrix = match self.matrix {
            ColorMatrix::Bt601 => "BT.601",
            ColorMatrix::Bt709 => "BT.709",
            ColorMatrix::Bt2020 => "BT.2020",
        };
        let range = match self.range {
            ColorRange::Limited => "limited",
            ColorRange::Full => "full",
        };
        let transfer = match self.transfer {
            Transfer::Sdr => "",
            Transfer::Pq => ", PQ",
            Transfer::Hlg => ", HLG",
        };
        write!(f, "{matrix} {range} range{transfer}")
    }
}

/// A frame rate or aspect ratio kept as the exact fraction the file states
/// (25:1, 30000:1001), so no rounding creeps into timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rational {
    pub num: u32,
    pub den: u32,
}

impl Rational {
    pub const fn new(num: u32, den: u32) -> Self {
        Rational { num, den }
    }

    /// The value as a float; 0 when the denominator is 0 (unknown rate).
    pub fn as_f64(self) -> f64 {
        if self.den == 0 { 0.0 } else { f64::from(self.num) / f64::from(self.den) }
    }
}

impl std::fmt::Display for Rational {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}
