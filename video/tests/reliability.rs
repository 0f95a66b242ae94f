//! What the library tells a caller so that nothing goes wrong in silence:
//! inputs that end early (a pipe shorter than the other input, an mp4 cut
//! in half whose container announces more frames), empty inputs known
//! before any GPU work, one stream given twice, and stray bytes shown in
//! messages. (File names ffmpeg would misread: `ffmpeg_names.rs`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use vqscope_video::{Decoder, Pair, PairOptions, check_stream_inputs, open_input};

const HEADER: &str = "YUV4MPEG2 W4 H2 F25:1 C420jpeg";

fn y4m(name: &str, frames: u32) -> PathBuf {
    write_temp(name, &y4m_bytes(HEADER, &plane_dims(4, 2, Some((2, 2))), 8, frames, &bare))
}

/// A named pipe fed with `bytes` by a thread (join it once the pipe is
/// read), so the input is a stream whose length nobody knows up front.
fn fifo(name: &str, bytes: Vec<u8>) -> (PathBuf, std::thread::JoinHandle<()>) {
    let fifo = temp_path(name);
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let path = fifo.clone();
    let feeder = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        // The reader may stop early (the other input ended): not an error.
        let _ = std::io::Write::write_all(&mut w, &bytes);
    });
    (fifo, feeder)
}

fn pair(r: &Path, d: &Path) -> Pair {
    Pair::new(open_input(r, None).unwrap(), open_input(d, None).unwrap(), PairOptions::default())
        .unwrap()
}

/// Reads every pair left through a decoder; returns (pairs, end warnings).
fn decode_all(p: Pair, workers: usize) -> (u64, Vec<String>) {
    let start = p.position();
    let mut d = Decoder::spawn_workers(p, 4, workers).unwrap();
    let mut n = 0;
    while let Some(fp) = d.recv().unwrap() {
        assert_eq!(fp.index, start + n);
        n += 1;
    }
    let end = d.end_warnings().to_vec();
    d.shutdown().unwrap();
    (n, end)
}

fn ffmpeg(args: &[&std::ffi::OsStr]) -> bool {
    match Command::new("ffmpeg").args(["-v", "error", "-y"]).args(args).status() {
        Ok(s) => s.success(),
        Err(e) => {
            eprintln!("skipped: ffmpeg cannot run ({e}); install ffmpeg to run this test");
            false
        }
    }
}

/// A 10-frame mp4 (moov first, so a cut copy still announces 10 frames)
/// at `path`; `false` (with the reason printed) when ffmpeg is absent.
fn mp4(path: &Path, frames: u32) -> bool {
    let n = frames.to_string();
    let mut out = std::ffi::OsString::from("file:");
    out.push(path);
    ffmpeg(&[
        "-f".as_ref(),
        "lavfi".as_ref(),
        "-i".as_ref(),
        "testsrc=size=64x48:rate=25".as_ref(),
        "-frames:v".as_ref(),
        n.as_ref(),
        "-pix_fmt".as_ref(),
        "yuv420p".as_ref(),
        "-c:v".as_ref(),
        "mpeg4".as_ref(),
        "-movflags".as_ref(),
        "+faststart".as_ref(),
        &out,
    ])
}

#[test]
fn a_shorter_pipe_is_warned_about_at_the_end() {
    let long = y4m("long.y4m", 6);
    let short = y4m_bytes(HEADER, &plane_dims(4, 2, Some((2, 2))), 8, 2, &bare);
    let (f, feeder) = fifo("short.fifo", short.clone());
    let p = pair(&long, &f);
    assert!(p.warnings().is_empty(), "nothing is known up front: {:?}", p.warnings());
    let (n, end) = decode_all(p, 4);
    feeder.join().unwrap();
    assert_eq!(n, 2);
    assert_eq!(end.len(), 1, "{end:?}");
    let want = format!(
        "distorted {} ended before reference {}: scored 2 frames",
        f.display(),
        long.display()
    );
    assert_eq!(end[0], want);

    // The pipe as the reference, and longer: the warning names it so.
    let (f, feeder) = fifo("long.fifo", y4m_bytes(HEADER, &d(), 8, 5, &bare));
    let short = y4m("short.y4m", 1);
    let (n, end) = decode_all(pair(&f, &short), 1);
    feeder.join().unwrap();
    assert_eq!(n, 1);
    assert_eq!(end.len(), 1, "{end:?}");
    assert!(end[0].starts_with("distorted ") && end[0].ends_with(": scored 1 frame"), "{end:?}");
}

