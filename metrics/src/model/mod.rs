//! The VMAF model: libvmaf's model JSON, read the way libvmaf 3.2 reads it,
//! and its prediction (normalise, libsvm nu-SVR with an RBF kernel,
//! denormalise, optional transform, clip) computed with the same double
//! operations in the same order, so a frame's score is libvmaf's to the bit
//! whenever the features are. Bootstrap model collections (`vmaf_b_v0.6.3`)
//! add their members' scores and libvmaf's statistics over them.
//!
//! Why the care: the score is printed with six decimals, and a different
//! summation order or a fused multiply-add moves the last bit often enough to
//! flip a printed digit now and then. Rust never contracts `a * b + c` into an
//! FMA, `f64::exp` calls glibc's `exp` on Linux (the reference build's libm),
//! and decimal text is turned into doubles with correct rounding, as glibc's
//! `strtod` (used by libvmaf's JSON and libsvm readers) does.
//!
//! The parts: [`json`] reads the model files, [`libsvm`] the SVM text inside
//! them, [`svm`] computes one model's score, [`bootstrap`] a collection's
//! per-frame statistics.

mod bootstrap;
mod json;
mod libsvm;
#[cfg(test)]
mod reference_tests;
mod svm;

use std::io::Read;
use std::path::Path;

use self::bootstrap::Bootstrap;
use self::svm::Predictor;
use crate::error::MetricsError;

/// Models compiled into vqscope, by libvmaf's `version=` name, in libvmaf's
/// own table order (libvmaf/src/model.c L85-149). The files are Netflix's,
/// unchanged (see `assets/models/README.md`).
const BUILTIN: [(&str, &str); 17] = [
    ("vmaf_float_v0.6.1", include_str!("../../../assets/models/vmaf_float_v0.6.1.json")),
    ("vmaf_float_b_v0.6.3", include_str!("../../../assets/models/vmaf_float_b_v0.6.3.json")),
    ("vmaf_float_v0.6.1neg", include_str!("../../../assets/models/vmaf_float_v0.6.1neg.json")),
    ("vmaf_float_4k_v0.6.1", include_str!("../../../assets/models/vmaf_float_4k_v0.6.1.json")),
    ("vmaf_v0.6.1", include_str!("../../../assets/models/vmaf_v0.6.1.json")),
    ("vmaf_b_v0.6.3", include_str!("../../../assets/models/vmaf_b_v0.6.3.json")),
    ("vmaf_v0.6.1neg", include_str!("../../../assets/models/vmaf_v0.6.1neg.json")),
    ("vmaf_4k_v0.6.1", include_str!("../../../assets/models/vmaf_4k_v0.6.1.json")),
    ("vmaf_4k_v0.6.1neg", include_str!("../../../assets/models/vmaf_4k_v0.6.1neg.json")),
    ("vmaf_v1.0.16_3d0h", include_str!("../../../assets/models/vmaf_v1.0.16_3d0h.json")),
    ("vmaf_v1.0.16_3d0h_2160", include_str!("../../../assets/models/vmaf_v1.0.16_3d0h_2160.json")),
    ("vmaf_v1.0.16_5d0h", include_str!("../../../assets/models/vmaf_v1.0.16_5d0h.json")),
    ("vmaf_v1.0.16_1d5h_2160", include_str!("../../../assets/models/vmaf_v1.0.16_1d5h_2160.json")),
    ("vmaf_v1.0.16_hfr_3d0h", include_str!("../../../assets/models/vmaf_v1.0.16_hfr_3d0h.json")),
    (
        "vmaf_v1.0.16_hfr_3d0h_2160",
        include_str!("../../../assets/models/vmaf_v1.0.16_hfr_3d0h_2160.json"),
    ),
    ("vmaf_v1.0.16_hfr_5d0h", include_str!("../../../assets/models/vmaf_v1.0.16_hfr_5d0h.json")),
    (
        "vmaf_v1.0.16_hfr_1d5h_2160",
        include_str!("../../../assets/models/vmaf_v1.0.16_hfr_1d5h_2160.json"),
    ),
];

/// The model libvmaf's CLI uses when no `--model` is given.
pub const DEFAULT_MODEL: &str = "vmaf_v0.6.1";

/// The most bytes read from a model file. libvmaf's largest model
/// (`vmaf_b_v0.6.3.json`, 21 SVMs) is about 400 KiB; the cap keeps a path
/// such as `/dev/zero` or a video file given by mistake from filling memory.
pub const MAX_MODEL_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Names accepted by [`Model::builtin`].
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

/// How a model is loaded: libvmaf's `VmafModelConfig`, which the CLI fills
/// from `--model name=...:disable_clip:enable_transform`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// Name the score is reported under (libvmaf's default is `vmaf`); a
    /// collection's other outputs are named after it too.
    pub name: String,
    /// Skip the `score_clip` step.
    pub disable_clip: bool,
    /// Apply the model's `score_transform` even when its JSON does not set
    /// `"enabled": true` (libvmaf's `enable_transform`). The CLI leaves it
    /// off, so the bundled v0.6.1 models score without their transform.
    pub enable_transform: bool,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self { name: "vmaf".to_owned(), disable_clip: false, enable_transform: false }
    }
}

