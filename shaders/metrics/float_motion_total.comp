#version 460
// float_motion, pass 5 of 5: libvmaf's float running total of the row sums,
// in row order, one invocation per scale (0: full size, 1: half size with
// motion_add_scale1); the float's bits go to the result word. CPU twin:
// `abs_diff_sum` in metrics/src/features/float_motion/mod.rs; driver: its
// gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 2) in;

// Row sums of scale 0 at [0, count0), of scale 1 at [count0, count0 + count1).
layout(set = 0, binding = 0, std430) readonly buffer Rows { float rows[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Results { int64_t results[]; };

// Twin: `TotalPush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint count0;
    uint count1;
    uint out_word;
};

void main() {
    uint scale = gl_LocalInvocationIndex;
    uint first = scale == 0u ? 0u : count0;
    uint count = scale == 0u ? count0 : count1;
    if (count == 0u) {
        return;
    }
    precise float total = 0.0;
    for (uint i = 0u; i < count; i++) {
        total = total + rows[first + i];
    }
    results[out_word + scale] = int64_t(floatBitsToUint(total));
}
