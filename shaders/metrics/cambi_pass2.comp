#version 460
// Top-k selection, step 2 of 3: over the c-values, the sum of those above the
// selected high bin as exact fixed-point integers (units of 2^-24: every
// non-zero c-value is a float of at least 0.5, so a multiple of 2^-24, and
// below 2^14), added per workgroup into this scale's uint64 sum; and the
// histogram of the low 16 bits of the values in the selected bin. The
// workgroups of row y of the dispatch cover scale y; those that lie past
// their scale's values do nothing.
// Driver: metrics/src/features/cambi/gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

#define THREADS 256u

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
layout(set = 0, binding = 2, std430) readonly buffer Select { uint select_state[]; };
layout(set = 0, binding = 3, std430) buffer Low { uint low[]; };
layout(set = 0, binding = 4, std430) buffer Sums { uint64_t sums[]; };

#include "cambi_common.glsl"
#include "cambi_fixed.glsl"

shared uint64_t s_sum[THREADS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint scale = gl_WorkGroupID.y;
    uint entry = scales + scale * CAMBI_SCALE_WORDS;
    uint n = tables[entry + CAMBI_SCALE_WIDTH] * tables[entry + CAMBI_SCALE_HEIGHT];
    if (gl_WorkGroupID.x * THREADS >= n) {
        return;
    }
    uint base = tables[entry + CAMBI_SCALE_OFFSET];
    uint bins = scale * CAMBI_BINS;
    uint bin = select_state[scale * 4u];
    uint64_t acc = 0ul;
    for (uint i = gl_WorkGroupID.x * THREADS + lid; i < n; i += gl_NumWorkGroups.x * THREADS) {
        uint bits = values[base + i];
        uint hi = bits >> 16;
        if (hi > bin) {
            acc += cambi_fixed(bits);
        } else if (hi == bin && bin != 0u) {
            atomicAdd(low[bins + (bits & 0xFFFFu)], 1u);
        }
    }
    s_sum[lid] = acc;
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_sum[lid] += s_sum[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u && s_sum[0] != 0ul) {
        atomicAdd(sums[scale], s_sum[0]);
    }
}
