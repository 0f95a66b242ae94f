//! Containers through the ffmpeg child. Fixtures are made with ffmpeg's own
//! test source and compared with ffmpeg's own y4m output of the same file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use vqscope_video::ffmpeg::{FfmpegSource, FfmpegTools};
use vqscope_video::y4m::Y4mFile;
use vqscope_video::{ChromaFormat, ColorMatrix, ColorRange, VideoSource, open_input};

fn ffmpeg(args: &[&str]) {
    let st = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .status()
        .expect("ffmpeg must be installed for these tests");
    assert!(st.success(), "ffmpeg {args:?}");
}

/// A lossless clip in `ext` with `pix_fmt`, and ffmpeg's y4m decode of it.
fn make(
    name: &str,
    ext: &str,
    codec: &[&str],
    pix_fmt: &str,
    extra: &[&str],
) -> (PathBuf, PathBuf) {
    let clip = temp_path(&format!("{name}.{ext}"));
    let y4m = temp_path(&format!("{name}.y4m"));
    let c = clip.to_str().unwrap();
    let mut args = vec!["-f", "lavfi", "-i", "testsrc2=size=34x18:rate=25", "-frames:v", "9"];
    args.extend_from_slice(codec);
    args.extend_from_slice(&["-pix_fmt", pix_fmt]);
    args.extend_from_slice(extra);
    args.push(c);
    ffmpeg(&args);
    ffmpeg(&["-i", c, "-f", "yuv4mpegpipe", "-strict", "-1", y4m.to_str().unwrap()]);
    (clip, y4m)
}

fn all_frames(s: &mut dyn VideoSource) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| s.next_frame().unwrap()).map(|f| f.data.into_vec()).collect()
}

#[test]
fn formats_match_ffmpeg_own_y4m() {
    for (name, pix, chroma, depth) in [
        ("p8", "yuv420p", ChromaFormat::Yuv420, 8),
        ("p10", "yuv420p10le", ChromaFormat::Yuv420, 10),
        ("p422_12", "yuv422p12le", ChromaFormat::Yuv422, 12),
        ("p444", "yuv444p", ChromaFormat::Yuv444, 8),
        ("gray10", "gray10le", ChromaFormat::Mono, 10),
    ] {
        let (clip, y4m) = make(name, "mkv", &["-c:v", "ffv1"], pix, &[]);
        let mut ours = open_input(&clip, None).unwrap();
        let info = ours.info().clone();
        assert_eq!((info.geometry.width, info.geometry.height), (34, 18), "{name}");
        assert_eq!(info.geometry.format.chroma, chroma, "{name}");
        assert_eq!(info.geometry.format.bit_depth, depth, "{name}");
        assert!(info.description.contains("ffv1 in matroska via ffmpeg"), "{}", info.description);
        let mut reference = Y4mFile::open(&y4m).unwrap();
        let want: Vec<Vec<u8>> = (0..reference.frame_count())
            .map(|i| reference.read_frame(i).unwrap().data.into_vec())
            .collect();
        assert_eq!(want.len(), 9);
        assert_eq!(all_frames(ours.as_mut()), want, "{name}");
        assert_eq!(ours.info().frame_count, Some(9));
    }
}

#[test]
fn seeking_backwards_and_forwards_is_exact() {
    let (clip, y4m) =
        make("seek", "mp4", &["-c:v", "libx264", "-g", "4", "-bf", "2"], "yuv420p", &[]);
    let mut reference = Y4mFile::open(&y4m).unwrap();
    let mut s = FfmpegSource::open(&clip).unwrap();
    assert_eq!(s.info().frame_count, Some(9), "mp4 stores nb_frames");
    for i in [5u64, 6, 5, 2, 8, 0, 7, 3, 3, 1] {
        let f = s.read_frame(i).unwrap();
        assert_eq!(f.index, i);
        assert_eq!(f.data, reference.read_frame(i).unwrap().data, "frame {i}");
    }
    let err = s.read_frame(9).unwrap_err().to_string();
    assert!(err.contains("frame 9 does not exist"), "{err}");
}

#[test]
fn colour_comes_from_the_stream() {
    let (clip, _) = make(
        "colour",
        "mkv",
        &["-c:v", "ffv1"],
        "yuv420p",
        &["-colorspace", "bt2020nc", "-color_range", "pc"],
    );
    let s = open_input(&clip, None).unwrap();
    assert_eq!(s.info().color.matrix, ColorMatrix::Bt2020);
    assert_eq!(s.info().color.range, ColorRange::Full);
}

#[test]
fn missing_ffmpeg_is_one_clear_line() {
    let (clip, _) = make("missing", "mkv", &["-c:v", "ffv1"], "yuv420p", &[]);
    let tools = FfmpegTools {
        ffmpeg: "/nonexistent/ffmpeg".into(),
        ffprobe: "/nonexistent/ffprobe".into(),
    };
    let err = FfmpegSource::open_with(&clip, tools).err().unwrap().to_string();
    assert!(!err.contains('\n'));
    assert!(err.contains("`/nonexistent/ffprobe` is not installed or not on PATH"), "{err}");
    assert!(err.contains("missing.mkv"), "{err}");
}

#[test]
fn not_a_video() {
    let p = write_temp("junk.mp4", b"this is not a video file at all");
    let err = open_input(&p, None).err().unwrap().to_string();
    assert!(err.contains("junk.mp4: ffmpeg failed: ffprobe cannot read it"), "{err}");
}

/// A stand-in for ffmpeg that writes one good frame, half of another, and
/// fails the way a decoder error does.
#[cfg(unix)]
#[test]
fn ffmpeg_failing_mid_stream() {
    use std::os::unix::fs::PermissionsExt;
    let (clip, _) = make("midfail", "mkv", &["-c:v", "ffv1"], "yuv420p", &[]);
    let script = temp_path("fake-ffmpeg.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'YUV4MPEG2 W4 H2 F25:1 C420jpeg\\nFRAME\\n012345678901FRAME\\n0123'\n\
         echo 'Error while decoding stream #0:0: Invalid data found' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tools = FfmpegTools { ffmpeg: script, ffprobe: "ffprobe".into() };
    let mut s = FfmpegSource::open_with(&clip, tools).unwrap();
    assert!(s.next_frame().unwrap().is_some());
    let err = s.next_frame().unwrap_err().to_string();
    assert!(err.contains("midfail.mkv: ffmpeg failed at frame 1"), "{err}");
    assert!(err.contains("Error while decoding stream"), "{err}");
}

#[test]
fn stdin_path_is_named_stdin() {
    // Only the name matters here; reading stdin itself would block.
    let e = vqscope_video::VideoError::io(Path::new("-"), Some(4), std::io::Error::other("x"));
    assert_eq!(e.to_string(), "stdin: read error at frame 4: x");
}
