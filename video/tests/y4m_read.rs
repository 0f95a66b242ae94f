//! Every supported y4m colour space read back from fixtures written here,
//! random access against sequential reading, and reading from pipes.

mod common;

use std::io::Cursor;
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use vqscope_video::y4m::{ChromaSiting, Y4mFile, Y4mStream};
use vqscope_video::{ChromaFormat, ColorMatrix, ColorRange, Frame, Rational, open_input};

/// (C tag, chroma, depth, subsampling) — subsampling written out by hand.
type Space = (&'static str, ChromaFormat, u32, Option<(u32, u32)>);

const SPACES: &[Space] = &[
    ("420jpeg", ChromaFormat::Yuv420, 8, Some((2, 2))),
    ("420mpeg2", ChromaFormat::Yuv420, 8, Some((2, 2))),
    ("420paldv", ChromaFormat::Yuv420, 8, Some((2, 2))),
    ("420", ChromaFormat::Yuv420, 8, Some((2, 2))),
    ("422", ChromaFormat::Yuv422, 8, Some((2, 1))),
    ("444", ChromaFormat::Yuv444, 8, Some((1, 1))),
    ("mono", ChromaFormat::Mono, 8, None),
    ("420p10", ChromaFormat::Yuv420, 10, Some((2, 2))),
    ("420p12", ChromaFormat::Yuv420, 12, Some((2, 2))),
    ("422p10", ChromaFormat::Yuv422, 10, Some((2, 1))),
    ("422p12", ChromaFormat::Yuv422, 12, Some((2, 1))),
    ("444p10", ChromaFormat::Yuv444, 10, Some((1, 1))),
    ("444p12", ChromaFormat::Yuv444, 12, Some((1, 1))),
];

fn check_frame(f: &Frame, dims: &[(u32, u32)], index: u32, depth: u32) {
    assert_eq!(f.index, u64::from(index));
    let want = frame_planes(dims, index, depth);
    let total: usize = want.iter().map(|p| p.len()).sum::<usize>() * if depth > 8 { 2 } else { 1 };
    assert_eq!(f.data.len(), total, "frame byte length");
    for (i, (p, &(w, h))) in want.iter().zip(dims).enumerate() {
        assert_eq!(f.geometry.plane_size(i), (w, h), "plane {i} size");
        assert_eq!(&f.plane_samples(i), p, "plane {i} samples of frame {index}");
    }
}

#[test]
fn every_colour_space_odd_size() {
    // 5x3: odd in both directions, so subsampled chroma must round up.
    for &(tag, chroma, depth, sub) in SPACES {
        let dims = plane_dims(5, 3, sub);
        let header = format!("YUV4MPEG2 W5 H3 F30000:1001 Ip A1:1 C{tag}");
        let path = write_temp(&format!("{tag}.y4m"), &y4m_bytes(&header, &dims, depth, 3, &bare));
        let mut y = Y4mFile::open(&path).unwrap();
        let h = y.header().clone();
        assert_eq!((h.width, h.height), (5, 3), "{tag}");
        assert_eq!(h.format.chroma, chroma, "{tag}");
        assert_eq!(h.format.bit_depth, depth, "{tag}");
        assert_eq!(h.frame_rate, Rational::new(30000, 1001));
        assert_eq!(y.frame_count(), 3, "{tag}");
        for i in 0..3 {
            let f = y.read_frame(i).unwrap();
            check_frame(&f, &dims, i as u32, depth);
        }
        // Same through the generic door.
        let mut s = open_input(&path, None).unwrap();
        assert_eq!(s.info().frame_count, Some(3));
        assert_eq!(s.info().geometry.format.chroma.plane_count(), dims.len());
        let f = s.next_frame().unwrap().unwrap();
        check_frame(&f, &dims, 0, depth);
    }
}

#[test]
fn siting_is_recorded() {
    let dims = plane_dims(4, 4, Some((2, 2)));
    for (tag, siting) in [
        ("420jpeg", ChromaSiting::Center),
        ("420mpeg2", ChromaSiting::Left),
        ("420paldv", ChromaSiting::PalDv),
    ] {
        let p = write_temp(
            "s.y4m",
            &y4m_bytes(&format!("YUV4MPEG2 W4 H4 F25:1 C{tag}"), &dims, 8, 1, &bare),
        );
        assert_eq!(Y4mFile::open(&p).unwrap().header().siting, siting);
    }
}

#[test]
fn colour_tags() {
    let dims = plane_dims(4, 2, Some((2, 2)));
    let cases = [
        ("", ColorMatrix::Bt709, ColorRange::Limited),
        (" XCOLORRANGE=FULL", ColorMatrix::Bt709, ColorRange::Full),
        (" XCOLORRANGE=LIMITED", ColorMatrix::Bt709, ColorRange::Limited),
        (" XCOLORRANGE=FULL XCOLORMATRIX=BT601", ColorMatrix::Bt601, ColorRange::Full),
        (" XCOLORMATRIX=bt2020nc", ColorMatrix::Bt2020, ColorRange::Limited),
    ];
    for (tags, m, r) in cases {
        let p = write_temp(
            "c.y4m",
            &y4m_bytes(&format!("YUV4MPEG2 W4 H2 F25:1 C420jpeg{tags}"), &dims, 8, 1, &bare),
        );
        let mut s = open_input(&p, None).unwrap();
        assert_eq!(s.info().color.matrix, m, "{tags}");
        assert_eq!(s.info().color.range, r, "{tags}");
        assert_eq!(s.next_frame().unwrap().unwrap().color.range, r);
    }
}

#[test]
fn alpha_plane_is_skipped() {
    // 444alpha: Y, Cb, Cr, A planes; we keep the first three.
    let dims4 = vec![(3, 2); 4];
    let p = write_temp("a.y4m", &y4m_bytes("YUV4MPEG2 W3 H2 F25:1 C444alpha", &dims4, 8, 2, &bare));
    let mut y = Y4mFile::open(&p).unwrap();
    assert_eq!(y.frame_count(), 2);
    let f = y.read_frame(1).unwrap();
    check_frame(&f, &dims4[..3], 1, 8);
}

#[test]
fn frame_parameters_and_random_access() {
    // FRAME lines with parameters on some frames: the fixed stride is wrong,
    // random access must still find every frame.
    let dims = plane_dims(6, 4, Some((2, 2)));
    let line = |i: u32| {
        if i % 3 == 1 { format!("FRAME Ip XTAG{i}=value") } else { "FRAME".into() }
    };
    let p =
        write_temp("params.y4m", &y4m_bytes("YUV4MPEG2 W6 H4 F25:1 C420p10", &dims, 10, 7, &line));
    let mut y = Y4mFile::open(&p).unwrap();
    assert_eq!(y.frame_count(), 7);
    for i in [6u32, 0, 4, 1, 5, 2, 3] {
        check_frame(&y.read_frame(i.into()).unwrap(), &dims, i, 10);
    }
}

#[test]
fn params_only_late_still_found() {
    // The first FRAME is bare and the size happens to divide evenly by the
    // bare stride only if parameters balance out; make a case where frame 2
    // carries a parameter and padding keeps the total a multiple.
    let dims = plane_dims(2, 2, None);
    let payload = 4u64;
    let stride = 6 + payload;
    // Frame line "FRAME" + 10 extra bytes (" XPAD=1234") shifts by 10 = stride.
    let line = |i: u32| {
        if i == 2 { "FRAME XPAD=1234".into() } else { "FRAME".into() }
    };
    let bytes = y4m_bytes("YUV4MPEG2 W2 H2 F25:1 Cmono", &dims, 8, 4, &line);
    let header_len = "YUV4MPEG2 W2 H2 F25:1 Cmono\n".len() as u64;
    assert_eq!((bytes.len() as u64 - header_len) % stride, 0);
    let p = write_temp("late.y4m", &bytes);
    let mut y = Y4mFile::open(&p).unwrap();
    // Reading frame 3 by stride lands inside data; the reader must notice.
    check_frame(&y.read_frame(3).unwrap(), &dims, 3, 8);
    assert_eq!(y.frame_count(), 4);
    check_frame(&y.read_frame(2).unwrap(), &dims, 2, 8);
}

#[test]
fn random_access_equals_sequential() {
    let dims = plane_dims(7, 5, Some((2, 1)));
    let p = write_temp("ra.y4m", &y4m_bytes("YUV4MPEG2 W7 H5 F25:1 C422p12", &dims, 12, 9, &bare));
    let mut seq = Vec::new();
    let mut s = open_input(&p, None).unwrap();
    while let Some(f) = s.next_frame().unwrap() {
        seq.push(f);
    }
    assert_eq!(seq.len(), 9);
    let mut r = open_input(&p, None).unwrap();
    for i in [8u64, 3, 0, 5, 5, 1, 7, 2, 6, 4] {
        assert_eq!(r.read_frame(i).unwrap(), seq[i as usize]);
    }
    // next_frame continues after the last random read.
    r.read_frame(2).unwrap();
    assert_eq!(r.next_frame().unwrap().unwrap(), seq[3]);
    assert!(r.read_frame(9).unwrap_err().to_string().contains("frame 9 does not exist"));
}

#[test]
fn stream_from_reader() {
    let dims = plane_dims(5, 3, Some((2, 2)));
    let bytes = y4m_bytes("YUV4MPEG2 W5 H3 F25:1 C420p10 XCOLORRANGE=FULL", &dims, 10, 4, &bare);
    let mut s = Y4mStream::new(Cursor::new(bytes), Path::new("-")).unwrap();
    assert_eq!(s.header().color.range, ColorRange::Full);
    for i in 0..4 {
        check_frame(&s.next_frame().unwrap().unwrap(), &dims, i, 10);
    }
    assert!(s.next_frame().unwrap().is_none());
}

#[test]
fn pipe_through_cat() {
    // A real pipe: `cat file |`, read through /dev/fd of the child's stdout
    // isn't portable, so hand the child's stdout to the stream reader.
    let dims = plane_dims(5, 3, Some((1, 1)));
    let bytes = y4m_bytes("YUV4MPEG2 W5 H3 F25:1 C444p10", &dims, 10, 5, &bare);
    let p = write_temp("pipe.y4m", &bytes);
    let mut child = Command::new("cat").arg(&p).stdout(Stdio::piped()).spawn().expect("cat");
    let out = child.stdout.take().unwrap();
    let mut s = Y4mStream::new(out, Path::new("-")).unwrap();
    let mut n = 0;
    while let Some(f) = s.next_frame().unwrap() {
        check_frame(&f, &dims, n, 10);
        n += 1;
    }
    assert_eq!(n, 5);
    assert!(child.wait().unwrap().success());
}

#[cfg(unix)]
#[test]
fn fifo_is_read_as_stream() {
    let dims = plane_dims(4, 2, Some((2, 2)));
    let bytes = y4m_bytes("YUV4MPEG2 W4 H2 F25:1 C420jpeg", &dims, 8, 3, &bare);
    let fifo = temp_path("fifo.y4m");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap().success();
    assert!(ok, "mkfifo");
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
    };
    let mut s = open_input(&fifo, None).unwrap();
    assert!(!s.info().seekable);
    assert_eq!(s.info().frame_count, None);
    check_frame(&s.read_frame(1).unwrap(), &dims, 1, 8); // skips frame 0
    let err = s.read_frame(0).unwrap_err().to_string();
    assert!(err.contains("cannot go back to frame 0"), "{err}");
    check_frame(&s.next_frame().unwrap().unwrap(), &dims, 2, 8);
    assert!(s.next_frame().unwrap().is_none());
    assert_eq!(s.info().frame_count, Some(3));
    writer.join().unwrap();
}

#[test]
fn info_text() {
    let dims = plane_dims(5, 3, Some((2, 2)));
    let p = write_temp(
        "info.y4m",
        &y4m_bytes("YUV4MPEG2 W5 H3 F30000:1001 C420p10", &dims, 10, 2, &bare),
    );
    let s = open_input(&p, None).unwrap();
    let text = s.info().to_string();
    for want in [
        "size:         5x3",
        "pixel format: yuv420p10le",
        "bit depth:    10",
        "frames:       2",
        "30000/1001 (29.970 fps)",
        "BT.709 limited range",
        "y4m C420p10",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}
