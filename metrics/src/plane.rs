//! The view of one sample plane that every CPU twin and kernel driver takes.

use crate::MetricsError;

/// A plane of samples widened to u16, row-major with `stride` samples a row.
/// `bpc` is the bit depth the samples were coded with (8, 10, 12 or 16):
/// libvmaf's fixed-point paths shift and round by it.
#[derive(Debug, Clone, Copy)]
pub struct PlaneView<'a> {
    pub width: usize,
    pub height: usize,
    pub stride: usize,
    pub bpc: u32,
    pub samples: &'a [u16],
}

impl<'a> PlaneView<'a> {
    /// A tightly packed plane (stride = width).
    pub fn packed(width: usize, height: usize, bpc: u32, samples: &'a [u16]) -> Self {
        assert_eq!(samples.len(), width * height, "plane length");
        Self { width, height, stride: width, bpc, samples }
    }

    /// Sample at column `x`, row `y`.
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> u16 {
        self.samples[y * self.stride + x]
    }

    /// Row `y` as a slice of `width` samples.
    #[inline]
    pub fn row(&self, y: usize) -> &'a [u16] {
        &self.samples[y * self.stride..y * self.stride + self.width]
    }
}

/// Refuses a reference/distorted pair that differ in size or bit depth,
/// naming `feature` in the error.
pub fn check_pair(
    feature: &'static str,
    a: &PlaneView<'_>,
    b: &PlaneView<'_>,
) -> Result<(), MetricsError> {
    if a.width != b.width || a.height != b.height || a.bpc != b.bpc {
        return Err(MetricsError::PlaneMismatch {
            feature,
            ref_width: a.width,
            ref_height: a.height,
            ref_bpc: a.bpc,
            dis_width: b.width,
            dis_height: b.height,
            dis_bpc: b.bpc,
        });
    }
    Ok(())
}
