//! `--decode auto|gpu|cpu` end to end. On lavapipe (CI), which has no
//! Vulkan Video, `auto` must fall back to ffmpeg, say so on `--verbose`
//! and score exactly as `--decode cpu`; `gpu` must fail with one line and
//! exit code 1. The ignored tests are for a device with H.264 and H.265
//! decode (the lead's H100/H200 run, where there is no ffmpeg): an Annex B
//! stream decoded on the device must score libvmaf's own values.

use std::path::{Path, PathBuf};

use vqscope_tests::clips::{libvmaf_json, reference_y4m, shared_dir, workspace_root};
use vqscope_tests::report_diff::compare;

const PAIR: &str = "rocket_576x324_420p8_x264crf35";

mod common;
use common::vqscope;

/// The shared clip's distorted mp4 (ffmpeg decodes it, frame for frame,
/// to the distorted y4m libvmaf scored).
fn distorted_mp4() -> PathBuf {
    shared_dir().join("clips").join(format!("{PAIR}.dis.mp4"))
}

/// Scores the pair with `--decode decode --verbose` into a JSON report;
/// the report and stderr.
fn score(distorted: &Path, decode: &str) -> (serde_json::Value, String) {
    let dir = common::out_dir("score-decode");
    let out = dir.join(format!("{decode}.json"));
    let _ = std::fs::remove_file(&out);
    let r = reference_y4m(PAIR);
    let output = vqscope(&[
        "score",
        "-r",
        r.to_str().unwrap(),
        "-d",
        distorted.to_str().unwrap(),
        "--decode",
        decode,
        "--feature",
        "float_ssim",
        "--feature",
        "psnr",
        "--feature",
        "float_ms_ssim",
        "--json",
        "-q",
        "--verbose",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "--decode {decode}: {stderr}");
    assert!(!stderr.contains("alidation"), "validation messages: {stderr}");
    (serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap(), stderr)
}

/// The `--verbose` line naming the distorted input's decoder.
fn decoder_line<'a>(stderr: &'a str, distorted: &Path) -> &'a str {
    let prefix = format!("vqscope: {}: ", distorted.display());
    stderr
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no decoder line for the distorted input:\n{stderr}"))
}

/// What `--decode auto` says of the distorted mp4: ffmpeg on lavapipe,
/// which has no video decode queue, else the device.
fn assert_auto_decoder(line: &str) {
    if line.contains("llvmpipe") {
        assert!(
            line.starts_with("decoded by ffmpeg: llvmpipe")
                && line.ends_with(
                    "has no video decode queue (it lacks VK_KHR_video_queue, \
                     VK_KHR_video_decode_queue, VK_KHR_video_decode_h264)"
                ),
            "{line}"
        );
    } else {
        assert!(line.starts_with("decoded on the device (H.264 High, 4:2:0 8-bit on "), "{line}");
    }
}

