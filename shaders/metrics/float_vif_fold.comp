#version 460
// float_vif, last step: each scale's num and den, the float sum of its row
// totals in row order (libvmaf's outer accumulator), one invocation per
// sum, written as the bits of the float widened to double. A scale that is
// not computed (vif_skip_scale0) reads 0.
// CPU twin: metrics/src/features/float_vif/mod.rs `sum_rows`;
// driver: metrics/src/features/float_vif/gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8) in;

layout(set = 0, binding = 0, std430) readonly buffer Rows { float rows[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Results { int64_t results[]; };

// Twin: `FoldPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint rows_at[4];    // first num row total of each scale; den follows
    uint heights[4];
    uint first_scale;
    uint out_at;
};

void main() {
    uint i = gl_LocalInvocationID.x;
    uint scale = i / 2u;
    float acc = 0.0;
    if (scale >= first_scale) {
        uint at = rows_at[scale] + (i % 2u) * heights[scale];
        for (uint y = 0u; y < heights[scale]; y++) {
            acc += rows[at + y];
        }
    }
    results[out_at + i] = doubleBitsToInt64(double(acc));
}