/// One option of a feature extractor set by the model (for example NEG's
/// `adm_enhn_gain_limit`), kept as libvmaf keeps it: a key and a string.
/// Numbers are stored the way libvmaf's dictionary normalises them (parsed
/// as a *float* and printed with `%g`), so `1.0` becomes `"1"` and `1.1`
/// stays `"1.1"`; the extractor later parses that string as a double.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureOption {
    pub key: String,
    pub value: String,
}

impl FeatureOption {
    /// The option as the extractor's double-typed option parser reads it.
    pub fn as_f64(&self) -> Option<f64> {
        self.value.parse().ok()
    }

    /// The option as a boolean (`true`/`false`, as libvmaf stores them).
    pub fn as_bool(&self) -> Option<bool> {
        match self.value.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

/// One input of the model, in the model's order.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFeature {
    /// libvmaf's feature name, e.g. `VMAF_integer_feature_adm2_score`.
    pub name: String,
    /// Linear-rescale slope and intercept (`slopes[i + 1]`, `intercepts[i + 1]`).
    /// In a collection, those of the main model "0" (each member rescales
    /// the same input with its own).
    pub slope: f64,
    pub intercept: f64,
    /// Options the model sets on the extractor that computes this feature,
    /// in the order the model file lists them.
    pub options: Vec<FeatureOption>,
}

impl ModelFeature {
    /// The libvmaf feature extractor that provides this feature (`adm`,
    /// `vif`, `motion`, `float_adm`, ...), which is also the name a
    /// `--model` overload such as `adm.adm_enhn_gain_limit=1.2` addresses.
    pub fn extractor(&self) -> Option<&'static str> {
        extractor_of(&self.name)
    }

    /// The value of option `key`, parsed as a double.
    pub fn option_f64(&self, key: &str) -> Option<f64> {
        self.options.iter().find(|o| o.key == key).and_then(FeatureOption::as_f64)
    }
}

fn extractor_of(name: &str) -> Option<&'static str> {
    if name.starts_with("Cambi_feature_") {
        return Some("cambi");
    }
    if name.starts_with("Speed_chroma_feature_") {
        return Some("speed_chroma");
    }
    if name.starts_with("Speed_temporal_feature_") {
        return Some("speed_temporal");
    }
    let (integer, rest) = if let Some(rest) = name.strip_prefix("VMAF_integer_feature_") {
        (true, rest)
    } else if let Some(rest) = name.strip_prefix("VMAF_feature_") {
        (false, rest)
    } else {
        return None;
    };
    let family = if rest.starts_with("adm") || rest.starts_with("aim") {
        ["adm", "float_adm"]
    } else if rest.starts_with("vif") {
        ["vif", "float_vif"]
    } else if rest.starts_with("motion") {
        ["motion", "float_motion"]
    } else {
        return None;
    };
    Some(if integer { family[0] } else { family[1] })
}

/// The pooled summary libvmaf's CLI prints for a model collection
/// (`label: bagging, ci.p95: [lo, hi], stddev: s`, tools/vmaf.c L415-433):
/// each value is the plain mean over frames of that output's per-frame
/// values, exactly what the report's `pooled_metrics` `mean` holds
/// (`vmaf_score_pooled_model_collection`, libvmaf.c L1066-1120, pools each
/// key with `vmaf_feature_score_pooled`, as output.c L236-245 does).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapSummary {
    pub bagging: f64,
    pub ci_p95_lo: f64,
    pub ci_p95_hi: f64,
    pub stddev: f64,
}

impl BootstrapSummary {
    /// libvmaf's line (without the newline); `label` is the `--model`
    /// version or path, as the CLI prints it.
    pub fn cli_line(&self, label: &str) -> String {
        format!(
            "{label}: {}, ci.p95: [{}, {}], stddev: {}",
            c_f(self.bagging),
            c_f(self.ci_p95_lo),
            c_f(self.ci_p95_hi),
            c_f(self.stddev)
        )
    }
}

/// C's `%f`.
fn c_f(v: f64) -> String {
    match v {
        v if v.is_nan() => if v.is_sign_negative() { "-nan" } else { "nan" }.to_owned(),
        v if v.is_infinite() => if v < 0.0 { "-inf" } else { "inf" }.to_owned(),
        v => format!("{v:.6}"),
    }
}

/// A loaded VMAF model: a single model, or a bootstrap collection (a main
/// model plus members).
///
/// Per frame, a caller gathers the values of [`Model::features`] in that
/// order and calls [`Model::predict_named`] (or [`Model::predict_values`],
/// whose values line up with [`Model::output_names`]). The first output is
/// always the main score, named after [`ModelConfig::name`]; a collection
/// adds `NAME_0001`.. (one per member), `NAME_bagging`, `NAME_stddev`,
/// `NAME_ci_p95_lo` and `NAME_ci_p95_hi`.
///
/// Report order with several models: libvmaf's CLI first scores every
/// model's main output (all frames), then each collection's other outputs
/// (tools/vmaf.c L397-438), and its report lists values in the order they
/// were first stored. So a report lists, after the features, the first
/// output of every model in `--model` order, then outputs `1..` of every
/// collection in `--model` order.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    name: String,
    features: Vec<ModelFeature>,
    /// The single model, or a collection's model "0".
    main: Predictor,
    bootstrap: Option<Bootstrap>,
    outputs: Vec<String>,
}

