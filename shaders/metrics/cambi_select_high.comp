#version 460
// Top-k selection, step 1 of 3 (one workgroup per scale): from the histogram of the
// c-values' high 16 bits (c-values are non-negative, so their bits order as
// their values; zeros are not histogrammed and count as n minus the rest),
// the bin holding the k-th largest value and how many values lie in higher
// bins. libvmaf's quickselect picks the same multiset of values.
// CPU twin: metrics/src/features/cambi/pooling.rs; driver: cambi/gpu.rs.

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer High { uint high[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
// Per scale: [bin, values above it, -, -].
layout(set = 0, binding = 2, std430) writeonly buffer Select { uint select_state[]; };

#include "cambi_common.glsl"

shared uint s_count[256];

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
    if (lid == 0u) {
        uint nonzero = 0u;
        for (uint t = 0u; t < 256u; t++) {
            nonzero += s_count[t];
        }
        uint zeros = n - nonzero;
        s_count[0] += zeros;
        uint above = 0u;
        uint t = 255u;
        while (above + s_count[t] < k) {
            above += s_count[t];
            t--;
        }
        uint b = 255u;
        while (true) {
            uint bin = t * 256u + b;
            uint c = high[bins + bin] + (bin == 0u ? zeros : 0u);
            if (above + c >= k) {
                break;
            }
            above += c;
            b--;
        }
        select_state[scale * 4u] = t * 256u + b;
        select_state[scale * 4u + 1u] = above;
    }
}
