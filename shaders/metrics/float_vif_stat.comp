#version 460
// float_vif, one scale: the five filtered planes (means of both planes,
// filtered squares, filtered product; mirrored borders, every pixel kept)
// and each pixel's (num, den), stored per pixel for float_row_sums.comp,
// which adds them in libvmaf's order.
// CPU twin: metrics/src/features/float_vif/mod.rs `scale_pixels`
// (filter.rs `vertical` / `horizontal`, stat.rs `pixel`); driver:
// metrics/src/features/float_vif/gpu.rs.
//
// A workgroup owns a TW x TH tile of pixels (TH = 8; TW = VCOLS - 2*HALF
// rounded down to a multiple of P, 112 for scale 0's 17 taps) and runs the
// vertical pass for VCOLS = 128 columns (the tile and its mirrored halo).
// Both passes are register-blocked, as in integer VIF's vif_scale.glsl:
//  - vertical: each invocation owns one column and R = 4 consecutive rows;
//    it loads the R + 2*HALF samples of that column once each, forms a*a,
//    b*b and a*b once per sample, and adds each sample to the (up to R)
//    row accumulators it touches;
//  - horizontal: each invocation owns P = 4 adjacent pixels of a row and
//    reads the P + 2*HALF vertical results it needs once each.
// The loops run over samples and, inside, over the outputs a sample
// touches, so every output still adds its taps in ascending tap order from
// 0: each filtered value is the twin's sum, bit for bit (`precise`
// everywhere, no contraction). TAPS is a specialization constant (one
// pipeline per scale), so the block loops have constant bounds and the
// driver unrolls them. No loop here is marked [[unroll]]: shaderc's
// optimizer then unrolls it itself, drops `NoContraction` from the copies
// of the body and fuses their multiply-adds into float `Fma`s, which
// lavapipe splits again but NVIDIA rounds once (a one-ulp difference from
// the twin on the H100; shaders/tests/precise.rs now catches it).

layout(local_size_x = 256) in;

// Filter width of this scale (odd, at most TAPS_MAX).
layout(constant_id = 0) const uint TAPS = 17u;

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
    float gain_limit;
    float sigma_max_inv;
    uint pad0;
    double sigma_nsq_reciprocal;  // 1/sigma_nsq where exact, else 0
};

// Twin: `STAT_VCOLS`, `STAT_TH`, `STAT_P` and `stat_tile_width` in gpu.rs.
const uint VCOLS = 128u;              // vertical-pass columns per tile
const uint TH = 8u;                   // tile rows
const uint R = 4u;                    // rows per vertical task
const uint P = 4u;                    // pixels per horizontal task: vif_pixel4's lanes
const uint HALF = TAPS / 2u;
const uint TW = (VCOLS - 2u * HALF) / P * P;  // tile columns
const uint TPR = TW / P;              // horizontal tasks per row (15 to 31)

// Vertical results: quantity q (mu1, mu2, x², y², xy), tile row t, column
// c at s_v[q * Q_STRIDE + t * ROW_STRIDE + (c % 4) * QUARTER + c / 4].
// Banks (address mod 32): column c of a row sits in bank
// 8 * (c % 4) + c / 4 (+ the row's offset), so the 32 columns 32w..32w+31
// a vertical store covers hit 32 distinct banks, and so do the horizontal
// loads, where 32 consecutive tasks read columns 4a + m for 32 consecutive
// a (fixed m): the row stride is TPR modulo 32, so task index, not tile
// row, decides the bank when a subgroup spans two rows.
const uint QUARTER = 40u;             // 32 columns + 8, for the bank shift
const uint ROW_STRIDE = 4u * QUARTER + TPR % 32u;
const uint ROW_STRIDE_MAX = 4u * QUARTER + 31u;
const uint Q_STRIDE = TH * ROW_STRIDE_MAX;
shared float s_taps[TAPS_MAX];
shared float s_v[5u * Q_STRIDE];

