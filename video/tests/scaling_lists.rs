//! Scaling lists of the committed x264 and x265 streams made with them
//! (`tests/data/bitstream/README.md`), against two oracles that owe nothing
//! to our parser:
//!
//! - the encoders' input files, committed beside the streams
//!   (`NAME.cqm` for x264's `cqmfile`, `NAME.scl` for x265's
//!   `scaling-list`): each matrix there is written row by row, so the
//!   list the stream must carry is that matrix read in the standard's scan
//!   (H.264's frame zig-zag, 8.5.6; H.265's up-right diagonal, 6.5.3), the
//!   order Vulkan Video's std structures take. The encoders code some of
//!   them by fall-back, as the default or as a copy of another list, so
//!   these checks cover the parser's derivation too;
//! - ffmpeg's own parser, `ffmpeg -loglevel trace -i S -c:v copy -bsf:v
//!   trace_headers -f null -`, run here: the present and
//!   `useDefaultScalingMatrixFlag` flags (H.264), which lists are predicted
//!   from which (H.265), and every coded list's entries as the running sum
//!   of its deltas.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use vqscope_video::bitstream::h264_stream::H264Stream;
use vqscope_video::bitstream::h265_stream::H265Stream;
use vqscope_video::device_decode::{check_h264, check_h265};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitstream").join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The matrices of an encoder's list file: `NAME =` then its numbers
/// (spaces or commas between), row by row.
fn matrix_file(name: &str) -> BTreeMap<String, Vec<u8>> {
    let text = std::fs::read_to_string(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut matrices = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some((key, _)) = line.split_once('=') {
            current = Some(key.trim().to_string());
            matrices.insert(key.trim().to_string(), Vec::new());
            continue;
        }
        let numbers = line.split([' ', ',']).filter(|s| !s.is_empty());
        if let Some(key) = &current {
            let values = matrices.get_mut(key).unwrap();
            values.extend(numbers.map(|n| n.parse::<u8>().expect("a number")));
        }
    }
    matrices
}

/// Positions `(x, y)` of an `n` x `n` block in frame zig-zag order
/// (H.264 Table 8-12 and 8-13): along anti-diagonals, downwards on odd
/// ones.
fn zig_zag(n: usize) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = (0..n * n).map(|i| (i % n, i / n)).collect();
    order.sort_by_key(|&(x, y)| (x + y, if (x + y) % 2 == 1 { y } else { x }));
    order
}

/// Positions `(x, y)` in up-right diagonal order (H.265 6.5.3): along
/// anti-diagonals, each from bottom left to top right.
fn up_right_diagonal(n: usize) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = (0..n * n).map(|i| (i % n, i / n)).collect();
    order.sort_by_key(|&(x, y)| (x + y, x));
    order
}

/// A row-by-row `matrix` read in `scan` order.
fn scanned(matrix: &[u8], scan: &[(usize, usize)]) -> Vec<u8> {
    let n = scan.len().isqrt();
    assert_eq!(matrix.len(), n * n);
    scan.iter().map(|&(x, y)| matrix[y * n + x]).collect()
}

/// The `trace_headers` lines of `name`: `(syntax element, value)`.
fn trace(name: &str) -> Vec<(String, i64)> {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "trace", "-i"])
        .arg(path(name))
        .args(["-c:v", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "ffmpeg failed on {name}");
    // "[trace_headers @ 0x...] 36 pic_scaling_list_present_flag[0] 1 = 1"
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("[trace_headers"))
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let value = words.last()?.parse().ok()?;
            (words.len() >= 7 && words[words.len() - 2] == "=")
                .then(|| (words[4].to_string(), value))
        })
        .collect()
}

/// The numbers in a syntax element's brackets: `name[1][2]` gives [1, 2].
fn indices(element: &str) -> Vec<usize> {
    element.split('[').skip(1).map(|s| s.trim_end_matches(']').parse().unwrap()).collect()
}

#[test]
fn h264_cqmfile_lists_are_the_encoders_in_zig_zag_order() {
    let data = read("h264_high_cqmfile_320x240.h264");
    let stream = H264Stream::parse(&data).unwrap();
    assert!(stream.sps[&0].scaling_lists.is_none(), "x264 writes its matrices in the PPS");
    let lists = stream.pps[&0].scaling_lists.as_ref().expect("PPS scaling matrices");
    let file = matrix_file("h264_high_cqmfile_320x240.cqm");
    let (z4, z8) = (zig_zag(4), zig_zag(8));
    // x264 takes one list for both chroma components.
    let names_4x4 = ["INTRA4X4_LUMA", "INTRA4X4_CHROMA", "INTRA4X4_CHROMA"].into_iter().chain([
        "INTER4X4_LUMA",
        "INTER4X4_CHROMA",
        "INTER4X4_CHROMA",
    ]);
    for (i, name) in names_4x4.enumerate() {
        assert_eq!(lists.list_4x4[i][..], scanned(&file[name], &z4)[..], "list {i}, {name}");
    }
    assert_eq!(lists.list_8x8[0][..], scanned(&file["INTRA8X8_LUMA"], &z8)[..]);
    assert_eq!(lists.list_8x8[1][..], scanned(&file["INTER8X8_LUMA"], &z8)[..]);
    // From trace_headers: pic_scaling_list_present_flag[i] 1 for i = 0, 1,
    // 3, 4 and 6 (2, 5 and 7 fall back to 1, 4 and Default_8x8_Inter);
    // list 4's delta_scale[0] -8 (the default, Default_4x4_Inter).
    assert_eq!((lists.present, lists.use_default), (0b101_1011, 0b1_0000));
    check_h264(&data).unwrap();
}

