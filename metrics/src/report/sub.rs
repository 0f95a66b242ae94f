//! libvmaf's subtitle report (`--sub`, MicroDVD): one line per frame,
//! `{n}{n+1}frame: n|name: value|...`, so a player can overlay the scores.

use std::io::{self, Write};

use super::{Metrics, feature_name_alias, format_value};

pub(super) fn frame(out: &mut dyn Write, index: u64, metrics: Metrics<'_>) -> io::Result<()> {
    write!(out, "{{{index}}}{{{}}}frame: {index}|", index + 1)?;
    for (name, value) in metrics.iter() {
        write!(out, "{}: {}|", feature_name_alias(name), format_value(value))?;
    }
    out.write_all(b"\n")
}
