//! A distorted input made at another resolution: `score --scale-distorted`
//! scales it to the reference's size on the GPU, bicubic with swscale's
//! arithmetic, and the dashboard with ffmpeg's `scale` filter. The expected
//! values come from scoring a copy that ffmpeg itself scaled with the flags
//! that give swscale's C rounding (`-vf scale=W:H:flags=bicubic+accurate_rnd
//! +bitexact`, what vqscope's ffmpeg fallback passes), so the test fails if
//! vqscope scales any other way, or not at all.

use std::path::{Path, PathBuf};
use std::process::Output;

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
    let scale = format!("scale=96:64:flags={}", vqscope_video::scale::SWS_FLAGS);
    ffmpeg(&["-i", &d, "-vf", &scale, "-pix_fmt", "yuv420p", "-strict", "-1", &s]);
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
    assert!(
        stderr.contains("scaled from 48x32 to 96x64 on the GPU (bicubic, swscale's arithmetic)"),
        "{stderr}"
    );
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
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

/// `score` with the distorted input on stdin, its JSON report's values.
fn score_stdin(r: &str, distorted: &str, json: &Path) -> Output {
    common::command()
        .args(["score", "-r", r, "-d", "-", "--scale-distorted", "--json", "-o"])
        .arg(json)
        .stdin(std::fs::File::open(distorted).unwrap())
        .output()
        .unwrap()
}

/// The GPU reads stdin at its own size and scales it; an input whose pixel
/// format differs too needs ffmpeg, which takes only files.
#[test]
fn stdin_is_scaled_on_the_gpu_but_not_converted() {
    let dir = scratch("stdin");
    let (r, d, s) = clips(&dir);
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let piped = score_stdin(&r, &d, &a);
    let direct = vqscope(&["score", "-r", &r, "-d", &s, "--json", "-o", &b.to_string_lossy()]);
    let (a, b) = (report(&piped, &a), report(&direct, &b));
    assert_eq!(a["frames"], b["frames"]);

    let deep = dir.join("dis10.y4m").to_string_lossy().into_owned();
    ffmpeg(&["-i", &d, "-pix_fmt", "yuv420p10le", "-strict", "-1", &deep]);
    let out = score_stdin(&r, &deep, &dir.join("c.json"));
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

/// At 10 bits, with odd chroma sizes and the default model: ffmpeg's x86 code
/// rounds otherwise even with the fallback's flags, so the expected copy is
/// made with swscale's C code (`-cpuflags 0`); the GPU scale must equal it.
#[test]
fn ten_bit_equals_swscales_c_code() {
    let dir = scratch("ten-bit");
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (r, d, s) = (p("ref.y4m"), p("dis.y4m"), p("scaled.y4m"));
    let src = "testsrc2=size=96x64:rate=25";
    let ten = ["-pix_fmt", "yuv420p10le", "-strict", "-1"];
    ffmpeg(&[&["-f", "lavfi", "-i", src, "-frames:v", "3"][..], &ten, &[&r]].concat());
    ffmpeg(&[&["-i", &r, "-vf", "scale=50:30:flags=area"][..], &ten, &[&d]].concat());
    let scale = "scale=96:64:flags=bicubic";
    ffmpeg(&[&["-cpuflags", "0", "-i", &d, "-vf", scale][..], &ten, &[&s]].concat());
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
    assert!(stderr.contains("on the GPU"), "{stderr}");
    let direct = vqscope(&["score", "-r", &r, "-d", &s, "--json", "-o", &b.to_string_lossy()]);
    let (a, b) = (report(&scaled, &a), report(&direct, &b));
    assert_eq!(a["frames"], b["frames"]);
    assert_eq!(a["pooled_metrics"], b["pooled_metrics"]);
}
