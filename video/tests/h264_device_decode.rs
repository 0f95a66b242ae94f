//! H.264 and H.265 decoded on the device (Vulkan Video) against ffmpeg's
//! software decode, frame by frame: each output picture's FNV-1a 64 hash of
//! its cropped Y, U and V planes (in that order, rows tight; 16-bit
//! little-endian samples for 10-bit streams) must equal the hash of the same
//! frame of `ffmpeg -i S -f rawvideo -pix_fmt yuv420p -` (`yuv420p10le`),
//! computed by `tests/data/bitstream/ffmpeg_frame_hashes.py` into `S.fnv64`
//! (see the README there). The expected values come from ffmpeg, never
//! from this decoder.
//!
//! Needs a device with H.264 (H.265) video decode; on one without (lavapipe) it
//! fails, naming what is missing. `VQSCOPE_BITSTREAM_DATA` points at the
//! streams where the source tree is not at hand (the GPU machine), and
//! `VQSCOPE_DECODE_DUMP` names a folder to write each stream's decoded
//! frames into (`NAME.yuv`, yuv420p), to find where a mismatch starts.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use vqscope_gpu::testing::{assert_no_validation_messages, test_context};
use vqscope_video::device_decode::{
    DeviceDecodeError, DevicePlanes, SeekPoint, check_h264, check_h265, decode_h264,
    decode_h264_to_planes, decode_h265_to_planes, decode_h265_until,
};

/// The committed streams with ffmpeg's hashes; every other `NAME.h264`
/// with a `NAME.fnv64` beside it in the data folder is decoded too.
const STREAMS: [&str; 7] = [
    "h264_high_854x480",
    "h264_high_1918x1078",
    "h264_high_pyramid_slices_640x360",
    "h264_main_cavlc_poc2_352x288",
    "h264_high_refs8_opengop_426x240",
    // PPS scaling matrices: all by fall-back to the defaults, and coded ones.
    "h264_high_cqm_jvt_320x240",
    "h264_high_cqmfile_320x240",
];

/// The committed H.265 streams with ffmpeg's hashes: Main 10 with
/// cropping, Main 10 with closed GOPs whose IDR pictures have leading
/// pictures (seek points), two temporal sub-layers, an open-GOP B-pyramid
/// with two slices a picture (its CRA pictures seek points too: a decode
/// from one skips their RASL pictures), a stream that starts at a CRA (its
/// RASL pictures skipped), and scaling lists: the defaults (enabled, none coded)
/// and coded ones.
const HEVC_STREAMS: [&str; 7] = [
    "hevc_main10_1918x1078",
    "hevc_main10_idr_radl_242x146",
    "hevc_main_2sublayers_352x288",
    "hevc_main_opengop_pyramid_320x240",
    "hevc_main_cra_first_320x240",
    "hevc_main10_scaling_lists_160x160",
    "hevc_main_scaling_list_file_320x240",
];

/// Streams smaller than some decoders take (NVIDIA's Main 10 decoder
/// starts at 144x144): decoded where the device takes them, else refused
/// for their size, which is what the test then checks. The two above
/// cover the same ground at sizes every decoder we know takes.
const SMALL_STREAMS: [&str; 2] =
    ["hevc_main10_idr_radl_210x118", "hevc_main10_scaling_lists_64x64"];

/// Whether `error` is the device's refusal of one of [`SMALL_STREAMS`] for
/// its size: from the decode session (`… is outside the decoder's …`) or
/// from opening it as an input (`… this stream is coded at …`).
fn refused_for_size(name: &str, error: &str) -> bool {
    let size =
        error.contains("is outside the decoder's") || error.contains("this stream is coded at");
    let refused = SMALL_STREAMS.contains(&name) && size;
    if refused {
        println!("{name}: refused by this device for its size: {error}");
    }
    refused
}

/// The names of the streams `NAME.EXT` in `dir` that have expected
/// hashes; each of `committed` must be among them.
fn streams(dir: &std::path::Path, ext: &str, committed: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".fnv64")?.to_string();
            dir.join(format!("{stem}.{ext}")).exists().then_some(stem)
        })
        .collect();
    names.sort();
    for name in committed {
        assert!(names.iter().any(|n| n == name), "{name}.{ext} or .fnv64 is missing");
    }
    names
}

