//! libvmaf's JSON report (`--json`), written by hand rather than through a
//! JSON serialiser because the layout (two-space indents, `%.6f` numbers,
//! `null` for non-finite values) must match libvmaf's byte for byte.

use std::fmt::Write;

use super::{Report, feature_name_alias, format_value, printf_fixed};
use crate::pool::PoolMethod;

/// A finite value as libvmaf prints it, or JSON `null`.
fn number(v: f64) -> String {
    if v.is_finite() { format_value(v) } else { "null".to_owned() }
}

pub(super) fn render(r: &Report) -> String {
    let mut s = String::new();
    s.push_str("{\n");
    let _ = writeln!(s, "  \"version\": \"{}\",", r.version);
    if r.fps.is_finite() {
        let _ = writeln!(s, "  \"fps\": {},", printf_fixed(r.fps, 2));
    } else {
        s.push_str("  \"fps\": null,\n");
    }

    s.push_str("  \"frames\": [");
    for frame in r.frames.iter().filter(|f| !f.metrics.is_empty()) {
        // libvmaf separates by the frame number, not by "a frame came before".
        s.push_str(if frame.index > 0 { ",\n" } else { "\n" });
        s.push_str("    {\n");
        let _ = writeln!(s, "      \"frameNum\": {},", frame.index);
        s.push_str("      \"metrics\": {\n");
        let count = frame.metrics.len();
        for (k, (name, value)) in frame.metrics.iter().enumerate() {
            let comma = if k + 1 < count { "," } else { "" };
            let name = feature_name_alias(name);
            if value.is_finite() {
                let _ = writeln!(s, "        \"{name}\": {}{comma}", format_value(*value));
            } else {
                // libvmaf writes no line break after a null.
                let _ = write!(s, "        \"{name}\": null{comma}");
            }
        }
        s.push_str("      }\n");
        s.push_str("    }");
    }
    s.push_str("\n  ],\n");

    s.push_str("  \"pooled_metrics\": {");
    for (i, metric) in r.pooled.iter().enumerate() {
        s.push_str(if i > 0 { ",\n" } else { "\n" });
        let _ = write!(s, "    \"{}\": {{", feature_name_alias(&metric.name));
        if let Some(p) = &metric.pooled {
            for (j, method) in PoolMethod::ALL.iter().enumerate() {
                s.push_str(if j > 0 { ",\n" } else { "\n" });
                let _ = write!(s, "      \"{}\": {}", method.name(), number(p.get(*method)));
            }
        }
        s.push('\n');
        s.push_str("    }");
    }
    s.push_str("\n  },\n");

    s.push_str("  \"aggregate_metrics\": {");
    let count = r.aggregate.len();
    for (i, (name, value)) in r.aggregate.iter().enumerate() {
        let _ = write!(s, "\n    \"{name}\": {}", number(*value));
        s.push_str(if i + 1 < count { "," } else { "" });
    }
    s.push_str("\n  }\n");
    s.push_str("}\n");
    s
}
