#version 460
// Integer ADM, level 0 of the db2 wavelet transform of one plane
// (metrics/src/adm/dwt.rs `dwt_s0`, `vertical_s0`, `horizontal_s0`).
//
// One workgroup makes a 32x8 tile of outputs of all four bands: it loads the
// 66x18 window of mirrored input samples once into shared memory, runs the
// vertical low/high pass for its 8 output rows over all 66 columns, then the
// horizontal pass. All arithmetic is the twin's wrapping int32 with int16
// stores. Dispatched once per image (reference, distorted).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "adm_common.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

layout(set = 0, binding = 0, std430) readonly buffer Plane { uint plane_words[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Bands { int bands[]; };

#define PLANE_WORDS plane_words
#include "plane.glsl"

// Twin: `Dwt0Push` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    PlaneDesc plane;
    uint out_width;
    uint out_height;
    uint out_offset;  // word offset of this image's band a
    uint pad;
} pc;

const int TW = 32;
const int TH = 8;
const int IW = 2 * TW + 2;
const int IH = 2 * TH + 2;

shared int s_in[IH][IW];
shared int s_lo[TH][IW];
shared int s_hi[TH][IW];

void main() {
    int w = int(pc.plane.width);
    int h = int(pc.plane.height);
    int ox0 = int(gl_WorkGroupID.x) * TW;
    int oy0 = int(gl_WorkGroupID.y) * TH;
    // Input tile position 0 is sample 2*o0 - 1: output o reads local
    // 2*(o - o0) + 0..3, already mirrored.
    int x0 = 2 * ox0 - 1;
    int y0 = 2 * oy0 - 1;
    int tid = int(gl_LocalInvocationIndex);

    for (int k = tid; k < IW * IH; k += TW * TH) {
        int ly = k / IW;
        int lx = k % IW;
        uint x = uint(adm_mirror(x0 + lx, w));
        uint y = uint(adm_mirror(y0 + ly, h));
        s_in[ly][lx] = int(plane_load(pc.plane, x, y));
    }
    barrier();

    int bpc = int(pc.plane.bpc);
    int round_v = 1 << (bpc - 1);
    for (int k = tid; k < IW * TH; k += TW * TH) {
        int i = k / IW;
        int c = k % IW;
        int lo = 0;
        int hi = 0;
        for (int t = 0; t < 4; t++) {
            int s = s_in[2 * i + t][c];
            lo += ADM_LO[t] * s;
            hi += ADM_HI[t] * s;
        }
        lo -= ADM_LO_SUM * round_v;
        s_lo[i][c] = adm_wrap16((lo + round_v) >> bpc);
        s_hi[i][c] = adm_wrap16((hi + round_v) >> bpc);
    }
    barrier();

    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int ox = ox0 + lx;
    int oy = oy0 + ly;
    if (ox >= int(pc.out_width) || oy >= int(pc.out_height)) {
        return;
    }
    int a = 0, v = 0, hh = 0, d = 0;
    for (int t = 0; t < 4; t++) {
        int l = s_lo[ly][2 * lx + t];
        int u = s_hi[ly][2 * lx + t];
        a += ADM_LO[t] * l;
        v += ADM_HI[t] * l;
        hh += ADM_LO[t] * u;
        d += ADM_HI[t] * u;
    }
    uint plane_size = pc.out_width * pc.out_height;
    uint at = pc.out_offset + uint(oy) * pc.out_width + uint(ox);
    bands[at] = adm_wrap16((a + 32768) >> 16);
    bands[at + plane_size] = adm_wrap16((hh + 32768) >> 16);
    bands[at + 2u * plane_size] = adm_wrap16((v + 32768) >> 16);
    bands[at + 3u * plane_size] = adm_wrap16((d + 32768) >> 16);
}
