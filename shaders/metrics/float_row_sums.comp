#version 460
// The float sum of each row of per-sample values, from 0 in column order
// (libvmaf's running row sum; a float sum in any other order rounds
// differently): invocation k of a workgroup's first ROWS adds row r0 + k
// alone, left to right, so each sum is still one invocation's in-order
// loop. With ABS_DIFF the value of sample i is |v[i] − v[i + rows*cols]|
// (two planes of one field, back to back) instead of v[i].
// Driver: metrics/src/row_sums.rs; CPU twins: each feature's row sums.
//
// One workgroup per (ROWS rows, field, segment). The sums are chains of
// dependent adds, so what matters is keeping them fed: the other
// invocations (LOADERS) copy the group's next COLS columns into shared
// memory, coalesced, PER loads each issued before any is stored, while the
// adders add the current ones (two buffers, one barrier a step). One
// adder's add serves ROWS rows at once, where a workgroup per row with a
// single adder spent a whole instruction issue on each add.

layout(constant_id = 0) const bool ABS_DIFF = false;

layout(set = 0, binding = 0, std430) readonly buffer Vals { float vals[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Sums { float sums[]; };

// Rows a workgroup adds (one adder each) and columns staged per step.
#define ROWS 32u
#define COLS 112u
// A row's slice in shared memory: odd, so the adders' loads (one row each,
// same column) fall in distinct banks.
#define STRIDE (COLS + 1u)
#define LOADERS 224u
// Loads per loader per step: ROWS * COLS = LOADERS * PER.
#define PER 16u
layout(local_size_x = ROWS + LOADERS) in;

shared float s_rows[2u * ROWS * STRIDE];

// add_slice loads 8 floats ahead of its adds (more registers, more
// workgroups lost per SM than the adds gain, measured on the H100).
#define AHEAD 8u
#include "float_row_sums.glsl"

// Loaders: columns x0.. (at most COLS, n of them) of rows r0.. into buffer b.
void stage(uint b, RowSegment s, uint field, uint r0, uint x0, uint n) {
    uint first = gl_LocalInvocationIndex - ROWS;
    uint partner = s.rows * s.cols;
    float v[PER];
    for (uint u = 0u; u < PER; u++) {
        uint i = first + u * LOADERS;
        uint k = i / COLS;
        uint j = i % COLS;
        v[u] = 0.0;
        if (j < n && r0 + k < s.rows) {
            uint at = s.vals_base + (field * s.rows + r0 + k) * s.cols + x0 + j;
            float a = vals[at];
            if (ABS_DIFF) {
                precise float d = a - vals[at + partner];
                a = abs(d);
            }
            v[u] = a;
        }
    }
    for (uint u = 0u; u < PER; u++) {
        uint i = first + u * LOADERS;
        s_rows[b * ROWS * STRIDE + (i / COLS) * STRIDE + i % COLS] = v[u];
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint r0 = gl_WorkGroupID.x * ROWS;
    uint field = gl_WorkGroupID.y;
    RowSegment s = segments[gl_WorkGroupID.z];
    // Uniform per workgroup, so no invocation skips a barrier.
    if (r0 >= s.rows) {
        return;
    }
    bool adder = lid < ROWS;
    if (!adder) {
        stage(0u, s, field, r0, 0u, min(COLS, s.cols));
    }
    barrier();
    precise float acc = 0.0;
    uint b = 0u;
    for (uint x0 = 0u; x0 < s.cols; x0 += COLS) {
        uint next = x0 + COLS;
        if (adder) {
            acc = add_slice(acc, b * ROWS * STRIDE + lid * STRIDE, min(COLS, s.cols - x0));
        } else if (next < s.cols) {
            stage(b ^ 1u, s, field, r0, next, min(COLS, s.cols - next));
        }
        barrier();
        b ^= 1u;
    }
    if (adder && r0 + lid < s.rows) {
        sums[s.sums_base + field * s.rows + r0 + lid] = acc;
    }
}
