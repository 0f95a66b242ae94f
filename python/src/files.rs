//! Scoring files (y4m, raw yuv, anything ffmpeg reads), as `vqscope score
//! -r REF -d DIS` does: the same readers, pair rules, read-ahead and
//! messages.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use pyo3::prelude::*;
use vqscope_metrics::frontend;
use vqscope_video::{Decoder, READ_AHEAD, open_input};

use crate::options::Options;
use crate::result::NativeResult;
use crate::run::Run;

/// Scores each of `distorted` against `reference`, one after the other on
/// one GPU context; the GIL is released while scoring.
#[pyfunction]
pub(crate) fn score_files(
    py: Python<'_>,
    reference: PathBuf,
    distorted: Vec<PathBuf>,
    options: &Options,
) -> PyResult<Vec<NativeResult>> {
    py.detach(|| {
        distorted.iter().map(|d| score_pair(&reference, d, options)).collect::<Result<Vec<_>>>()
    })
    .map_err(crate::to_py)
}

fn score_pair(reference: &Path, distorted: &Path, options: &Options) -> Result<NativeResult> {
    let started = Instant::now();
    let selection = options.selection()?;
    vqscope_video::check_stream_inputs(&[reference, distorted])?;
    let geometry = options.raw_geometry()?;
    let reference = open_input(reference, geometry)?;
    let clip_geometry = reference.info().geometry;
    let mut pair =
        frontend::open_pair(reference, distorted, geometry, options.scale_distorted, options.pair)?;
    let mut warnings = pair.warnings().to_vec();
    if !pair.has_frames()? {
        bail!("no frames to score");
    }
    let mut decoder = match options.threads {
        Some(n) => Decoder::spawn_workers(pair, READ_AHEAD, n)?,
        None => Decoder::spawn(pair, READ_AHEAD)?,
    };
    let ctx = crate::context::context(options.device.as_deref())?;
    let mut run = Run::new(&ctx, clip_geometry, selection, options.subsample, started)?;
    while let Some(pair) = decoder.recv()? {
        run.push(&pair)?;
        pair.recycle();
    }
    warnings.extend(decoder.end_warnings().iter().cloned());
    decoder.shutdown()?;
    run.finish(warnings)
}
