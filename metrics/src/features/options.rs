//! Feature options as libvmaf declares and parses them: a table of typed
//! options per extractor (name, alias, default, range, whether it is a
//! "feature parameter"), values parsed from libvmaf's `k=v:k=v` strings, and
//! the option-suffixed output names libvmaf derives from the parameters that
//! differ from their defaults (`integer_adm2_egl_1`).

use std::fmt;
use std::sync::Arc;

use crate::MetricsError;

/// The type and default of an option (libvmaf's `VmafOptionType` with
/// `default_val`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Double(f64),
    /// A string option that takes one of a fixed list of words (libvmaf's
    /// `VMAF_OPT_TYPE_STRING` options, which the extractor checks against
    /// its list when it starts): the word, taken from that list.
    Choice(&'static str),
    /// A free string option (libvmaf's `VMAF_OPT_TYPE_STRING` with a
    /// `NULL` default, e.g. CAMBI's `heatmaps_path`), unset by default. The
    /// text itself is kept by [`FeatureOptions`] (see
    /// [`FeatureOptions::text`]), which keeps this type `Copy`.
    Text,
}

impl fmt::Display for OptionValue {
    /// As libvmaf prints a value into a feature name: `true`/`false`, `%d`,
    /// `%g`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bool(b) => write!(f, "{b}"),
            Self::Int(i) => write!(f, "{i}"),
            Self::Double(d) => f.write_str(&format_g(*d)),
            Self::Choice(c) => f.write_str(c),
            Self::Text => Ok(()),
        }
    }
}

/// One option of a feature extractor, as libvmaf's `VmafOption` table
/// declares it.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// The option's name (`adm_enhn_gain_limit`).
    pub name: &'static str,
    /// The short form used in output names (`egl`); the name when absent.
    pub alias: Option<&'static str>,
    /// Type and default value.
    pub default: OptionValue,
    /// Inclusive range for numbers, checked when the option is set.
    pub range: (f64, f64),
    /// The words a [`OptionValue::Choice`] option takes (empty otherwise).
    pub choices: &'static [&'static str],
    /// libvmaf's `VMAF_OPT_FLAG_FEATURE_PARAM`: a non-default value changes
    /// the names of the extractor's outputs.
    pub param: bool,
    /// libvmaf's help text, shown in `--help` and error messages.
    pub help: &'static str,
}

impl OptionSpec {
    /// A boolean option.
    pub const fn bool(name: &'static str, default: bool, help: &'static str) -> Self {
        Self {
            name,
            alias: None,
            default: OptionValue::Bool(default),
            range: (0.0, 1.0),
            choices: &[],
            param: false,
            help,
        }
    }

