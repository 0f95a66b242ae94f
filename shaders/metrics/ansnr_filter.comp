#version 460
// float_ansnr, per pixel: the reference filtered with its 3x3 kernel and the
// distorted with its 5x5 one, then the two terms libvmaf adds up,
// rf² and (rf − df)², each a float product rounded as libvmaf rounds it, in
// two row-major planes (rf² at [0, w*h), (rf − df)² at [w*h, 2*w*h)).
// The shared float_row_sums.comp / float_row_totals.comp then add them in
// libvmaf's order.
// CPU twin: metrics/src/features/float_ansnr/mod.rs (`filter`,
// `ansnr_sums`); driver: metrics/src/features/float_ansnr/gpu.rs.
//
// Every float operation is `precise`: libvmaf's filters are sums of
// separately rounded products, in a fixed order, with no fused multiply-add.

#define TILE 16
// The 5x5 filter reaches 2 samples beyond the tile on each side.
#define HALO 2
#define SPAN (TILE + 2 * HALO)
#define REF_SIDE 3
#define DIS_SIDE 5

layout(local_size_x = TILE, local_size_y = TILE) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
// REF_SIDE² reference taps, then DIS_SIDE² distorted taps, row-major: the
// twin's REF_TAPS and DIS_TAPS, uploaded by the driver.
layout(set = 0, binding = 2, std430) readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Terms { float terms[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// Twin: `FilterPush` in metrics/src/features/float_ansnr/gpu.rs; the two
// must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    // 1 / libvmaf's divisor (1, 4, 16, 256): a power of two, so multiplying
    // by it is libvmaf's exact division.
    float inv_scaler;
};

shared float s_ref[SPAN][SPAN];
shared float s_dis[SPAN][SPAN];

// libvmaf's mirror (twin: `mirror`): -i reads i, n-1+i reads n-i. Tile
// positions that no output in the plane reads may fall outside even that;
// they are clamped into the plane only so that the load stays in bounds.
int ansnr_mirror(int i, int n) {
    int m = i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i);
    return clamp(m, 0, n - 1);
}

// A sample as libvmaf's picture_copy leaves it for ANSNR: v / scaler − 128,
// exact.
float shifted(uint v) {
    precise float scaled = float(v) * inv_scaler;
    precise float s = scaled - 128.0;
    return s;
}

void main() {
    int width = int(ref_plane.width);
    int height = int(ref_plane.height);
    uint lid = gl_LocalInvocationIndex;
    int x0 = int(gl_WorkGroupID.x) * TILE;
    int y0 = int(gl_WorkGroupID.y) * TILE;
    for (uint i = lid; i < uint(SPAN * SPAN); i += uint(TILE * TILE)) {
        int tx = int(i % uint(SPAN));
        int ty = int(i / uint(SPAN));
        uint x = uint(ansnr_mirror(x0 - HALO + tx, width));
        uint y = uint(ansnr_mirror(y0 - HALO + ty, height));
        s_ref[ty][tx] = shifted(plane_load(ref_plane, x, y));
        s_dis[ty][tx] = shifted(plane_load_b(dis_plane, x, y));
    }
    barrier();

    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int x = x0 + lx;
    int y = y0 + ly;
    if (x >= width || y >= height) {
        return;
    }
    // Per kernel row a float sum of float products left to right; the row
    // sums added top to bottom (libvmaf's accum_inner / accum).
    precise float rf = 0.0;
    for (int fi = 0; fi < REF_SIDE; fi++) {
        precise float inner = 0.0;
        for (int fj = 0; fj < REF_SIDE; fj++) {
            precise float p = taps[fi * REF_SIDE + fj] * s_ref[ly + HALO - 1 + fi][lx + HALO - 1 + fj];
            inner += p;
        }
        rf += inner;
    }
    precise float df = 0.0;
    for (int fi = 0; fi < DIS_SIDE; fi++) {
        precise float inner = 0.0;
        for (int fj = 0; fj < DIS_SIDE; fj++) {
            precise float p =
                taps[REF_SIDE * REF_SIDE + fi * DIS_SIDE + fj] * s_dis[ly + fi][lx + fj];
            inner += p;
        }
        df += inner;
    }
    precise float sig = rf * rf;
    precise float diff = rf - df;
    precise float noise = diff * diff;
    uint at = uint(y) * uint(width) + uint(x);
    terms[at] = sig;
    terms[uint(width) * uint(height) + at] = noise;
}
