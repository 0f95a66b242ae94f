#version 460
// One CAMBI scale's image (libvmaf's `decimate` and `filter_mode`): the grid
// read every `step` samples, then its 3x3 mode filter (horizontal mode3 of
// neighbours, first and last column kept; vertical mode3 of those for every
// row but the first and last, which stay unfiltered; nothing below 3 rows).
// Writes the filtered image (the next scale's input) and the grid the
// c-values count: the code where the mask (read at (i, j) << mask_shift) is
// set and the code lies in the histogram band, CAMBI_NONE elsewhere, at its
// scale's place (`offset`) in the codes of all scales.
// CPU twin: metrics/src/features/cambi/scale.rs; driver: cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Source { uint source[]; };
layout(set = 0, binding = 1, std430) readonly buffer Mask { uint mask[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Image { uint image[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Codes { uint codes[]; };

#include "cambi_common.glsl"

uint sample_at(uint x, uint y) {
    return source[y * step * src_width + x * step];
}

uint mode3(uint a, uint b, uint c) {
    if (a == b || a == c) {
        return a;
    }
    if (b == c) {
        return b;
    }
    return min(min(a, b), c);
}

uint horizontal(uint x, uint y) {
    if (x == 0u || x + 1u >= width) {
        return sample_at(x, y);
    }
    return mode3(sample_at(x - 1u, y), sample_at(x, y), sample_at(x + 1u, y));
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) {
        return;
    }
    uint v;
    if (height < 3u || y == 0u || y + 1u == height) {
        v = sample_at(x, y);
    } else {
        v = mode3(horizontal(x, y - 1u), horizontal(x, y), horizontal(x, y + 1u));
    }
    uint i = y * width + x;
    image[i] = v;
    bool masked = mask[(y << mask_shift) * mask_width + (x << mask_shift)] != 0u;
    codes[offset + i] = (masked && v - band_base < band_size) ? v : CAMBI_NONE;
}
