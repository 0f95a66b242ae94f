//! The VMAF model: libvmaf's model JSON, read the way libvmaf 3.2 reads it,
//! and its prediction (normalise, libsvm nu-SVR with an RBF kernel,
//! denormalise, optional transform, clip) computed with the same double
//! operations in the same order, so a frame's score is libvmaf's to the bit
//! whenever the features are.
//!
//! Why the care: the score is printed with six decimals, and a different
//! summation order or a fused multiply-add moves the last bit often enough to
//! flip a printed digit now and then. Rust never contracts `a * b + c` into an
//! FMA, `f64::exp` calls glibc's `exp` on Linux (the reference build's libm),
//! and decimal text is turned into doubles with correct rounding, as glibc's
//! `strtod` (used by libvmaf's JSON and libsvm readers) does.

use std::path::Path;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};

use crate::error::MetricsError;

/// Models compiled into vqscope, by libvmaf's `version=` name. The files are
/// Netflix's, unchanged (see `assets/models/README.md`).
const BUILTIN: [(&str, &str); 4] = [
    ("vmaf_v0.6.1", include_str!("../../assets/models/vmaf_v0.6.1.json")),
    ("vmaf_v0.6.1neg", include_str!("../../assets/models/vmaf_v0.6.1neg.json")),
    ("vmaf_4k_v0.6.1", include_str!("../../assets/models/vmaf_4k_v0.6.1.json")),
    ("vmaf_float_v0.6.1", include_str!("../../assets/models/vmaf_float_v0.6.1.json")),
];

/// The model libvmaf's CLI uses when no `--model` is given.
pub const DEFAULT_MODEL: &str = "vmaf_v0.6.1";

/// Names accepted by [`Model::builtin`].
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().map(|(name, _)| *name)
}

/// How a model is loaded: libvmaf's `VmafModelConfig`, which the CLI fills
/// from `--model name=...:disable_clip:enable_transform`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// Name the score is reported under (libvmaf's default is `vmaf`).
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

/// libvmaf's `norm_type`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Normalization {
    None,
    /// Features: `slope * x + intercept`; score: `(p - intercept) / slope`.
    LinearRescale {
        slope: f64,
        intercept: f64,
    },
}

/// `score_transform`: polynomial, then piecewise-linear knots, then
/// rectification against the untransformed score.
#[derive(Debug, Clone, PartialEq)]
struct Transform {
    enabled: bool,
    p0: Option<f64>,
    p1: Option<f64>,
    p2: Option<f64>,
    knots: Option<Vec<(f64, f64)>>,
    out_lte_in: bool,
    out_gte_in: bool,
}

/// A libsvm regression model (nu-SVR or epsilon-SVR) with an RBF kernel.
#[derive(Debug, Clone, PartialEq)]
struct Svm {
    gamma: f64,
    rho: f64,
    /// One coefficient per support vector, in file order.
    coef: Vec<f64>,
    /// Sparse support vectors: (index, value), indices increasing, in file
    /// order. libsvm omits zero entries, so some vectors skip indices.
    sv: Vec<Vec<(i32, f64)>>,
}

impl Svm {
    /// `svm_predict_values` for a regression model: Σ coef·k(x, sv) over the
    /// support vectors in file order, in double, minus rho.
    fn decision(&self, x: &[f64]) -> f64 {
        let mut sum = 0.0;
        for (coef, sv) in self.coef.iter().zip(&self.sv) {
            sum += coef * rbf(x, sv, self.gamma);
        }
        sum -= self.rho;
        sum
    }
}

/// libsvm's RBF kernel: x is dense (index i + 1 holds `x[i]`, as libvmaf
/// builds its nodes), the support vector sparse. Squares are accumulated in
/// the order libsvm's merge walk visits the indices, then `exp(-γ·Σ)`.
fn rbf(x: &[f64], sv: &[(i32, f64)], gamma: f64) -> f64 {
    let mut sum = 0.0;
    let (mut i, mut j) = (0usize, 0usize);
    while i < x.len() && j < sv.len() {
        let xi = i as i64 + 1;
        let (yi, yv) = (i64::from(sv[j].0), sv[j].1);
        if xi == yi {
            let d = x[i] - yv;
            sum += d * d;
            i += 1;
            j += 1;
        } else if xi > yi {
            sum += yv * yv;
            j += 1;
        } else {
            sum += x[i] * x[i];
            i += 1;
        }
    }
    for &v in &x[i..] {
        sum += v * v;
    }
    for &(_, v) in &sv[j..] {
        sum += v * v;
    }
    (-gamma * sum).exp()
}

