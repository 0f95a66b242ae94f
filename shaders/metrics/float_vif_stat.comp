#version 460
// float_vif, one scale: the five filtered planes (means of both planes,
// filtered squares, filtered product; mirrored borders, every pixel kept)
// and each pixel's (num, den), stored per pixel for float_row_sums.comp,
// which adds them in libvmaf's order; and, fused in, the next scale's two
// planes: this scale's filtered with the next scale's taps at the even rows
// and columns only (vif_dec2_s), from the samples the vertical pass loads
// anyway.
// CPU twin: metrics/src/features/float_vif/mod.rs `scale_pixels`
// (filter.rs `vertical` / `horizontal`, stat.rs `pixel`) and filter.rs
// `decimate`; driver: metrics/src/features/float_vif/gpu.rs.
//
// A workgroup owns a TW x TH tile of pixels (TH = 4 rows; TW = VCOLS -
// 2*HALF rounded down to a multiple of P, 240 for scale 0's 17 taps, so
// 3840 and 1920 are whole numbers of tiles) and runs the vertical pass for
// VCOLS = 256 columns (the tile and its mirrored halo). One row of 256
// columns rather than two rows of 128 halves the halo's share of the
// vertical pass (16/256 of the columns at scale 0). Both passes are
// register-blocked, as in integer VIF's vif_scale.glsl:
//  - vertical: each invocation owns one column and the tile's R = TH = 4
//    rows; it loads the R + 2*HALF samples of that column once each, forms
//    a*a, b*b and a*b once per sample, and adds each sample to the (up to R)
//    row accumulators it touches;
//  - horizontal: each invocation owns P = 4 adjacent pixels of a row and
//    reads the P + 2*HALF vertical results it needs once each.
// The loops run over samples and, inside, over the outputs a sample
// touches, so every output still adds its taps in ascending tap order from
// 0: each filtered value is the twin's sum, bit for bit (`precise`
// everywhere, no contraction). The taps and their count are specialization
// constants (float_vif_taps.glsl; one pipeline per scale), so the block
// loops have constant bounds, the driver unrolls them and each tap is an
// immediate of its multiply. No loop here is marked [[unroll]]: shaderc's
// optimizer then unrolls it itself, drops `NoContraction` from the copies
// of the body and fuses their multiply-adds into float `Fma`s, which
// lavapipe splits again but NVIDIA rounds once (a one-ulp difference from
// the twin on the H100; shaders/tests/precise.rs now catches it).
//
// Decimation: the tile's rows y0 and y0 + 2 (y0 a multiple of 4) are the
// next scale's rows y0/2 and y0/2 + 1. The vertical task of column c adds
// the next filter's taps of both planes at those two rows (their windows,
// no wider than this scale's, lie within the samples it loads) into
// shared memory; after the barrier, invocations add the next filter's taps
// horizontally at the tile's even columns and store the next scale's
// samples. STATS false (the scale-0 statistics skipped, skip_scale0) leaves
// only that work.

layout(local_size_x = 256) in;

