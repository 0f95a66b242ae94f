//! libvmaf's JSON report (`--json`), written by hand rather than through a
//! JSON serialiser because the layout (two-space indents, `%.6f` numbers,
//! `null` for non-finite values) must match libvmaf's byte for byte.

use std::io::{self, Write};

use super::{Head, Metrics, Tail, feature_name_alias, format_value, printf_fixed};
use crate::pool::PoolMethod;

/// A finite value as libvmaf prints it, or JSON `null`.
fn number(v: f64) -> String {
    if v.is_finite() { format_value(v) } else { "null".to_owned() }
}

pub(super) fn head(out: &mut dyn Write, h: &Head<'_>) -> io::Result<()> {
    out.write_all(b"{\n")?;
    writeln!(out, "  \"version\": \"{}\",", h.version)?;
    if h.fps.is_finite() {
        writeln!(out, "  \"fps\": {},", printf_fixed(h.fps, 2))?;
    } else {
        out.write_all(b"  \"fps\": null,\n")?;
    }
    out.write_all(b"  \"frames\": [")
}

pub(super) fn frame(out: &mut dyn Write, index: u64, metrics: Metrics<'_>) -> io::Result<()> {
    // libvmaf separates by the frame number, not by "a frame came before".
    out.write_all(if index > 0 { b",\n" } else { b"\n" })?;
    out.write_all(b"    {\n")?;
    writeln!(out, "      \"frameNum\": {index},")?;
    out.write_all(b"      \"metrics\": {\n")?;
    let count = metrics.len();
    for (k, (name, value)) in metrics.iter().enumerate() {
        let comma = if k + 1 < count { "," } else { "" };
        let name = feature_name_alias(name);
        if value.is_finite() {
            writeln!(out, "        \"{name}\": {}{comma}", format_value(value))?;
        } else {
            // libvmaf writes no line break after a null.
            write!(out, "        \"{name}\": null{comma}")?;
        }
    }
    out.write_all(b"      }\n")?;
    out.write_all(b"    }")
}

pub(super) fn tail(out: &mut dyn Write, t: &Tail<'_>) -> io::Result<()> {
    out.write_all(b"\n  ],\n")?;
    out.write_all(b"  \"pooled_metrics\": {")?;
    for (i, metric) in t.pooled.iter().enumerate() {
        out.write_all(if i > 0 { b",\n" } else { b"\n" })?;
        write!(out, "    \"{}\": {{", feature_name_alias(&metric.name))?;
        if let Some(p) = &metric.pooled {
            for (j, method) in PoolMethod::ALL.iter().enumerate() {
                out.write_all(if j > 0 { b",\n" } else { b"\n" })?;
                write!(out, "      \"{}\": {}", method.name(), number(p.get(*method)))?;
            }
        }
        out.write_all(b"\n")?;
        out.write_all(b"    }")?;
    }
    out.write_all(b"\n  },\n")?;
    out.write_all(b"  \"aggregate_metrics\": {")?;
    let count = t.aggregate.len();
    for (i, (name, value)) in t.aggregate.iter().enumerate() {
        write!(out, "\n    \"{name}\": {}", number(*value))?;
        out.write_all(if i + 1 < count { b"," } else { b"" })?;
    }
    out.write_all(b"\n  }\n")?;
    out.write_all(b"}\n")
}
