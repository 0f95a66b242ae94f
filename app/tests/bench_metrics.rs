//! `vqscope bench metrics` on a small frame: under the VIF and ADM rows, one
//! line with every dispatch of the kernel timed alone, in the kernel's order
//! (VIF's scales and decimations, ADM's levels), each a positive number of
//! milliseconds. And the clips it keeps are never written over.

use vqscope_metrics::features::adm::gpu::AdmKernel;
use vqscope_metrics::features::vif::gpu::VifKernel;

mod common;

/// The `name ms` pairs of the "each dispatch alone" line that follows the
/// table row of `feature` (`ms` is one figure, or each distinct bench
/// frame's `/`-separated where they differ: here their smallest).
fn dispatch_line(stdout: &str, feature: &str) -> Vec<(String, f64)> {
    let mut lines = stdout.lines();
    lines
        .find(|l| l.split_whitespace().nth(1) == Some(feature))
        .unwrap_or_else(|| panic!("no `{feature}` row in:\n{stdout}"));
    let next = lines.next().unwrap_or_default();
    let (_, list) = next
        .split_once("each dispatch alone (ms):")
        .unwrap_or_else(|| panic!("no dispatch line under `{feature}`: {next:?}"));
    list.split(',')
        .map(|item| {
            let (name, ms) = item.trim().rsplit_once(' ').expect("`name ms`");
            let per_frame = ms.split('/').map(|m| m.parse::<f64>().expect("milliseconds"));
            (name.to_string(), per_frame.fold(f64::INFINITY, f64::min))
        })
        .collect()
}

fn bench_keeping_clips_in(dir: &std::path::Path) -> std::process::Output {
    common::command()
        .args(["bench", "metrics", "--metric-sizes", "176x144", "--frames", "6"])
        // Rows with and without the dispatch lines; every row would take
        // lavapipe minutes.
        .args(["--metric-features", "vif,adm,psnr", "--keep-y4m"])
        .arg(dir)
        .env("VQSCOPE_VALIDATION", "1")
        .output()
        .expect("run vqscope")
}

#[test]
fn bench_metrics_times_each_dispatch_of_vif_and_adm() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_metrics_test");
    std::fs::remove_dir_all(&dir).ok();
    let output = bench_keeping_clips_in(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    for (feature, phases) in
        [("vif", &VifKernel::PROFILE_PHASES[..]), ("adm", &AdmKernel::PROFILE_PHASES[..])]
    {
        let got = dispatch_line(&stdout, feature);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, phases, "{feature}");
        assert!(got.iter().all(|(_, ms)| *ms > 0.0), "{feature}: {got:?}");
    }
    // The other rows have no such line.
    let psnr_next = stdout.lines().skip_while(|l| !l.contains(" psnr ")).nth(1).unwrap();
    assert!(!psnr_next.contains("each dispatch alone"), "{psnr_next}");

    // The kept clips are there; a second run refuses to write over them
    // before it starts, in one line, and leaves them as they were.
    let kept = dir.join("bench-176x144.ref.y4m");
    let before = std::fs::read(&kept).expect("kept reference clip");
    let again = bench_keeping_clips_in(&dir);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success(), "overwrote the kept clips");
    assert!(again.stdout.is_empty(), "refused only after starting: {:?}", again.stdout);
    assert!(stderr.contains("exists") && stderr.trim().lines().count() == 1, "{stderr}");
    assert_eq!(std::fs::read(&kept).unwrap(), before);
}

/// The row names (second column) of a bench's table.
fn rows(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("176x144"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect()
}

#[test]
fn bench_metrics_times_only_the_rows_asked_for() {
    let run = |features: &str| {
        common::command()
            .args(["bench", "metrics", "--metric-sizes", "176x144", "--frames", "6"])
            .args(["--metric-features", features])
            .output()
            .expect("run vqscope")
    };
    let output = run("float_motion,vmaf_float_v0.6.1,aom_ctc_v6.0");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(rows(&stdout), ["float_motion", "vmaf_float_v0.6.1", "aom_ctc_v6.0"], "{stdout}");

    // A name that is no row is refused before any work.
    let wrong = run("float_motion,no_such_feature");
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success());
    assert!(wrong.stdout.is_empty(), "refused only after starting: {:?}", wrong.stdout);
    assert!(stderr.contains("no_such_feature"), "{stderr}");
}

/// `--lanes 3` adds a ladder line under each row: GPU ms with the lanes
/// sharing everything, all but the reference terms, and nothing, then
/// those per rendition.
#[test]
fn bench_metrics_times_a_ladder_shared_and_not() {
    let output = common::command()
        .args(["bench", "metrics", "--metric-sizes", "176x144", "--frames", "6"])
        // Two feature rows: a model row takes lavapipe twice as long.
        .args(["--metric-features", "vif,psnr", "--lanes", "3"])
        .output()
        .expect("run vqscope");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let ladders: Vec<&str> = stdout.lines().filter(|l| l.contains("ladder of 3")).collect();
    assert_eq!(ladders.len(), 2, "{stdout}");
    for line in ladders {
        let figures: Vec<f64> = line
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|w| w.parse().ok())
            .collect();
        // 3, then the three ladders' ms, then the same per rendition.
        assert_eq!(figures.len(), 7, "{line}");
        assert_eq!(figures[0], 3.0, "{line}");
        let (ms, per) = (&figures[1..4], &figures[4..7]);
        for (total, one) in ms.iter().zip(per) {
            assert!(*total > 0.0, "{line}");
            assert!((one - total / 3.0).abs() < 0.0015, "{line}");
        }
    }
}
