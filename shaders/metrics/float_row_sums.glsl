// Shared by float_row_sums.comp and float_row_totals.comp: libvmaf's float
// sums in its order. Each segment (a scale or level) holds `fields` planes
// of rows x cols floats, field f's row r at vals_base + (f*rows + r)*cols;
// its row totals sit at sums_base + f*rows + r.
// Driver and Rust twins: metrics/src/row_sums.rs.
//
// Requires before inclusion: `float value_at(uint i, uint partner)`, the
// value of sample i of the including kernel's input (`partner` is passed
// through from `ordered_sum`).

// Twin: `RowSegment` in metrics/src/row_sums.rs.
struct RowSegment {
    uint rows;
    uint cols;
    uint vals_base;
    uint sums_base;
};

// Twin: `RowSumsPush` in metrics/src/row_sums.rs.
layout(push_constant, std430) uniform Push {
    RowSegment segments[4];
    uint fields;
    // Result word of (segment s, field f): out_base + s*fields + f.
    uint out_base;
};

#define THREADS 64u
// Invocations from LOADER on stage the next chunk while invocation 0 adds
// the current one: a subgroup of their own on any device whose subgroups
// have at most 32 lanes, so the adder's subgroup never waits on loads.
#define LOADER 32u
// Floats staged in shared memory per step; a multiple of 16 (four vec4 a
// step of the adder's loop).
#define CHUNK 1024u
layout(local_size_x = THREADS) in;

// Two chunks, as vec4 so that the adder reads four floats a load.
shared vec4 s_chunk[2][CHUNK / 4u];

// Invocations LOADER.. copy values at..at+n-1 (n <= CHUNK) into buffer b.
void stage_chunk(uint b, uint at, uint n, uint partner) {
    for (uint i = gl_LocalInvocationIndex - LOADER; i < n; i += THREADS - LOADER) {
        s_chunk[b][i >> 2][i & 3u] = value_at(at + i, partner);
    }
}

// acc plus the first n floats of buffer b, one at a time in order. The
// next four vec4 are read before the current ones are added, so the chain
// of adds waits on the adds alone, not on shared-memory loads. Reads past
// n (clamped inside the buffer) are never added.
float add_chunk(float acc_in, uint b, uint n) {
    precise float acc = acc_in;
    uint last = CHUNK / 4u - 1u;
    uint quads = n / 4u;
    vec4 q0 = s_chunk[b][0];
    vec4 q1 = s_chunk[b][1];
    vec4 q2 = s_chunk[b][2];
    vec4 q3 = s_chunk[b][3];
    uint i = 0u;
    for (; i + 4u <= quads; i += 4u) {
        vec4 n0 = s_chunk[b][min(i + 4u, last)];
        vec4 n1 = s_chunk[b][min(i + 5u, last)];
        vec4 n2 = s_chunk[b][min(i + 6u, last)];
        vec4 n3 = s_chunk[b][min(i + 7u, last)];
        acc = acc + q0.x;
        acc = acc + q0.y;
        acc = acc + q0.z;
        acc = acc + q0.w;
        acc = acc + q1.x;
        acc = acc + q1.y;
        acc = acc + q1.z;
        acc = acc + q1.w;
        acc = acc + q2.x;
        acc = acc + q2.y;
        acc = acc + q2.z;
        acc = acc + q2.w;
        acc = acc + q3.x;
        acc = acc + q3.y;
        acc = acc + q3.z;
        acc = acc + q3.w;
        q0 = n0;
        q1 = n1;
        q2 = n2;
        q3 = n3;
    }
    // The tail: fewer than 16 floats.
    for (uint j = 4u * i; j < n; j++) {
        acc = acc + s_chunk[b][j >> 2][j & 3u];
    }
    return acc;
}

// The float sum of values at..at+n-1 from 0, in order, as invocation 0
// returns it (the others return 0). Every invocation of the workgroup must
// call it, with the same arguments (it has barriers). The loaders stage
// chunk c+1 while invocation 0 adds chunk c.
float ordered_sum(uint at, uint n, uint partner) {
    uint lid = gl_LocalInvocationIndex;
    if (lid >= LOADER) {
        stage_chunk(0u, at, min(CHUNK, n), partner);
    }
    barrier();
    precise float acc = 0.0;
    uint b = 0u;
    for (uint x0 = 0u; x0 < n; x0 += CHUNK) {
        uint next = x0 + CHUNK;
        if (lid >= LOADER && next < n) {
            stage_chunk(b ^ 1u, at + next, min(CHUNK, n - next), partner);
        }
        if (lid == 0u) {
            acc = add_chunk(acc, b, min(CHUNK, n - x0));
        }
        barrier();
        b ^= 1u;
    }
    return acc;
}
