//! Scoring files (y4m, raw yuv, anything ffmpeg reads), as `vqscope score
//! -r REF -d DIS` does: the same readers, pair rules, read-ahead and
//! messages; a ladder (several distorted) as `vqscope score -r REF -d A -d
//! B …` does, the reference read and uploaded once per frame for all.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use pyo3::prelude::*;
use vqscope_metrics::{MetricsError, frontend};
use vqscope_video::read_ahead::read_ahead_group;
use vqscope_video::{Decoder, READ_AHEAD, open_input, with_decode_choice};

use crate::options::Options;
use crate::result::NativeResult;
use crate::run::Run;

/// Scores each of `distorted` against `reference` (several at once, as
/// the lanes of one pipeline); the GIL is released while scoring.
#[pyfunction]
pub(crate) fn score_files(
    py: Python<'_>,
    reference: PathBuf,
    distorted: Vec<PathBuf>,
    options: &Options,
) -> PyResult<Vec<NativeResult>> {
    // The inputs are opened on this thread, so the call's decode choice is
    // this thread's while it runs.
    py.detach(|| {
        with_decode_choice(options.decode, || match distorted.as_slice() {
            [one] => Ok(vec![score_pair(&reference, one, options)?]),
            many => match score_ladder(&reference, many, options, true) {
                // A rendition was not as long as announced while motion was
                // shared: score them again without sharing.
                Err(e) if matches!(e.downcast_ref(), Some(MetricsError::LanesDiverged)) => {
                    score_ladder(&reference, many, options, false)
                }
                scored => scored,
            },
        })
    })
    .map_err(crate::to_py)
}

/// Every rendition of a ladder against `reference` in one pass; with
/// `share`, and when the renditions announce the same length, the features
/// that read only the reference run once for all.
fn score_ladder(
    reference: &Path,
    distorted: &[PathBuf],
    options: &Options,
    share: bool,
) -> Result<Vec<NativeResult>> {
    let started = Instant::now();
    let selection = options.selection()?;
    let mut inputs = vec![reference];
    inputs.extend(distorted.iter().map(PathBuf::as_path));
    vqscope_video::check_stream_inputs(&inputs)?;
    let geometry = options.raw_geometry()?;
    let reference = open_input(reference, geometry)?;
    let clip_geometry = reference.info().geometry;
    let distorted = distorted
        .iter()
        .map(|d| frontend::open_distorted(reference.as_ref(), d, geometry, options.scale_distorted))
        .collect::<Result<Vec<_>, _>>()?;
    let mut group = read_ahead_group(reference, distorted, options.pair, options.threads)?;
    if !group.has_frames()? {
        bail!("no frames to score");
    }
    let ctx = crate::context::context(options.device.as_deref())?;
    let lanes = group.lanes();
    let same_frames = share && group.same_announced_length();
    let mut run =
        Run::new(&ctx, clip_geometry, selection, (lanes, same_frames), options.subsample, started)?;
    for k in 0..lanes {
        run.scale_lane(k, group.distorted(k).info())?;
    }
    while let Some(frames) = group.next_group()? {
        if let Some(e) = (0..lanes).find_map(|k| group.take_failure(k)) {
            return Err(e.into());
        }
        run.push_group(&frames)?;
        frames.recycle();
    }
    if let Some(e) = (0..lanes).find_map(|k| group.take_failure(k)) {
        return Err(e.into());
    }
    run.finish((0..lanes).map(|k| group.warnings(k).to_vec()).collect())
}

fn score_pair(reference: &Path, distorted: &Path, options: &Options) -> Result<NativeResult> {
    let started = Instant::now();
    let selection = options.selection()?;
    vqscope_video::check_stream_inputs(&[reference, distorted])?;
    let geometry = options.raw_geometry()?;
    let mut pair =
        frontend::open_pair(reference, distorted, geometry, options.scale_distorted, options.pair)?;
    let clip_geometry = pair.reference().info().geometry;
    let mut warnings = pair.warnings().to_vec();
    let distorted_info = pair.distorted().info().clone();
    if !pair.has_frames()? {
        bail!("no frames to score");
    }
    let mut decoder = match options.threads {
        Some(n) => Decoder::spawn_workers(pair, READ_AHEAD, n)?,
        None => Decoder::spawn(pair, READ_AHEAD)?,
    };
    let ctx = crate::context::context(options.device.as_deref())?;
    let mut run = Run::new(&ctx, clip_geometry, selection, (1, false), options.subsample, started)?;
    run.scale_lane(0, &distorted_info)?;
    while let Some(pair) = decoder.recv()? {
        run.push(&pair)?;
        pair.recycle();
    }
    warnings.extend(decoder.end_warnings().iter().cloned());
    decoder.shutdown()?;
    Ok(run.finish(vec![warnings])?.swap_remove(0))
}
