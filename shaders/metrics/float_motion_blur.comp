#version 460
// float_motion, pass 1 of 4: the previous and the current reference plane
// (workgroup z 0 and 1) to libvmaf's floats and through its separable blur,
// vertical pass then horizontal, into blurred[z * w * h + y * w + x].
// CPU twin: metrics/src/features/float_motion/mod.rs (`float_plane`,
// `blur`); driver: metrics/src/features/float_motion/gpu.rs.
//
// A sample becomes libvmaf's float: scaled by 2^(8 - bpc) (exact) minus
// 128 (exact). Each pass's tap sum is ((0 + t0*s0) + t1*s1) + ... in float
// with each product rounded: `precise` keeps the driver from fusing it into
// FMAs.
//
// A workgroup owns a TW x TH tile (TW = VCOLS - 2*radius). Invocation
// (c, g) runs the vertical pass of tile column c (source column
// mirror(x0 - radius + c)) for R consecutive rows: it loads each of the
// R + 2*radius samples once and adds it to every row it touches, each row
// still taking its taps in order. The vertical sums stay in shared memory,
// where the horizontal pass reads them, one output an invocation at a time;
// nothing but the blurred planes goes to global memory. The loops have
// constant bounds and no [[unroll]], for the reason float_vif_stat.comp
// gives: the driver unrolls them with `NoContraction` intact.

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer PrevWords { uint prev_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer CurWords { uint cur_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Blurred { float blurred[]; };

#define PLANE_WORDS_A prev_words
#define PLANE_WORDS_B cur_words
#include "plane_pair.glsl"

// Twin: `BlurPush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    PlaneDesc prev;
    PlaneDesc cur;
    float taps[5];
    uint taps_len;
};

// Twin: `BLUR_VCOLS` and `BLUR_TH` in gpu.rs.
const uint VCOLS = 64u;            // vertical-pass columns per tile
const uint TH = 16u;               // tile rows
const uint R = 4u;                 // rows per vertical task (VCOLS * TH / R = 256)
const uint RADIUS_MAX = 2u;        // 5 taps

shared float s_v[TH][VCOLS];

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
    uint lid = gl_LocalInvocationIndex;
    bool current = gl_WorkGroupID.z == 1u;
    int w = int(prev.width);
    int h = int(prev.height);
    int radius = int(taps_len / 2u);
    uint tw = VCOLS - 2u * uint(radius);
    uint x0 = gl_WorkGroupID.x * tw;
    uint y0 = gl_WorkGroupID.y * TH;

    // Vertical pass. Columns and rows past the frame's last output are
    // computed but never read; clamping keeps them inside the mirror's range.
    uint c = lid % VCOLS;
    uint g = lid / VCOLS;
    uint col = uint(mirror(min(int(x0) - radius + int(c), w - 1 + radius), w));
    int top = int(y0 + g * R) - radius;
    precise float acc[R];
    for (uint r = 0u; r < R; r++) {
        acc[r] = 0.0;
    }
    for (uint i = 0u; i < R + 2u * RADIUS_MAX; i++) {
        if (i < R + 2u * uint(radius)) {
            uint row = uint(mirror(min(top + int(i), h - 1 + radius), h));
            float s = sample_at(current, col, row);
            // Row r takes this sample as its tap i - r.
            for (uint r = 0u; r < R; r++) {
                if (i >= r && i - r < taps_len) {
                    precise float product = taps[i - r] * s;
                    acc[r] = acc[r] + product;
                }
            }
        }
    }
    for (uint r = 0u; r < R; r++) {
        s_v[g * R + r][c] = acc[r];
    }
    barrier();

    // Horizontal pass: output (x0 + xx, y0 + t) reads tile columns xx .. xx + 2*radius.
    uint base = gl_WorkGroupID.z * uint(w) * uint(h);
    for (uint item = lid; item < tw * TH; item += 256u) {
        uint t = item / tw;
        uint xx = item % tw;
        uint x = x0 + xx;
        uint y = y0 + t;
        if (x < uint(w) && y < uint(h)) {
            precise float sum = 0.0;
            for (uint k = 0u; k < taps_len; k++) {
                precise float product = taps[k] * s_v[t][xx + k];
                sum = sum + product;
            }
            blurred[base + y * uint(w) + x] = sum;
        }
    }
}
