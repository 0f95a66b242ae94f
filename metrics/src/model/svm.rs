//! One libvmaf model's prediction (`vmaf_predict_score_at_index` in
//! libvmaf/src/predict.c): normalise the inputs, evaluate the libsvm
//! regression (RBF kernel), denormalise, then the optional score transform
//! and the clip, each with the double operations libvmaf uses, in its order.
//!
//! Rust never contracts `a * b + c` into a fused multiply-add and `f64::exp`
//! is glibc's `exp` on Linux (the reference build's libm), so these
//! functions round exactly as the reference build does.

/// libvmaf's `norm_type`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Normalization {
    None,
    /// Features: `slope * x + intercept`; score: `(p - intercept) / slope`.
    LinearRescale {
        slope: f64,
        intercept: f64,
    },
}

/// `score_transform`: polynomial, then piecewise-linear knots, then
/// rectification against the untransformed score.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Transform {
    /// The JSON's `"enabled"`, or libvmaf's `enable_transform` config flag.
    pub(super) enabled: bool,
    pub(super) p0: Option<f64>,
    pub(super) p1: Option<f64>,
    pub(super) p2: Option<f64>,
    pub(super) knots: Option<Vec<(f64, f64)>>,
    pub(super) out_lte_in: bool,
    pub(super) out_gte_in: bool,
}

/// A libsvm regression model (nu-SVR or epsilon-SVR) with an RBF kernel.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Svm {
    pub(super) gamma: f64,
    pub(super) rho: f64,
    /// One coefficient per support vector, in file order.
    pub(super) coef: Vec<f64>,
    /// Sparse support vectors: (index, value), indices increasing, in file
    /// order. libsvm omits zero entries, so some vectors skip indices.
    pub(super) sv: Vec<Vec<(i32, f64)>>,
}

impl Svm {
    /// `svm_predict_values` for a regression model: Σ coef·k(x, sv) over the
    /// support vectors in file order, in double, minus rho.
    pub(super) fn decision(&self, x: &[f64]) -> f64 {
        let mut sum = 0.0;
        for (coef, sv) in self.coef.iter().zip(&self.sv) {
            sum += coef * rbf(x, sv, self.gamma);
        }
        sum -= self.rho;
        sum
    }
}

/// libsvm's RBF kernel: x is dense (index i + 1 holds `x[i]`, as libvmaf
/// builds its nodes), the support vector sparse. Squares are accumulated in
/// the order libsvm's merge walk visits the indices, then `exp(-γ·Σ)`.
pub(super) fn rbf(x: &[f64], sv: &[(i32, f64)], gamma: f64) -> f64 {
    let mut sum = 0.0;
    let (mut i, mut j) = (0usize, 0usize);
    while i < x.len() && j < sv.len() {
        let xi = i as i64 + 1;
        let (yi, yv) = (i64::from(sv[j].0), sv[j].1);
        if xi == yi {
            let d = x[i] - yv;
            sum += d * d;
            i += 1;
            j += 1;
        } else if xi > yi {
            sum += yv * yv;
            j += 1;
        } else {
            sum += x[i] * x[i];
            i += 1;
        }
    }
    for &v in &x[i..] {
        sum += v * v;
    }
    for &(_, v) in &sv[j..] {
        sum += v * v;
    }
    (-gamma * sum).exp()
}

/// Everything one libvmaf `VmafModel` needs to turn feature values into a
/// score. A model collection holds one per member, each with its own
/// normalisation, SVM, transform and clip.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Predictor {
    pub(super) norm: Normalization,
    /// Per input: (slope, intercept) = (`slopes[i + 1]`, `intercepts[i + 1]`).
    pub(super) scales: Vec<(f64, f64)>,
    pub(super) svm: Svm,
    pub(super) transform: Option<Transform>,
    /// `score_clip`, absent when the JSON has none or the model was loaded
    /// with `disable_clip` (libvmaf then never reads the bounds).
    pub(super) clip: Option<(f64, f64)>,
    /// The v1 models' chroma-from-luma correction.
    pub(super) chroma: Option<ChromaCorrection>,
}

/// libvmaf's chroma-from-luma correction (a model's
/// `chroma_correction_parameter`; predict.c
/// `post_process_feature_from_another`): when the chroma input (the one
/// feature whose name holds `speed_chroma`) is exactly 0 — no chroma
/// information, a grey clip — it is replaced by `c·(1 − luma)`, `luma`
/// being the one input whose name holds `adm3`. Both are compared and
/// replaced as libvmaf does: denormalised from, and normalised back into,
/// the SVM's input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ChromaCorrection {
    pub(super) parameter: f64,
    /// Index of the guiding (luma) input.
    pub(super) guiding: usize,
    /// Index of the guided (chroma) input.
    pub(super) guided: usize,
}

impl Predictor {
    /// The score before transform and clip: normalise, SVM, denormalise.
    /// This is what libvmaf computes with `VMAF_MODEL_FLAG_DISABLE_CLIP |
    /// VMAF_MODEL_FLAG_DISABLE_TRANSFORM`, the bootstrap statistics' input.
    pub(super) fn raw(&self, features: &[f64]) -> f64 {
        let mut x: Vec<f64> =
            features.iter().enumerate().map(|(i, &v)| self.normalise(i, v)).collect();
        if let Some(c) = self.chroma {
            let guiding = self.denormalise(c.guiding, x[c.guiding]);
            if self.denormalise(c.guided, x[c.guided]) == 0.0 {
                x[c.guided] = self.normalise(c.guided, -c.parameter * guiding + c.parameter);
            }
        }
        let mut p = self.svm.decision(&x);
        if let Normalization::LinearRescale { slope, intercept } = self.norm {
            p = (p - intercept) / slope;
        }
        p
    }

