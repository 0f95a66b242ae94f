#version 460
// psnr_hvs's exact float sum, the first window: one workgroup per sum walks
// its first WINDOW terms and leaves the exact state after them in the
// window's entry, where pass 3 starts. A sum's first window starts at
// exactly 0 and its sum grows through many binades, a crossing every few
// chunks, each of which would cost pass 3 a round of barriers: here the
// invocations compute their chunks' step pairs on candidate grids taken
// from a scan of the chunk totals before them, and one invocation walks
// the chunks in order. It needs only the window's own terms, so the driver
// records it beside the blocks of the rest of the plane (no barrier between
// them) and its latency overlaps that work.
// Driver and proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
layout(set = 0, binding = 1, std430) buffer Windows { uvec4 windows[]; };

// Twin: `PassPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint window_base;
};

const uint GROUP = 256u;
shared ivec2 chunk_grids[GROUP];
shared uvec4 first_pairs[GROUP];
#define PSNR_HVS_SUBGROUP_WALK
#include "psnr_hvs_sum.glsl"
#include "psnr_hvs_sum_grids.glsl"

shared double part[GROUP];

void main() {
    uint lane = gl_LocalInvocationID.x;
    // This invocation's chunk.
    uint lo = min(lane * PER, term_count);
    uint hi = min(lo + PER, term_count);
    float ts[PER];
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        ts[j] = lo + j < hi ? terms[term_base + lo + j] : 0.0;
    }
    double total = 0.0lf;
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        total += double(abs(ts[j]));
    }
    part[lane] = total;
    barrier();
    for (uint reach = 1u; reach < GROUP; reach <<= 1) {
        double upto = lane >= reach ? part[lane - reach] + part[lane] : part[lane];
        barrier();
        part[lane] = upto;
        barrier();
    }
    double chunk_start = part[lane] - total;
    ivec2 mine = candidates(chunk_start, chunk_start + total);
    chunk_grids[lane] = mine;
    uvec2 p0 = uvec2(0u);
    uvec2 p1 = uvec2(0u);
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        p0 = then(p0, step_of(ts[j], mine.x));
        p1 = then(p1, step_of(ts[j], mine.y));
    }
    first_pairs[lane] = uvec4(p0, p1);
    barrier();
    if (gl_SubgroupID != 0u) {
        return;
    }
    // The first subgroup walks the chunks in order from shared memory,
    // gl_SubgroupSize at a time: their pairs on the sum's grid, scanned,
    // advance S past every chunk before the first whose step reaches LIMIT;
    // that chunk (where the sum leaves its binade, or may) is walked
    // term by term the same way, each crossing addition done as a float
    // addition. S only grows, so the lanes whose running S reaches LIMIT
    // are a suffix: the first of them and the S before it are a min and a
    // max across the subgroup. No workgroup barriers; one scan per
    // gl_SubgroupSize items or per crossing.
    uint sl = gl_SubgroupInvocationID;
    uint width = gl_SubgroupSize;
    uint n = min(term_count, WINDOW);
    uint chunk_count = (n + PER - 1u) / PER;
    uint s = 0u;
    int e = LOWEST;
    uint c = 0u;
    while (c < chunk_count && e <= HIGHEST) {
        uint mine = c + sl;
        uvec2 pair = uvec2(0u);
        if (mine < chunk_count) {
            uint from = mine * PER;
            ivec2 grids = chunk_grids[mine];
            uvec4 pairs = first_pairs[mine];
            pair = e == grids.x   ? pairs.xy
                   : e == grids.y ? pairs.zw
                                  : chunk_of_terms(term_base, from, min(from + PER, n), e);
        }
        uint s_end = apply(subgroup_scan(pair, sl), s);
        uint first = subgroupMin(s_end >= LIMIT ? sl : width);
        s = subgroupMax(s_end < LIMIT ? s_end : s);
        if (first == width) {
            c += width;
            continue;
        }
        uint from = (c + first) * PER;
        uvec2 after = walk_terms(from, min(from + PER, n), s, e, sl);
        s = after.x;
        e = int(after.y);
        c += first + 1u;
    }
    // Pass 3 starts after this window and reads only the state.
    if (sl == 0u) {
        windows[window_base * WIN_STRIDE] = uvec4(0u, 0u, s, uint(e));
    }
}