impl Model {
    fn single(config: &ModelConfig, parsed: json::Parsed) -> Self {
        Self {
            name: config.name.clone(),
            features: parsed.features,
            main: parsed.predictor,
            bootstrap: None,
            outputs: vec![config.name.clone()],
        }
    }

    /// A collection as libvmaf's `model_collection_parse` names it
    /// (read_json_model.c L499-531): model "0" under the configured name,
    /// model `i` under `NAME_%04d`; the statistics after
    /// predict.c L506-531.
    fn collection(config: &ModelConfig, main: json::Parsed, members: Vec<json::Parsed>) -> Self {
        let name = &config.name;
        let mut outputs = vec![name.clone()];
        outputs.extend((1..=members.len()).map(|i| format!("{name}_{i:04}")));
        for suffix in ["bagging", "stddev", "ci_p95_lo", "ci_p95_hi"] {
            outputs.push(format!("{name}_{suffix}"));
        }
        Self {
            name: name.clone(),
            features: main.features,
            main: main.predictor,
            bootstrap: Some(Bootstrap {
                members: members.into_iter().map(|m| m.predictor).collect(),
            }),
            outputs,
        }
    }

    /// A model compiled into vqscope, by libvmaf's `version=` name, with the
    /// CLI's default configuration.
    pub fn builtin(version: &str) -> Result<Self, MetricsError> {
        Self::builtin_with(version, &ModelConfig::default())
    }

    /// A built-in model with an explicit configuration.
    pub fn builtin_with(version: &str, config: &ModelConfig) -> Result<Self, MetricsError> {
        let (_, text) = BUILTIN.iter().find(|(name, _)| *name == version).ok_or_else(|| {
            MetricsError::UnknownModel {
                version: version.to_owned(),
                known: builtin_names().collect::<Vec<_>>().join(", "),
            }
        })?;
        Self::from_json(text, &format!("\"{version}\""), config)
    }

    /// A model read from a libvmaf JSON model file (`path=FILE`): a single
    /// model or a model collection. At most [`MAX_MODEL_FILE_BYTES`] are
    /// read; a longer file is refused.
    pub fn from_path(path: impl AsRef<Path>, config: &ModelConfig) -> Result<Self, MetricsError> {
        let path = path.as_ref();
        let text = read_capped(path)?;
        let origin = path.display().to_string();
        if path.extension().is_some_and(|e| e == "pkl") {
            return Err(invalid(
                &origin,
                "pkl models are not supported (libvmaf dropped them too); use the JSON model",
            ));
        }
        Self::from_json(&text, &origin, config)
    }

    /// A model from the text of a libvmaf JSON model or model collection;
    /// `origin` names it in error messages.
    pub fn from_json(text: &str, origin: &str, config: &ModelConfig) -> Result<Self, MetricsError> {
        json::parse(text, origin, config)
    }

    /// A model from a libvmaf `--model` option string, e.g.
    /// `version=vmaf_v0.6.1neg`, `path=my.json:name=mine:enable_transform`
    /// or `version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.2` (options given as
    /// `extractor.option=value` override the model's own for every feature
    /// that extractor provides, in every model of a collection).
    pub fn from_spec(spec: &str) -> Result<Self, MetricsError> {
        let err = |reason: &str| MetricsError::ModelSpec {
            spec: spec.to_owned(),
            reason: reason.to_owned(),
        };
        let mut config = ModelConfig::default();
        let (mut path, mut version) = (None, None);
        let mut overloads: Vec<(String, FeatureOption)> = Vec::new();
        for item in spec.split(':') {
            let mut kv = item.splitn(3, '=');
            let key = kv.next().unwrap_or_default();
            let val = match (kv.next(), key) {
                (Some(v), _) => v,
                (None, "disable_clip" | "enable_transform") => "true",
                (None, _) => return Err(err(&format!("\"{item}\" is not key=value"))),
            };
            match key {
                "path" => path = Some(val.to_owned()),
                "version" => version = Some(val.to_owned()),
                "name" => config.name = val.to_owned(),
                "disable_clip" => config.disable_clip |= val == "true",
                "enable_transform" => config.enable_transform |= val == "true",
                _ => {
                    let Some((extractor, option)) = key.split_once('.') else {
                        return Err(err(&format!(
                            "unknown key \"{key}\" (expected path, version, name, disable_clip, \
                             enable_transform or EXTRACTOR.OPTION)"
                        )));
                    };
                    let value = crate::features::normalise_number(val);
                    overloads.push((
                        extractor.to_owned(),
                        FeatureOption { key: option.to_owned(), value },
                    ));
                }
            }
        }
        let mut model = match (path, version) {
            (Some(p), None) => Self::from_path(p, &config)?,
            (None, Some(v)) => Self::builtin_with(&v, &config)?,
            (None, None) => return Err(err("needs path=FILE or version=NAME")),
            (Some(_), Some(_)) => return Err(err("give path= or version=, not both")),
        };
        // A collection's models share one input list (checked on loading),
        // so overloading it overloads them all, as libvmaf's
        // `vmaf_model_collection_feature_overload` does.
        for (extractor, option) in overloads {
            let mut applied = false;
            for feature in &mut model.features {
                if feature.extractor() != Some(extractor.as_str()) {
                    continue;
                }
                applied = true;
                match feature.options.iter_mut().find(|o| o.key == option.key) {
                    Some(existing) => existing.value = option.value.clone(),
                    None => feature.options.push(option.clone()),
                }
            }
            // An option that would act on nothing is a mistake to report,
            // not to ignore.
            if !applied {
                let mut used: Vec<&str> =
                    model.features.iter().filter_map(|f| f.extractor()).collect();
                used.dedup();
                return Err(err(&format!(
                    "the model uses no extractor \"{extractor}\" (its extractors: {})",
                    used.join(", ")
                )));
            }
        }
        Ok(model)
    }

