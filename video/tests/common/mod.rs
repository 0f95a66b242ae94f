//! Fixtures written by the tests themselves: y4m and raw bytes whose every
//! sample follows a formula the tests can recompute independently.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh file path under cargo's per-test temporary directory.
pub fn temp_path(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("video-fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let n = N.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{}-{n}-{name}", std::process::id()))
}

/// Sample value at (x, y) of `plane` in `frame`, within `depth` bits.
/// Uses the top of the range too, so byte order mistakes show.
pub fn sample(x: u32, y: u32, plane: u32, frame: u32, depth: u32) -> u16 {
    let max = (1u32 << depth) - 1;
    if x == 0 && y == 0 {
        return (max - plane - frame) as u16; // top of the range
    }
    let v = x * 37 + y * 101 + plane * 53 + frame * 211 + (x * y) % 7;
    (v * 9 % (max + 1)) as u16
}

/// Plane sizes written by hand per chroma layout (not via the crate).
/// `sub` = (horizontal, vertical) subsampling; `None` = mono.
pub fn plane_dims(w: u32, h: u32, sub: Option<(u32, u32)>) -> Vec<(u32, u32)> {
    match sub {
        None => vec![(w, h)],
        Some((sx, sy)) => {
            let c = (w.div_ceil(sx), h.div_ceil(sy));
            vec![(w, h), c, c]
        }
    }
}

/// Planes of one frame, as sample values.
pub fn frame_planes(dims: &[(u32, u32)], frame: u32, depth: u32) -> Vec<Vec<u16>> {
    dims.iter()
        .enumerate()
        .map(|(p, &(w, h))| {
            let mut v = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    v.push(sample(x, y, p as u32, frame, depth));
                }
            }
            v
        })
        .collect()
}

/// Sample bytes: one byte each at 8 bits, else 16-bit little-endian.
pub fn bytes_of(planes: &[Vec<u16>], depth: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for p in planes {
        for &s in p {
            if depth > 8 {
                out.extend_from_slice(&s.to_le_bytes());
            } else {
                out.push(s as u8);
            }
        }
    }
    out
}

/// A whole y4m file: `header` (without newline), then `frames` frames with
/// bare FRAME lines (or `frame_line(i)` when given).
pub fn y4m_bytes(
    header: &str,
    dims: &[(u32, u32)],
    depth: u32,
    frames: u32,
    frame_line: &dyn Fn(u32) -> String,
) -> Vec<u8> {
    let mut out = format!("{header}\n").into_bytes();
    for f in 0..frames {
        out.extend_from_slice(frame_line(f).as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&bytes_of(&frame_planes(dims, f, depth), depth));
    }
    out
}

pub fn bare(_: u32) -> String {
    "FRAME".to_string()
}

/// Writes `bytes` to a fresh temp file.
pub fn write_temp(name: &str, bytes: &[u8]) -> PathBuf {
    let p = temp_path(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A named pipe fed with the bytes of `file` by a thread (join it once
/// the pipe is read), so the input is a stream rather than a file.
pub fn fifo_of(
    file: &std::path::Path,
    name: &str,
) -> (std::path::PathBuf, std::thread::JoinHandle<()>) {
    let fifo = temp_path(name);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let bytes = std::fs::read(file).unwrap();
    let path = fifo.clone();
    let feeder = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        std::io::Write::write_all(&mut w, &bytes).unwrap();
    });
    (fifo, feeder)
}
