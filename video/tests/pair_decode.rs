//! Pairing rules (libvmaf CLI semantics) and the read-ahead thread.

mod common;

use std::time::Duration;

use common::*;
use vqscope_video::{Decoder, Pair, PairOptions, open_input};

fn clip(
    name: &str,
    header: &str,
    dims: &[(u32, u32)],
    depth: u32,
    frames: u32,
) -> std::path::PathBuf {
    write_temp(name, &y4m_bytes(header, dims, depth, frames, &bare))
}

fn d420(w: u32, h: u32) -> Vec<(u32, u32)> {
    plane_dims(w, h, Some((2, 2)))
}

#[test]
fn mismatch_names_every_difference_in_one_line() {
    let a = clip("ref.y4m", "YUV4MPEG2 W8 H4 F25:1 C420jpeg", &d420(8, 4), 8, 1);
    let b =
        clip("dis.y4m", "YUV4MPEG2 W6 H4 F25:1 C422p10", &plane_dims(6, 4, Some((2, 1))), 10, 1);
    let err = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&b, None).unwrap(),
        PairOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(!err.contains('\n'));
    assert!(err.contains("ref.y4m (8x4 yuv420p)"), "{err}");
    assert!(err.contains("dis.y4m (6x4 yuv422p10le)"), "{err}");
    assert!(err.ends_with("differ in size, chroma format and bit depth"), "{err}");

    let c = clip("dis8.y4m", "YUV4MPEG2 W8 H4 F25:1 C420p10", &d420(8, 4), 10, 1);
    let err = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&c, None).unwrap(),
        PairOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.ends_with("differ in bit depth"), "{err}");
}