    /// The name the main score is reported under (`vmaf` unless configured).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's inputs, in the order the `predict*` methods take them.
    pub fn features(&self) -> &[ModelFeature] {
        &self.features
    }

    /// Whether the main model's score transform will be applied.
    pub fn transform_enabled(&self) -> bool {
        self.main.transform_enabled()
    }

    /// Whether this is a bootstrap model collection.
    pub fn is_collection(&self) -> bool {
        self.bootstrap.is_some()
    }

    /// Every value [`Model::predict_values`] gives, by its report name, in
    /// libvmaf's order: the main score, then (collections only) the
    /// members' scores, bagging, stddev, ci_p95_lo and ci_p95_hi.
    pub fn output_names(&self) -> &[String] {
        &self.outputs
    }

    /// The main score of one frame from its feature values, given in model
    /// order (see [`Model::features`]): libvmaf's
    /// `vmaf_predict_score_at_index`. For a collection it is model "0"'s
    /// score, reported under the collection's name (not the bagging mean).
    ///
    /// # Panics
    /// When `features` does not hold exactly one value per model feature.
    pub fn predict(&self, features: &[f64]) -> f64 {
        self.check_inputs(features);
        self.main.predict(features)
    }

    /// All outputs of one frame, lined up with [`Model::output_names`].
    ///
    /// # Panics
    /// When `features` does not hold exactly one value per model feature.
    pub fn predict_values(&self, features: &[f64]) -> Vec<f64> {
        self.check_inputs(features);
        let mut out = Vec::with_capacity(self.outputs.len());
        out.push(self.main.predict(features));
        if let Some(bootstrap) = &self.bootstrap {
            bootstrap.predict_into(features, &mut out);
        }
        debug_assert_eq!(out.len(), self.outputs.len());
        out
    }

    /// All outputs of one frame with their report names, in libvmaf's
    /// order; the first is the main score under [`Model::name`].
    ///
    /// # Panics
    /// When `features` does not hold exactly one value per model feature.
    pub fn predict_named(&self, features: &[f64]) -> Vec<(String, f64)> {
        self.outputs.iter().cloned().zip(self.predict_values(features)).collect()
    }

    /// For a collection, the summary libvmaf's CLI prints after scoring,
    /// from the pooled means of the named outputs (`pooled_mean(name)`, the
    /// mean over the frames libvmaf pools, as in the report). `None` for a
    /// single model, or when `pooled_mean` has no value for a name.
    pub fn bootstrap_summary(
        &self,
        mut pooled_mean: impl FnMut(&str) -> Option<f64>,
    ) -> Option<BootstrapSummary> {
        self.bootstrap.as_ref()?;
        let n = self.outputs.len();
        let [bagging, stddev, lo, hi] = [n - 4, n - 3, n - 2, n - 1];
        Some(BootstrapSummary {
            bagging: pooled_mean(&self.outputs[bagging])?,
            ci_p95_lo: pooled_mean(&self.outputs[lo])?,
            ci_p95_hi: pooled_mean(&self.outputs[hi])?,
            stddev: pooled_mean(&self.outputs[stddev])?,
        })
    }

    fn check_inputs(&self, features: &[f64]) {
        assert_eq!(
            features.len(),
            self.features.len(),
            "model expects {} feature values",
            self.features.len()
        );
    }
}

