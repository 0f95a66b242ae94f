#version 460
// float_moment: per workgroup, the sums of the reference and distorted luma
// samples and of their squares, as int64 partials at partials[g * 4 + k]
// (k: ref, dis, ref², dis²); reduce.comp folds them. Workgroup g covers
// rows [g * rows_per_group, ...).
// CPU twin: metrics/src/features/float_moment/mod.rs (`moment_sums`);
// driver: metrics/src/features/float_moment/gpu.rs.
//
// libvmaf squares each sample as a float (`pic_ * pic_`): float_square.glsl.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define THREADS 256

layout(local_size_x = THREADS) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Partials { int64_t partials[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// Twin: `MomentPush` in metrics/src/features/float_moment/gpu.rs; the two
// must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint rows_per_group;
};

#include "float_square.glsl"

shared uint64_t s_sum[4][THREADS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint height = ref_plane.height;
    uint y0 = gl_WorkGroupID.x * rows_per_group;
    uint rows = y0 < height ? min(rows_per_group, height - y0) : 0u;
    uint64_t acc[4] = uint64_t[4](0, 0, 0, 0);
    for (uint r = 0u; r < rows; r++) {
        for (uint x = lid; x < ref_plane.width; x += THREADS) {
            uint a = plane_load(ref_plane, x, y0 + r);
            uint b = plane_load_b(dis_plane, x, y0 + r);
            acc[0] += uint64_t(a);
            acc[1] += uint64_t(b);
            acc[2] += float_square(a);
            acc[3] += float_square(b);
        }
    }
    // Integer sums: any order gives the same total (a tree in shared
    // memory, the same for every subgroup size).
    for (uint k = 0u; k < 4u; k++) {
        s_sum[k][lid] = acc[k];
    }
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            for (uint k = 0u; k < 4u; k++) {
                s_sum[k][lid] += s_sum[k][lid + half_size];
            }
        }
        barrier();
    }
    if (lid < 4u) {
        partials[gl_WorkGroupID.x * 4u + lid] = int64_t(s_sum[lid][0]);
    }
}
