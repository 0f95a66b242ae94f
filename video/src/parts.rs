//! Parts of one stream decoded at once, handed over in order. A stream's
//! GOPs from one seek point to the next decode independently (one that
//! ends at a CRA picture runs on over its RASL pictures, which show before
//! it and predict from the GOP), so
//! a device with several decode queues can decode several of them side by
//! side while the consumer reads the first: each worker thread takes every
//! `workers`-th part and keeps what it decoded ahead in a queue of its own,
//! which bounds the memory held. Nothing here touches the device: the
//! decoder is a function of a range of pictures, so a stand-in tests it.

use std::ops::ControlFlow;
use std::sync::mpsc::{Receiver, TrySendError, sync_channel};

use crate::device_decode::{DecodeSpan, Handover, SeekPoint, Taken};

/// What a decode hands its pictures to (see [`Handover`]).
pub(crate) type Hand<'a, T> = dyn FnMut(T, Handover) -> Taken<T> + 'a;

/// A decode from a seek point, to split into parts.
pub(crate) struct PartsPlan<'a> {
    /// Where decodes can start, in order.
    pub seek_points: &'a [SeekPoint],
    /// The seek point the decode starts at.
    pub from: SeekPoint,
    /// Pictures in the stream, in decoding order.
    pub end: u64,
    /// Frames the stream shows.
    pub shown: u64,
    /// Parts decoded at once, at most.
    pub workers: usize,
}

impl PartsPlan<'_> {
    /// From seek point `start` to the stream's end, showing the rest of
    /// its frames.
    fn rest_from(&self, start: SeekPoint) -> DecodeSpan {
        DecodeSpan {
            pictures: start.picture..self.end,
            first_frame: start.frame,
            frames: self.shown.saturating_sub(start.frame),
        }
    }
}

/// Decodes `plan` with `decode_span` (a [`DecodeSpan`]: pictures from one
/// seek point to a later one or the end, their frames handed to its `Hand`
/// as a decode does) and hands the frames to `take` in order: in one piece
/// (one worker, or one part), with `take` offered each frame as the decode
/// offers it; else split at the later seek points into parts decoded side
/// by side ([`decode_in_order`]), each worker keeping at most
/// `ahead(workers)` frames (and no more than a part shows), and `take`
/// waited on from this thread, which decodes nothing. A part ending at a
/// seek point shows the frames before that seek point's first; the last
/// shows the rest: a part that shows another count is a failure.
///
/// `W` is what a decoder keeps from one span to the next (its session):
/// `own` for a decode in one piece, on this thread; for parts, each worker
/// starts one and keeps it over all its parts.
pub(crate) fn decode_from<T: Send, W: Default>(
    plan: &PartsPlan<'_>,
    own: &mut W,
    ahead: impl Fn(usize) -> usize,
    decode_span: impl Fn(&DecodeSpan, &mut W, &mut Hand<'_, T>) -> Result<(), String> + Sync,
    take: &mut Hand<'_, T>,
) -> Result<(), String> {
    let parts = parts_from(plan);
    let workers = plan.workers.min(parts.len());
    if workers < 2 {
        return decode_span(&plan.rest_from(plan.from), own, take);
    }
    let longest = parts.iter().map(|p| p.frames).max().unwrap_or(0);
    let ahead = ahead(workers).min(longest as usize);
    let decode_part = |part: &DecodeSpan, kept: &mut W, hand: &mut Hand<'_, T>| {
        let want = part.frames;
        let (mut got, mut stopped) = (0, false);
        decode_span(part, kept, &mut |item, how| {
            let flow = hand(item, how)?;
            got += 1;
            stopped |= flow.is_break();
            Ok(flow)
        })?;
        if !stopped && got != want {
            return Err(format!(
                "pictures {} to {} gave {got} frames, not {want}",
                part.pictures.start,
                part.pictures.end - 1
            ));
        }
        Ok(())
    };
    let forward = |item| take(item, Handover::Wait).unwrap_or(ControlFlow::Break(()));
    decode_in_order(&parts, workers, ahead, decode_part, forward)
}

/// What a worker hands over for a part: an item, or the part's end (or
/// why it failed; the worker stops there).
enum Handed<T> {
    Item(T),
    End(Result<(), String>),
}