    /// Input `i` as the SVM takes it (libvmaf's `normalize`).
    fn normalise(&self, i: usize, v: f64) -> f64 {
        match self.norm {
            Normalization::None => v,
            Normalization::LinearRescale { .. } => self.scales[i].0 * v + self.scales[i].1,
        }
    }

    /// The inverse, libvmaf's `denormalize_feature`.
    fn denormalise(&self, i: usize, v: f64) -> f64 {
        match self.norm {
            Normalization::None => v,
            Normalization::LinearRescale { .. } => (v - self.scales[i].1) / self.scales[i].0,
        }
    }

    /// libvmaf's `transform` then `clip` with no flags: each applies only
    /// when the model has it enabled.
    pub(super) fn finish(&self, score: f64) -> f64 {
        let mut p = score;
        if let Some(t) = self.transform.as_ref().filter(|t| t.enabled) {
            p = t.apply(p);
        }
        if let Some((lo, hi)) = self.clip {
            // libvmaf's two conditional assignments, not f64::clamp, so a
            // NaN passes through the same way.
            p = if p < lo { lo } else { p };
            p = if p > hi { hi } else { p };
        }
        p
    }

    /// The reported score of one model.
    pub(super) fn predict(&self, features: &[f64]) -> f64 {
        self.finish(self.raw(features))
    }

    pub(super) fn transform_enabled(&self) -> bool {
        self.transform.as_ref().is_some_and(|t| t.enabled)
    }
}

impl Transform {
    pub(super) fn apply(&self, y_in: f64) -> f64 {
        let mut y = if self.p0.is_some() || self.p1.is_some() || self.p2.is_some() {
            let mut out = 0.0;
            if let Some(p0) = self.p0 {
                out += p0;
            }
            if let Some(p1) = self.p1 {
                out += p1 * y_in;
            }
            if let Some(p2) = self.p2 {
                out += p2 * y_in * y_in;
            }
            out
        } else {
            y_in
        };
        if let Some(knots) = &self.knots {
            y = piecewise_linear(y, knots).unwrap_or(0.0);
        }
        if self.out_lte_in && y > y_in {
            y = y_in;
        }
        if self.out_gte_in && y < y_in {
            y = y_in;
        }
        y
    }
}

/// libvmaf's `piecewise_linear_mapping`: every segment is visited and may
/// overwrite the result (in order), extrapolating from the first and last
/// segments. `None` where libvmaf fails (it then leaves the output at 0).
pub(super) fn piecewise_linear(x: f64, knots: &[(f64, f64)]) -> Option<f64> {
    if knots.len() <= 1 {
        return None;
    }
    let n_seg = knots.len() - 1;
    let mut y = 0.0;
    for idx in 0..n_seg {
        let (a, b) = (knots[idx], knots[idx + 1]);
        if !(a.0 < b.0 && a.1 <= b.1) {
            return Some(y);
        }
        let inside = a.0 <= x && x <= b.0;
        let below = idx == 0 && x < a.0;
        let above = idx == n_seg - 1 && x > b.0;
        if a.1 == b.1 {
            if inside || below || above {
                y = a.1;
            }
        } else {
            let (slope, offset) = line_through(a, b);
            if inside || below || above {
                y = slope * x + offset;
            }
        }
    }
    Some(y)
}

/// libvmaf's `find_linear_function_parameters` for two knots that are
/// known to differ in both coordinates.
fn line_through(p1: (f64, f64), p2: (f64, f64)) -> (f64, f64) {
    if p1.0 == 0.0 {
        let beta = p1.1;
        ((p2.1 - beta) / p2.0, beta)
    } else {
        let alpha = (p2.1 - p1.1) / (p2.0 - p1.0);
        (alpha, p1.1 - p1.0 * alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knots() {
        let k = [(0.0, 0.0), (10.0, 20.0), (20.0, 20.0)];
        assert_eq!(piecewise_linear(5.0, &k), Some(10.0));
        assert_eq!(piecewise_linear(15.0, &k), Some(20.0));
        assert_eq!(piecewise_linear(30.0, &k), Some(20.0));
        assert_eq!(piecewise_linear(-1.0, &k), Some(-2.0));
        assert_eq!(piecewise_linear(1.0, &k[..1]), None);
    }

    #[test]
    fn rbf_merge_walk_matches_a_dense_sum() {
        let x = [1.25, 1.0, -0.5];
        // Index 2 missing from the SV, index 4 beyond x.
        let sv = [(1, 0.5), (3, 2.0), (4, 1.5)];
        let dense: f64 =
            (1.25f64 - 0.5) * (1.25 - 0.5) + 1.0 * 1.0 + (-0.5f64 - 2.0) * (-0.5 - 2.0) + 1.5 * 1.5;
        assert_eq!(rbf(&x, &sv, 0.25), (-0.25 * dense).exp());
    }
}