uint sv_at(uint q, uint row, uint col) {
    return q * Q_STRIDE + row * ROW_STRIDE + (col & 3u) * QUARTER + (col >> 2);
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    int w = int(width);
    int h = int(height);
    for (uint k = lid; k < TAPS; k += 256u) {
        s_taps[k] = consts[taps_at + k];
    }
    barrier();

    uint x0 = gl_WorkGroupID.x * TW;
    uint y0 = gl_WorkGroupID.y * TH;

    // Vertical pass: column c (source column mirror(x0 - HALF + c)), rows
    // rg*R .. rg*R + R-1 of the tile.
    uint c = lid % VCOLS;
    uint rg = lid / VCOLS;
    if (c < TW + 2u * HALF) {
        // Columns past the last pixel's window are computed but never read;
        // clamping keeps them inside the mirror's range, as it does rows
        // below the frame.
        uint col = vif_mirror(min(int(x0) - int(HALF) + int(c), w - 1 + int(HALF)), w);
        int top = int(y0 + rg * R) - int(HALF);
        precise float acc[5][R];
        for (uint r = 0u; r < R; r++) {
            for (uint q = 0u; q < 5u; q++) {
                acc[q][r] = 0.0;
            }
        }
        for (uint i = 0u; i < R + 2u * HALF; i++) {
            uint at = vif_mirror(min(top + int(i), h - 1 + int(HALF)), h) * width + col;
            float a = planes[at];
            float b = planes[dis_at + at];
            precise float aa = a * a;
            precise float bb = b * b;
            precise float ab = a * b;
            // Output row r takes this sample as its tap i - r.
            for (uint r = 0u; r < R; r++) {
                if (i >= r && i - r < TAPS) {
                    float f = s_taps[i - r];
                    acc[0][r] = acc[0][r] + f * a;
                    acc[1][r] = acc[1][r] + f * b;
                    acc[2][r] = acc[2][r] + f * aa;
                    acc[3][r] = acc[3][r] + f * bb;
                    acc[4][r] = acc[4][r] + f * ab;
                }
            }
        }
        for (uint r = 0u; r < R; r++) {
            for (uint q = 0u; q < 5u; q++) {
                s_v[sv_at(q, rg * R + r, c)] = acc[q][r];
            }
        }
    }
    barrier();

    // Horizontal pass: pixels x0 + 4a .. x0 + 4a + 3 of tile row t; pixel
    // x0 + 4a + p's window is vertical columns 4a + p .. 4a + p + 2*HALF.
    if (lid >= TH * TPR) {
        return;
    }
    uint t = lid / TPR;
    uint a4 = (lid % TPR) * P;
    uint y = y0 + t;
    if (y >= height) {
        return;
    }
    precise float v[5][P];
    for (uint p = 0u; p < P; p++) {
        for (uint q = 0u; q < 5u; q++) {
            v[q][p] = 0.0;
        }
    }
    for (uint m = 0u; m < P + 2u * HALF; m++) {
        float s[5];
        for (uint q = 0u; q < 5u; q++) {
            s[q] = s_v[sv_at(q, t, a4 + m)];
        }
        // Pixel p takes this column as its tap m - p.
        for (uint p = 0u; p < P; p++) {
            if (m >= p && m - p < TAPS) {
                float f = s_taps[m - p];
                for (uint q = 0u; q < 5u; q++) {
                    v[q][p] = v[q][p] + f * s[q];
                }
            }
        }
    }
    // The task's P = 4 pixels' statistics side by side (vif_pixel4).
    vec4 filtered[5];
    for (uint q = 0u; q < 5u; q++) {
        filtered[q] = vec4(v[q][0], v[q][1], v[q][2], v[q][3]);
    }
    vec4 num;
    vec4 den;
    vif_pixel4(filtered[0], filtered[1], filtered[2], filtered[3], filtered[4], gain_limit,
               sigma_max_inv, sigma_nsq, sigma_nsq_reciprocal, num, den);
    for (uint p = 0u; p < P; p++) {
        uint x = x0 + a4 + p;
        if (x < width) {
            uint i = y * width + x;
            pixels[i] = num[p];
            pixels[den_at + i] = den[p];
        }
    }
}
