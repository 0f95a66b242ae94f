//! The dashboard rendered headless on the rocket pair (576x324, 12 frames)
//! through the real command line, compared with goldens in `screenshots/`:
//! each view mode at frame 5 (the SSIM heat map too, fitted and zoomed;
//! the ΔE and CAMBI banding maps),
//! a display offset, a 12x zoom with the cursor hovering over the
//! picture (pixel grid, hover readout), and small windows (800x500 at
//! frame 0, 640x400: compact side panel, ellipses, "+N more"). Plus the
//! no-display demo: it must write its PNG and JSON without overwriting
//! files already there. Re-bless with `VQSCOPE_BLESS=1` and look at every
//! image it writes before committing it.

use std::path::{Path, PathBuf};

use vqscope_renderer::capture::load_png;
use vqscope_tests::clips::{distorted_y4m, reference_y4m};
use vqscope_tests::golden::check_golden;

const ROCKET: &str = "rocket_576x324_420p8_x264crf35";

mod common;

fn out_dir() -> PathBuf {
    common::out_dir("dashboard-golden")
}

/// Runs `vqscope screenshot --dashboard` on rocket at frame 5, 1280x720,
/// with `extra` flags and checks the PNG against golden `name`.
fn shot(name: &str, extra: &[&str]) {
    shot_at(name, 5, (1280, 720), extra);
}

fn shot_at(name: &str, frame: u64, size: (u32, u32), extra: &[&str]) {
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let out = out_dir().join(format!("{name}.png"));
    let output = common::command()
        .args(["screenshot", "--dashboard", "-r", r.to_str().unwrap(), "-d"])
        .arg(&d)
        .args(["--frame", &frame.to_string(), "--size", &format!("{}x{}", size.0, size.1)])
        .args(["--force", "-o"])
        .arg(&out)
        .args(extra)
        .output()
        .expect("run vqscope");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{name}: {stderr}");
    assert!(!stderr.contains("[vulkan"), "{name}: validation messages:\n{stderr}");
    let (w, h, rgba) = load_png(&out).expect("read the screenshot");
    check_golden(name, w, h, &rgba);
}

#[test]
fn dashboard_side_by_side() {
    shot("dashboard_side", &["--mode", "side"]);
}

/// The bootstrap model: its 95% confidence band behind the VMAF trace,
/// and its interval among the frame's values.
#[test]
fn dashboard_bootstrap_band() {
    shot("dashboard_bootstrap", &["--mode", "side", "--model", "version=vmaf_b_v0.6.3"]);
}

#[test]
fn dashboard_wipe() {
    shot("dashboard_wipe", &["--mode", "wipe"]);
}

#[test]
fn dashboard_difference() {
    shot("dashboard_diff", &["--mode", "diff"]);
}

/// The SSIM heat map: magenta anywhere would mean the kernel left cells
/// unwritten (the map is poisoned with NaN before each run).
#[test]
fn dashboard_ssim_map() {
    shot("dashboard_ssim", &["--mode", "ssim"]);
}

/// Zoomed into the SSIM map: cells stay flat blocks on the picture's grid,
/// aligned with the other views (the map starts 5 samples in).
#[test]
fn dashboard_ssim_map_zoomed() {
    shot("dashboard_ssim_zoom", &["--mode", "ssim", "--zoom", "12", "--cursor", "200,200"]);
}

/// The distorted side shown one frame late (`]`): the header says so and
/// the difference view compares reference 5 with distorted 6.
#[test]
fn dashboard_with_an_offset() {
    shot("dashboard_offset", &["--mode", "diff", "--offsets", "0,1"]);
}

#[test]
fn dashboard_zoomed_with_hover() {
    shot("dashboard_zoom_hover", &["--zoom", "12", "--cursor", "200,200"]);
}

/// 800x500 at frame 0: every worst frame still listed (the side panel
/// drops its spare row instead), and the plot's cursor on frame 0 clear
/// of the y axis.
#[test]
fn dashboard_800x500_at_frame_0() {
    shot_at("dashboard_800x500", 0, (800, 500), &["--mode", "side"]);
}

/// 640x400: the side panel goes compact (clip facts two to a row) and
/// says how many worst frames it has no room for; cut text ends in "…".
#[test]
fn dashboard_640x400() {
    shot_at("dashboard_640x400", 5, (640, 400), &["--mode", "ssim"]);
}

#[test]
fn dashboard_help_overlay() {
    shot("dashboard_help", &["--help-overlay"]);
}

/// A `--feature` value as the plot's second series (what `P` reaches in the
/// window), hovered so the tooltip shows it beside VMAF.
#[test]
fn dashboard_feature_as_second_series() {
    shot(
        "dashboard_series",
        &["--feature", "float_moment", "--series", "float_moment_dis1st", "--cursor", "700,560"],
    );
}

/// The CAMBI banding map (c-values of the distorted frame's finest scale,
/// high glowing), with cambi as the plot's second series. Checked by eye
/// against libvmaf's own scale-0 heat-map dump of frame 5.
#[test]
fn dashboard_cambi_map() {
    shot("dashboard_cambi", &["--mode", "cambi", "--feature", "cambi", "--series", "cambi"]);
}

