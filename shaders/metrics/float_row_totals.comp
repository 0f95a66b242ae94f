#version 460
// The float sum of a field's row totals, from 0 in row order (libvmaf's
// outer accumulator), one workgroup per (field, segment): its invocations
// copy the row totals into shared memory a chunk at a time (coalesced),
// then invocation 0 adds them in order (add_slice, loading ahead of its
// adds). The float's bits go, zero-extended (with WIDEN: the bits of the
// float widened to double), to the result word out_base + segment*fields +
// field; a segment of 0 rows leaves 0.
// Driver: metrics/src/row_sums.rs; CPU twins: each feature's totals.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(constant_id = 0) const bool WIDEN = false;

layout(set = 0, binding = 0, std430) readonly buffer Sums { float sums[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Results { int64_t results[]; };

#define THREADS 64u
// Floats staged in shared memory per step; THREADS divides it.
#define CHUNK 1024u
layout(local_size_x = THREADS) in;

shared float s_rows[CHUNK];
#define AHEAD 16u

#include "float_row_sums.glsl"

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint field = gl_WorkGroupID.x;
    uint segment = gl_WorkGroupID.y;
    RowSegment s = segments[segment];
    uint at = s.sums_base + field * s.rows;
    precise float acc = 0.0;
    for (uint y0 = 0u; y0 < s.rows; y0 += CHUNK) {
        uint n = min(CHUNK, s.rows - y0);
        for (uint i = lid; i < n; i += THREADS) {
            s_rows[i] = sums[at + y0 + i];
        }
        barrier();
        if (lid == 0u) {
            acc = add_slice(acc, 0u, n);
        }
        barrier();
    }
    if (lid == 0u) {
        results[out_base + segment * fields + field] =
            WIDEN ? doubleBitsToInt64(double(acc)) : int64_t(floatBitsToUint(acc));
    }
}
