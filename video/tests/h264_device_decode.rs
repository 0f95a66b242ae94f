//! H.264 decoded on the device (Vulkan Video) against ffmpeg's software
//! decode, frame by frame: each output picture's FNV-1a 64 hash of its
//! cropped Y, U and V planes (in that order, rows tight) must equal the
//! hash of the same frame of `ffmpeg -i S -f rawvideo -pix_fmt yuv420p -`,
//! computed by `tests/data/bitstream/ffmpeg_frame_hashes.py` into `S.fnv64`
//! (see the README there). The expected values come from ffmpeg, never
//! from this decoder.
//!
//! Needs a device with H.264 video decode; on one without (lavapipe) it
//! fails, naming what is missing. `VQSCOPE_BITSTREAM_DATA` points at the
//! streams where the source tree is not at hand (the GPU machine), and
//! `VQSCOPE_DECODE_DUMP` names a folder to write each stream's decoded
//! frames into (`NAME.yuv`, yuv420p), to find where a mismatch starts.

use std::path::PathBuf;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_video::device_decode::decode_h264;

/// The committed streams with ffmpeg's hashes; every other `NAME.h264`
/// with a `NAME.fnv64` beside it in the data folder is decoded too.
const STREAMS: [&str; 5] = [
    "h264_high_854x480",
    "h264_high_1918x1078",
    "h264_high_pyramid_slices_640x360",
    "h264_main_cavlc_poc2_352x288",
    "h264_high_refs8_opengop_426x240",
];

/// The names of the streams in `dir` that have expected hashes.
fn streams(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".fnv64")?.to_string();
            dir.join(format!("{stem}.h264")).exists().then_some(stem)
        })
        .collect();
    names.sort();
    for name in STREAMS {
        assert!(names.iter().any(|n| n == name), "{name}.h264 or .fnv64 is missing");
    }
    names
}

fn data_dir() -> PathBuf {
    std::env::var_os("VQSCOPE_BITSTREAM_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream"))
}

/// FNV-1a, 64 bits, over the planes in order (as the hash script).
fn fnv1a64(planes: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in planes.iter().flat_map(|p| p.iter()) {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[test]
#[ignore = "needs a Vulkan Video H.264 decoder; run with --ignored on the GPU machine"]
fn h264_streams_match_ffmpeg_frame_by_frame() {
    let ctx = test_context();
    println!("device: {}", ctx.info().name);
    let mut failures = Vec::new();
    let dir = data_dir();
    for name in streams(&dir) {
        let name = name.as_str();
        let stream = std::fs::read(dir.join(format!("{name}.h264")))
            .unwrap_or_else(|e| panic!("{name}.h264: {e}"));
        let expected: Vec<u64> = std::fs::read_to_string(dir.join(format!("{name}.fnv64")))
            .unwrap_or_else(|e| panic!("{name}.fnv64: {e}"))
            .lines()
            .map(|l| u64::from_str_radix(l.trim(), 16).expect("a hex hash a line"))
            .collect();
        let mut got = Vec::new();
        let mut dump = Vec::new();
        let start = std::time::Instant::now();
        let result = decode_h264(&ctx, &stream, |picture| {
            let hash = fnv1a64(&[&picture.y, &picture.u, &picture.v]);
            let want = expected.get(picture.number as usize).copied();
            println!(
                "{name} frame {:3} {}x{}: {hash:016x} {}",
                picture.number,
                picture.width,
                picture.height,
                match want {
                    Some(w) if w == hash => "ok".to_string(),
                    Some(w) => format!("MISMATCH (ffmpeg {w:016x})"),
                    None => "EXTRA (ffmpeg has no such frame)".to_string(),
                }
            );
            got.push(hash);
            for plane in [&picture.y, &picture.u, &picture.v] {
                dump.extend_from_slice(plane);
            }
        });
        if let Some(dir) = std::env::var_os("VQSCOPE_DECODE_DUMP") {
            let path = PathBuf::from(dir).join(format!("{name}.yuv"));
            std::fs::write(&path, &dump).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        match result {
            Ok(count) => {
                let seconds = start.elapsed().as_secs_f64();
                println!(
                    "{name}: {count} pictures in {:.1} ms ({:.0} pictures/s, one at a time, \
                     each read back and hashed)",
                    seconds * 1e3,
                    count as f64 / seconds
                );
            }
            Err(e) => {
                println!("{name}: error: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
        let matching = got.iter().zip(&expected).filter(|(a, b)| a == b).count();
        println!("{name}: {matching} of {} frames equal ffmpeg's", expected.len());
        if got != expected {
            failures.push(format!(
                "{name}: {matching} of {} frames match ({} decoded)",
                expected.len(),
                got.len()
            ));
        }
        for message in ctx.validation_messages() {
            println!("validation: {message}");
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_no_validation_messages();
}