    /// An integer option in `lo..=hi`.
    pub const fn int(
        name: &'static str,
        default: i64,
        lo: i64,
        hi: i64,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            alias: None,
            default: OptionValue::Int(default),
            range: (lo as f64, hi as f64),
            choices: &[],
            param: false,
            help,
        }
    }

    /// A double option in `lo..=hi`.
    pub const fn double(
        name: &'static str,
        default: f64,
        lo: f64,
        hi: f64,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            alias: None,
            default: OptionValue::Double(default),
            range: (lo, hi),
            choices: &[],
            param: false,
            help,
        }
    }

    /// A string option taking one of `choices`, `default` among them.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
        help: &'static str,
    ) -> Self {
        Self {
            name,
            alias: None,
            default: OptionValue::Choice(default),
            range: (0.0, 0.0),
            choices,
            param: false,
            help,
        }
    }

    /// A free string option, unset by default; never a feature parameter.
    pub const fn text(name: &'static str, help: &'static str) -> Self {
        Self {
            name,
            alias: None,
            default: OptionValue::Text,
            range: (0.0, 0.0),
            choices: &[],
            param: false,
            help,
        }
    }

    /// The same option as a feature parameter with output-name alias `alias`.
    pub const fn param(mut self, alias: &'static str) -> Self {
        self.alias = Some(alias);
        self.param = true;
        self
    }

    /// Parses `text` as libvmaf's option setter does: `true`/`false` for
    /// booleans; numbers must parse whole and lie in the range.
    pub fn parse(&self, feature: &str, text: &str) -> Result<OptionValue, MetricsError> {
        let bad = |reason: String| MetricsError::FeatureOption {
            feature: feature.to_owned(),
            option: self.name.to_owned(),
            reason,
        };
        let (lo, hi) = self.range;
        let in_range = |v: f64| (lo..=hi).contains(&v);
        match self.default {
            OptionValue::Bool(_) => match text {
                "true" => Ok(OptionValue::Bool(true)),
                "false" => Ok(OptionValue::Bool(false)),
                _ => Err(bad(format!("\"{text}\" is not true or false"))),
            },
            OptionValue::Int(_) => match text.trim().parse::<i64>() {
                Ok(v) if in_range(v as f64) => Ok(OptionValue::Int(v)),
                Ok(v) => Err(bad(format!("{v} is outside {lo} ..= {hi}"))),
                Err(_) => Err(bad(format!("\"{text}\" is not an integer"))),
            },
            OptionValue::Double(_) => match text.trim().parse::<f64>() {
                Ok(v) if in_range(v) => Ok(OptionValue::Double(v)),
                Ok(v) => Err(bad(format!(
                    "{} is outside {} ..= {}",
                    format_g(v),
                    format_g(lo),
                    format_g(hi)
                ))),
                Err(_) => Err(bad(format!("\"{text}\" is not a number"))),
            },
            OptionValue::Choice(_) => match self.choices.iter().find(|&&c| c == text) {
                Some(&c) => Ok(OptionValue::Choice(c)),
                None => Err(bad(format!("\"{text}\" is not one of {}", self.choices.join(", ")))),
            },
            OptionValue::Text if text.is_empty() => Err(bad("needs a value".to_owned())),
            OptionValue::Text => Ok(OptionValue::Text),
        }
    }
}

/// The options of one feature instance: the values set explicitly (by a
/// `--feature` string or a model), the rest at their defaults.
#[derive(Debug, Clone)]
pub struct FeatureOptions {
    specs: &'static [OptionSpec],
    /// `(index into specs, value)`, at most one per option.
    set: Vec<(usize, OptionValue)>,
    /// The text of each free string option set, `(index into specs, text)`.
    texts: Vec<(usize, Arc<str>)>,
}

impl FeatureOptions {
    /// Every option at its default.
    pub fn defaults(specs: &'static [OptionSpec]) -> Self {
        Self { specs, set: Vec::new(), texts: Vec::new() }
    }

    /// Sets option `name` from its text, as libvmaf does for
    /// `--feature NAME=name=text`; refuses unknown names (listing the known
    /// ones) and invalid values.
    pub fn set(&mut self, feature: &str, name: &str, text: &str) -> Result<(), MetricsError> {
        let Some(at) = self.specs.iter().position(|s| s.name == name) else {
            let known: Vec<&str> = self.specs.iter().map(|s| s.name).collect();
            return Err(MetricsError::FeatureOption {
                feature: feature.to_owned(),
                option: name.to_owned(),
                reason: format!("no such option (options: {})", known.join(", ")),
            });
        };
        // libvmaf normalises numeric text of every option, paths included.
        let text = normalise_number(text);
        let value = self.specs[at].parse(feature, &text)?;
        self.set.retain(|(i, _)| *i != at);
        self.set.push((at, value));
        if value == OptionValue::Text {
            self.texts.retain(|(i, _)| *i != at);
            self.texts.push((at, text.as_str().into()));
        }
        Ok(())
    }

