#version 460
// The float sum of a field's row totals, from 0 in row order (libvmaf's
// outer accumulator), one workgroup per (field, segment): its loaders copy
// the row totals into shared memory a chunk at a time (coalesced) while
// invocation 0 adds the previous chunk in order (float_row_sums.glsl). The
// float's bits go, zero-extended (with WIDEN: the bits of the float widened
// to double), to the result word out_base + segment*fields + field; a
// segment of 0 rows leaves 0.
// Driver: metrics/src/row_sums.rs; CPU twins: each feature's totals.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(constant_id = 0) const bool WIDEN = false;

layout(set = 0, binding = 0, std430) readonly buffer Sums { float sums[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Results { int64_t results[]; };

float value_at(uint i, uint partner) {
    return sums[i];
}

#include "float_row_sums.glsl"

void main() {
    uint field = gl_WorkGroupID.x;
    uint segment = gl_WorkGroupID.y;
    RowSegment s = segments[segment];
    float acc = ordered_sum(s.sums_base + field * s.rows, s.rows, 0u);
    if (gl_LocalInvocationIndex == 0u) {
        results[out_base + segment * fields + field] =
            WIDEN ? doubleBitsToInt64(double(acc)) : int64_t(floatBitsToUint(acc));
    }
}