/// A loaded VMAF model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    name: String,
    features: Vec<ModelFeature>,
    norm: Normalization,
    svm: Svm,
    transform: Option<Transform>,
    clip: Option<(f64, f64)>,
}

impl Model {
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

    /// A model read from a libvmaf JSON model file (`path=FILE`).
    pub fn from_path(path: impl AsRef<Path>, config: &ModelConfig) -> Result<Self, MetricsError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|source| MetricsError::ModelRead { path: path.to_owned(), source })?;
        let origin = path.display().to_string();
        if path.extension().is_some_and(|e| e == "pkl") {
            return Err(invalid(
                &origin,
                "pkl models are not supported (libvmaf dropped them too); use the JSON model",
            ));
        }
        Self::from_json(&text, &origin, config)
    }

    /// A model from the text of a libvmaf JSON model; `origin` names it in
    /// error messages.
    pub fn from_json(text: &str, origin: &str, config: &ModelConfig) -> Result<Self, MetricsError> {
        let file: RawFile = serde_json::from_str(&wrap_numbers(text))
            .map_err(|e| invalid(origin, &format!("not a libvmaf model JSON: {e}")))?;
        let dict = file.model_dict.ok_or_else(|| {
            invalid(origin, "no \"model_dict\" (model collections are not supported)")
        })?;
        build(dict, origin, config)
    }

    /// A model from a libvmaf `--model` option string, e.g.
    /// `version=vmaf_v0.6.1neg`, `path=my.json:name=mine:enable_transform`
    /// or `version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.2` (options given as
    /// `extractor.option=value` override the model's own for every feature
    /// that extractor provides).
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
                    let value =
                        if looks_numeric(val) { normalise_number(val) } else { val.to_owned() };
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
        for (extractor, option) in overloads {
            for feature in &mut model.features {
                if feature.extractor() != Some(extractor.as_str()) {
                    continue;
                }
                match feature.options.iter_mut().find(|o| o.key == option.key) {
                    Some(existing) => existing.value = option.value.clone(),
                    None => feature.options.push(option.clone()),
                }
            }
        }
        Ok(model)
    }

    /// The name the score is reported under (`vmaf` unless configured).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model's inputs, in the order [`Model::predict`] takes them.
    pub fn features(&self) -> &[ModelFeature] {
        &self.features
    }

    /// Whether the score transform will be applied.
    pub fn transform_enabled(&self) -> bool {
        self.transform.as_ref().is_some_and(|t| t.enabled)
    }

    /// The score of one frame from its feature values, given in model order
    /// (see [`Model::features`]); libvmaf's `vmaf_predict_score_at_index`.
    ///
    /// # Panics
    /// When `features` does not hold exactly one value per model feature.
    pub fn predict(&self, features: &[f64]) -> f64 {
        assert_eq!(
            features.len(),
            self.features.len(),
            "model expects {} feature values",
            self.features.len()
        );
        let x: Vec<f64> = features
            .iter()
            .zip(&self.features)
            .map(|(&v, f)| match self.norm {
                Normalization::None => v,
                Normalization::LinearRescale { .. } => f.slope * v + f.intercept,
            })
            .collect();
        let mut p = self.svm.decision(&x);
        if let Normalization::LinearRescale { slope, intercept } = self.norm {
            p = (p - intercept) / slope;
        }
        if let Some(t) = self.transform.as_ref().filter(|t| t.enabled) {
            p = t.apply(p);
        }
        if let Some((lo, hi)) = self.clip {
            p = if p < lo { lo } else { p };
            p = if p > hi { hi } else { p };
        }
        p
    }
}

impl Transform {
    fn apply(&self, y_in: f64) -> f64 {
        let mut y = if self.p0.is_some() || self.p1.is_some() || self.p2.is_some() {
            let mut out = 0.0;
            if let Some(p0) = self.p0 {
                out += p0;
            }
            if let Some(p1) = self.p1 {
                out += p1 * y_in;
            }
            if let Some(p2) = self.p2 {
                out += p2 * y_in * y_in;
            }
            out
        } else {
            y_in
        };
        if let Some(knots) = &self.knots {
            y = piecewise_linear(y, knots).unwrap_or(0.0);
        }
        if self.out_lte_in && y > y_in {
            y = y_in;
        }
        if self.out_gte_in && y < y_in {
            y = y_in;
        }
        y
    }
}

