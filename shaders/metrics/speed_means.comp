#version 460
// SpEED, pass 4 of 5: the mean of the window at each of a block's 25
// offsets, one workgroup per plane, invocation e < 25 summing offset e's
// window: a float sum in raster order (libvmaf's order; it cannot be split)
// divided by the window's area, rounded as a float division is. The sums are
// 25 chains of dependent additions (win_w·win_h each, 31 000 at 4K), so their
// operands come from shared memory, staged by the whole workgroup one tile
// ahead (speed_tile.glsl), and are read 16 at a time ahead of the additions.
// CPU twin: metrics/src/features/speed/mod.rs (`window_means`); driver:
// metrics/src/features/speed/gpu.rs.

#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Centered { float centered[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Means { float means[]; };

// Twin: `WindowPush` in metrics/src/features/speed/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint win_w;
    uint win_h;
};

#include "speed_tile.glsl"

shared float tile[2u * TILE_SIZE + TILE_PAD];

// The float nearest below and above q (q finite and not zero).
float float_below(float q) {
    return uintBitsToFloat(floatBitsToUint(q) + (q > 0.0 ? uint(-1) : 1u));
}
float float_above(float q) {
    return uintBitsToFloat(floatBitsToUint(q) + (q > 0.0 ? 1u : uint(-1)));
}

// a / n correctly rounded to float (ties to even), n a positive integer below
// 2^24. Vulkan's float and double divisions are not correctly rounded, so the
// double quotient rounded to float is checked against the remainder
// a − q·n, which is exact in double (q and n have 24 significant bits each),
// and moved to a neighbour while it lies more than half a gap away.
float divide_by_count(float a, uint n) {
    double dn = double(n);
    float q = float(double(a) / dn);
    for (int i = 0; i < 3 && q != 0.0; i++) {
        precise double r = double(a) - double(q) * dn;
        float above = float_above(q);
        float below = float_below(q);
        precise double half_up = (double(above) - double(q)) * 0.5lf * dn;
        precise double half_down = (double(q) - double(below)) * 0.5lf * dn;
        bool odd = (floatBitsToUint(q) & 1u) != 0u;
        if (r > half_up || (r == half_up && odd)) {
            q = above;
        } else if (-r > half_down || (-r == half_down && odd)) {
            q = below;
        } else {
            break;
        }
    }
    return q;
}

void main() {
    uint l = gl_LocalInvocationID.x;
    uint plane = gl_WorkGroupID.x;
    uint base = plane * width * height;
    uint tiles = win_h * tile_chunks();
    // Offset l's first sample in a tile.
    uint first = (l / 5u) * TILE_STRIDE + l % 5u;
    float next[TILE_LOADS];
    tile_fetch(base, 0u, l, next);
    precise float sum = 0.0;
    for (uint t = 0u; t < tiles; t++) {
        uint half_at = (t & 1u) * TILE_SIZE;
        [[unroll]] for (uint k = 0u; k < TILE_LOADS; k++) {
            uint at = l + k * TILE_GROUP;
            if (at < TILE_SIZE) {
                tile[half_at + at] = next[k];
            }
        }
        barrier();
        if (t + 1u < tiles) {
            tile_fetch(base, t + 1u, l, next);
        }
        if (l < 25u) {
            // The tile's n samples in order, the next 16 read from shared
            // memory ahead of the additions of the current 16 (reads past
            // n land in the tile's next row or TILE_PAD, and are never
            // added); whole sixteens without a test per sample.
            uint n = tile_columns(t).y;
            uint whole = n & ~15u;
            uint at = half_at + first;
            float v[16];
            [[unroll]] for (uint k = 0u; k < 16u; k++) {
                v[k] = tile[at + k];
            }
            for (uint j = 0u; j < whole; j += 16u) {
                float ahead[16];
                [[unroll]] for (uint k = 0u; k < 16u; k++) {
                    ahead[k] = tile[at + j + 16u + k];
                }
                [[unroll]] for (uint k = 0u; k < 16u; k++) {
                    sum = sum + v[k];
                }
                v = ahead;
            }
            [[unroll]] for (uint k = 0u; k < 16u; k++) {
                if (whole + k < n) {
                    sum = sum + v[k];
                }
            }
        }
    }
    if (l < 25u) {
        means[plane * 25u + l] = divide_by_count(sum, win_w * win_h);
    }
}
