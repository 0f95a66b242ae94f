//! `vqscope info`'s device decode line, on the test streams of
//! video/tests/data/bitstream: what `--decode auto` does with the input.
//! CI runs on lavapipe, which has no Vulkan Video: there the line must say
//! "no" and why. On a device with H.264 and H.265 decode (the H100/H200)
//! an 8-bit 4:2:0 H.264 input and a Main 10 H.265 one must say "yes" and
//! name the stream and the device.

use std::path::PathBuf;
use std::process::Command;

mod common;

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
        let mut cmd = common::command();
        cmd.args(&args);
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
    // The last two carry scaling lists, which the device path takes.
    let lines = decode_lines(
        &[
            "h264_high_1918x1078.mp4",
            "h264_high_854x480.h264",
            "hevc_main10_1918x1078.hevc",
            "h264_high_cqmfile_320x240.h264",
            "hevc_main_scaling_list_file_320x240.hevc",
        ],
        &[],
    );
    assert_eq!(lines.len(), 5, "{lines:?}");
    let expected = [
        ("h264", "yes — H.264 High, 4:2:0 8-bit on "),
        ("h264", "yes — H.264 High, 4:2:0 8-bit on "),
        ("h265", "yes — H.265 Main 10, 4:2:0 10-bit on "),
        ("h264", "yes — H.264 High, 4:2:0 8-bit on "),
        ("h265", "yes — H.265 Main, 4:2:0 8-bit on "),
    ];
    for (line, (codec, yes)) in lines.iter().zip(expected) {
        if line.contains("llvmpipe") {
            assert!(line.starts_with("no — llvmpipe"), "{line}");
            let lacks = format!(
                " has no video decode queue (it lacks VK_KHR_video_queue, \
                 VK_KHR_video_decode_queue, VK_KHR_video_decode_{codec})"
            );
            assert!(line.ends_with(&lacks), "{line}");
        } else {
            // A device with H.264 and H.265 decode takes these streams.
            assert!(line.starts_with(yes), "{line}");
        }
    }
}

#[test]
fn streams_the_device_path_does_not_take() {
    assert_eq!(
        decode_lines(&["h264_high422_10bit_352x288.mkv", "h264_interlaced_704x572.h264"], &[]),
        [
            "no — H.264 High 4:2:2, 4:2:2 10-bit: the device path takes progressive 8-bit 4:2:0 only",
            "no — H.264 High, 4:2:0 8-bit, interlaced: the device path takes progressive 8-bit \
             4:2:0 only",
        ]
    );
}

#[test]
fn other_inputs() {
    // A VP9 webm: ffmpeg decodes it, the device path covers H.264 and H.265 only.
    assert_eq!(
        decode_lines(&["vp9_64x48.webm"], &[]),
        ["no — vp9 video: the device decodes H.264 and H.265 only"]
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
    let lines = decode_lines(&["h264_high_1918x1078.mp4"], &[("VQSCOPE_DEVICE", "no-such-gpu")]);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("no — "), "{}", lines[0]);
    assert!(lines[0].contains("VQSCOPE_DEVICE=no-such-gpu"), "{}", lines[0]);
}
