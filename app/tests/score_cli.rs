//! `vqscope score` end to end on the shared clips: the JSON report must
//! carry every per-frame value libvmaf's own `vmaf.json` has, equal to the
//! printed digit, and the pooled block likewise. Plus the command-line
//! failures a user can cause, each a one-line message and exit code 1.

use std::path::Path;

use vqscope_tests::clips::{PAIRS, distorted_y4m, libvmaf_json, reference_y4m};
use vqscope_tests::report_diff::compare;

mod common;
use common::vqscope;

fn score_json(pair: &str, out: &Path) -> serde_json::Value {
    let (r, d) = (reference_y4m(pair), distorted_y4m(pair));
    let _ = std::fs::remove_file(out);
    let output = vqscope(&[
        "score",
        "-r",
        r.to_str().unwrap(),
        "-d",
        d.to_str().unwrap(),
        "--feature",
        "float_ssim",
        "--feature",
        "psnr",
        "--feature",
        "float_ms_ssim",
        "--json",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "vqscope score failed on {pair}: {stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages on {pair}:\n{stderr}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

#[test]
fn score_matches_libvmaf_on_every_shared_clip() {
    let dir = common::out_dir("score-cli");
    for pair in PAIRS {
        let ours = score_json(pair, &dir.join(format!("{pair}.json")));
        let theirs = libvmaf_json(pair, "vmaf");
        compare(&ours, &theirs, |_| true).assert_clean(pair, 200);
    }
}

/// `-n` with the integer extractors in debug mode: every integer value of
/// libvmaf's `features.json` (num/den per scale, `integer_motion`, ...).
#[test]
fn debug_features_match_libvmaf() {
    let dir = common::out_dir("score-cli");
    for pair in PAIRS {
        let out = dir.join(format!("{pair}.features.json"));
        let _ = std::fs::remove_file(&out);
        let (r, d) = (reference_y4m(pair), distorted_y4m(pair));
        let output = vqscope(&[
            "score",
            "-r",
            r.to_str().unwrap(),
            "-d",
            d.to_str().unwrap(),
            "-n",
            "--feature",
            "vif=debug=true",
            "--feature",
            "adm=debug=true",
            "--feature",
            "motion=debug=true",
            "--json",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let ours: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let theirs = libvmaf_json(pair, "features");
        // The float_* extractors are not ported.
        let integer = |k: &str| k.starts_with("integer_") || k.starts_with("VMAF_integer");
        compare(&ours, &theirs, integer).assert_clean(pair, 300);
    }
}

fn fails_with(args: &[&str], message: &str) {
    let output = vqscope(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: expected `{message}` in:\n{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn bad_invocations_fail_with_one_line() {
    let r = reference_y4m(PAIRS[2]);
    let other = distorted_y4m(PAIRS[1]);
    let (r, other) = (r.to_str().unwrap(), other.to_str().unwrap());
    // Never written: each screenshot below fails on its flags first.
    let dir = common::out_dir("score-cli");
    let png = dir.join("never-written.png");
    let _ = std::fs::remove_file(&png);
    let png = png.to_str().unwrap();
    fails_with(&["score", "-r", r, "-d", "/nonexistent.y4m", "-q"], "/nonexistent.y4m");
    // Opened side by side, both missing: the reference's error, as in turn.
    let both = ["score", "-r", "/nonexistent-ref.y4m", "-d", "/nonexistent-dis.y4m", "-q"];
    fails_with(&both, "/nonexistent-ref.y4m");
    let stderr = String::from_utf8_lossy(&vqscope(&both).stderr).into_owned();
    assert!(!stderr.contains("nonexistent-dis"), "{stderr}");
    fails_with(&["score", "-r", r, "-d", other, "-q"], "differ");
    fails_with(&["score", "-r", r, "-d", r, "-q", "-o", "/tmp"], "is a directory");
    fails_with(&["score", "-r", r, "-d", r, "-q", "-o", r], "refusing to overwrite an input");
    fails_with(&["score", "-r", r, "-d", r, "-q", "-o", "/nonexistent/x.json"], "does not exist");
    fails_with(&["score", "-r", r, "-d", r, "-q", "--feature", "nope"], "unknown feature `nope`");
    fails_with(&["score", "-r", r, "-d", r, "-q", "--model", "version=nope"], "nope");
    fails_with(&["screenshot", "--scene", "nope", "-o", png], "unknown scene");
    fails_with(
        &["screenshot", "--scene", "rects", "--mode", "wipe", "-o", png],
        "--mode applies only to --dashboard",
    );
    fails_with(
        &["screenshot", "--scene", "rects", "--zoom", "4", "-o", png],
        "--zoom applies only to --dashboard",
    );
}
