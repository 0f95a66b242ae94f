//! Fuzzes the y4m reader end to end: header parsing, FRAME lines and frame
//! payloads, through the stream reader (what pipes and ffmpeg use). Any
//! input must give frames or an error, never a panic, hang or huge
//! allocation. Run: `cargo +nightly fuzz run y4m_parse` in `video/fuzz`.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use vqscope_video::y4m::{Y4mStream, parse_header};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.y4m");
    let line_end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let _ = parse_header(&data[..line_end], path);

    let Ok(mut stream) = Y4mStream::new(Cursor::new(data), path) else {
        return;
    };
    let frame_bytes = stream.header().geometry().frame_bytes();
    // Bounded: each frame needs at least its FRAME line from the input.
    for _ in 0..64 {
        match stream.next_frame() {
            Ok(Some(frame)) => {
                assert_eq!(frame.data.len(), frame_bytes);
                for plane in 0..frame.geometry.format.chroma.plane_count() {
                    let _ = frame.plane_bytes(plane);
                }
            }
            Ok(None) | Err(_) => break,
        }
    }
});