/// x264's `cqm=jvt` codes no list: each falls back (rule A) to the
/// defaults. x264 coded the cqm file's inter lists (Tables 7-3 and 7-4
/// written out, see the README) as the default or left them to fall back to
/// it, so they stand for Default_4x4_Inter and Default_8x8_Inter; the
/// intra defaults are Tables 7-3 and 7-4's values.
#[test]
fn h264_jvt_lists_fall_back_to_the_defaults() {
    let data = read("h264_high_cqm_jvt_320x240.h264");
    let stream = H264Stream::parse(&data).unwrap();
    let lists = stream.pps[&0].scaling_lists.as_ref().expect("pic_scaling_matrix_present_flag 1");
    assert_eq!((lists.present, lists.use_default), (0, 0));
    let file = matrix_file("h264_high_cqmfile_320x240.cqm");
    let inter_4x4 = scanned(&file["INTER4X4_CHROMA"], &zig_zag(4));
    let inter_8x8 = scanned(&file["INTER8X8_LUMA"], &zig_zag(8));
    let intra_4x4 = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42];
    for i in 0..3 {
        assert_eq!(lists.list_4x4[i], intra_4x4);
        assert_eq!(lists.list_4x4[i + 3][..], inter_4x4[..]);
    }
    assert_eq!(lists.list_8x8[0][..8], [6, 10, 10, 13, 11, 13, 16, 16]);
    assert_eq!(lists.list_8x8[0][56..], [36, 36, 38, 38, 38, 40, 40, 42]);
    assert_eq!(lists.list_8x8[1][..], inter_8x8[..]);
    check_h264(&data).unwrap();
}

/// The flags and coded lists of every PPS of the H.264 streams, against
/// ffmpeg's parser run now.
#[test]
fn h264_lists_match_trace_headers() {
    for name in ["h264_high_cqmfile_320x240.h264", "h264_high_cqm_jvt_320x240.h264"] {
        let data = read(name);
        let stream = H264Stream::parse(&data).unwrap();
        let lists = stream.pps[&0].scaling_lists.as_ref().unwrap();
        // Only the first PPS: the streams repeat the same one.
        let elements = trace(name);
        let start = elements.iter().position(|(e, _)| e == "pic_scaling_matrix_present_flag");
        let mut elements = elements[start.expect("a PPS with matrices") + 1..].iter().peekable();
        let (mut present, mut use_default) = (0u16, 0u16);
        while let Some((element, value)) = elements.next() {
            if !element.starts_with("pic_scaling_list_present_flag") {
                break;
            }
            let i = indices(element)[0];
            if *value == 0 {
                continue;
            }
            present |= 1 << i;
            let mut deltas = Vec::new();
            while let Some((e, v)) = elements.peek() {
                if !e.starts_with("delta_scale") {
                    break;
                }
                deltas.push(*v);
                elements.next();
            }
            // The running sum of the deltas (modulo 256) until it hits 0;
            // 0 first means the default list.
            let mut entries = Vec::new();
            let mut last = 8i64;
            for d in deltas {
                let next = (last + d).rem_euclid(256);
                if next == 0 {
                    break;
                }
                entries.push(next as u8);
                last = next;
            }
            if entries.is_empty() {
                use_default |= 1 << i;
                continue;
            }
            let list: &[u8] = if i < 6 { &lists.list_4x4[i] } else { &lists.list_8x8[i - 6] };
            assert_eq!(list[..entries.len()], entries[..], "{name}: list {i}");
            assert!(list[entries.len()..].iter().all(|&v| v == last as u8), "{name}: list {i}");
        }
        assert_eq!((lists.present, lists.use_default), (present, use_default), "{name}");
    }
}

