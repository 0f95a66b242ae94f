//! `vqscope info`'s device decode line, on the test streams of
//! video/tests/data/bitstream. CI runs on lavapipe, which has no Vulkan
//! Video: there the line must say "no" and why. On a device with video
//! decode (the H200) the line must name what the device offers and say
//! that vqscope does not use it yet.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn stream(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../video/tests/data/bitstream");
    path.join(name).to_string_lossy().into_owned()
}

/// The `device decode:` lines of `vqscope info FILES`.
fn decode_lines(files: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let paths: Vec<String> =
        files.iter().map(|f| if f.contains('/') { f.to_string() } else { stream(f) }).collect();
    let mut args = vec!["info"];
    args.extend(paths.iter().map(String::as_str));
    let out = {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vqscope"));
        cmd.env("VQSCOPE_VALIDATION", "1").stdin(Stdio::null()).args(&args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run vqscope")
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("alidation"), "validation messages: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().filter_map(|l| l.strip_prefix("  device decode: ")).map(str::to_owned).collect()
}

#[test]
fn h264_and_h265_inputs_get_a_device_decode_line() {
    let lines = decode_lines(&["h264_high_1918x1078.mp4", "hevc_main10_1918x1078.hevc"], &[]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, codec) in lines.iter().zip(["h264", "h265"]) {
        if line.contains("llvmpipe") {
            assert!(line.starts_with("no — llvmpipe"), "{line}");
            assert!(
                line.ends_with(&format!(
                    " has no video decode queue (it lacks VK_KHR_video_queue, \
                     VK_KHR_video_decode_queue, VK_KHR_video_decode_{codec})"
                )),
                "{line}"
            );
        } else {
            // A device with video queues: offered, or no with a reason.
            assert!(
                line.ends_with("— not used yet: vqscope decodes with ffmpeg")
                    || line.starts_with("no — "),
                "{line}"
            );
        }
    }
    // The describe() part names the stream's format, from its SPS.
    if !lines[1].contains("llvmpipe") {
        assert!(lines[1].contains("H.265 Main 10, 4:2:0 10-bit"), "{}", lines[1]);
    }
}

#[test]
fn other_inputs() {
    // A VP9 webm: ffmpeg decodes it, the device path covers H.264 and H.265 only.
    assert_eq!(
        decode_lines(&["vp9_64x48.webm"], &[]),
        ["no — vp9 video: device decode covers H.264 and H.265 only"]
    );
    // y4m is read by vqscope itself: nothing to decode, no line.
    let y4m = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("info-decode-clip.y4m");
    let made = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48"])
        .args(["-frames:v", "1", "-pix_fmt", "yuv420p"])
        .arg(&y4m)
        .status()
        .expect("ffmpeg is installed (scripts/setup)");
    assert!(made.success());
    assert_eq!(decode_lines(&[y4m.to_str().unwrap()], &[]), Vec::<String>::new());
    // No usable device: the line says so, `info` still succeeds.
    let lines = decode_lines(&["hevc_main_854x480.mkv"], &[("VQSCOPE_DEVICE", "no-such-gpu")]);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("no — "), "{}", lines[0]);
    assert!(lines[0].contains("VQSCOPE_DEVICE=no-such-gpu"), "{}", lines[0]);
}