// This scale's planes (reference at 0, distorted at dis_at), its
// per-pixel values (num at 0, den at den_at) and the next scale's planes
// (reference at 0, distorted after it), each bound to its own range.
layout(set = 0, binding = 0, std430) readonly buffer Planes { float planes[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Pixels { float pixels[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Next { float next[]; };

#include "float_vif_common.glsl"
#include "float_vif_taps.glsl"

// False: this scale's statistics are not wanted (scale 0 with
// skip_scale0), only the next scale's planes.
layout(constant_id = 250) const bool STATS = true;
const bool DECIMATE = NEXT_TAPS > 0u;
const uint NEXT_HALF = NEXT_TAPS / 2u;

// Twin: `StatPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    double sigma_nsq;
    uint width;
    uint height;
    uint dis_at;
    uint den_at;
    float gain_limit;
    float sigma_max_inv;
};

// Twin: `STAT_VCOLS`, `STAT_TH`, `STAT_P` and `stat_tile_width` in gpu.rs.
const uint VCOLS = 256u;              // vertical-pass columns per tile
const uint TH = 4u;                   // tile rows
const uint R = TH;                    // rows per vertical task
const uint P = 4u;                    // pixels per horizontal task
const uint HALF = TAPS / 2u;
const uint TW = (VCOLS - 2u * HALF) / P * P;  // tile columns
const uint TPR = TW / P;              // horizontal tasks per row (47 to 63)

// Vertical results: quantity q (mu1, mu2, x², y², xy), tile row t, column
// c at s_v[q * Q_STRIDE + t * ROW_STRIDE + (c % 4) * QUARTER + c / 4].
// Banks (address mod 32): column c of a row sits in bank
// 8 * (c % 4) + c / 4 (+ the row's offset, mod 32), so the 32 columns
// 32w..32w+31 a vertical store covers hit 32 distinct banks, and so do the
// horizontal loads, where 32 consecutive tasks read columns 4a + m for 32
// consecutive a (fixed m): the row stride is TPR modulo 32, so task index,
// not tile row, decides the bank when a subgroup spans two rows.
const uint QUARTER = 72u;             // 64 columns + 8, for the bank shift
const uint ROW_STRIDE = 4u * QUARTER + TPR % 32u;
const uint ROW_STRIDE_MAX = 4u * QUARTER + 31u;
const uint Q_STRIDE = TH * ROW_STRIDE_MAX;
shared float s_v[5u * Q_STRIDE];

uint sv_at(uint q, uint row, uint col) {
    return q * Q_STRIDE + row * ROW_STRIDE + (col & 3u) * QUARTER + (col >> 2);
}

// The next scale's vertical sums: plane p, next row d (0, 1), column c at
// s_d[(p * 2 + d) * D_STRIDE + (c % 2) * D_HALF + c / 2]. The horizontal
// pass reads columns 2x + m for consecutive x (fixed m): consecutive
// words; a store of 32 consecutive columns hits banks 16 apart for odd and
// even c (D_HALF = 16 mod 32): 32 distinct banks.
const uint D_HALF = 144u;
const uint D_STRIDE = 2u * D_HALF;
shared float s_d[4u * D_STRIDE];

uint sd_at(uint plane, uint d, uint col) {
    return (plane * 2u + d) * D_STRIDE + (col & 1u) * D_HALF + (col >> 1);
}

// The vertical pass of column c (plane column `col`) for the tile's rows,
// whose windows start at plane row `top`. `inside`: every row of the
// windows lies in the plane (no mirror, one add per row's address); a
// constant at both call sites, so each gets its own code.
void vertical(uint c, uint col, int top, bool inside) {
    int h = int(height);
    precise float acc[5][R];
    for (uint r = 0u; r < R; r++) {
        for (uint q = 0u; q < 5u; q++) {
            acc[q][r] = 0.0;
        }
    }
    // The next scale's vertical sums of both planes at rows y0, y0 + 2.
    precise float dec[2][2];
    for (uint d = 0u; d < 2u; d++) {
        dec[0][d] = 0.0;
        dec[1][d] = 0.0;
    }
    for (uint i = 0u; i < R + 2u * HALF; i++) {
        // Rows below the frame (tile rows past its last) are clamped into
        // the mirror's range; their results are never read.
        uint row = inside ? uint(top + int(i))
                          : vif_mirror(min(top + int(i), h - 1 + int(HALF)), h);
        uint at = row * width + col;
        float a = planes[at];
        float b = planes[dis_at + at];
        if (STATS) {
            precise float aa = a * a;
            precise float bb = b * b;
            precise float ab = a * b;
            // Output row r takes this sample as its tap i - r.
            for (uint r = 0u; r < R; r++) {
                if (i >= r && i - r < TAPS) {
                    float f = VIF_TAPS[i - r];
                    acc[0][r] = acc[0][r] + f * a;
                    acc[1][r] = acc[1][r] + f * b;
                    acc[2][r] = acc[2][r] + f * aa;
                    acc[3][r] = acc[3][r] + f * bb;
                    acc[4][r] = acc[4][r] + f * ab;
                }
            }
        }
        if (DECIMATE) {
            // Row y0 + 2d's window starts at sample HALF - NEXT_HALF + 2d.
            for (uint d = 0u; d < 2u; d++) {
                uint first = HALF - NEXT_HALF + 2u * d;
                if (i >= first && i - first < NEXT_TAPS) {
                    float g = VIF_NEXT_TAPS[i - first];
                    dec[0][d] = dec[0][d] + g * a;
                    dec[1][d] = dec[1][d] + g * b;
                }
            }
        }
    }
    if (STATS) {
        for (uint r = 0u; r < R; r++) {
            for (uint q = 0u; q < 5u; q++) {
                s_v[sv_at(q, r, c)] = acc[q][r];
            }
        }
    }
    if (DECIMATE) {
        for (uint d = 0u; d < 2u; d++) {
            s_d[sd_at(0u, d, c)] = dec[0][d];
            s_d[sd_at(1u, d, c)] = dec[1][d];
        }
    }
}

const uint NX = TW / 2u;

// The next scale's samples of this tile: NX x 2 of each plane. Next
// column x0/2 + xx's window is vertical columns 2xx + HALF - NEXT_HALF ..
// (+ NEXT_TAPS - 1), inside the ones computed since NEXT_HALF <= HALF.
void decimate(uint lid, uint x0, uint y0) {
    uint nw = width / 2u;
    uint nh = height / 2u;
    for (uint item = lid; item < 4u * NX; item += 256u) {
        uint plane = item / (2u * NX);
        uint d = (item / NX) % 2u;
        uint xx = item % NX;
        uint x = x0 / 2u + xx;
        uint y = y0 / 2u + d;
        if (x < nw && y < nh) {
            precise float acc = 0.0;
            for (uint k = 0u; k < NEXT_TAPS; k++) {
                float g = VIF_NEXT_TAPS[k];
                acc = acc + g * s_d[sd_at(plane, d, 2u * xx + HALF - NEXT_HALF + k)];
            }
            next[plane * nw * nh + y * nw + x] = acc;
        }
    }
}

void main() {
    vif_init_taps();
    uint lid = gl_LocalInvocationIndex;
    int w = int(width);
    uint x0 = gl_WorkGroupID.x * TW;
    uint y0 = gl_WorkGroupID.y * TH;

    // Vertical pass: column c (source column mirror(x0 - HALF + c)).
    uint c = lid;
    if (c < TW + 2u * HALF) {
        // Columns past the last pixel's window are computed but never read;
        // clamping keeps them inside the mirror's range, as it does rows
        // below the frame.
        uint col = vif_mirror(min(int(x0) - int(HALF) + int(c), w - 1 + int(HALF)), w);
        int top = int(y0) - int(HALF);
        if (top >= 0 && y0 + TH + HALF <= height) {
            vertical(c, col, top, true);
        } else {
            vertical(c, col, top, false);
        }
    }
    barrier();

    if (DECIMATE) {
        decimate(lid, x0, y0);
    }
    if (!STATS) {
        return;
    }

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
                float f = VIF_TAPS[m - p];
                for (uint q = 0u; q < 5u; q++) {
                    v[q][p] = v[q][p] + f * s[q];
                }
            }
        }
    }
    for (uint p = 0u; p < P; p++) {
        uint x = x0 + a4 + p;
        if (x < width) {
            vec2 nd = vif_pixel(v[0][p], v[1][p], v[2][p], v[3][p], v[4][p], gain_limit,
                                sigma_max_inv, sigma_nsq);
            uint i = y * width + x;
            pixels[i] = nd.x;
            pixels[den_at + i] = nd.y;
        }
    }
}
