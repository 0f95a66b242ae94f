//! What the GPU-vs-twin tests of the features share: random planes with
//! junk in their stride padding, distorted copies of them, and their upload
//! into one buffer at awkward offsets, so a kernel that reads past a row,
//! ignores a stride or assumes an offset of zero fails; and a poisoned
//! results buffer around the kernel's result words, so a kernel that
//! ignores its result offset or writes outside its slots fails too.

use std::sync::Arc;

use vqscope_gpu::testing::Rng;
use vqscope_gpu::{Buffer, GpuContext, Recorder, Submitter, download_buffer, upload_buffer};

use crate::PlaneView;
use crate::device::{DevicePlane, PlaneDesc, packed_desc, plane_bytes};

/// Written over result buffers before a run: a slot the kernel leaves
/// alone cannot pass for a result.
pub const POISON: u32 = 0xDEAD_BEEF;

/// The word offset [`poisoned_results`] hands its `record`: not zero, so a
/// kernel that ignores it fails, and odd, so one that rounds it to an even
/// word (or a pair of words) fails too.
pub const RESULT_OFFSET: u32 = 3;

/// Poisoned words [`poisoned_results`] checks after the kernel's slots.
const WORDS_AFTER: u32 = 2;

/// Runs `record` in one submission against a results buffer poisoned with
/// [`POISON`] (and a barrier), handing it the recorder, the buffer and the
/// word offset ([`RESULT_OFFSET`]) its `n_words` result words belong at;
/// returns those words. The poison before the offset and in the words after
/// the slots must survive, or this panics: a kernel that ignores its offset,
/// or writes outside its slots, fails instead of passing by luck (a slot it
/// leaves alone reads as poison, which no twin's value matches).
pub fn poisoned_results(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    n_words: u32,
    record: impl FnOnce(&mut Recorder<'_>, &Buffer, u32) -> vqscope_gpu::Result<()>,
) -> Vec<i64> {
    let (start, end) = (RESULT_OFFSET as usize, (RESULT_OFFSET + n_words) as usize);
    let len = u64::from(RESULT_OFFSET + n_words + WORDS_AFTER) * 8;
    let results = Buffer::storage(ctx, "poisoned test results", len).unwrap();
    submitter
        .run(|rec| {
            rec.fill(&results, POISON);
            rec.barrier();
            record(rec, &results, RESULT_OFFSET)
        })
        .unwrap();
    let bytes = download_buffer(ctx, submitter, &results, len).unwrap();
    let words: Vec<i64> =
        bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    let poison = i64::from(POISON) | (i64::from(POISON) << 32);
    assert!(words[..start].iter().all(|&w| w == poison), "kernel wrote before its offset");
    assert!(words[end..].iter().all(|&w| w == poison), "kernel wrote past its slots");
    words[start..end].to_vec()
}

/// A frame pair on the device: each side's buffer and descriptor, as
/// [`upload_strided`] returns them.
pub type UploadedPair = (Buffer, PlaneDesc, Buffer, PlaneDesc);

/// Runs `record` for every pair of `pairs` in one command buffer (so a
/// kernel's reuse of its intermediates across frames is exercised), pair
/// `i`'s `words` result words at their own offset of one
/// [`poisoned_results`] buffer; returns each pair's words.
pub fn poisoned_pair_results(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    pairs: &[UploadedPair],
    words: usize,
    mut record: impl FnMut(
        &mut Recorder<'_>,
        &DevicePlane<'_>,
        &DevicePlane<'_>,
        &Buffer,
        u32,
    ) -> vqscope_gpu::Result<()>,
) -> Vec<Vec<i64>> {
    let n = (pairs.len() * words) as u32;
    let all = poisoned_results(ctx, submitter, n, |rec, results, at| {
        for (i, (rb, rd, db, dd)) in pairs.iter().enumerate() {
            let r = DevicePlane { buffer: rb, desc: *rd };
            let d = DevicePlane { buffer: db, desc: *dd };
            record(rec, &r, &d, results, at + (i * words) as u32)?;
        }
        Ok(())
    });
    all.chunks(words).map(<[i64]>::to_vec).collect()
}

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

/// Uploads `p` alone at byte `offset` of a buffer, `stride` samples a row:
/// the bytes before it and the stride padding are junk (0xA5) the kernel
/// must not read. The buffer ends on a whole 32-bit word past the plane, as
/// the kernels' word loads need (`device::upload_plane` sizes the buffer to
/// the exact byte count, so an 8-bit plane of odd area loses its last
/// samples to robust buffer access).
pub fn upload_strided(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    p: &PlaneView,
    offset: usize,
    stride: usize,
) -> (Buffer, PlaneDesc) {
    let bps = if p.bpc <= 8 { 1 } else { 2 };
    let mut bytes = vec![0xA5u8; offset + stride * p.height * bps + 4];
    for y in 0..p.height {
        for (x, &v) in p.row(y).iter().enumerate() {
            let at = offset + (y * stride + x) * bps;
            bytes[at..at + bps].copy_from_slice(&v.to_le_bytes()[..bps]);
        }
    }
    let buffer = upload_buffer(ctx, submitter, "strided plane", &bytes).unwrap();
    let mut desc = packed_desc(p.width, p.height, p.bpc, offset as u32);
    desc.stride = stride as u32;
    (buffer, desc)
}

/// A frame pair for the wavelet features (ADM): a reference with structure
/// at several scales (smooth gradients, an edge, noise) so every wavelet
/// level carries signal, and a distorted version, chosen per pair, that is
/// attenuated (blur-like) with noise, enhanced, strongly noisy or unrelated,
/// so the decoupling, gain-limit and masking branches all get exercised.
/// Both `w` x `h`, packed, at `bpc` bits (8 or more).
pub fn multiscale_pair(rng: &mut Rng, w: usize, h: usize, bpc: u32) -> (Vec<u16>, Vec<u16>) {
    let max = (1i64 << bpc) - 1;
    let scale = 1i64 << (bpc - 8);
    let (fx, fy) = (1 + rng.below(7) as i64, 1 + rng.below(5) as i64);
    let edge = rng.below(w as u64) as i64;
    let mut reference = Vec::with_capacity(w * h);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let wave = ((x * fx + y * fy) % 64 - 32) * 3;
            let step = if x < edge { 40 } else { -40 };
            let noise = rng.below(64) as i64 - 32;
            reference.push(((128 + wave + step + noise) * scale).clamp(0, max));
        }
    }
    let mode = rng.below(4);
    let distorted: Vec<i64> = reference
        .iter()
        .map(|&r| {
            let n = rng.below(16 * scale as u64 + 1) as i64 - 8 * scale;
            let mid = 128 * scale;
            let d = match mode {
                0 => mid + (r - mid) * 3 / 4 + n,      // attenuated + noise
                1 => mid + (r - mid) * 5 / 4 + n / 4,  // enhanced
                2 => r + n * 4,                        // strong noise
                _ => rng.below(max as u64 + 1) as i64, // unrelated
            };
            d.clamp(0, max)
        })
        .collect();
    (
        reference.into_iter().map(|v| v as u16).collect(),
        distorted.into_iter().map(|v| v as u16).collect(),
    )
}
