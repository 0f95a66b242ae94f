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
// A workgroup owns a TW x TH tile (TH = 4 rows, TW = VCOLS - 2*HALF
// rounded down to a multiple of P: 252 for 5 taps) and runs the vertical
// pass for VCOLS = 256 columns (the tile and its mirrored halo), both
// passes register-blocked as in float_vif_stat.comp: invocation c loads
// the R + 2*HALF samples of column c (source column mirror(x0 - HALF + c))
// once each and adds each to every one of the tile's R = TH rows it
// touches; invocation (t, a) then reads the P + 2*HALF vertical sums of
// pixels x0 + 4a .. x0 + 4a + 3 of row t once each. Every output still
// takes its taps in order from 0. The vertical sums stay in shared memory;
// nothing but the blurred planes goes to global memory. The filter is
// specialization constants (TAPS, TAP0..TAP4), so the loops have constant
// bounds, the driver unrolls them (no [[unroll]], for the reason
// float_vif_stat.comp gives) and every tap is an immediate.

layout(local_size_x = 256) in;

// The filter: its width (3 or 5; the identity is 5 taps) and its taps, the
// unused ones 0. Set by the host from the twin's taps.
layout(constant_id = 0) const uint TAPS = 5u;
layout(constant_id = 1) const float TAP0 = 0.0;
layout(constant_id = 2) const float TAP1 = 0.0;
layout(constant_id = 3) const float TAP2 = 0.0;
layout(constant_id = 4) const float TAP3 = 0.0;
layout(constant_id = 5) const float TAP4 = 0.0;
#define TAPS_MAX 5u

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
};

// Twin: `BLUR_VCOLS`, `BLUR_TH`, `BLUR_P` in gpu.rs.
const uint VCOLS = 256u;              // vertical-pass columns per tile
const uint TH = 4u;                   // tile rows
const uint R = TH;                    // rows per vertical task
const uint P = 4u;                    // pixels per horizontal task
const uint HALF = TAPS / 2u;
const uint TW = (VCOLS - 2u * HALF) / P * P;  // tile columns
const uint TPR = TW / P;              // horizontal tasks per row (63)

// Vertical sums: tile row t, column c at
// s_v[t * ROW_STRIDE + (c % 4) * QUARTER + c / 4], spread over the banks
// as float_vif_stat.comp's (a store of 32 consecutive columns and a load of
// 32 consecutive tasks' column 4a + m each hit 32 distinct banks).
const uint QUARTER = 72u;
const uint ROW_STRIDE = 4u * QUARTER + TPR % 32u;
shared float s_v[TH * ROW_STRIDE];

uint sv_at(uint row, uint col) {
    return row * ROW_STRIDE + (col & 3u) * QUARTER + (col >> 2);
}

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
    // Read with constant indices once the loops are unrolled.
    float taps[TAPS_MAX] = float[TAPS_MAX](TAP0, TAP1, TAP2, TAP3, TAP4);
    uint lid = gl_LocalInvocationIndex;
    bool current = gl_WorkGroupID.z == 1u;
    int w = int(prev.width);
    int h = int(prev.height);
    uint x0 = gl_WorkGroupID.x * TW;
    uint y0 = gl_WorkGroupID.y * TH;

    // Vertical pass. Columns and rows past the frame's last output are
    // computed but never read; clamping keeps them inside the mirror's range.
    uint c = lid;
    if (c < TW + 2u * HALF) {
        uint col = uint(mirror(min(int(x0) - int(HALF) + int(c), w - 1 + int(HALF)), w));
        int top = int(y0) - int(HALF);
        precise float acc[R];
        for (uint r = 0u; r < R; r++) {
            acc[r] = 0.0;
        }
        for (uint i = 0u; i < R + 2u * HALF; i++) {
            uint row = uint(mirror(min(top + int(i), h - 1 + int(HALF)), h));
            float s = sample_at(current, col, row);
            // Row r takes this sample as its tap i - r.
            for (uint r = 0u; r < R; r++) {
                if (i >= r && i - r < TAPS) {
                    precise float product = taps[i - r] * s;
                    acc[r] = acc[r] + product;
                }
            }
        }
        for (uint r = 0u; r < R; r++) {
            s_v[sv_at(r, c)] = acc[r];
        }
    }
    barrier();

    // Horizontal pass: pixel x0 + 4a + p of tile row t reads vertical
    // columns 4a + p .. 4a + p + 2*HALF.
    if (lid >= TH * TPR) {
        return;
    }
    uint t = lid / TPR;
    uint a4 = (lid % TPR) * P;
    uint y = y0 + t;
    if (y >= uint(h)) {
        return;
    }
    precise float sum[P];
    for (uint p = 0u; p < P; p++) {
        sum[p] = 0.0;
    }
    for (uint m = 0u; m < P + 2u * HALF; m++) {
        float v = s_v[sv_at(t, a4 + m)];
        // Pixel p takes this column as its tap m - p.
        for (uint p = 0u; p < P; p++) {
            if (m >= p && m - p < TAPS) {
                precise float product = taps[m - p] * v;
                sum[p] = sum[p] + product;
            }
        }
    }
    uint base = gl_WorkGroupID.z * uint(w) * uint(h);
    for (uint p = 0u; p < P; p++) {
        uint x = x0 + a4 + p;
        if (x < uint(w)) {
            blurred[base + y * uint(w) + x] = sum[p];
        }
    }
}
