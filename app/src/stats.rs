//! Order statistics of timing samples, shared by the benchmarks and the
//! playback loop's report.

/// The `q`-quantile (0: min, 1: max) of `v`, nearest rank; NaN when empty.
pub(crate) fn percentile(v: &[f64], q: f64) -> f64 {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n => sorted[((n - 1) as f64 * q).round() as usize],
    }
}

pub(crate) fn median(v: Vec<f64>) -> f64 {
    percentile(&v, 0.5)
}
