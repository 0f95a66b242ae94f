//! The current pair as the renderer draws it. The frames are uploaded once
//! per shown pair through the video crate's staging ring
//! ([`FrameUploader`]); the renderer copies their planes on the GPU and the
//! SSIM view reads them where they lie, so nothing is copied through the
//! host per frame (a 4K pair is 25 MB). Monochrome input is the exception:
//! the renderer wants chroma, so those pictures travel as host bytes with
//! neutral chroma added.
//!
//! The difference view is computed on the CPU for now: for every luma
//! sample, `|ref - dis| * 4` (at 8 bits, saturating at white), drawn as a
//! grey full-range picture, so identical pixels are black and the small
//! errors of a good encode become visible. It is computed once per shown
//! pair and only when the difference view is on.

use std::sync::Arc;

use vqscope_gpu::{Buffer, GpuContext, Recorder};
use vqscope_renderer::{
    ExternalYuv, Scene, Subsampling, Transfer, YuvFormat, YuvId, YuvMatrix, YuvPicture,
};
use vqscope_video::{
    ChromaFormat, ColorMatrix, ColorRange, DeviceFrame, DeviceFramePair, Frame, FramePair,
    FrameUploader,
};

/// How much the difference is amplified.
pub const DIFF_GAIN: u32 = 4;

/// External buffer slot of the renderer that holds the uploaded frames
/// (slot 0 is the SSIM map).
pub const FRAMES_SLOT: usize = 1;

/// The pictures of one pair.
pub struct Pictures {
    /// The frames shown, `(reference, distorted)`: equal unless a side has
    /// a display offset ([`super::state::State::shown_frames`]).
    pub shown: (u64, u64),
    /// The pairs the reference and the distorted frame come from (the same
    /// pair unless a side is offset), shared with the feed's cache.
    sources: (Arc<FramePair>, Arc<FramePair>),
    /// Where [`Pictures::upload`] put the frames on the GPU.
    device: Option<DeviceFramePair>,
    /// Filled by [`Pictures::ensure_difference`].
    pub difference: Option<YuvPicture>,
}

impl Pictures {
    pub fn new(pair: Arc<FramePair>) -> Self {
        Self::from_pairs(pair.clone(), pair)
    }

    /// The reference frame of `reference` beside the distorted frame of
    /// `distorted` (a side shown with an offset).
    pub fn from_pairs(reference: Arc<FramePair>, distorted: Arc<FramePair>) -> Self {
        Pictures {
            shown: (reference.reference.index, distorted.distorted.index),
            sources: (reference, distorted),
            device: None,
            difference: None,
        }
    }

    /// The same frames, not uploaded (for a second upload elsewhere).
    pub fn detached(&self) -> Pictures {
        Pictures::from_pairs(self.sources.0.clone(), self.sources.1.clone())
    }

    /// The reference, or the distorted frame.
    pub fn frame(&self, distorted: bool) -> &Frame {
        if distorted { &self.sources.1.distorted } else { &self.sources.0.reference }
    }

    /// Width and height of the frames.
    pub fn size(&self) -> (u32, u32) {
        let g = self.frame(false).geometry;
        (g.width, g.height)
    }

    /// Uploads both frames through `uploader` into its next ring slot,
    /// recording the transfer into `rec`, unless already done.
    pub fn upload(
        &mut self,
        uploader: &mut FrameUploader,
        rec: &mut Recorder<'_>,
    ) -> vqscope_gpu::Result<()> {
        if self.device.is_none() {
            let index = self.sources.0.index;
            let (r, d) = (self.frame(false), self.frame(true));
            self.device = Some(uploader.upload_frames(rec, index, r, d)?);
        }
        Ok(())
    }

