#version 460
// Top-k selection, step 3 of 3 (one workgroup per scale): the selected high bin's
// values from the histogram of their low 16 bits (each low bin is one exact
// float), taken from the largest down until k values are chosen, added to
// the sum of the values above the bin; ties at the k-th value are counted
// once each, zeros add nothing. Writes the scale's top-k sum (units of 2^-24)
// into its result slot; the host divides by k as libvmaf does.
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

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint scale = gl_WorkGroupID.x;
    uint k = tables[scales + scale * CAMBI_SCALE_WORDS + CAMBI_SCALE_K];
    uint bins = scale * CAMBI_BINS;
    uint bin = select_state[scale * 4u];
    uint above = select_state[scale * 4u + 1u];
    uint count = 0u;
    uint64_t weight = 0ul;
    if (bin != 0u) {
        for (uint b = 0u; b < 256u; b++) {
            uint l = lid * 256u + b;
            uint c = low[bins + l];
            count += c;
            weight += uint64_t(c) * cambi_fixed((bin << 16) | l);
        }
    }
    s_count[lid] = count;
    s_weight[lid] = weight;
    barrier();
    if (lid == 0u) {
        uint64_t total = sums[scale];
        uint rest = k - above;
        if (bin != 0u) {
            uint t = 255u;
            while (s_count[t] < rest) {
                rest -= s_count[t];
                total += s_weight[t];
                t--;
            }
            uint b = 255u;
            while (rest > 0u) {
                uint l = t * 256u + b;
                uint take = min(low[bins + l], rest);
                total += uint64_t(take) * cambi_fixed((bin << 16) | l);
                rest -= take;
                b--;
            }
        }
        results[out_word + scale] = int64_t(total);
    }
}
