//! libvmaf's CSV report (`--csv`): a `Frame,` header naming every metric,
//! then one row per frame; every field, the last included, ends in a comma.
//! There are no pooled values in this format.

use std::fmt::Write;

use super::{Report, feature_name_alias, format_value};

pub(super) fn render(r: &Report) -> String {
    let mut s = String::from("Frame,");
    for metric in &r.pooled {
        let _ = write!(s, "{},", feature_name_alias(&metric.name));
    }
    s.push('\n');
    for frame in r.frames.iter().filter(|f| !f.metrics.is_empty()) {
        let _ = write!(s, "{},", frame.index);
        for (_, value) in &frame.metrics {
            let _ = write!(s, "{},", format_value(*value));
        }
        s.push('\n');
    }
    s
}
