#version 460
// Folds per-workgroup int64 partial sums: partials holds `groups` records of
// `fields` int64 values each; workgroup j writes the sum of field j over all
// records to out[out_base + j]. Integer addition is associative, so the
// result does not depend on the order the GPU adds in.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer Partials { int64_t partials[]; };
layout(set = 0, binding = 1, std430) buffer Out { int64_t results[]; };
layout(push_constant) uniform Push {
    uint fields;
    uint groups;
    uint out_base;
};

shared int64_t s_sum[256];

void main() {
    uint field = gl_WorkGroupID.x;
    int64_t sum = 0;
    for (uint g = gl_LocalInvocationIndex; g < groups; g += 256u) {
        sum += partials[g * fields + field];
    }
    s_sum[gl_LocalInvocationIndex] = sum;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
        if (gl_LocalInvocationIndex < half_size) {
            s_sum[gl_LocalInvocationIndex] += s_sum[gl_LocalInvocationIndex + half_size];
        }
        barrier();
    }
    if (gl_LocalInvocationIndex == 0u) {
        results[out_base + field] = s_sum[0];
    }
}
