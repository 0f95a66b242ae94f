#version 460
// Adds ciede.comp's per-workgroup double partials into the frame's ΔE sum,
// stored as the bits of a double in an int64 result slot. The order is
// fixed — thread t adds partials t, t+256, ... in turn, then a fixed tree —
// so the sum is the same on every run. The host turns it into the score
// (`ciede::score`). Driver: metrics/src/features/ciede/gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define THREADS 256u

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Partials { double partials[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };

// Twin: `FoldPush` in metrics/src/features/ciede/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    uint groups;   // partials to add
    uint out_word; // result slot
};

shared double s_sum[THREADS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    double acc = 0.0lf;
    for (uint g = lid; g < groups; g += THREADS) {
        acc += partials[g];
    }
    s_sum[lid] = acc;
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_sum[lid] = s_sum[lid] + s_sum[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u) {
        results[out_word] = doubleBitsToInt64(s_sum[0]);
    }
}
