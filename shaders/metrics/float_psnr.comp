#version 460
// float_psnr: per workgroup, the sum over the luma pair of each sample
// difference's square as libvmaf's float product rounds it, as one int64
// partial at partials[g]; reduce.comp folds them. Workgroup g covers rows
// [g * rows_per_group, ...).
// CPU twin: metrics/src/features/float_psnr/mod.rs (`noise_sum`); driver:
// metrics/src/features/float_psnr/gpu.rs.
//
// libvmaf subtracts the two float samples (exact) and squares the
// difference in float: float_square.glsl of |a - b|. Its double sum of
// those squares is exact, so integer sums in any order give it.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define THREADS 256

layout(local_size_x = THREADS) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Partials { int64_t partials[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

#include "float_square.glsl"

// Twin: `FloatPsnrPush` in metrics/src/features/float_psnr/gpu.rs; the two
// must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint rows_per_group;
};

shared uint64_t s_sum[THREADS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint height = ref_plane.height;
    uint y0 = gl_WorkGroupID.x * rows_per_group;
    uint rows = y0 < height ? min(rows_per_group, height - y0) : 0u;
    uint64_t acc = 0;
    for (uint r = 0u; r < rows; r++) {
        for (uint x = lid; x < ref_plane.width; x += THREADS) {
            uint a = plane_load(ref_plane, x, y0 + r);
            uint b = plane_load_b(dis_plane, x, y0 + r);
            acc += float_square(a > b ? a - b : b - a);
        }
    }
    // Integer sums: any order gives the same total (a tree in shared
    // memory, the same for every subgroup size).
    s_sum[lid] = acc;
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_sum[lid] += s_sum[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u) {
        partials[gl_WorkGroupID.x] = int64_t(s_sum[0]);
    }
}
