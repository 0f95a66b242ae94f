//! The `vqscope` binary when things around it go wrong: stdout closed or
//! full, an output write that fails half way, an output that is an input
//! under another name or sits in a folder that cannot be written, one
//! stream given twice, names ffmpeg would misread, stray bytes in a y4m,
//! and raw bit depths. Each failure is one line on stderr and exit status
//! 1, never a panic; a closed stdout ends quietly with status 0.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::command as vqscope;

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run vqscope")
}

/// A fresh empty folder under cargo's temporary folder.
fn scratch(name: &str) -> PathBuf {
    common::scratch("reliability-cli", name)
}

/// A 64x64 4:2:0 y4m of `frames` frames of a gradient.
fn y4m(path: &Path, frames: u32) {
    let mut bytes = b"YUV4MPEG2 W64 H64 F25:1 C420jpeg\n".to_vec();
    for f in 0..frames {
        bytes.extend_from_slice(b"FRAME\n");
        bytes.extend((0..64 * 64 + 2 * 32 * 32).map(|i| (i * 7 + f * 13) as u8));
    }
    std::fs::write(path, bytes).unwrap();
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit status 1 and exactly one stderr line, containing `message`.
fn fails_with(out: &Output, message: &str) {
    let stderr = stderr_of(out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "not one line:\n{stderr}");
    assert!(stderr.contains(message), "expected `{message}` in:\n{stderr}");
}

/// Files in `dir` except `keep` (temporary files left behind).
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn closed_stdout_ends_quietly() {
    let dir = scratch("closed");
    let clip = dir.join("c.y4m");
    y4m(&clip, 2);
    // A pipe whose reader is gone before vqscope starts: the first write
    // fails for certain (EPIPE), as in `vqscope info c.y4m | true`.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = run(vqscope().arg("info").arg(&clip).arg(&clip).stdout(writer));
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "a closed pipe is not an error to report");

    // The same through a shell pipeline, as a user types it.
    let script = format!("{} info {} | true", env!("CARGO_BIN_EXE_vqscope"), clip.display());
    let out = run(Command::new("sh").args(["-c", &script]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
}

#[test]
fn full_stdout_is_one_error_line() {
    let dir = scratch("full");
    let clip = dir.join("c.y4m");
    y4m(&clip, 1);
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    let out = run(vqscope().arg("info").arg(&clip).stdout(full));
    fails_with(&out, "vqscope: writing to stdout: No space left on device");
}

#[test]
fn stdin_cannot_be_both_inputs() {
    let dir = scratch("stdin");
    let clip = dir.join("c.y4m");
    y4m(&clip, 2);
    let mut child = vqscope()
        .args(["info", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // vqscope refuses before reading: the feed may meet a closed pipe.
    let _ = child.stdin.take().unwrap().write_all(&std::fs::read(&clip).unwrap());
    let out = child.wait_with_output().unwrap();
    fails_with(&out, "stdin (`-`) is given as two inputs, but it can be read only once");
    assert!(!stderr_of(&out).contains("empty"), "{}", stderr_of(&out));

    // One stdin is fine.
    let out = run(vqscope().args(["info", "-"]).stdin(std::fs::File::open(&clip).unwrap()));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("stdin\n"));
}

#[test]
fn file_names_ffmpeg_would_misread() {
    let dir = scratch("names");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25"])
        .args(["-frames:v", "3", "-pix_fmt", "yuv420p", "-c:v", "mpeg4", "made.mp4"])
        .current_dir(&dir)
        .status();
    match made {
        Ok(s) => assert!(s.success(), "ffmpeg could not make the clip"),
        Err(e) => {
            eprintln!("skipped: ffmpeg cannot run ({e}); install ffmpeg to run this test");
            return;
        }
    }
    for name in ["a:b.mp4", "-x.mp4"] {
        std::fs::copy(dir.join("made.mp4"), dir.join(name)).unwrap();
    }
    // Relative names, as typed in the clips' folder (`--` ends the flags).
    let out = run(vqscope().args(["info", "--", "a:b.mp4", "-x.mp4"]).current_dir(&dir));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stdout.starts_with("a:b.mp4\n"), "{stdout}");
    assert!(stdout.contains("\n-x.mp4\n"), "{stdout}");
    assert_eq!(stdout.matches("frames:       3").count(), 2, "{stdout}");
}

#[test]
fn a_stray_byte_before_frame_shows() {
    let dir = scratch("stray");
    let clip = dir.join("s.y4m");
    let mut bytes = b"YUV4MPEG2 W4 H2 F25:1 C420jpeg\n\x01FRAME\n".to_vec();
    bytes.extend_from_slice(&[0; 12]);
    std::fs::write(&clip, bytes).unwrap();
    let out = run(vqscope().arg("info").arg(&clip));
    fails_with(&out, "expected `FRAME`, found `\\x01FRAME`");
}

#[test]
fn raw_bit_depths_agree_with_help() {
    let dir = scratch("raw");
    let raw = dir.join("r.yuv");
    std::fs::write(&raw, vec![0u8; (4 * 2 + 2 * 2) * 2]).unwrap();
    let info = |depth: &str| {
        let args = ["info", "-w", "4", "-h", "2", "-p", "420", "-b", depth];
        run(vqscope().args(args).arg(&raw))
    };
    for depth in ["9", "10", "16"] {
        let out = info(depth);
        assert!(out.status.success(), "-b {depth}: {}", stderr_of(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&format!("bit depth:    {depth}\n")), "{stdout}");
    }
    let out = info("17");
    assert!(!out.status.success());
    assert!(stderr_of(&out).contains("8..=16"), "{}", stderr_of(&out));
    let help = run(vqscope().args(["info", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Bit depth of raw .yuv input: 8 to 16"), "{help}");
    assert!(!help.contains("8, 10 or 12"), "{help}");
}

/// `vqscope screenshot` writes through the atomic writer: a write that
/// fails part way keeps the old file and leaves no temporary file.
#[test]
fn a_failed_write_keeps_the_old_file() {
    let dir = scratch("atomic");
    let old = dir.join("old.png");
    std::fs::write(&old, b"the old picture").unwrap();
    // 1 KiB of file size allowed: the PNG does not fit. With SIGXFSZ
    // ignored the write fails with EFBIG (a full disk behaves alike).
    let script = format!(
        "ulimit -f 1; trap '' XFSZ; exec {} screenshot --scene rects --size 256x256 --force -o {}",
        env!("CARGO_BIN_EXE_vqscope"),
        old.display()
    );
    let out = run(Command::new("sh").args(["-c", &script]).env("MESA_SHADER_CACHE_DISABLE", "1"));
    // (The PNG encoder loses the error of its last write; the read-back
    // check catches the cut file: "the PNG did not reach the disk whole".)
    fails_with(&out, &format!("cannot write {}: ", old.display()));
    assert_eq!(std::fs::read(&old).unwrap(), b"the old picture");
    assert_eq!(leftovers(&dir, &["old.png"]), Vec::<String>::new());

    // Unlimited, the same command replaces it.
    let out = run(vqscope()
        .args(["screenshot", "--scene", "rects", "--size", "64x64", "--force", "-o"])
        .arg(&old));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(std::fs::read(&old).unwrap().starts_with(b"\x89PNG"));
    assert_eq!(leftovers(&dir, &["old.png"]), Vec::<String>::new());
}

#[test]
fn dash_output_is_stdout() {
    let out = run(vqscope().args(["screenshot", "--scene", "rects", "--size", "64x64", "-o", "-"]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout.starts_with(b"\x89PNG\r\n"), "not a PNG on stdout");
    assert!(stderr_of(&out).contains("wrote stdout"), "{}", stderr_of(&out));
}

/// The output checks run before anything is rendered or scored, for every
/// command that takes inputs and `-o` (here `screenshot --dashboard`; the
/// same `check_report_path` guards `score -o`).
#[test]
fn outputs_that_must_be_refused_up_front() {
    let dir = scratch("refuse");
    let clip = dir.join("in.y4m");
    y4m(&clip, 2);
    let shot = |out: &Path| {
        run(vqscope()
            .args(["screenshot", "--dashboard", "--force", "-r"])
            .arg(&clip)
            .arg("-d")
            .arg(&clip)
            .arg("-o")
            .arg(out))
    };
    // A hard link of the input: same device and inode, another name.
    let hard = dir.join("hard.png");
    std::fs::hard_link(&clip, &hard).unwrap();
    fails_with(&shot(&hard), "refusing to overwrite an input");
    let soft = dir.join("soft.png");
    std::os::unix::fs::symlink(&clip, &soft).unwrap();
    fails_with(&shot(&soft), "refusing to overwrite an input");
    fails_with(&shot(&clip), "refusing to overwrite an input");
    assert!(std::fs::read(&clip).unwrap().starts_with(b"YUV4MPEG2"), "the input is intact");

    // A "folder" that is a file.
    let under = clip.join("x.png");
    fails_with(&shot(&under), &format!("{} is not a folder", clip.display()));
    let missing = dir.join("nope/x.png");
    fails_with(&shot(&missing), &format!("folder {} does not exist", dir.join("nope").display()));

    // A folder no file can be created in: mode 0555, or, where this runs
    // with the power to write anyway (root), sysfs.
    let locked = dir.join("locked");
    std::fs::create_dir(&locked).unwrap();
    let mut perms = std::fs::metadata(&locked).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(&locked, perms).unwrap();
    let writable = |folder: &Path| {
        let probe = folder.join(".vqscope-test-probe");
        let created = std::fs::File::create_new(&probe).is_ok();
        let _ = std::fs::remove_file(&probe);
        created
    };
    let locked = [locked, PathBuf::from("/sys")].into_iter().find(|f| !writable(f));
    match locked {
        Some(locked) => {
            let out = shot(&locked.join("x.png"));
            fails_with(&out, &format!("cannot write in folder {}", locked.display()));
        }
        None => eprintln!("skipped the unwritable folder: every folder is writable here"),
    }
    let leftover = leftovers(&dir, &["in.y4m", "hard.png", "soft.png", "locked"]);
    assert_eq!(leftover, Vec::<String>::new());
}

#[test]
fn help_into_a_closed_pipe_does_not_panic() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = run(vqscope().arg("--help").stdout(writer));
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
}

/// `bench playback` printing into a closed pipe ends quietly too (its
/// table went through `println!`, which panics there).
#[test]
fn bench_playback_into_a_closed_pipe_ends_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let bench = ["bench", "playback", "--sizes", "128x72", "--seconds", "0.2"];
    let out = run(vqscope().args(bench).stdout(writer));
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "a closed pipe is not an error to report");
}

/// `score -r A -d B -q` plus `extra`, with the default model.
fn score(r: &Path, d: &Path, extra: &[&str]) -> Command {
    let mut c = vqscope();
    c.arg("score").arg("-r").arg(r).arg("-d").arg(d).arg("-q").args(extra);
    c
}

#[test]
fn score_stdout_closed_or_full() {
    let dir = scratch("score-stdout");
    let clip = dir.join("c.y4m");
    y4m(&clip, 2);
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = run(score(&clip, &clip, &[]).stdout(writer));
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    let out = run(score(&clip, &clip, &[]).stdout(full));
    fails_with(&out, "writing to stdout: No space left on device");
}

/// A ladder whose stdout is closed still writes every report and ends
/// quietly; a full stdout is one error, not a failure of each rendition.
#[test]
fn ladder_stdout_closed_or_full() {
    let dir = scratch("ladder-stdout");
    let (a, b) = (dir.join("a.y4m"), dir.join("b.y4m"));
    y4m(&a, 2);
    y4m(&b, 2);
    let out_dir = dir.join("reports");
    let extra = ["-d", b.to_str().unwrap(), "--json", "-o", out_dir.to_str().unwrap()];
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = run(score(&a, &a, &extra).stdout(writer));
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("failed"), "{}", stderr_of(&out));
    assert!(out_dir.join("a.json").is_file() && out_dir.join("b.json").is_file());
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    let out = run(score(&a, &a, &extra).stdout(full));
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("vqscope: writing to stdout: No space left on device"), "{stderr}");
    assert!(!stderr.contains("renditions failed") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn score_report_to_stdout() {
    let dir = scratch("score-dash");
    let clip = dir.join("c.y4m");
    y4m(&clip, 3);
    let out = run(&mut score(&clip, &clip, &["--feature", "psnr", "--json", "-o", "-"]));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(json["frames"].as_array().unwrap().len(), 3);
    assert!(!dir.join("-").exists(), "no file named -");
    // The pooled score went to stderr, out of the JSON's way.
    assert!(stderr_of(&out).contains("vmaf_v0.6.1: "), "{}", stderr_of(&out));
}

#[test]
fn score_failed_report_write_keeps_the_old_report() {
    let dir = scratch("score-atomic");
    let clip = dir.join("c.y4m");
    y4m(&clip, 20);
    let old = dir.join("old.json");
    std::fs::write(&old, b"{\"old\": true}").unwrap();
    // The report of 20 frames is over 512 bytes; SIGXFSZ ignored, so the
    // write fails with EFBIG instead of killing the process.
    let script = format!(
        "ulimit -f 1; trap '' XFSZ; exec {} score -r {c} -d {c} -q --json -o {}",
        env!("CARGO_BIN_EXE_vqscope"),
        old.display(),
        c = clip.display(),
    );
    let out = run(Command::new("sh").args(["-c", &script]).env("MESA_SHADER_CACHE_DISABLE", "1"));
    fails_with(&out, &format!("cannot write {}: File too large", old.display()));
    assert_eq!(std::fs::read(&old).unwrap(), b"{\"old\": true}");
    assert_eq!(leftovers(&dir, &["c.y4m", "old.json"]), Vec::<String>::new());
}

#[test]
fn score_refuses_outputs_before_scoring() {
    let dir = scratch("score-refuse");
    let clip = dir.join("in.y4m");
    y4m(&clip, 2);
    let hard = dir.join("hard.json");
    std::fs::hard_link(&clip, &hard).unwrap();
    fails_with(
        &run(&mut score(&clip, &clip, &["-o", hard.to_str().unwrap()])),
        "refusing to overwrite an input",
    );
    assert!(std::fs::read(&clip).unwrap().starts_with(b"YUV4MPEG2"));
    let under = clip.join("x.json");
    fails_with(
        &run(&mut score(&clip, &clip, &["-o", under.to_str().unwrap()])),
        &format!("{} is not a folder", clip.display()),
    );
    let sys = Path::new("/sys/x.json");
    if std::fs::metadata("/sys").is_ok() {
        let out = run(&mut score(&clip, &clip, &["-o", sys.to_str().unwrap()]));
        fails_with(&out, "cannot write in folder /sys");
        assert!(!stderr_of(&out).contains("frames in"), "refused before scoring");
    }
}

#[test]
fn score_refuses_stdin_twice() {
    let dir = scratch("score-stdin");
    let clip = dir.join("c.y4m");
    y4m(&clip, 2);
    let out = run(vqscope()
        .args(["score", "-r", "-", "-d", "-", "-q"])
        .stdin(std::fs::File::open(&clip).unwrap()));
    fails_with(&out, "stdin (`-`) is given as two inputs");
}

#[test]
fn score_warns_when_a_stream_ends_early() {
    let dir = scratch("score-short");
    let (long, short) = (dir.join("long.y4m"), dir.join("short.y4m"));
    y4m(&long, 5);
    y4m(&short, 2);
    // The short one through stdin: its length is unknown until it ends.
    let out = run(vqscope()
        .args(["score", "-q", "-r"])
        .arg(&long)
        .args(["-d", "-"])
        .stdin(std::fs::File::open(&short).unwrap()));
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "vqscope: warning: distorted stdin ended before reference {}: scored 2 frames",
            long.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("2 frames in"), "{stderr}");
}

#[test]
fn score_says_how_many_frames_a_cut_mp4_lacks() {
    let dir = scratch("score-cut");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25"])
        .args(["-frames:v", "10", "-pix_fmt", "yuv420p", "-c:v", "mpeg4"])
        .args(["-movflags", "+faststart", "full.mp4"])
        .current_dir(&dir)
        .status()
        .expect("ffmpeg (installed by scripts/setup) makes the test clip");
    assert!(made.success(), "ffmpeg could not make the clip");
    let bytes = std::fs::read(dir.join("full.mp4")).unwrap();
    let cut = dir.join("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = run(&mut score(&cut, &cut, &[]));
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "vqscope: warning: {}: ffmpeg decoded 1 of the 10 frames its container announces \
             (9 missing: truncated file?)",
            cut.display()
        )),
        "{stderr}"
    );
}

#[test]
fn score_empty_input_says_no_frames_before_gpu_setup() {
    let dir = scratch("score-empty");
    let huge = dir.join("huge.y4m");
    std::fs::write(&huge, b"YUV4MPEG2 W16384 H16384 F25:1 C444p12\n").unwrap();
    fails_with(&run(&mut score(&huge, &huge, &[])), "no frames to score");
}

/// A DISPLAY with no X server behind it: one plain line naming it, not the
/// source location inside winit where the connection failed.
#[test]
fn bad_display_is_one_plain_line() {
    let dir = scratch("bad-display");
    let clip = dir.join("c.y4m");
    y4m(&clip, 2);
    let out = run(vqscope().env("DISPLAY", ":4242").arg("-r").arg(&clip).arg("-d").arg(&clip));
    fails_with(&out, "cannot open the window (DISPLAY=:4242)");
    assert!(!stderr_of(&out).contains(".rs:"), "{}", stderr_of(&out));
}
