#version 460
// psnr_hvs's exact float sum, pass 2 of 3: one workgroup per window of
// WINDOW terms. From the double totals of the windows before it (pass 1)
// it estimates the running sum at the window's start and picks its
// candidate grids: the estimate's, and where the window should cross into
// the next binade or the estimate lies within 1/64 of a binade's edge, the
// neighbouring grid too (else the same one twice). For each it writes
// every chunk's step pair (one invocation a chunk of PER terms) and the
// whole window's, composed in order. Pass 3 uses them where the true grid
// is a candidate; a wrong guess only costs pass 3 time. A sum's first
// window starts at exactly 0, so its workgroup also walks it, as pass 3
// walks the rest, and leaves the exact state after it.
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
// A sum's first window walks its chunks on grids of their own.
shared ivec2 chunk_grids[GROUP];
#define CHUNK_GRIDS(v, c) chunk_grids[c]
#define PSNR_HVS_WALK
#include "psnr_hvs_sum.glsl"

// Rounds of the first window's walk: each walks a crossing, but the last.
const uint FIRST_ROUNDS = 2u + 105u + 149u;

shared double part[GROUP];
shared uvec4 pairs[GROUP];

// The grid of a sum near x (x >= 0; an infinity or NaN gives the highest).
int grid_near(double x) {
    uint field = (floatBitsToUint(float(x)) >> 23) & 0xffu;
    return clamp(int(field) - 150, LOWEST, HIGHEST);
}

// Candidate grids of a run of terms whose sum is estimated to go from
// `start` to `end`: the start's grid, and the next one up where the run
// should cross into it or the start lies just below a power of two, down
// where it lies just above one; else the start's grid twice (after n terms
// a float sum is within a factor (1 +- 2^-24)^n of the exact one, in
// practice far closer).
ivec2 candidates(double start, double end) {
    int e0 = grid_near(start);
    uint fraction = floatBitsToUint(float(start)) & 0x7fffffu;
    if ((grid_near(end) > e0 || fraction >= 0x7e0000u) && e0 < HIGHEST) {
        return ivec2(e0, e0 + 1);
    }
    if (fraction < 0x20000u && e0 > LOWEST) {
        return ivec2(e0, e0 - 1);
    }
    return ivec2(e0);
}

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint w = gl_WorkGroupID.x;
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
    ivec2 mine = grids;
    if (w == 0u) {
        // The first window's sum grows through many binades: each chunk's
        // candidates from the totals of the chunks before it instead.
        double total = 0.0lf;
        [[unroll]] for (uint j = 0u; j < PER; j++) {
            total += double(abs(ts[j]));
        }
        barrier();
        part[lane] = total;
        barrier();
        for (uint reach = 1u; reach < GROUP; reach <<= 1) {
            double upto = lane >= reach ? part[lane - reach] + part[lane] : part[lane];
            barrier();
            part[lane] = upto;
            barrier();
        }
        double chunk_start = part[lane] - total;
        mine = candidates(chunk_start, chunk_start + total);
        chunk_grids[lane] = mine;
    }
    // The chunk's pairs on both grids.
    uvec2 p0 = uvec2(0u);
    uvec2 p1 = uvec2(0u);
    if (mine.y != mine.x) {
        [[unroll]] for (uint j = 0u; j < PER; j++) {
            p0 = then(p0, step_of(ts[j], mine.x));
            p1 = then(p1, step_of(ts[j], mine.y));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < PER; j++) {
            p0 = then(p0, step_of(ts[j], mine.x));
        }
        p1 = p0;
    }
    chunks[(window_base + w) * CHUNKS + lane] = uvec4(p0, p1);
    if (w == 0u) {
        // A sum's first window starts at exactly 0: walk it here, beside
        // the other windows, from its chunks' pairs, and leave the state
        // after it for pass 3 (its dense early crossings would cost pass 3
        // a round each).
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
    }
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
        uvec2 after = w == 0u ? uvec2(run_s, uint(run_e)) : uvec2(0u);
        windows[(window_base + w) * WIN_STRIDE + 1u] = uvec4(uvec2(grids), after);
        windows[(window_base + w) * WIN_STRIDE + 2u] = pairs[0];
    }
}
