#version 460
// Integer motion, pass 2 of 2: one thread per row adds the row's per-tile
// segment sums from motion.comp in a uint32 that wraps, exactly like
// libvmaf's per-row sum, then the workgroup adds its rows in 64 bits and
// writes one int64 partial; the shared reducer (reduce.comp) folds those.
// Driver: metrics/src/motion_gpu.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define THREADS 256

layout(local_size_x = THREADS) in;

// segments[tile_x * height + y], written by motion.comp.
layout(set = 0, binding = 0, std430) readonly buffer Segments { uint segments[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Partials { int64_t partials[]; };

// Twin: `RowsPush` in metrics/src/motion_gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    uint height;
    uint tiles_x;
};

shared uint64_t s_sum[THREADS];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint y = gl_WorkGroupID.x * THREADS + lid;
    uint row = 0u;
    if (y < height) {
        for (uint t = 0u; t < tiles_x; t++) {
            row += segments[t * height + y];
        }
    }
    s_sum[lid] = uint64_t(row);
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
