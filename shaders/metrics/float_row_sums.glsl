// Shared by float_row_sums.comp and float_row_totals.comp: libvmaf's float
// sums in its order. Each segment (a scale or level) holds `fields` planes
// of rows x cols floats, field f's row r at vals_base + (f*rows + r)*cols;
// its row totals sit at sums_base + f*rows + r.
// Driver and Rust twins: metrics/src/row_sums.rs.

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

