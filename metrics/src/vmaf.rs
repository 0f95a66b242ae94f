//! VMAF as a library: choose models and features, push frame pairs, get
//! every frame's feature values and model scores, pool them and build the
//! report — the one API the CLI, the dashboard and the tests share.
//!
//! ```text
//! Selection (models + --feature specs)
//!     └─> Scorer::new (builds the GPU pipeline for a geometry)
//!           └─> push(pair)… finish()  → FrameScores (features, then each model's outputs)
//!                 └─> report(…) / pooled_mean(…)
//! ```
//!
//! A model's inputs are found the way libvmaf finds them: each input name
//! (`VMAF_integer_feature_adm2_score`) names the registry feature that
//! provides it, run with the options the model (and its `--model`
//! overrides) set; the value is read under libvmaf's option-suffixed name
//! (`integer_adm2_egl_1`).

use std::sync::Arc;

use vqscope_gpu::GpuContext;
use vqscope_video::{FrameGroup, FramePair, Geometry, SourceInfo};

use crate::MetricsError;
use crate::features;
use crate::model::Model;
use crate::pipeline::{FeatureSet, FrameScores, KernelTimes, ScorePipeline};
use crate::pool::pool_subsampled;
use crate::report::{Report, feature_name_alias};

/// What to compute: the features of each model plus extra features.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    features: FeatureSet,
    models: Vec<PlannedModel>,
}

#[derive(Debug, Clone)]
struct PlannedModel {
    model: Model,
    /// The column each model input is read from, in model order.
    inputs: Vec<String>,
}

impl Selection {
    /// Nothing selected yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `model` and the feature instances it needs.
    pub fn add_model(&mut self, model: Model) -> Result<(), MetricsError> {
        let inputs = self.add_model_features(&model)?;
        self.models.push(PlannedModel { model, inputs });
        Ok(())
    }

    /// Adds the feature instances `model` needs, with the options it sets,
    /// but not the model: libvmaf's `-n` with a `--model` extracts the
    /// model's features and predicts nothing. Returns the columns the model
    /// would read, in model order.
    pub fn add_model_features(&mut self, model: &Model) -> Result<Vec<String>, MetricsError> {
        let mut inputs = Vec::with_capacity(model.features().len());
        for input in model.features() {
            let feature = features::providing(&input.name).ok_or_else(|| {
                MetricsError::ModelFeatureMissing {
                    model: model.name().to_owned(),
                    feature: input.name.clone(),
                }
            })?;
            let mut options = feature.default_options();
            for option in &input.options {
                options.set(feature.name(), &option.key, &option.value)?;
            }
            inputs.push(options.output_name(feature_name_alias(&input.name)));
            self.features.add(feature, options);
        }
        Ok(inputs)
    }

    /// Adds a feature in libvmaf's `--feature` syntax (`psnr`,
    /// `float_ssim=enable_lcs=true`).
    pub fn add_feature(&mut self, spec: &str) -> Result<(), MetricsError> {
        self.features.add_spec(spec)
    }

    /// libvmaf's `--subsample` ([`FeatureSet::set_subsample`]).
    pub fn set_subsample(&mut self, n: u64) {
        self.features.set_subsample(n);
    }

    /// The models, in the order added.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.models.iter().map(|m| &m.model)
    }

    /// The feature instances to run.
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// Whether neither a model nor a feature was selected.
    pub fn is_empty(&self) -> bool {
        self.features.is_empty() && self.models.is_empty()
    }
}

/// Scores a clip: the GPU feature pipeline plus the models' predictions
/// (or, with [`Scorer::with_lanes`], several renditions against one
/// reference, each with its own selection).
pub struct Scorer {
    pipeline: ScorePipeline,
    lanes: Vec<LaneModels>,
}

/// One lane's models, the columns each reads, and the names of every value
/// the lane's frames carry.
struct LaneModels {
    models: Vec<(Model, Vec<usize>)>,
    names: Arc<[String]>,
}

