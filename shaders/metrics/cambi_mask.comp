#version 460
// CAMBI's spatial mask (libvmaf's `get_spatial_mask`): 1 where the 7x7 window
// around a sample (clipped to the frame) holds more than `mask_threshold`
// zero-derivative samples. Exact integer counts.
// CPU twin: metrics/src/features/cambi/mask.rs; driver: cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Zero { uint zero[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Mask { uint mask[]; };

#include "cambi_common.glsl"

void main() {
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int w = int(width);
    int h = int(height);
    if (x >= w || y >= h) {
        return;
    }
    uint count = 0u;
    for (int r = max(y - 3, 0); r <= min(y + 3, h - 1); r++) {
        for (int c = max(x - 3, 0); c <= min(x + 3, w - 1); c++) {
            count += zero[r * w + c];
        }
    }
    mask[y * w + x] = count > mask_threshold ? 1u : 0u;
}
