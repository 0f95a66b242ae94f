//! Errors of the metrics crate: every way a model, a frame size or an option
//! can be refused, each with a message a user can act on.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum MetricsError {
    /// The frame is smaller than the feature can handle.
    #[error("{feature}: a {width}x{height} frame is too small ({reason})")]
    FrameTooSmall {
        feature: &'static str,
        width: usize,
        height: usize,
        reason: &'static str,
    },
}
