#version 460
// Top-k selection, step 3 of 3 (one workgroup per scale): the selected high
// bin's values from the histogram of their low 16 bits (each low bin is one
// exact float), taken from the largest down until k values are chosen,
// added to the sum of the values above the bin; ties at the k-th value are
// counted once each, zeros add nothing. Writes the scale's top-k sum (units
// of 2^-24) into its result slot; the host divides by k as libvmaf does.
//
// As cambi_select_high.comp, in two levels of 256 with suffix sums: the
// groups of 256 low bins wholly taken, then in the group holding the k-th
// value what each bin gives (all its values, part of them, or none). Every
// sum is of integers, so its order does not matter.
// Driver: metrics/src/features/cambi/gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Low { uint low[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
layout(set = 0, binding = 2, std430) readonly buffer Select { uint select_state[]; };
layout(set = 0, binding = 3, std430) readonly buffer Sums { uint64_t sums[]; };
layout(set = 0, binding = 4, std430) buffer Results { int64_t results[]; };

#include "cambi_common.glsl"
#include "cambi_fixed.glsl"

shared uint s_count[256];
shared uint64_t s_weight[256];
// The group holding the k-th value, what is left to take in it, and the
// weight of the groups above it.
shared uint s_group;
shared uint s_rest;
shared uint64_t s_above;

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint scale = gl_WorkGroupID.x;
    uint k = tables[scales + scale * CAMBI_SCALE_WORDS + CAMBI_SCALE_K];
    uint bins = scale * CAMBI_BINS;
    uint bin = select_state[scale * 4u];
    uint rest = k - select_state[scale * 4u + 1u];
    // The bin of zeros adds nothing; nothing left to take neither.
    if (bin == 0u || rest == 0u) {
        if (lid == 0u) {
            results[out_word + scale] = int64_t(sums[scale]);
        }
        return;
    }
    uint count = 0u;
    uint64_t weight = 0ul;
    for (uint b = 0u; b < 256u; b++) {
        uint l = lid * 256u + b;
        uint c = low[bins + l];
        count += c;
        weight += uint64_t(c) * cambi_fixed((bin << 16) | l);
    }
    s_count[lid] = count;
    s_weight[lid] = weight;
    barrier();
    // Suffix sums: entry i becomes the sum of entries i..256.
    for (uint d = 1u; d < 256u; d <<= 1) {
        uint add = lid + d < 256u ? s_count[lid + d] : 0u;
        uint64_t add_weight = lid + d < 256u ? s_weight[lid + d] : 0ul;
        barrier();
        s_count[lid] += add;
        s_weight[lid] += add_weight;
        barrier();
    }
    // The bin holds at least `rest` values: exactly one group has the
    // values from it up reach `rest` and those above it not.
    uint above = lid < 255u ? s_count[lid + 1u] : 0u;
    if (s_count[lid] >= rest && above < rest) {
        s_group = lid;
        s_rest = rest - above;
        s_above = lid < 255u ? s_weight[lid + 1u] : 0ul;
    }
    barrier();
    uint group = s_group;
    uint left = s_rest;
    uint l = group * 256u + lid;
    uint c = low[bins + l];
    s_count[lid] = c;
    barrier();
    for (uint d = 1u; d < 256u; d <<= 1) {
        uint add = lid + d < 256u ? s_count[lid + d] : 0u;
        barrier();
        s_count[lid] += add;
        barrier();
    }
    // Values of the higher bins of the group, then what this bin gives.
    uint higher = s_count[lid] - c;
    uint take = higher < left ? min(c, left - higher) : 0u;
    s_weight[lid] = uint64_t(take) * cambi_fixed((bin << 16) | l);
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_weight[lid] += s_weight[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u) {
        results[out_word + scale] = int64_t(sums[scale] + s_above + s_weight[0]);
    }
}
