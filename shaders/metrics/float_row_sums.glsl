// Shared by float_row_sums.comp and float_row_totals.comp: libvmaf's float
// sums in its order. Each segment (a scale or level) holds `fields` planes
// of rows x cols floats, field f's row r at vals_base + (f*rows + r)*cols;
// its row totals sit at sums_base + f*rows + r.
// Driver and Rust twins: metrics/src/row_sums.rs.
//
// Requires before inclusion: `shared float s_rows[]`, the staged values
// add_slice reads, and `#define AHEAD n`, how far it loads ahead.

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


// acc plus the n floats of s_rows from `at`, one at a time in order. The
// next AHEAD are loaded before the current AHEAD are added, so the chain
// of adds waits on the adds, not on shared-memory latency.
float add_slice(float acc_in, uint at, uint n) {
    precise float acc = acc_in;
    uint j = 0u;
    if (n >= AHEAD) {
        float q[AHEAD];
        for (uint u = 0u; u < AHEAD; u++) {
            q[u] = s_rows[at + u];
        }
        for (j = AHEAD; j + AHEAD <= n; j += AHEAD) {
            float next[AHEAD];
            for (uint u = 0u; u < AHEAD; u++) {
                next[u] = s_rows[at + j + u];
            }
            for (uint u = 0u; u < AHEAD; u++) {
                acc = acc + q[u];
            }
            q = next;
        }
        for (uint u = 0u; u < AHEAD; u++) {
            acc = acc + q[u];
        }
    }
    for (; j < n; j++) {
        acc = acc + s_rows[at + j];
    }
    return acc;
}
