#version 460
// The float sum of each row of per-sample values, from 0 in column order
// (libvmaf's running row sum; a float sum in any other order rounds
// differently). One workgroup per (row, field, segment): its invocations
// copy the row into shared memory a chunk at a time (coalesced loads),
// then invocation 0 adds the chunk in order, carrying its total across
// chunks. With ABS_DIFF the value of sample i is |v[i] − v[i + rows*cols]|
// (two planes of one field, back to back) instead of v[i].
// Driver: metrics/src/row_sums.rs; CPU twins: each feature's row sums.

layout(constant_id = 0) const bool ABS_DIFF = false;

layout(set = 0, binding = 0, std430) readonly buffer Vals { float vals[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Sums { float sums[]; };

#include "float_row_sums.glsl"

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint row = gl_WorkGroupID.x;
    uint field = gl_WorkGroupID.y;
    RowSegment s = segments[gl_WorkGroupID.z];
    // Uniform per workgroup, so no invocation skips a barrier.
    if (row >= s.rows) {
        return;
    }
    uint at = s.vals_base + (field * s.rows + row) * s.cols;
    uint partner = s.rows * s.cols;
    precise float acc = 0.0;
    for (uint x0 = 0u; x0 < s.cols; x0 += CHUNK) {
        uint n = min(CHUNK, s.cols - x0);
        for (uint i = lid; i < n; i += THREADS) {
            float v = vals[at + x0 + i];
            if (ABS_DIFF) {
                precise float d = v - vals[at + partner + x0 + i];
                v = abs(d);
            }
            s_chunk[i] = v;
        }
        barrier();
        if (lid == 0u) {
            for (uint i = 0u; i < n; i++) {
                acc = acc + s_chunk[i];
            }
        }
        barrier();
    }
    if (lid == 0u) {
        sums[s.sums_base + field * s.rows + row] = acc;
    }
}