    /// Parses libvmaf's `k=v:k=v` option list (the part after `NAME=`).
    pub fn parse_list(&mut self, feature: &str, list: &str) -> Result<(), MetricsError> {
        for item in list.split(':').filter(|i| !i.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(MetricsError::FeatureOption {
                    feature: feature.to_owned(),
                    option: item.to_owned(),
                    reason: "expected option=value".to_owned(),
                });
            };
            self.set(feature, key, value)?;
        }
        Ok(())
    }

    fn value(&self, name: &str) -> OptionValue {
        let at = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| panic!("option {name} is not in this feature's table"));
        self.set.iter().find(|(i, _)| *i == at).map_or(self.specs[at].default, |(_, v)| *v)
    }

    /// A boolean option's value.
    ///
    /// # Panics
    /// When the feature declares no boolean `name` (a programming error).
    pub fn bool(&self, name: &str) -> bool {
        match self.value(name) {
            OptionValue::Bool(b) => b,
            other => panic!("option {name} is {other:?}, not a boolean"),
        }
    }

    /// An integer option's value (panics like [`FeatureOptions::bool`]).
    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            OptionValue::Int(i) => i,
            other => panic!("option {name} is {other:?}, not an integer"),
        }
    }

    /// A double option's value (panics like [`FeatureOptions::bool`]).
    pub fn double(&self, name: &str) -> f64 {
        match self.value(name) {
            OptionValue::Double(d) => d,
            other => panic!("option {name} is {other:?}, not a double"),
        }
    }

    /// A string option's word (panics like [`FeatureOptions::bool`]).
    pub fn choice(&self, name: &str) -> &'static str {
        match self.value(name) {
            OptionValue::Choice(c) => c,
            other => panic!("option {name} is {other:?}, not a string"),
        }
    }

    /// A free string option's text, None when unset.
    ///
    /// # Panics
    /// When the feature declares no free string `name` (a programming error).
    pub fn text(&self, name: &str) -> Option<Arc<str>> {
        match self.value(name) {
            OptionValue::Text => {}
            other => panic!("option {name} is {other:?}, not a free string"),
        }
        let at = self.specs.iter().position(|s| s.name == name)?;
        self.texts.iter().find(|(i, _)| *i == at).map(|(_, t)| Arc::clone(t))
    }

    /// The feature parameters that differ from their defaults, sorted by
    /// option name: what identifies an instance and names its outputs.
    fn params(&self) -> Vec<(&'static OptionSpec, OptionValue)> {
        let mut params: Vec<_> = self
            .set
            .iter()
            .map(|&(i, v)| (&self.specs[i], v))
            .filter(|(spec, v)| spec.param && *v != spec.default)
            .collect();
        params.sort_by_key(|(spec, _)| spec.name);
        params
    }

    /// Takes every option `other` sets explicitly (the later request wins,
    /// as a later `--feature` option does in libvmaf's dictionary).
    pub fn merge(&mut self, other: &Self) {
        for &(at, value) in &other.set {
            self.set.retain(|(i, _)| *i != at);
            self.set.push((at, value));
        }
        for (at, text) in &other.texts {
            self.texts.retain(|(i, _)| i != at);
            self.texts.push((*at, Arc::clone(text)));
        }
    }

    /// Whether two option sets give the same outputs under the same names
    /// (libvmaf runs such instances once).
    pub fn same_params(&self, other: &Self) -> bool {
        let key = |o: &Self| -> Vec<(&'static str, OptionValue)> {
            o.params().into_iter().map(|(spec, v)| (spec.name, v)).collect()
        };
        key(self) == key(other)
    }

    /// Whether `other` sets exactly the same options to the same values
    /// (an option set to its default counts as different from one left
    /// unset: the answer errs on the side of "not the same").
    pub fn same_as(&self, other: &Self) -> bool {
        let sorted = |o: &Self| {
            let mut set = o.set.clone();
            set.sort_by_key(|(i, _)| *i);
            let mut texts = o.texts.clone();
            texts.sort_by_key(|(i, _)| *i);
            (set, texts)
        };
        std::ptr::eq(self.specs, other.specs) && sorted(self) == sorted(other)
    }

    /// libvmaf's `vmaf_feature_name_from_options`: `base` followed by
    /// `_alias` for each non-default boolean parameter and `_alias_value`
    /// for each other one, in the alphabetical order of the option names.
    pub fn output_name(&self, base: &str) -> String {
        let mut name = base.to_owned();
        for (spec, value) in self.params() {
            name.push('_');
            name.push_str(spec.alias.unwrap_or(spec.name));
            if !matches!(value, OptionValue::Bool(_)) {
                name.push('_');
                name.push_str(&value.to_string());
            }
        }
        name
    }
}

