#version 460
// float_vif, one scale: libvmaf's float sum of each row of per-pixel values,
// from 0 in column order (a float sum in any other order rounds
// differently). One workgroup per row: all its invocations copy the row's
// num and den values into shared memory a chunk at a time (coalesced
// loads), then one invocation adds the num chunk and another (in another
// subgroup) the den chunk, in order, carrying their totals across chunks.
// CPU twin: metrics/src/features/float_vif/mod.rs `sum_rows`;
// driver: metrics/src/features/float_vif/gpu.rs.
#define THREADS 256u
#define CHUNK 1024u
layout(local_size_x = THREADS) in;

// The scale's per-pixel values (num at 0, den at den_at) and its row
// totals (num at 0, den at height), each bound to its own range.
layout(set = 0, binding = 0, std430) readonly buffer Pixels { float pixels[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Rows { float rows[]; };

// Twin: `RowsPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint den_at;
};

shared float s_values[2][CHUNK];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint y = gl_WorkGroupID.x;
    uint row = y * width;
    // Invocation 0 adds num, invocation THREADS / 2 den.
    uint which = lid == 0u ? 0u : 1u;
    bool adder = lid == 0u || lid == THREADS / 2u;
    float acc = 0.0;
    for (uint x0 = 0u; x0 < width; x0 += CHUNK) {
        uint n = min(CHUNK, width - x0);
        for (uint i = lid; i < n; i += THREADS) {
            s_values[0][i] = pixels[row + x0 + i];
            s_values[1][i] = pixels[den_at + row + x0 + i];
        }
        barrier();
        if (adder) {
            for (uint i = 0u; i < n; i++) {
                acc += s_values[which][i];
            }
        }
        barrier();
    }
    if (adder) {
        rows[which * height + y] = acc;
    }
}
