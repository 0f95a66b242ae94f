// Shared pieces of the integer ADM kernels (adm_dwt0.comp, adm_dwt.comp,
// adm_cm.comp). CPU twin: metrics/src/adm/ (dwt.rs `mirror`, the band
// layout in gpu.rs).
//
// Band buffers: level s holds, for image 0 (reference) and 1 (distorted),
// the bands a, h, v, d (band index 0..3; h, v, d are libvmaf's theta 0..2),
// each `width * height` int32, packed row-major:
//   word ((image * 4 + band) * height + y) * width + x.
// Level 0 values are int16 in range (stored widened); levels 1-3 use int32.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

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
