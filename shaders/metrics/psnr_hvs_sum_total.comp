#version 460
// psnr_hvs's exact float sum, pass 1 of 3: one workgroup per quarter of a
// window (QUARTER terms) writes the quarter's total in double (of the
// terms' magnitudes). The totals only estimate the running sum at each
// window's start, from which pass 2 picks the grids it precomputes; their
// rounding cannot change the sum, only how fast it is found. The psnr_hvs
// kernel does without it: its blocks pass writes the same totals.
// Driver and proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
// Four a window, from window_base on.
layout(set = 0, binding = 1, std430) writeonly buffer Quarters { double quarter_totals[]; };

// Twin: `PassPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint window_base;
};

#include "psnr_hvs_sum.glsl"

const uint GROUP = 256u;

shared double part[GROUP];

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint quarter = gl_WorkGroupID.x;
    uint start = quarter * QUARTER;
    double total = 0.0lf;
    for (uint j = 0u; j < QUARTER / GROUP; j++) {
        uint i = start + j * GROUP + lane;
        if (i < term_count) {
            total += double(abs(terms[term_base + i]));
        }
    }
    part[lane] = total;
    for (uint reach = GROUP / 2u; reach > 0u; reach >>= 1) {
        barrier();
        if (lane < reach) {
            part[lane] += part[lane + reach];
        }
    }
    if (lane == 0u) {
        quarter_totals[window_base * 4u + quarter] = part[0];
    }
}
