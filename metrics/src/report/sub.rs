//! libvmaf's subtitle report (`--sub`, MicroDVD style): one line per frame,
//! `{n}{n+1}frame: n|name: value|...`, so a player can overlay the scores.

use std::fmt::Write;

use super::{Report, feature_name_alias, format_value};

pub(super) fn render(r: &Report) -> String {
    let mut s = String::new();
    for frame in r.frames.iter().filter(|f| !f.metrics.is_empty()) {
        let i = frame.index;
        let _ = write!(s, "{{{i}}}{{{}}}frame: {i}|", u64::from(i) + 1);
        for (name, value) in &frame.metrics {
            let _ = write!(s, "{}: {}|", feature_name_alias(name), format_value(*value));
        }
        s.push('\n');
    }
    s
}