/// The CIEDE2000 ΔE map (high ΔE glows, the ramp turned round) with
/// ciede2000 as the plot's second series: the colour damage the luma
/// views cannot show.
#[test]
fn dashboard_delta_e_map() {
    shot("dashboard_ciede", &["--mode", "ciede", "--feature", "ciede", "--series", "ciede2000"]);
}

/// A series nobody computes is refused on one line that lists the ones
/// that are, not drawn as an empty plot.
#[test]
fn dashboard_unknown_series_is_an_error() {
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let output = common::command()
        .args(["screenshot", "--dashboard", "-r"])
        .args([&r, Path::new("-d"), &d])
        .args(["--series", "ciede2001", "-o"])
        .arg(out_dir().join("never.png"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--series ciede2001: not among the computed values")
            && stderr.contains("integer_vif_scale0, integer_adm2, integer_motion2, psnr_y")
            && stderr.trim_end().lines().count() == 1,
        "{stderr}"
    );
    assert!(!out_dir().join("never.png").exists());
}

#[test]
fn dashboard_past_the_end_is_an_error() {
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let output = common::command()
        .args(["screenshot", "--dashboard", "-r"])
        .args([&r, Path::new("-d"), &d])
        .args(["--frame", "12", "-o"])
        .arg(out_dir().join("never.png"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the clip has 12 frames"), "{stderr}");
}

#[test]
fn no_display_renders_the_demo_without_overwriting() {
    let dir = out_dir().join("demo");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vqscope-demo.png"), b"mine").unwrap();
    let output = common::command()
        .current_dir(&dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
    assert_eq!(std::fs::read(dir.join("vqscope-demo.png")).unwrap(), b"mine");
    assert!(!dir.join("vqscope-demo.json").exists(), "names go in pairs");
    let (w, h, _) = load_png(&dir.join("vqscope-demo-1.png")).expect("the demo PNG");
    assert_eq!((w, h), (1280, 720));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vqscope-demo-1.json")).unwrap())
            .unwrap();
    let frames = json["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 48);
    let vmaf: Vec<f64> = frames.iter().map(|f| f["metrics"]["vmaf"].as_f64().unwrap()).collect();
    let (lo, hi) = vmaf.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    assert!(lo < 40.0 && hi > 70.0, "the demo's encode swings in quality: {lo}..{hi}");
    assert!(json["pooled_metrics"]["vmaf"]["mean"].as_f64().is_some());
}

/// With inputs and no display, the dashboard of those inputs goes to a PNG
/// and their scores to a JSON report, as the demo's do.
#[test]
fn no_display_with_inputs_writes_their_dashboard() {
    let dir = out_dir().join("inputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (r, d) = (reference_y4m(ROCKET), distorted_y4m(ROCKET));
    let output = common::command()
        .current_dir(&dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .args(["-r", r.to_str().unwrap(), "-d", d.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    let (w, h, _) = load_png(&dir.join("vqscope-dashboard.png")).expect("the dashboard PNG");
    assert_eq!((w, h), (1280, 720));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vqscope-dashboard.json")).unwrap())
            .unwrap();
    assert_eq!(json["frames"].as_array().unwrap().len(), 12);
}

/// `bench playback` runs the window's frame loop headless on the demo with
/// validation on: it prints a row per window size with frames drawn, plays
/// with a side offset, and refuses a nonsense duration or offset in one
/// line.
#[test]
fn bench_playback_plays_the_demo_and_refuses_bad_durations() {
    let run_with = |seconds: &str, offset: &str| {
        common::command()
            .args(["bench", "playback", "--sizes", "256x160", "--seconds", seconds])
            .args(["--offset", offset])
            .output()
            .unwrap()
    };
    let run = |seconds: &str| run_with(seconds, "0");
    let output = run("0.5");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    let row = stdout.lines().find(|l| l.starts_with("256x160")).expect("a row for the size");
    let frames: u32 = row.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(frames >= 1, "{row}");
    let first_pair_ms: f64 = row.split_whitespace().nth(9).unwrap().parse().unwrap();
    assert!(first_pair_ms >= 0.0, "{row}");
    // Playing on from the first frame, the feed never seeks.
    assert_eq!(row.split_whitespace().nth(10), Some("0"), "{row}");
    // The scored column: frames with scores of the demo's 48, and when all
    // were in if they were.
    let scored = row.split_whitespace().nth(11).unwrap();
    let (done, total) = scored.split_once('/').expect("scored as N/48");
    assert!(total == "48" && done.parse::<u32>().unwrap() <= 48, "{row}");
    assert_eq!(row.contains(" by "), done == "48", "{row}");

    let output = run("nan");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--seconds NaN") && stderr.lines().count() == 1, "{stderr}");

    // The distorted side 3 frames earlier: a row, no validation message.
    let output = run_with("0.3", "-3");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && !stderr.contains("[vulkan"), "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("256x160")), "{stdout}");
    let output = run_with("0.3", "99999999");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--offset 99999999") && stderr.lines().count() == 1, "{stderr}");
}
