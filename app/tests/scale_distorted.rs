//! A distorted input made at another resolution: `score --scale-distorted`
//! and the dashboard scale it to the reference's size as ffmpeg's `scale`
//! filter does at its default (bicubic). The expected values come from
//! scoring a copy that ffmpeg itself scaled (`-vf scale=W:H`), so the test
//! fails if vqscope scales any other way, or not at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{ffmpeg, vqscope};

fn scratch(name: &str) -> PathBuf {
    common::scratch("scale-distorted", name)
}

/// A 96x64 reference, a 48x32 distorted made from it, and the distorted
/// scaled back to 96x64 by ffmpeg: (reference, distorted, ffmpeg's scaled).
fn clips(dir: &Path) -> (String, String, String) {
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (r, d, s) = (p("ref.y4m"), p("dis.y4m"), p("scaled.y4m"));
    let src = "testsrc2=size=96x64:rate=25";
    ffmpeg(&["-f", "lavfi", "-i", src, "-frames:v", "3", "-pix_fmt", "yuv420p", &r]);
    ffmpeg(&["-i", &r, "-vf", "scale=48:32:flags=area", "-pix_fmt", "yuv420p", &d]);
    ffmpeg(&["-i", &d, "-vf", "scale=96:64", "-pix_fmt", "yuv420p", "-strict", "-1", &s]);
    (r, d, s)
}

fn report(out: &Output, path: &Path) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn scaled_scores_equal_ffmpegs_scaled_copy() {
    let dir = scratch("score");
    let (r, d, s) = clips(&dir);
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let scaled = vqscope(&[
        "score",
        "-r",
        &r,
        "-d",
        &d,
        "--scale-distorted",
        "--json",
        "-o",
        &a.to_string_lossy(),
    ]);
    let stderr = String::from_utf8_lossy(&scaled.stderr);
    assert!(stderr.contains("scaled from 48x32 to 96x64"), "{stderr}");
    let direct = vqscope(&["score", "-r", &r, "-d", &s, "--json", "-o", &b.to_string_lossy()]);
    let (a, b) = (report(&scaled, &a), report(&direct, &b));
    assert_eq!(a["frames"], b["frames"]);
    assert_eq!(a["pooled_metrics"], b["pooled_metrics"]);
    assert_eq!(a["frames"].as_array().unwrap().len(), 3);
}

#[test]
fn without_the_flag_the_error_names_it() {
    let dir = scratch("refuse");
    let (r, d, _) = clips(&dir);
    let out = vqscope(&["score", "-r", &r, "-d", &d]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("differ in size") && stderr.contains("--scale-distorted"), "{stderr}");
}

#[test]
fn stdin_cannot_be_scaled() {
    let dir = scratch("stdin");
    let (r, d, _) = clips(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_vqscope"))
        .env("VQSCOPE_VALIDATION", "1")
        .args(["score", "-r", &r, "-d", "-", "--scale-distorted"])
        .stdin(std::fs::File::open(&d).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("only a file can be scaled"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_dashboard_opens_a_pair_of_two_sizes() {
    let dir = scratch("dashboard");
    let (r, d, _) = clips(&dir);
    let png = dir.join("view.png");
    let out = vqscope(&[
        "screenshot",
        "--dashboard",
        "-r",
        &r,
        "-d",
        &d,
        "--size",
        "640x400",
        "-o",
        &png.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(&png).unwrap().len() > 0);
}
