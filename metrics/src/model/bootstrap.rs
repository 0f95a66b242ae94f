//! A bootstrap model collection's per-frame outputs, as libvmaf 3.2's
//! `vmaf_bootstrap_predict_score_at_index` (libvmaf/src/predict.c
//! L440-533) computes them:
//!
//! 1. Each member's score before transform and clip (L449-459); these raw
//!    scores feed every statistic. Each member is also reported with its
//!    own transform and clip, as `NAME_0001`, `NAME_0002`, ... (L461-467).
//! 2. `mean`: the raw scores summed in member order, divided by the count
//!    (L472-476).
//! 3. `stddev`: the *population* standard deviation, `sqrt(Σ(s − mean)² /
//!    n)` with the sum in member order (L482-485). libvmaf writes
//!    `pow(s − mean, 2)`, which GCC turns into `d * d` (an integer power
//!    of 2 is expanded without `-ffast-math`), the product computed here.
//! 4. The 95 % interval: the raw scores sorted ascending, then libvmaf's
//!    `percentile` at 2.5 and 97.5: `p = perc · (n − 1) / 100`, linear
//!    interpolation between the neighbours `floor(p)` and `ceil(p)`
//!    (L430-438, L487-489).
//! 5. Member 1's transform and clip (libvmaf's `model[0]` of the
//!    collection; the main model "0" is not in the collection) applied to
//!    the mean (giving `NAME_bagging`), to both interval ends, and to
//!    `mean ± 0.01`; the stddev is multiplied by the slope of that mapping,
//!    `(f(mean + 0.01) − f(mean − 0.01)) / (2 · 0.01)` (L491-504).
//! 6. Reported in the order bagging, stddev, ci_p95_lo, ci_p95_hi
//!    (L506-531).

use super::svm::Predictor;

/// libvmaf's `delta` for the stddev's slope.
const DELTA: f64 = 0.01;

/// The statistics of one frame, finished by member 1's transform and clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Stats {
    pub(super) bagging: f64,
    pub(super) stddev: f64,
    pub(super) ci_p95_lo: f64,
    pub(super) ci_p95_hi: f64,
}

/// The members of a collection (libvmaf's `VmafModelCollection`: models
/// "1", "2", ... of the file; never model "0").
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bootstrap {
    pub(super) members: Vec<Predictor>,
}

impl Bootstrap {
    /// Appends, for one frame, every member's reported score and then
    /// bagging, stddev, ci_p95_lo and ci_p95_hi: libvmaf's order.
    pub(super) fn predict_into(&self, features: &[f64], out: &mut Vec<f64>) {
        let mut raw: Vec<f64> = self.members.iter().map(|m| m.raw(features)).collect();
        // libvmaf runs each SVM twice, once without and once with transform
        // and clip; the SVM is deterministic, so finishing the raw score is
        // the same number.
        out.extend(self.members.iter().zip(&raw).map(|(m, &r)| m.finish(r)));
        let s = statistics(&mut raw, |v| self.members[0].finish(v));
        out.extend([s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi]);
    }
}

/// Steps 2 to 5 above on the members' raw scores (sorted in place), with
/// `finish` being member 1's transform and clip.
pub(super) fn statistics(raw: &mut [f64], finish: impl Fn(f64) -> f64) -> Stats {
    assert!(!raw.is_empty(), "a collection has at least one member");
    let n = raw.len() as f64;
    let mut sum = 0.0;
    for &s in raw.iter() {
        sum += s;
    }
    let mean = sum / n;
    let mut ssd = 0.0;
    for &s in raw.iter() {
        let d = s - mean;
        ssd += d * d;
    }
    let stddev = (ssd / n).sqrt();
    // libvmaf's qsort comparator calls unordered values equal; for numbers
    // the sorted sequence is unique, so the sort algorithm does not matter.
    raw.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let lo = percentile(raw, 2.5);
    let hi = percentile(raw, 97.5);
    let plus = finish(mean + DELTA);
    let minus = finish(mean - DELTA);
    let slope = (plus - minus) / (2.0 * DELTA);
    Stats {
        bagging: finish(mean),
        stddev: stddev * slope,
        ci_p95_lo: finish(lo),
        ci_p95_hi: finish(hi),
    }
}

/// libvmaf's `percentile` of sorted scores: the rank `perc · (n − 1) / 100`
/// interpolated linearly between its floor and ceiling.
fn percentile(sorted: &[f64], perc: f64) -> f64 {
    let p = perc * (sorted.len() - 1) as f64 / 100.0;
    let (l, r) = (p.floor(), p.ceil());
    let (il, ir) = (l as usize, r as usize);
    if il == ir { sorted[il] } else { sorted[il] * (r - p) + sorted[ir] * (p - l) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics of 1..=20 worked out by hand.
    #[test]
    fn statistics_by_hand() {
        // Reversed, so the sort matters.
        let mut raw: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let s = statistics(&mut raw, |v| v);
        assert_eq!(s.bagging, 10.5);
        // Σ(k − 10.5)² over 1..=20 is 665; the population variance 665/20.
        let slope = ((10.5 + DELTA) - (10.5 - DELTA)) / (2.0 * DELTA);
        assert_eq!(s.stddev, (665.0f64 / 20.0).sqrt() * slope);
        // Ranks 0.475 and 18.525 between the sorted scores 1, 2 and 19, 20.
        assert_eq!(s.ci_p95_lo, 1.0 * (1.0 - 0.475) + 2.0 * 0.475);
        assert_eq!(s.ci_p95_hi, 19.0 * (19.0 - 18.525) + 20.0 * (18.525 - 18.0));
        assert!((s.ci_p95_lo - 1.475).abs() < 1e-12 && (s.ci_p95_hi - 19.525).abs() < 1e-12);
        // Not the sample stddev (n − 1), which libvmaf does not use.
        assert!((s.stddev - (665.0f64 / 19.0).sqrt()).abs() > 0.1);
    }

    /// The finishing step (member 1's transform and clip) acts on the mean
    /// and interval ends and scales the stddev by its slope around the mean.
    #[test]
    fn finish_scales_stddev_by_its_slope() {
        let mut raw = [99.0, 100.0, 101.0];
        let clip = |v: f64| if v > 100.0 { 100.0 } else { v };
        let s = statistics(&mut raw, clip);
        assert_eq!(s.bagging, 100.0);
        // f(100.01) = 100, f(99.99) = 99.99: the slope is about 1/2.
        let slope = (100.0 - (100.0 - DELTA)) / (2.0 * DELTA);
        assert!((slope - 0.5).abs() < 1e-9);
        assert_eq!(s.stddev, (2.0f64 / 3.0).sqrt() * slope);
        assert_eq!(s.ci_p95_hi, 100.0);
        assert_eq!(s.ci_p95_lo, 99.0 * (1.0 - 0.05) + 100.0 * 0.05);

        let doubled = statistics(&mut [1.0, 3.0], |v| 2.0 * v);
        assert_eq!(doubled.bagging, 4.0);
        assert!((doubled.stddev - 2.0).abs() < 1e-12);
    }

    #[test]
    fn percentile_edges() {
        assert_eq!(percentile(&[7.0], 2.5), 7.0);
        assert_eq!(percentile(&[7.0], 97.5), 7.0);
        // n = 41: 2.5 · 40 / 100 = 1 exactly, no interpolation.
        let v: Vec<f64> = (0..41).map(f64::from).collect();
        assert_eq!(percentile(&v, 2.5), 1.0);
        assert_eq!(percentile(&v, 97.5), 39.0);
    }
}
