//! FNV-1a, 64-bit: a small, stable hash (the same in every build and Rust
//! version) for names of content that must change when the content does —
//! the shader set's hash, the pipeline cache's key and checksum. Not for
//! anything adversarial.

/// FNV-1a's starting value.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Folds `bytes` into `hash` (start from [`FNV_OFFSET`]).
pub fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Folds a whole word into `hash` in one step: FNV-1a's structure over
/// 32-bit symbols, four times fewer steps than its bytes (not FNV-1a's value).
pub fn fnv1a_word(hash: u64, word: u32) -> u64 {
    (hash ^ u64::from(word)).wrapping_mul(0x0100_0000_01b3)
}

#[cfg(test)]
mod tests {
    /// The published FNV-1a 64 test vectors.
    #[test]
    fn matches_the_reference_vectors() {
        assert_eq!(super::fnv1a(super::FNV_OFFSET, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(super::FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a(super::FNV_OFFSET, b"foobar"), 0x8594_4171_f739_67e8);
    }
}
