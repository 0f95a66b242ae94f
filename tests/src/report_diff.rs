//! Comparing a vqscope JSON report with libvmaf's, value by value at the
//! six decimals libvmaf prints: per-frame metrics, pooled statistics and
//! aggregate metrics.

use serde_json::Value;

use crate::clips::printed;

/// What a comparison found.
#[derive(Debug, Default)]
pub struct Diff {
    /// Values compared.
    pub compared: usize,
    /// One line per value that differs (or that one side lacks).
    pub mismatches: Vec<String>,
}

impl Diff {
    /// Panics with every mismatch when there is one, or when fewer than
    /// `at_least` values were compared (a comparison of nothing proves
    /// nothing).
    pub fn assert_clean(&self, what: &str, at_least: usize) {
        assert!(
            self.mismatches.is_empty(),
            "{what}: {} of {} values differ:\n{}",
            self.mismatches.len(),
            self.compared,
            self.mismatches.join("\n")
        );
        assert!(self.compared >= at_least, "{what}: only {} values compared", self.compared);
    }
}

/// Compares every value libvmaf's report `theirs` has whose name passes
/// `wanted` with the same value in `ours`: frames, pooled min/max/mean/
/// harmonic mean and aggregates. A wanted value ours lacks is a mismatch.
pub fn compare(ours: &Value, theirs: &Value, wanted: impl Fn(&str) -> bool) -> Diff {
    let mut diff = Diff::default();
    let mut check = |what: String, got: Option<f64>, expected: Option<f64>| {
        let Some(expected) = expected else { return };
        diff.compared += 1;
        let (got_s, expected_s) = (got.map(printed), printed(expected));
        if got_s.as_deref() != Some(expected_s.as_str()) {
            diff.mismatches.push(format!("{what}: ours {got_s:?}, libvmaf {expected_s}"));
        }
    };
    let frames = |v: &Value| v["frames"].as_array().cloned().unwrap_or_default();
    let (of, tf) = (frames(ours), frames(theirs));
    if of.len() != tf.len() {
        check("frame count".into(), Some(of.len() as f64), Some(tf.len() as f64));
    }
    for (o, t) in of.iter().zip(&tf) {
        for (key, value) in t["metrics"].as_object().into_iter().flatten() {
            if wanted(key) {
                let what = format!("frame {} {key}", t["frameNum"]);
                check(what, o["metrics"][key].as_f64(), value.as_f64());
            }
        }
    }
    for (key, pooled) in theirs["pooled_metrics"].as_object().into_iter().flatten() {
        if wanted(key) {
            for stat in ["min", "max", "mean", "harmonic_mean"] {
                let got = ours["pooled_metrics"][key][stat].as_f64();
                check(format!("pooled {key} {stat}"), got, pooled[stat].as_f64());
            }
        }
    }
    for (key, value) in theirs["aggregate_metrics"].as_object().into_iter().flatten() {
        if wanted(key) {
            check(
                format!("aggregate {key}"),
                ours["aggregate_metrics"][key].as_f64(),
                value.as_f64(),
            );
        }
    }
    diff
}

/// The per-frame metric names of a report, in its order.
pub fn frame_keys(report: &Value) -> Vec<String> {
    report["frames"][0]["metrics"].as_object().map_or(Vec::new(), |m| m.keys().cloned().collect())
}
