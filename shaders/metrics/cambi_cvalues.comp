#version 460
// CAMBI's c-values (libvmaf's `calculate_c_values`): a counted pixel
// (codes[] not CAMBI_NONE) counts, over its window clipped to the frame, the
// counted pixels of its own code and of the codes up to num_diffs above and
// below it: the integers libvmaf's sliding histograms hold for that pixel.
// Its c-value is then libvmaf's `c_value_pixel`: per visible step d the
// float of the integer product weight·p0·p times the float reciprocal of
// p0 + p from libvmaf's table (one correctly rounded multiply), the largest
// kept; 0 for pixels not counted. Every non-zero c-value is at least 0.5
// (p0, p ≥ 1), which cambi_pass2.comp relies on. The bits of non-zero values
// are histogrammed by their high 16 bits for the top-k selection
// (cambi_select_high.comp).
//
// Counting, O(window) per pixel: a workgroup covers COLUMNS columns of one
// scale's grid and `rows` rows; each invocation keeps, in shared memory, the
// histogram of its column over the window's rows (16-bit counts, two codes a
// word) and walks down the rows adding the row entering the window and
// removing the one leaving it. The middle COLUMNS − 2·pad invocations are
// the pixels scored: each adds, for its codes, the column histograms of the
// 2·pad + 1 columns around it (a window holds at most 65² pixels, so the
// 16-bit lanes do not carry). The histograms cover SLOTS consecutive codes
// at a time: the codes of the workgroup's counted pixels are walked in
// chunks, each scoring the pixels whose codes ± num_diffs lie inside it.
//
// One dispatch covers all five scales (the picture's scale table maps a
// workgroup to its scale and place). Every chunk fills the column
// histograms over the window's 2·pad + 1 rows before sliding them, so
// `rows` trades that refill against parallelism: the host picks it
// (cambi/gpu.rs, `CambiKernel::rows_for`). lavapipe gets 4, because it ends
// an invocation's loops after 65535 iterations in all (counted per SIMD
// vector); at 32 rows the parity clips at max_log_contrast 5 already went
// past it.
// CPU twin: metrics/src/features/cambi/cvalues.rs; driver: cambi/gpu.rs
// (`CVALUE_COLUMNS` must agree with COLUMNS).

layout(local_size_x = 192) in;

