//! libvmaf's XML report (`--xml`, the CLI's default): one `<frame>` element
//! per frame with the metrics as attributes, then `<pooled_metrics>` and
//! `<aggregate_metrics>`, each attribute followed by a space as libvmaf
//! writes it.

use std::fmt::Write;

use super::{Report, feature_name_alias, format_value, printf_fixed};
use crate::pool::PoolMethod;

pub(super) fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<VMAF version=\"{}\">", r.version);
    let _ = writeln!(s, "  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />", r.width, r.height);
    let _ = writeln!(s, "  <fyi fps=\"{}\" />", printf_fixed(r.fps, 2));
    s.push_str("  <frames>\n");
    for frame in r.frames.iter().filter(|f| !f.metrics.is_empty()) {
        let _ = write!(s, "    <frame frameNum=\"{}\" ", frame.index);
        for (name, value) in &frame.metrics {
            let _ = write!(s, "{}=\"{}\" ", feature_name_alias(name), format_value(*value));
        }
        s.push_str("/>\n");
    }
    s.push_str("  </frames>\n");
    s.push_str("  <pooled_metrics>\n");
    for metric in &r.pooled {
        let _ = write!(s, "    <metric name=\"{}\" ", feature_name_alias(&metric.name));
        if let Some(p) = &metric.pooled {
            for method in PoolMethod::ALL {
                let _ = write!(s, "{}=\"{}\" ", method.name(), format_value(p.get(method)));
            }
        }
        s.push_str("/>\n");
    }
    s.push_str("  </pooled_metrics>\n");
    s.push_str("  <aggregate_metrics ");
    for (name, value) in &r.aggregate {
        let _ = write!(s, "{name}=\"{}\" ", format_value(*value));
    }
    s.push_str("/>\n");
    s.push_str("</VMAF>\n");
    s
}
