// One scale of integer VIF: the separable filter of x, y, x², y², xy with
// libvmaf's per-pass rounding and mirror, the σ's, and each pixel's terms,
// summed into four int64 per workgroup (one 16-field partial record per
// workgroup, this scale's four fields at 4·FILTER_INDEX; the record's other
// fields belong to the other scales). Reduced by reduce.comp.
//
// Included by vif_scale0..3.comp.
//
// Twin: metrics/src/vif/stat.rs (scale_sums, sigmas, gain_terms,
// accumulate_pixel) and filter.rs (rounding by the plane's bpc: scale 0 reads
// the input planes with their own depth, later scales the 16-bit decimated
// planes with bpc = 16). Push constants: `VifScalePush` in
// metrics/src/vif/gpu.rs — the two must agree.
//
// Work split: a workgroup owns a TW × TH tile of output pixels. It loads the
// (TH + 2·HALF) × (TW + 2·HALF) mirrored input samples once into shared
// memory, runs the vertical pass for TH rows × (TW + 2·HALF) columns into
// shared memory (a mirrored column's vertical sums are those of the column it
// mirrors, so mirroring the loads is libvmaf's horizontal padding), then the
// horizontal pass and the statistics per output pixel.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

// FILTER_INDEX (0..3, defined by vif_scaleK.comp before including this
// file) picks FILTERS[k] and the record fields 4k..4k+3. A compile-time
// constant rather than a specialization constant, so the tap loops unroll
// into immediates before any driver sees them.
// Test hook: moves the hardware quotient this many ulps before the
// correction step, to prove the correction restores the exact one. 0 in use.
layout(constant_id = 1) const int DIV_PERTURB_ULPS = 0;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DistWords { uint dist_words[]; };
layout(set = 0, binding = 2, std430) readonly buffer Log2Table { uint16_t log2_table[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Partials { int64_t partials[]; };

#include "vif_common.glsl"

layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dist_plane;
    double egl;  // vif_enhn_gain_limit
};

const uint TW = 32u;
const uint TH = 16u;
const uint MAX_HALF = 8u;
const uint PITCH = TW + 2u * MAX_HALF;   // row pitch of the shared tiles
const uint FIELDS = 16u;                 // int64 per partial record (4 scales × 4)
const int SIGMA_NSQ = 65536 << 1;
// 65536 · 1e-10 as C folds it (one rounding of the double product).
const double G_EPS = 6.5536e-6LF;

// Input samples, reference | distorted << 16.
shared uint s_raw[(TH + 2u * MAX_HALF) * PITCH];
// Vertical pass: µ (reference | distorted << 16, each libvmaf's uint16) and
// the three squared sums (uint32).
shared uint s_mu[TH * PITCH];
shared uint s_xx[TH * PITCH];
shared uint s_yy[TH * PITCH];
shared uint s_xy[TH * PITCH];
shared int64_t s_red[256 * 4];

// (v + 2^(s-1)) >> s for s > 0; v for s = 0 (libvmaf's unshifted 8-bit squares).
uint64_t round_shift64(uint64_t v, uint s) {
    return s == 0u ? v : (v + (uint64_t(1) << (s - 1u))) >> s;
}

// Index of the highest set bit of a nonzero 64-bit value.
int msb64(uint64_t x) {
    uint hi = uint(x >> 32);
    return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
}

// libvmaf's log2_32 / log2_64 (Log2Table in metrics/src/vif/log2.rs): keep
// the top 16 significant bits, look them up, add 2048 per dropped bit.
int log2_32(uint x) {
    int k = findMSB(x) - 15;
    return int(log2_table[x >> uint(k)]) + 2048 * k;
}

int log2_64(uint64_t x) {
    int k = msb64(x) - 15;
    return int(log2_table[uint(x >> uint(k))]) + 2048 * k;
}

// ---- Correctly rounded double division -------------------------------
// Vulkan does not promise a correctly rounded fp64 divide. The hardware
// quotient q is checked against the exact remainder r = a − q·b (Dekker's
// exact product, no fma: lavapipe does not fuse fma(), NVIDIA does): q is
// the correctly rounded a/b iff r/b lies within half the gap to each
// neighbour of q. If not, one Newton step q + r/b brings q within an ulp and
// the neighbours are walked to the right one. Valid for the operands here:
// 0 < a < 2^31, 2^17 ≤ b < 2^31 (no overflow or underflow).

// Veltkamp split: a = hi + lo, each with at most 26 significant bits.
void split(double a, out double hi, out double lo) {
    precise double c = 134217729.0LF * a;
    precise double h = c - (c - a);
    hi = h;
    precise double l = a - h;
    lo = l;
}

// a − q·b, exact whenever q is within an ulp of a/b (the remainder is then a
// double), and of the right sign otherwise.
double remainder_of(double a, double b, double q) {
    precise double p = q * b;
    double qh, ql, bh, bl;
    split(q, qh, ql);
    split(b, bh, bl);
    precise double e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;  // q·b = p + e
    precise double r = (a - p) - e;
    return r;
}

double next_up(double x) { return uint64BitsToDouble(doubleBitsToUint64(x) + 1ul); }
double next_down(double x) { return uint64BitsToDouble(doubleBitsToUint64(x) - 1ul); }

// -1: a/b lies below q by more than half the gap to q's lower neighbour,
// +1: above q by more than half the gap to its upper one, 0: q is the
// correctly rounded quotient (no ties: an exact quotient of doubles is never
// a midpoint). The gaps are powers of two, so half of each times b is exact.
int rounding_error(double a, double b, double q) {
    double r = remainder_of(a, b, q);
    precise double up = (next_up(q) - q) * 0.5LF * b;
    precise double down = (q - next_down(q)) * 0.5LF * b;
    return r > up ? 1 : (-r > down ? -1 : 0);
}

double divide_exact(double a, double b) {
    double q = a / b;
    if (DIV_PERTURB_ULPS != 0) {
        q = uint64BitsToDouble(uint64_t(int64_t(doubleBitsToUint64(q)) + DIV_PERTURB_ULPS));
    }
    if (rounding_error(a, b, q) == 0) {
        return q;
    }
    precise double newton = q + remainder_of(a, b, q) / b;
    q = newton;
    for (int i = 0; i < 4; i++) {
        int e = rounding_error(a, b, q);
        if (e == 0) {
            break;
        }
        q = e > 0 ? next_up(q) : next_down(q);
    }
    return q;
}

// ---- Per-pixel statistics (stat.rs) -----------------------------------

// (µa·µb + 2^31) >> 32.
uint mu_product(uint a, uint b) {
    return uint((uint64_t(a) * uint64_t(b) + (uint64_t(1) << 31)) >> 32);
}

// gain_terms + accumulate_pixel: adds one pixel's terms to acc
// (num_log, den_log, num_non_log, den_non_log).
void accumulate_pixel(inout i64vec4 acc, int s1, int s2_raw, int s12) {
    int s2 = max(s2_raw, 0);
    if (s1 >= SIGMA_NSQ) {
        acc.y += int64_t(log2_32(uint(SIGMA_NSQ + s1)) - 2048 * 17);
        if (s12 > 0 && s2 > 0) {
            double d1 = double(s1);
            double d12 = double(s12);
            precise double den = d1 + G_EPS;
            double g = divide_exact(d12, den);
            precise double sv = double(s2) - g * d12;
            // (int32) truncation, then max(·, 0): sv < s2 < 2^31 since g·σ12 > 0,
            // and every sv ≤ 0 (including those below INT_MIN) gives 0.
            int sv_sq = sv > 0.0LF ? int(sv) : 0;
            g = min(g, egl);
            uint numer1 = uint(sv_sq) + uint(SIGMA_NSQ);
            precise double gg = g * g;
            precise double t = gg * d1;
            int64_t numer1_tmp = int64_t(t) + int64_t(numer1);
            acc.x += int64_t(log2_64(uint64_t(numer1_tmp)) - log2_64(uint64_t(numer1)));
        }
    } else {
        acc.z += int64_t(s2);
        acc.w += 1l;
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    int w = int(ref_plane.width);
    int h = int(ref_plane.height);
    int x0 = int(gl_WorkGroupID.x * TW);
    int y0 = int(gl_WorkGroupID.y * TH);
    const uint RW = TW + 2u * HALF;   // columns used
    const uint RH = TH + 2u * HALF;   // input rows used

    // 1. Mirrored input tile.
    for (uint i = lid; i < RH * RW; i += 256u) {
        uint ty = i / RW;
        uint tx = i % RW;
        int gx = vif_mirror(x0 + int(tx) - int(HALF), w);
        int gy = vif_mirror(y0 + int(ty) - int(HALF), h);
        s_raw[ty * PITCH + tx] = load_pair(ref_plane, dist_plane, gx, gy);
    }
    barrier();

    // 2. Vertical pass (filter.rs vertical_row): µ in uint32, then
    // (+2^(bpc-1)) >> bpc kept as uint16; squares as uint64 sums of
    // (c·x)·x, (+round) >> 2·(bpc−8) kept as uint32.
    uint bpc = ref_plane.bpc;
    uint mu_round = 1u << (bpc - 1u);
    uint sq_shift = 2u * (bpc - 8u);
    for (uint i = lid; i < TH * RW; i += 256u) {
        uint ty = i / RW;
        uint tx = i % RW;
        uint mu1 = 0u, mu2 = 0u;
        uint64_t xx = 0ul, yy = 0ul, xy = 0ul;
        [[unroll]] for (uint t = 0u; t < TAPS; t++) {
            uint c = VIF_FILTERS[FILTER_INDEX][t];
            uint s = s_raw[(ty + t) * PITCH + tx];
            uint x = s & 0xFFFFu;
            uint y = s >> 16;
            uint cx = c * x;
            uint cy = c * y;
            mu1 += cx;
            mu2 += cy;
            xx += uint64_t(cx) * x;
            yy += uint64_t(cy) * y;
            xy += uint64_t(cx) * y;
        }
        uint m1 = ((mu1 + mu_round) >> bpc) & 0xFFFFu;
        uint m2 = ((mu2 + mu_round) >> bpc) & 0xFFFFu;
        uint o = ty * PITCH + tx;
        s_mu[o] = m1 | (m2 << 16);
        s_xx[o] = uint(round_shift64(xx, sq_shift));
        s_yy[o] = uint(round_shift64(yy, sq_shift));
        s_xy[o] = uint(round_shift64(xy, sq_shift));
    }
    barrier();

    // 3. Horizontal pass (µ unshifted uint32; squares uint64, (+32768) >> 16)
    // and the statistics.
    i64vec4 acc = i64vec4(0);
    for (uint i = lid; i < TW * TH; i += 256u) {
        uint ty = i / TW;
        uint tx = i % TW;
        if (x0 + int(tx) >= w || y0 + int(ty) >= h) {
            continue;
        }
        uint mu1 = 0u, mu2 = 0u;
        uint64_t xx = 0ul, yy = 0ul, xy = 0ul;
        [[unroll]] for (uint t = 0u; t < TAPS; t++) {
            uint c = VIF_FILTERS[FILTER_INDEX][t];
            uint o = ty * PITCH + tx + t;
            uint m = s_mu[o];
            mu1 += c * (m & 0xFFFFu);
            mu2 += c * (m >> 16);
            xx += uint64_t(c) * s_xx[o];
            yy += uint64_t(c) * s_yy[o];
            xy += uint64_t(c) * s_xy[o];
        }
        uint hxx = uint((xx + 32768ul) >> 16);
        uint hyy = uint((yy + 32768ul) >> 16);
        uint hxy = uint((xy + 32768ul) >> 16);
        // σ = (int32)(uint32 square − uint32 µ·µ): libvmaf's wrapping cast.
        int s1 = int(hxx - mu_product(mu1, mu1));
        int s2 = int(hyy - mu_product(mu2, mu2));
        int s12 = int(hxy - mu_product(mu1, mu2));
        accumulate_pixel(acc, s1, s2, s12);
    }

    // 4. Workgroup sum (integer: any order gives the same total).
    s_red[lid * 4u + 0u] = acc.x;
    s_red[lid * 4u + 1u] = acc.y;
    s_red[lid * 4u + 2u] = acc.z;
    s_red[lid * 4u + 3u] = acc.w;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            for (uint f = 0u; f < 4u; f++) {
                s_red[lid * 4u + f] += s_red[(lid + half_size) * 4u + f];
            }
        }
        barrier();
    }
    if (lid < 4u) {
        uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
        partials[group * FIELDS + 4u * FILTER_INDEX + lid] = s_red[lid];
    }
}
