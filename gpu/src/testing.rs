//! What every GPU test needs: a context with the validation layer on, and a
//! check that fails the test on any validation message.

use std::sync::Arc;

use crate::context::{ContextOptions, GpuContext};
use crate::error::Result;
use crate::submit::{Recorder, Submitter};
use crate::timing::Timestamps;
use crate::validation::all_messages;

/// A context with validation on (device choice still from `VQSCOPE_DEVICE`).
/// Panics with the error's message when no device qualifies: a test must
/// fail, not skip, without a GPU. `VQSCOPE_TEST_VALIDATION=0` turns the
/// layer off, only to tell a layer fault from a driver fault on a device.
pub fn test_context() -> Arc<GpuContext> {
    let validation = std::env::var("VQSCOPE_TEST_VALIDATION").map_or(true, |v| v != "0");
    let options = ContextOptions { validation, video_decode: true, ..ContextOptions::from_env() };
    match GpuContext::new(&options) {
        Ok(ctx) => Arc::new(ctx),
        Err(e) => panic!("cannot create a Vulkan context for tests: {e}"),
    }
}

/// Panics if the validation layer has said anything in this process.
pub fn assert_no_validation_messages() {
    let messages = all_messages();
    assert!(
        messages.is_empty(),
        "{} validation message(s):\n{}",
        messages.len(),
        messages.join("\n")
    );
}

/// lavapipe picks its subgroup size from `LP_NATIVE_VECTOR_WIDTH` when the
/// driver loads (128, 256, 512 bits give 4, 8, 16 lanes), so one process
/// sees one size. A test that must hold at every size starts with
/// `if !at_every_lavapipe_subgroup_size("test_name") { return; }`: on
/// lavapipe the parent re-runs `test_name` in three child processes, one
/// per width, checks that each saw the size it asked for and passed, and
/// returns `false`; a child (or any other device) returns `true` and runs
/// the body.
pub fn at_every_lavapipe_subgroup_size(test_name: &str) -> bool {
    const CHILD: &str = "VQSCOPE_SUBGROUP_CHILD";
    if let Ok(expected) = std::env::var(CHILD) {
        let ctx = test_context();
        assert_eq!(
            ctx.info().subgroup_size.to_string(),
            expected,
            "child process did not get the subgroup size it asked for"
        );
        return true;
    }
    let is_lavapipe = test_context().info().name.contains("llvmpipe");
    if !is_lavapipe {
        return true;
    }
    let exe = std::env::current_exe().expect("test executable");
    for (width, lanes) in [(128, 4), (256, 8), (512, 16)] {
        let out = std::process::Command::new(&exe)
            .args([test_name, "--exact", "--test-threads=1", "--nocapture"])
            .env("LP_NATIVE_VECTOR_WIDTH", width.to_string())
            .env(CHILD, lanes.to_string())
            .output()
            .expect("re-run the test in a child process");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "{test_name} at subgroup size {lanes} (LP_NATIVE_VECTOR_WIDTH={width}) failed:\n{text}"
        );
    }
    false
}

/// Deterministic pseudo-random numbers for GPU-vs-CPU tests (xorshift64):
/// the same seed gives the same frames on every machine, so a failure can
/// be replayed.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        (self.next_u64() >> 11) % n
    }

    /// An odd number in `lo..=hi` (`lo` odd).
    pub fn odd(&mut self, lo: u64, hi: u64) -> usize {
        (lo + 2 * self.below((hi - lo) / 2 + 1)) as usize
    }
}

/// The timing tests' median of GPU milliseconds.
pub use crate::timing::median;

/// GPU time of one frame: `frames` recordings of `record_frame` in one
/// submission with a timestamp after each, for the kernels' timing tests.
/// `record_frame` must start with a barrier, so that frames do not overlap.
/// Returns the median, min and max ms.
pub fn frame_ms(
    ctx: &Arc<GpuContext>,
    submitter: &mut Submitter,
    frames: u32,
    mut record_frame: impl FnMut(&mut Recorder<'_>) -> Result<()>,
) -> (f64, f64, f64) {
    let stamps = Timestamps::new(ctx, frames + 1).expect("timestamp queries");
    submitter
        .run(|rec| {
            rec.reset_timestamps(&stamps);
            rec.barrier();
            rec.timestamp(&stamps, 0);
            for i in 0..frames {
                record_frame(rec)?;
                rec.timestamp(&stamps, i + 1);
            }
            Ok(())
        })
        .expect("timed frames");
    let mut ms = stamps.read_intervals_ms().expect("timestamps");
    let mid = median(&mut ms);
    (mid, ms[0], ms[ms.len() - 1])
}

/// This CPU's `rcpss` estimate of `1/x` (x86-64 only; None elsewhere), for
/// tests of CPU code that models it (the metrics crate's float ADM). It
/// lives here because this crate is the only one allowed `unsafe`, and
/// calling the intrinsic takes it.
pub fn x86_rcp_estimate(x: f32) -> Option<f32> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rcp_ss, _mm_set_ss};
        // SAFETY: the intrinsics need SSE, which every x86-64 CPU has (it
        // is part of the architecture's baseline); they touch no memory.
        Some(unsafe { _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = x;
        None
    }
}
