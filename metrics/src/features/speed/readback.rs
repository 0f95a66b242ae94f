//! The host path of both SpEED extractors for a Lanczos prescale (which the
//! GPU does not resample: its weights are libm's sines): whole planes of the
//! shared upload copied into the frame's result buffer (transfer copies,
//! no shader), read back and handed to the CPU twin.

use vqscope_gpu::{Buffer, Recorder, Timestamps};

use crate::device::DevicePlane;
use crate::features::record_single;

/// A plane the host reads back whole: its size, bit depth and the result
/// words it takes (its bytes, padded to whole 64-bit words).
#[derive(Debug, Clone, Copy)]
pub struct PlaneCopy {
    pub width: usize,
    pub height: usize,
    pub bpc: u32,
}

impl PlaneCopy {
    pub fn new(width: usize, height: usize, bpc: u32) -> Self {
        Self { width, height, bpc }
    }

    fn bytes(&self) -> u64 {
        (self.width * self.height * if self.bpc > 8 { 2 } else { 1 }) as u64
    }

    /// Result words one copy takes.
    pub fn words(&self) -> u32 {
        self.bytes().div_ceil(8) as u32
    }

    /// Records the copy of `plane` into `out` from word `at`.
    pub fn record(&self, rec: &mut Recorder<'_>, plane: &DevicePlane<'_>, out: &Buffer, at: u32) {
        rec.copy_buffer(
            plane.buffer,
            u64::from(plane.desc.offset),
            out,
            u64::from(at) * 8,
            self.bytes(),
        );
    }

    /// The samples of a copy, from its result words.
    pub fn samples(&self, words: &[i64]) -> Vec<u16> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let n = self.width * self.height;
        if self.bpc > 8 {
            bytes.chunks_exact(2).take(n).map(|b| u16::from_le_bytes([b[0], b[1]])).collect()
        } else {
            bytes[..n].iter().map(|&b| u16::from(b)).collect()
        }
    }
}

/// Records the copies of `planes` (with their shapes in `copies`) back to
/// back into `out` from word `offset_words`, between barriers.
pub fn record_copies(
    rec: &mut Recorder<'_>,
    copies: &[(PlaneCopy, DevicePlane<'_>)],
    out: &Buffer,
    offset_words: u32,
    stamps: Option<&Timestamps>,
) -> vqscope_gpu::Result<()> {
    record_single(rec, stamps, |rec| {
        rec.barrier();
        let mut at = offset_words;
        for (copy, plane) in copies {
            copy.record(rec, plane, out, at);
            at += copy.words();
        }
        rec.barrier();
        Ok(())
    })
}