/// Reads a model file, refusing one longer than [`MAX_MODEL_FILE_BYTES`]
/// after reading at most one byte more.
fn read_capped(path: &Path) -> Result<String, MetricsError> {
    let read_error = |source| MetricsError::ModelRead { path: path.to_owned(), source };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_MODEL_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(read_error)?;
    if bytes.len() as u64 > MAX_MODEL_FILE_BYTES {
        return Err(MetricsError::ModelTooLarge {
            path: path.to_owned(),
            limit_mib: MAX_MODEL_FILE_BYTES >> 20,
        });
    }
    String::from_utf8(bytes)
        .map_err(|e| read_error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

fn invalid(origin: &str, reason: &str) -> MetricsError {
    MetricsError::ModelInvalid { origin: origin.to_owned(), reason: reason.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_model(svm: &str, extra: &str) -> String {
        format!(
            r#"{{"model_dict": {{"model_type": "LIBSVMNUSVR", "norm_type": "linear_rescale",
            "feature_names": ["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"],
            "slopes": [2.0, 0.5, 4.0], "intercepts": [1.0, 0.25, -1.0],
            "score_clip": [0.0, 100.0], {extra}
            "model": "{svm}"}}}}"#
        )
    }

    #[test]
    fn svm_sum_by_hand() {
        // Two SVs, the second sparse (index 1 missing).
        let svm = "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\nrho -1.5\\nSV\\n2 1:1 2:0 \\n-1 2:2 \\n";
        let m = Model::from_json(&tiny_model(svm, ""), "test", &ModelConfig::default()).unwrap();
        // Features (2, 0.5) normalise to (0.5*2+0.25, 4*0.5-1) = (1.25, 1).
        // SV0: d = (0.25, 1): sum 1.0625; SV1: x1² + (1-2)² = 1.5625 + 1.
        let k0 = (-0.5f64 * 1.0625).exp();
        let k1 = (-0.5f64 * 2.5625).exp();
        let raw = 2.0 * k0 - k1 + 1.5;
        let expect = (raw - 1.0) / 2.0;
        assert_eq!(m.predict(&[2.0, 0.5]), expect.clamp(0.0, 100.0));
        assert_eq!(m.output_names(), ["vmaf"]);
        assert_eq!(m.predict_named(&[2.0, 0.5]), [("vmaf".to_owned(), m.predict(&[2.0, 0.5]))]);
        assert!(!m.is_collection());
        assert_eq!(m.bootstrap_summary(|_| Some(1.0)), None);
    }

    #[test]
    fn clip_and_transform() {
        let svm = "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho 300\\nSV\\n1 1:0 2:0 \\n";
        // Decision is k - 300 < 0: clipped to 0, or -inf-ish without clip.
        let text = tiny_model(svm, "");
        let m = Model::from_json(&text, "t", &ModelConfig::default()).unwrap();
        assert_eq!(m.predict(&[0.0, 0.0]), 0.0);
        let cfg = ModelConfig { disable_clip: true, ..ModelConfig::default() };
        let m = Model::from_json(&text, "t", &cfg).unwrap();
        assert!(m.predict(&[0.0, 0.0]) < -100.0);

        // Transform: only when enabled; out_gte_in keeps the larger value.
        let svm = "svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 1\\nrho -21\\nSV\\n0 1:0 \\n";
        let tr = r#""score_transform": {"p0": 1.0, "p1": 2.0, "p2": -0.5, "out_gte_in": "true"},"#;
        let text = tiny_model(svm, tr);
        let plain = Model::from_json(&text, "t", &ModelConfig::default()).unwrap();
        assert!(!plain.transform_enabled());
        // decision 21 → (21-1)/2 = 10.
        assert_eq!(plain.predict(&[0.0, 0.0]), 10.0);
        let cfg = ModelConfig { enable_transform: true, ..ModelConfig::default() };
        let t = Model::from_json(&text, "t", &cfg).unwrap();
        // 1 + 20 - 50 = -29 < 10, so out_gte_in gives 10 back.
        assert_eq!(t.predict(&[0.0, 0.0]), 10.0);
        let tr = r#""score_transform": {"enabled": true, "p0": 1.0, "p1": 2.0, "p2": -0.01},"#;
        let t = Model::from_json(&tiny_model(svm, tr), "t", &ModelConfig::default()).unwrap();
        assert_eq!(t.predict(&[0.0, 0.0]), 1.0 + 2.0 * 10.0 + -0.01 * 10.0 * 10.0);
    }

    /// A collection of constant models: model `k`'s SVM has no support
    /// vectors, so it scores `-rho` whatever the inputs (no normalisation).
    fn constant_collection(rhos: &[f64], extra: &str, kind: &str) -> String {
        let member = |rho: f64| {
            format!(
                r#"{{"param_dict": {{"norm_type": "clip_0to1"}}, "model_dict": {{
                "model_type": "{kind}", "norm_type": "none",
                "feature_names": ["VMAF_integer_feature_adm2_score"],
                "score_clip": [0.0, 100.0], {extra}
                "model": "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 0\nrho {rho}\nSV\n"}}}}"#
            )
        };
        let entries: Vec<String> =
            rhos.iter().enumerate().map(|(i, &r)| format!("\"{i}\": {}", member(r))).collect();
        format!("{{{}}}", entries.join(", "))
    }

    #[test]
    fn collection_outputs_by_hand() {
        // Main scores 50; members 10, 30, 20, 120 (the last clipped when
        // reported, but its raw score feeds the statistics).
        let text =
            constant_collection(&[-50.0, -10.0, -30.0, -20.0, -120.0], "", "BOOTSTRAP_LIBSVMNUSVR");
        let cfg = ModelConfig { name: "b".to_owned(), ..ModelConfig::default() };
        let m = Model::from_json(&text, "c", &cfg).unwrap();
        assert!(m.is_collection());
        assert_eq!(
            m.output_names(),
            [
                "b",
                "b_0001",
                "b_0002",
                "b_0003",
                "b_0004",
                "b_bagging",
                "b_stddev",
                "b_ci_p95_lo",
                "b_ci_p95_hi"
            ]
        );
        let out = m.predict_values(&[0.7]);
        assert_eq!(&out[..5], [50.0, 10.0, 30.0, 20.0, 100.0]);
        // Raw mean 45: bagging 45, stddev sqrt(7700/4) times the slope of
        // the clip around 45 (1 up to rounding).
        assert_eq!(out[5], 45.0);
        let slope = ((45.0 + 0.01) - (45.0 - 0.01)) / (2.0 * 0.01);
        assert_eq!(out[6], (7700.0f64 / 4.0).sqrt() * slope);
        // Sorted 10, 20, 30, 120; ranks 0.075 and 2.925.
        assert_eq!(out[7], 10.0 * (1.0 - 0.075) + 20.0 * 0.075);
        // 30 · 0.075 + 120 · 0.925 = 113.25, clipped by member 1's clip.
        assert_eq!(out[8], 100.0);
        assert_eq!(m.predict(&[0.7]), 50.0);
        let named = m.predict_named(&[0.7]);
        assert_eq!(named[0], ("b".to_owned(), 50.0));
        assert_eq!(named[8], ("b_ci_p95_hi".to_owned(), 100.0));

        let no_clip = ModelConfig { disable_clip: true, ..ModelConfig::default() };
        let m = Model::from_json(&text, "c", &no_clip).unwrap();
        let out = m.predict_values(&[0.7]);
        assert_eq!(out[4], 120.0);
        assert_eq!(out[8], 30.0 * (3.0 - 2.925) + 120.0 * (2.925 - 2.0));
        assert_eq!(m.output_names()[5], "vmaf_bagging");

        let s = m.bootstrap_summary(|name| name.strip_prefix("vmaf_").map(|s| s.len() as f64));
        let s = s.unwrap();
        assert_eq!((s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi), (7.0, 6.0, 9.0, 9.0));
        assert_eq!(s.cli_line("v"), "v: 7.000000, ci.p95: [9.000000, 9.000000], stddev: 6.000000");
    }

    #[test]
    fn collection_transform_comes_from_member_one() {
        // Member 1 doubles its score when the transform is on; the others
        // add 1000 (never seen in the statistics, only in their own output).
        let doubling = r#""score_transform": {"p1": 2.0},"#;
        let mut text =
            constant_collection(&[-5.0, -10.0, -20.0], doubling, "RESIDUEBOOTSTRAP_LIBSVMNUSVR");
        // Give member 2 a different transform.
        let last = text.rfind(doubling).unwrap();
        text.replace_range(
            last..last + doubling.len(),
            r#""score_transform": {"p0": 1000.0, "p1": 1.0},"#,
        );
        let cfg =
            ModelConfig { enable_transform: true, disable_clip: true, ..ModelConfig::default() };
        let m = Model::from_json(&text, "c", &cfg).unwrap();
        assert!(m.transform_enabled());
        let out = m.predict_values(&[0.0]);
        assert_eq!(&out[..3], [10.0, 20.0, 1020.0]);
        assert_eq!(out[3], 30.0); // 2 · mean(10, 20)
        let slope = (2.0 * (15.0 + 0.01) - 2.0 * (15.0 - 0.01)) / (2.0 * 0.01);
        assert_eq!(out[4], 5.0 * slope);
        assert!((out[4] - 10.0).abs() < 1e-9);
    }

    #[test]
    fn collection_errors() {
        let cfg = ModelConfig::default();
        let err = |text: &str| Model::from_json(text, "c.json", &cfg).unwrap_err().to_string();
        let bs = "BOOTSTRAP_LIBSVMNUSVR";
        let e = err(&constant_collection(&[1.0], "", bs));
        assert!(e.contains("c.json") && e.contains("\"1\""), "{e}");
        let e = err(&constant_collection(&[1.0, 2.0], "", "LIBSVMNUSVR"));
        assert!(e.contains("LIBSVMNUSVR in a collection"), "{e}");
        let mixed = constant_collection(&[1.0, 2.0, 3.0], "", bs);
        let at = mixed.rfind(bs).unwrap();
        let mut mixed2 = mixed.clone();
        mixed2.replace_range(at..at + bs.len(), "RESIDUEBOOTSTRAP_LIBSVMNUSVR");
        let e = err(&mixed2);
        assert!(e.contains("collection model \"2\"") && e.contains("model_type differs"), "{e}");
        let mut other_input = mixed.clone();
        let at = other_input.rfind("adm2").unwrap();
        other_input.replace_range(at..at + 4, "adm3");
        let e = err(&other_input);
        assert!(e.contains("collection model \"2\"") && e.contains("feature_names"), "{e}");
        let e = err(r#"{"0": {"model_dict": {}}, "1": {"param_dict": {}}}"#);
        assert!(e.contains("collection model \"0\"") && e.contains("model_type"), "{e}");
        let e = err(&mixed.replacen("\"model_dict\"", "\"dict\"", 1));
        assert!(e.contains("collection model \"0\"") && e.contains("no \"model_dict\""), "{e}");
    }

    #[test]
    fn builtin_models_load() {
        let names: Vec<&str> = builtin_names().collect();
        assert_eq!(
            names,
            [
                "vmaf_float_v0.6.1",
                "vmaf_float_b_v0.6.3",
                "vmaf_float_v0.6.1neg",
                "vmaf_float_4k_v0.6.1",
                "vmaf_v0.6.1",
                "vmaf_b_v0.6.3",
                "vmaf_v0.6.1neg",
                "vmaf_4k_v0.6.1",
                "vmaf_4k_v0.6.1neg",
                "vmaf_v1.0.16_3d0h",
                "vmaf_v1.0.16_3d0h_2160",
                "vmaf_v1.0.16_5d0h",
                "vmaf_v1.0.16_1d5h_2160",
                "vmaf_v1.0.16_hfr_3d0h",
                "vmaf_v1.0.16_hfr_3d0h_2160",
                "vmaf_v1.0.16_hfr_5d0h",
                "vmaf_v1.0.16_hfr_1d5h_2160",
            ]
        );
        for name in builtin_names().filter(|n| n.contains("v0.6")) {
            let m = Model::builtin(name).unwrap();
            assert_eq!(m.features().len(), 6, "{name}");
            assert_eq!(m.name(), "vmaf");
            assert!(!m.transform_enabled(), "{name}: the CLI default has no transform");
            assert_eq!(m.is_collection(), name.contains("_b_v0.6.3"));
            // The float models read libvmaf's float extractors, the others
            // the integer ones.
            let float = name.starts_with("vmaf_float");
            for f in m.features() {
                assert!(f.extractor().is_some_and(|e| e.starts_with("float") == float), "{name}");
            }
        }
        let m = Model::builtin("vmaf_v0.6.1").unwrap();
        assert_eq!(m.main.svm.sv.len(), 211);
        assert_eq!(m.main.svm.gamma, 0.04);
        assert_eq!(m.main.svm.rho, -1.33133);
        // The fourth SV skips index 5 (libsvm leaves zeros out).
        assert_eq!(m.main.svm.sv[3].iter().map(|n| n.0).collect::<Vec<_>>(), [1, 2, 3, 4, 6]);
        assert_eq!(m.main.svm.sv[3][3].1, -1.110223e-16);
        assert_eq!(m.features()[0].slope, 2.8098077502505414);
        assert_eq!(m.features()[5].intercept, -1.083428597549764);
        assert_eq!(m.features()[0].extractor(), Some("adm"));
        assert_eq!(m.features()[1].extractor(), Some("motion"));
        assert_eq!(m.features()[2].extractor(), Some("vif"));
        assert!(m.features().iter().all(|f| f.options.is_empty()));
        for neg in ["vmaf_v0.6.1neg", "vmaf_4k_v0.6.1neg"] {
            let neg = Model::builtin(neg).unwrap();
            assert_eq!(neg.features()[0].option_f64("adm_enhn_gain_limit"), Some(1.0));
            assert_eq!(neg.features()[0].options[0].value, "1");
            assert!(neg.features()[1].options.is_empty());
            for f in &neg.features()[2..] {
                assert_eq!(f.option_f64("vif_enhn_gain_limit"), Some(1.0));
            }
        }
        let b = Model::builtin("vmaf_b_v0.6.3").unwrap();
        let members = &b.bootstrap.as_ref().unwrap().members;
        assert_eq!(members.len(), 20);
        assert_eq!(b.main.svm.sv.len(), 210);
        assert_eq!(b.main.svm.rho, -1.38271);
        assert_eq!(members[0].svm.rho, -2.01955);
        assert_eq!(members[19].svm.rho, -1.53695);
        assert_eq!(b.output_names().len(), 1 + 20 + 4);
        assert_eq!(b.output_names()[20], "vmaf_0020");
        assert!(b.features().iter().all(|f| f.options.is_empty()));

        let float = Model::builtin("vmaf_float_v0.6.1neg").unwrap();
        assert_eq!(float.features()[0].extractor(), Some("float_adm"));
        assert_eq!(float.features()[0].option_f64("adm_enhn_gain_limit"), Some(1.0));
        assert_eq!(float.features()[1].extractor(), Some("float_motion"));
        assert_eq!(float.features()[2].extractor(), Some("float_vif"));
        // The v1.0.16 models: CAMBI, speed_chroma, the Barten-CSF ADM3 and
        // motion3, with their chroma-from-luma correction and clip.
        for version in builtin_names().filter(|n| n.starts_with("vmaf_v1.0.16")) {
            let m = Model::builtin(version).unwrap();
            let extractors: Vec<_> = m.features().iter().map(|f| f.extractor()).collect();
            let want = [Some("cambi"), Some("speed_chroma"), Some("adm"), Some("motion")];
            assert_eq!(extractors, want, "{version}");
            let correction = m.main.chroma.expect(version);
            assert_eq!(
                (correction.parameter, correction.guiding, correction.guided),
                (120.0, 2, 1)
            );
            let top = if version.ends_with("3d0h_2160") { 110.0 } else { 100.0 };
            assert_eq!(m.main.clip, Some((0.0, top)), "{version}");
            assert!(m.transform_enabled(), "{version}");
        }
        let e = Model::builtin("vmaf_v9").unwrap_err().to_string();
        let (_, known) = e.split_once("built-in models:").unwrap();
        assert!(
            known.contains("vmaf_float_4k_v0.6.1") && known.contains("v1.0.16_hfr_5d0h"),
            "{e}"
        );
    }

    /// Every number in the bundled files, read through our path, equals a
    /// correctly rounded parse of its text.
    #[test]
    fn numbers_are_correctly_rounded() {
        let m = Model::builtin("vmaf_4k_v0.6.1").unwrap();
        let slopes = [
            "1.853012066458466",
            "0.05141551931924402",
            "1.0960374437054892",
            "1.2189036205165853",
            "1.3583508615652835",
            "1.5373567703674345",
        ];
        for (f, s) in m.features().iter().zip(slopes) {
            assert_eq!(f.slope.to_bits(), s.parse::<f64>().unwrap().to_bits());
        }
        // A collection member's own slopes ("1": adm2's slope).
        let b = Model::builtin("vmaf_b_v0.6.3").unwrap();
        let member = &b.bootstrap.as_ref().unwrap().members[0];
        let text = include_str!("../../../assets/models/vmaf_b_v0.6.3.json");
        let one = &text[text.find("\"1\": {").unwrap()..];
        let model_dict = &one[one.find("\"model_dict\"").unwrap()..];
        let slopes = &model_dict[model_dict.find("\"slopes\": [").unwrap() + 11..];
        let second: &str = slopes.split(',').nth(1).unwrap().trim();
        assert_eq!(member.scales[0].0.to_bits(), second.parse::<f64>().unwrap().to_bits());
    }

    #[test]
    fn errors_are_clear() {
        let e = Model::builtin("vmaf_v9").unwrap_err().to_string();
        assert!(e.contains("vmaf_v9") && e.contains("vmaf_v0.6.1neg"), "{e}");
        let e = Model::from_path("/nonexistent/m.json", &ModelConfig::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/m.json"), "{e}");
        let e = Model::from_json("{}", "x.json", &ModelConfig::default()).unwrap_err().to_string();
        assert!(e.contains("x.json") && e.contains("model_dict"), "{e}");
        let svm = "svm_type c_svc\\nkernel_type rbf\\nSV\\n";
        let e = Model::from_json(&tiny_model(svm, ""), "y", &ModelConfig::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("c_svc"), "{e}");
        assert!(Model::from_spec("vmaf_v0.6.1").is_err());
        assert!(Model::from_spec("path=a:version=b").is_err());
    }

    /// `/dev/zero` never ends: reading stops one byte past the cap.
    #[test]
    fn endless_model_file_is_refused() {
        let e = Model::from_path("/dev/zero", &ModelConfig::default()).unwrap_err();
        assert!(matches!(e, MetricsError::ModelTooLarge { .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("/dev/zero") && e.contains("64 MiB"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = Model::from_spec("path=/dev/zero").unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("64 MiB"), "{e}");
    }

    #[test]
    fn model_files_load_from_disk() {
        let dir = std::env::temp_dir().join(format!("vqscope-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.json");
        std::fs::write(&path, include_str!("../../../assets/models/vmaf_b_v0.6.3.json")).unwrap();
        let spec = format!("path={}:name=boot", path.display());
        let m = Model::from_spec(&spec).unwrap();
        assert_eq!(
            m,
            Model::builtin_with(
                "vmaf_b_v0.6.3",
                &ModelConfig { name: "boot".to_owned(), ..ModelConfig::default() }
            )
            .unwrap()
        );
        assert_eq!(m.output_names()[1], "boot_0001");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let e = Model::from_path(&path, &ModelConfig::default()).unwrap_err().to_string();
        assert!(e.contains("b.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn spec_strings() {
        let m = Model::from_spec("version=vmaf_v0.6.1:name=mine:enable_transform").unwrap();
        assert_eq!(m.name(), "mine");
        assert!(m.transform_enabled());
        // The 4k model has no score_transform: enable_transform changes nothing.
        let m = Model::from_spec("version=vmaf_4k_v0.6.1:enable_transform").unwrap();
        assert!(!m.transform_enabled());
        let m = Model::from_spec("version=vmaf_v0.6.1neg:adm.adm_enhn_gain_limit=1.10").unwrap();
        assert_eq!(m.features()[0].options[0].value, "1.1");
        assert_eq!(m.features()[2].options[0].value, "1");
        let m = Model::from_spec("version=vmaf_b_v0.6.3:vif.vif_enhn_gain_limit=1.0").unwrap();
        assert!(m.features()[2..].iter().all(|f| f.option_f64("vif_enhn_gain_limit") == Some(1.0)));
        assert!(m.features()[0].options.is_empty());
        let e = Model::from_spec("version=vmaf_v1.0.17").unwrap_err().to_string();
        assert!(e.contains("vmaf_b_v0.6.3"), "{e}");
        let m = Model::from_spec("version=vmaf_v1.0.16_3d0h:cambi.cambi_max_val=20").unwrap();
        assert_eq!(m.features()[0].option_f64("cambi_max_val"), Some(20.0));
        // Options reach the float extractors under their own names.
        let m = Model::from_spec("version=vmaf_float_v0.6.1:float_adm.adm_enhn_gain_limit=1.0")
            .unwrap();
        assert_eq!(m.features()[0].option_f64("adm_enhn_gain_limit"), Some(1.0));
    }
}