#[test]
fn unequal_lengths_score_the_shorter_with_a_warning() {
    let a = clip("long.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 5);
    let b = clip("short.y4m", "YUV4MPEG2 W4 H2 F25:1 C420mpeg2", &d420(4, 2), 8, 3);
    let mut p = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&b, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    assert_eq!(p.frame_count(), Some(3));
    assert_eq!(p.warnings().len(), 1);
    assert!(p.warnings()[0].contains("has 5 frames to score"), "{:?}", p.warnings());
    assert!(p.warnings()[0].contains("has 3: scoring the first 3"));
    let mut n = 0;
    while let Some(fp) = p.next_pair().unwrap() {
        assert_eq!(fp.index, n);
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn skips_and_count_like_libvmaf() {
    let a = clip("r.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 10);
    let b = clip("d.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 10);
    let opts = PairOptions { frame_skip_ref: 2, frame_skip_dist: 5, frame_cnt: Some(3) };
    let mut p =
        Pair::new(open_input(&a, None).unwrap(), open_input(&b, None).unwrap(), opts).unwrap();
    assert_eq!(p.frame_count(), Some(3));
    assert!(p.warnings().is_empty(), "frame_cnt caps: no warning");
    let mut got = Vec::new();
    while let Some(fp) = p.next_pair().unwrap() {
        got.push((fp.reference.index, fp.distorted.index));
        // Sample (0,0) of luma encodes the frame number (max - frame).
        assert_eq!(fp.reference.data[0], 255 - fp.reference.index as u8);
    }
    assert_eq!(got, vec![(2, 5), (3, 6), (4, 7)]);

    // Without frame_cnt: 8 ref frames left vs 5 dist frames → warning, 5.
    let opts = PairOptions { frame_cnt: None, ..opts };
    let p = Pair::new(open_input(&a, None).unwrap(), open_input(&b, None).unwrap(), opts).unwrap();
    assert_eq!(p.frame_count(), Some(5));
    assert_eq!(p.warnings().len(), 1);
}

#[test]
fn decoder_reads_ahead_and_seeks() {
    let a = clip("ra.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 20);
    let b = clip("rb.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 18);
    let p = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&b, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    let mut d = Decoder::spawn(p, 3).unwrap();
    assert_eq!(d.warnings().len(), 1);
    for i in 0..5 {
        let fp = d.recv().unwrap().unwrap();
        assert_eq!(fp.index, i);
    }
    d.seek(15);
    let idx: Vec<u64> = std::iter::from_fn(|| d.recv().unwrap()).map(|p| p.index).collect();
    assert_eq!(idx, vec![15, 16, 17]);
    assert!(d.is_finished());
    d.seek(1);
    assert_eq!(d.recv().unwrap().unwrap().index, 1);
    d.shutdown().unwrap();
}

#[test]
fn decoder_forwards_errors_and_stops_cleanly() {
    let mut bytes = y4m_bytes("YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 4, &bare);
    bytes.truncate(bytes.len() - 3);
    let a = clip("ok.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 4);
    // A file: the truncation is found at open, naming the frame.
    let cut = write_temp("bad.y4m", &bytes);
    let err = open_input(&cut, None).err().unwrap().to_string();
    assert!(err.contains("frame 3 is truncated"), "{err}");

    // Decoder over a pair; stop it while it is blocked on a full channel.
    let p = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&a, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    let d = Decoder::spawn(p, 1).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    drop(d); // must not hang

    // Error forwarding: a pair whose reference is a pipe cut short.
    let (fifo, feeder) = fifo_of(&cut, "cut.fifo");
    let p = Pair::new(
        open_input(&fifo, None).unwrap(),
        open_input(&a, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    let mut d = Decoder::spawn(p, 2).unwrap();
    let mut ok = 0;
    let err = loop {
        match d.recv() {
            Ok(Some(_)) => ok += 1,
            Ok(None) => panic!("no error"),
            Err(e) => break e.to_string(),
        }
    };
    assert_eq!(ok, 3);
    assert!(err.contains("cut.fifo: frame 3 is truncated"), "{err}");
    assert!(d.recv().unwrap().is_none());
    d.shutdown().unwrap();
    feeder.join().unwrap();
}

#[test]
fn several_workers_deliver_pairs_in_order_through_seeks() {
    let a = clip("wa.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 23);
    let b = clip("wb.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 23);
    let open = || {
        Pair::new(
            open_input(&a, None).unwrap(),
            open_input(&b, None).unwrap(),
            PairOptions { frame_skip_ref: 1, frame_skip_dist: 0, frame_cnt: None },
        )
        .unwrap()
    };
    let mut d = Decoder::spawn_workers(open(), 5, 3).unwrap();
    assert_eq!(d.worker_count(), 3);
    let all: Vec<_> = std::iter::from_fn(|| d.recv().unwrap()).collect();
    let idx: Vec<u64> = all.iter().map(|p| p.index).collect();
    assert_eq!(idx, (0..22).collect::<Vec<_>>());
    for p in &all {
        assert_eq!((p.reference.index, p.distorted.index), (p.index + 1, p.index));
    }
    assert_eq!(d.warnings().len(), 1, "{:?}", d.warnings());
    d.seek(20);
    let idx: Vec<u64> = std::iter::from_fn(|| d.recv().unwrap()).map(|p| p.index).collect();
    assert_eq!(idx, vec![20, 21]);
    // Seek while the workers are mid-stream: nothing read before it shows.
    d.seek(3);
    assert_eq!(d.recv().unwrap().unwrap().index, 3);
    d.seek(10);
    let idx: Vec<u64> = (0..5).map(|_| d.recv().unwrap().unwrap().index).collect();
    assert_eq!(idx, vec![10, 11, 12, 13, 14]);
    d.shutdown().unwrap();

    // Starting from a position set on the pair, as the player does.
    let mut p = open();
    p.seek(7);
    let mut d = Decoder::spawn_workers(p, 2, 4).unwrap();
    assert_eq!(d.recv().unwrap().unwrap().index, 7);
    assert_eq!(d.recv().unwrap().unwrap().index, 8);
}

#[test]
fn several_workers_report_a_read_error_at_its_place() {
    let frames = 10;
    let a = clip("ea.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, frames);
    let b = clip("eb.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, frames);
    let p = Pair::new(
        open_input(&a, None).unwrap(),
        open_input(&b, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    // The file shrinks after it was indexed: frames 6.. can no longer be read.
    let header = "YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".len() as u64;
    let frame = "FRAME\n".len() as u64 + 4 * 2 + 2 * 2;
    assert_eq!(std::fs::metadata(&a).unwrap().len(), header + u64::from(frames) * frame);
    std::fs::OpenOptions::new().write(true).open(&a).unwrap().set_len(header + 6 * frame).unwrap();
    let mut d = Decoder::spawn_workers(p, 4, 3).unwrap();
    let mut ok = Vec::new();
    let err = loop {
        match d.recv() {
            Ok(Some(p)) => ok.push(p.index),
            Ok(None) => panic!("no error"),
            Err(e) => break e.to_string(),
        }
    };
    assert_eq!(ok, (0..6).collect::<Vec<_>>());
    assert!(err.contains("ea.y4m") && err.contains("frame 6"), "{err}");
    assert!(d.recv().unwrap().is_none());
}

#[test]
fn pipes_get_one_worker() {
    let a = clip("pa.y4m", "YUV4MPEG2 W4 H2 F25:1 C420jpeg", &d420(4, 2), 8, 3);
    let (fifo, feeder) = fifo_of(&a, "one.fifo");
    let p = Pair::new(
        open_input(&fifo, None).unwrap(),
        open_input(&a, None).unwrap(),
        PairOptions::default(),
    )
    .unwrap();
    let mut d = Decoder::spawn_workers(p, 4, 3).unwrap();
    assert_eq!(d.worker_count(), 1);
    let idx: Vec<u64> = std::iter::from_fn(|| d.recv().unwrap()).map(|p| p.index).collect();
    assert_eq!(idx, vec![0, 1, 2]);
    feeder.join().unwrap();
}
