//! What tests of frame-level code share (the scaler's CPU twin against
//! ffmpeg, the GPU scale against the twin): random frames.

use vqscope_gpu::testing::Rng;

use crate::{ColorInfo, Frame, Geometry};

/// A frame of `geometry` with random samples, one in four at either end
/// of the range, so that a filter's overshoot reaches both clips.
pub fn random_frame(rng: &mut Rng, geometry: Geometry) -> Frame {
    let depth = geometry.format.bit_depth;
    let mut data = Vec::with_capacity(geometry.frame_bytes());
    for _ in 0..geometry.frame_bytes() / geometry.format.bytes_per_sample() {
        let v = match rng.below(8) {
            0 => 0,
            1 => (1u64 << depth) - 1,
            _ => rng.below(1 << depth),
        } as u16;
        if depth == 8 {
            data.push(v as u8);
        } else {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    Frame { geometry, color: ColorInfo::default(), index: 0, data: data.into() }
}
