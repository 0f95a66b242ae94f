//! Timestamp queries: the GPU's own clock around each pass, so benchmarks
//! report device time rather than host time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;

use crate::context::GpuContext;
use crate::error::{Result, vk_error};
use crate::submit::{Recorder, Submitter};

/// A pool of `count` timestamp queries.
pub struct Timestamps {
    ctx: Arc<GpuContext>,
    pub(crate) pool: vk::QueryPool,
    pub(crate) count: u32,
}

impl Timestamps {
    pub fn new(ctx: &Arc<GpuContext>, count: u32) -> Result<Self> {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count.max(1));
        // SAFETY: create info without pointers; the device outlives the pool through `ctx`.
        let pool = unsafe { ctx.device.create_query_pool(&info, None) }
            .map_err(vk_error("vkCreateQueryPool"))?;
        Ok(Self { ctx: ctx.clone(), pool, count: count.max(1) })
    }

    /// Raw tick values of every query (waits until they are available).
    pub fn read_ticks(&self) -> Result<Vec<u64>> {
        let mut ticks = vec![0u64; self.count as usize];
        // SAFETY: the pool holds `count` 64-bit results and `ticks` has room for exactly those;
        // WAIT makes the call return only when they are written.
        unsafe {
            self.ctx.device.get_query_pool_results(
                self.pool,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(vk_error("vkGetQueryPoolResults"))?;
        Ok(ticks)
    }

    /// Milliseconds between consecutive timestamps: entry `i` is the time
    /// from query `i` to query `i + 1`.
    pub fn read_intervals_ms(&self) -> Result<Vec<f64>> {
        let ticks = self.read_ticks()?;
        let period = f64::from(self.ctx.info().timestamp_period);
        Ok(ticks.windows(2).map(|w| w[1].wrapping_sub(w[0]) as f64 * period / 1e6).collect())
    }
}

impl Drop for Timestamps {
    fn drop(&mut self) {
        // SAFETY: owned by this value; owners wait for the submissions that write the queries
        // before dropping it.
        unsafe { self.ctx.device.destroy_query_pool(self.pool, None) };
    }
}

/// Records `record_frame` 32 times a submission until `at_least` of wall
/// time has passed, to time a warm GPU: an idle H200 sits at 345 MHz and
/// needs sustained work before it reaches its boost clock.
pub fn keep_busy(
    submitter: &mut Submitter,
    at_least: Duration,
    mut record_frame: impl FnMut(&mut Recorder<'_>) -> Result<()>,
) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < at_least {
        submitter.run(|rec| (0..32).try_for_each(|_| record_frame(rec)))?;
    }
    Ok(())
}

/// Median of `v` (sorted in place; the upper one of an even count).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median milliseconds of each of `phases` intervals over `frames` frames
/// recorded in one submission, each frame by `record_frame(rec, stamps)`
/// into its own `phases + 1` timestamps (a kernel's `record_profiled`,
/// which puts every dispatch alone between barriers).
pub fn phase_medians(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    phases: usize,
    frames: usize,
    mut record_frame: impl FnMut(&mut Recorder<'_>, &Timestamps) -> Result<()>,
) -> Result<Vec<f64>> {
    let stamps = (0..frames.max(1))
        .map(|_| Timestamps::new(ctx, phases as u32 + 1))
        .collect::<Result<Vec<_>>>()?;
    submitter.run(|rec| {
        for s in &stamps {
            rec.reset_timestamps(s);
            record_frame(rec, s)?;
        }
        Ok(())
    })?;
    let mut per_phase = vec![Vec::with_capacity(stamps.len()); phases];
    for s in &stamps {
        for (phase, ms) in per_phase.iter_mut().zip(s.read_intervals_ms()?) {
            phase.push(ms);
        }
    }
    Ok(per_phase.iter_mut().map(|v| median(v)).collect())
}

/// Timestamp commands, kept beside the query pool they write.
impl Recorder<'_> {
    /// Resets the queries of `timestamps`; call before writing them.
    pub fn reset_timestamps(&mut self, timestamps: &Timestamps) {
        // SAFETY: `cmd` is recording; the query pool belongs to this device and the range is the
        // whole pool.
        unsafe {
            self.context().device.cmd_reset_query_pool(
                self.raw(),
                timestamps.pool,
                0,
                timestamps.count,
            )
        };
    }

    /// Writes timestamp `index` once all earlier work has finished.
    pub fn timestamp(&mut self, timestamps: &Timestamps, index: u32) {
        // SAFETY: `cmd` is recording; the query pool belongs to this device; `index` is the
        // caller's, checked by validation.
        unsafe {
            self.context().device.cmd_write_timestamp2(
                self.raw(),
                vk::PipelineStageFlags2::ALL_COMMANDS,
                timestamps.pool,
                index,
            )
        };
    }
}
