// Integer ADM decoupling (metrics/src/adm/decouple.rs), shared by the
// wavelet kernels, which decouple each detail sample as soon as they have
// made it for both images. Requires adm_common.glsl.

// 64-bit find-MSB from two 32-bit halves; v != 0.
int msb64(uint64_t v) {
    uvec2 p = unpackUint2x32(v);
    return p.y != 0u ? 32 + findMSB(p.y) : findMSB(p.x);
}

// `(float)m` (round to nearest, ties to even) divided by 4096, as an exact
// double: the rounding is done in integers, the scaling by a power of two
// is exact.
double f32_of_u64_by_4096(uint64_t m) {
    int sh = 0;
    if (m >= (uint64_t(1) << 24)) {
        sh = msb64(m) - 23;
        uint64_t q = m >> uint(sh);
        uint64_t rem = m & ((uint64_t(1) << uint(sh)) - 1ul);
        uint64_t half_q = uint64_t(1) << uint(sh - 1);
        if (rem > half_q || (rem == half_q && (q & 1ul) == 1ul)) {
            q += 1ul;
        }
        m = q;
    }
    // 2^(sh - 12) built from its exponent bits; |sh - 12| is far from limits.
    double scale = packDouble2x32(uvec2(0u, uint(1023 + sh - 12) << 20));
    precise double v = double(m) * scale;
    return v;
}

// The same for m < 2^32 in 32-bit integers, cheaper (level 0's values).
double f32_of_u32_by_4096(uint m) {
    int sh = 0;
    if (m >= (1u << 24)) {
        sh = findMSB(m) - 23;
        uint q = m >> uint(sh);
        uint rem = m & ((1u << uint(sh)) - 1u);
        uint half_q = 1u << uint(sh - 1);
        if (rem > half_q || (rem == half_q && (q & 1u) == 1u)) {
            q += 1u;
        }
        m = q;
    }
    double scale = packDouble2x32(uvec2(0u, uint(1023 + sh - 12) << 20));
    precise double v = double(m) * scale;
    return v;
}

// `(float)x / 4096` for an int64.
double f32_of_i64_by_4096(int64_t x) {
    double v = f32_of_u64_by_4096(uint64_t(x < 0 ? -x : x));
    return x < 0 ? -v : v;
}

// The angle test's last step: `dp >= 0 && dp^2 >= cos^2 * om * tm` in
// libvmaf's operation order.
bool angle_within(double dp, double om, double tm, double cos_sq) {
    precise double lhs = dp * dp;
    precise double rhs = (cos_sq * om) * tm;
    return dp >= 0.0lf && lhs >= rhs;
}

// decouple.rs `angle_flag`; `cos_sq` is cos^2(1 degree) as a float, widened.
bool angle_flag(int64_t oh, int64_t ov, int64_t th, int64_t tv, double cos_sq) {
    int64_t ot_dp = oh * th + ov * tv;
    int64_t o_mag_sq = oh * oh + ov * ov;
    int64_t t_mag_sq = th * th + tv * tv;
    double dp = f32_of_i64_by_4096(ot_dp);
    double om = f32_of_i64_by_4096(o_mag_sq);
    double tm = f32_of_i64_by_4096(t_mag_sq);
    return angle_within(dp, om, tm, cos_sq);
}

// `angle_flag` for int16 coefficients, in 32-bit integers. Each product is
// in (-2^30, 2^30], so the int32 dot product wraps only for the sum 2^31,
// to INT_MIN, which no true sum can be (it would need two products of
// -2^30); its wrapping absolute value is still 2^31 as a uint. Squared
// magnitudes are at most 2^31 and fit a uint.
bool angle_flag_s0(int oh, int ov, int th, int tv, double cos_sq) {
    int dot = oh * th + ov * tv;
    bool negative = dot < 0 && dot != int(0x80000000u);
    uint o_mag_sq = uint(oh * oh) + uint(ov * ov);
    uint t_mag_sq = uint(th * th) + uint(tv * tv);
    double dp = f32_of_u32_by_4096(uint(adm_wabs(dot)));
    double om = f32_of_u32_by_4096(o_mag_sq);
    double tm = f32_of_u32_by_4096(t_mag_sq);
    return !negative && angle_within(dp, om, tm, cos_sq);
}

// decouple.rs `div_lookup`: 2^30 / i truncated, signed; i != 0.
int div_lookup(int i) {
    int r = (1 << 30) / abs(i);
    return i < 0 ? -r : r;
}

// decouple.rs `gain_limited`. `o` and `t` stay 32-bit here: lavapipe
// (Mesa 22.3, LLVM 15) was seen to get `int64_t(o) > 0` wrong for negative
// int32 `o`, so every sign test is done on the 32-bit value.
int64_t gain_limited(int64_t rst, int64_t k, int o, int t, bool angle, double egl) {
    if (!angle || k == 0 || o == 0) {
        return rst;
    }
    precise double scaled = double(rst) * egl;
    double td = double(t);
    double v = o > 0 ? (scaled < td ? scaled : td) : (scaled > td ? scaled : td);
    return int64_t(v);  // truncation toward zero
}

// `gain_limited` for level 0, in 32 bits: with `k >= 0` the restored value
// has the sign of `o` (or is 0) and fits int16, so min(r * egl, t) for
// positive `o` and max(r * egl, t) for negative `o` lie between 0 and `t`
// and fit an int.
int gain_limited_s0(int rst, int k, int o, int t, bool angle, double egl) {
    if (!angle || k == 0 || o == 0) {
        return rst;
    }
    precise double scaled = double(rst) * egl;
    double td = double(t);
    double v = o > 0 ? (scaled < td ? scaled : td) : (scaled > td ? scaled : td);
    return int(v);  // truncation toward zero
}

// Level-0 restored part of one orientation (the additive part is t - r).
// Only the quotient needs 64 bits: |k * o| <= 2^30.
int restored_s0(int o, int t, bool angle, double egl) {
    int k = 32768;
    if (o != 0) {
        k = int((int64_t(div_lookup(o)) * int64_t(t) + 16384) >> 15);
    }
    k = clamp(k, 0, 32768);
    int rst = adm_wrap16((k * o + 16384) >> 15);
    return adm_wrap16(gain_limited_s0(rst, k, o, t, angle, egl));
}

// Levels 1-3 restored part of one orientation.
int restored_s123(int o, int t, bool angle, double egl) {
    int64_t ob = int64_t(o);
    int64_t tb = int64_t(t);
    int64_t k = 32768;
    if (o != 0) {
        uint absv = uint(o < 0 ? -o : o);
        uint msb = absv;
        uint shift = 0u;
        if (absv >= 32768u) {
            // get_best15_from32: keep the top 15 significant bits, rounded.
            shift = uint(findMSB(absv)) - 14u;
            msb = (absv + (1u << (shift - 1u))) >> shift;
        }
        int64_t sign = o < 0 ? int64_t(-1) : int64_t(1);
        int64_t round_k = int64_t(int(1u << (14u + shift)));
        k = (int64_t(div_lookup(int(msb))) * tb * sign + round_k) >> (15u + shift);
    }
    k = clamp(k, int64_t(0), int64_t(32768));
    int64_t rst = int64_t(int((k * ob + 16384) >> 15));
    return int(gain_limited(rst, k, o, t, angle, egl));
}
