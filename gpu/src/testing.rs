//! What every GPU test needs: a context with the validation layer on, and a
//! check that fails the test on any validation message.

use std::sync::Arc;

use crate::context::{ContextOptions, GpuContext};
use crate::validation::all_messages;

/// A context with validation on (device choice still from `VQSCOPE_DEVICE`).
/// Panics with the error's message when no device qualifies: a test must
/// fail, not skip, without a GPU.
pub fn test_context() -> Arc<GpuContext> {
    let options = ContextOptions { validation: true, ..ContextOptions::from_env() };
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
