//! Pooling per-frame scores into one number per metric, as libvmaf 3.2's
//! `vmaf_feature_score_pooled` does: one pass in frame order with
//! sequential double additions (so the pooled mean is libvmaf's to the bit,
//! not merely close), min and max with libvmaf's comparisons, and the
//! harmonic mean `n / Σ 1/(s + 1) − 1`.

/// The four pooling methods, in the order libvmaf prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolMethod {
    Min,
    Max,
    Mean,
    HarmonicMean,
}

impl PoolMethod {
    /// All methods, in libvmaf's report order.
    pub const ALL: [PoolMethod; 4] = [Self::Min, Self::Max, Self::Mean, Self::HarmonicMean];

    /// The key libvmaf's reports use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Min => "min",
            Self::Max => "max",
            Self::Mean => "mean",
            Self::HarmonicMean => "harmonic_mean",
        }
    }
}

/// A metric's pooled values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub harmonic_mean: f64,
}

impl Pooled {
    /// The value for one method.
    pub fn get(&self, method: PoolMethod) -> f64 {
        match method {
            PoolMethod::Min => self.min,
            PoolMethod::Max => self.max,
            PoolMethod::Mean => self.mean,
            PoolMethod::HarmonicMean => self.harmonic_mean,
        }
    }
}

/// Pools `scores` (frame order). `None` for no scores, where libvmaf has no
/// pooled value either.
pub fn pool(scores: &[f64]) -> Option<Pooled> {
    pool_subsampled(scores, 1)
}

/// Pools the frames libvmaf scores under `--subsample n`: frame `i` counts
/// when `n <= 1` or `i % n == 0` (`scores[i]` is frame `i`; the values of
/// the other frames are ignored).
pub fn pool_subsampled(scores: &[f64], subsample: usize) -> Option<Pooled> {
    let mut pooler = Pooler::new(subsample as u64);
    for (i, &s) in scores.iter().enumerate() {
        pooler.add(i as u64, s);
    }
    pooler.pooled()
}

/// [`pool_subsampled`] one frame at a time, in a few words of memory: the
/// same sequential sums and comparisons, so the result is the same to the
/// bit, without keeping the scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooler {
    subsample: u64,
    count: u64,
    min: f64,
    max: f64,
    sum: f64,
    inv_sum: f64,
}

impl Pooler {
    /// Pools the frames `i` with `subsample <= 1` or `i % subsample == 0`.
    pub fn new(subsample: u64) -> Self {
        Self { subsample, count: 0, min: 0.0, max: 0.0, sum: 0.0, inv_sum: 0.0 }
    }

    /// Adds frame `index`'s score; frames must come in order.
    pub fn add(&mut self, index: u64, s: f64) {
        if self.subsample > 1 && !index.is_multiple_of(self.subsample) {
            return;
        }
        self.count += 1;
        self.sum += s;
        self.inv_sum += 1.0 / (s + 1.0);
        // libvmaf's own comparisons (not f64::min), so a NaN behaves alike.
        if index == 0 || s < self.min {
            self.min = s;
        }
        if index == 0 || s > self.max {
            self.max = s;
        }
    }

    /// The pooled values so far; `None` before any counted frame.
    pub fn pooled(&self) -> Option<Pooled> {
        if self.count == 0 {
            return None;
        }
        let n = self.count as f64;
        let (min, max) = (self.min, self.max);
        Some(Pooled { min, max, mean: self.sum / n, harmonic_mean: n / self.inv_sum - 1.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_cases() {
        let p = pool(&[1.0, 3.0, 2.0]).unwrap();
        assert_eq!(p.min, 1.0);
        assert_eq!(p.max, 3.0);
        assert_eq!(p.mean, 2.0);
        // 3 / (1/2 + 1/4 + 1/3) - 1 = 3 / (13/12) - 1 = 36/13 - 1 = 23/13.
        assert_eq!(p.harmonic_mean, 3.0 / (0.5 + 0.25 + 1.0 / 3.0) - 1.0);
        assert!((p.harmonic_mean - 23.0 / 13.0).abs() < 1e-15);
        assert_eq!(pool(&[]), None);
        let one = pool(&[42.5]).unwrap();
        assert_eq!((one.min, one.max, one.mean, one.harmonic_mean), (42.5, 42.5, 42.5, 42.5));
    }

    /// The sum is sequential: 1e16 + 1 + 1 stays 1e16 in double, where a
    /// pairwise or Kahan sum would give 1e16 + 2.
    #[test]
    fn sequential_sum() {
        let p = pool(&[1e16, 1.0, 1.0]).unwrap();
        assert_eq!(p.mean, 1e16 / 3.0);
        assert_ne!(p.mean, (1e16 + 2.0) / 3.0);
    }

    #[test]
    fn subsample() {
        let s = [10.0, 99.0, 20.0, 99.0, 30.0];
        let p = pool_subsampled(&s, 2).unwrap();
        assert_eq!((p.min, p.max, p.mean), (10.0, 30.0, 20.0));
        assert_eq!(pool_subsampled(&s, 1), pool(&s));
        assert_eq!(pool_subsampled(&s, 0), pool(&s));
    }

    #[test]
    fn names_in_libvmaf_order() {
        let names: Vec<_> = PoolMethod::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["min", "max", "mean", "harmonic_mean"]);
    }
}
