#version 460
// SpEED, pass 5 of 5: the covariance sums Σ (x − mx)(y − my) of each plane's
// 325 pairs of block offsets (x, y ≤ x) over their windows, 16 invocations
// per pair, 16 pairs per workgroup (the last of a plane partly idle), in the
// order of libvmaf's AVX-512 kernel: per row, steps of
// 16 samples into two 8-lane double accumulators with fused multiply-adds
// (invocation l holds lane l of the first for l < 8, lane l − 8 of the second
// otherwise), then one step of 8 into the first, then the scalar tail (the
// product rounded, then added) into its own sum; at the end the accumulators
// are added lane by lane and reduced 8 → 4 → 2 → 1, and the tail added. Each
// sum's double bits go into one result word; the host divides by the area.
// Each invocation's chain of fused multiply-adds reads its operands from
// shared memory, staged by the whole workgroup one tile ahead
// (speed_tile.glsl) and widened to double there, once for every pair.
// CPU twin: metrics/src/features/speed/mod.rs (`covariance_sum`); driver:
// metrics/src/features/speed/gpu.rs.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

// True where fma() on doubles rounds once on this device (fma_probe.comp);
// otherwise the fused multiply-add is emulated exactly.
layout(constant_id = 0) const bool FUSED_FMA = false;

#include "exact_double.glsl"

layout(local_size_x = 256) in;

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

#include "speed_tile.glsl"

// Pairs a workgroup sums: 16 invocations each.
const uint PAIRS = TILE_GROUP / 16u;

shared double tile[2u * TILE_SIZE + TILE_PAD];
shared double lanes[PAIRS][16];
shared double tail_sum[PAIRS];

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

// Step t of lane l's chains from the tile at half_at, whose first samples
// of the pair's offsets are at a0 and b0: window columns c0 .. end − 1 sit at
// tile columns 0 .. end − c0 − 1; TILE_COLS is a multiple of 16, so the
// lane's columns are those ≡ l mod 16.
void accumulate(uint t, uint half_at, uint a0, uint b0, uint l, double mx, double my,
                inout double acc, inout double tail) {
    uint steps_end = 16u * (win_w / 16u);
    uint tail_from = steps_end + (win_w - steps_end >= 8u ? 8u : 0u);
    uvec2 cols = tile_columns(t);
    uint c0 = cols.x;
    uint end = c0 + cols.y;
    uint ra = half_at + a0 - c0;
    uint rb = half_at + b0 - c0;
    // The next step's samples read ahead of this step's multiply-add (past
    // the last step: the tile's next row or TILE_PAD, never used).
    uint stop = min(end, steps_end);
    double x = tile[ra + c0 + l];
    double y = tile[rb + c0 + l];
    for (uint j = c0 + l; j < stop; j += 16u) {
        double next_x = tile[ra + j + 16u];
        double next_y = tile[rb + j + 16u];
        precise double cx = x - mx;
        precise double cy = y - my;
        acc = fused_multiply_add(cx, cy, acc);
        x = next_x;
        y = next_y;
    }
    uint j8 = steps_end + l;
    if (l < 8u && j8 < tail_from && j8 >= c0 && j8 < end) {
        precise double cx = tile[ra + j8] - mx;
        precise double cy = tile[rb + j8] - my;
        acc = fused_multiply_add(cx, cy, acc);
    }
    if (l == 15u) {
        for (uint j = max(tail_from, c0); j < end; j++) {
            precise double cx = tile[ra + j] - mx;
            precise double cy = tile[rb + j] - my;
            precise double product = cx * cy;
            precise double sum = tail + product;
            tail = sum;
        }
    }
}

void main() {
    uint local = gl_LocalInvocationID.x;
    uint l = local % 16u;
    uint slot = local / 16u;
    uint pair = gl_WorkGroupID.x * PAIRS + slot;
    uint plane = gl_WorkGroupID.y;
    bool in_range = pair < pair_count;
    uint xy = in_range ? pairs[pair] : 0u;
    uint ex = xy & 0xFFu;
    uint ey = xy >> 8u;
    uint base = plane * width * height;
    // The pair's first samples in a tile.
    uint a0 = (ex / 5u) * TILE_STRIDE + ex % 5u;
    uint b0 = (ey / 5u) * TILE_STRIDE + ey % 5u;
    double mx = double(means[plane * 25u + ex]);
    double my = double(means[plane * 25u + ey]);
    uint tiles = win_h * tile_chunks();
    // Two tiles ahead: a tile's chains are short next to a fetch from
    // global memory.
    float next0[TILE_LOADS];
    float next1[TILE_LOADS];
    tile_fetch(base, 0u, local, next0);
    if (1u < tiles) {
        tile_fetch(base, 1u, local, next1);
    }
    double acc = 0.0lf;
    double tail = 0.0lf;
    for (uint t = 0u; t < tiles; t += 2u) {
        [[unroll]] for (uint k = 0u; k < TILE_LOADS; k++) {
            uint at = local + k * TILE_GROUP;
            if (at < TILE_SIZE) {
                tile[at] = double(next0[k]);
            }
        }
        barrier();
        if (t + 2u < tiles) {
            tile_fetch(base, t + 2u, local, next0);
        }
        if (in_range) {
            accumulate(t, 0u, a0, b0, l, mx, my, acc, tail);
        }
        if (t + 1u < tiles) {
            [[unroll]] for (uint k = 0u; k < TILE_LOADS; k++) {
                uint at = local + k * TILE_GROUP;
                if (at < TILE_SIZE) {
                    tile[TILE_SIZE + at] = double(next1[k]);
                }
            }
        }
        barrier();
        if (t + 3u < tiles) {
            tile_fetch(base, t + 3u, local, next1);
        }
        if (in_range && t + 1u < tiles) {
            accumulate(t + 1u, TILE_SIZE, a0, b0, l, mx, my, acc, tail);
        }
    }
    lanes[slot][l] = acc;
    if (l == 15u) {
        tail_sum[slot] = tail;
    }
    barrier();
    if (l != 0u || !in_range) {
        return;
    }
    precise double quad[4];
    for (uint k = 0u; k < 4u; k++) {
        precise double lo = lanes[slot][k] + lanes[slot][k + 8u];
        precise double hi = lanes[slot][k + 4u] + lanes[slot][k + 12u];
        quad[k] = hi + lo;
    }
    precise double first = quad[2] + quad[0];
    precise double second = quad[3] + quad[1];
    precise double total = (first + second) + tail_sum[slot];
    uvec2 halves = unpackDouble2x32(total);
    uint at = 2u * (out_word + plane * pair_count + pair);
    results[at] = halves.x;
    results[at + 1u] = halves.y;
}
