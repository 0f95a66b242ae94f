//! The current pair as pictures the renderer draws: the decoded frames'
//! bytes are already planar as [`YuvPicture`] wants them, so this only adds
//! grey chroma to monochrome input and computes the difference picture.
//!
//! The difference view is computed on the CPU for now: for every luma
//! sample, `|ref - dis| * 4` (at 8 bits, saturating at white), drawn as a
//! grey full-range picture, so identical pixels are black and the small
//! errors of a good encode become visible. It is computed once per shown
//! pair and only when the difference view is on.

use vqscope_renderer::{Subsampling, YuvMatrix, YuvPicture};
use vqscope_video::{ChromaFormat, ColorMatrix, ColorRange, Frame, FramePair};

/// How much the difference is amplified.
pub const DIFF_GAIN: u32 = 4;

/// The pictures of one pair.
pub struct Pictures {
    /// The frames shown, `(reference, distorted)`: equal unless a side has
    /// a display offset ([`super::state::State::shown_frames`]).
    pub shown: (u64, u64),
    pub reference: YuvPicture,
    pub distorted: YuvPicture,
    /// Filled by [`Pictures::ensure_difference`].
    pub difference: Option<YuvPicture>,
}

impl Pictures {
    pub fn new(pair: &FramePair) -> Self {
        Self::from_frames(&pair.reference, &pair.distorted)
    }

    /// The pictures of two frames that need not share an index (a side
    /// shown with an offset). Luma is read from the pictures' own bytes
    /// when needed, never copied ahead: at 4K a widened copy of both luma
    /// planes would cost more than drawing the frame.
    pub fn from_frames(reference: &Frame, distorted: &Frame) -> Self {
        Pictures {
            shown: (reference.index, distorted.index),
            reference: picture(reference),
            distorted: picture(distorted),
            difference: None,
        }
    }

    fn side(&self, distorted: bool) -> &YuvPicture {
        if distorted { &self.distorted } else { &self.reference }
    }

    /// The luma plane of the reference, or of the distorted frame, widened
    /// to the samples the metric kernels read (the SSIM view uploads these).
    pub fn luma_samples(&self, distorted: bool) -> Vec<u16> {
        let p = self.side(distorted);
        let n = p.width as usize * p.height as usize;
        if p.bit_depth > 8 {
            p.data[..2 * n].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
        } else {
            p.data[..n].iter().map(|&b| u16::from(b)).collect()
        }
    }

    /// Computes the difference picture if it is not there yet.
    pub fn ensure_difference(&mut self) {
        if self.difference.is_none() {
            let (r, d) = (self.luma_samples(false), self.luma_samples(true));
            let p = &self.reference;
            self.difference = Some(difference(&r, &d, p.width, p.height, p.bit_depth));
        }
    }

    /// The luma sample at (x, y) of the reference, or of the distorted
    /// frame (0 outside the picture).
    pub fn luma(&self, distorted: bool, x: u32, y: u32) -> u16 {
        let p = self.side(distorted);
        if x >= p.width || y >= p.height {
            return 0;
        }
        let i = y as usize * p.width as usize + x as usize;
        if p.bit_depth > 8 {
            u16::from_le_bytes([p.data[2 * i], p.data[2 * i + 1]])
        } else {
            u16::from(p.data[i])
        }
    }
}

/// A frame as a renderer picture (monochrome gets neutral 4:2:0 chroma).
pub fn picture(frame: &Frame) -> YuvPicture {
    let g = frame.geometry;
    let matrix = match frame.color.matrix {
        ColorMatrix::Bt601 => YuvMatrix::Bt601,
        // BT.2020 is shown with BT.709's matrix until the renderer has one.
        ColorMatrix::Bt709 | ColorMatrix::Bt2020 => YuvMatrix::Bt709,
    };
    let (subsampling, data) = match g.format.chroma {
        ChromaFormat::Yuv420 => (Subsampling::Yuv420, frame.data.clone()),
        ChromaFormat::Yuv422 => (Subsampling::Yuv422, frame.data.clone()),
        ChromaFormat::Yuv444 => (Subsampling::Yuv444, frame.data.clone()),
        ChromaFormat::Mono => {
            let mut data = frame.data.clone();
            let chroma = (g.width.div_ceil(2) * g.height.div_ceil(2) * 2) as usize;
            let mid = 1u16 << (g.format.bit_depth - 1);
            if g.format.bytes_per_sample() == 1 {
                data.resize(data.len() + chroma, mid as u8);
            } else {
                data.extend(std::iter::repeat_n(mid.to_le_bytes(), chroma).flatten());
            }
            (Subsampling::Yuv420, data)
        }
    };
    YuvPicture {
        width: g.width,
        height: g.height,
        bit_depth: g.format.bit_depth,
        subsampling,
        matrix,
        full_range: frame.color.range == ColorRange::Full,
        data,
    }
}

/// `|ref - dis| * DIFF_GAIN`, scaled to 8 bits, as a grey 4:2:0 picture.
pub fn difference(
    reference: &[u16],
    distorted: &[u16],
    width: u32,
    height: u32,
    depth: u32,
) -> YuvPicture {
    let shift = depth.saturating_sub(8);
    let mut data: Vec<u8> = reference
        .iter()
        .zip(distorted)
        .map(|(r, d)| ((u32::from(r.abs_diff(*d)) * DIFF_GAIN) >> shift).min(255) as u8)
        .collect();
    data.resize((width * height) as usize, 0);
    let chroma = (width.div_ceil(2) * height.div_ceil(2) * 2) as usize;
    data.resize(data.len() + chroma, 128);
    YuvPicture {
        width,
        height,
        bit_depth: 8,
        subsampling: Subsampling::Yuv420,
        matrix: YuvMatrix::Bt709,
        full_range: true,
        data,
    }
}
