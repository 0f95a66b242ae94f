#version 460
// float_vif, between scales: one plane of the next scale, i.e. the current
// scale's plane filtered with the next scale's taps (mirrored borders) at
// the even rows and columns only; the others are never read (vif_dec2_s).
// Workgroup z picks the plane (0 reference, 1 distorted).
// CPU twin: metrics/src/features/float_vif/filter.rs `decimate`;
// driver: metrics/src/features/float_vif/gpu.rs.
//
// A workgroup owns a TW x TH tile of outputs. It runs the vertical pass at
// the TH source rows 2y for every source column the tile's horizontal
// windows touch (2*TW + 2r of them, mirrored) into shared memory, then each
// invocation runs its output's horizontal pass from there. Each value is
// the twin's sum, in the twin's tap order.
#define TW 32u
#define TH 8u
layout(local_size_x = TW, local_size_y = TH) in;

// The current scale's planes and the next scale's, each bound to its own
// range (reference at 0, distorted at `*_dis_at`).
layout(set = 0, binding = 0, std430) readonly buffer Source { float src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dest { float dst[]; };
layout(set = 0, binding = 2, std430) readonly buffer Consts { float consts[]; };

#include "float_vif_common.glsl"

// Twin: `DecimatePush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint src_width;
    uint src_height;
    uint src_dis_at;
    uint dst_width;
    uint dst_height;
    uint dst_dis_at;
    uint taps_at;       // first tap in `consts`
    uint taps;          // filter width (odd)
};

#define COLS (2u * TW + 2u * R_MAX)
shared float s_taps[TAPS_MAX];
shared float s_rows[TH][COLS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint plane = gl_WorkGroupID.z;
    uint src_at = plane == 0u ? 0u : src_dis_at;
    int r = int(taps / 2u);
    int sw = int(src_width);
    int sh = int(src_height);
    for (uint k = lid; k < taps; k += TW * TH) {
        s_taps[k] = consts[taps_at + k];
    }
    barrier();

    uint x0 = gl_WorkGroupID.x * TW;
    uint y0 = gl_WorkGroupID.y * TH;
    uint cols = 2u * TW + 2u * uint(r);
    // Vertical pass: shared column c holds source column mirror(2*x0 - r + c).
    for (uint item = lid; item < cols * TH; item += TW * TH) {
        uint c = item % cols;
        uint t = item / cols;
        uint y = min(y0 + t, dst_height - 1u);
        // Columns past the last output's window are computed but never read;
        // clamping keeps them inside the mirror's range.
        uint col = vif_mirror(min(int(2u * x0) - r + int(c), sw - 1 + r), sw);
        precise float acc = 0.0;
        for (uint k = 0u; k < taps; k++) {
            uint row = vif_mirror(int(2u * y) - r + int(k), sh);
            acc = acc + s_taps[k] * src[src_at + row * src_width + col];
        }
        s_rows[t][c] = acc;
    }
    barrier();

    uint x = x0 + gl_LocalInvocationID.x;
    uint y = y0 + gl_LocalInvocationID.y;
    if (x >= dst_width || y >= dst_height) {
        return;
    }
    // Output x's window starts at source column 2x - r = 2*x0 - r + 2u.
    uint base = 2u * gl_LocalInvocationID.x;
    precise float acc = 0.0;
    for (uint k = 0u; k < taps; k++) {
        acc = acc + s_taps[k] * s_rows[gl_LocalInvocationID.y][base + k];
    }
    dst[(plane == 0u ? 0u : dst_dis_at) + y * dst_width + x] = acc;
}
