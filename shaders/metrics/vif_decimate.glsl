// VIF's step from one scale to the next, for the reference and distorted
// planes at once: blur with the next scale's filter at the current
// resolution and keep samples [2i][2j], giving ⌊w/2⌋ × ⌊h/2⌋ planes of 16-bit
// samples (libvmaf's subsample_rd + decimate). Only the kept rows and
// columns are computed; the discarded ones influence nothing.
//
// Included by vif_decimate1..3.comp.
//
// Twin: metrics/src/vif/filter.rs `decimate`. Vertical pass: uint32 sum of
// c·x, (+2^(bpc−1)) >> bpc, kept as uint16 (bpc of the input plane: its own
// depth at scale 0, 16 after); horizontal: uint32 sum, (+32768) >> 16, uint16.
// Push constants: `VifDecimatePush` in metrics/src/vif/gpu.rs — the two must
// agree.
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;

// FILTER_INDEX (1..3, the scale being produced) is defined by
// vif_decimateK.comp before including this file.

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DistWords { uint dist_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer RefOut { uint16_t ref_out[]; };
layout(set = 0, binding = 3, std430) writeonly buffer DistOut { uint16_t dist_out[]; };

#include "vif_common.glsl"

layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dist_plane;
};

const uint OW = 32u;  // output tile width
const uint OH = 8u;   // output tile height
const uint MAX_HALF = 4u;
const uint PITCH = 2u * OW - 1u + 2u * MAX_HALF;

// Vertical sums of the kept rows: reference | distorted << 16.
shared uint s_v[OH * PITCH];

void main() {
    uint lid = gl_LocalInvocationIndex;
    int w = int(ref_plane.width);
    int h = int(ref_plane.height);
    int ow = w / 2;
    int oh = h / 2;
    int ox0 = int(gl_WorkGroupID.x * OW);
    int oy0 = int(gl_WorkGroupID.y * OH);
    const uint VW = 2u * OW - 1u + 2u * HALF;  // input columns the tile reads

    uint bpc = ref_plane.bpc;
    uint round_v = 1u << (bpc - 1u);
    for (uint i = lid; i < OH * VW; i += 256u) {
        uint ty = i / VW;
        uint tx = i % VW;
        int row = 2 * (oy0 + int(ty));
        int col = vif_mirror(2 * ox0 + int(tx) - int(HALF), w);
        uint a = 0u, b = 0u;
        [[unroll]] for (uint t = 0u; t < TAPS; t++) {
            uint c = VIF_FILTERS[FILTER_INDEX][t];
            uint s = load_pair(ref_plane, dist_plane, col, vif_mirror(row + int(t) - int(HALF), h));
            a += c * (s & 0xFFFFu);
            b += c * (s >> 16);
        }
        a = ((a + round_v) >> bpc) & 0xFFFFu;
        b = ((b + round_v) >> bpc) & 0xFFFFu;
        s_v[ty * PITCH + tx] = a | (b << 16);
    }
    barrier();

    uint tx = lid % OW;
    uint ty = lid / OW;
    int ox = ox0 + int(tx);
    int oy = oy0 + int(ty);
    if (ox >= ow || oy >= oh) {
        return;
    }
    uint a = 0u, b = 0u;
    [[unroll]] for (uint t = 0u; t < TAPS; t++) {
        uint c = VIF_FILTERS[FILTER_INDEX][t];
        uint s = s_v[ty * PITCH + 2u * tx + t];
        a += c * (s & 0xFFFFu);
        b += c * (s >> 16);
    }
    uint o = uint(oy * ow + ox);
    ref_out[o] = uint16_t((a + 32768u) >> 16);
    dist_out[o] = uint16_t((b + 32768u) >> 16);
}
