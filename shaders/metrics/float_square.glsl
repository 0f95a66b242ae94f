// A sample (or sample difference) squared as libvmaf's float code squares
// it: `v` converted to float, multiplied by itself in float, so the square
// is rounded to 24 significant bits (exact below 4096, i.e. through 12
// bits). libvmaf's divisor by 2^(bpc-8) is a power of two and commutes with
// the rounding, so the rounded square is the integer returned here, below
// 2^32. `precise` keeps the driver from changing that rounding.
// Twin: metrics/src/features/float_moment/mod.rs `float_square`.
// Requires GL_EXT_shader_explicit_arithmetic_types_int64.

uint64_t float_square(uint v) {
    precise float f = float(v);
    precise float sq = f * f;
    return uint64_t(sq);
}
