//! The keyword options of `vqscope.score`, named as `vqscope score`'s flags.

use anyhow::Result;
use pyo3::prelude::*;
use vqscope_metrics::frontend::{self, ModelLabel, SelectionArgs};
use vqscope_metrics::vmaf::Selection;
use vqscope_video::{ChromaFormat, DecodeChoice, PairOptions, RawGeometry};

/// What to compute and how to read the inputs; every field is the CLI flag
/// of the same name.
#[pyclass(module = "vqscope._native", frozen)]
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    pub selection: SelectionArgs,
    pub pair: PairOptions,
    pub subsample: u64,
    width: Option<u32>,
    height: Option<u32>,
    pixel_format: Option<String>,
    bitdepth: Option<u32>,
    pub scale_distorted: bool,
    pub threads: Option<usize>,
    pub device: Option<String>,
    /// `--decode`: which decoder reads compressed files in this call.
    pub decode: DecodeChoice,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (*, models=None, features=None, aom_ctc=None, nflx_ctc=None,
        no_prediction=false, frame_cnt=None, frame_skip_ref=0, frame_skip_dist=0, subsample=1,
        width=None, height=None, pixel_format=None, bitdepth=None, scale_distorted=false,
        threads=None, device=None, decode=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per CLI flag.
    fn new(
        models: Option<Vec<String>>,
        features: Option<Vec<String>>,
        aom_ctc: Option<String>,
        nflx_ctc: Option<String>,
        no_prediction: bool,
        frame_cnt: Option<u64>,
        frame_skip_ref: u64,
        frame_skip_dist: u64,
        subsample: u64,
        width: Option<u32>,
        height: Option<u32>,
        pixel_format: Option<String>,
        bitdepth: Option<u32>,
        scale_distorted: bool,
        threads: Option<usize>,
        device: Option<String>,
        decode: Option<String>,
    ) -> PyResult<Self> {
        let bad = |m: &str| Err(crate::VqscopeError::new_err(m.to_owned()));
        let subsample = frontend::every_nth(subsample);
        if threads.is_some_and(|n| !(1..=256).contains(&n)) {
            return bad("threads: 1 to 256");
        }
        if pixel_format.as_deref().is_some_and(|p| ChromaFormat::from_pixel_format(p).is_none()) {
            return bad("pixel_format: 420, 422 or 444");
        }
        if bitdepth.is_some_and(|b| !(8..=16).contains(&b)) {
            return bad("bitdepth: 8 to 16");
        }
        let Ok(decode) = decode.map_or(Ok(DecodeChoice::default()), |d| d.parse()) else {
            return bad("decode: auto, gpu or cpu");
        };
        Ok(Self {
            selection: SelectionArgs {
                models: models.unwrap_or_default(),
                features: features.unwrap_or_default(),
                aom_ctc,
                nflx_ctc,
                no_prediction,
                subsample,
            },
            pair: PairOptions {
                frame_skip_ref,
                frame_skip_dist,
                frame_cnt: frontend::frame_limit(frame_cnt),
            },
            subsample,
            width,
            height,
            pixel_format,
            bitdepth,
            scale_distorted,
            threads,
            device,
            decode,
        })
    }
}

impl Options {
    /// The models and features, as the CLI builds them from its flags.
    pub fn selection(&self) -> Result<(Selection, Vec<ModelLabel>)> {
        Ok(frontend::selection(&self.selection)?)
    }

    /// The raw geometry, if any raw option was given (all four are needed),
    /// as the CLI's `-w -h -p -b`.
    pub fn raw_geometry(&self) -> Result<Option<RawGeometry>> {
        match (self.width, self.height, &self.pixel_format, self.bitdepth) {
            (None, None, None, None) => Ok(None),
            (Some(width), Some(height), Some(p), Some(bit_depth)) => {
                // Checked in `Options::new`.
                let chroma = ChromaFormat::from_pixel_format(p).unwrap_or(ChromaFormat::Yuv444);
                Ok(Some(RawGeometry { width, height, chroma, bit_depth }))
            }
            _ => anyhow::bail!("raw input needs all of width, height, pixel_format and bitdepth"),
        }
    }
}
