#version 460
// CAMBI's spatial mask (libvmaf's `get_spatial_mask`): 1 where the 7x7 window
// around a sample (clipped to the frame) holds more than `mask_threshold`
// zero-derivative samples (libvmaf's `get_derivative_data_for_row`: samples
// equal to their right and their lower neighbour, a missing neighbour
// counting as equal). A workgroup loads its tile of the working-size image
// with the window's halo, derives the zero map of the tile and halo in
// shared memory (0 outside the frame, which clips the windows) and counts
// from it, first along the window's rows, then down its columns. Exact
// integer counts.
// CPU twin: metrics/src/features/cambi/mask.rs; driver: cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Image { uint image[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Mask { uint mask[]; };

#include "cambi_common.glsl"

#define TILE 16
#define RADIUS 3
// The zero map of the tile and its halo, and the samples it compares.
#define ZERO_SIDE (TILE + 2 * RADIUS)
#define IMAGE_SIDE (ZERO_SIDE + 1)

shared uint s_image[IMAGE_SIDE * IMAGE_SIDE];
shared uint s_zero[ZERO_SIDE * ZERO_SIDE];
// Per row of the zero map, the counts of the windows' rows around each of the
// tile's columns.
shared uint s_rows[ZERO_SIDE * TILE];

void main() {
    int w = int(width);
    int h = int(height);
    int x0 = int(gl_WorkGroupID.x) * TILE - RADIUS;
    int y0 = int(gl_WorkGroupID.y) * TILE - RADIUS;
    uint lid = gl_LocalInvocationIndex;
    for (uint i = lid; i < IMAGE_SIDE * IMAGE_SIDE; i += TILE * TILE) {
        int x = x0 + int(i % IMAGE_SIDE);
        int y = y0 + int(i / IMAGE_SIDE);
        bool inside = x >= 0 && x < w && y >= 0 && y < h;
        s_image[i] = inside ? image[y * w + x] : 0u;
    }
    barrier();
    for (uint i = lid; i < ZERO_SIDE * ZERO_SIDE; i += TILE * TILE) {
        uint tx = i % ZERO_SIDE;
        uint ty = i / ZERO_SIDE;
        int x = x0 + int(tx);
        int y = y0 + int(ty);
        uint zero = 0u;
        if (x >= 0 && x < w && y >= 0 && y < h) {
            uint v = s_image[ty * IMAGE_SIDE + tx];
            bool flat_h = x + 1 == w || v == s_image[ty * IMAGE_SIDE + tx + 1u];
            bool flat_v = y + 1 == h || v == s_image[(ty + 1u) * IMAGE_SIDE + tx];
            zero = (flat_h && flat_v) ? 1u : 0u;
        }
        s_zero[i] = zero;
    }
    barrier();
    for (uint i = lid; i < ZERO_SIDE * TILE; i += TILE * TILE) {
        uint first = (i / TILE) * ZERO_SIDE + i % TILE;
        uint sum = 0u;
        for (uint c = 0u; c < 2u * RADIUS + 1u; c++) {
            sum += s_zero[first + c];
        }
        s_rows[i] = sum;
    }
    barrier();
    uint lx = gl_LocalInvocationID.x;
    uint ly = gl_LocalInvocationID.y;
    int x = x0 + RADIUS + int(lx);
    int y = y0 + RADIUS + int(ly);
    if (x >= w || y >= h) {
        return;
    }
    uint count = 0u;
    for (uint r = 0u; r < 2u * RADIUS + 1u; r++) {
        count += s_rows[(ly + r) * TILE + lx];
    }
    mask[y * w + x] = count > mask_threshold ? 1u : 0u;
}
