// Shared pieces of the integer ADM kernels (adm_dwt0.comp, adm_dwt.comp,
// adm_cm.comp, adm_rows.comp). CPU twin: metrics/src/adm/ (dwt.rs `mirror`,
// the buffer layout in gpu.rs).
//
// Level buffers: level s holds word planes of the band size (`width *
// height` int32 words each, row-major; word (plane * height + y) * width + x):
//   level 0 (int16 values, two to a word: low half reference or r, high
//   half distorted or a):
//     plane 0: a band (reference | distorted << 16), the next level's input;
//     planes 1-3: r | a << 16 of h, v, d (written over the core only);
//     planes 4, 5: fr, fa (written over the core widened by one sample);
//   levels 1-3 (int32 values):
//     planes 0, 1: a band of the reference, of the distorted image;
//     planes 2-4: r of h, v, d; planes 5-7: a of h, v, d (core only);
//     planes 8, 9: fr, fa (core widened by one sample).
// r and a are the restored and additive parts of the distorted detail
// coefficients (decouple.rs); fr and fa are the wrapping int32 sums over
// h, v, d of the CSF `flt` of r and of a, which the masking thresholds of
// the eight neighbours add up.
//
// Row sums: int64 per (level, core row, field), fields num h/v/d, aim
// h/v/d, den h/v/d; kernels add into them with atomics (integer sums do not
// depend on the order), adm_rows.comp rounds each row like libvmaf.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

const uint ADM_FIELDS = 9u;

// libvmaf's DWT mirror (dwt.rs `mirror`): before the start the edge is not
// repeated (-1 -> 1), past the end it is (n -> n-1). Indices further out
// (only read for outputs that are never stored) are clamped into range.
int adm_mirror(int idx, int n) {
    int m = idx < 0 ? -idx : (idx >= n ? 2 * n - idx - 1 : idx);
    return clamp(m, 0, n - 1);
}

// C's `(int16_t)x`: keep the low 16 bits, sign-extended.
int adm_wrap16(int x) {
    return bitfieldExtract(x, 0, 16);
}

// Two int16 values in one word: `lo` in bits 0-15, `hi` in 16-31.
int adm_pack16(int lo, int hi) {
    return int(bitfieldInsert(uint(lo), uint(hi), 16, 16));
}

// The low (0) or high (1) int16 of a packed word, sign-extended.
int adm_unpack16(int word, uint half_index) {
    return bitfieldExtract(word, int(16u * half_index), 16);
}

// Rust `i32::wrapping_abs` (C `abs` on x86): INT_MIN stays INT_MIN.
int adm_wabs(int x) {
    return x < 0 ? -x : x;
}

// `(uint32_t)pow(2, shift - 1)` of libvmaf: half a unit, 0 for shift 0
// (cm.rs `half_unit`).
int64_t adm_half_unit(uint shift) {
    return shift == 0u ? int64_t(0) : (int64_t(1) << (shift - 1u));
}

uint64_t adm_half_unit_u(uint shift) {
    return shift == 0u ? uint64_t(0) : (uint64_t(1) << (shift - 1u));
}

// Low-pass and high-pass analysis taps (dwt.rs LO / HI).
const int ADM_LO[4] = int[4](15826, 27411, 7345, -4240);
const int ADM_HI[4] = int[4](-4240, -7345, 27411, -15826);
const int ADM_LO_SUM = 46342;

// ---- CSF (csf.rs) ------------------------------------------------------

int csf_dst_s0(int src, uint rf, int theta) {
    int shift = theta == 2 ? 17 : 15;
    int round_d = theta == 2 ? 65535 : 16384;
    return adm_wrap16((int(rf) * src + round_d) >> shift);
}

int csf_dst_s123(int src, uint rf) {
    return int((int64_t(uint64_t(rf)) * int64_t(src) + (int64_t(1) << 27)) >> 28);
}

int csf_flt_s0(int dst) {
    return adm_wrap16((4369 * abs(dst) + 2048) >> 12);
}

// The "half" is 1u << 31 stored in an int32: -2^31.
int csf_flt_s123(int dst) {
    return int((int64_t(143165577) * int64_t(adm_wabs(dst)) - (int64_t(1) << 31)) >> 32);
}
