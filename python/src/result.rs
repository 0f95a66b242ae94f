//! A scored clip as the Python layer reads it: flat per-frame values (made
//! into numpy arrays there), the pooled values and the CLI's pooled lines,
//! and the report in libvmaf's formats.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use vqscope_metrics::pipeline::FrameScores;
use vqscope_metrics::report::{Format, PooledMetric, ReportStream};

/// Everything a result is made from, for pickling (Ray sends results
/// between processes): names, every frame's values (f64, native-endian),
/// subsample, size, aggregates, pooled lines, device, warnings, seconds.
pub(crate) type State = (
    Vec<String>,
    Vec<u8>,
    u64,
    (u32, u32),
    Vec<(String, f64)>,
    Vec<String>,
    String,
    Vec<String>,
    f64,
);

/// A column's pooled min, max, mean and harmonic mean.
type PooledValues = (f64, f64, f64, f64);

/// Rebuilds a result from its `state()` (for pickling).
#[pyfunction]
pub(crate) fn restore_result(state: State) -> PyResult<NativeResult> {
    NativeResult::restore(state).map_err(crate::to_py)
}

/// The result of one reference/distorted pair.
#[pyclass(module = "vqscope._native", frozen)]
pub(crate) struct NativeResult {
    pub names: Vec<String>,
    pub frames: Vec<FrameScores>,
    pub pooled: Vec<PooledMetric>,
    pub pooled_lines: Vec<String>,
    pub aggregates: Vec<(String, f64)>,
    pub subsample: u64,
    pub size: (u32, u32),
    pub device: String,
    pub warnings: Vec<String>,
    pub seconds: f64,
}

impl NativeResult {
    /// A result rebuilt from [`NativeResult::state`]: the pooled values are
    /// pooled again from the frames, by the code that pooled them first.
    pub fn restore(state: State) -> anyhow::Result<Self> {
        let (names, values, subsample, size, aggregates, pooled_lines, device, warnings, seconds) =
            state;
        let names: std::sync::Arc<[String]> = names.into();
        let width = names.len().max(1);
        if values.len() % (width * 8) != 0 {
            anyhow::bail!("a result's state whose values do not fit its names");
        }
        let mut stream = ReportStream::<std::io::Empty>::pool_only(subsample);
        let mut frames = Vec::new();
        for (index, row) in values.chunks_exact(width * 8).enumerate() {
            let values: Vec<f64> = row
                .chunks_exact(8)
                .take(names.len())
                .map(|b| f64::from_ne_bytes(b.try_into().expect("8 bytes")))
                .collect();
            stream.push(&names, &values)?;
            frames.push(FrameScores { index: index as u64, names: names.clone(), values });
        }
        Ok(Self {
            names: names.to_vec(),
            frames,
            pooled: stream.pooled(),
            pooled_lines,
            aggregates,
            subsample,
            size,
            device,
            warnings,
            seconds,
        })
    }

    /// The frames a report keeps (every `subsample`th, from frame 0).
    fn kept(&self) -> impl Iterator<Item = &FrameScores> {
        self.frames.iter().step_by(self.subsample as usize)
    }
}

#[pymethods]
impl NativeResult {
    /// Column names, in report order (features, then model outputs).
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The kept frames' numbers (libvmaf's `frameNum`).
    #[getter]
    fn frame_numbers(&self) -> Vec<u64> {
        (0..self.frames.len() as u64).step_by(self.subsample as usize).collect()
    }

    /// The kept frames' values as native-endian f64, frame after frame
    /// (`len(frame_numbers) × len(names)`; NaN where a frame lacks a name).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut flat = Vec::with_capacity(self.frames.len() * self.names.len() * 8);
        for f in self.kept() {
            for k in 0..self.names.len() {
                let v = f.values.get(k).copied().unwrap_or(f64::NAN);
                flat.extend_from_slice(&v.to_ne_bytes());
            }
        }
        PyBytes::new(py, &flat)
    }

    /// `(name, min, max, mean, harmonic_mean)` per column, as the report's
    /// `pooled_metrics`; `None` values where libvmaf writes none.
    #[getter]
    fn pooled(&self) -> Vec<(String, Option<PooledValues>)> {
        self.pooled
            .iter()
            .map(|m| {
                let p = m.pooled.map(|p| (p.min, p.max, p.mean, p.harmonic_mean));
                (m.name.clone(), p)
            })
            .collect()
    }

    /// The lines `vqscope score` prints after scoring (`vmaf_v0.6.1: 97.4…`).
    #[getter]
    fn pooled_lines(&self) -> Vec<String> {
        self.pooled_lines.clone()
    }

    /// Clip-level values (`apsnr_*`), the report's `aggregate_metrics`.
    #[getter]
    fn aggregates(&self) -> Vec<(String, f64)> {
        self.aggregates.clone()
    }

    /// Warnings from reading (inputs of different lengths, …).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The Vulkan device that scored it.
    #[getter]
    fn device(&self) -> String {
        self.device.clone()
    }

    /// Frame width and height.
    #[getter]
    fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Wall-clock seconds of the call (opening the inputs included).
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// What [`restore_result`] rebuilds the result from.
    fn state(&self) -> State {
        let mut values = Vec::with_capacity(self.frames.len() * self.names.len() * 8);
        for f in &self.frames {
            for k in 0..self.names.len() {
                values
                    .extend_from_slice(&f.values.get(k).copied().unwrap_or(f64::NAN).to_ne_bytes());
            }
        }
        (
            self.names.clone(),
            values,
            self.subsample,
            self.size,
            self.aggregates.clone(),
            self.pooled_lines.clone(),
            self.device.clone(),
            self.warnings.clone(),
            self.seconds,
        )
    }

    /// The report `vqscope score -o` writes, in `format` (`xml`, `json`,
    /// `csv` or `sub`); its fps counts this call's seconds.
    fn report(&self, format: &str) -> PyResult<String> {
        let format = match format {
            "xml" => Format::Xml,
            "json" => Format::Json,
            "csv" => Format::Csv,
            "sub" => Format::Sub,
            other => {
                return Err(crate::VqscopeError::new_err(format!(
                    "report format {other}: xml, json, csv or sub"
                )));
            }
        };
        let fps = self.frames.len() as f64 / self.seconds.max(1e-9);
        let report = vqscope_metrics::vmaf::report(
            vqscope_metrics::frontend::REPORT_VERSION,
            &self.frames,
            fps,
            self.size,
            self.subsample as usize,
            self.aggregates.clone(),
        );
        Ok(report.render(format))
    }
}
