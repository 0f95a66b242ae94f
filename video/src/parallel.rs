//! Copying big frames with several threads at once. One thread writes a
//! few GB/s; a 4K pair is 25 MB, and scoring 400 pairs a second means
//! 10 GB/s into staging memory. Copies are cut into pieces of [`PIECE`]
//! bytes shared among up to [`MAX_THREADS`] scoped threads; small copies
//! (under two pieces) stay on the calling thread, so SD frames pay nothing
//! for this.

/// Bytes one thread copies before the next piece starts: large enough that
/// the per-piece cost vanishes, small enough to spread a 4K plane widely.
const PIECE: usize = 1 << 21;

/// More threads than this stop helping: memory bandwidth is the limit.
const MAX_THREADS: usize = 8;

/// Copies each source slice into its destination (equal lengths), all of
/// them together, spread over threads.
pub(crate) fn copy_all(jobs: Vec<(&mut [u8], &[u8])>) {
    let pieces: Vec<_> = jobs
        .into_iter()
        .flat_map(|(dst, src)| {
            assert_eq!(dst.len(), src.len(), "copy between slices of unequal length");
            dst.chunks_mut(PIECE).zip(src.chunks(PIECE))
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(MAX_THREADS).min(pieces.len());
    if threads <= 1 {
        pieces.into_iter().for_each(|(dst, src)| dst.copy_from_slice(src));
        return;
    }
    let mut shares: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, piece) in pieces.into_iter().enumerate() {
        shares[i % threads].push(piece);
    }
    std::thread::scope(|s| {
        for share in shares {
            s.spawn(move || share.into_iter().for_each(|(dst, src)| dst.copy_from_slice(src)));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[test]
    fn copies_every_byte_of_every_job() {
        let a = pattern(3 * PIECE + 99);
        let b = pattern(1000);
        let c = pattern(PIECE);
        let mut out = vec![0u8; a.len() + b.len() + c.len()];
        let (da, rest) = out.split_at_mut(a.len());
        let (db, dc) = rest.split_at_mut(b.len());
        copy_all(vec![(da, &a[..]), (db, &b[..]), (dc, &c[..])]);
        assert_eq!(out, [a, b, c].concat());
    }
}
