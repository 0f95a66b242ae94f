//! The fixed-point log2 VIF uses for its information terms.
//!
//! libvmaf does not call `log2` per pixel: it normalises the argument so its
//! top set bit lands on bit 15, looks the remaining 16-bit mantissa up in a
//! table of `round(log2f(i) · 2048)`, and adds `2048 · shift`. Every entry is
//! an integer, so the frame sums stay integers (order-independent, hence GPU
//! reductions match the CPU bit for bit).
//!
//! The table must come from the **single-precision** `log2f`: a double log2
//! rounds 38 entries differently (LIBVMAF-PORTING.md §1), because the float
//! result, scaled by 2048, sits within one float ulp of `.5` for 226 entries.
//! Rust's `f32::log2` calls the platform `log2f` (glibc on Linux), which for
//! this range gives the correctly rounded value, so we build the table on the
//! host and hand the GPU the same array.

use std::sync::OnceLock;

/// Number of entries: indices `0..=65535`; only `32768..=65535` are ever
/// looked up (libvmaf also fills 32767, and leaves the rest 0).
pub const LOG2_TABLE_LEN: usize = 65536;

/// First index libvmaf fills.
const FIRST: usize = 32767;

/// `round(log2f(i) · 2048)` for `i` in `32767..=65535`, zero below.
#[derive(Clone)]
pub struct Log2Table {
    entries: Box<[u16]>,
}

impl std::fmt::Debug for Log2Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log2Table").field("len", &self.entries.len()).finish()
    }
}

impl Log2Table {
    /// Builds the table exactly as libvmaf's `log_generate`: the float
    /// `log2f(i)` times 2048 (exact, a power of two), rounded half away from
    /// zero (C `round`, which `f32::round` also does).
    pub fn new() -> Self {
        let mut entries = vec![0u16; LOG2_TABLE_LEN].into_boxed_slice();
        for (i, e) in entries.iter_mut().enumerate().skip(FIRST) {
            *e = ((i as f32).log2() * 2048.0).round() as u16;
        }
        Self { entries }
    }

    /// The raw table, for uploading to the GPU.
    pub fn as_slice(&self) -> &[u16] {
        &self.entries
    }

    /// `log2(x) · 2048` for a 32-bit argument: keep the top 16 significant
    /// bits (shift right by `16 − clz(x)`), look them up, add `2048` per bit
    /// dropped. libvmaf only calls it with `x ≥ 2^18` (σ₁² ≥ 2·65536 plus
    /// 2·65536), where the shift is positive; below 2^15 the C shift would
    /// be negative (undefined), so we require `x ≥ 2^15`.
    #[inline]
    pub fn log2_32(&self, x: u32) -> i32 {
        debug_assert!(x >= 1 << 15, "log2_32 domain");
        let k = 16 - x.leading_zeros() as i32;
        i32::from(self.entries[(x >> k) as usize]) + 2048 * k
    }

    /// `log2(x) · 2048` for a 64-bit argument: the same with a shift of
    /// `48 − clz(x)`. libvmaf asserts `x ≥ 2^17`; all callers pass at least
    /// `2·65536`.
    #[inline]
    pub fn log2_64(&self, x: u64) -> i32 {
        debug_assert!(x >= 1 << 17, "log2_64 domain");
        let k = 48 - x.leading_zeros() as i32;
        i32::from(self.entries[(x >> k) as usize]) + 2048 * k
    }
}

impl Default for Log2Table {
    fn default() -> Self {
        Self::new()
    }
}

/// The process-wide table, built on first use (65536 `log2f` calls).
pub fn log2_table() -> &'static Log2Table {
    static TABLE: OnceLock<Log2Table> = OnceLock::new();
    TABLE.get_or_init(Log2Table::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries we can state without any log2 implementation: exact powers of
    /// two, and the last entry (log2(65535) = 16 − 2.2e-5, so ·2048 rounds to
    /// 32768).
    #[test]
    fn exact_points() {
        let t = log2_table();
        assert_eq!(t.as_slice()[32768], 15 * 2048);
        assert_eq!(t.as_slice()[65535], 16 * 2048);
        assert_eq!(t.as_slice()[0], 0);
        assert_eq!(t.as_slice()[32766], 0);
        // log2(32767)·2048 = 30720 − 0.09: rounds to 30720.
        assert_eq!(t.as_slice()[32767], 30720);
        // 3·2^14: log2 = 14 + log2(3) = 15.5849625; ·2048 = 31917.999 → 31918.
        assert_eq!(t.as_slice()[49152], 31918);
    }

    /// An independent derivation of every entry: log2 in double, rounded to
    /// the nearest float (a correctly rounded `log2f` for this range, since a
    /// double carries 29 spare bits), then scaled and rounded. LIBVMAF-PORTING
    /// states glibc's `log2f` agrees with the correctly rounded one here.
    #[test]
    fn matches_correctly_rounded_float_log2() {
        let t = log2_table();
        for i in 32767..65536usize {
            let cr = (i as f64).log2() as f32;
            let want = (f64::from(cr) * 2048.0).round() as u16;
            assert_eq!(t.as_slice()[i], want, "entry {i}");
        }
    }

    /// A double-precision table differs (the reason the float one is needed);
    /// if this ever stopped holding, the test above would not be telling the
    /// two apart.
    #[test]
    fn double_table_differs() {
        let t = log2_table();
        let diffs = (32767..65536usize)
            .filter(|&i| t.as_slice()[i] != ((i as f64).log2() * 2048.0).round() as u16)
            .count();
        assert_eq!(diffs, 38);
    }

    #[test]
    fn lookups() {
        let t = log2_table();
        // 2^18: shift 3, mantissa 32768 → 15·2048 + 3·2048 = 18·2048.
        assert_eq!(t.log2_32(1 << 18), 18 * 2048);
        assert_eq!(t.log2_64(1 << 17), 17 * 2048);
        assert_eq!(t.log2_64(1 << 40), 40 * 2048);
        // 3·2^20: mantissa 49152 (log2 ≈ 15.585), shift 6.
        assert_eq!(t.log2_32(3 << 20), 31918 + 6 * 2048);
        assert_eq!(t.log2_64(3 << 40), 31918 + 26 * 2048);
        // Low bits are dropped, not rounded: 2^18 + 7 still maps to 32768.
        assert_eq!(t.log2_32((1 << 18) + 7), 18 * 2048);
        // u32::MAX: clz 0, shift 16, mantissa 65535 → 16·2048 + 16·2048.
        assert_eq!(t.log2_32(u32::MAX), 32 * 2048);
    }
}
