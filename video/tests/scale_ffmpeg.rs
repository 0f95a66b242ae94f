//! The bicubic scaler's CPU twin (`vqscope_video::scale`) against ffmpeg
//! 5.1's own output, byte for byte: random frames of random sizes (odd
//! ones, growing, shrinking, one axis each way, one axis unchanged, tiny)
//! in 4:2:0, 4:2:2, 4:4:4 and gray at 8 and 10 bits and 4:2:0 at 12 bits.
//!
//! The expected bytes come from running ffmpeg here:
//! - with `-cpuflags 0`, swscale's plain C arithmetic, at every depth;
//! - with ffmpeg's default CPU flags and the fallback's `flags=`
//!   ([`SWS_FLAGS`]) at 8 bits, where its SIMD code then agrees with C.

use std::path::Path;
use std::process::Command;

use vqscope_gpu::testing::Rng;
use vqscope_video::scale::{FrameScale, SWS_FLAGS};
use vqscope_video::testing::random_frame;
use vqscope_video::{ChromaFormat, Frame, Geometry, PixelFormat};

mod common;
use common::temp_path;

/// ffmpeg's scale of the raw frame in `input` (geometry `from`) to `to`.
fn ffmpeg_scale(input: &Path, from: Geometry, to: Geometry, c_only: bool, flags: &str) -> Vec<u8> {
    let fmt = from.format.ffmpeg_name();
    let mut cmd = Command::new("ffmpeg");
    cmd.args(["-nostdin", "-hide_banner", "-loglevel", "error"]);
    if c_only {
        cmd.args(["-cpuflags", "0"]);
    }
    let out = cmd
        .args(["-f", "rawvideo", "-pix_fmt", &fmt, "-s"])
        .arg(format!("{}x{}", from.width, from.height))
        .arg("-i")
        .arg(input)
        .arg("-vf")
        .arg(format!("scale={}:{}:flags={flags}", to.width, to.height))
        .args(["-f", "rawvideo", "-pix_fmt", &fmt, "-"])
        .output()
        .expect("ffmpeg must be installed for these tests");
    assert!(out.status.success(), "ffmpeg: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn geometry(width: u32, height: u32, chroma: ChromaFormat, bit_depth: u32) -> Geometry {
    Geometry { width, height, format: PixelFormat { chroma, bit_depth } }
}

/// Source and target sizes: fixed corner cases, then random ones.
fn sizes(rng: &mut Rng) -> Vec<((u32, u32), (u32, u32))> {
    let mut sizes = vec![
        ((3, 3), (7, 5)),
        ((7, 5), (3, 3)),
        ((64, 36), (64, 71)),
        ((97, 41), (13, 41)),
        ((320, 180), (1280, 720)),
        ((1280, 720), (320, 181)),
        ((201, 99), (199, 101)),
        ((640, 2), (23, 2)),
    ];
    for _ in 0..10 {
        let (sw, sh) = (rng.below(400) as u32 + 2, rng.below(400) as u32 + 2);
        // Shrinks of at most about 32:1 (swscale makes steeper ones in two
        // steps, which the scaler refuses).
        let mut to = |s: u32| {
            let lo = s / 32 + 2;
            lo + rng.below(u64::from(402 - lo)) as u32
        };
        sizes.push(((sw, sh), (to(sw), to(sh))));
    }
    sizes
}

fn check(rng: &mut Rng, chroma: ChromaFormat, depth: u32, simd_too: bool) {
    for ((sw, sh), (dw, dh)) in sizes(rng) {
        let from = geometry(sw, sh, chroma, depth);
        let to = geometry(dw, dh, chroma, depth);
        let frame = random_frame(rng, from);
        let input = temp_path("scale-in.yuv");
        std::fs::write(&input, &frame.data).unwrap();
        let ours = FrameScale::new(from, to).unwrap().scale(&frame);
        let what = format!("{} {sw}x{sh} -> {dw}x{dh}", from.format.ffmpeg_name());
        let c = ffmpeg_scale(&input, from, to, true, "bicubic");
        assert!(
            ours.data == c,
            "{what}: differs from ffmpeg -cpuflags 0 {}",
            first_diff(&ours, &c)
        );
        if simd_too {
            let simd = ffmpeg_scale(&input, from, to, false, SWS_FLAGS);
            assert!(ours.data == simd, "{what}: differs from ffmpeg with flags={SWS_FLAGS}");
        }
        let _ = std::fs::remove_file(&input);
    }
}

/// Where `frame` and ffmpeg's bytes first differ: plane, x, y.
fn first_diff(frame: &Frame, theirs: &[u8]) -> String {
    if frame.data.len() != theirs.len() {
        return format!("({} bytes, ffmpeg {})", frame.data.len(), theirs.len());
    }
    let g = frame.geometry;
    let bps = g.format.bytes_per_sample();
    let at = frame.data.iter().zip(theirs).position(|(a, b)| a != b).unwrap_or(0);
    for p in 0..g.format.chroma.plane_count() {
        let (start, len) = (frame.plane_offset(p), g.plane_bytes(p));
        if (start..start + len).contains(&at) {
            let (w, _) = g.plane_size(p);
            let i = (at - start) / bps;
            return format!("(plane {p} at x {} y {})", i % w as usize, i / w as usize);
        }
    }
    String::new()
}

/// A shrink swscale would make in two steps (its filter would pass 256
/// taps) is refused rather than scaled differently.
#[test]
fn two_step_shrinks_are_refused() {
    let from = geometry(640, 2, ChromaFormat::Yuv420, 8);
    assert!(FrameScale::new(from, geometry(9, 2, ChromaFormat::Yuv420, 8)).is_err());
}

#[test]
fn yuv420_8bit_equals_ffmpeg() {
    check(&mut Rng(0x5CA1_E420), ChromaFormat::Yuv420, 8, true);
}

#[test]
fn yuv422_and_444_8bit_equal_ffmpeg() {
    check(&mut Rng(0x5CA1_E422), ChromaFormat::Yuv422, 8, true);
    check(&mut Rng(0x5CA1_E444), ChromaFormat::Yuv444, 8, true);
}

#[test]
fn high_bit_depths_equal_ffmpeg_c() {
    check(&mut Rng(0x5CA1_E010), ChromaFormat::Yuv420, 10, false);
    check(&mut Rng(0x5CA1_E012), ChromaFormat::Yuv420, 12, false);
    check(&mut Rng(0x5CA1_E210), ChromaFormat::Yuv422, 10, false);
    check(&mut Rng(0x5CA1_E410), ChromaFormat::Yuv444, 10, false);
}

#[test]
fn gray_equals_ffmpeg() {
    check(&mut Rng(0x5CA1_E008), ChromaFormat::Mono, 8, true);
    check(&mut Rng(0x5CA1_E00A), ChromaFormat::Mono, 10, false);
}
