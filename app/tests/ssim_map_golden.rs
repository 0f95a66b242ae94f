//! `vqscope screenshot --ssim-map` through the real command line: the rocket
//! pair's frame 5 against the golden `screenshots/ssim_map_rocket.png`, the
//! printed `float_ssim` against libvmaf's, and the one-line errors for a
//! frame past the end and a frame too small for SSIM.

use std::path::{Path, PathBuf};
use std::process::Output;

use vqscope_renderer::capture::load_png;
use vqscope_tests::clips::{distorted_y4m, libvmaf_frames, libvmaf_json, reference_y4m};
use vqscope_tests::golden::check_golden;

const ROCKET: &str = "rocket_576x324_420p8_x264crf35";

mod common;
use common::vqscope;

fn out_dir() -> PathBuf {
    common::out_dir("ssim-map-golden")
}

/// `screenshot --ssim-map -r REF -d DIS` plus `extra`, into `out`.
fn ssim_map(r: &Path, d: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> =
        ["screenshot", "--ssim-map", "--force", "-r"].iter().map(|s| s.as_ref()).collect();
    args.extend([r.as_os_str(), "-d".as_ref(), d.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    vqscope(&args)
}

#[test]
fn rocket_frame_5_heat_map() {
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let out = out_dir().join("ssim_map_rocket.png");
    let output = ssim_map(&r, &d, &out, &["--frame", "5", "--size", "1280x720"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The title's score is the GPU kernel's: it must be libvmaf's.
    let want = libvmaf_frames(&libvmaf_json(ROCKET, "vmaf"), "float_ssim")[5];
    let printed = stderr
        .split("float_ssim ")
        .nth(1)
        .and_then(|s| s.trim_end_matches([')', '\n']).parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no float_ssim in {stderr}"));
    assert!((printed - want).abs() <= 1e-6, "float_ssim {printed}, libvmaf {want}");
    let (w, h, rgba) = load_png(&out).expect("read the screenshot");
    assert_eq!((w, h), (1280, 720));
    // No cell may be left unwritten: those would show as magenta (NaN poison).
    let magenta = rgba.chunks_exact(4).filter(|p| p[..3] == [255, 0, 255]).count();
    assert_eq!(magenta, 0, "{magenta} magenta pixels: map cells the kernel did not write");
    check_golden("ssim_map_rocket", w, h, &rgba);
}

#[test]
fn frame_past_the_end_is_a_one_line_error() {
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let out = out_dir().join("never.png");
    let _ = std::fs::remove_file(&out);
    let output = ssim_map(&r, &d, &out, &["--frame", "12"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--frame 12: the clip has 12 frames (0..=11)"), "{stderr}");
    assert!(!out.exists());
}

/// A 16x10 pair is too short for the 11x11 Gaussian window: the kernel's
/// own "too small" message, on one line.
#[test]
fn frame_too_small_is_a_one_line_error() {
    let dir = out_dir();
    let tiny = dir.join("tiny16x10.y4m");
    let mut bytes = b"YUV4MPEG2 W16 H10 F25:1 Ip A1:1 C420jpeg\n".to_vec();
    bytes.extend(b"FRAME\n");
    bytes.extend((0..16 * 10 + 2 * 8 * 5).map(|i| (i * 7 % 251) as u8));
    std::fs::write(&tiny, bytes).unwrap();
    let out = dir.join("tiny.png");
    let _ = std::fs::remove_file(&out);
    let output = ssim_map(&tiny, &tiny, &out, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("too small"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn ssim_map_needs_both_inputs() {
    let r = reference_y4m(ROCKET);
    let out = out_dir().join("never2.png");
    let output = vqscope(&[
        "screenshot".as_ref(),
        "--ssim-map".as_ref(),
        "-r".as_ref(),
        r.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--ssim-map needs both -r REF and -d DIS"), "{stderr}");
}

#[test]
fn range_outside_ssim_map_is_refused() {
    let out = out_dir().join("never3.png");
    let output = vqscope(&[
        "screenshot".as_ref(),
        "--scene".as_ref(),
        "rects".as_ref(),
        "--range".as_ref(),
        "0,1".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--range applies only to --ssim-map"), "{stderr}");
}
