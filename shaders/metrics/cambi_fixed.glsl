// A non-negative c-value's float bits as an exact integer in units of 2^-24.
// Valid for 0 and for values of at least 0.5 (exponent field ≥ 126), which
// are all CAMBI's c-values can be (cambi_cvalues.comp).
// Requires GL_EXT_shader_explicit_arithmetic_types_int64.
uint64_t cambi_fixed(uint bits) {
    if (bits == 0u) {
        return 0ul;
    }
    uint mantissa = (bits & 0x7FFFFFu) | 0x800000u;
    return uint64_t(mantissa) << ((bits >> 23) - 126u);
}
