//! Raw .yuv with user-given geometry.

mod common;

use std::io::Cursor;
use std::path::Path;

use common::*;
use vqscope_video::raw::{RawFile, RawStream};
use vqscope_video::{ChromaFormat, RawGeometry, open_input};

fn raw(w: u32, h: u32, chroma: ChromaFormat, bit_depth: u32) -> RawGeometry {
    RawGeometry { width: w, height: h, chroma, bit_depth }
}

fn raw_bytes(dims: &[(u32, u32)], depth: u32, frames: u32) -> Vec<u8> {
    (0..frames).flat_map(|f| bytes_of(&frame_planes(dims, f, depth), depth)).collect()
}

#[test]
fn every_layout_and_depth() {
    for (chroma, sub) in [
        (ChromaFormat::Yuv420, (2, 2)),
        (ChromaFormat::Yuv422, (2, 1)),
        (ChromaFormat::Yuv444, (1, 1)),
    ] {
        for depth in [8, 10, 12] {
            let dims = plane_dims(7, 5, Some(sub));
            let p = write_temp("r.yuv", &raw_bytes(&dims, depth, 4));
            let mut s = open_input(&p, Some(raw(7, 5, chroma, depth))).unwrap();
            assert_eq!(s.info().frame_count, Some(4));
            assert_eq!(s.info().geometry.format.bit_depth, depth);
            for i in [3u32, 1, 0, 2] {
                let f = s.read_frame(i.into()).unwrap();
                let want = frame_planes(&dims, i, depth);
                for (pi, plane) in want.iter().enumerate() {
                    assert_eq!(&f.plane_samples(pi), plane, "{chroma:?} {depth} frame {i}");
                }
            }
        }
    }
}

#[test]
fn raw_geometry_forces_raw_for_any_extension() {
    let dims = plane_dims(4, 2, Some((2, 2)));
    let p = write_temp("frames.bin", &raw_bytes(&dims, 8, 2));
    let s = open_input(&p, Some(raw(4, 2, ChromaFormat::Yuv420, 8))).unwrap();
    assert_eq!(s.info().frame_count, Some(2));
    assert_eq!(s.info().description, "raw yuv");
}

#[test]
fn sequential_equals_random() {
    let dims = plane_dims(6, 6, Some((2, 2)));
    let p = write_temp("seq.yuv", &raw_bytes(&dims, 10, 5));
    let g = raw(6, 6, ChromaFormat::Yuv420, 10);
    let mut a = RawFile::open(&p, g).unwrap();
    let mut seq = Vec::new();
    while let Some(f) = a.next_frame().unwrap() {
        seq.push(f);
    }
    assert_eq!(seq.len(), 5);
    let mut b = RawFile::open(&p, g).unwrap();
    for i in [4u64, 0, 2, 3, 1] {
        assert_eq!(b.read_frame(i).unwrap(), seq[i as usize]);
    }
    // And from a reader (stdin-like).
    let mut st =
        RawStream::new(Cursor::new(std::fs::read(&p).unwrap()), Path::new("-"), g).unwrap();
    for f in &seq {
        assert_eq!(&st.next_frame().unwrap().unwrap(), f);
    }
    assert!(st.next_frame().unwrap().is_none());
}

#[test]
fn partial_trailing_frame_is_an_error() {
    let dims = plane_dims(4, 2, Some((2, 2)));
    let mut bytes = raw_bytes(&dims, 8, 3);
    bytes.extend_from_slice(&[1, 2, 3]);
    let p = write_temp("partial.yuv", &bytes);
    let err = open_input(&p, Some(raw(4, 2, ChromaFormat::Yuv420, 8))).err().unwrap().to_string();
    assert!(err.contains("partial.yuv"), "{err}");
    assert!(err.contains("3 whole frames, then 3 stray bytes"), "{err}");
    assert!(err.contains("12-byte frames"), "{err}");
}

#[test]
fn truncated_stream_names_frame() {
    let dims = plane_dims(4, 2, Some((2, 2)));
    let mut bytes = raw_bytes(&dims, 8, 2);
    bytes.truncate(12 + 5);
    let g = raw(4, 2, ChromaFormat::Yuv420, 8);
    let mut st = RawStream::new(Cursor::new(bytes), Path::new("-"), g).unwrap();
    st.next_frame().unwrap().unwrap();
    let err = st.next_frame().unwrap_err().to_string();
    assert_eq!(err, "stdin: frame 1 is truncated: expected 12 bytes, got 5");
}

#[test]
fn yuv_without_geometry_is_refused() {
    let p = write_temp("x.yuv", &[0; 12]);
    let err = open_input(&p, None).err().unwrap().to_string();
    assert!(err.contains("raw .yuv needs its width, height"), "{err}");
}

#[test]
fn bad_raw_geometry() {
    let p = write_temp("g.yuv", &[0; 12]);
    let err = open_input(&p, Some(raw(0, 2, ChromaFormat::Yuv420, 8))).err().unwrap().to_string();
    assert!(err.contains("frame size 0x2 is out of range"), "{err}");
    for depth in [0, 7, 17] {
        let err =
            open_input(&p, Some(raw(4, 2, ChromaFormat::Yuv420, depth))).err().unwrap().to_string();
        assert!(err.contains(&format!("raw bit depth {depth} (use 8 to 16)")), "{err}");
    }
    let err = open_input(&p, Some(raw(16385, 16385, ChromaFormat::Yuv444, 16)))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("16385x16385 is out of range"), "{err}");
}

/// Every depth y4m takes, raw takes too (`-b 9` was refused with a hint
/// to use 16, which ADM then refused): 8 to 16, two bytes a sample above 8.
#[test]
fn raw_accepts_every_depth_from_8_to_16() {
    for depth in 8..=16u32 {
        let bytes_per_sample = if depth > 8 { 2 } else { 1 };
        let frame = (4 * 2 + 2 * 2) * bytes_per_sample;
        let p = write_temp("d.yuv", &vec![1; frame * 2]);
        let mut s = open_input(&p, Some(raw(4, 2, ChromaFormat::Yuv420, depth))).unwrap();
        assert_eq!(s.info().geometry.format.bit_depth, depth);
        assert_eq!(s.info().frame_count, Some(2), "depth {depth}");
        assert_eq!(s.next_frame().unwrap().unwrap().data.len(), frame);
    }
}
