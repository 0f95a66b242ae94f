#version 460
// psnr_hvs's exact float sum, pass 2 of 3: one workgroup per window of
// WINDOW terms but a sum's first (psnr_hvs_sum_first.comp walks that). From the double totals of the windows before it (pass 1)
// it estimates the running sum at the window's start and picks its
// candidate grids: the estimate's, and where the window should cross into
// the next binade or the estimate lies within 1/64 of a binade's edge, the
// neighbouring grid too (else the same one twice). For each it writes
// every chunk's step pair (one invocation a chunk of PER terms) and the
// whole window's, composed in order. Pass 3 uses them where the true grid
// is a candidate; a wrong guess only costs pass 3 time.
// Driver and proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
layout(set = 0, binding = 1, std430) buffer Windows { uvec4 windows[]; };
layout(set = 0, binding = 2, std430) buffer Chunks { uvec4 chunks[]; };

// Twin: `PassPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint window_base;
};

const uint GROUP = 256u;
#include "psnr_hvs_sum.glsl"
#include "psnr_hvs_sum_grids.glsl"

shared double part[GROUP];
shared uvec4 pairs[GROUP];

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint w = gl_WorkGroupID.x + 1u;
    // The running sum's estimate: the totals of the windows before.
    double before = 0.0lf;
    for (uint v = lane; v < w; v += GROUP) {
        before += packDouble2x32(windows[(window_base + v) * WIN_STRIDE].xy);
    }
    part[lane] = before;
    for (uint reach = GROUP / 2u; reach > 0u; reach >>= 1) {
        barrier();
        if (lane < reach) {
            part[lane] += part[lane + reach];
        }
    }
    barrier();
    double start = part[0];
    ivec2 grids = candidates(start, start + packDouble2x32(windows[(window_base + w) * WIN_STRIDE].xy));
    // This invocation's chunk.
    uint lo = min(w * WINDOW + lane * PER, term_count);
    uint hi = min(lo + PER, term_count);
    float ts[PER];
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        ts[j] = lo + j < hi ? terms[term_base + lo + j] : 0.0;
    }
    // The chunk's pairs on both grids.
    uvec2 p0 = uvec2(0u);
    uvec2 p1 = uvec2(0u);
    if (grids.y != grids.x) {
        [[unroll]] for (uint j = 0u; j < PER; j++) {
            p0 = then(p0, step_of(ts[j], grids.x));
            p1 = then(p1, step_of(ts[j], grids.y));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < PER; j++) {
            p0 = then(p0, step_of(ts[j], grids.x));
        }
        p1 = p0;
    }
    chunks[(window_base + w) * CHUNKS + lane] = uvec4(p0, p1);
    // The window's pairs: the chunks composed in order (a tree keeps the
    // order; the clamped composition is exact below LIMIT in any grouping).
    pairs[lane] = uvec4(p0, p1);
    for (uint reach = 1u; reach < GROUP; reach <<= 1) {
        barrier();
        if (lane % (2u * reach) == 0u) {
            uvec4 a = pairs[lane];
            uvec4 b = pairs[lane + reach];
            pairs[lane] = uvec4(then(a.xy, b.xy), then(a.zw, b.zw));
        }
    }
    barrier();
    if (lane == 0u) {
        windows[(window_base + w) * WIN_STRIDE + 1u] = uvec4(uvec2(grids), 0u, 0u);
        windows[(window_base + w) * WIN_STRIDE + 2u] = pairs[0];
    }
}
