//! The host's half of SpEED (eigenvalues, solve, entropies: about a
//! millisecond a 1080p frame) on worker threads, several frames at once,
//! so that it keeps pace with the GPU instead of holding up the frame loop.
//! Values come back in frame order, from later [`HostQueue::push`] calls
//! or [`HostQueue::flush`] at the end (the pipeline takes late values, as
//! it does from the temporal features).

use std::collections::VecDeque;
use std::thread::JoinHandle;

use crate::features::FrameValues;

/// Frames whose host work is running, oldest first.
pub struct HostQueue {
    running: VecDeque<(u64, JoinHandle<Vec<f64>>)>,
    /// Frames at most in flight before `push` waits for the oldest.
    limit: usize,
}

impl Default for HostQueue {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self { running: VecDeque::new(), limit: cores.clamp(2, 8) }
    }
}

impl HostQueue {
    /// Starts frame `index`'s `work`; returns the values of the oldest
    /// frames that are done (all of them in order, waiting for the oldest
    /// while more than the limit run).
    pub fn push(
        &mut self,
        index: u64,
        work: impl FnOnce() -> Vec<f64> + Send + 'static,
    ) -> Vec<FrameValues> {
        self.running.push_back((index, std::thread::spawn(work)));
        let mut done = Vec::new();
        while let Some((_, oldest)) = self.running.front() {
            if self.running.len() <= self.limit && !oldest.is_finished() {
                break;
            }
            done.extend(self.take_oldest());
        }
        done
    }

    /// Values given without host work (frame 0 of `speed_temporal`), in
    /// their place among the running frames.
    pub fn ready(&mut self, index: u64, values: Vec<f64>) -> Vec<FrameValues> {
        self.push(index, move || values)
    }

    /// Every frame still running, in order.
    pub fn flush(&mut self) -> Vec<FrameValues> {
        let mut done = Vec::new();
        while !self.running.is_empty() {
            done.extend(self.take_oldest());
        }
        done
    }

    fn take_oldest(&mut self) -> Option<FrameValues> {
        let (index, thread) = self.running.pop_front()?;
        Some((index, thread.join().expect("a SpEED host thread panicked")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_in_frame_order_whatever_finishes_first() {
        let mut q = HostQueue { running: VecDeque::new(), limit: 3 };
        let mut got = Vec::new();
        for i in 0..10u64 {
            // Earlier frames take longer, so later ones finish first.
            let wait = std::time::Duration::from_millis(10 * (10 - i));
            got.extend(q.push(i, move || {
                std::thread::sleep(wait);
                vec![i as f64]
            }));
            assert!(q.running.len() <= 3);
        }
        got.extend(q.flush());
        assert!(q.running.is_empty());
        let want: Vec<FrameValues> = (0..10).map(|i| (i, vec![i as f64])).collect();
        assert_eq!(got, want);
    }
}