/// Without `--decode`, `auto` picks the decoder: the device where it
/// decodes the stream (exactly as ffmpeg does), else ffmpeg.
#[test]
fn auto_is_the_default() {
    let mp4 = distorted_mp4();
    let r = reference_y4m(PAIR);
    let (r, d) = (r.to_str().unwrap(), mp4.to_str().unwrap());
    let output = vqscope(&[
        "score",
        "-r",
        r,
        "-d",
        d,
        "-n",
        "--feature",
        "psnr",
        "--json",
        "-o",
        "-",
        "-q",
        "--verbose",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_auto_decoder(decoder_line(&stderr, &mp4));
}

#[test]
fn auto_scores_as_cpu_and_says_which_decoder() {
    let mp4 = distorted_mp4();
    let (cpu, cpu_err) = score(&mp4, "cpu");
    assert_eq!(decoder_line(&cpu_err, &mp4), "decoded by ffmpeg: --decode cpu");
    let (auto, auto_err) = score(&mp4, "auto");
    assert_auto_decoder(decoder_line(&auto_err, &mp4));
    // The y4m reference is read by vqscope: no decoder line for it.
    assert_eq!(auto_err.matches(": decoded ").count(), 1, "{auto_err}");
    assert_eq!(auto["frames"], cpu["frames"]);
    assert_eq!(auto["pooled_metrics"], cpu["pooled_metrics"]);
    // ffmpeg's decode is what libvmaf scored: the device test below holds
    // the device's decode to the same values.
    compare(&cpu, &libvmaf_json(PAIR, "vmaf"), |_| true).assert_clean(PAIR, 12 * 6);
}

#[test]
fn gpu_without_a_decode_queue_is_one_line_and_exit_1() {
    let mp4 = distorted_mp4();
    let r = reference_y4m(PAIR);
    let output = vqscope(&[
        "score",
        "-r",
        r.to_str().unwrap(),
        "-d",
        mp4.to_str().unwrap(),
        "--decode",
        "gpu",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !stderr.contains("has no video decode queue") && output.status.success() {
        return; // A device that decodes H.264: nothing to refuse.
    }
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let expected =
        format!("vqscope: {}: cannot be decoded on the device (--decode gpu): ", mp4.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
    // An input the device path never takes: refused for what it is.
    let vp9 = workspace_root().join("video/tests/data/bitstream/vp9_64x48.webm");
    let output = vqscope(&["info", vp9.to_str().unwrap()]);
    assert!(output.status.success());
    let output = vqscope(&[
        "score",
        "-r",
        vp9.to_str().unwrap(),
        "-d",
        vp9.to_str().unwrap(),
        "--decode",
        "gpu",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "vqscope: {}: cannot be decoded on the device (--decode gpu): vp9 video: the device \
             decodes H.264 and H.265 only",
            vp9.display()
        )
    );
}

#[test]
fn options_and_help() {
    // Every command that opens inputs: score, batch, screenshot, and the
    // dashboard (vqscope itself).
    for command in
        [&["score", "--help"][..], &["batch", "--help"], &["screenshot", "--help"], &["--help"]]
    {
        let help = String::from_utf8_lossy(&vqscope(command).stdout).into_owned();
        assert!(help.contains("--decode <DECODE>"), "{command:?}: {help}");
        assert!(help.contains("[default: auto]"), "{help}");
        assert!(help.contains("[possible values: auto, gpu, cpu]"), "{help}");
    }
    let output = vqscope(&["score", "-r", "a.y4m", "-d", "b.mp4", "--decode", "vulkan"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid value 'vulkan' for '--decode <DECODE>'"), "{stderr}");
}

/// On a device with H.264 decode, no ffmpeg needed: the shared clip's
/// distorted stream as Annex B (`ffmpeg -i rocket….dis.mp4 -map 0:v:0 -c:v
/// copy -bsf:v h264_mp4toannexb -f h264 rocket….dis.h264`; ffmpeg's decode
/// of it equals the `dis.y4m` libvmaf scored, frame for frame), decoded on
/// the device, must score libvmaf's per-frame and pooled values. The
/// stream is `VQSCOPE_DEVICE_H264`, else `.dec/rocket….dis.h264` in the
/// workspace.
#[test]
#[ignore = "needs a device with H.264 decode and the Annex B stream (see the doc comment)"]
fn device_decoded_annexb_scores_libvmafs_values() {
    let h264 = std::env::var_os("VQSCOPE_DEVICE_H264")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(format!(".dec/{PAIR}.dis.h264")));
    assert!(h264.is_file(), "{} is missing", h264.display());
    let (ours, stderr) = score(&h264, "gpu");
    let line = decoder_line(&stderr, &h264);
    assert!(line.starts_with("decoded on the device (H.264 High, 4:2:0 8-bit on "), "{line}");
    compare(&ours, &libvmaf_json(PAIR, "vmaf"), |_| true).assert_clean(PAIR, 12 * 6);
    eprintln!("{line}\n{stderr}");
}

/// The rocket reference encoded as H.265 Main, and libvmaf 3.2.0's report
/// of ffmpeg's decode of it (`tests/data/hevc/README.md`).
fn hevc_stream_and_libvmaf() -> (PathBuf, serde_json::Value) {
    let dir = workspace_root().join("tests/data/hevc");
    let json = std::fs::read_to_string(dir.join("rocket_x265crf35.vmaf.json")).unwrap();
    (dir.join("rocket_x265crf35.dis.hevc"), serde_json::from_str(&json).unwrap())
}

/// The committed H.265 stream decoded by ffmpeg scores libvmaf's values:
/// the check that the stream and its report belong together.
#[test]
fn ffmpeg_decoded_hevc_scores_libvmafs_values() {
    let (hevc, libvmaf) = hevc_stream_and_libvmaf();
    let (ours, stderr) = score(&hevc, "cpu");
    assert_eq!(decoder_line(&stderr, &hevc), "decoded by ffmpeg: --decode cpu");
    compare(&ours, &libvmaf, |_| true).assert_clean("rocket H.265", 12 * 6);
}

/// On a device with H.265 decode, no ffmpeg needed: the same stream
/// decoded on the device scores libvmaf's values of ffmpeg's decode.
#[test]
#[ignore = "needs a device with H.265 Main decode"]
fn device_decoded_hevc_scores_libvmafs_values() {
    let (hevc, libvmaf) = hevc_stream_and_libvmaf();
    let (ours, stderr) = score(&hevc, "gpu");
    let line = decoder_line(&stderr, &hevc);
    assert!(line.starts_with("decoded on the device (H.265 Main, 4:2:0 8-bit on "), "{line}");
    compare(&ours, &libvmaf, |_| true).assert_clean("rocket H.265", 12 * 6);
}

/// `bench decode` reads every frame of each input, one at a time: the
/// counts ffmpeg gives (one hash a frame in the streams' `.fnv64` files),
/// the decoder named; on a device without Vulkan Video, `--decode gpu`
/// fails with one line.
#[test]
fn bench_decode_reads_every_frame_of_each_input() {
    let data = workspace_root().join("video/tests/data/bitstream");
    let streams = ["h264_high_pyramid_slices_640x360.h264", "hevc_main10_idr_radl_210x118.hevc"];
    let [r, d] = streams.map(|s| data.join(s).to_str().unwrap().to_string());
    let output = vqscope(&["bench", "decode", "-r", &r, "-d", &d, "--decode", "auto"]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for (line, stream) in lines.iter().zip(streams) {
        let stem = stream.rsplit_once('.').unwrap().0;
        let hashes = std::fs::read_to_string(data.join(format!("{stem}.fnv64"))).unwrap();
        let frames = format!(": {} frames in ", hashes.lines().count());
        assert!(line.contains(stream) && line.contains(&frames), "{line}");
        assert!(
            line.contains("; decoded by") || line.contains("; decoded on the device"),
            "{line}"
        );
    }
    let gpu = vqscope(&["bench", "decode", "-r", &r, "-d", &d, "--decode", "gpu"]);
    let stderr = String::from_utf8_lossy(&gpu.stderr).into_owned();
    if !gpu.status.success() {
        assert_eq!(gpu.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("cannot be decoded on the device"), "{stderr}");
    }
}
