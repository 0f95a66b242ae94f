#version 460
// float_motion, pass 1 of 5: the vertical blur of the previous and the
// current reference plane (gl_GlobalInvocationID.z 0 and 1), one output
// sample per invocation, into vertical[z * w * h + y * w + x].
// CPU twin: metrics/src/features/float_motion/mod.rs (`float_plane`,
// `blur`); driver: metrics/src/features/float_motion/gpu.rs.
//
// A sample becomes libvmaf's float: scaled by 2^(8 - bpc) (exact) minus
// 128 (exact). The tap sum is ((0 + t0*s0) + t1*s1) + ... in float with each
// product rounded: `precise` keeps the driver from fusing it into FMAs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer PrevWords { uint prev_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer CurWords { uint cur_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Vertical { float vertical[]; };

#define PLANE_WORDS_A prev_words
#define PLANE_WORDS_B cur_words
#include "plane_pair.glsl"

// Twin: `VerticalPush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    PlaneDesc prev;
    PlaneDesc cur;
    float taps[5];
    uint taps_len;
};

// libvmaf's one-bounce mirror (-k -> k, n-1+k -> n-1-k); the driver checks
// that sides are at least the filter radius + 1.
int mirror(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

float sample_at(bool current, uint x, uint y) {
    uint v = current ? plane_load_b(cur, x, y) : plane_load(prev, x, y);
    return ldexp(float(v), 8 - int(prev.bpc)) - 128.0;
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    uint z = gl_GlobalInvocationID.z;
    uint w = prev.width;
    uint h = prev.height;
    if (x >= w || y >= h) {
        return;
    }
    int radius = int(taps_len / 2u);
    precise float acc = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        uint row = uint(mirror(int(y) - radius + int(k), int(h)));
        precise float product = taps[k] * sample_at(z == 1u, x, row);
        acc = acc + product;
    }
    vertical[z * w * h + y * w + x] = acc;
}
