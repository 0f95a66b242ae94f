#version 460
// Integer ADM, the per-row rounding and the frame totals of all four levels
// (metrics/src/adm/mod.rs `cm_level_*`, `den_level_*`; cm.rs `round_row`).
//
// libvmaf rounds each row's sum before adding it to the frame total, so
// rows are kept apart until here: workgroup (field, level) walks the rows of
// that level, rounds and shifts each row sum the other kernels left
// (layout in adm_common.glsl), then adds the rows. Fields 0-5 (num, aim)
// are signed, 6-8 (den) unsigned. results[out_base + level * 9 + field].
// The den fields come from binding 2, the same buffer as binding 0 unless
// a ladder's reference terms made them (metrics/src/adm/gpu.rs
// `AdmReference`, in the same layout).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer RowSums { int64_t row_sums[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };
layout(set = 0, binding = 2, std430) readonly buffer DenSums { int64_t den_sums[]; };

// Twin: `RowsLevel` / `RowsPush` in metrics/src/adm/gpu.rs (must agree).
struct RowsLevel {
    uint rows;       // 0: level skipped, its sums are 0
    uint base;       // int64 index of the level's row sums
    uint shifts;     // row shift of num/aim | row shift of den << 8
    uint pad;
};

layout(push_constant) uniform Push {
    RowsLevel levels[4];
    uint out_base;
} pc;

shared int64_t s_sum[256];

void main() {
    uint field = gl_WorkGroupID.x;
    RowsLevel lv = pc.levels[gl_WorkGroupID.y];
    bool den = field >= 6u;
    uint shift = den ? (lv.shifts >> 8) & 0xFFu : lv.shifts & 0xFFu;
    int64_t sum = 0;
    for (uint row = gl_LocalInvocationIndex; row < lv.rows; row += 256u) {
        uint at = lv.base + row * 9u + field;
        int64_t row_sum = den ? den_sums[at] : row_sums[at];
        if (den) {
            uint64_t half_u = shift == 0u ? uint64_t(0) : uint64_t(1) << (shift - 1u);
            sum += int64_t((uint64_t(row_sum) + half_u) >> shift);
        } else {
            int64_t half_s = shift == 0u ? int64_t(0) : int64_t(1) << (shift - 1u);
            sum += (row_sum + half_s) >> shift;
        }
    }
    s_sum[gl_LocalInvocationIndex] = sum;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
        if (gl_LocalInvocationIndex < half_size) {
            s_sum[gl_LocalInvocationIndex] += s_sum[gl_LocalInvocationIndex + half_size];
        }
        barrier();
    }
    if (gl_LocalInvocationIndex == 0u) {
        results[pc.out_base + gl_WorkGroupID.y * 9u + field] = s_sum[0];
    }
}
