// Shared by the float_ssim / float_ms_ssim shaders (twin: metrics/src/ssim.rs).

// IQA's KBND_SYMMETRIC border: one reflection with the edge sample repeated
// (-1 -> 0, n -> n-1), as ssim.rs `mirror`. Callers whose tiles reach past
// where any valid output reads clamp the result as well.
int ssim_mirror(int i, int n) {
    if (i < 0) {
        return -1 - i;
    }
    if (i >= n) {
        return 2 * n - i - 1;
    }
    return i;
}

// IQA's filters round each product to float and add it to a double sum.
// `double(p)` is a float-to-double conversion, which NVIDIA runs at a
// quarter of the double add's rate (16 a clock per SM against 64): with
// five filtered quantities, two passes and the 81-tap low-pass, those
// conversions, not the arithmetic, bounded the SSIM kernels. A float's
// bits move into a double with three integer operations instead when the
// exponent is not rebiased: `widened(p)` is p * 2^-896, exactly, for every
// finite float (normal floats get exponent fields 1..254, subnormals land
// on double subnormals, which the pipelines ask the driver to keep; see
// gpu/src/spirv.rs).
//
// A double sum of widened products is libvmaf's sum times 2^-896, bit for
// bit: every partial sum of floats in double is a multiple of 2^-149, so
// one below 2^-126 has under 24 significant bits and is exact in both
// scalings, and one above it is a normal double in both, where rounding
// depends on the significand only. `narrowed` undoes the scale (a product
// by a power of two, exact) and rounds to float as libvmaf's cast does.
double widened(float v) {
    uint bits = floatBitsToUint(v);
    uint hi = (bits & 0x80000000u) | ((bits >> 3) & 0x0FFFFFFFu);
    return packDouble2x32(uvec2(bits << 29, hi));
}

// `widened` for a float known to be +0.0 or positive, such as a filtered
// square (a square is never -0.0): the sign needs no masking.
double widened_nonnegative(float v) {
    uint bits = floatBitsToUint(v);
    return packDouble2x32(uvec2(bits << 29, bits >> 3));
}

float narrowed(double scaled_sum) {
    // 2^896: exponent field 896 + 1023.
    return float(scaled_sum * packDouble2x32(uvec2(0u, 0x77F00000u)));
}
