#version 460
// float_vif, step 1: the luma pair as libvmaf's float VIF reads it,
// v / 2^(bpc-8) - 128, into the float planes of scale 0 (`planes` is bound
// to scale 0's range).
// CPU twin: metrics/src/features/float_vif/mod.rs `input_plane`;
// driver: metrics/src/features/float_vif/gpu.rs.
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Planes { float planes[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// Twin: `InputPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint dis_at;        // first float of the distorted plane (reference at 0)
    float sample_scale; // 1 / 2^(bpc-8), exact
};

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= ref_plane.width || y >= ref_plane.height) {
        return;
    }
    // Dividing by a power of two equals multiplying by its exact inverse.
    precise float r = float(plane_load(ref_plane, x, y)) * sample_scale + -128.0;
    precise float d = float(plane_load_b(dis_plane, x, y)) * sample_scale + -128.0;
    uint i = y * ref_plane.width + x;
    planes[i] = r;
    planes[dis_at + i] = d;
}
