#version 460
// CAMBI's c-values (libvmaf's `calculate_c_values`), one pixel per
// invocation: a counted pixel (codes[] not CAMBI_NONE) counts, over its
// window clipped to the frame, the counted pixels of its own code and of the
// codes up to num_diffs above and below it: the integers libvmaf's sliding
// histograms hold for that pixel. Its c-value is then libvmaf's
// `c_value_pixel`: per visible step d the float of the integer product
// weight·p0·p times the float reciprocal of p0 + p from libvmaf's table (one
// correctly rounded multiply), the largest kept; 0 for pixels not counted.
// Every non-zero c-value is at least 0.5 (p0, p ≥ 1), which cambi_pass2.comp
// relies on. The bits of non-zero values are histogrammed by their high 16
// bits for the top-k selection (cambi_select_high.comp). With up to four
// contrast steps (max_log_contrast ≤ 2, the default) the counters live in
// registers rather than in an indexed array (local memory on most GPUs).
// CPU twin: metrics/src/features/cambi/cvalues.rs; driver: cambi/gpu.rs.

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Codes { uint codes[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Values { uint values[]; };
layout(set = 0, binding = 3, std430) buffer High { uint high[]; };

#include "cambi_common.glsl"

// Counts of codes v - num_diffs ..= v + num_diffs (num_diffs ≤ 32).
#define MAX_SPAN 65

void main() {
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int w = int(width);
    int h = int(height);
    if (x >= w || y >= h) {
        return;
    }
    uint i = uint(y * w + x);
    uint v = codes[i];
    float best = 0.0;
    if (v != CAMBI_NONE) {
        int nd = int(num_diffs);
        uint counts[MAX_SPAN];
        int p = int(pad);
        int r0 = max(y - p, 0);
        int r1 = min(y + p, h - 1);
        int c0 = max(x - p, 0);
        int c1 = min(x + p, w - 1);
        if (nd <= 4) {
            // Up to nine counters kept in registers, 13 bits each (a window
            // holds at most 65² = 4225 pixels): four in `low`, four in
            // `high`, the ninth in `top`; unpacked into counts[] at the end.
            uint64_t low = 0ul;
            uint64_t high = 0ul;
            uint top = 0u;
            for (int r = r0; r <= r1; r++) {
                for (int c = c0; c <= c1; c++) {
                    uint u = codes[r * w + c];
                    int off = int(u) - int(v);
                    if (u != CAMBI_NONE && off >= -nd && off <= nd) {
                        uint at = uint(off + nd);
                        uint64_t one = 1ul << (13u * (at & 3u));
                        if (at < 4u) {
                            low += one;
                        } else if (at < 8u) {
                            high += one;
                        } else {
                            top++;
                        }
                    }
                }
            }
            for (uint at = 0u; at < 8u; at++) {
                uint64_t field = at < 4u ? low : high;
                counts[at] = uint(field >> (13u * (at & 3u))) & 0x1FFFu;
            }
            counts[8] = top;
        } else {
            for (int d = 0; d <= 2 * nd; d++) {
                counts[d] = 0u;
            }
            for (int r = r0; r <= r1; r++) {
                for (int c = c0; c <= c1; c++) {
                    uint u = codes[r * w + c];
                    int off = int(u) - int(v);
                    if (u != CAMBI_NONE && off >= -nd && off <= nd) {
                        counts[off + nd]++;
                    }
                }
            }
        }
        uint value = v + num_diffs;
        uint p0 = counts[nd];
        for (int d = 0; d < nd; d++) {
            uint step_size = uint(d) + 1u;
            if (value <= tables[CAMBI_TVI + uint(d)] && value + step_size > vlt_luma) {
                uint p1 = counts[nd + d + 1];
                uint p2 = counts[nd - d - 1];
                uint pm = p1 > p2 ? p1 : p2;
                int product = int(tables[CAMBI_WEIGHTS + uint(d)]) * int(p0) * int(pm);
                precise float c =
                    float(product) * uintBitsToFloat(tables[CAMBI_RECIPROCAL + pm + p0]);
                if (c > best) {
                    best = c;
                }
            }
        }
    }
    uint bits = floatBitsToUint(best);
    values[i] = bits;
    if (bits != 0u) {
        atomicAdd(high[bits >> 16], 1u);
    }
}