    /// The uploaded frames, and the ring buffer they lie in.
    pub fn device<'a>(
        &self,
        uploader: &'a FrameUploader,
    ) -> Option<(&'a Buffer, &DeviceFramePair)> {
        self.device.as_ref().map(|d| (uploader.slot_buffer(d.slot), d))
    }

    /// Adds the reference (or distorted) picture to `scene`: planes on the
    /// GPU in external buffer [`FRAMES_SLOT`] once uploaded, host bytes
    /// otherwise (and always for monochrome).
    pub fn add_to(&self, scene: &mut Scene, distorted: bool) -> YuvId {
        let frame = self.frame(distorted);
        match &self.device {
            Some(d) if frame.geometry.format.chroma != ChromaFormat::Mono => {
                let side = if distorted { &d.distorted } else { &d.reference };
                scene.add_external_yuv(external(frame, side))
            }
            _ => scene.add_yuv(picture(frame)),
        }
    }

    /// The luma plane of the reference, or of the distorted frame, widened
    /// to u16.
    pub fn luma_samples(&self, distorted: bool) -> Vec<u16> {
        self.frame(distorted).plane_samples(0)
    }

    /// Computes the difference picture if it is not there yet.
    pub fn ensure_difference(&mut self) {
        if self.difference.is_none() {
            let (r, d) = (self.luma_samples(false), self.luma_samples(true));
            let (w, h) = self.size();
            let depth = self.frame(false).geometry.format.bit_depth;
            self.difference = Some(difference(&r, &d, w, h, depth));
        }
    }

    /// The luma sample at (x, y) of the reference, or of the distorted
    /// frame (0 outside the picture).
    pub fn luma(&self, distorted: bool, x: u32, y: u32) -> u16 {
        let f = self.frame(distorted);
        let g = f.geometry;
        if x >= g.width || y >= g.height {
            return 0;
        }
        let i = y as usize * g.width as usize + x as usize;
        if g.format.bytes_per_sample() == 2 {
            u16::from_le_bytes([f.data[2 * i], f.data[2 * i + 1]])
        } else {
            u16::from(f.data[i])
        }
    }
}

/// The upload ring of the shown frames: one slot per frame the window has
/// in flight plus the one being recorded, since a slot stays in use until
/// every frame that drew from it is done.
pub fn display_uploader(
    ctx: &Arc<GpuContext>,
    frame: &Frame,
    frames_in_flight: usize,
) -> vqscope_gpu::Result<FrameUploader> {
    FrameUploader::new(ctx, frame.geometry, frames_in_flight + 1)
}

/// The renderer's name for the frame's chroma layout (monochrome is shown
/// with neutral 4:2:0 chroma).
fn subsampling(frame: &Frame) -> Subsampling {
    match frame.geometry.format.chroma {
        ChromaFormat::Yuv420 | ChromaFormat::Mono => Subsampling::Yuv420,
        ChromaFormat::Yuv422 => Subsampling::Yuv422,
        ChromaFormat::Yuv444 => Subsampling::Yuv444,
    }
}

fn matrix(frame: &Frame) -> YuvMatrix {
    match frame.color.matrix {
        ColorMatrix::Bt601 => YuvMatrix::Bt601,
        ColorMatrix::Bt709 => YuvMatrix::Bt709,
        ColorMatrix::Bt2020 => YuvMatrix::Bt2020,
    }
}

/// HDR frames are tone-mapped for the window by the renderer.
fn transfer(frame: &Frame) -> Transfer {
    match frame.color.transfer {
        vqscope_video::Transfer::Sdr => Transfer::Sdr,
        vqscope_video::Transfer::Pq => Transfer::Pq,
        vqscope_video::Transfer::Hlg => Transfer::Hlg,
    }
}

/// A frame's size, depth, chroma layout and colour, as the renderer takes
/// them.
fn format(frame: &Frame) -> YuvFormat {
    let g = frame.geometry;
    YuvFormat {
        width: g.width,
        height: g.height,
        bit_depth: g.format.bit_depth,
        subsampling: subsampling(frame),
        matrix: matrix(frame),
        full_range: frame.color.range == ColorRange::Full,
        transfer: transfer(frame),
    }
}

/// An uploaded (non-monochrome) frame as a renderer picture on the GPU.
fn external(frame: &Frame, device: &DeviceFrame) -> ExternalYuv {
    ExternalYuv {
        format: format(frame),
        slot: FRAMES_SLOT,
        planes: device.planes.map(|p| u64::from(p.offset)),
    }
}

/// A frame as a host picture (monochrome gets neutral 4:2:0 chroma).
pub fn picture(frame: &Frame) -> YuvPicture {
    let g = frame.geometry;
    let mut data = frame.data.to_vec();
    if g.format.chroma == ChromaFormat::Mono {
        let chroma = (g.width.div_ceil(2) * g.height.div_ceil(2) * 2) as usize;
        let mid = 1u16 << (g.format.bit_depth - 1);
        if g.format.bytes_per_sample() == 1 {
            data.resize(data.len() + chroma, mid as u8);
        } else {
            data.extend(std::iter::repeat_n(mid.to_le_bytes(), chroma).flatten());
        }
    }
    YuvPicture { format: format(frame), data }
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
    let format = YuvFormat {
        width,
        height,
        bit_depth: 8,
        subsampling: Subsampling::Yuv420,
        matrix: YuvMatrix::Bt709,
        full_range: true,
        transfer: Transfer::Sdr,
    };
    YuvPicture { format, data }
}
