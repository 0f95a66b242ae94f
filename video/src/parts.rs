//! Parts of one stream decoded at once, handed over in order. A stream's
//! closed GOPs (from one seek point to the next) decode independently, so
//! a device with several decode queues can decode several of them side by
//! side while the consumer reads the first: each worker thread takes every
//! `workers`-th part and keeps what it decoded ahead in a queue of its own,
//! which bounds the memory held. Nothing here touches the device: the
//! decoder is a function of a range of pictures, so a stand-in tests it.

use std::ops::{ControlFlow, Range};
use std::sync::mpsc::{Receiver, TrySendError, sync_channel};

use crate::device_decode::{Handover, Taken};

/// What a decode hands its pictures to (see [`Handover`]).
pub(crate) type Hand<'a, T> = dyn FnMut(T, Handover) -> Taken<T> + 'a;

/// A decode from a seek point, to split into parts.
pub(crate) struct PartsPlan<'a> {
    /// Where decodes can start (decoding positions; 0 among them).
    pub seek_points: &'a [u64],
    /// The seek point the decode starts at.
    pub from: u64,
    /// Pictures in the stream, in decoding order.
    pub end: u64,
    /// Frames the stream shows.
    pub shown: u64,
    /// Parts decoded at once, at most.
    pub workers: usize,
}

