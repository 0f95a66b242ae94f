#version 460
// The float sum of each row of per-sample values, from 0 in column order
// (libvmaf's running row sum; a float sum in any other order rounds
// differently). One workgroup per (row, field, segment): its loaders copy
// the row into shared memory a chunk at a time (coalesced loads) while
// invocation 0 adds the previous chunk in order (float_row_sums.glsl).
// With ABS_DIFF the value of sample i is |v[i] − v[i + rows*cols]| (two
// planes of one field, back to back) instead of v[i].
// Driver: metrics/src/row_sums.rs; CPU twins: each feature's row sums.

layout(constant_id = 0) const bool ABS_DIFF = false;

layout(set = 0, binding = 0, std430) readonly buffer Vals { float vals[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Sums { float sums[]; };

float value_at(uint i, uint partner) {
    float v = vals[i];
    if (ABS_DIFF) {
        precise float d = v - vals[i + partner];
        v = abs(d);
    }
    return v;
}

#include "float_row_sums.glsl"

void main() {
    uint row = gl_WorkGroupID.x;
    uint field = gl_WorkGroupID.y;
    RowSegment s = segments[gl_WorkGroupID.z];
    // Uniform per workgroup, so no invocation skips a barrier.
    if (row >= s.rows) {
        return;
    }
    uint at = s.vals_base + (field * s.rows + row) * s.cols;
    float acc = ordered_sum(at, s.cols, s.rows * s.cols);
    if (gl_LocalInvocationIndex == 0u) {
        sums[s.sums_base + field * s.rows + row] = acc;
    }
}