/// libvmaf's `piecewise_linear_mapping`: every segment is visited and may
/// overwrite the result (in order), extrapolating from the first and last
/// segments. `None` where libvmaf fails (it then leaves the output at 0).
fn piecewise_linear(x: f64, knots: &[(f64, f64)]) -> Option<f64> {
    if knots.len() <= 1 {
        return None;
    }
    let n_seg = knots.len() - 1;
    let mut y = 0.0;
    for idx in 0..n_seg {
        let (a, b) = (knots[idx], knots[idx + 1]);
        if !(a.0 < b.0 && a.1 <= b.1) {
            return Some(y);
        }
        let inside = a.0 <= x && x <= b.0;
        let below = idx == 0 && x < a.0;
        let above = idx == n_seg - 1 && x > b.0;
        if a.1 == b.1 {
            if inside || below || above {
                y = a.1;
            }
        } else {
            let (slope, offset) = line_through(a, b);
            if inside || below || above {
                y = slope * x + offset;
            }
        }
    }
    Some(y)
}

/// libvmaf's `find_linear_function_parameters` for two knots that are
/// known to differ in both coordinates.
fn line_through(p1: (f64, f64), p2: (f64, f64)) -> (f64, f64) {
    if p1.0 == 0.0 {
        let beta = p1.1;
        ((p2.1 - beta) / p2.0, beta)
    } else {
        let alpha = (p2.1 - p1.1) / (p2.0 - p1.0);
        (alpha, p1.1 - p1.0 * alpha)
    }
}

fn invalid(origin: &str, reason: &str) -> MetricsError {
    MetricsError::ModelInvalid { origin: origin.to_owned(), reason: reason.to_owned() }
}

// ---------------------------------------------------------------------------
// Reading the JSON.
//
// serde_json's default float parser is not correctly rounded for 17-digit
// numbers (the slopes and intercepts have 17), while libvmaf's reader uses
// strtod, which is. Rather than depend on a serde_json feature, every number
// token is rewritten as a one-key object holding its text before serde sees
// it, and the text is parsed with Rust's correctly rounded `str::parse`.

/// Rewrites each JSON number token `1.5` as `{"\u0000num":"1.5"}`; strings
/// (including the libsvm text) are copied untouched.
fn wrap_numbers(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                out.push_str(&text[copied..i]);
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                out.push_str("{\"\\u0000num\":\"");
                out.push_str(&text[start..i]);
                out.push_str("\"}");
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// A JSON number, as its text.
#[derive(Debug, Deserialize)]
struct Num {
    #[serde(rename = "\u{0}num")]
    text: String,
}

impl Num {
    fn value(&self, origin: &str, what: &str) -> Result<f64, MetricsError> {
        self.text
            .parse()
            .map_err(|_| invalid(origin, &format!("{what}: \"{}\" is not a number", self.text)))
    }
}

#[derive(Debug, Deserialize)]
struct RawFile {
    model_dict: Option<RawDict>,
}

#[derive(Debug, Deserialize)]
struct RawDict {
    model_type: Option<String>,
    norm_type: Option<String>,
    score_clip: Option<Vec<Num>>,
    slopes: Option<Vec<Num>>,
    intercepts: Option<Vec<Num>>,
    feature_names: Option<Vec<String>>,
    feature_opts_dicts: Option<Vec<OrderedOpts>>,
    model: Option<String>,
    score_transform: Option<RawTransform>,
    chroma_correction_parameter: Option<Num>,
}

#[derive(Debug, Deserialize)]
struct RawTransform {
    enabled: Option<bool>,
    p0: Option<Num>,
    p1: Option<Num>,
    p2: Option<Num>,
    knots: Option<Vec<Vec<Num>>>,
    out_lte_in: Option<String>,
    out_gte_in: Option<String>,
}

/// An option value as it appears in `feature_opts_dicts`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawOpt {
    Num(Num),
    Bool(bool),
    Str(String),
}

/// One `feature_opts_dicts` entry with its keys in file order (serde_json's
/// own map would sort them).
#[derive(Debug)]
struct OrderedOpts(Vec<(String, RawOpt)>);

impl<'de> Deserialize<'de> for OrderedOpts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedOpts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of feature options")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedOpts, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, RawOpt>()? {
                    entries.push((k, v));
                }
                Ok(OrderedOpts(entries))
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether libvmaf's `isnumeric` would take a CLI option value as a number.
fn looks_numeric(s: &str) -> bool {
    !s.is_empty() && s.parse::<f64>().is_ok() && !s.contains(['i', 'I', 'n', 'N'])
}

