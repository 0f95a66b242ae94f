//! `vqscope score --verbose`: the start-up breakdown, the pipeline cache
//! file (a second run reads what the first wrote; an unwritable folder is a
//! note, not a failure), and an fps that covers the whole command.

use std::path::{Path, PathBuf};
use std::process::Output;

use vqscope_tests::clips::{PAIRS, distorted_y4m, reference_y4m, workspace_root};

mod common;

/// `vqscope score --verbose` on two frames of a small shared pair, psnr
/// only, with the pipeline cache in `cache` and a JSON report to `report`.
fn score(cache: &Path, report: &Path) -> Output {
    let (r, d) = (reference_y4m(PAIRS[2]), distorted_y4m(PAIRS[2]));
    let output = common::command()
        .args(["score", "-r", r.to_str().unwrap(), "-d", d.to_str().unwrap()])
        .args(["-n", "--feature", "psnr", "--frame_cnt", "2", "--verbose", "--json", "-o"])
        .arg(report)
        .env("VQSCOPE_PIPELINE_CACHE", cache)
        .output()
        .expect("run vqscope");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    output
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/score-startup").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The milliseconds of the `--verbose` line that ends with `what`.
fn ms(stderr: &str, what: &str) -> f64 {
    let line = stderr.lines().find(|l| l.ends_with(what)).unwrap_or_else(|| panic!("no {what}"));
    let ms = line.trim_start_matches("vqscope:").split_whitespace().next().unwrap();
    ms.parse().unwrap()
}

#[test]
fn a_second_run_reads_the_pipeline_cache_the_first_wrote() {
    let dir = fresh_dir("round-trip");
    let cache = dir.join("cache");
    let first = String::from_utf8_lossy(&score(&cache, &dir.join("1.json")).stderr).into_owned();
    assert!(first.contains("at start: none yet"), "{first}");
    assert!(first.contains("pipeline cache save: wrote"), "{first}");
    let second = String::from_utf8_lossy(&score(&cache, &dir.join("2.json")).stderr).into_owned();
    assert!(second.contains("at start: read"), "{second}");
    for step in ["instance", "device", "allocator", "opening the inputs", "probing the inputs"] {
        assert!(second.lines().any(|l| l.ends_with(step)), "no {step} in:\n{second}");
    }
}

#[test]
fn an_unwritable_pipeline_cache_is_only_a_note() {
    let dir = fresh_dir("unwritable");
    // A folder below a file cannot be made, even by root.
    std::fs::write(dir.join("file"), b"").unwrap();
    let out = score(&dir.join("file/cache"), &dir.join("report.json"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pipeline cache save: not written"), "{stderr}");
}

/// The report's fps counts the start-up too: its seconds (frames / fps)
/// are at least the start-up's, and at most the whole command's.
#[test]
fn the_reported_fps_covers_the_whole_command() {
    let dir = fresh_dir("fps");
    let report = dir.join("report.json");
    let out = score(&dir.join("cache"), &report);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let frames = json["frames"].as_array().unwrap().len() as f64;
    assert_eq!(frames, 2.0);
    // fps has two decimals in the report: allow for its rounding.
    let report_s = frames / json["fps"].as_f64().unwrap();
    let (start_up, all) = (ms(&stderr, "start-up") / 1e3, ms(&stderr, "fps)") / 1e3);
    assert!(report_s * 1.01 >= start_up, "report {report_s} s, start-up {start_up} s");
    assert!(report_s <= all * 1.01, "report {report_s} s, whole command {all} s");
}
