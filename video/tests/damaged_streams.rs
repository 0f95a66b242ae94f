//! Damaged H.264 and H.265 streams against the device-free checks that
//! `--decode auto` runs on every compressed input before it picks the
//! device ([`check_h264`], [`check_h265`]: parameter sets, slice headers,
//! reference marking, output order, seek points). Whatever the damage, the
//! answer is `Ok` or a one-line `Err`: never a panic (overflow checks are
//! on in tests, so arithmetic on garbage shows too).
//!
//! The damage is what a broken download or a bad cut does to a stream: a
//! bit flipped in the head of any NAL unit (where the headers are), a unit
//! lost, a unit repeated, two units swapped, the stream cut inside a unit.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use vqscope_video::bitstream::nal;
use vqscope_video::device_decode::{check_h264, check_h265};

/// Bytes of each unit whose bits are flipped one at a time: the NAL
/// header and the start of the slice header or parameter set.
const HEAD_BYTES: usize = 8;

fn read(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each NAL unit of `stream` as the range of its payload (after the start
/// code, trailing zeros left out).
fn unit_ranges(stream: &[u8]) -> Vec<std::ops::Range<usize>> {
    let base = stream.as_ptr() as usize;
    nal::complete_units(stream, true)
        .into_iter()
        .map(|u| {
            let start = u.as_ptr() as usize - base;
            start..start + u.len()
        })
        .collect()
}

/// `stream` damaged in every way listed in the module's doc, each with a
/// line saying how.
fn damaged(stream: &[u8]) -> Vec<(String, Vec<u8>)> {
    let units = unit_ranges(stream);
    let mut out = Vec::new();
    for (n, unit) in units.iter().enumerate() {
        for byte in unit.start..unit.end.min(unit.start + HEAD_BYTES) {
            for bit in 0..8 {
                let mut s = stream.to_vec();
                s[byte] ^= 0x80 >> bit;
                out.push((format!("unit {n}: byte {byte} bit {bit} flipped"), s));
            }
        }
        let without = [&stream[..unit.start], &stream[unit.end..]].concat();
        out.push((format!("unit {n} lost"), without));
        let again = [&stream[..unit.end], &[0, 0, 1], &stream[unit.clone()], &stream[unit.end..]];
        out.push((format!("unit {n} repeated"), again.concat()));
        if let Some(next) = units.get(n + 1) {
            let swapped = [
                &stream[..unit.start],
                &stream[next.clone()],
                &[0, 0, 1],
                &stream[unit.clone()],
                &stream[next.end..],
            ];
            out.push((format!("units {n} and {} swapped", n + 1), swapped.concat()));
        }
        let middle = unit.start + unit.len() / 2;
        out.push((format!("cut inside unit {n}"), stream[..middle].to_vec()));
    }
    out
}

/// Runs `check` on every damaged form of each stream; fails listing the
/// damage that made it panic. Both answers must come up, or the damage
/// never reached the checks.
fn never_panics<T, E: std::fmt::Display>(names: &[&str], check: impl Fn(&[u8]) -> Result<T, E>) {
    let mut panicked = Vec::new();
    for name in names {
        let stream = read(name);
        assert!(check(&stream).is_ok(), "{name} undamaged");
        let mut answers = [0usize; 2];
        for (how, s) in damaged(&stream) {
            match catch_unwind(AssertUnwindSafe(|| check(&s).map_err(|e| e.to_string()))) {
                Ok(Ok(_)) => answers[1] += 1,
                Ok(Err(message)) => {
                    assert!(!message.contains('\n'), "{name}, {how}: {message:?}");
                    answers[0] += 1;
                }
                Err(_) => panicked.push(format!("{name}, {how}")),
            }
        }
        assert!(answers[0] > 0 && answers[1] > 0, "{name}: {answers:?} (errors, oks)");
    }
    assert!(
        panicked.is_empty(),
        "{} panics, first: {:#?}",
        panicked.len(),
        &panicked[..panicked.len().min(10)]
    );
}

#[test]
fn damaged_h264_streams_give_errors_not_panics() {
    never_panics(
        &[
            "h264_high_854x480.h264",
            "h264_high_1918x1078.h264",
            "h264_high_cqm_jvt_320x240.h264",
            "h264_high_pyramid_slices_640x360.h264",
            "h264_high_refs8_opengop_426x240.h264",
            "h264_main_cavlc_poc2_352x288.h264",
            "h264_nal_hrd_352x288.h264",
        ],
        check_h264,
    );
}

#[test]
fn damaged_h265_streams_give_errors_not_panics() {
    never_panics(
        &[
            "hevc_main10_1918x1078.hevc",
            "hevc_main10_idr_radl_210x118.hevc",
            "hevc_main10_scaling_lists_160x160.hevc",
            "hevc_main_2sublayers_352x288.hevc",
            "hevc_main_cra_first_320x240.hevc",
            "hevc_main_opengop_pyramid_320x240.hevc",
            "hevc_main_scaling_list_file_320x240.hevc",
        ],
        check_h265,
    );
}