/// libvmaf's numeric dictionary normalisation: parse as a float (`strtof`),
/// print with `%g`.
fn normalise_number(text: &str) -> String {
    match text.parse::<f32>() {
        Ok(v) => format_g(f64::from(v)),
        Err(_) => text.to_owned(),
    }
}

/// C's `%g` (precision 6): `%e` or `%f` chosen by the decimal exponent,
/// trailing zeros removed.
fn format_g(d: f64) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if d.is_infinite() {
        return if d < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    let e_form = format!("{d:.5e}");
    let (mantissa, exp) = e_form.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s.to_owned()
        }
    };
    if (-4..6).contains(&exp) {
        let prec = (5 - exp) as usize;
        trim(&format!("{d:.prec$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

fn build(dict: RawDict, origin: &str, config: &ModelConfig) -> Result<Model, MetricsError> {
    match dict.model_type.as_deref() {
        Some("LIBSVMNUSVR") => {}
        Some(t @ ("BOOTSTRAP_LIBSVMNUSVR" | "RESIDUEBOOTSTRAP_LIBSVMNUSVR")) => {
            return Err(invalid(
                origin,
                &format!("model_type {t} (bootstrap models) is not supported"),
            ));
        }
        Some(t) => return Err(invalid(origin, &format!("unknown model_type \"{t}\""))),
        None => return Err(invalid(origin, "no model_type")),
    }
    if dict.chroma_correction_parameter.is_some() {
        return Err(invalid(
            origin,
            "chroma_correction_parameter (speed_chroma models) is not supported",
        ));
    }
    let names = dict.feature_names.ok_or_else(|| invalid(origin, "no feature_names"))?;
    if names.is_empty() || names.len() > 64 {
        return Err(invalid(origin, "needs between 1 and 64 feature_names"));
    }
    let n = names.len();

    let numbers = |list: Option<Vec<Num>>, what: &str| -> Result<Vec<f64>, MetricsError> {
        list.unwrap_or_default().iter().map(|v| v.value(origin, what)).collect()
    };
    let slopes = numbers(dict.slopes, "slopes")?;
    let intercepts = numbers(dict.intercepts, "intercepts")?;
    let norm = match dict.norm_type.as_deref() {
        Some("none") => Normalization::None,
        Some("linear_rescale") => {
            if slopes.len() != n + 1 || intercepts.len() != n + 1 {
                return Err(invalid(
                    origin,
                    &format!(
                        "linear_rescale needs {} slopes and intercepts (the score's, then one \
                         per feature); found {} and {}",
                        n + 1,
                        slopes.len(),
                        intercepts.len()
                    ),
                ));
            }
            Normalization::LinearRescale { slope: slopes[0], intercept: intercepts[0] }
        }
        Some(t) => return Err(invalid(origin, &format!("unknown norm_type \"{t}\""))),
        None => return Err(invalid(origin, "no norm_type")),
    };

    let opts = dict.feature_opts_dicts.unwrap_or_default();
    if opts.len() > n {
        return Err(invalid(origin, "more feature_opts_dicts than feature_names"));
    }
    let mut features = Vec::with_capacity(n);
    for (i, name) in names.into_iter().enumerate() {
        let mut options: Vec<FeatureOption> = Vec::new();
        for (key, raw) in opts.get(i).map(|o| o.0.as_slice()).unwrap_or_default() {
            let value = match raw {
                RawOpt::Num(num) => {
                    num.value(origin, key)?;
                    normalise_number(&num.text)
                }
                RawOpt::Bool(b) => b.to_string(),
                RawOpt::Str(s) => s.clone(),
            };
            // libvmaf refuses a repeated key with a different value.
            if let Some(prev) = options.iter().find(|o| &o.key == key) {
                if prev.value != value {
                    return Err(invalid(origin, &format!("option {key} given twice")));
                }
                continue;
            }
            options.push(FeatureOption { key: key.clone(), value });
        }
        let (slope, intercept) = match norm {
            Normalization::LinearRescale { .. } => (slopes[i + 1], intercepts[i + 1]),
            Normalization::None => (1.0, 0.0),
        };
        features.push(ModelFeature { name, slope, intercept, options });
    }

    let clip = match (dict.score_clip, config.disable_clip) {
        (Some(c), false) => {
            if c.len() < 2 {
                return Err(invalid(origin, "score_clip needs [min, max]"));
            }
            Some((c[0].value(origin, "score_clip")?, c[1].value(origin, "score_clip")?))
        }
        _ => None,
    };

    let transform = match dict.score_transform {
        None => None,
        Some(t) => {
            let opt = |v: &Option<Num>, what| v.as_ref().map(|n| n.value(origin, what)).transpose();
            let knots = match t.knots {
                None => None,
                Some(list) => {
                    if list.len() > 10 {
                        return Err(invalid(origin, "at most 10 knots"));
                    }
                    let mut knots = Vec::with_capacity(list.len());
                    for k in &list {
                        if k.len() > 2 {
                            return Err(invalid(origin, "a knot is [x, y]"));
                        }
                        let x = k.first().map(|n| n.value(origin, "knot")).transpose()?;
                        let y = k.get(1).map(|n| n.value(origin, "knot")).transpose()?;
                        knots.push((x.unwrap_or(0.0), y.unwrap_or(0.0)));
                    }
                    Some(knots)
                }
            };
            Some(Transform {
                enabled: t.enabled.unwrap_or(false) || config.enable_transform,
                p0: opt(&t.p0, "p0")?,
                p1: opt(&t.p1, "p1")?,
                p2: opt(&t.p2, "p2")?,
                knots,
                out_lte_in: t.out_lte_in.as_deref() == Some("true"),
                out_gte_in: t.out_gte_in.as_deref() == Some("true"),
            })
        }
    };

    let text = dict.model.ok_or_else(|| invalid(origin, "no libsvm \"model\" text"))?;
    let svm = parse_libsvm(&text)
        .map_err(|reason| invalid(origin, &format!("libsvm model: {reason}")))?;
    if let Some(bad) = svm.sv.iter().flatten().find(|(idx, _)| *idx < 1 || *idx as usize > n) {
        return Err(invalid(origin, &format!("support vector index {} outside 1..={n}", bad.0)));
    }

    Ok(Model { name: config.name.clone(), features, norm, svm, transform, clip })
}

/// Reads libsvm's model text: a header of `key value...` tokens up to `SV`,
/// then one line per support vector: the coefficient, then `index:value`
/// pairs.
fn parse_libsvm(text: &str) -> Result<Svm, String> {
    let (header, body) = match text.find("SV\n") {
        Some(p) if p == 0 || text[..p].ends_with(['\n', ' ']) => (&text[..p], &text[p + 3..]),
        _ => return Err("no SV section".to_owned()),
    };
    let mut tokens = header.split([' ', '\n']).filter(|t| !t.is_empty());
    let mut svm_type = None;
    let mut kernel = None;
    let (mut gamma, mut rho, mut total, mut nr_class) = (None, None, None, None);
    let num = |t: Option<&str>, what: &str| -> Result<f64, String> {
        t.and_then(|t| t.parse().ok()).ok_or_else(|| format!("cannot read {what}"))
    };
    while let Some(key) = tokens.next() {
        match key {
            "svm_type" => svm_type = tokens.next(),
            "kernel_type" => kernel = tokens.next(),
            "gamma" => gamma = Some(num(tokens.next(), "gamma")?),
            "rho" => rho = Some(num(tokens.next(), "rho")?),
            "nr_class" => nr_class = Some(num(tokens.next(), "nr_class")?),
            "total_sv" => total = Some(num(tokens.next(), "total_sv")?),
            "degree" | "coef0" | "label" | "probA" | "probB" | "nr_sv" => {
                tokens.next();
            }
            other => return Err(format!("unknown header entry \"{other}\"")),
        }
    }
    match svm_type {
        Some("nu_svr" | "epsilon_svr") => {}
        Some(t) => return Err(format!("svm_type {t} is not a regression model")),
        None => return Err("no svm_type".to_owned()),
    }
    match kernel {
        Some("rbf") => {}
        Some(k) => return Err(format!("kernel_type {k} is not supported (only rbf)")),
        None => return Err("no kernel_type".to_owned()),
    }
    if nr_class != Some(2.0) {
        return Err("a regression model has nr_class 2".to_owned());
    }
    let gamma = gamma.ok_or("no gamma")?;
    let rho = rho.ok_or("no rho")?;
    let total = total.ok_or("no total_sv")?;
    if !(total >= 0.0 && total.fract() == 0.0) {
        return Err("bad total_sv".to_owned());
    }
    let total = total as usize;
    let mut coef = Vec::with_capacity(total);
    let mut sv = Vec::with_capacity(total);
    let mut lines = body.lines();
    for k in 0..total {
        let line =
            lines.next().ok_or_else(|| format!("{total} support vectors announced, {k} found"))?;
        let mut parts = line.split_ascii_whitespace();
        coef.push(num(parts.next(), "an SV coefficient")?);
        let mut nodes: Vec<(i32, f64)> = Vec::new();
        for part in parts {
            let (i, v) = part
                .split_once(':')
                .ok_or_else(|| format!("support vector {k}: \"{part}\" is not index:value"))?;
            let i: i32 = i.parse().map_err(|_| format!("support vector {k}: bad index \"{i}\""))?;
            if nodes.last().is_some_and(|&(prev, _)| prev >= i) {
                return Err(format!("support vector {k}: indices not increasing"));
            }
            nodes.push((i, num(Some(v), "a support vector value")?));
        }
        sv.push(nodes);
    }
    Ok(Svm { gamma, rho, coef, sv })
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
        // The same sum, written independently of `rbf`'s merge walk.
        let x = [1.25, 1.0];
        let sum1: f64 = x[0] * x[0] + (x[1] - 2.0) * (x[1] - 2.0);
        assert_eq!(rbf(&x, &[(2, 2.0)], 0.5), (-0.5 * sum1).exp());
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

    #[test]
    fn knots() {
        let k = [(0.0, 0.0), (10.0, 20.0), (20.0, 20.0)];
        assert_eq!(piecewise_linear(5.0, &k), Some(10.0));
        assert_eq!(piecewise_linear(15.0, &k), Some(20.0));
        assert_eq!(piecewise_linear(30.0, &k), Some(20.0));
        assert_eq!(piecewise_linear(-1.0, &k), Some(-2.0));
    }

    #[test]
    fn builtin_models_load() {
        for name in builtin_names() {
            let m = Model::builtin(name).unwrap();
            assert_eq!(m.features().len(), 6, "{name}");
            assert_eq!(m.name(), "vmaf");
            assert!(!m.transform_enabled(), "{name}: the CLI default has no transform");
        }
        let m = Model::builtin("vmaf_v0.6.1").unwrap();
        assert_eq!(m.svm.sv.len(), 211);
        assert_eq!(m.svm.gamma, 0.04);
        assert_eq!(m.svm.rho, -1.33133);
        // The fourth SV skips index 5 (libsvm leaves zeros out).
        assert_eq!(m.svm.sv[3].iter().map(|n| n.0).collect::<Vec<_>>(), [1, 2, 3, 4, 6]);
        assert_eq!(m.svm.sv[3][3].1, -1.110223e-16);
        assert_eq!(m.features()[0].slope, 2.8098077502505414);
        assert_eq!(m.features()[5].intercept, -1.083428597549764);
        assert_eq!(m.features()[0].extractor(), Some("adm"));
        assert_eq!(m.features()[1].extractor(), Some("motion"));
        assert_eq!(m.features()[2].extractor(), Some("vif"));
        assert!(m.features().iter().all(|f| f.options.is_empty()));
        let neg = Model::builtin("vmaf_v0.6.1neg").unwrap();
        assert_eq!(neg.features()[0].option_f64("adm_enhn_gain_limit"), Some(1.0));
        assert_eq!(neg.features()[0].options[0].value, "1");
        assert!(neg.features()[1].options.is_empty());
        for f in &neg.features()[2..] {
            assert_eq!(f.option_f64("vif_enhn_gain_limit"), Some(1.0));
        }
        let float = Model::builtin("vmaf_float_v0.6.1").unwrap();
        assert_eq!(float.features()[0].extractor(), Some("float_adm"));
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
    }

    #[test]
    fn percent_g() {
        for (v, s) in [
            (1.0, "1"),
            (100.0, "100"),
            (1.1f32 as f64, "1.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.5, "0.5"),
        ] {
            assert_eq!(format_g(v), s);
        }
    }

    #[test]
    fn wrapping_leaves_strings_alone() {
        let w = wrap_numbers(r#"{"a": [1, -2.5e3], "b": "x 1:2 \" 3"}"#);
        assert_eq!(w, r#"{"a": [{"\u0000num":"1"}, {"\u0000num":"-2.5e3"}], "b": "x 1:2 \" 3"}"#);
    }
}