fn d() -> Vec<(u32, u32)> {
    plane_dims(4, 2, Some((2, 2)))
}

#[test]
fn known_unequal_lengths_are_warned_about_once() {
    let (a, b) = (y4m("five.y4m", 5), y4m("three.y4m", 3));
    let p = pair(&a, &b);
    assert_eq!(p.warnings().len(), 1);
    let (n, end) = decode_all(p, 2);
    assert_eq!(n, 3);
    assert!(end.is_empty(), "said up front already: {end:?}");
    // Equal pipes: nothing to say at all.
    let bytes = y4m_bytes(HEADER, &d(), 8, 3, &bare);
    let (f, feeder) = fifo("eq.fifo", bytes);
    let (n, end) = decode_all(pair(&b, &f), 1);
    feeder.join().unwrap();
    assert_eq!((n, end.len()), (3, 0), "{end:?}");
}

#[test]
fn a_cut_mp4_says_how_many_frames_are_missing() {
    let full = temp_path("full.mp4");
    if !mp4(&full, 10) {
        return;
    }
    let bytes = std::fs::read(&full).unwrap();
    let cut = write_temp("cut.mp4", &bytes[..bytes.len() / 2]);
    let source = open_input(&cut, None).unwrap();
    assert_eq!(source.info().frame_count, Some(10), "the container announces 10");
    let (w, h) = (64, 48);
    // The reference: the first 10 frames of the same clip, as y4m.
    let reference = temp_path("full.y4m");
    let mut y = std::ffi::OsString::from("file:");
    y.push(&reference);
    let mut i = std::ffi::OsString::from("file:");
    i.push(&full);
    assert!(ffmpeg(&["-i".as_ref(), &i, "-f".as_ref(), "yuv4mpegpipe".as_ref(), &y]));
    let r = open_input(&reference, None).unwrap();
    assert_eq!(r.info().geometry.width, w);
    assert_eq!(r.info().geometry.height, h);
    let p = Pair::new(r, source, PairOptions::default()).unwrap();
    assert!(p.warnings().is_empty(), "10 and 10 announced: {:?}", p.warnings());
    let (n, end) = decode_all(p, 1);
    assert!(n < 10, "scored {n}");
    assert_eq!(end.len(), 2, "{end:?}");
    assert!(end[0].starts_with(&format!("distorted {} ended before reference", cut.display())));
    let missing = format!(
        "{}: ffmpeg decoded {n} of the 10 frames its container announces ({} missing: \
         truncated file?)",
        cut.display(),
        10 - n
    );
    assert!(end[1].starts_with(&missing), "{end:?}");

    // Cut against itself: both end together, and the shortfall still shows
    // (once: it is the same file's message).
    let p = pair(&cut, &cut);
    let (n2, end) = decode_all(p, 1);
    assert_eq!(n2, n);
    assert_eq!(end.len(), 1, "{end:?}");
    assert!(end[0].starts_with(&missing), "{end:?}");

    // A whole mp4 ends where it says: no warning.
    let (n, end) = decode_all(pair(&full, &full), 1);
    assert_eq!((n, end.len()), (10, 0), "{end:?}");
}

