//! `vqscope._native`: the Rust side of the `vqscope` Python package. It
//! scores with the same library calls as `vqscope score` (flags read by
//! `vqscope_metrics::frontend`, the same pooling and report writers), so a
//! Python caller gets the CLI's numbers; the Python layer (`vqscope/`) turns
//! the flat results into numpy arrays and DataFrames.

mod context;
mod files;
mod frames;
mod options;
mod result;
mod run;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    VqscopeError,
    PyException,
    "A vqscope error; its message is the line `vqscope score` prints (without `vqscope: `)."
);

/// An error as a `VqscopeError` whose message is the CLI's one line; a
/// Python exception (raised by a caller's frame generator) passes as it is.
pub(crate) fn to_py(e: anyhow::Error) -> PyErr {
    match e.downcast::<PyErr>() {
        Ok(e) => e,
        Err(e) => VqscopeError::new_err(vqscope_metrics::frontend::one_line(
            e.chain().map(|c| c.to_string()),
        )),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VqscopeError", m.py().get_type::<VqscopeError>())?;
    m.add("REPORT_VERSION", vqscope_metrics::frontend::REPORT_VERSION)?;
    m.add_class::<options::Options>()?;
    m.add_class::<result::NativeResult>()?;
    m.add_function(wrap_pyfunction!(files::score_files, m)?)?;
    m.add_function(wrap_pyfunction!(frames::score_frames, m)?)?;
    m.add_function(wrap_pyfunction!(context::device_name, m)?)?;
    m.add_function(wrap_pyfunction!(result::restore_result, m)?)?;
    Ok(())
}
