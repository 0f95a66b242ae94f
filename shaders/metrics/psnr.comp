#version 460
// PSNR: the sum of squared differences of one plane pair, libvmaf 3.2's
// integer_psnr. Workgroup g covers rows [g * rows_per_group, ...) of the
// plane, whole rows, and writes one int64 partial at
// partials[g * fields + field]; reduce.comp folds the partials of every
// plane at once. A group with no rows (past a small chroma plane, or a plane
// that is not scored: height 0) writes 0.
// CPU twin: metrics/src/psnr.rs (`sse_8`, `sse_hbd`); driver:
// metrics/src/psnr_gpu.rs.
//
// 8 bits: libvmaf sums each row's squares in a uint32 that wraps, then adds
// rows into a uint64. Threads add their part of a row in uint, combine it
// with a subgroup add and a shared atomic add (all mod 2^32, so the wrap
// does not depend on the order), and the row is widened only then.
// Above 8 bits every square (< 2^32) goes straight into 64 bits.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require

#define THREADS 256
// Most rows one workgroup covers; the driver keeps rows_per_group below it.
#define MAX_ROWS 64

layout(local_size_x = THREADS) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Partials { int64_t partials[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// Twin: `PsnrPush` in metrics/src/psnr_gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint rows_per_group;
    uint field;
    uint fields;
};

shared uint s_row[MAX_ROWS];
shared uint64_t s_sum[THREADS];

uint abs_diff(uint x, uint y) {
    return x > y ? x - y : y - x;
}

// Each thread's share of the 8-bit SSE: the wrapped row sums of the rows
// whose index within the group equals the thread's.
uint64_t sse_8(uint y0, uint rows, uint width) {
    uint lid = gl_LocalInvocationIndex;
    if (lid < MAX_ROWS) {
        s_row[lid] = 0u;
    }
    barrier();
    for (uint r = 0u; r < rows; r++) {
        uint part = 0u;
        for (uint x = lid; x < width; x += THREADS) {
            uint e = abs_diff(plane_load(ref_plane, x, y0 + r), plane_load_b(dis_plane, x, y0 + r));
            part += e * e;
        }
        part = subgroupAdd(part);
        if (subgroupElect()) {
            atomicAdd(s_row[r], part);
        }
    }
    barrier();
    return lid < rows ? uint64_t(s_row[lid]) : uint64_t(0);
}

uint64_t sse_hbd(uint y0, uint rows, uint width) {
    uint64_t acc = 0;
    for (uint r = 0u; r < rows; r++) {
        for (uint x = gl_LocalInvocationIndex; x < width; x += THREADS) {
            uint e = abs_diff(plane_load(ref_plane, x, y0 + r), plane_load_b(dis_plane, x, y0 + r));
            acc += uint64_t(e * e);
        }
    }
    return acc;
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint height = ref_plane.height;
    uint y0 = gl_WorkGroupID.x * rows_per_group;
    uint rows = y0 < height ? min(rows_per_group, height - y0) : 0u;
    // bpc comes from push constants: the branch is uniform, so the barriers
    // in sse_8 are reached by the whole workgroup.
    if (ref_plane.bpc == 8u) {
        s_sum[lid] = sse_8(y0, rows, ref_plane.width);
    } else {
        s_sum[lid] = sse_hbd(y0, rows, ref_plane.width);
    }
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_sum[lid] += s_sum[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u) {
        partials[gl_WorkGroupID.x * fields + field] = int64_t(s_sum[0]);
    }
}
