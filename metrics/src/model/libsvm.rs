//! The libsvm model text inside a libvmaf model JSON (its `"model"` string):
//! a header of `key value...` lines up to `SV`, then one line per support
//! vector, the coefficient followed by sparse `index:value` pairs.
//!
//! Only what libvmaf can predict with is accepted: a regression SVM
//! (`nu_svr` or `epsilon_svr`) with an RBF kernel. Numbers are read with
//! Rust's correctly rounded `str::parse`, as glibc's `strtod` reads them.

use super::svm::Svm;

/// Reads libsvm's model text; the error says what is wrong, without origin.
pub(super) fn parse_libsvm(text: &str) -> Result<Svm, String> {
    let (header, body) = match text.find("SV\n") {
        Some(p) if p == 0 || text[..p].ends_with(['\n', ' ']) => (&text[..p], &text[p + 3..]),
        _ => return Err("no SV section".to_owned()),
    };
    let mut tokens = header.split([' ', '\n']).filter(|t| !t.is_empty());
    let mut svm_type = None;
    let mut kernel = None;
    let (mut gamma, mut rho, mut total, mut nr_class) = (None, None, None, None);
    let num = |t: Option<&str>, what: &str| -> Result<f64, String> {
        t.and_then(|t| t.parse().ok()).ok_or_else(|| format!("cannot read {what}"))
    };
    while let Some(key) = tokens.next() {
        match key {
            "svm_type" => svm_type = tokens.next(),
            "kernel_type" => kernel = tokens.next(),
            "gamma" => gamma = Some(num(tokens.next(), "gamma")?),
            "rho" => rho = Some(num(tokens.next(), "rho")?),
            "nr_class" => nr_class = Some(num(tokens.next(), "nr_class")?),
            "total_sv" => total = Some(num(tokens.next(), "total_sv")?),
            "degree" | "coef0" | "label" | "probA" | "probB" | "nr_sv" => {
                tokens.next();
            }
            other => return Err(format!("unknown header entry \"{other}\"")),
        }
    }
    match svm_type {
        Some("nu_svr" | "epsilon_svr") => {}
        Some(t) => return Err(format!("svm_type {t} is not a regression model")),
        None => return Err("no svm_type".to_owned()),
    }
    match kernel {
        Some("rbf") => {}
        Some(k) => return Err(format!("kernel_type {k} is not supported (only rbf)")),
        None => return Err("no kernel_type".to_owned()),
    }
    if nr_class != Some(2.0) {
        return Err("a regression model has nr_class 2".to_owned());
    }
    let gamma = gamma.ok_or("no gamma")?;
    let rho = rho.ok_or("no rho")?;
    let total = total.ok_or("no total_sv")?;
    if !(total >= 0.0 && total.fract() == 0.0) {
        return Err("bad total_sv".to_owned());
    }
    let total = total as usize;
    // Each support vector takes at least two bytes ("0\n"), so a claim the
    // text cannot hold is refused before anything is allocated for it.
    if total > body.len() / 2 + 1 {
        return Err(format!("{total} support vectors announced, the text is too short"));
    }
    let mut coef = Vec::with_capacity(total);
    let mut sv = Vec::with_capacity(total);
    let mut lines = body.lines();
    for k in 0..total {
        let line =
            lines.next().ok_or_else(|| format!("{total} support vectors announced, {k} found"))?;
        let mut parts = line.split_ascii_whitespace();
        coef.push(num(parts.next(), "an SV coefficient")?);
        let mut nodes: Vec<(i32, f64)> = Vec::new();
        for part in parts {
            let (i, v) = part
                .split_once(':')
                .ok_or_else(|| format!("support vector {k}: \"{part}\" is not index:value"))?;
            let i: i32 = i.parse().map_err(|_| format!("support vector {k}: bad index \"{i}\""))?;
            if nodes.last().is_some_and(|&(prev, _)| prev >= i) {
                return Err(format!("support vector {k}: indices not increasing"));
            }
            nodes.push((i, num(Some(v), "a support vector value")?));
        }
        sv.push(nodes);
    }
    Ok(Svm { gamma, rho, coef, sv })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\n";

    #[test]
    fn reads_sparse_vectors_in_order() {
        let text = format!("{HEADER}total_sv 2\nrho -1.5\nSV\n2 1:1 2:0 \n-1 2:2 \n");
        let svm = parse_libsvm(&text).unwrap();
        assert_eq!(svm.gamma, 0.5);
        assert_eq!(svm.rho, -1.5);
        assert_eq!(svm.coef, [2.0, -1.0]);
        assert_eq!(svm.sv, [vec![(1, 1.0), (2, 0.0)], vec![(2, 2.0)]]);
    }

    #[test]
    fn refuses_what_libvmaf_cannot_predict_with() {
        let bad = |text: &str, needle: &str| {
            let e = parse_libsvm(text).unwrap_err();
            assert!(e.contains(needle), "{e}");
        };
        bad("svm_type c_svc\nkernel_type rbf\nSV\n", "c_svc");
        bad("svm_type nu_svr\nkernel_type linear\nSV\n", "linear");
        bad(&format!("{HEADER}total_sv 1\nrho 0\n"), "no SV");
        bad(&format!("{HEADER}total_sv 2\nrho 0\nSV\n1 1:0 \n"), "2 support vectors announced");
        bad(&format!("{HEADER}total_sv 1\nrho 0\nSV\n1 2:0 1:0 \n"), "not increasing");
        bad(&format!("{HEADER}total_sv 99999999999\nrho 0\nSV\n1 1:0 \n"), "too short");
        bad(&format!("{HEADER}total_sv 1\nrho 0\nwhat 1\nSV\n1 1:0 \n"), "what");
    }
}
