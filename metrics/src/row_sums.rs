//! The ordered float sums the float features share: libvmaf adds per-sample
//! floats one by one along each row into a float that starts at 0, then
//! the row totals top to bottom into another float that starts at 0. A sum
//! in any other order rounds differently (far beyond libvmaf's printed
//! digits on a large frame), so [`RowSums`] keeps that order exactly:
//!
//! 1. float_row_sums.comp: one workgroup per ([`GROUP_ROWS`] rows, field,
//!    segment) stages the rows in shared memory with coalesced loads, a
//!    chunk of columns at a time (the next while the current is added), and
//!    one invocation per row adds it left to right;
//! 2. float_row_totals.comp: one workgroup per (field, segment) stages the
//!    row totals the same way and one invocation adds them top to bottom,
//!    leaving the float in a result word ([`ResultWord`]).
//!
//! Nothing depends on the subgroup size or on scheduling: each sum is one
//! invocation's in-order loop.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use vqscope_gpu::{Binding, Buffer, ComputePipeline, GpuContext, PipelineDesc, Recorder};

/// Most segments one dispatch covers (`segments[4]` in the shaders).
pub const MAX_SEGMENTS: usize = 4;

/// Rows one float_row_sums.comp workgroup adds (`ROWS` there).
const GROUP_ROWS: u32 = 32;

/// One segment (a scale or level): `fields` planes of `rows × cols` floats,
/// field `f`'s row `r` at float `vals_base + (f·rows + r)·cols` of the
/// values, its row total at float `sums_base + f·rows + r` of the sums.
/// A segment of 0 rows sums to 0. Twin of `RowSegment` in
/// float_row_sums.glsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RowSegment {
    pub rows: u32,
    pub cols: u32,
    pub vals_base: u32,
    pub sums_base: u32,
}

/// Twin of float_row_sums.glsl's push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct RowSumsPush {
    segments: [RowSegment; MAX_SEGMENTS],
    fields: u32,
    out_base: u32,
}

/// The twins above as the layout test checks them against the SPIR-V
/// (`crate::device::shader_layouts`).
#[cfg(test)]
pub(crate) fn twins() -> Vec<vqscope_shaders::twin::Twin> {
    use vqscope_shaders::{METRICS_FLOAT_ROW_SUMS, METRICS_FLOAT_ROW_TOTALS, twin};
    vec![
        twin!(RowSegment as "RowSegment" in [METRICS_FLOAT_ROW_SUMS, METRICS_FLOAT_ROW_TOTALS] {
            rows, cols, vals_base, sums_base,
        }),
        twin!(RowSumsPush as "Push" in [METRICS_FLOAT_ROW_SUMS, METRICS_FLOAT_ROW_TOTALS] {
            segments, fields, out_base,
        }),
    ]
}

/// Where the samples of one sum come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowValues {
    /// The stored per-sample values.
    Stored,
    /// `|a − b|` of two planes stored back to back (`fields` must be 1:
    /// `b`'s row `r` sits where field 1's would).
    AbsDiff,
}

/// How a total travels in its int64 result word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultWord {
    /// The `f32`'s bits, zero-extended.
    FloatBits,
    /// The bits of the `f32` widened to `f64`.
    DoubleBits,
}

impl ResultWord {
    /// The float a result word holds.
    pub fn decode(self, word: i64) -> f32 {
        match self {
            ResultWord::FloatBits => f32::from_bits(word as u32),
            ResultWord::DoubleBits => f64::from_bits(word as u64) as f32,
        }
    }
}

/// The segments one dispatch sums, `fields` each.
#[derive(Debug, Clone, Copy)]
pub struct RowLayout {
    pub segments: [RowSegment; MAX_SEGMENTS],
    /// How many of `segments` are used (1 to [`MAX_SEGMENTS`]).
    pub count: u32,
    pub fields: u32,
}

impl RowLayout {
    /// One segment of `fields` fields.
    pub fn single(segment: RowSegment, fields: u32) -> Self {
        let mut segments = [RowSegment::default(); MAX_SEGMENTS];
        segments[0] = segment;
        Self { segments, count: 1, fields }
    }

    fn push(&self, out_base: u32) -> RowSumsPush {
        RowSumsPush { segments: self.segments, fields: self.fields, out_base }
    }

    fn used(&self) -> &[RowSegment] {
        &self.segments[..self.count as usize]
    }
}

/// The two pipelines of the ordered sums.
pub struct RowSums {
    rows: ComputePipeline,
    totals: ComputePipeline,
}

impl RowSums {
    pub fn new(
        ctx: &Arc<GpuContext>,
        values: RowValues,
        word: ResultWord,
    ) -> vqscope_gpu::Result<Self> {
        let spec = [(0u32, u32::from(values == RowValues::AbsDiff))];
        let widen = [(0u32, u32::from(word == ResultWord::DoubleBits))];
        Ok(Self {
            rows: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/float_row_sums",
                    specialization: &spec,
                    ..PipelineDesc::new(vqscope_shaders::METRICS_FLOAT_ROW_SUMS)
                },
            )?,
            totals: ComputePipeline::new(
                ctx,
                &PipelineDesc {
                    name: "metrics/float_row_totals",
                    specialization: &widen,
                    ..PipelineDesc::new(vqscope_shaders::METRICS_FLOAT_ROW_TOTALS)
                },
            )?,
        })
    }

    /// Records every row's float sum of `layout`'s segments, from `vals`
    /// into `sums` (no barrier).
    pub fn record_rows(
        &self,
        rec: &mut Recorder<'_>,
        vals: Binding<'_>,
        sums: Binding<'_>,
        layout: &RowLayout,
    ) -> vqscope_gpu::Result<()> {
        let rows = layout.used().iter().map(|s| s.rows).max().unwrap_or(0).max(1);
        rec.dispatch(
            &self.rows,
            &[vals, sums],
            bytemuck::bytes_of(&layout.push(0)),
            [rows.div_ceil(GROUP_ROWS), layout.fields, layout.count],
        )
    }

    /// Records the float sums of the row totals in `sums` (what
    /// [`RowSums::record_rows`] left there), segment `s`'s field `f` into
    /// `results[out_base + s·fields + f]` as the [`ResultWord`] this
    /// `RowSums` was made with (no barrier).
    pub fn record_totals(
        &self,
        rec: &mut Recorder<'_>,
        sums: Binding<'_>,
        results: &Buffer,
        layout: &RowLayout,
        out_base: u32,
    ) -> vqscope_gpu::Result<()> {
        rec.dispatch(
            &self.totals,
            &[sums, Binding::Buffer(results)],
            bytemuck::bytes_of(&layout.push(out_base)),
            [layout.fields, layout.count, 1],
        )
    }
}
