#version 460
// Folds ssim_scale.comp's per-tile double partials (records of 4:
// l*c*s, l, c, s) into the scale's four means, stored as the bit patterns of
// doubles in int64 result slots. The order is fixed — thread t adds records
// t, t+256, ... in turn, then a fixed tree — so the result is the same on
// every run. The four fields are added side by side (one record a load, one
// tree): the same additions as four passes of one field each, with one
// chain of loads instead of four and 9 barriers instead of 36. The means
// are sum / count in double, as ssim.rs `ssim_scale` computes them before
// rounding to float (which the host does).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;

// ssim_scale.comp's double partials, a record per dvec4 (partial_base is a
// multiple of 4).
layout(set = 0, binding = 0, std430) readonly buffer Partials { dvec4 records[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };

// Twin: ssim_gpu.rs `FoldPush` (16 bytes); the two must agree.
layout(push_constant) uniform Push {
    uint partial_base; // in doubles
    uint groups;       // records to fold
    uint count;        // pixels of the scale's map
    uint out_base;     // first of the four result slots
};

shared dvec4 s_red[256];

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint first = partial_base / 4u;
    dvec4 sum = dvec4(0.0lf);
    // Eight loads in flight before their additions, which stay in order:
    // one load at a time left the fold waiting on memory once per record.
    uint g = lid;
    for (; g + 7u * 256u < groups; g += 8u * 256u) {
        dvec4 r[8];
        for (uint i = 0u; i < 8u; i++) {
            r[i] = records[first + g + i * 256u];
        }
        for (uint i = 0u; i < 8u; i++) {
            sum += r[i];
        }
    }
    for (; g < groups; g += 256u) {
        sum += records[first + g];
    }
    s_red[lid] = sum;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_red[lid] = s_red[lid] + s_red[lid + half_size];
        }
        barrier();
    }
    if (lid < 4u) {
        results[out_base + lid] = doubleBitsToInt64(s_red[0][lid] / double(count));
    }
}
