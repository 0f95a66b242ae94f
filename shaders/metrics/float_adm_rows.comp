#version 460
// libvmaf's float sums of float ADM's per-sample terms, in its order: with
// SUM_ROWS, one invocation per (level, field, core row) adds the row's
// values left to right into a float; otherwise one invocation per (level,
// field) adds that level's row sums top to bottom and stores the float's
// bits in the results (int64 word level * 9 + field). Float additions in
// any other order would drift far beyond libvmaf's printed digits.
// CPU twin: metrics/src/features/float_adm/level.rs (`row_sums`, `total`);
// driver: float_adm/gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(constant_id = 0) const bool SUM_ROWS = true;

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Vals { float vals[]; };
layout(set = 0, binding = 1, std430) buffer RowSums { float row_sums[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Results { int64_t results[]; };

// Twin: `RowsLevel` in metrics/src/features/float_adm/gpu.rs.
struct RowsLevel {
    uint rows;
    uint cols;
    uint vals_base;
    uint sums_base;  // row_sums index of (field 0, row 0)
};

// Twin: `RowsPush` in metrics/src/features/float_adm/gpu.rs.
layout(push_constant, std430) uniform Push {
    RowsLevel levels[4];
    uint out_base;
};

void main() {
    uint level = gl_GlobalInvocationID.z;
    RowsLevel l = levels[level];
    if (SUM_ROWS) {
        uint row = gl_GlobalInvocationID.x, field = gl_GlobalInvocationID.y;
        if (row >= l.rows) return;
        uint at = l.vals_base + (field * l.rows + row) * l.cols;
        precise float acc = 0.0;
        for (uint x = 0u; x < l.cols; x++) {
            acc = acc + vals[at + x];
        }
        row_sums[l.sums_base + field * l.rows + row] = acc;
    } else {
        uint field = gl_GlobalInvocationID.x;
        if (field >= 9u) return;
        precise float acc = 0.0;
        for (uint y = 0u; y < l.rows; y++) {
            acc = acc + row_sums[l.sums_base + field * l.rows + y];
        }
        results[out_base + level * 9u + field] = int64_t(floatBitsToUint(acc));
    }
}
