#version 460
// Top-k selection, step 1 of 3 (one workgroup per scale): from the histogram
// of the c-values' high 16 bits (c-values are non-negative, so their bits
// order as their values; zeros are not histogrammed and count as n minus the
// rest), the bin holding the k-th largest value and how many values lie in
// higher bins. libvmaf's quickselect picks the same multiset of values.
//
// In two levels of 256: the sums of 256 groups of 256 bins, then the bins of
// the group holding the k-th value; at each level the counts from the top
// down (suffix sums, in parallel), and the one entry whose count from the
// top reaches k while the next one's does not.
// CPU twin: metrics/src/features/cambi/pooling.rs; driver: cambi/gpu.rs.

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer High { uint high[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
// Per scale: [bin, values above it, -, -].
layout(set = 0, binding = 2, std430) writeonly buffer Select { uint select_state[]; };

#include "cambi_common.glsl"

shared uint s_count[256];
// The group holding the k-th value and the values above it.
shared uint s_group;
shared uint s_above;

// s_count[i] becomes the sum of s_count[i..256] (all invocations call it).
void suffix_sums(uint lid) {
    for (uint d = 1u; d < 256u; d <<= 1) {
        uint add = lid + d < 256u ? s_count[lid + d] : 0u;
        barrier();
        s_count[lid] += add;
        barrier();
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint scale = gl_WorkGroupID.x;
    uint entry = scales + scale * CAMBI_SCALE_WORDS;
    uint n = tables[entry + CAMBI_SCALE_WIDTH] * tables[entry + CAMBI_SCALE_HEIGHT];
    uint k = tables[entry + CAMBI_SCALE_K];
    uint bins = scale * CAMBI_BINS;
    uint sum = 0u;
    for (uint b = 0u; b < 256u; b++) {
        sum += high[bins + lid * 256u + b];
    }
    s_count[lid] = sum;
    barrier();
    suffix_sums(lid);
    uint zeros = n - s_count[0];
    // Values from group lid up, and above it (1 ≤ k ≤ n: exactly one
    // group has the first reach k and the second not).
    uint from = s_count[lid] + (lid == 0u ? zeros : 0u);
    uint above = lid < 255u ? s_count[lid + 1u] : 0u;
    if (from >= k && above < k) {
        s_group = lid;
        s_above = above;
    }
    barrier();
    uint group = s_group;
    uint group_above = s_above;
    uint bin = group * 256u + lid;
    s_count[lid] = high[bins + bin] + (bin == 0u ? zeros : 0u);
    barrier();
    suffix_sums(lid);
    from = group_above + s_count[lid];
    above = group_above + (lid < 255u ? s_count[lid + 1u] : 0u);
    if (from >= k && above < k) {
        select_state[scale * 4u] = bin;
        select_state[scale * 4u + 1u] = above;
    }
}