/// libvmaf's dictionary normalisation of numeric option text (every option
/// given on its command line or in a model goes through it): the text is
/// read as a *float* (`strtof`) and printed back with `%g`, so `1.0` becomes
/// `1` and `0.1234567` becomes `0.123457`; other text is kept.
pub fn normalise_number(text: &str) -> String {
    let numeric = text.parse::<f64>().is_ok() && !text.contains(['i', 'I', 'n', 'N']);
    match text.parse::<f32>() {
        Ok(v) if numeric => format_g(f64::from(v)),
        _ => text.to_owned(),
    }
}

/// C's `printf("%g")` (precision 6): the shorter of `%e` and `%f` chosen by
/// the decimal exponent, trailing zeros removed. libvmaf prints option
/// values into feature names and model dictionaries with it.
pub fn format_g(d: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: [OptionSpec; 4] = [
        OptionSpec::bool("debug", false, "debug"),
        OptionSpec::double("zeta_weight", 0.5, 0.0, 1.0, "z").param("zw"),
        OptionSpec::int("alpha_height", 1080, 1, 4320, "a").param("ah"),
        OptionSpec::bool("beta_on", false, "b").param("bo"),
    ];

    #[test]
    fn names_follow_libvmaf() {
        let mut o = FeatureOptions::defaults(&SPECS);
        assert_eq!(o.output_name("x"), "x");
        o.parse_list("f", "zeta_weight=0.02:debug=true:alpha_height=2160").unwrap();
        // Sorted by option name, not alias; debug is no parameter.
        assert_eq!(o.output_name("x"), "x_ah_2160_zw_0.02");
        o.set("f", "beta_on", "true").unwrap();
        assert_eq!(o.output_name("x"), "x_ah_2160_bo_zw_0.02");
        // A parameter set to its default does not rename.
        o.set("f", "zeta_weight", "0.50").unwrap();
        assert_eq!(o.output_name("x"), "x_ah_2160_bo");
        assert!(o.bool("debug"));
        assert_eq!(o.int("alpha_height"), 2160);
    }

    #[test]
    fn bad_values_are_refused() {
        let mut o = FeatureOptions::defaults(&SPECS);
        for bad in [
            "zeta_weight=2",
            "zeta_weight=x",
            "alpha_height=0",
            "beta_on=1",
            "nope=1",
            "zeta_weight",
        ] {
            assert!(o.parse_list("f", bad).is_err(), "{bad}");
        }
        let e = o.set("f", "nope", "1").unwrap_err().to_string();
        assert!(e.contains("debug, zeta_weight, alpha_height, beta_on"), "{e}");
    }

    #[test]
    fn percent_g() {
        for (v, s) in [
            (1.0, "1"),
            (0.02, "0.02"),
            (1.1f32 as f64, "1.1"),
            (100.0, "100"),
            (0.03125, "0.03125"),
            (1e-7, "1e-07"),
            (0.00001, "1e-05"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(format_g(v), s);
        }
        assert_eq!(normalise_number("1.0"), "1");
        assert_eq!(normalise_number("0.1234567"), "0.123457");
        assert_eq!(normalise_number("bilinear"), "bilinear");
    }

    #[test]
    fn choices_take_listed_words_only() {
        const SPECS: [OptionSpec; 1] =
            [OptionSpec::choice("method", "near", &["near", "far"], "m").param("pm")];
        let mut o = FeatureOptions::defaults(&SPECS);
        assert_eq!(o.choice("method"), "near");
        assert!(o.set("f", "method", "middle").is_err());
        o.set("f", "method", "far").unwrap();
        assert_eq!(o.choice("method"), "far");
        assert_eq!(o.output_name("x"), "x_pm_far");
    }
}
