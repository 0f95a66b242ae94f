//! libvmaf's XML report (`--xml`, the CLI's default): one `<frame>` element
//! per frame with the metrics as attributes, then `<pooled_metrics>` and
//! `<aggregate_metrics>`, each attribute followed by a space as libvmaf
//! writes it.

use std::io::{self, Write};

use super::{Head, Metrics, Tail, feature_name_alias, format_value, printf_fixed};
use crate::pool::PoolMethod;

pub(super) fn head(out: &mut dyn Write, h: &Head<'_>) -> io::Result<()> {
    writeln!(out, "<VMAF version=\"{}\">", h.version)?;
    writeln!(out, "  <params qualityWidth=\"{}\" qualityHeight=\"{}\" />", h.width, h.height)?;
    writeln!(out, "  <fyi fps=\"{}\" />", printf_fixed(h.fps, 2))?;
    out.write_all(b"  <frames>\n")
}

pub(super) fn frame(out: &mut dyn Write, index: u64, metrics: Metrics<'_>) -> io::Result<()> {
    write!(out, "    <frame frameNum=\"{index}\" ")?;
    for (name, value) in metrics.iter() {
        write!(out, "{}=\"{}\" ", feature_name_alias(name), format_value(value))?;
    }
    out.write_all(b"/>\n")
}

pub(super) fn tail(out: &mut dyn Write, t: &Tail<'_>) -> io::Result<()> {
    out.write_all(b"  </frames>\n")?;
    out.write_all(b"  <pooled_metrics>\n")?;
    for metric in t.pooled {
        write!(out, "    <metric name=\"{}\" ", feature_name_alias(&metric.name))?;
        if let Some(p) = &metric.pooled {
            for method in PoolMethod::ALL {
                write!(out, "{}=\"{}\" ", method.name(), format_value(p.get(method)))?;
            }
        }
        out.write_all(b"/>\n")?;
    }
    out.write_all(b"  </pooled_metrics>\n")?;
    out.write_all(b"  <aggregate_metrics ")?;
    for (name, value) in t.aggregate {
        write!(out, "{name}=\"{}\" ", format_value(*value))?;
    }
    out.write_all(b"/>\n")?;
    out.write_all(b"</VMAF>\n")
}
