#version 460
// CAMBI's input check (libvmaf's `validate_image`): whether any luma sample
// of the whole input plane exceeds 2^bpc - 1. libvmaf refuses such a frame
// ("values greater than 1023" at 10 bits) before preprocessing, which reads
// only the decimated samples, so every sample is checked here. One sample
// per invocation; an offending invocation sets the picture's bit in
// `flags[0]` (zeroed by the host each frame).
// CPU twin: metrics/src/features/cambi/preprocess.rs `first_out_of_range`;
// driver: metrics/src/features/cambi/gpu.rs.

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Plane { uint plane_words[]; };
layout(set = 0, binding = 1, std430) buffer Flags { uint flags[]; };

#define PLANE_WORDS plane_words
#include "plane.glsl"

// Twin: `RangePush` in metrics/src/features/cambi/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc plane;
    uint bit;   // this picture's flag
    uint pad0;
    uint pad1;
    uint pad2;
};

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= plane.width || y >= plane.height) {
        return;
    }
    if (plane_load(plane, x, y) > (1u << plane.bpc) - 1u) {
        atomicOr(flags[0], bit);
    }
}