impl LaneModels {
    /// The models of `selection` reading the feature values named `columns`.
    fn new(columns: &[String], selection: &Selection) -> Result<Self, MetricsError> {
        let mut names: Vec<String> = columns.to_vec();
        let mut models = Vec::new();
        for planned in &selection.models {
            let inputs = planned
                .inputs
                .iter()
                .map(|input| {
                    columns.iter().position(|c| c == input).ok_or_else(|| {
                        MetricsError::Usage(format!(
                            "model {}: no feature value named {input}",
                            planned.model.name()
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            models.push((planned.model.clone(), inputs));
        }
        // libvmaf's order: every model's score first, then each bootstrap
        // collection's member scores and statistics.
        for pass in [Outputs::Score, Outputs::Rest] {
            for (model, _) in &models {
                names.extend(pass.of(model.output_names()).iter().cloned());
            }
        }
        Ok(Self { models, names: names.into() })
    }

    /// Adds every model's outputs to each frame, in the order of `names`.
    fn predict(&self, frames: Vec<FrameScores>) -> Vec<FrameScores> {
        frames
            .into_iter()
            .map(|mut frame| {
                let outputs: Vec<Vec<f64>> = self
                    .models
                    .iter()
                    .map(|(model, inputs)| {
                        let x: Vec<f64> = inputs.iter().map(|&i| frame.values[i]).collect();
                        model.predict_values(&x)
                    })
                    .collect();
                for pass in [Outputs::Score, Outputs::Rest] {
                    for values in &outputs {
                        frame.values.extend_from_slice(pass.of(values));
                    }
                }
                frame.names = Arc::clone(&self.names);
                frame
            })
            .collect()
    }
}

impl Scorer {
    /// Builds everything `selection` needs for clips of `geometry`.
    pub fn new(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        selection: &Selection,
    ) -> Result<Self, MetricsError> {
        Self::with_lanes(ctx, geometry, &[selection], false)
    }

    /// One lane per selection: renditions scored against one reference
    /// ([`Scorer::push_group`]), lane `k` with `selections[k]`; with
    /// `same_frames`, features that read only the reference run once for
    /// all lanes ([`ScorePipeline::with_lanes`]).
    pub fn with_lanes(
        ctx: &Arc<GpuContext>,
        geometry: Geometry,
        selections: &[&Selection],
        same_frames: bool,
    ) -> Result<Self, MetricsError> {
        let sets: Vec<&FeatureSet> = selections.iter().map(|s| &s.features).collect();
        let pipeline = ScorePipeline::with_lanes(ctx, geometry, &sets, same_frames)?;
        let lanes = selections
            .iter()
            .enumerate()
            .map(|(k, selection)| LaneModels::new(pipeline.lane_columns(k), selection))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { pipeline, lanes })
    }

    /// Makes lane `k` scale its distorted frames on the GPU when its input
    /// is read at another size ([`SourceInfo::frames_at`]; nothing to do
    /// otherwise): see [`ScorePipeline::scale_lane`].
    pub fn scale_lane(&mut self, k: usize, distorted: &SourceInfo) -> Result<(), MetricsError> {
        match distorted.frames_at {
            Some(input) => self.pipeline.scale_lane(k, input),
            None => Ok(()),
        }
    }

    /// The names of every frame's values: features, then model outputs.
    pub fn columns(&self) -> &Arc<[String]> {
        &self.lanes[0].names
    }

    /// The models, in selection order.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.lanes[0].models.iter().map(|(m, _)| m)
    }

    /// Submits a frame pair; returns the frames whose values became final.
    pub fn push(&mut self, pair: &FramePair) -> Result<Vec<FrameScores>, MetricsError> {
        let frames = self.pipeline.push(pair)?;
        Ok(self.lanes[0].predict(frames))
    }

    /// Submits a reference and its renditions' frames; returns, per lane,
    /// the frames whose values became final.
    pub fn push_group(
        &mut self,
        group: &FrameGroup,
    ) -> Result<Vec<Vec<FrameScores>>, MetricsError> {
        let frames = self.pipeline.push_group(group)?;
        Ok(self.predict_lanes(frames))
    }

    /// Waits for the GPU and returns the remaining frames.
    pub fn finish(&mut self) -> Result<Vec<FrameScores>, MetricsError> {
        let frames = self.pipeline.finish()?;
        Ok(self.lanes[0].predict(frames))
    }

    /// [`Scorer::finish`] for every lane.
    pub fn finish_lanes(&mut self) -> Result<Vec<Vec<FrameScores>>, MetricsError> {
        let frames = self.pipeline.finish_lanes()?;
        Ok(self.predict_lanes(frames))
    }

    /// What stopped lane `k`, once (see [`ScorePipeline::take_failure`]).
    pub fn take_failure(&mut self, k: usize) -> Option<MetricsError> {
        self.pipeline.take_failure(k)
    }

    fn predict_lanes(&self, frames: Vec<Vec<FrameScores>>) -> Vec<Vec<FrameScores>> {
        self.lanes.iter().zip(frames).map(|(lane, f)| lane.predict(f)).collect()
    }

    /// Clip-level values (`apsnr_*`), after [`Scorer::finish`].
    pub fn aggregates(&self) -> Vec<(String, f64)> {
        self.pipeline.aggregates()
    }

    /// Lane `k`'s clip-level values, after [`Scorer::finish_lanes`].
    pub fn lane_aggregates(&self, k: usize) -> Vec<(String, f64)> {
        self.pipeline.lane_aggregates(k)
    }

    /// GPU time per kernel of the most recently finished frame.
    pub fn last_times(&self) -> &KernelTimes {
        self.pipeline.last_times()
    }

    /// Bytes the host reads back per frame.
    pub fn readback_bytes(&self) -> u64 {
        self.pipeline.readback_bytes()
    }

    /// How many feature instances run (one shared by lanes counts once).
    pub fn instance_count(&self) -> usize {
        self.pipeline.instance_count()
    }
}

/// The two groups a model's outputs are written in.
#[derive(Clone, Copy)]
enum Outputs {
    /// The model's score (its first output).
    Score,
    /// A bootstrap collection's members and statistics.
    Rest,
}

impl Outputs {
    fn of<T>(self, outputs: &[T]) -> &[T] {
        match self {
            Self::Score => &outputs[..1],
            Self::Rest => &outputs[1..],
        }
    }
}

/// The pooled mean of `name` over the frames a report with `subsample`
/// keeps: what libvmaf prints after scoring.
pub fn pooled_mean(frames: &[FrameScores], name: &str, subsample: usize) -> Option<f64> {
    let column: Option<Vec<f64>> = frames.iter().map(|f| f.get(name)).collect();
    pool_subsampled(&column?, subsample).map(|p| p.mean)
}

/// The report of scored `frames` (frame order, all with the same names).
pub fn report(
    version: &str,
    frames: &[FrameScores],
    fps: f64,
    size: (u32, u32),
    subsample: usize,
    aggregates: Vec<(String, f64)>,
) -> Report {
    let names: Vec<String> = frames.first().map_or(Vec::new(), |f| f.names.to_vec());
    let table: Vec<Vec<f64>> = frames.iter().map(|f| f.values.clone()).collect();
    let mut report = Report::from_table(version, fps, size, &names, &table, subsample);
    report.aggregate = aggregates;
    report
}