#[test]
fn h265_file_lists_are_the_encoders_in_diagonal_order() {
    let data = read("hevc_main_scaling_list_file_320x240.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    let sps = &stream.sps[&0];
    assert!(sps.scaling_list_enabled);
    let lists = sps.scaling_lists.as_ref().expect("sps_scaling_list_data_present_flag 1");
    assert!(stream.pps.values().all(|p| p.scaling_lists.is_none()));
    let file = matrix_file("hevc_main_scaling_list_file_320x240.scl");
    let (d4, d8) = (up_right_diagonal(4), up_right_diagonal(8));
    let names = |size: &str| {
        ["INTRA", "INTER"]
            .into_iter()
            .flat_map(move |kind| {
                ["LUMA", "CHROMAU", "CHROMAV"].map(|c| format!("{kind}{size}_{c}"))
            })
            .collect::<Vec<_>>()
    };
    for (m, name) in names("4X4").iter().enumerate() {
        assert_eq!(lists.list_4x4[m][..], scanned(&file[name], &d4)[..], "{name}");
    }
    for (m, name) in names("8X8").iter().enumerate() {
        assert_eq!(lists.list_8x8[m][..], scanned(&file[name], &d8)[..], "{name}");
    }
    for (m, name) in names("16X16").iter().enumerate() {
        assert_eq!(lists.list_16x16[m][..], scanned(&file[name], &d8)[..], "{name}");
        assert_eq!(lists.dc_16x16[m], file[&format!("{name}_DC")][0], "{name}_DC");
    }
    // The two 32x32 lists: matrixId 0 and 3, intra and inter luma.
    for (i, name) in ["INTRA32X32_LUMA", "INTER32X32_LUMA"].into_iter().enumerate() {
        assert_eq!(lists.list_32x32[i][..], scanned(&file[name], &d8)[..], "{name}");
        assert_eq!(lists.dc_32x32[i], file[&format!("{name}_DC")][0], "{name}_DC");
    }
    check_h265(&data).unwrap();
}

/// The lists of the H.265 stream against ffmpeg's parser run now: coded
/// lists are the running sums of their deltas from the DC (or 8), DC
/// values `scaling_list_dc_coef_minus8 + 8`, and a list predicted from
/// `matrixId` minus its delta (in steps of 3 for 32x32) equals it.
#[test]
fn h265_lists_match_trace_headers() {
    let name = "hevc_main_scaling_list_file_320x240.hevc";
    let data = read(name);
    let stream = H265Stream::parse(&data).unwrap();
    let lists = stream.sps[&0].scaling_lists.as_ref().unwrap();
    let list = |size: usize, m: usize| -> (&[u8], Option<u8>) {
        match size {
            0 => (&lists.list_4x4[m], None),
            1 => (&lists.list_8x8[m], None),
            2 => (&lists.list_16x16[m], Some(lists.dc_16x16[m])),
            _ => (&lists.list_32x32[m / 3], Some(lists.dc_32x32[m / 3])),
        }
    };
    let elements = trace(name);
    let start = elements.iter().position(|(e, _)| e == "sps_scaling_list_data_present_flag");
    let (mut coded, mut predicted) = (0, 0);
    let mut next = 8i64;
    let mut current = None;
    for (element, value) in &elements[start.expect("an SPS with lists") + 1..] {
        let at = indices(element);
        if element.starts_with("scaling_list_pred_mode_flag") {
            current = (*value == 1).then_some((at[0], at[1]));
            next = 8;
        } else if element.starts_with("scaling_list_pred_matrix_id_delta") {
            let (size, m) = (at[0], at[1]);
            let reference = m - *value as usize * if size == 3 { 3 } else { 1 };
            if reference != m {
                assert_eq!(list(size, m), list(size, reference), "[{size}][{m}] from {reference}");
                predicted += 1;
            }
        } else if element.starts_with("scaling_list_dc_coef_minus8") {
            next = value + 8;
            let (size, m) = current.unwrap();
            assert_eq!(list(size, m).1, Some(next as u8), "DC of [{size}][{m}]");
        } else if element.starts_with("scaling_list_delta_coeff") {
            next = (next + value).rem_euclid(256);
            let (size, m) = current.unwrap();
            assert_eq!(at[..2], [size, m]);
            assert_eq!(list(size, m).0[at[2]], next as u8, "{element}");
            coded += 1;
        } else {
            break;
        }
    }
    // From trace_headers: 10 lists coded (3 of 16 entries, 7 of 64), 7
    // copied from another (3 more are defaults, delta 0).
    assert_eq!((coded, predicted), (3 * 16 + 7 * 64, 7));
}

/// x265's `scaling-list=default`: `scaling_list_enabled_flag` 1 with no
/// lists coded (trace_headers: `sps_scaling_list_data_present_flag` 0,
/// `pps_scaling_list_data_present_flag` 0), which means Tables 7-5 and 7-6;
/// the device session takes it now.
#[test]
fn h265_default_lists_are_taken_for_the_device() {
    let data = read("hevc_main10_scaling_lists_64x64.hevc");
    let stream = H265Stream::parse(&data).unwrap();
    let sps = &stream.sps[&0];
    assert!(sps.scaling_list_enabled && sps.scaling_lists.is_none());
    assert!(stream.pps.values().all(|p| p.scaling_lists.is_none()));
    let summary = check_h265(&data).unwrap();
    assert_eq!(summary.pictures, 2);
}
