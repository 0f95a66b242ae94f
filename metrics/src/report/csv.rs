//! libvmaf's CSV report (`--csv`): a `Frame,` header naming every metric,
//! then one row per frame; every field, the last included, ends in a comma.
//! There are no pooled values in this format.

use std::io::{self, Write};

use super::{Head, Metrics, feature_name_alias, format_value};

pub(super) fn head(out: &mut dyn Write, head: &Head<'_>) -> io::Result<()> {
    out.write_all(b"Frame,")?;
    for name in head.names {
        write!(out, "{},", feature_name_alias(name))?;
    }
    out.write_all(b"\n")
}

pub(super) fn frame(out: &mut dyn Write, index: u64, metrics: Metrics<'_>) -> io::Result<()> {
    write!(out, "{index},")?;
    for (_, value) in metrics.iter() {
        write!(out, "{},", format_value(value))?;
    }
    out.write_all(b"\n")
}