/// Decodes each of `parts` with `decode` on `workers` threads (worker `w`
/// takes parts `w`, `w + workers`, …, one after the other, with one `W` of
/// its own for them all; each keeps at
/// most `ahead` items not yet taken), and hands every part's items to
/// `take` in part order, until `take` breaks. `decode` gets the part and
/// the function to hand its items to, which breaks once nobody takes them
/// and gives an offered item back while its worker's queue is full.
///
/// Returns the first failure in part order, if `take` got that far.
/// Workers still decoding when `take` breaks or a failure comes stop at
/// their next hand-over; all have ended when this returns.
fn decode_in_order<T: Send, P: Sync, W: Default>(
    parts: &[P],
    workers: usize,
    ahead: usize,
    decode: impl Fn(&P, &mut W, &mut dyn FnMut(T, Handover) -> Taken<T>) -> Result<(), String> + Sync,
    mut take: impl FnMut(T) -> ControlFlow<()>,
) -> Result<(), String> {
    let workers = workers.clamp(1, parts.len().max(1));
    std::thread::scope(|scope| {
        let mut queues: Vec<Receiver<Handed<T>>> = Vec::with_capacity(workers);
        for first in 0..workers {
            let (sender, queue) = sync_channel(ahead);
            queues.push(queue);
            let decode = &decode;
            scope.spawn(move || {
                let mut kept = W::default();
                for part in parts.iter().skip(first).step_by(workers) {
                    let mut closed = false;
                    let ended = decode(part, &mut kept, &mut |item, how| {
                        closed = match how {
                            Handover::Wait => sender.send(Handed::Item(item)).is_err(),
                            Handover::Offer => match sender.try_send(Handed::Item(item)) {
                                Ok(()) => false,
                                Err(TrySendError::Full(Handed::Item(item))) => return Err(item),
                                Err(_) => true,
                            },
                        };
                        Ok(if closed { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
                    });
                    let failed = ended.is_err();
                    if closed || sender.send(Handed::End(ended)).is_err() || failed {
                        return;
                    }
                }
            });
        }
        let outcome = take_in_order(&queues, parts.len(), &mut take);
        // Closed queues stop the workers at their next hand-over; the
        // scope waits for them.
        drop(queues);
        outcome
    })
}

/// The consumer's side of [`decode_in_order`]: part `k` comes from queue
/// `k % queues.len()`.
fn take_in_order<T>(
    queues: &[Receiver<Handed<T>>],
    parts: usize,
    take: &mut impl FnMut(T) -> ControlFlow<()>,
) -> Result<(), String> {
    for k in 0..parts {
        loop {
            match queues[k % queues.len()].recv() {
                Ok(Handed::Item(item)) => {
                    if take(item).is_break() {
                        return Ok(());
                    }
                }
                Ok(Handed::End(Ok(()))) => break,
                Ok(Handed::End(Err(e))) => return Err(e),
                Err(_) => return Err(format!("the decode of part {k} stopped without ending")),
            }
        }
    }
    Ok(())
}

/// The parts a decode from `plan.from` splits into at the later seek
/// points: from each seek point to the next
/// ([`DecodeSpan::between`]), and from the last to the end, which shows
/// the rest of the frames.
fn parts_from(plan: &PartsPlan<'_>) -> Vec<DecodeSpan> {
    let (from, end) = (plan.from, plan.end);
    let mut starts: Vec<SeekPoint> = plan
        .seek_points
        .iter()
        .copied()
        .filter(|p| p.picture > from.picture && p.picture < end)
        .collect();
    starts.sort_unstable_by_key(|p| p.picture);
    starts.dedup();
    let mut parts = Vec::with_capacity(starts.len() + 1);
    let mut start = from;
    for next in starts {
        parts.push(DecodeSpan::between(start, next));
        start = next;
    }
    if start.picture < end {
        parts.push(plan.rest_from(start));
    }
    parts
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// Offers `item`, then waits to hand it over if it was given back, as
    /// a decode does; counts in `given_back` the offers given back.
    fn handed_over(
        hand: &mut dyn FnMut(u64, Handover) -> Taken<u64>,
        item: u64,
        given_back: &AtomicUsize,
    ) -> ControlFlow<()> {
        match hand(item, Handover::Offer) {
            Ok(flow) => flow,
            Err(back) => {
                assert_eq!(back, item, "the offered item comes back");
                given_back.fetch_add(1, Ordering::Relaxed);
                hand(back, Handover::Wait).expect("a waiting hand-over takes the item")
            }
        }
    }

    /// Each part's numbers, decoded with a delay that makes later parts
    /// finish first, come out in order, whatever the workers and queues.
    #[test]
    fn items_come_in_part_order() {
        let parts = [0..7, 7..9, 9..30, 30..31, 31..50, 50..64u64];
        let given_back = AtomicUsize::new(0);
        for workers in [1, 2, 3, 6, 10] {
            for ahead in [0, 1, 4, 100] {
                let mut got = Vec::new();
                let outcome = decode_in_order(
                    &parts,
                    workers,
                    ahead,
                    |part, _: &mut (), hand| {
                        for i in part.clone() {
                            // Early parts are slow.
                            std::thread::sleep(Duration::from_micros(64 - part.start));
                            if handed_over(hand, i, &given_back).is_break() {
                                break;
                            }
                        }
                        Ok(())
                    },
                    |i| {
                        got.push(i);
                        ControlFlow::Continue(())
                    },
                );
                assert_eq!(outcome, Ok(()));
                assert_eq!(got, (0..64).collect::<Vec<_>>(), "{workers} workers, {ahead} ahead");
            }
        }
        // With queues of 0 or 1 and later parts waiting for the first, some
        // offers found their queue full.
        assert!(given_back.into_inner() > 0);
    }

    /// A failing part is reported when the consumer reaches it, after the
    /// parts before it; a consumer that stops early stops every worker.
    #[test]
    fn failures_come_in_order_and_an_early_stop_ends_the_workers() {
        let parts = [5..10, 10..20, 20..30, 30..40u64];
        let given_back = AtomicUsize::new(0);
        let decode = |part: &std::ops::Range<u64>, _: &mut (), hand: &mut Hand<'_, u64>| {
            for i in part.clone() {
                if i == 25 {
                    return Err(format!("picture {i} is damaged"));
                }
                if handed_over(hand, i, &given_back).is_break() {
                    break;
                }
            }
            Ok(())
        };
        let mut got = Vec::new();
        let outcome = decode_in_order(&parts, 3, 2, decode, |i| {
            got.push(i);
            ControlFlow::Continue(())
        });
        assert_eq!(outcome, Err("picture 25 is damaged".to_string()));
        assert_eq!(got, (5..25).collect::<Vec<_>>());

        let handed = AtomicUsize::new(0);
        let outcome = decode_in_order(
            &[0..100, 100..200, 200..300, 300..1_000_000u64],
            3,
            4,
            |part, _: &mut (), hand| {
                for i in part.clone() {
                    handed.fetch_add(1, Ordering::Relaxed);
                    if handed_over(hand, i, &given_back).is_break() {
                        break;
                    }
                }
                Ok(())
            },
            |i| if i < 3 { ControlFlow::Continue(()) } else { ControlFlow::Break(()) },
        );
        assert_eq!(outcome, Ok(()));
        // Each worker stopped within its queue's length of the stop.
        assert!(handed.into_inner() < 100 + 3 * 6, "workers ran on after the stop");
    }

    /// Each worker keeps one state over all its parts (a decoder keeps its
    /// session so): worker `w` decodes parts `w`, `w + workers`, … with
    /// the state the part before it left.
    #[test]
    fn a_worker_keeps_its_state_from_part_to_part() {
        let parts: Vec<u64> = (0..11).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        let outcome = decode_in_order(
            &parts,
            3,
            2,
            |&part, before: &mut Vec<u64>, hand| {
                seen.lock().unwrap().push((part, before.clone()));
                before.push(part);
                let _ = hand(part, Handover::Wait);
                Ok(())
            },
            |_| ControlFlow::Continue(()),
        );
        assert_eq!(outcome, Ok(()));
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        for (part, before) in seen {
            let expected: Vec<u64> = (part % 3..part).step_by(3).collect();
            assert_eq!(before, expected, "part {part}");
        }
    }

    /// IDR seek points: each picture shows as the frame of its own number.
    fn idr(pictures: &[u64]) -> Vec<SeekPoint> {
        pictures.iter().map(|&p| SeekPoint { frame: p, picture: p, leading_end: p }).collect()
    }

    /// A decode from a seek point through [`decode_from`], with a
    /// stand-in decoder that offers each span's frames (the last part
    /// showing `shown - first_frame`, as when pictures after the last seek
    /// point are not output) and can drop one frame of one part.
    fn decode_with_parts(
        plan: &PartsPlan<'_>,
        drop_in: Option<u64>,
    ) -> (Result<(), String>, Vec<u64>, Vec<Handover>) {
        let given_back = AtomicUsize::new(0);
        let decode_span = |span: &DecodeSpan, _: &mut (), hand: &mut Hand<'_, u64>| {
            for i in span.first_frame..span.first_frame + span.frames {
                if Some(i) == drop_in {
                    continue;
                }
                if handed_over(hand, i, &given_back).is_break() {
                    break;
                }
            }
            Ok(())
        };
        let (mut got, mut how) = (Vec::new(), Vec::new());
        let outcome = decode_from(plan, &mut (), |_| 2, decode_span, &mut |i, h| {
            got.push(i);
            how.push(h);
            Ok(ControlFlow::Continue(()))
        });
        (outcome, got, how)
    }

    /// In parts, the frames come in order, each once, and the reader is
    /// waited on (the decoding happens on the workers); in one piece (one
    /// worker, or from the last seek point), the reader is offered each
    /// frame by the decode itself. A part that shows a frame too few is a
    /// failure naming it, after the frames before it. The same with CRA
    /// seek points, whose skipped leading pictures show before them.
    #[test]
    fn a_decode_from_a_seek_point_in_parts_or_in_one_piece() {
        let cra = |frame, picture, leading_end| SeekPoint { frame, picture, leading_end };
        let closed = idr(&[0, 10, 25]);
        let open = [SeekPoint::START, cra(12, 10, 13), cra(27, 25, 28)];
        for seek_points in [&closed[..], &open[..]] {
            let plan = |from: usize, workers| PartsPlan {
                seek_points,
                from: seek_points[from],
                end: 40,
                shown: 38,
                workers,
            };
            for (from, workers) in [(0, 3), (1, 2), (0, 8), (0, 1), (2, 3)] {
                let (outcome, got, how) = decode_with_parts(&plan(from, workers), None);
                assert_eq!(outcome, Ok(()));
                let first = seek_points[from].frame;
                assert_eq!(got, (first..38).collect::<Vec<_>>(), "from {from}, {workers} workers");
                let in_parts = workers > 1 && from < 2;
                let expected = if in_parts { Handover::Wait } else { Handover::Offer };
                assert!(how.iter().all(|&h| h == expected), "from {from}, {workers} workers");
            }
        }
        let plan =
            PartsPlan { seek_points: &closed, from: closed[0], end: 40, shown: 38, workers: 3 };
        let (outcome, got, _) = decode_with_parts(&plan, Some(12));
        assert_eq!(outcome, Err("pictures 10 to 24 gave 14 frames, not 15".to_string()));
        // Every frame of the part comes before its end says it failed.
        assert_eq!(got, (0..12).chain(13..25).collect::<Vec<_>>());
    }

    /// From the first seek point, from a later one, and nothing from the
    /// end; a part ending at a CRA seek point runs over its skipped leading
    /// pictures and shows the frames before the CRA picture's.
    #[test]
    fn parts_from_a_seek_point() {
        let parts = |seek_points: &[SeekPoint], from: usize, end, shown| {
            let from = seek_points[from];
            parts_from(&PartsPlan { seek_points, from, end, shown, workers: 2 })
        };
        let span = |pictures, first_frame, frames| DecodeSpan { pictures, first_frame, frames };
        assert_eq!(parts(&idr(&[0]), 0, 5, 5), [span(0..5, 0, 5)]);
        assert_eq!(parts(&idr(&[0, 3]), 1, 5, 5), [span(3..5, 3, 2)]);
        assert_eq!(parts(&idr(&[0, 3, 5]), 0, 5, 5), [span(0..3, 0, 3), span(3..5, 3, 2)]);
        assert!(parts(&idr(&[0, 5]), 1, 5, 5).is_empty());
        // A CRA picture at 8 with RASL pictures at 9 and 10, shown before it.
        let open = [SeekPoint::START, SeekPoint { frame: 10, picture: 8, leading_end: 11 }];
        assert_eq!(parts(&open, 0, 20, 19), [span(0..11, 0, 10), span(8..20, 10, 9)]);
    }
}
