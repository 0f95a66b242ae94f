//! An encoding ladder (`score -r REF -d A -d B …`) and `batch` manifests:
//! every rendition's report must hold exactly the values a separate
//! `vqscope score -r REF -d X` run writes (only the fps differs), each
//! rendition's report must be named after it, and a job that cannot run
//! must fail alone, naming itself.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{ffmpeg, vqscope};

fn scratch(name: &str) -> PathBuf {
    common::scratch("ladder", name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A 96x64 reference of 5 frames and renditions made from it: `a`
/// blurred, `b` noisy and one frame short, `c` made at 48x32.
fn clips(dir: &Path) -> (String, [String; 3]) {
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let r = p("ref.y4m");
    let src = "testsrc2=size=96x64:rate=25";
    ffmpeg(&["-f", "lavfi", "-i", src, "-frames:v", "5", "-pix_fmt", "yuv420p", &r]);
    let (a, b, c) = (p("a.y4m"), p("b.y4m"), p("c.y4m"));
    ffmpeg(&["-i", &r, "-vf", "boxblur=1", "-pix_fmt", "yuv420p", &a]);
    ffmpeg(&["-i", &r, "-vf", "noise=alls=30:allf=t", "-frames:v", "4", "-pix_fmt", "yuv420p", &b]);
    ffmpeg(&["-i", &r, "-vf", "scale=48:32:flags=area", "-pix_fmt", "yuv420p", &c]);
    (r, [a, b, c])
}

/// A JSON report without its fps (the one value that depends on the run).
fn values(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let fps = v.as_object_mut().unwrap().remove("fps");
    assert!(fps.is_some(), "{}: no fps", path.display());
    v
}

const FEATURES: [&str; 4] = ["--feature", "psnr", "--feature", "float_ssim"];

/// `score -r REF -d X -o OUT --json …` on its own; its stdout.
fn separate(r: &str, d: &str, out: &Path) -> String {
    let mut args = vec!["score", "-r", r, "-d", d, "--scale-distorted", "--json", "-q"];
    args.extend(FEATURES);
    args.extend(["-o", out.to_str().unwrap()]);
    let o = vqscope(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn ladder_reports_equal_separate_runs() {
    let dir = scratch("equal");
    let (r, dis) = clips(&dir);
    let template = dir.join("ladder-{name}.json");
    let mut args = vec!["score", "-r", &r];
    for d in &dis {
        args.extend(["-d", d.as_str()]);
    }
    args.extend(["--scale-distorted", "--json", "-o", template.to_str().unwrap()]);
    args.extend(FEATURES);
    let ladder = vqscope(&args);
    let (stdout, stderr) = (text(&ladder.stdout), text(&ladder.stderr));
    assert!(ladder.status.success(), "{stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    assert!(stderr.contains("c: distorted scaled from 48x32 to 96x64"), "{stderr}");
    assert!(stderr.contains("b: warning: reference"), "b is a frame short:\n{stderr}");
    for (name, d) in ["a", "b", "c"].iter().zip(&dis) {
        let own = dir.join(format!("own-{name}.json"));
        let printed = separate(&r, d, &own);
        let ours = values(&dir.join(format!("ladder-{name}.json")));
        assert_eq!(ours, values(&own), "rendition {name}: ladder and own run differ");
        let frames = ours["frames"].as_array().unwrap().len();
        assert_eq!(frames, if *name == "b" { 4 } else { 5 }, "rendition {name}");
        // The same pooled lines, each after the rendition's name.
        assert!(printed.contains("vmaf_v0.6.1: "), "{printed}");
        for line in printed.lines() {
            assert!(stdout.contains(&format!("{name}: {line}\n")), "{name}: {line}\n{stdout}");
        }
    }
}

/// Renditions that announce the same length share the features that read
/// only the reference (motion); one that then ends early (an mp4 cut in
/// half still announces its ten frames) is scored again on its own lane:
/// every report still equals a separate run's.
#[test]
fn ladder_shares_motion_and_rescores_a_rendition_shorter_than_announced() {
    let dir = scratch("shared");
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (r, a, b, full) = (p("ref.y4m"), p("a.y4m"), p("b.y4m"), p("full.mp4"));
    let src = "testsrc2=size=96x64:rate=25";
    ffmpeg(&["-f", "lavfi", "-i", src, "-frames:v", "10", "-pix_fmt", "yuv420p", &r]);
    ffmpeg(&["-i", &r, "-vf", "boxblur=1", "-pix_fmt", "yuv420p", &a]);
    ffmpeg(&["-i", &r, "-vf", "noise=alls=20:allf=t", "-pix_fmt", "yuv420p", &b]);
    ffmpeg(&["-i", &r, "-c:v", "mpeg4", "-movflags", "+faststart", &full]);
    let bytes = std::fs::read(&full).unwrap();
    let cut = p("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for (case, renditions) in [("same", vec![&a, &b]), ("cut", vec![&a, &b, &cut])] {
        let out = dir.join(case);
        let mut args = vec!["score", "-r", &r];
        for d in &renditions {
            args.extend(["-d", d.as_str()]);
        }
        args.extend(["--scale-distorted", "--json", "-q", "-o", out.to_str().unwrap()]);
        args.extend(FEATURES);
        let ladder = vqscope(&args);
        let stderr = text(&ladder.stderr);
        assert!(ladder.status.success(), "{case}: {stderr}");
        assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
        for d in renditions {
            let name = Path::new(d).file_stem().unwrap().to_string_lossy().into_owned();
            let own = dir.join(format!("own-{name}.json"));
            separate(&r, d, &own);
            let ours = values(&out.join(format!("{name}.json")));
            assert_eq!(ours, values(&own), "{case}, rendition {name}: ladder and own run differ");
        }
    }
}

#[test]
fn folder_output_and_same_stems() {
    let dir = scratch("names");
    let (r, [a, b, _]) = clips(&dir);
    for sub in ["1080p", "720p"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let (x, y) = (dir.join("1080p/out.y4m"), dir.join("720p/out.y4m"));
    std::fs::copy(&a, &x).unwrap();
    std::fs::copy(&b, &y).unwrap();
    let reports = dir.join("reports"); // not there yet: made
    let o = vqscope(&[
        "score",
        "-r",
        &r,
        "-d",
        x.to_str().unwrap(),
        "-d",
        y.to_str().unwrap(),
        "-d",
        &a,
        "--csv",
        "-q",
        "-o",
        reports.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["1080p_out.csv", "720p_out.csv", "a.csv"]);
    for name in ["1080p_out", "720p_out", "a"] {
        assert!(
            stdout.contains(&format!("\n{name}: vmaf_v0.6.1: "))
                || stdout.starts_with(&format!("{name}: vmaf_v0.6.1: ")),
            "{stdout}"
        );
    }
    // The blurred clip under two names scores the same.
    let csv = |n: &str| std::fs::read_to_string(reports.join(n)).unwrap();
    assert_eq!(csv("1080p_out.csv"), csv("a.csv"));

    // The same file twice: no name tells them apart; nothing is written.
    let o = vqscope(&[
        "score",
        "-r",
        &r,
        "-d",
        &a,
        "-d",
        &a,
        "-q",
        "-o",
        dir.join("twice").to_str().unwrap(),
    ]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("would both be reported as `a`"), "{stderr}");
    assert!(!dir.join("twice").exists());

    // A file as -o with several -d.
    let file = dir.join("one.xml");
    std::fs::write(&file, "mine").unwrap();
    let o = vqscope(&["score", "-r", &r, "-d", &a, "-d", &b, "-q", "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("a path containing {name}"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn batch_runs_the_good_jobs_and_names_the_bad() {
    let dir = scratch("batch");
    let (_, [a, b, _]) = clips(&dir);
    // Paths relative to the manifest's folder.
    let manifest = dir.join("jobs.csv");
    std::fs::write(
        &manifest,
        "# a ladder, its failures and a second reference\n\
         reference,distorted,output,feature,model\n\
         ref.y4m,a.y4m,out/a.json,psnr,\n\
         ref.y4m,missing.y4m,out/missing.json,,\n\
         ref.y4m,b.y4m,out/b.json,psnr,\n\
         ref.y4m,c.y4m,out/c.json,,\n\
         ref.y4m,a.y4m,out/bad-model.json,,version=vmaf_v9\n\
         a.y4m,\"b.y4m\",out/b-vs-a.json,psnr,\n\
         ref.y4m,a.y4m,blocker/a.json,,\n",
    )
    .unwrap();
    // `out` is made by the batch; `blocker` is a file in the way.
    std::fs::write(dir.join("blocker"), "mine").unwrap();
    let o = vqscope(&["batch", manifest.to_str().unwrap(), "-q"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("[vulkan"), "validation messages:\n{stderr}");
    let line = |job: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with(&format!("vqscope: job {job}")))
            .unwrap_or_else(|| panic!("no line for job {job}:\n{stderr}"))
            .to_owned()
    };
    assert!(line("2").contains("missing.y4m"), "{}", line("2"));
    assert!(line("4").contains("differ in size"), "{}", line("4"));
    assert!(line("5").contains("vmaf_v9"), "{}", line("5"));
    assert!(line("7").contains("output ") && line("7").contains("blocker is not a folder"));
    assert!(stderr.contains("4 of 7 jobs failed"), "{stderr}");
    for bad in ["missing", "c", "bad-model"] {
        assert!(!dir.join(format!("out/{bad}.json")).exists(), "{bad}");
    }
    // The good jobs, each as its own run writes it.
    let r = dir.join("ref.y4m");
    for (d, reference, out) in [(&a, &r, "a"), (&b, &r, "b"), (&b, &dir.join("a.y4m"), "b-vs-a")] {
        let own = dir.join(format!("own-{out}.json"));
        let o = vqscope(&[
            "score",
            "-r",
            reference.to_str().unwrap(),
            "-d",
            d,
            "--feature",
            "psnr",
            "--json",
            "-q",
            "-o",
            own.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(values(&dir.join(format!("out/{out}.json"))), values(&own), "job {out}");
    }
}

#[test]
fn batch_json_manifest() {
    let dir = scratch("json");
    let (_, [_, _, c]) = clips(&dir);
    let manifest = dir.join("jobs.json");
    let jobs = serde_json::json!({"jobs": [
        {"reference": "ref.y4m", "distorted": "a.y4m", "output": "a.xml", "features": ["float_ssim"]},
        {"reference": dir.join("ref.y4m"), "distorted": "c.y4m", "output": "c.json",
         "scale_distorted": true, "model": "version=vmaf_v0.6.1neg"},
    ]});
    std::fs::write(&manifest, jobs.to_string()).unwrap();
    let o = vqscope(&["batch", manifest.to_str().unwrap()]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("job 1 (a.y4m): vmaf_v0.6.1: "), "{stdout}");
    assert!(stdout.contains("job 2 (c.y4m): vmaf_v0.6.1neg: "), "{stdout}");
    assert!(stderr.contains("job 2 (c.y4m): distorted scaled from 48x32"), "{stderr}");
    let xml = std::fs::read_to_string(dir.join("a.xml")).unwrap();
    assert!(xml.contains("float_ssim=\""), "{xml}");
    let r = dir.join("ref.y4m");
    let own = dir.join("own-c.json");
    let o = vqscope(&[
        "score",
        "-r",
        r.to_str().unwrap(),
        "-d",
        &c,
        "--scale-distorted",
        "-m",
        "version=vmaf_v0.6.1neg",
        "--json",
        "-q",
        "-o",
        own.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(values(&dir.join("c.json")), values(&own));

    // A manifest with a typo in a field name is refused as a whole.
    std::fs::write(
        &manifest,
        r#"[{"reference": "ref.y4m", "distorted": "a.y4m", "ouput": "x.json"}]"#,
    )
    .unwrap();
    let o = vqscope(&["batch", manifest.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("ouput"), "{}", text(&o.stderr));
}
