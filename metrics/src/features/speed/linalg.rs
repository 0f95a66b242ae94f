//! The small dense linear algebra of libvmaf's SpEED (`speed.c`): the
//! eigenvalues of the 25×25 covariance matrix (Householder reduction to
//! tridiagonal form, then implicit symmetric QR steps, after GSL's
//! `symmtd` and `symm`) and the solution of `K X = Y` through a Householder
//! QR decomposition and back substitution.
//!
//! Every value is an `f32` as in libvmaf, with its mixed-precision steps
//! reproduced where C promotes to `double` (square roots, `1.0 / sqrt(…)`,
//! `-0.5 * τ * x·v`, the comparisons against `1e-6`). The order of every
//! sum is libvmaf's, and no product is fused: whether the covariance matrix
//! counts as singular (an eigenvalue below `1e-6`) can hinge on the last
//! bit of these floats.

// Index loops, as in libvmaf's C: they keep the port checkable line by
// line, and the order of every float operation visible.
#![allow(clippy::needless_range_loop)]

/// libvmaf's `EIGENVALUE_EPS`: the threshold of "numerically zero", used in
/// `double` comparisons.
pub const EIGENVALUE_EPS: f64 = 1e-6;

/// libvmaf's `EIGENVALUE_MAX_ITERS`.
const MAX_ITERS: usize = 500;

/// C's `sqrt` of a `float` expression stored back into a `float`.
fn sqrt_f(x: f32) -> f32 {
    f64::from(x).sqrt() as f32
}

/// `get_sign`: 1 for `x >= 0`, −1 otherwise, as the `float` C converts it to.
fn sign(x: f32) -> f32 {
    if x >= 0.0 { 1.0 } else { -1.0 }
}

/// `pythagoras`: `sqrt(x·x + y·y)`, the sum in `float`.
fn hypot(x: f32, y: f32) -> f32 {
    sqrt_f(x * x + y * y)
}

/// A square `n × n` matrix, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Square {
    pub n: usize,
    pub data: Vec<f32>,
}

impl Square {
    pub fn zeros(n: usize) -> Self {
        Self { n, data: vec![0.0; n * n] }
    }

    fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n);
        for i in 0..n {
            m.data[i * n + i] = 1.0;
        }
        m
    }

    pub fn at(&self, i: usize, j: usize) -> f32 {
        self.data[i * self.n + j]
    }

    pub fn set(&mut self, i: usize, j: usize, v: f32) {
        self.data[i * self.n + j] = v;
    }
}

/// `matrix_mul`: `x · y` for a square `x` and a `x.n × cols` `y`, each
/// output summed in `f32` from 0 in ascending `k`.
fn multiply(x: &Square, y: &[f32], cols: usize) -> Vec<f32> {
    let n = x.n;
    let mut out = vec![0.0f32; n * cols];
    for i in 0..n {
        for k in 0..n {
            for j in 0..cols {
                out[i * cols + j] += x.data[i * n + k] * y[k * cols + j];
            }
        }
    }
    out
}

/// `compute_column_norm`: the norm of `a[start.., col]`.
fn column_norm(a: &Square, col: usize, start: usize) -> f32 {
    let mut norm = 0.0f32;
    for i in start..a.n {
        norm += a.at(i, col) * a.at(i, col);
    }
    sqrt_f(norm)
}

/// `compute_householder_transform` of column `col` from row `start`: `τ`,
/// with the column scaled in place so that its first element holds `β`.
fn householder(a: &mut Square, col: usize, start: usize) -> f32 {
    let n = a.n;
    if n - start == 1 {
        return 0.0;
    }
    let xnorm = column_norm(a, col, start + 1);
    if xnorm == 0.0 {
        return 0.0;
    }
    let alpha = a.at(start, col);
    let beta = -sign(alpha) * hypot(alpha, xnorm);
    let tau = (beta - alpha) / beta;
    let s = alpha - beta;
    if s != 0.0 {
        for i in start..n {
            a.data[i * n + col] /= s;
        }
        a.set(start, col, beta);
    }
    tau
}

