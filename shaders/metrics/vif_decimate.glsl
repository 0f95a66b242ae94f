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
//
// ONE_PLANE (specialization constant 0): decimate only the plane bound as
// the reference (bindings 0 and 2); the distorted bindings are neither read
// for a value nor written, so the caller may bind the same buffers there. A
// ladder decimates its shared reference once this way, and each rendition
// its distorted plane alone (metrics/src/vif/gpu.rs `VifReference`). Each
// plane's arithmetic is the same either way, so the samples are too.
//
// Work split: a workgroup owns OW × OH = 60 × 16 output samples. Vertical
// pass, register-blocked: each invocation owns one of the 2·OW − 1 + 2·HALF
// (≤ 128) input columns and R = 8 kept rows, streams the 2·R − 1 + 2·HALF
// input samples of that column once and adds each to the kept rows it
// touches. Horizontal pass: each invocation owns P = 4 adjacent outputs of a
// row.
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

layout(constant_id = 0) const bool ONE_PLANE = false;

layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dist_plane;
};

const uint OW = 60u;   // output tile width
const uint OH = 16u;   // output tile height
const uint VCOLS = 128u;
const uint R = 8u;     // kept rows per vertical task
const uint P = 4u;     // outputs per horizontal task
const uint VW = 2u * OW - 1u + 2u * HALF;  // input columns the tile reads (≤ VCOLS)
const uint VIN = 2u * R - 1u + 2u * HALF;  // input rows a vertical task reads
const uint HIN = 2u * P - 1u + 2u * HALF;  // vertical sums a horizontal task reads

// Vertical sums of the kept rows: reference | distorted << 16.
shared uint s_v[OH * VCOLS];

// Vertical pass of one column (tile column `col`, kept rows rg·R ..
// rg·R+R−1), LOAD being LOAD_MIRRORED or LOAD_DIRECT (vif_common.glsl).
#define VERTICAL_PASS(LOAD)                                                         \
    {                                                                              \
        uint a[R], b[R];                                                           \
        [[unroll]] for (uint r = 0u; r < R; r++) {                                 \
            a[r] = 0u;                                                             \
            b[r] = 0u;                                                             \
        }                                                                          \
        [[unroll]] for (uint i = 0u; i < VIN; i++) {                               \
            LOAD(i)                                                                \
            [[unroll]] for (uint r = 0u; r < R; r++) {                             \
                if (i >= 2u * r && i - 2u * r < TAPS) {                            \
                    uint c = VIF_FILTERS[FILTER_INDEX][i - 2u * r];                \
                    a[r] += c * x;                                                 \
                    b[r] += ONE_PLANE ? 0u : c * y;                                \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        [[unroll]] for (uint r = 0u; r < R; r++) {                                 \
            uint av = ((a[r] + round_v) >> bpc) & 0xFFFFu;                         \
            uint bv = ((b[r] + round_v) >> bpc) & 0xFFFFu;                         \
            s_v[(rg * R + r) * VCOLS + col] = av | (bv << 16);                     \
        }                                                                          \
    }

void main() {
    uint lid = gl_LocalInvocationIndex;
    int w = int(ref_plane.width);
    int h = int(ref_plane.height);
    int ow = w / 2;
    int oh = h / 2;
    int ox0 = int(gl_WorkGroupID.x * OW);
    int oy0 = int(gl_WorkGroupID.y * OH);

    uint bpc = ref_plane.bpc;
    uint round_v = 1u << (bpc - 1u);
    {
        uint col = lid % VCOLS;
        uint rg = lid / VCOLS;
        if (col < VW) {
            int gx = vif_mirror(2 * ox0 + int(col) - int(HALF), w);
            uint bps_r = ref_plane.bytes_per_sample;
            uint bps_d = dist_plane.bytes_per_sample;
            uint mask_r = bps_r == 1u ? 0xFFu : 0xFFFFu;
            uint mask_d = bps_d == 1u ? 0xFFu : 0xFFFFu;
            uint col_r = ref_plane.offset + uint(gx) * bps_r;
            uint col_d = dist_plane.offset + uint(gx) * bps_d;
            uint stride_r = ref_plane.stride * bps_r;
            uint stride_d = dist_plane.stride * bps_d;
            // Kept row r of this task is input row 2·(oy0 + rg·R + r).
            int ybase = 2 * (oy0 + int(rg * R)) - int(HALF);
            if (loads_direct(stride_r, stride_d, ybase, VIN, h)) {
                DIRECT_WORDS
                VERTICAL_PASS(LOAD_DIRECT)
            } else {
                VERTICAL_PASS(LOAD_MIRRORED)
            }
        }
    }
    barrier();

    uint ty = lid / (OW / P);
    uint tx0 = (lid % (OW / P)) * P;
    if (ty >= OH) {
        return;
    }
    int oy = oy0 + int(ty);
    if (oy >= oh) {
        return;
    }
    uint a[P], b[P];
    [[unroll]] for (uint p = 0u; p < P; p++) {
        a[p] = 0u;
        b[p] = 0u;
    }
    [[unroll]] for (uint j = 0u; j < HIN; j++) {
        uint s = s_v[ty * VCOLS + 2u * tx0 + j];
        uint x = s & 0xFFFFu;
        uint y = s >> 16;
        [[unroll]] for (uint p = 0u; p < P; p++) {
            if (j >= 2u * p && j - 2u * p < TAPS) {
                uint c = VIF_FILTERS[FILTER_INDEX][j - 2u * p];
                a[p] += c * x;
                b[p] += ONE_PLANE ? 0u : c * y;
            }
        }
    }
    [[unroll]] for (uint p = 0u; p < P; p++) {
        int ox = ox0 + int(tx0 + p);
        if (ox < ow) {
            uint o = uint(oy * ow + ox);
            ref_out[o] = uint16_t((a[p] + 32768u) >> 16);
            if (!ONE_PLANE) {
                dist_out[o] = uint16_t((b[p] + 32768u) >> 16);
            }
        }
    }
}
