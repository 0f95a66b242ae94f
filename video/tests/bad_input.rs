//! The bad-input matrix: every malformed y4m gives one clear error naming
//! the file (and frame), never a panic, hang or huge allocation.

mod common;

use std::io::Cursor;
use std::path::Path;

use common::*;
use vqscope_video::open_input;
use vqscope_video::y4m::Y4mStream;

fn good(frames: u32) -> Vec<u8> {
    y4m_bytes("YUV4MPEG2 W4 H2 F25:1 C420jpeg", &plane_dims(4, 2, Some((2, 2))), 8, frames, &bare)
}

/// Error text from opening `bytes` as a file and reading every frame.
fn file_error(name: &str, bytes: &[u8]) -> String {
    let p = write_temp(name, bytes);
    let err = match open_input(&p, None) {
        Err(e) => e.to_string(),
        Ok(mut s) => loop {
            match s.next_frame() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("{name}: read without error"),
                Err(e) => break e.to_string(),
            }
        },
    };
    assert!(err.contains(name), "error does not name the file: {err}");
    err
}

/// Same through the stream reader (pipes).
fn stream_error(bytes: &[u8]) -> String {
    match Y4mStream::new(Cursor::new(bytes.to_vec()), Path::new("-")) {
        Err(e) => e.to_string(),
        Ok(mut s) => loop {
            match s.next_frame() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("stream read without error"),
                Err(e) => break e.to_string(),
            }
        },
    }
}

fn both(name: &str, bytes: &[u8], want: &[&str]) {
    let f = file_error(name, bytes);
    let s = stream_error(bytes);
    for w in want {
        assert!(f.contains(w), "file error {f:?} lacks {w:?}");
        assert!(s.contains(w), "stream error {s:?} lacks {w:?}");
    }
    assert!(s.starts_with("stdin"), "{s}");
}

#[test]
fn bad_magic() {
    both("magic.y4m", b"YUV4MPEG W4 H2\nFRAME\n", &["not a YUV4MPEG2 file"]);
    both("magic2.y4m", b"RIFF....WAVEfmt ", &["not a YUV4MPEG2 file"]);
    both("magic3.y4m", b"YUV4MPEG2X W4 H2\n", &["not a YUV4MPEG2 file"]);
}

#[test]
fn empty_and_headerless() {
    both("empty.y4m", b"", &["file is empty"]);
    both("nonl.y4m", b"YUV4MPEG2 W4 H2 F25:1", &["header line has no newline"]);
    let long = [b"YUV4MPEG2 ".as_slice(), &vec![b'X'; 100_000]].concat();
    both("long.y4m", &long, &["header line has no newline"]);
}

#[test]
fn header_fields() {
    both("now.y4m", b"YUV4MPEG2 H2 F25:1\n", &["no width (W) tag"]);
    both("noh.y4m", b"YUV4MPEG2 W4 F25:1\n", &["no height (H) tag"]);
    both("badw.y4m", b"YUV4MPEG2 W4x H2\n", &["bad width tag `W4x`"]);
    both("negw.y4m", b"YUV4MPEG2 W-4 H2\n", &["bad width tag `W-4`"]);
    both("badf.y4m", b"YUV4MPEG2 W4 H2 F25\n", &["bad frame rate tag `F25`"]);
    both("badf0.y4m", b"YUV4MPEG2 W4 H2 F25:0\n", &["bad frame rate tag `F25:0`"]);
    both("badi.y4m", b"YUV4MPEG2 W4 H2 Iz\n", &["bad interlacing tag `Iz`"]);
    both("bada.y4m", b"YUV4MPEG2 W4 H2 A1\n", &["bad aspect tag `A1`"]);
    both(
        "badc.y4m",
        b"YUV4MPEG2 W4 H2 C420p11x\n",
        &["unsupported input: y4m colour space C420p11x"],
    );
    both("411.y4m", b"YUV4MPEG2 W4 H2 C411\n", &["C411", "yuv422p"]);
    both("utf.y4m", b"YUV4MPEG2 W4 H2 \xff\xfe\n", &["not ASCII"]);
}