#[test]
fn empty_inputs_are_known_before_any_gpu_work() {
    // 0 frames of 16384x16384 4:4:4 12-bit: known from the header alone.
    let huge = write_temp("huge.y4m", b"YUV4MPEG2 W16384 H16384 F25:1 C444p12\n");
    let mut p = pair(&huge, &huge);
    assert_eq!(p.frame_count(), Some(0));
    assert!(!p.has_frames().unwrap());
    assert!(p.next_pair().unwrap().is_none());

    // An empty pipe against a file: found by reading, and said.
    let some = y4m("some.y4m", 3);
    let (f, feeder) = fifo("empty.fifo", format!("{HEADER}\n").into_bytes());
    let mut p = pair(&some, &f);
    assert!(!p.has_frames().unwrap());
    feeder.join().unwrap();
    assert_eq!(p.warnings().len(), 1, "{:?}", p.warnings());
    assert!(p.warnings()[0].ends_with("scored 0 frames"), "{:?}", p.warnings());

    // Skips past the end, or frame_cnt 0: no frames either.
    let opts = PairOptions { frame_skip_ref: 3, ..PairOptions::default() };
    let mut p = Pair::new(open_input(&some, None).unwrap(), open_input(&some, None).unwrap(), opts)
        .unwrap();
    assert!(!p.has_frames().unwrap());
    let opts = PairOptions { frame_cnt: Some(0), ..PairOptions::default() };
    let mut p = Pair::new(open_input(&some, None).unwrap(), open_input(&some, None).unwrap(), opts)
        .unwrap();
    assert!(!p.has_frames().unwrap());
}

#[test]
fn peeking_loses_no_frame() {
    let a = y4m("peek-a.y4m", 7);
    // A pipe: the peeked pair is the only copy of frame 0.
    let (f, feeder) = fifo("peek.fifo", std::fs::read(&a).unwrap());
    let mut p = pair(&a, &f);
    assert!(p.has_frames().unwrap());
    assert!(p.has_frames().unwrap(), "asking twice reads nothing more");
    assert_eq!(p.position(), 0);
    let first = p.next_pair().unwrap().unwrap();
    assert_eq!((first.index, first.reference.index, first.distorted.index), (0, 0, 0));
    assert_eq!(first.reference.data, first.distorted.data);
    let (n, end) = decode_all(p, 1);
    feeder.join().unwrap();
    assert_eq!((n, end.len()), (6, 0), "the rest follows: {end:?}");

    // Files read by several workers: every pair once, in order.
    let mut p = pair(&a, &a);
    assert!(p.has_frames().unwrap());
    let (n, end) = decode_all(p, 3);
    assert_eq!((n, end.len()), (7, 0));
}

#[test]
fn one_stream_cannot_be_two_inputs() {
    let dash = Path::new("-");
    let err = check_stream_inputs(&[dash, dash]).unwrap_err().to_string();
    assert_eq!(
        err,
        "stdin (`-`) is given as two inputs, but it can be read only once: save one of them to a \
         file"
    );
    let (f, feeder) = fifo("twice.fifo", Vec::new());
    let err = check_stream_inputs(&[&f, &f]).unwrap_err().to_string();
    assert!(err.contains("are the same stream"), "{err}");
    assert!(err.contains(&f.display().to_string()), "{err}");
    // Unblock the feeder (it waits for a reader).
    drop(std::fs::File::open(&f).unwrap());
    feeder.join().unwrap();
    // A file twice is fine (scoring a clip against itself), and a missing
    // path is open_input's to report.
    let a = y4m("twice.y4m", 1);
    check_stream_inputs(&[&a, &a]).unwrap();
    check_stream_inputs(&[Path::new("/nonexistent/x.y4m"), dash]).unwrap();
}

#[test]
fn a_stray_byte_shows_in_the_message() {
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(b"\x01FRAME\n");
    bytes.extend_from_slice(&[0; 12]);
    let p = write_temp("stray.y4m", &bytes);
    let err = match open_input(&p, None) {
        Err(e) => e.to_string(),
        Ok(mut s) => s.next_frame().unwrap_err().to_string(),
    };
    assert!(err.contains("expected `FRAME`, found `\\x01FRAME`"), "{err}");
}
