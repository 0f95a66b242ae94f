#version 460
// psnr_hvs's exact float sum, the first window: one workgroup per sum walks
// its first WINDOW terms and leaves the exact state after them in the
// window's entry, where pass 3 starts. A sum's first window starts at
// exactly 0 and its sum grows through many binades, a crossing every few
// chunks: walked here, in rounds, it needs only its own terms, so the
// driver records it beside the blocks of the rest of the plane (no barrier
// between them) and its rounds of latency overlap that work. Each chunk's
// candidate grids come from a scan of the chunk totals before it.
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
shared ivec2 chunk_grids[GROUP];
#define CHUNK_GRIDS(v, c) chunk_grids[c]
#define PSNR_HVS_WALK
#include "psnr_hvs_sum.glsl"
#include "psnr_hvs_sum_grids.glsl"

// Rounds of the walk: each walks a crossing, but the last.
const uint FIRST_ROUNDS = 2u + 105u + 149u;

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
    chunks[window_base * CHUNKS + lane] = uvec4(p0, p1);
    if (lane == 0u) {
        run_s = 0u;
        run_e = LOWEST;
        run_pos = 0u;
        run_split = 1u;
    }
    memoryBarrierShared();
    memoryBarrierBuffer();
    barrier();
    for (uint r = 0u; r < FIRST_ROUNDS; r++) {
        if (!walk_round(lane, 1u)) {
            break;
        }
    }
    if (lane == 0u) {
        // Pass 3 starts after this window and reads only the state.
        windows[window_base * WIN_STRIDE + 1u] = uvec4(0u, 0u, run_s, uint(run_e));
    }
}