/// Decodes `plan` with `decode_range` (pictures from one seek point to a
/// later one or the end, handed to its `Hand` as a decode does) and hands
/// the frames to `take` in order: in one piece (one worker, or one part),
/// with `take` offered each frame as the decode offers it; else split at
/// the later seek points into parts decoded side by side
/// ([`decode_in_order`]), each worker keeping at most `ahead(workers)`
/// frames (and no more than a part shows), and `take` waited on from this
/// thread, which decodes nothing. A part ending at a seek point shows the
/// frames up to it (every earlier picture is shown before it); the last
/// shows the rest: a part that shows another count is a failure.
pub(crate) fn decode_from<T: Send>(
    plan: &PartsPlan<'_>,
    ahead: impl Fn(usize) -> usize,
    decode_range: impl Fn(Range<u64>, &mut Hand<'_, T>) -> Result<(), String> + Sync,
    take: &mut Hand<'_, T>,
) -> Result<(), String> {
    let parts = parts_from(plan.seek_points, plan.from, plan.end);
    let workers = plan.workers.min(parts.len());
    if workers < 2 {
        return decode_range(plan.from..plan.end, take);
    }
    let shown = |part: &Range<u64>| if part.end == plan.end { plan.shown } else { part.end };
    let longest = parts.iter().map(|p| shown(p).saturating_sub(p.start)).max().unwrap_or(0);
    let ahead = ahead(workers).min(longest as usize);
    let decode_part = |part: &Range<u64>, hand: &mut Hand<'_, T>| {
        let want = shown(part).saturating_sub(part.start);
        let (mut got, mut stopped) = (0, false);
        decode_range(part.clone(), &mut |item, how| {
            let flow = hand(item, how)?;
            got += 1;
            stopped |= flow.is_break();
            Ok(flow)
        })?;
        if !stopped && got != want {
            return Err(format!(
                "pictures {} to {} gave {got} frames, not {want}",
                part.start,
                part.end - 1
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
/// takes parts `w`, `w + workers`, …, one after the other; each keeps at
/// most `ahead` items not yet taken), and hands every part's items to
/// `take` in part order, until `take` breaks. `decode` gets the part and
/// the function to hand its items to, which breaks once nobody takes them
/// and gives an offered item back while its worker's queue is full.
///
/// Returns the first failure in part order, if `take` got that far.
/// Workers still decoding when `take` breaks or a failure comes stop at
/// their next hand-over; all have ended when this returns.
fn decode_in_order<T: Send>(
    parts: &[Range<u64>],
    workers: usize,
    ahead: usize,
    decode: impl Fn(&Range<u64>, &mut dyn FnMut(T, Handover) -> Taken<T>) -> Result<(), String> + Sync,
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
                for part in parts.iter().skip(first).step_by(workers) {
                    let mut closed = false;
                    let ended = decode(part, &mut |item, how| {
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

/// The parts a decode from `from` splits into at `seek_points` (which
/// start closed GOPs), up to `end`: `[from, next seek point)`, …, `[last
/// seek point, end)`.
fn parts_from(seek_points: &[u64], from: u64, end: u64) -> Vec<Range<u64>> {
    let mut starts: Vec<u64> =
        seek_points.iter().copied().filter(|&p| p > from && p < end).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut parts = Vec::with_capacity(starts.len() + 1);
    let mut start = from;
    for next in starts {
        parts.push(start..next);
        start = next;
    }
    if start < end {
        parts.push(start..end);
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
        let parts = parts_from(&[0, 7, 9, 30, 31, 50], 0, 64);
        assert_eq!(parts, [0..7, 7..9, 9..30, 30..31, 31..50, 50..64]);
        let given_back = AtomicUsize::new(0);
        for workers in [1, 2, 3, 6, 10] {
            for ahead in [0, 1, 4, 100] {
                let mut got = Vec::new();
                let outcome = decode_in_order(
                    &parts,
                    workers,
                    ahead,
                    |part, hand| {
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
        let parts = parts_from(&[0, 10, 20, 30], 5, 40);
        assert_eq!(parts, [5..10, 10..20, 20..30, 30..40]);
        let given_back = AtomicUsize::new(0);
        let decode = |part: &Range<u64>, hand: &mut dyn FnMut(u64, Handover) -> Taken<u64>| {
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
            &parts_from(&[0, 100, 200, 300], 0, 1_000_000),
            3,
            4,
            |part, hand| {
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

    /// A decode from a seek point through [`decode_from`], with a
    /// stand-in decoder that offers positions `range` as frames (the last
    /// part showing `shown - start`, as when pictures after the last seek
    /// point are not output) and can drop one frame of one part.
    fn decode_with_parts(
        plan: &PartsPlan<'_>,
        drop_in: Option<u64>,
    ) -> (Result<(), String>, Vec<u64>, Vec<Handover>) {
        let decode_range = |range: Range<u64>, hand: &mut Hand<'_, u64>| {
            let last = if range.end == plan.end { plan.shown } else { range.end };
            for i in range.start..last {
                if Some(i) == drop_in {
                    continue;
                }
                let flow = match hand(i, Handover::Offer) {
                    Ok(flow) => flow,
                    Err(back) => hand(back, Handover::Wait).expect("taken when waited for"),
                };
                if flow.is_break() {
                    break;
                }
            }
            Ok(())
        };
        let (mut got, mut how) = (Vec::new(), Vec::new());
        let outcome = decode_from(plan, |_| 2, decode_range, &mut |i, h| {
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
    /// failure naming it, after the frames before it.
    #[test]
    fn a_decode_from_a_seek_point_in_parts_or_in_one_piece() {
        let seek_points = [0, 10, 25];
        let plan = |from, workers| PartsPlan {
            seek_points: &seek_points,
            from,
            end: 40,
            shown: 38,
            workers,
        };
        for (from, workers) in [(0, 3), (10, 2), (0, 8), (0, 1), (25, 3)] {
            let (outcome, got, how) = decode_with_parts(&plan(from, workers), None);
            assert_eq!(outcome, Ok(()));
            assert_eq!(got, (from..38).collect::<Vec<_>>(), "from {from}, {workers} workers");
            let in_parts = workers > 1 && from < 25;
            let expected = if in_parts { Handover::Wait } else { Handover::Offer };
            assert!(how.iter().all(|&h| h == expected), "from {from}, {workers} workers");
        }
        let (outcome, got, _) = decode_with_parts(&plan(0, 3), Some(12));
        assert_eq!(outcome, Err("pictures 10 to 24 gave 14 frames, not 15".to_string()));
        // Every frame of the part comes before its end says it failed.
        assert_eq!(got, (0..12).chain(13..25).collect::<Vec<_>>());
    }

    /// From the first seek point, from a later one, and nothing from the
    /// end.
    #[test]
    fn parts_from_a_seek_point() {
        let one = |part: Range<u64>| vec![part];
        assert_eq!(parts_from(&[0], 0, 5), one(0..5));
        assert_eq!(parts_from(&[0, 3], 3, 5), one(3..5));
        assert_eq!(parts_from(&[0, 3, 5], 0, 5), [0..3, 3..5]);
        assert!(parts_from(&[0], 5, 5).is_empty());
    }
}
