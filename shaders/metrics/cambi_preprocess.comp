#version 460
// CAMBI preprocessing (libvmaf's `cambi_preprocessing`), one working-size
// sample per invocation: the nearest input sample through the host's position
// tables, converted to 10 bits, and with `anti_dither` the floor of the mean
// of its 2x2 block (last column with the sample below, last row with the one
// to the right, the last sample kept). The filter reads unfiltered samples
// only, so it is computed from the input directly.
// CPU twin: metrics/src/features/cambi/preprocess.rs; driver: cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Plane { uint plane_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Image { uint image[]; };

#define PLANE_WORDS plane_words
#include "plane.glsl"

// Twin: `PreprocessPush` in metrics/src/features/cambi/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc plane;
    uint width;       // working size
    uint height;
    uint x_table;     // word offsets of the position tables in `tables`
    uint y_table;
    uint anti_dither; // 1: smooth (encodes below 10 bits)
    uint pad0;
    uint pad1;
    uint pad2;
};

uint ten_bit(uint v) {
    if (plane.bpc <= 10u) {
        return v << (10u - plane.bpc);
    }
    uint shift = plane.bpc - 10u;
    return (v + (1u << (shift - 1u))) >> shift;
}

uint at(uint x, uint y) {
    return ten_bit(plane_load(plane, tables[x_table + x], tables[y_table + y]));
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) {
        return;
    }
    uint v = at(x, y);
    if (anti_dither != 0u) {
        bool last_col = x + 1u == width;
        bool last_row = y + 1u == height;
        if (!last_row && !last_col) {
            v = (v + at(x + 1u, y) + at(x, y + 1u) + at(x + 1u, y + 1u)) >> 2;
        } else if (!last_row) {
            v = (v + at(x, y + 1u)) >> 1;
        } else if (!last_col) {
            v = (v + at(x + 1u, y)) >> 1;
        }
    }
    image[y * width + x] = v;
}
