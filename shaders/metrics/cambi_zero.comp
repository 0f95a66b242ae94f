#version 460
// CAMBI's zero-derivative map (libvmaf's `get_derivative_data_for_row`): 1
// where a working-size sample equals its right and its lower neighbour (a
// missing neighbour counts as equal). Input of cambi_mask.comp.
// CPU twin: metrics/src/features/cambi/mask.rs; driver: cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Image { uint image[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Zero { uint zero[]; };

#include "cambi_common.glsl"

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) {
        return;
    }
    uint i = y * width + x;
    uint v = image[i];
    bool flat_h = x + 1u == width || v == image[i + 1u];
    bool flat_v = y + 1u == height || v == image[i + width];
    zero[i] = (flat_h && flat_v) ? 1u : 0u;
}
