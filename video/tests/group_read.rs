//! A group (one reference, several distorted lanes) gives each lane exactly
//! what a pair of its own gives, and read-ahead inputs give exactly what the
//! inputs give.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use vqscope_video::read_ahead::Plan;
use vqscope_video::{FramePair, Group, Pair, PairOptions, ReadAhead, VideoSource, open_input};

const HEADER: &str = "YUV4MPEG2 W4 H2 F25:1 C420jpeg";

fn clip(name: &str, frames: u32) -> PathBuf {
    write_temp(name, &y4m_bytes(HEADER, &plane_dims(4, 2, Some((2, 2))), 8, frames, &bare))
}

/// Every pair a pair of its own reads, and its warnings at the end.
fn pairs_alone(
    reference: &Path,
    distorted: &Path,
    options: PairOptions,
) -> (Vec<FramePair>, Vec<String>) {
    let mut p = Pair::new(
        open_input(reference, None).unwrap(),
        open_input(distorted, None).unwrap(),
        options,
    )
    .unwrap();
    let pairs: Vec<FramePair> = std::iter::from_fn(|| p.next_pair().unwrap()).collect();
    (pairs, p.warnings().to_vec())
}

/// Reads `group` to its end: per lane, the pairs it was given.
fn read_lanes(group: &mut Group) -> Vec<Vec<FramePair>> {
    let mut lanes: Vec<Vec<FramePair>> = (0..group.lanes()).map(|_| Vec::new()).collect();
    while let Some(g) = group.next_group().unwrap() {
        for (k, d) in g.distorted.iter().enumerate() {
            if let Some(d) = d {
                let pair = FramePair {
                    index: g.index,
                    reference: g.reference.clone(),
                    distorted: d.clone(),
                };
                lanes[k].push(pair);
            }
        }
    }
    lanes
}

fn assert_same_pairs(got: &[FramePair], want: &[FramePair]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.index, w.index);
        assert_eq!((g.reference.index, g.distorted.index), (w.reference.index, w.distorted.index));
        assert_eq!(g.reference.data, w.reference.data);
        assert_eq!(g.distorted.data, w.distorted.data);
    }
}

#[test]
fn each_lane_reads_and_warns_as_a_pair_of_its_own() {
    let reference = clip("g-ref.y4m", 6);
    let lanes = [clip("g-6.y4m", 6), clip("g-3.y4m", 3), clip("g-8.y4m", 8), clip("g-5.y4m", 5)];
    for options in [
        PairOptions::default(),
        PairOptions { frame_skip_ref: 1, frame_skip_dist: 2, frame_cnt: None },
        PairOptions { frame_skip_ref: 0, frame_skip_dist: 0, frame_cnt: Some(4) },
    ] {
        for read_ahead in [false, true] {
            let open = |p: &Path| -> Box<dyn VideoSource> {
                let source = open_input(p, None).unwrap();
                if read_ahead {
                    Box::new(ReadAhead::new(source, Plan { workers: 3, depth: 4 }))
                } else {
                    source
                }
            };
            let mut group =
                Group::new(open(&reference), lanes.iter().map(|p| open(p)).collect(), options)
                    .unwrap();
            assert!(group.has_frames().unwrap());
            let got = read_lanes(&mut group);
            for (k, lane) in lanes.iter().enumerate() {
                let (want, warnings) = pairs_alone(&reference, lane, options);
                assert_same_pairs(&got[k], &want);
                assert_eq!(group.warnings(k), warnings, "lane {k}, {options:?}");
                assert_eq!(group.take_failure(k).map(|e| e.to_string()), None);
            }
        }
    }
}

#[test]
fn lanes_from_pipes_warn_when_they_end_as_pairs_do() {
    // Lengths unknown up front: the warnings come when each lane ends.
    let reference = clip("p-ref.y4m", 5);
    let short = clip("p-short.y4m", 2);
    let long = clip("p-long.y4m", 7);
    let (fifo_short, feed_short) = fifo_of(&short, "p-short.fifo");
    let (fifo_long, feed_long) = fifo_of(&long, "p-long.fifo");
    let mut group = Group::new(
        Box::new(ReadAhead::new(
            open_input(&reference, None).unwrap(),
            Plan { workers: 2, depth: 2 },
        )),
        vec![open_input(&fifo_short, None).unwrap(), open_input(&fifo_long, None).unwrap()],
        PairOptions::default(),
    )
    .unwrap();
    let got = read_lanes(&mut group);
    feed_short.join().unwrap();
    feed_long.join().unwrap();
    assert_eq!(got[0].len(), 2);
    assert_eq!(got[1].len(), 5);
    assert_eq!(group.warnings(0).len(), 1, "{:?}", group.warnings(0));
    assert!(group.warnings(0)[0].contains("p-short.fifo ended before reference"));
    assert!(group.warnings(0)[0].ends_with("scored 2 frames"), "{:?}", group.warnings(0));
    assert!(group.warnings(1)[0].contains("reference"), "{:?}", group.warnings(1));
    assert!(group.warnings(1)[0].ends_with("scored 5 frames"), "{:?}", group.warnings(1));
}

#[test]
fn a_lane_that_fails_to_read_ends_alone() {
    let reference = clip("f-ref.y4m", 5);
    let good = clip("f-good.y4m", 5);
    let mut bytes = std::fs::read(clip("f-cut-src.y4m", 5)).unwrap();
    bytes.truncate(bytes.len() - 20); // frame 3 is cut short
    let cut = write_temp("f-cut.y4m", &bytes);
    let (fifo, feeder) = fifo_of(&cut, "f-cut.fifo");
    let mut group = Group::new(
        open_input(&reference, None).unwrap(),
        vec![open_input(&fifo, None).unwrap(), open_input(&good, None).unwrap()],
        PairOptions::default(),
    )
    .unwrap();
    let mut failure = None;
    let mut counts = [0, 0];
    while let Some(g) = group.next_group().unwrap() {
        if let Some(e) = group.take_failure(0) {
            failure = Some((g.index, e.to_string()));
        }
        for (k, d) in g.distorted.iter().enumerate() {
            counts[k] += usize::from(d.is_some());
        }
    }
    feeder.join().unwrap();
    let (at, message) = failure.expect("lane 0 failed");
    assert_eq!(at, 3);
    assert!(message.contains("frame 3 is truncated"), "{message}");
    assert_eq!(counts, [3, 5]);
    assert!(group.take_failure(1).is_none());
}

#[test]
fn read_ahead_gives_the_inputs_frames_through_jumps() {
    let path = clip("ra.y4m", 17);
    let mut plain = open_input(&path, None).unwrap();
    let mut ahead = ReadAhead::new(open_input(&path, None).unwrap(), Plan { workers: 4, depth: 3 });
    assert_eq!(ahead.info().frame_count, Some(17));
    for index in [2, 3, 4, 5, 11, 12, 0, 1, 16] {
        let (a, b) = (plain.read_frame(index).unwrap(), ahead.read_frame(index).unwrap());
        assert_eq!((a.index, &a.data), (b.index, &b.data));
    }
    let err = ahead.read_frame(17).expect_err("past the end").to_string();
    assert!(err.contains("frame 17 does not exist"), "{err}");
    assert!(ahead.next_frame().unwrap().is_none());
}
