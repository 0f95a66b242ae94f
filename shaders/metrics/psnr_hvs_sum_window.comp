#version 460
// psnr_hvs's exact float sum, pass 2 of 3: one workgroup per window of
// WINDOW terms but a sum's first (psnr_hvs_sum_first.comp walks that).
// From the double totals of the quarter windows before it (pass 1, or the
// psnr_hvs blocks pass) it estimates the running sum at the window's start and picks its
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
// Four a window, from window_base on.
layout(set = 0, binding = 3, std430) readonly buffer Quarters { double quarter_totals[]; };

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

// The total of quarter q of this sum.
double quarter_total(uint q) {
    return quarter_totals[window_base * 4u + q];
}
// Terms of each chunk per copy; the slice holds them as float bits, a
// chunk's SLICE + 1 apart (an odd stride: no bank conflicts either way).
const uint SLICE = 8u;
shared uint slice[GROUP * (SLICE + 1u)];

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint w = gl_WorkGroupID.x + 1u;
    // The running sum's estimate: the totals of the windows before.
    double before = 0.0lf;
    for (uint q = lane; q < 4u * w; q += GROUP) {
        before += quarter_total(q);
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
    double own = 0.0lf;
    for (uint q = 4u * w; q < 4u * w + 4u && q * QUARTER < term_count; q++) {
        own += quarter_total(q);
    }
    ivec2 grids = candidates(start, start + own);
    // This invocation's chunk's pairs on both grids, SLICE terms at a time:
    // the workgroup first copies the next SLICE terms of every chunk to
    // shared memory, SLICE consecutive invocations reading one chunk's
    // (whole 32-byte sectors, where an invocation reading its own chunk
    // would touch a sector per invocation per term).
    bool two = grids.y != grids.x;
    uvec2 p0 = uvec2(0u);
    uvec2 p1 = uvec2(0u);
    for (uint i = 0u; i < PER / SLICE; i++) {
        [[unroll]] for (uint m = 0u; m < SLICE; m++) {
            uint q = lane + GROUP * m;
            uint c = q / SLICE;
            uint index = w * WINDOW + c * PER + i * SLICE + q % SLICE;
            float t = index < term_count ? terms[term_base + index] : 0.0;
            slice[c * (SLICE + 1u) + q % SLICE] = floatBitsToUint(t);
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < SLICE; j++) {
            float t = uintBitsToFloat(slice[lane * (SLICE + 1u) + j]);
            p0 = then(p0, step_of(t, grids.x));
            if (two) {
                p1 = then(p1, step_of(t, grids.y));
            }
        }
        barrier();
    }
    if (!two) {
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
        windows[(window_base + w) * WIN_STRIDE] = uvec4(uvec2(grids), 0u, 0u);
        windows[(window_base + w) * WIN_STRIDE + 1u] = pairs[0];
    }
}
