//! One GPU context per device for the whole process: every call (and every
//! rendition of a ladder) reuses it, so only the first call pays for the
//! Vulkan instance, the device and the pipeline cache; a Ray worker that
//! runs many tasks keeps it too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use pyo3::prelude::*;
use vqscope_gpu::{ContextOptions, GpuContext};

/// Contexts by device choice (`None`: `VQSCOPE_DEVICE` or the default).
static CONTEXTS: Mutex<Option<HashMap<Option<String>, Arc<GpuContext>>>> = Mutex::new(None);

/// The context for `device` (an index or a name substring, as
/// `VQSCOPE_DEVICE` takes it), made on first use with the CLI's options:
/// the environment's validation and device, the user's pipeline cache.
pub(crate) fn context(device: Option<&str>) -> Result<Arc<GpuContext>> {
    let mut guard = CONTEXTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let contexts = guard.get_or_insert_with(HashMap::new);
    let key = device.map(str::to_owned);
    if let Some(ctx) = contexts.get(&key) {
        return Ok(Arc::clone(ctx));
    }
    // The default device's context is the one inputs decode on: their
    // pictures then stay on the device (vqscope_video::decoding_context).
    let ctx = match (&key, vqscope_video::decoding_context()) {
        (None, Some(ctx)) => ctx,
        _ => {
            let from_env = ContextOptions::from_env_cached();
            // Its inputs decode on it (shared below): with the decode queues.
            let options = ContextOptions {
                device: key.clone().or(from_env.device.clone()),
                video_decode: true,
                ..from_env
            };
            Arc::new(GpuContext::new(&options)?)
        }
    };
    if key.is_none() {
        vqscope_video::share_decoding_context(&ctx);
    }
    contexts.insert(key, Arc::clone(&ctx));
    Ok(ctx)
}

/// The name of the Vulkan device vqscope scores on (`device` as in
/// `vqscope.score`).
#[pyfunction]
#[pyo3(signature = (device=None))]
pub(crate) fn device_name(py: Python<'_>, device: Option<String>) -> PyResult<String> {
    py.detach(|| context(device.as_deref()).map(|c| c.info().name.clone())).map_err(crate::to_py)
}