/// `convert_to_tridiagonal`: the diagonal and subdiagonal of `a` reduced
/// by `n − 2` Householder transformations (`a` is overwritten).
fn tridiagonal(a: &mut Square) -> (Vec<f32>, Vec<f32>) {
    let n = a.n;
    let mut v = vec![0.0f32; n];
    let mut x = vec![0.0f32; n];
    for i in 0..n.saturating_sub(2) {
        let tau = householder(a, i, i + 1);
        for j in i + 1..n {
            v[j] = a.at(j, i);
        }
        if tau != 0.0 {
            a.set(i + 1, i, v[i + 1]);
            v[i + 1] = 1.0;
            let s = i + 1;
            // x = τ·A·v, each product rounded as C's left-to-right `τ·A·v`.
            for r in s..n {
                x[r] = 0.0;
                for c in s..n {
                    x[r] += tau * a.at(r, c) * v[c];
                }
            }
            let mut xv = 0.0f32;
            for r in s..n {
                xv += x[r] * v[r];
            }
            let alpha = (-0.5 * f64::from(tau) * f64::from(xv)) as f32;
            for r in s..n {
                x[r] += alpha * v[r];
            }
            for r in s..n {
                for c in s..n {
                    a.data[r * n + c] -= x[r] * v[c] + v[r] * x[c];
                }
            }
        }
    }
    let d = (0..n).map(|i| a.at(i, i)).collect();
    let sd = (0..n - 1).map(|i| a.at(i + 1, i)).collect();
    (d, sd)
}

/// `chop_small_elements`: subdiagonal entries negligible next to their
/// diagonal neighbours become 0 (compared in `double`).
fn chop(d: &[f32], sd: &mut [f32]) {
    for i in 0..d.len() - 1 {
        if f64::from(sd[i].abs()) < EIGENVALUE_EPS * f64::from(d[i].abs() + d[i + 1].abs()) {
            sd[i] = 0.0;
        }
    }
}

/// `trailing_eigenvalue`: Wilkinson's shift from the trailing 2×2 block.
fn trailing_eigenvalue(d: &[f32], sd: &[f32]) -> f32 {
    let n = d.len();
    let (ta, tb, tab) = (d[n - 2], d[n - 1], sd[n - 2]);
    let dt = (f64::from(ta - tb) / 2.0) as f32;
    if dt > 0.0 {
        tb - tab * (tab / (dt + hypot(dt, tab)))
    } else if dt == 0.0 {
        tb - tab.abs()
    } else {
        tb + tab * (tab / (-dt + hypot(dt, tab)))
    }
}

/// `create_givens`: `(c, s)` of the rotation zeroing `b` against `a`.
fn givens(a: f32, b: f32) -> (f32, f32) {
    if b == 0.0 {
        (1.0, 0.0)
    } else if b.abs() > a.abs() {
        let t = -a / b;
        let s1 = (1.0 / f64::from(1.0 + t * t).sqrt()) as f32;
        (s1 * t, s1)
    } else {
        let t = -b / a;
        let c1 = (1.0 / f64::from(1.0 + t * t).sqrt()) as f32;
        (c1, c1 * t)
    }
}