#[test]
fn absurd_dimensions_rejected_before_allocating() {
    both("zero.y4m", b"YUV4MPEG2 W0 H2\n", &["frame size 0x2 is out of range"]);
    both("big.y4m", b"YUV4MPEG2 W16385 H2\n", &["frame size 16385x2 is out of range"]);
    both("huge.y4m", b"YUV4MPEG2 W99999999999999999999 H2\n", &["bad width tag"]);
    both(
        "overflow.y4m",
        b"YUV4MPEG2 W4294967297 H4294967297\n",
        &["4294967297x4294967297 is out of range"],
    );
    // Largest legal size with a lying body: must fail on truncation, not
    // by allocating the 1.5 GiB the header promises.
    both(
        "maxsize.y4m",
        b"YUV4MPEG2 W16384 H16384 C444p16\nFRAME\nabc",
        &["frame 0 is truncated: expected 1610612736 bytes, got 3"],
    );
}

#[test]
fn odd_sizes_are_fine() {
    let dims = plane_dims(1, 1, Some((2, 2)));
    let bytes = y4m_bytes("YUV4MPEG2 W1 H1 F25:1 C420jpeg", &dims, 8, 2, &bare);
    let p = write_temp("one.y4m", &bytes);
    let mut s = open_input(&p, None).unwrap();
    assert_eq!(s.info().frame_count, Some(2));
    assert_eq!(s.read_frame(1).unwrap().data.len(), 3);
}

#[test]
fn truncated_frames() {
    let mut b = good(3);
    b.truncate(b.len() - 5);
    both("trunc.y4m", &b, &["frame 2 is truncated: expected 12 bytes, got 7"]);
    let mut b = good(2);
    b.extend_from_slice(b"FRA");
    both("trunchdr.y4m", &b, &["frame 2", "FRAME line not terminated"]);
    let mut b = good(2);
    b.extend_from_slice(b"FRAME\n");
    both("nodata.y4m", &b, &["frame 2 is truncated: expected 12 bytes, got 0"]);
}

#[test]
fn frame_of_wrong_length() {
    // Frame 1 is two bytes short: frame 2's FRAME line is then misplaced.
    let hdr = b"YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".to_vec();
    let mut b = hdr.clone();
    b.extend_from_slice(b"FRAME\n");
    b.extend_from_slice(&[7; 12]);
    b.extend_from_slice(b"FRAME\n");
    b.extend_from_slice(&[7; 10]);
    b.extend_from_slice(b"FRAME\n");
    b.extend_from_slice(&[7; 12]);
    both("short.y4m", &b, &["frame 2: bad frame header", "expected `FRAME`"]);
    // A frame two bytes long.
    let mut b = hdr;
    b.extend_from_slice(b"FRAME\n");
    b.extend_from_slice(&[7; 14]);
    b.extend_from_slice(b"FRAME\n");
    b.extend_from_slice(&[7; 12]);
    both("long.y4m", &b, &["frame 1: bad frame header"]);
}

#[test]
fn garbage_frame_line() {
    let mut b = b"YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".to_vec();
    b.extend_from_slice(&[0x41; 5000]);
    both("garbage.y4m", &b, &["frame 0: bad frame header"]);
}

#[test]
fn missing_and_unreadable_files() {
    let err = open_input(Path::new("/nonexistent/dir/clip.y4m"), None).err().unwrap().to_string();
    assert!(err.starts_with("/nonexistent/dir/clip.y4m: cannot open:"), "{err}");
    let dir = temp_path("a-directory.y4m");
    std::fs::create_dir_all(&dir).unwrap();
    let err = open_input(&dir, None).err().unwrap().to_string();
    assert!(err.contains("a-directory.y4m"), "{err}");
}