layout(set = 0, binding = 0, std430) readonly buffer Codes { uint codes[]; };
layout(set = 0, binding = 1, std430) readonly buffer Tables { uint tables[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Values { uint values[]; };
layout(set = 0, binding = 3, std430) buffer High { uint high[]; };

#include "cambi_common.glsl"

#define COLUMNS 192
// Codes a chunk counts (at least 2·num_diffs + 2 for num_diffs ≤ 32), and
// the words of a column's histogram: SLOTS / 2 plus one, odd so that
// neighbouring columns fall in different banks.
#define SLOTS 68
#define STRIDE 35
// Words holding the 2·num_diffs + 1 counts of one pixel.
#define MAX_WORDS 33

shared uint hist[COLUMNS * STRIDE];
shared uint range_lo;
shared uint range_hi;

// Adds (or removes) code u to (from) the column histogram at `at` when it
// lies in the chunk starting at code `lo`. Counts never go below 0, so a
// removal borrows nothing from the other lane.
void count(uint at, uint u, int lo, bool add) {
    if (u != CAMBI_NONE) {
        int s = int(u) - lo;
        if (s >= 0 && s < SLOTS) {
            uint one = 1u << (16u * uint(s & 1));
            if (add) {
                hist[at + uint(s >> 1)] += one;
            } else {
                hist[at + uint(s >> 1)] -= one;
            }
        }
    }
}

void main() {
    // This workgroup's scale and place in it.
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (group >= tables[scales + CAMBI_SCALE_TOTAL_GROUPS]) {
        return;
    }
    uint scale = 0u;
    while (scale + 1u < CAMBI_SCALES &&
           group >= tables[scales + (scale + 1u) * CAMBI_SCALE_WORDS + CAMBI_SCALE_FIRST_GROUP]) {
        scale++;
    }
    uint entry = scales + scale * CAMBI_SCALE_WORDS;
    uint base = tables[entry + CAMBI_SCALE_OFFSET];
    uint bins = scale * CAMBI_BINS;
    uint local_group = group - tables[entry + CAMBI_SCALE_FIRST_GROUP];
    uint across = tables[entry + CAMBI_SCALE_GROUPS_ACROSS];
    int t = int(gl_LocalInvocationID.x);
    int p = int(pad);
    int w = int(tables[entry + CAMBI_SCALE_WIDTH]);
    int h = int(tables[entry + CAMBI_SCALE_HEIGHT]);
    int nd = int(num_diffs);
    int span = COLUMNS - 2 * p;
    int y0 = int(local_group / across) * int(rows);
    int y1 = min(y0 + int(rows), h);
    // This invocation's column; the middle ones also score its pixels.
    int col = int(local_group % across) * span - p + t;
    bool column = col >= 0 && col < w;
    bool scored = t >= p && t < p + span && col < w;
    uint at = uint(t * STRIDE);
    if (t == 0) {
        range_lo = CAMBI_NONE;
        range_hi = 0u;
    }
    barrier();
    if (scored) {
        uint lo = CAMBI_NONE;
        uint hi = 0u;
        for (int y = y0; y < y1; y++) {
            uint v = codes[base + uint(y * w + col)];
            values[base + uint(y * w + col)] = 0u;
            if (v != CAMBI_NONE) {
                lo = min(lo, v);
                hi = max(hi, v);
            }
        }
        if (lo <= hi) {
            atomicMin(range_lo, lo);
            atomicMax(range_hi, hi);
        }
    }
    barrier();
    int vmin = int(range_lo);
    int vmax = int(range_hi);
    if (range_lo > range_hi) {
        return;
    }
    for (int lo = vmin - nd; lo + nd <= vmax; lo += SLOTS - 2 * nd) {
        for (int k = 0; k < STRIDE; k++) {
            hist[at + uint(k)] = 0u;
        }
        if (column) {
            for (int r = max(y0 - p, 0); r <= min(y0 + p, h - 1); r++) {
                count(at, codes[base + uint(r * w + col)], lo, true);
            }
        }
        for (int y = y0; y < y1; y++) {
            if (y > y0 && column) {
                if (y - p - 1 >= 0) {
                    count(at, codes[base + uint((y - p - 1) * w + col)], lo, false);
                }
                if (y + p < h) {
                    count(at, codes[base + uint((y + p) * w + col)], lo, true);
                }
            }
            barrier();
            uint v = scored ? codes[base + uint(y * w + col)] : CAMBI_NONE;
            int s0 = int(v) - nd - lo;
            if (v != CAMBI_NONE && s0 >= 0 && s0 + 2 * nd < SLOTS) {
                int first = s0 >> 1;
                int words = ((s0 + 2 * nd) >> 1) - first + 1;
                uint sums[MAX_WORDS];
                for (int j = 0; j < words; j++) {
                    uint sum = 0u;
                    uint from = uint((t - p) * STRIDE + first + j);
                    for (int c = 0; c <= 2 * p; c++) {
                        sum += hist[from + uint(c * STRIDE)];
                    }
                    sums[j] = sum;
                }
                // The count of code v + off.
                #define COUNT(off) \
                    ((sums[((s0 + nd + (off)) >> 1) - first] >> (16u * uint((s0 + nd + (off)) & 1))) \
                     & 0xFFFFu)
                uint value = v + num_diffs;
                uint p0 = COUNT(0);
                float best = 0.0;
                for (int d = 0; d < nd; d++) {
                    uint step_size = uint(d) + 1u;
                    if (value <= tables[CAMBI_TVI + uint(d)] && value + step_size > vlt_luma) {
                        uint p1 = COUNT(d + 1);
                        uint p2 = COUNT(-d - 1);
                        uint pm = p1 > p2 ? p1 : p2;
                        int product = int(tables[CAMBI_WEIGHTS + uint(d)]) * int(p0) * int(pm);
                        precise float c =
                            float(product) * uintBitsToFloat(tables[CAMBI_RECIPROCAL + pm + p0]);
                        if (c > best) {
                            best = c;
                        }
                    }
                }
                uint bits = floatBitsToUint(best);
                values[base + uint(y * w + col)] = bits;
                if (bits != 0u) {
                    atomicAdd(high[bins + (bits >> 16)], 1u);
                }
            }
            barrier();
        }
    }
}