/// `qr_step`: one implicit symmetric QR step on the unreduced block
/// `d`, `sd` (`d.len()` ≥ 2).
fn qr_step(d: &mut [f32], sd: &mut [f32]) {
    let n = d.len();
    let mut mu = trailing_eigenvalue(d, sd);
    if EIGENVALUE_EPS * f64::from(mu.abs()) > f64::from(d[0].abs() + sd[0].abs()) {
        mu = 0.0;
    }
    let mut x = d[0] - mu;
    let mut z = sd[0];
    let mut bk = 0.0f32;
    let mut zk = 0.0f32;
    let mut ap = d[0];
    let mut bp = sd[0];
    let mut aq = d[1];
    if n == 2 {
        let (c, s) = givens(x, z);
        let ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        let bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        let aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }
    let mut bq = sd[1];
    for k in 0..n - 1 {
        let (c, s) = givens(x, z);
        let bk1 = c * bk - s * zk;
        let ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        let bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        let zp1 = -s * bq;
        let aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        let bq1 = c * bq;
        let ak = ap1;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if k < n - 2 {
            aq = d[k + 2];
        }
        if k < n - 3 {
            bq = sd[k + 2];
        }
        d[k] = ak;
        if k > 0 {
            sd[k - 1] = bk1;
        }
        if k < n - 2 {
            sd[k + 1] = bp;
        }
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    sd[n - 2] = bk;
}

/// `compute_eigenvalues`: the eigenvalues of the symmetric matrix `a`, in
/// the order libvmaf's QR iteration leaves them (not sorted).
pub fn eigenvalues(a: &Square) -> Vec<f32> {
    if a.n == 1 {
        return vec![a.data[0]];
    }
    let mut work = a.clone();
    let (mut d, mut sd) = tridiagonal(&mut work);
    chop(&d, &mut sd);
    let mut b = d.len() - 1;
    let mut iter = 0;
    while b > 0 && iter < MAX_ITERS {
        if sd[b - 1] == 0.0 {
            b -= 1;
            continue;
        }
        let mut lo = b - 1;
        while lo > 0 && sd[lo - 1] != 0.0 {
            lo -= 1;
        }
        qr_step(&mut d[lo..=b], &mut sd[lo..b]);
        chop(&d[lo..=b], &mut sd[lo..b]);
        iter += 1;
    }
    d
}

/// `matrix_qr_decomposition`'s product of Householder reflections `Q_acc`
/// (libvmaf's `Q` before its final transposition, which
/// `solve_linear_system` undoes) and `R = Q_acc · A`.
fn qr(a: &Square) -> (Square, Square) {
    let n = a.n;
    let mut z = a.clone();
    let mut q = Square::identity(n);
    let mut v = vec![0.0f32; n];
    for k in 0..n - 1 {
        // matrix_minor: rows and columns above k become the identity's.
        for i in 0..n {
            for j in 0..n {
                if i < k || j < k {
                    z.set(i, j, if i == j { 1.0 } else { 0.0 });
                }
            }
        }
        for (i, vi) in v.iter_mut().enumerate() {
            *vi = z.at(i, k);
        }
        let norm = vector_norm(&v);
        // The sign comes from the input matrix, not from the reduced one.
        v[k] += sign(a.at(k, k)) * norm;
        let d = vector_norm(&v);
        for vi in &mut v {
            *vi /= d;
        }
        let mut h = Square::zeros(n);
        for i in 0..n {
            for j in 0..n {
                h.set(i, j, -2.0 * v[i] * v[j]);
            }
        }
        for i in 0..n {
            h.data[i * n + i] += 1.0;
        }
        z = Square { n, data: multiply(&h, &z.data, n) };
        q = Square { n, data: multiply(&h, &q.data, n) };
    }
    let r = Square { n, data: multiply(&q, &a.data, n) };
    (q, r)
}

/// `vector_norm`.
fn vector_norm(x: &[f32]) -> f32 {
    let mut sum = 0.0f32;
    for &v in x {
        sum += v * v;
    }
    sqrt_f(sum)
}

/// `solve_linear_system`: `X` with `A X = B` for the `n × cols` matrix `b`,
/// through `R X = Qᵀ B` by back substitution. `None` where a diagonal
/// element of `R` is below 1e-6 in magnitude (libvmaf's `-EINVAL`).
pub fn solve(a: &Square, b: &[f32], cols: usize) -> Option<Vec<f32>> {
    let n = a.n;
    let (q, r) = qr(a);
    let rhs = multiply(&q, b, cols);
    let mut x = vec![0.0f32; n * cols];
    for i in (0..n).rev() {
        let den = r.at(i, i);
        if f64::from(den.abs()) < EIGENVALUE_EPS {
            return None;
        }
        for j in 0..cols {
            let mut t = rhs[i * cols + j];
            for k in i + 1..n {
                t -= x[k * cols + j] * r.at(i, k);
            }
            x[i * cols + j] = t / den;
        }
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symmetric(n: usize, seed: u64) -> Square {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        };
        // B·Bᵀ + diagonal: symmetric positive definite.
        let b: Vec<f32> = (0..n * n).map(|_| next()).collect();
        let mut m = Square::zeros(n);
        for i in 0..n {
            for j in 0..n {
                let mut acc = 0.0f64;
                for k in 0..n {
                    acc += f64::from(b[i * n + k]) * f64::from(b[j * n + k]);
                }
                m.set(i, j, acc as f32 + if i == j { 0.5 } else { 0.0 });
            }
        }
        m
    }

    #[test]
    fn eigenvalues_have_the_trace_and_solve_the_characteristic_equation() {
        for (n, seed) in [(2, 1), (3, 2), (5, 3), (25, 4)] {
            let m = symmetric(n, seed);
            let e = eigenvalues(&m);
            let trace: f64 = (0..n).map(|i| f64::from(m.at(i, i))).sum();
            let sum: f64 = e.iter().map(|&v| f64::from(v)).sum();
            assert!((trace - sum).abs() < 1e-3 * trace.abs(), "{n}: {trace} vs {sum}");
            // Each eigenvalue makes M − λI (nearly) singular: its smallest
            // pivot is tiny next to the matrix's scale.
            for &l in &e {
                assert!(l > 0.4, "positive definite with a 0.5 ridge: {l}");
            }
        }
    }

    #[test]
    fn solve_inverts_a_well_conditioned_system() {
        let n = 25;
        let m = symmetric(n, 9);
        let x: Vec<f32> = (0..n * 3).map(|i| (i % 7) as f32 - 3.0).collect();
        let b = multiply(&m, &x, 3);
        let got = solve(&m, &b, 3).expect("regular");
        for (g, w) in got.iter().zip(&x) {
            assert!((g - w).abs() < 1e-3, "{g} vs {w}");
        }
    }

    #[test]
    fn solve_refuses_a_singular_matrix() {
        let mut m = symmetric(5, 3);
        for j in 0..5 {
            let v = m.at(0, j);
            m.set(1, j, v);
            m.set(j, 1, m.at(j, 0));
        }
        m.set(1, 1, m.at(0, 0));
        assert!(solve(&m, &[1.0; 5], 1).is_none());
    }
}