/// ffmpeg's hashes of stream `name`, one a frame.
fn expected_hashes(dir: &std::path::Path, name: &str) -> Vec<u64> {
    std::fs::read_to_string(dir.join(format!("{name}.fnv64")))
        .unwrap_or_else(|e| panic!("{name}.fnv64: {e}"))
        .lines()
        .map(|l| u64::from_str_radix(l.trim(), 16).expect("a hex hash a line"))
        .collect()
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

/// What a decode with the pictures kept on the device hands each picture to.
type Emit<'e> = &'e mut dyn FnMut(u64, Arc<DevicePlanes>) -> ControlFlow<()>;

/// The pictures kept on the device and split into planes there by `decode`
/// (a stream's `decode_*_to_planes` from a seek point): from the start, and
/// from each later seek point, the frames from there on numbered from its
/// first frame, each equal to ffmpeg's frame.
fn check_planes_on_device(
    name: &str,
    expected: &[u64],
    seek_points: &[SeekPoint],
    decode: impl Fn(SeekPoint, Emit<'_>) -> Result<u64, DeviceDecodeError>,
    failures: &mut Vec<String>,
) {
    assert_eq!(seek_points.first(), Some(&SeekPoint::START), "{name}");
    for &point in seek_points {
        let from = point.frame;
        let mut got = Vec::new();
        let start = std::time::Instant::now();
        let result = decode(point, &mut |number, planes| {
            assert_eq!(number, from + got.len() as u64, "{name}");
            got.push(fnv1a64(&[&planes.to_host().expect("download")]));
            ControlFlow::Continue(())
        });
        let want = &expected[from as usize..];
        let matching = got.iter().zip(want).filter(|(a, b)| a == b).count();
        println!(
            "{name}: planes on the device from frame {from}: {matching} of {} frames equal \
             ffmpeg's ({:.1} ms)",
            want.len(),
            start.elapsed().as_secs_f64() * 1e3
        );
        if result.is_err() || got != want {
            failures.push(format!(
                "{name} (planes on the device, from frame {from}): {result:?}, \
                 {matching} of {} frames match",
                want.len()
            ));
        }
    }
}

#[test]
#[ignore = "needs a Vulkan Video H.264 decoder; run with --ignored on the GPU machine"]
fn h264_streams_match_ffmpeg_frame_by_frame() {
    let ctx = test_context();
    println!("device: {}", ctx.info().name);
    let mut failures = Vec::new();
    let dir = data_dir();
    for name in streams(&dir, "h264", &STREAMS) {
        let name = name.as_str();
        let stream = std::fs::read(dir.join(format!("{name}.h264")))
            .unwrap_or_else(|e| panic!("{name}.h264: {e}"));
        let expected = expected_hashes(&dir, name);
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

        let seek_points = check_h264(&stream).unwrap().seek_points;
        let decode = |from, emit: Emit<'_>| decode_h264_to_planes(&ctx, &stream, from, emit);
        check_planes_on_device(name, &expected, &seek_points, decode, &mut failures);
        for message in ctx.validation_messages() {
            println!("validation: {message}");
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_no_validation_messages();
}

#[test]
#[ignore = "needs a Vulkan Video H.265 decoder; run with --ignored on the GPU machine"]
fn h265_streams_match_ffmpeg_frame_by_frame() {
    let ctx = test_context();
    println!("device: {}", ctx.info().name);
    let mut failures = Vec::new();
    let dir = data_dir();
    for name in streams(&dir, "hevc", &HEVC_STREAMS) {
        let name = name.as_str();
        let stream = std::fs::read(dir.join(format!("{name}.hevc")))
            .unwrap_or_else(|e| panic!("{name}.hevc: {e}"));
        let expected = expected_hashes(&dir, name);
        let mut got = Vec::new();
        let mut dump = Vec::new();
        let start = std::time::Instant::now();
        let result = decode_h265_until(&ctx, &stream, |picture| {
            let hash = fnv1a64(&[&picture.y, &picture.u, &picture.v]);
            let want = expected.get(picture.number as usize).copied();
            println!(
                "{name} frame {:3} {}x{} ({} bytes a sample): {hash:016x} {}",
                picture.number,
                picture.width,
                picture.height,
                picture.bytes_per_sample,
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
            std::ops::ControlFlow::Continue(())
        });
        if let Some(dir) = std::env::var_os("VQSCOPE_DECODE_DUMP") {
            let path = PathBuf::from(dir).join(format!("{name}.yuv"));
            std::fs::write(&path, &dump).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        if let Err(e) = &result
            && got.is_empty()
            && refused_for_size(name, &e.to_string())
        {
            continue;
        }
        match result {
            Ok(count) => println!(
                "{name}: {count} pictures in {:.1} ms",
                start.elapsed().as_secs_f64() * 1e3
            ),
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
        let seek_points = check_h265(&stream).unwrap().seek_points;
        let decode = |from, emit: Emit<'_>| decode_h265_to_planes(&ctx, &stream, from, emit);
        check_planes_on_device(name, &expected, &seek_points, decode, &mut failures);
        for message in ctx.validation_messages() {
            println!("validation: {message}");
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_no_validation_messages();
}

/// What the H.265 session cannot take is refused from the stream alone,
/// before any device work, on any device.
#[test]
fn h265_refusals_come_before_the_device() {
    let ctx = test_context();
    let stream = std::fs::read(data_dir().join("hevc_main422_64x64.hevc")).unwrap();
    let err = decode_h265_until(&ctx, &stream, |_| std::ops::ControlFlow::Continue(()))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "H.265 stream: device decode of H.265 other than 4:2:0 with one bit depth is not supported yet"
    );
    assert_no_validation_messages();
}

/// The NV12 and P010 to planes pass against its host twin (`crop`), on any
/// device: random pictures of random sizes, cropped by random amounts on
/// every side (even offsets, as 4:2:0 has them), so that display sizes are
/// odd as often as even. P010 words are random in all 16 bits: the pass
/// must drop the low 6 as the twin does.
#[test]
fn nv12_and_p010_pass_matches_the_host_crop() {
    use vqscope_gpu::{Submitter, download_buffer, upload_buffer};
    use vqscope_video::bitstream::Crop;
    use vqscope_video::device_decode::{Nv12ToPlanes, crop};

    let ctx = test_context();
    let pass = Nv12ToPlanes::new(&ctx).unwrap();
    let mut submitter = Submitter::new(&ctx, 1).unwrap();
    let mut seed = 0x1234_5678_u32;
    let mut next = |below: u32| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) % below
    };
    for case in 0..12 {
        let bytes_per_sample = 1 + case % 2;
        let (coded_w, coded_h) = (16 * (1 + next(6)), 16 * (1 + next(5)));
        let window = Crop { left: 2 * next(3), right: next(7), top: 2 * next(3), bottom: next(7) };
        let w = coded_w - window.left - window.right;
        let h = coded_h - window.top - window.bottom;
        let luma_bytes = (coded_w * coded_h * bytes_per_sample) as usize;
        let bytes: Vec<u8> = (0..luma_bytes * 3 / 2).map(|_| next(256) as u8).collect();
        let host = vqscope_gpu::Nv12Picture {
            width: coded_w,
            height: coded_h,
            bytes_per_sample,
            luma: bytes[..luma_bytes].to_vec(),
            chroma: bytes[luma_bytes..].to_vec(),
        };
        let want = crop(&host, &window, (w, h));
        let picture = upload_buffer(&ctx, &mut submitter, "nv12", &bytes).unwrap();
        let coded = ((coded_w, coded_h), bytes_per_sample);
        let mut planes = None;
        submitter
            .run(|rec| {
                planes = Some(pass.record(rec, &picture, coded, &window, (w, h))?);
                Ok(())
            })
            .unwrap();
        let planes = planes.unwrap();
        let got =
            download_buffer(&ctx, &mut submitter, &planes.buffer, planes.buffer.size()).unwrap();
        let plane = |i: usize| {
            let p = planes.planes[i];
            &got[p.offset as usize..(p.offset + p.width * p.height * p.bytes_per_sample) as usize]
        };
        let what = format!("{coded_w}x{coded_h} cropped to {w}x{h}, {bytes_per_sample} bytes");
        assert_eq!((planes.width, planes.height), (w, h), "{what}");
        assert_eq!(plane(0), &want.y[..], "{what}: Y");
        assert_eq!(plane(1), &want.u[..], "{what}: U");
        assert_eq!(plane(2), &want.v[..], "{what}: V");
        // The same planes as a frame's bytes, read back.
        let frame = [&want.y[..], &want.u[..], &want.v[..]].concat();
        assert_eq!(planes.to_host().unwrap(), frame, "{what}: read back");
    }
    assert_no_validation_messages();
}

/// The committed streams as inputs (`open_input` with `--decode gpu`):
/// every frame, in display order, must equal ffmpeg's, the frame count must
/// be known at open, a step back must decode again from the start, and an
/// input dropped part-way must stop its decode thread (no hang).
#[test]
#[ignore = "needs a Vulkan Video H.264 and H.265 decoder; run with --ignored on the GPU machine"]
fn device_inputs_read_as_ffmpeg_frames() {
    use vqscope_video::{DecodeChoice, DecodedBy, open_input, set_decode_choice};

    set_decode_choice(DecodeChoice::Gpu);
    let dir = data_dir();
    let mut failures = Vec::new();
    let h264 = streams(&dir, "h264", &STREAMS).into_iter().map(|name| (name, "h264"));
    let h265 = streams(&dir, "hevc", &HEVC_STREAMS).into_iter().map(|name| (name, "hevc"));
    for (name, ext) in h264.chain(h265) {
        let path = dir.join(format!("{name}.{ext}"));
        let expected = expected_hashes(&dir, &name);
        let mut source = match open_input(&path, None) {
            Ok(source) => source,
            Err(e) if refused_for_size(&name, &e.to_string()) => continue,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        assert!(matches!(source.decoded_by(), Some(DecodedBy::Device(_))), "{name}");
        assert_eq!(source.info().frame_count, Some(expected.len() as u64), "{name}");
        let mut got = Vec::new();
        loop {
            match source.next_frame() {
                Ok(Some(frame)) => {
                    assert_eq!(frame.index, got.len() as u64, "{name}");
                    got.push(fnv1a64(&[&frame.data]));
                }
                Ok(None) => break,
                Err(e) => {
                    failures.push(format!("{name}: frame {}: {e}", got.len()));
                    break;
                }
            }
        }
        println!("{name}: {} of {} frames read", got.len(), expected.len());
        if got != expected {
            failures.push(format!("{name}: frames differ from ffmpeg's"));
        }
        // Back a step, then forward past a skipped frame.
        if expected.len() >= 4 {
            let frame = source.read_frame(1).unwrap();
            assert_eq!(fnv1a64(&[&frame.data]), expected[1], "{name} frame 1 again");
            let frame = source.read_frame(3).unwrap();
            assert_eq!(fnv1a64(&[&frame.data]), expected[3], "{name} frame 3 after 1");
        }
        // A jump to the last frame (from a seek point on, where the stream
        // has a second one), then back one frame at a time over the last
        // sixteen: each read starts again at the last seek point at or before it.
        let last = expected.len() - 1;
        for index in std::iter::once(last).chain((last.saturating_sub(15)..last).rev()) {
            let frame = source.read_frame(index as u64).unwrap();
            assert_eq!(frame.index, index as u64, "{name}");
            assert_eq!(fnv1a64(&[&frame.data]), expected[index], "{name} frame {index} sought");
        }
        // Dropped with pictures still to come: the thread stops.
        drop(source);
    }
    set_decode_choice(DecodeChoice::default());
    assert!(failures.is_empty(), "{failures:#?}");
    assert_no_validation_messages();
}
