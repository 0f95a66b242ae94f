// Shared by the float_vif kernels: libvmaf's mirror, the constants buffer
// and its layout, and the per-pixel statistic with libvmaf's polynomial
// log2. CPU twin: metrics/src/features/float_vif/{filter,stat}.rs; every
// float expression of the form a*b+-c is `precise` (an FMA changes the
// rounding), and float divisions are double divisions rounded to float
// (LIBVMAF-PORTING.md section 7).
//
// Requires before inclusion: `float consts[]` (the constants buffer the
// driver uploads, layout below).

// Constants buffer: the 9 log2 polynomial coefficients (highest power
// first), the statistic's eps, then each scale's filter taps. Built on the
// host from the twin's values, so every constant is the twin's float.
#define CONST_POLY 0u
#define CONST_EPS 9u
#define CONST_TAPS 10u

// Largest filter half-width: 69 taps at scale 0 for vif_kernelscale 4.
#define R_MAX 34u
#define TAPS_MAX 69u

// libvmaf's mirror of an index in [-r, n-1+r] onto [0, n): -i below,
// 2n-i-2 above (the edge sample is not repeated).
uint vif_mirror(int i, int n) {
    return uint(i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i));
}

// libvmaf's log2f_approx of four values at once: exponent plus a float
// Horner polynomial of the mantissa minus one. Zero gives -inf, negatives
// NaN. Four lanes of vector arithmetic are four independent chains, which
// the GPU overlaps; each lane rounds exactly as the scalar twin does.
vec4 log2_approx4(vec4 x) {
    // A NaN (0/0 when vif_sigma_nsq is 0) is decoded like a number, as
    // libvmaf does, with the bits of the x86 default NaN that libvmaf gets.
    uvec4 bits = mix(floatBitsToUint(x), uvec4(0xFFC00000u), isnan(x));
    precise vec4 base = vec4(ivec4((bits & 0x7F800000u) >> 23) - 127);
    precise vec4 t = uintBitsToFloat((bits & 0x007FFFFFu) | 0x3F800000u) - 1.0;
    precise vec4 poly = vec4(0.0);
    for (uint i = 0u; i < 9u; i++) {
        poly = poly * t + consts[CONST_POLY + i];
    }
    precise vec4 result = base + poly;
    result = mix(result, vec4(uintBitsToFloat(0xFF800000u)), equal(x, vec4(0.0)));
    return mix(result, vec4(uintBitsToFloat(0x7FC00000u)), lessThan(x, vec4(0.0)));
}

// Four pixels' (num, den) from their filtered means and second moments:
// twin `stat::pixel`, lane by lane. The twin's branches are selects here
// (`mix` with a boolean vector picks without arithmetic), taken in the
// twin's order; every division is a double division (rounded to float
// where the twin's is a float one), except sigma_nsq's where its
// reciprocal is exact (a product then gives the same bits). Four lanes
// rather than a loop over pixels: the statistic is one long chain of
// dependent steps (three divisions, two polynomials), and a pixel at a time
// left the GPU waiting on it (on the H100, 0.15 of scale 0's 0.55 ms at 4K).
void vif_pixel4(vec4 mu1, vec4 mu2, vec4 xx, vec4 yy, vec4 xy, float gain_limit,
                float sigma_max_inv, double sigma_nsq, double sigma_nsq_reciprocal,
                out vec4 num, out vec4 den) {
    float eps = consts[CONST_EPS];
    vec4 zero = vec4(0.0);
    precise vec4 mu1_sq = mu1 * mu1;
    precise vec4 mu2_sq = mu2 * mu2;
    precise vec4 mu1_mu2 = mu1 * mu2;
    precise vec4 sigma1_sq = xx - mu1_sq;
    precise vec4 sigma2_sq = yy - mu2_sq;
    precise vec4 sigma12 = xy - mu1_mu2;
    sigma1_sq = mix(zero, sigma1_sq, greaterThan(sigma1_sq, zero));
    sigma2_sq = mix(zero, sigma2_sq, greaterThan(sigma2_sq, zero));

    precise vec4 s1_eps = sigma1_sq + eps;
    vec4 g = vec4(dvec4(sigma12) / dvec4(s1_eps));
    precise vec4 sv_sq = sigma2_sq - g * sigma12;
    bvec4 flat_ref = lessThan(sigma1_sq, vec4(eps));
    g = mix(g, zero, flat_ref);
    sv_sq = mix(sv_sq, sigma2_sq, flat_ref);
    sigma1_sq = mix(sigma1_sq, zero, flat_ref);
    bvec4 flat_dis = lessThan(sigma2_sq, vec4(eps));
    g = mix(g, zero, flat_dis);
    sv_sq = mix(sv_sq, zero, flat_dis);
    bvec4 negative_gain = lessThan(g, zero);
    sv_sq = mix(sv_sq, sigma2_sq, negative_gain);
    g = mix(g, zero, negative_gain);
    sv_sq = mix(vec4(eps), sv_sq, greaterThan(sv_sq, vec4(eps)));
    g = mix(vec4(gain_limit), g, lessThan(g, vec4(gain_limit)));

    precise vec4 ggs = g * g * sigma1_sq;
    precise dvec4 gain_den = dvec4(sv_sq) + sigma_nsq;
    precise dvec4 num_arg = 1.0LF + dvec4(ggs) / gain_den;
    // sigma1_sq / sigma_nsq: where 1/sigma_nsq is a double (sigma_nsq a
    // power of two, as the default 2), the product is the same correctly
    // rounded quotient; the push constant is uniform, so is the branch.
    precise dvec4 den_quotient;
    if (sigma_nsq_reciprocal != 0.0LF) {
        den_quotient = dvec4(sigma1_sq) * sigma_nsq_reciprocal;
    } else {
        den_quotient = dvec4(sigma1_sq) / sigma_nsq;
    }
    precise dvec4 den_arg = 1.0LF + den_quotient;
    num = log2_approx4(vec4(num_arg));
    den = log2_approx4(vec4(den_arg));
    num = mix(num, zero, lessThan(sigma12, zero));
    bvec4 noise_only = lessThan(dvec4(sigma1_sq), dvec4(sigma_nsq));
    precise vec4 noise_num = 1.0 - sigma2_sq * sigma_max_inv;
    num = mix(num, noise_num, noise_only);
    den = mix(den, vec4(1.0), noise_only);
}
