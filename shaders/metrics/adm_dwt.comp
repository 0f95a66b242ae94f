#version 460
// Integer ADM, levels 1-3 of the db2 wavelet transform on the previous
// level's band a (metrics/src/adm/dwt.rs `dwt_s123`, `vertical_s123`,
// `horizontal_s123`): int64 tap sums, per-level rounding and shift, int32
// stores. Same tiling as adm_dwt0.comp; gl_WorkGroupID.z is the image
// (0 reference, 1 distorted).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "adm_common.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { int src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { int dst[]; };

// Twin: `DwtPush` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    uint in_width;
    uint in_height;
    uint out_width;
    uint out_height;
    uint scale;  // 1, 2 or 3
} pc;

const int TW = 32;
const int TH = 8;
const int IW = 2 * TW + 2;
const int IH = 2 * TH + 2;

shared int s_in[IH][IW];
shared int s_lo[TH][IW];
shared int s_hi[TH][IW];

// dwt.rs S123_VERTICAL / S123_HORIZONTAL: (round, shift) per level 1..3.
const int64_t V_ROUND[3] = int64_t[3](0l, 32768l, 32768l);
const uint V_SHIFT[3] = uint[3](0u, 16u, 16u);
const int64_t H_ROUND[3] = int64_t[3](16384l, 32768l, 16384l);
const uint H_SHIFT[3] = uint[3](15u, 16u, 15u);

void main() {
    int w = int(pc.in_width);
    int h = int(pc.in_height);
    uint image = gl_WorkGroupID.z;
    uint in_base = image * 4u * pc.in_width * pc.in_height;  // band a
    int ox0 = int(gl_WorkGroupID.x) * TW;
    int oy0 = int(gl_WorkGroupID.y) * TH;
    int x0 = 2 * ox0 - 1;
    int y0 = 2 * oy0 - 1;
    int tid = int(gl_LocalInvocationIndex);

    for (int k = tid; k < IW * IH; k += TW * TH) {
        int ly = k / IW;
        int lx = k % IW;
        uint x = uint(adm_mirror(x0 + lx, w));
        uint y = uint(adm_mirror(y0 + ly, h));
        s_in[ly][lx] = src[in_base + y * pc.in_width + x];
    }
    barrier();

    uint lvl = pc.scale - 1u;
    int64_t vr = V_ROUND[lvl];
    uint vs = V_SHIFT[lvl];
    for (int k = tid; k < IW * TH; k += TW * TH) {
        int i = k / IW;
        int c = k % IW;
        int64_t lo = 0;
        int64_t hi = 0;
        for (int t = 0; t < 4; t++) {
            int64_t s = int64_t(s_in[2 * i + t][c]);
            lo += int64_t(ADM_LO[t]) * s;
            hi += int64_t(ADM_HI[t]) * s;
        }
        s_lo[i][c] = int((lo + vr) >> vs);
        s_hi[i][c] = int((hi + vr) >> vs);
    }
    barrier();

    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int ox = ox0 + lx;
    int oy = oy0 + ly;
    if (ox >= int(pc.out_width) || oy >= int(pc.out_height)) {
        return;
    }
    int64_t a = 0, v = 0, hh = 0, d = 0;
    for (int t = 0; t < 4; t++) {
        int64_t l = int64_t(s_lo[ly][2 * lx + t]);
        int64_t u = int64_t(s_hi[ly][2 * lx + t]);
        a += int64_t(ADM_LO[t]) * l;
        v += int64_t(ADM_HI[t]) * l;
        hh += int64_t(ADM_LO[t]) * u;
        d += int64_t(ADM_HI[t]) * u;
    }
    int64_t hr = H_ROUND[lvl];
    uint hs = H_SHIFT[lvl];
    uint plane_size = pc.out_width * pc.out_height;
    uint at = image * 4u * plane_size + uint(oy) * pc.out_width + uint(ox);
    dst[at] = int((a + hr) >> hs);
    dst[at + plane_size] = int((hh + hr) >> hs);
    dst[at + 2u * plane_size] = int((v + hr) >> hs);
    dst[at + 3u * plane_size] = int((d + hr) >> hs);
}
