//! What the GPU-vs-twin tests of the features share: random planes with
//! junk in their stride padding, distorted copies of them, and their upload
//! into one buffer at awkward offsets, so a kernel that reads past a row,
//! ignores a stride or assumes an offset of zero fails.

use std::sync::Arc;

use vqscope_gpu::testing::Rng;
use vqscope_gpu::{Buffer, GpuContext, Submitter, upload_buffer};

use crate::PlaneView;
use crate::device::{PlaneDesc, plane_bytes};

/// Written over result buffers before a run: a slot the kernel leaves
/// alone cannot pass for a result.
pub const POISON: u32 = 0xDEAD_BEEF;

/// One plane on the host, `stride` samples a row, the samples past `width`
/// being junk.
#[derive(Debug, Clone)]
pub struct HostPlane {
    pub width: usize,
    pub height: usize,
    pub stride: usize,
    pub bpc: u32,
    pub samples: Vec<u16>,
}

impl HostPlane {
    pub fn view(&self) -> PlaneView<'_> {
        PlaneView {
            width: self.width,
            height: self.height,
            stride: self.stride,
            bpc: self.bpc,
            samples: &self.samples,
        }
    }
}

/// A plane of one of four kinds, mixed per plane: noise, smooth ramps with
/// a little noise, flat with sparse outliers, full-range stripes (whose
/// differences round when squared at 16 bits). The stride padding is noise.
pub fn random_plane(rng: &mut Rng, width: usize, height: usize, bpc: u32) -> HostPlane {
    let max = (1u64 << bpc) - 1;
    let stride = width + rng.below(3) as usize;
    let style = rng.below(4);
    let (fx, fy) = (rng.below(7) + 1, rng.below(5) + 1);
    let base = rng.below(max + 1);
    let mut samples = vec![0u16; stride * height];
    for y in 0..height {
        for x in 0..stride {
            let v = match style {
                _ if x >= width => rng.below(max + 1),
                0 => rng.below(max + 1),
                1 => (base + x as u64 * fx + y as u64 * fy + rng.below(4)) % (max + 1),
                2 if rng.below(50) == 0 => rng.below(max + 1),
                2 => base,
                _ if (x / 5 + y / 3) % 2 == 0 => max,
                _ => rng.below(3),
            };
            samples[y * stride + x] = v as u16;
        }
    }
    HostPlane { width, height, stride, bpc, samples }
}

/// A copy of `plane` with every sample moved at random by up to one of
/// `amounts` or the full range, chosen per plane: mostly close, like real
/// distortion or the next frame.
pub fn nudged(rng: &mut Rng, plane: &HostPlane, amounts: [i64; 3]) -> HostPlane {
    let max = (1i64 << plane.bpc) - 1;
    let amount = [amounts[0], amounts[1], amounts[2], max][rng.below(4) as usize];
    let samples = plane
        .samples
        .iter()
        .map(|&s| {
            let d = rng.below(2 * amount as u64 + 1) as i64 - amount;
            (i64::from(s) + d).clamp(0, max) as u16
        })
        .collect();
    HostPlane { samples, ..*plane }
}

/// Uploads `planes` one after the other into one buffer, each after 0, 4
/// or 8 bytes of junk at a 4-byte aligned offset, with its stride; returns
/// the buffer and each plane's descriptor.
pub fn upload_planes(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    rng: &mut Rng,
    planes: &[&HostPlane],
) -> (Buffer, Vec<PlaneDesc>) {
    let mut bytes = Vec::new();
    let mut descs = Vec::new();
    for p in planes {
        let junk = 4 * rng.below(3) as usize;
        bytes.extend((0..junk).map(|_| rng.below(256) as u8));
        let offset = bytes.len() as u32;
        bytes.extend(plane_bytes(&PlaneView::packed(p.stride, p.height, p.bpc, &p.samples)));
        while bytes.len() % 4 != 0 {
            bytes.push(0xA5);
        }
        descs.push(PlaneDesc {
            offset,
            width: p.width as u32,
            height: p.height as u32,
            stride: p.stride as u32,
            bytes_per_sample: if p.bpc <= 8 { 1 } else { 2 },
            bpc: p.bpc,
            pad: [0; 2],
        });
    }
    bytes.extend([0u8; 4]);
    (upload_buffer(ctx, submitter, "test planes", &bytes).unwrap(), descs)
}
