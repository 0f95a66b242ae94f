#version 460
// SpEED, pass 5 of 5: the covariance sums Σ (x − mx)(y − my) of each plane's
// 325 pairs of block offsets (x, y ≤ x) over their windows, one workgroup per
// pair and plane, in the order of libvmaf's AVX-512 kernel: per row, steps of
// 16 samples into two 8-lane double accumulators with fused multiply-adds
// (invocation l holds lane l of the first for l < 8, lane l − 8 of the second
// otherwise), then one step of 8 into the first, then the scalar tail (the
// product rounded, then added) into its own sum; at the end the accumulators
// are added lane by lane and reduced 8 → 4 → 2 → 1, and the tail added. Each
// sum's double bits go into one result word; the host divides by the area.
// CPU twin: metrics/src/features/speed/mod.rs (`covariance_sum`); driver:
// metrics/src/features/speed/gpu.rs.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "exact_double.glsl"

layout(local_size_x = 16) in;

// True where fma() on doubles rounds once on this device (fma_probe.comp);
// otherwise the fused multiply-add is emulated exactly.
layout(constant_id = 0) const bool FUSED_FMA = false;

layout(set = 0, binding = 0, std430) readonly buffer Centered { float centered[]; };
layout(set = 0, binding = 1, std430) readonly buffer Means { float means[]; };
// Pair p's offsets: x in the low byte, y in the next.
layout(set = 0, binding = 2, std430) readonly buffer Pairs { uint pairs[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Results { uint results[]; };

// Twin: `CovariancePush` in metrics/src/features/speed/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint win_w;
    uint win_h;
    uint pair_count;
    uint out_word;
};

shared double lanes[16];
shared double tail_sum;

// The sum s = x + y rounded to odd: s itself where exact or odd, else its
// neighbour on the side of the exact sum.
double add_round_to_odd(double x, double y) {
    dvec2 s = two_sum(x, y);
    uint64_t bits = doubleBitsToUint64(s.x);
    if (s.y == 0.0lf || (bits & 1ul) != 0ul) {
        return s.x;
    }
    bool away = (s.y > 0.0lf) == (s.x > 0.0lf);
    return uint64BitsToDouble(away ? bits + 1ul : bits - 1ul);
}

// a·b + c rounded once. Without a fused fma(): the exact product and sum,
// their low parts added rounded to odd, then one rounding to nearest
// (Boldo and Melquiond's emulation; exact here, with no underflow or
// overflow at these magnitudes).
double fused_multiply_add(double a, double b, double c) {
    if (FUSED_FMA) {
        precise double r = fma(a, b, c);
        return r;
    }
    dvec2 p = two_prod(a, b);
    dvec2 t = two_sum(c, p.x);
    double v = add_round_to_odd(t.y, p.y);
    precise double r = t.x + v;
    return r;
}

void main() {
    uint l = gl_LocalInvocationID.x;
    uint pair = gl_WorkGroupID.x;
    uint plane = gl_WorkGroupID.y;
    uint xy = pairs[pair];
    uint ex = xy & 0xFFu;
    uint ey = xy >> 8u;
    uint base = plane * width * height;
    uint a0 = base + (ex / 5u) * width + ex % 5u;
    uint b0 = base + (ey / 5u) * width + ey % 5u;
    double mx = double(means[plane * 25u + ex]);
    double my = double(means[plane * 25u + ey]);
    uint steps = win_w / 16u;
    bool step8 = win_w - 16u * steps >= 8u;
    uint tail_from = 16u * steps + (step8 ? 8u : 0u);
    double acc = 0.0lf;
    precise double tail = 0.0lf;
    for (uint i = 0u; i < win_h; i++) {
        uint ra = a0 + i * width;
        uint rb = b0 + i * width;
        for (uint s = 0u; s < steps; s++) {
            uint j = 16u * s + l;
            precise double cx = double(centered[ra + j]) - mx;
            precise double cy = double(centered[rb + j]) - my;
            acc = fused_multiply_add(cx, cy, acc);
        }
        if (step8 && l < 8u) {
            uint j = 16u * steps + l;
            precise double cx = double(centered[ra + j]) - mx;
            precise double cy = double(centered[rb + j]) - my;
            acc = fused_multiply_add(cx, cy, acc);
        }
        if (l == 15u) {
            for (uint j = tail_from; j < win_w; j++) {
                precise double cx = double(centered[ra + j]) - mx;
                precise double cy = double(centered[rb + j]) - my;
                precise double product = cx * cy;
                tail = tail + product;
            }
        }
    }
    lanes[l] = acc;
    if (l == 15u) {
        tail_sum = tail;
    }
    barrier();
    if (l != 0u) {
        return;
    }
    precise double quad[4];
    for (uint k = 0u; k < 4u; k++) {
        precise double lo = lanes[k] + lanes[k + 8u];
        precise double hi = lanes[k + 4u] + lanes[k + 12u];
        quad[k] = hi + lo;
    }
    precise double first = quad[2] + quad[0];
    precise double second = quad[3] + quad[1];
    precise double total = (first + second) + tail_sum;
    uvec2 halves = unpackDouble2x32(total);
    uint at = 2u * (out_word + plane * pair_count + pair);
    results[at] = halves.x;
    results[at + 1u] = halves.y;
}
