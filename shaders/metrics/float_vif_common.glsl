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

// libvmaf's log2f_approx: exponent plus a float Horner polynomial of the
// mantissa minus one. Zero gives -inf, negatives NaN.
float log2_approx(float x) {
    if (x == 0.0) {
        return uintBitsToFloat(0xFF800000u);
    }
    if (x < 0.0) {
        return uintBitsToFloat(0x7FC00000u);
    }
    // A NaN (0/0 when vif_sigma_nsq is 0) is decoded like a number, as
    // libvmaf does, with the bits of the x86 default NaN that libvmaf gets.
    uint bits = isnan(x) ? 0xFFC00000u : floatBitsToUint(x);
    precise float base = float(int((bits & 0x7F800000u) >> 23) - 127);
    precise float t = uintBitsToFloat((bits & 0x007FFFFFu) | 0x3F800000u) - 1.0;
    precise float poly = 0.0;
    for (uint i = 0u; i < 9u; i++) {
        poly = poly * t + consts[CONST_POLY + i];
    }
    precise float result = base + poly;
    return result;
}

// One pixel's (num, den) from its filtered means and second moments:
// twin `stat::pixel`.
vec2 vif_pixel(float mu1, float mu2, float xx, float yy, float xy, float gain_limit,
               float sigma_max_inv, double sigma_nsq) {
    float eps = consts[CONST_EPS];
    precise float mu1_sq = mu1 * mu1;
    precise float mu2_sq = mu2 * mu2;
    precise float mu1_mu2 = mu1 * mu2;
    precise float sigma1_sq = xx - mu1_sq;
    precise float sigma2_sq = yy - mu2_sq;
    precise float sigma12 = xy - mu1_mu2;
    sigma1_sq = sigma1_sq > 0.0 ? sigma1_sq : 0.0;
    sigma2_sq = sigma2_sq > 0.0 ? sigma2_sq : 0.0;

    precise float s1_eps = sigma1_sq + eps;
    float g = float(double(sigma12) / double(s1_eps));
    precise float sv_sq = sigma2_sq - g * sigma12;
    if (sigma1_sq < eps) {
        g = 0.0;
        sv_sq = sigma2_sq;
        sigma1_sq = 0.0;
    }
    if (sigma2_sq < eps) {
        g = 0.0;
        sv_sq = 0.0;
    }
    if (g < 0.0) {
        sv_sq = sigma2_sq;
        g = 0.0;
    }
    sv_sq = sv_sq > eps ? sv_sq : eps;
    g = g < gain_limit ? g : gain_limit;

    precise float ggs = g * g * sigma1_sq;
    precise double gain_den = double(sv_sq) + sigma_nsq;
    precise double num_arg = 1.0LF + double(ggs) / gain_den;
    precise double den_arg = 1.0LF + double(sigma1_sq) / sigma_nsq;
    float num = log2_approx(float(num_arg));
    float den = log2_approx(float(den_arg));
    if (sigma12 < 0.0) {
        num = 0.0;
    }
    if (double(sigma1_sq) < sigma_nsq) {
        precise float noise_only = 1.0 - sigma2_sq * sigma_max_inv;
        num = noise_only;
        den = 1.0;
    }
    return vec2(num, den);
}
