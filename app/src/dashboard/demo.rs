//! The bundled demo pair, generated rather than stored: a moving scene (a
//! gradient, a ball, a patch of fine detail) and a simulated blocky encode
//! of it whose strength swings over time, so VMAF visibly rises and falls.
//! Generating it keeps megabytes of video out of the repository and needs
//! no decoder; every frame is a pure function of its index, so the demo is
//! the same on every machine and seeks are free.

use std::path::{Path, PathBuf};

use vqscope_video::error::Shown;
use vqscope_video::{
    ChromaFormat, ColorInfo, Frame, Geometry, PixelFormat, Rational, SourceInfo, VideoError,
    VideoSource,
};

pub const WIDTH: u32 = 480;
pub const HEIGHT: u32 = 272;
pub const FRAMES: u64 = 48;
pub const FPS: u32 = 24;

/// Which side of the demo pair a source produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Reference,
    Distorted,
}

/// A [`VideoSource`] over the synthetic demo.
pub struct DemoSource {
    side: Side,
    info: SourceInfo,
    next: u64,
}

impl DemoSource {
    pub fn new(side: Side) -> Self {
        let (name, what) = match side {
            Side::Reference => ("demo-reference", "reference"),
            Side::Distorted => ("demo-distorted", "simulated blocky encode"),
        };
        let info = SourceInfo {
            path: PathBuf::from(name),
            geometry: geometry(),
            color: ColorInfo::default(),
            frame_rate: Rational::new(FPS, 1),
            frame_count: Some(FRAMES),
            seekable: true,
            description: format!("synthetic demo ({what})"),
            scaled_from: None,
            frames_at: None,
        };
        DemoSource { side, info, next: 0 }
    }
}

impl VideoSource for DemoSource {
    fn info(&self) -> &SourceInfo {
        &self.info
    }

    fn read_frame(&mut self, index: u64) -> vqscope_video::Result<Frame> {
        if index >= FRAMES {
            return Err(VideoError::FrameOutOfRange {
                path: Shown::new(Path::new(&self.info.path)),
                frame: index,
                count: FRAMES,
            });
        }
        self.next = index + 1;
        let data = match self.side {
            Side::Reference => reference(index),
            Side::Distorted => distort(&reference(index), index),
        };
        Ok(Frame { geometry: geometry(), color: ColorInfo::default(), index, data: data.into() })
    }

    fn next_frame(&mut self) -> vqscope_video::Result<Option<Frame>> {
        if self.next >= FRAMES {
            return Ok(None);
        }
        self.read_frame(self.next).map(Some)
    }
}

fn geometry() -> Geometry {
    Geometry {
        width: WIDTH,
        height: HEIGHT,
        format: PixelFormat { chroma: ChromaFormat::Yuv420, bit_depth: 8 },
    }
}

/// Reference frame `f`: 8-bit 4:2:0, planes back to back.
fn reference(f: u64) -> Vec<u8> {
    let (w, h) = (WIDTH as usize, HEIGHT as usize);
    let t = f as f32;
    let ball = [60.0 + t * 7.5, 136.0 + 60.0 * (t * 0.2).sin()];
    let mut data = Vec::with_capacity(w * h * 3 / 2);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32, y as f32);
            let mut v =
                40.0 + 150.0 * (fx + fy) / (w + h) as f32 + 12.0 * (fx * 0.05 + t * 0.3).sin();
            // A patch of fine detail drifting sideways: what an encode loses first.
            if (300..460).contains(&x) && (24..124).contains(&y) {
                let phase = (x + f as usize) / 2 + y / 2;
                v = if phase.is_multiple_of(2) { 200.0 } else { 60.0 };
            }
            let d = ((fx - ball[0]).powi(2) + (fy - ball[1]).powi(2)).sqrt();
            let inside = (40.0 - d).clamp(0.0, 1.0);
            v = v * (1.0 - inside) + (225.0 - d * 1.5) * inside;
            data.push(v.clamp(16.0, 235.0) as u8);
        }
    }
    for plane in 0..2 {
        for y in 0..h / 2 {
            for x in 0..w / 2 {
                let (fx, fy) = (2.0 * x as f32, 2.0 * y as f32);
                let d = ((fx - ball[0]).powi(2) + (fy - ball[1]).powi(2)).sqrt();
                let base = if plane == 0 { 110.0 + fx * 0.08 } else { 120.0 + fy * 0.06 };
                let tint = if plane == 0 { 80.0 } else { 190.0 };
                let inside = (40.0 - d).clamp(0.0, 1.0);
                data.push((base * (1.0 - inside) + tint * inside) as u8);
            }
        }
    }
    data
}

/// How much of each block's detail the simulated encoder keeps at frame `f`.
fn keep(f: u64) -> f32 {
    0.2 + 0.7 * (0.5 + 0.5 * (f as f32 * 0.35).cos())
}

/// The simulated encode: every block is pulled towards its mean (by a
/// strength that varies with the frame) and quantised, which gives the
/// blocking and lost detail of a starved encoder.
fn distort(reference: &[u8], f: u64) -> Vec<u8> {
    let (w, h) = (WIDTH as usize, HEIGHT as usize);
    let keep = keep(f);
    let mut out = reference.to_vec();
    let planes = [(0, w, h, 8), (w * h, w / 2, h / 2, 4), (w * h + w * h / 4, w / 2, h / 2, 4)];
    for (offset, pw, ph, block) in planes {
        for by in (0..ph).step_by(block) {
            for bx in (0..pw).step_by(block) {
                let (ys, xs) = (by..(by + block).min(ph), bx..(bx + block).min(pw));
                let n = (ys.len() * xs.len()) as f32;
                let sum: f32 = ys
                    .clone()
                    .flat_map(|y| xs.clone().map(move |x| (y, x)))
                    .map(|(y, x)| f32::from(reference[offset + y * pw + x]))
                    .sum();
                let mean = sum / n;
                for y in ys.clone() {
                    for x in xs.clone() {
                        let i = offset + y * pw + x;
                        let v = mean + (f32::from(reference[i]) - mean) * keep;
                        out[i] = ((v / 6.0).round() * 6.0).clamp(0.0, 255.0) as u8;
                    }
                }
            }
        }
    }
    out
}
