//! Reading libvmaf's model JSON (libvmaf/src/read_json_model.c): a single
//! model (`{"model_dict": {...}}`) or a model collection (`{"0": {...},
//! "1": {...}, ...}`, each entry a single model), with libvmaf's defaults,
//! checks and option normalisation.
//!
//! serde_json's default float parser is not correctly rounded for 17-digit
//! numbers (the slopes and intercepts have 17), while libvmaf's reader uses
//! `strtod`, which is. Rather than depend on a serde_json feature, every
//! number token is rewritten as a one-key object holding its text before
//! serde sees it, and the text is parsed with Rust's correctly rounded
//! `str::parse`.

use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};

use super::libsvm::parse_libsvm;
use super::svm::{ChromaCorrection, Normalization, Predictor, Transform};
use super::{FeatureOption, Model, ModelConfig, ModelFeature, invalid};
use crate::error::MetricsError;
use crate::features::normalise_number;

/// libvmaf's `MAX_FEATURE_COUNT`.
const MAX_FEATURES: usize = 64;
/// libvmaf's `MAX_KNOT_COUNT`.
const MAX_KNOTS: usize = 10;
/// libvmaf names collection members `NAME_%04d` in a buffer sized for four
/// digits and matches their keys through a five-byte buffer, so a
/// collection beyond member 9999 would overflow its buffers.
const MAX_MEMBERS: usize = 9999;

/// libvmaf's `model_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ModelType {
    /// `LIBSVMNUSVR`.
    Svr,
    /// `BOOTSTRAP_LIBSVMNUSVR`.
    Bootstrap,
    /// `RESIDUEBOOTSTRAP_LIBSVMNUSVR`: libvmaf 3.2 predicts it exactly like
    /// `BOOTSTRAP_LIBSVMNUSVR` (predict.c L542-546).
    ResidueBootstrap,
}

/// One `model_dict`, read.
#[derive(Debug)]
pub(super) struct Parsed {
    pub(super) kind: ModelType,
    pub(super) features: Vec<ModelFeature>,
    pub(super) predictor: Predictor,
}

/// Reads a model or a model collection.
///
/// libvmaf's CLI first tries the text as a single model (a top-level
/// `"model_dict"`), and only when that fails as a collection (tools/vmaf.c
/// L223-247); here a top-level `"model_dict"` makes the text a single model
/// and its errors are reported as such.
pub(super) fn parse(text: &str, origin: &str, config: &ModelConfig) -> Result<Model, MetricsError> {
    let top: RawTop = serde_json::from_str(&wrap_numbers(text))
        .map_err(|e| invalid(origin, &format!("not a libvmaf model JSON: {e}")))?;
    if let Some(dict) = top.model_dict {
        return Ok(Model::single(config, build(dict, origin, config)?));
    }
    let mut entries = top.numbered.into_iter();
    let Some(first) = entries.next() else {
        return Err(invalid(
            origin,
            "no \"model_dict\" (a model) and no \"0\", \"1\", ... (a model collection)",
        ));
    };
    let member_origin = |i: usize| format!("{origin}, collection model \"{i}\"");
    let dict_of = |entry: RawFile, i: usize| {
        entry.model_dict.ok_or_else(|| invalid(&member_origin(i), "no \"model_dict\""))
    };
    let main = build(dict_of(first, 0)?, &member_origin(0), config)?;
    let mut members = Vec::new();
    for (k, entry) in entries.enumerate() {
        let i = k + 1;
        if i > MAX_MEMBERS {
            return Err(invalid(
                origin,
                &format!(
                    "more than {MAX_MEMBERS} collection models (libvmaf numbers them with four digits)"
                ),
            ));
        }
        let member = build(dict_of(entry, i)?, &member_origin(i), config)?;
        check_member(&main, &members, &member, &member_origin(i))?;
        members.push(member);
    }
    if members.is_empty() {
        return Err(invalid(
            origin,
            "a model collection needs models \"1\", \"2\", ... besides the main model \"0\" \
             (keys must appear in that order)",
        ));
    }
    Ok(Model::collection(config, main, members))
}

/// What a collection member must share with the others. libvmaf refuses
/// members of different `model_type` (model.c L282) and predicts only
/// bootstrap collections (predict.c L541-549); it computes the inputs the
/// members ask for and reads the main model's from them, so vqscope, which
/// takes one input list per frame, needs every model to ask for the same.
fn check_member(
    main: &Parsed,
    earlier: &[Parsed],
    member: &Parsed,
    origin: &str,
) -> Result<(), MetricsError> {
    let kind = earlier.first().map_or(member.kind, |m| m.kind);
    if member.kind != kind {
        return Err(invalid(origin, "model_type differs from model \"1\"'s"));
    }
    if kind == ModelType::Svr {
        return Err(invalid(
            origin,
            "model_type LIBSVMNUSVR in a collection: libvmaf predicts only collections of \
             BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR models",
        ));
    }
    let inputs = |p: &Parsed| -> Vec<(String, Vec<FeatureOption>)> {
        p.features.iter().map(|f| (f.name.clone(), f.options.clone())).collect()
    };
    if inputs(member) != inputs(main) {
        return Err(invalid(
            origin,
            "its feature_names or feature_opts_dicts differ from model \"0\"'s; vqscope needs \
             one input list for the whole collection",
        ));
    }
    Ok(())
}

