//! Scoring frames the caller decoded: each frame is its planes back to back
//! (Y, then Cb and Cr unless monochrome), each tightly packed row by row,
//! one byte a sample at 8 bits and two (little-endian) above: the layout of
//! a y4m or raw yuv frame. The Python layer builds these bytes from numpy
//! planes.

use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vqscope_video::{ChromaFormat, ColorInfo, Frame, FramePair, Geometry, PixelFormat};

use crate::options::Options;
use crate::result::NativeResult;
use crate::run::Run;

/// Scores the `(reference, distorted)` byte pairs of `frames` (any
/// iterable, read one pair at a time) of `width`×`height` frames in
/// `pixel_format` (`420`, `422`, `444` or `400` for luma only) at
/// `bitdepth` bits. `frame_cnt` applies as for files; the skips do not
/// (slice the frames instead).
#[pyfunction]
pub(crate) fn score_frames(
    frames: &Bound<'_, PyAny>,
    width: u32,
    height: u32,
    pixel_format: &str,
    bitdepth: u32,
    options: &Options,
) -> PyResult<NativeResult> {
    score(frames, width, height, pixel_format, bitdepth, options).map_err(crate::to_py)
}

fn score(
    frames: &Bound<'_, PyAny>,
    width: u32,
    height: u32,
    pixel_format: &str,
    bitdepth: u32,
    options: &Options,
) -> Result<NativeResult> {
    let started = Instant::now();
    let selection = options.selection()?;
    let chroma = match pixel_format {
        "400" => ChromaFormat::Mono,
        other => ChromaFormat::from_pixel_format(other)
            .ok_or_else(|| anyhow!("pixel_format {other}: 420, 422, 444 or 400"))?,
    };
    if !(8..=16).contains(&bitdepth) {
        bail!("bitdepth {bitdepth}: 8 to 16");
    }
    if width == 0
        || height == 0
        || width > vqscope_video::MAX_DIMENSION
        || height > vqscope_video::MAX_DIMENSION
    {
        bail!("{width}x{height}: width and height must be 1 to {}", vqscope_video::MAX_DIMENSION);
    }
    let geometry = Geometry { width, height, format: PixelFormat { chroma, bit_depth: bitdepth } };
    let frame = |data: &Bound<'_, PyAny>, index: u64, which: &str| -> Result<Frame> {
        let bytes = data
            .cast::<PyBytes>()
            .map_err(|_| anyhow::anyhow!("{which} frame {index}: not bytes"))?;
        let data = bytes.as_bytes();
        if data.len() != geometry.frame_bytes() {
            bail!(
                "{which} frame {index}: {} bytes, but a {width}x{height} {pixel_format} frame at \
                 {bitdepth} bits has {}",
                data.len(),
                geometry.frame_bytes()
            );
        }
        Ok(Frame { geometry, color: ColorInfo::default(), index, data: data.to_vec().into() })
    };
    if options.pair.frame_skip_ref > 0 || options.pair.frame_skip_dist > 0 {
        bail!("frame_skip_ref and frame_skip_dist are for files; slice the frames instead");
    }
    let mut selection = Some(selection);
    let mut run: Option<Run> = None;
    for (index, item) in frames.try_iter()?.enumerate() {
        let index = index as u64;
        if options.pair.frame_cnt.is_some_and(|n| index >= n) {
            break;
        }
        let (reference, distorted): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let pair = FramePair {
            index,
            reference: frame(&reference, index, "reference")?,
            distorted: frame(&distorted, index, "distorted")?,
        };
        let run = match &mut run {
            Some(run) => run,
            None => {
                let ctx = crate::context::context(options.device.as_deref())?;
                let selection = selection.take().expect("the selection is used once");
                run.insert(Run::new(
                    &ctx,
                    geometry,
                    selection,
                    (1, false),
                    options.subsample,
                    started,
                )?)
            }
        };
        run.push(&pair)?;
    }
    match run {
        Some(run) => Ok(run.finish(vec![Vec::new()])?.swap_remove(0)),
        None => bail!("no frames to score"),
    }
}
