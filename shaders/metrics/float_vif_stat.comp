#version 460
// float_vif, one scale: the five filtered planes (means of both planes,
// filtered squares, filtered product; mirrored borders, every pixel kept)
// and each pixel's (num, den), stored per pixel for float_row_sums.comp,
// which adds them in libvmaf's order.
// CPU twin: metrics/src/features/float_vif/mod.rs `scale_pixels`
// (filter.rs `vertical` / `horizontal`, stat.rs `pixel`); driver:
// metrics/src/features/float_vif/gpu.rs.
//
// A workgroup owns a TW x TH tile. It runs the vertical pass of all five
// quantities for the TH rows at every column the tile's horizontal windows
// touch (TW + 2r, mirrored) into shared memory, then each invocation runs
// its pixel's horizontal passes from there and the statistic. Each filtered
// value is the twin's sum in the twin's tap order, bit for bit.
#define TW 32u
#define TH 8u
layout(local_size_x = TW, local_size_y = TH) in;

// This scale's planes (reference at 0, distorted at dis_at) and its
// per-pixel values (num at 0, den at den_at), each bound to its own range.
layout(set = 0, binding = 0, std430) readonly buffer Planes { float planes[]; };
layout(set = 0, binding = 1, std430) readonly buffer Consts { float consts[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Pixels { float pixels[]; };

#include "float_vif_common.glsl"

// Twin: `StatPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    double sigma_nsq;
    uint width;
    uint height;
    uint dis_at;
    uint den_at;
    uint taps_at;
    uint taps;
    float gain_limit;
    float sigma_max_inv;
};

#define COLS (TW + 2u * R_MAX)
shared float s_taps[TAPS_MAX];
// mu1, mu2, x², y², xy after the vertical pass.
shared float s_v[5][TH][COLS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    int r = int(taps / 2u);
    int w = int(width);
    int h = int(height);
    for (uint k = lid; k < taps; k += TW * TH) {
        s_taps[k] = consts[taps_at + k];
    }
    barrier();

    uint x0 = gl_WorkGroupID.x * TW;
    uint y0 = gl_WorkGroupID.y * TH;
    uint cols = TW + 2u * uint(r);
    for (uint item = lid; item < cols * TH; item += TW * TH) {
        uint c = item % cols;
        uint t = item / cols;
        uint y = min(y0 + t, height - 1u);
        // Columns past the last pixel's window are computed but never read;
        // clamping keeps them inside the mirror's range.
        uint col = vif_mirror(min(int(x0) - r + int(c), w - 1 + r), w);
        precise float m1 = 0.0;
        precise float m2 = 0.0;
        precise float sxx = 0.0;
        precise float syy = 0.0;
        precise float sxy = 0.0;
        for (uint k = 0u; k < taps; k++) {
            uint i = vif_mirror(int(y) - r + int(k), h) * width + col;
            float a = planes[i];
            float b = planes[dis_at + i];
            float f = s_taps[k];
            m1 = m1 + f * a;
            m2 = m2 + f * b;
            sxx = sxx + f * (a * a);
            syy = syy + f * (b * b);
            sxy = sxy + f * (a * b);
        }
        s_v[0][t][c] = m1;
        s_v[1][t][c] = m2;
        s_v[2][t][c] = sxx;
        s_v[3][t][c] = syy;
        s_v[4][t][c] = sxy;
    }
    barrier();

    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    uint x = x0 + lx;
    uint y = y0 + ly;
    if (x >= width || y >= height) {
        return;
    }
    precise float v[5] = float[5](0.0, 0.0, 0.0, 0.0, 0.0);
    for (uint k = 0u; k < taps; k++) {
        float f = s_taps[k];
        for (uint q = 0u; q < 5u; q++) {
            v[q] = v[q] + f * s_v[q][ly][lx + k];
        }
    }
    vec2 nd = vif_pixel(v[0], v[1], v[2], v[3], v[4], gain_limit, sigma_max_inv, sigma_nsq);
    uint i = y * width + x;
    pixels[i] = nd.x;
    pixels[den_at + i] = nd.y;
}