/// Rewrites each JSON number token `1.5` as `{"\u0000num":"1.5"}`; strings
/// (including the libsvm text) are copied untouched.
pub(super) fn wrap_numbers(text: &str) -> String {
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

/// The top-level object: a single model's `"model_dict"`, or collection
/// models under `"0"`, `"1"`, ... Like libvmaf (read_json_model.c
/// L509-535), a numbered key counts only when it is the next number
/// expected; every other key is skipped.
#[derive(Debug)]
struct RawTop {
    model_dict: Option<RawDict>,
    numbered: Vec<RawFile>,
}

impl<'de> Deserialize<'de> for RawTop {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawTop;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object holding \"model_dict\" or models \"0\", \"1\", ...")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTop, A::Error> {
                let mut top = RawTop { model_dict: None, numbered: Vec::new() };
                while let Some(key) = map.next_key::<String>()? {
                    if key == "model_dict" {
                        top.model_dict = Some(map.next_value()?);
                    } else if key == top.numbered.len().to_string() {
                        top.numbered.push(map.next_value()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(top)
            }
        }
        d.deserialize_map(V)
    }
}

/// One collection entry: an object with a `"model_dict"` (its other keys,
/// such as `"param_dict"`, are skipped as libvmaf skips them).
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
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
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

/// One `model_dict` turned into inputs and a predictor, with libvmaf's
/// config flags applied as its reader applies them: `disable_clip` leaves
/// the clip out, `enable_transform` switches on a `score_transform` that
/// the JSON does not enable (read_json_model.c L297-355).
/// The correction of a model with a `chroma_correction_parameter`: the one
/// input named like `adm3` guides the one named like `speed_chroma` (the
/// substrings libvmaf's predict.c looks for). libvmaf reads past its inputs
/// when either is missing and skips the prediction when the parameter is 0;
/// both are refused here.
fn chroma_correction(parameter: f64, names: &[String]) -> Result<ChromaCorrection, String> {
    let only = |part: &str| -> Result<usize, String> {
        let mut found = names.iter().enumerate().filter(|(_, n)| n.contains(part)).map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(i), None) => Ok(i),
            (None, _) => {
                Err(format!("chroma_correction_parameter needs an input named like {part}"))
            }
            (Some(_), Some(_)) => Err(format!("more than one input is named like {part}")),
        }
    };
    if parameter == 0.0 {
        return Err("chroma_correction_parameter 0 (libvmaf then predicts nothing)".to_owned());
    }
    Ok(ChromaCorrection { parameter, guiding: only("adm3")?, guided: only("speed_chroma")? })
}

fn build(dict: RawDict, origin: &str, config: &ModelConfig) -> Result<Parsed, MetricsError> {
    // libvmaf predicts a single model of either bootstrap type as a plain
    // SVM; the type matters only inside a collection.
    let kind = match dict.model_type.as_deref() {
        Some("LIBSVMNUSVR") => ModelType::Svr,
        Some("BOOTSTRAP_LIBSVMNUSVR") => ModelType::Bootstrap,
        Some("RESIDUEBOOTSTRAP_LIBSVMNUSVR") => ModelType::ResidueBootstrap,
        Some(t) => return Err(invalid(origin, &format!("unknown model_type \"{t}\""))),
        None => return Err(invalid(origin, "no model_type")),
    };
    let names = dict.feature_names.ok_or_else(|| invalid(origin, "no feature_names"))?;
    if names.is_empty() || names.len() > MAX_FEATURES {
        return Err(invalid(origin, &format!("needs between 1 and {MAX_FEATURES} feature_names")));
    }
    let chroma = match &dict.chroma_correction_parameter {
        None => None,
        Some(num) => Some(
            chroma_correction(num.value(origin, "chroma_correction_parameter")?, &names)
                .map_err(|reason| invalid(origin, &reason))?,
        ),
    };
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
    let mut scales = Vec::with_capacity(n);
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
        scales.push((slope, intercept));
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
                    if list.len() > MAX_KNOTS {
                        return Err(invalid(origin, &format!("at most {MAX_KNOTS} knots")));
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

    Ok(Parsed {
        kind,
        features,
        predictor: Predictor { norm, scales, svm, transform, clip, chroma },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_leaves_strings_alone() {
        let w = wrap_numbers(r#"{"a": [1, -2.5e3], "b": "x 1:2 \" 3"}"#);
        assert_eq!(w, r#"{"a": [{"\u0000num":"1"}, {"\u0000num":"-2.5e3"}], "b": "x 1:2 \" 3"}"#);
    }

    /// libvmaf takes numbered keys only in sequence: "2" before "1" is
    /// skipped, and the collection ends where the sequence breaks.
    #[test]
    fn numbered_keys_in_sequence_only() {
        let top: RawTop = serde_json::from_str(&wrap_numbers(
            r#"{"x": 1, "0": {}, "2": {"model_dict": null}, "1": {}, "3": {}}"#,
        ))
        .unwrap();
        assert!(top.model_dict.is_none());
        assert_eq!(top.numbered.len(), 2);
    }
}
