#version 460
// psnr_hvs's exact float sum, pass 3 of 3: one plane's float sum of
// `term_count` terms (from float `term_base`), bit for bit the float that
// adding them one by one in order gives (libvmaf's single float
// accumulator). One workgroup per plane walks the sum in rounds from the
// exact state pass 2 left after the first window (`walk_round` in
// psnr_hvs_sum.glsl): the 256
// invocations take the next 256 items (the chunks left in the current
// window, then whole windows), each item's step pair on the sum's current
// grid (pass 2's where the grid is one of the window's candidates, else
// computed from the chunk's terms; a window off its candidates counts as a
// crossing, so it is split into chunks), scan them, and advance to the
// first item where the sum reaches the next binade. A window there is
// split into its chunks next round; a chunk is walked by the first
// subgroup, a subgroup's width of terms a scan, the crossing additions done
// as float additions. A dispatch
// runs at most `rounds` rounds and leaves its state in state[slot] for the
// next (lavapipe ends a shader's loops after 65535 iterations in all; see
// `CPU_ROUNDS` in gpu.rs);
// results[out_word] gets the float bits of the sum so far after each.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`plane_sum`); driver and
// the proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
layout(set = 0, binding = 1, std430) readonly buffer Windows { uvec4 windows[]; };
layout(set = 0, binding = 2, std430) readonly buffer Chunks { uvec4 chunks[]; };
layout(set = 0, binding = 3, std430) buffer Results { int64_t results[]; };
// Per plane: S, E (as uint), the next term's index, whether the window
// starting there is to be split into chunks.
layout(set = 0, binding = 4, std430) buffer State { uvec4 state[]; };

// Twin: `SumPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint window_base;
    uint first;
    uint out_word;
    uint slot;
    uint rounds;  // at most this many rounds
};

const uint GROUP = 256u;
#define PSNR_HVS_SUBGROUP_WALK
#define PSNR_HVS_WALK
#include "psnr_hvs_sum.glsl"

void main() {
    // Items go to invocations in subgroup order (the rounds scan within
    // subgroups, then across them); full subgroups make this 0 .. GROUP - 1.
    uint lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    if (lane == 0u) {
        uvec4 st = uvec4(0u, uint(LOWEST), 0u, 0u);
        if (first == 0u) {
            st = state[slot];
        } else if (term_count != 0u) {
            // Pass 2 left the exact state after the first window.
            st = uvec4(windows[window_base * WIN_STRIDE].zw, min(WINDOW, term_count), 0u);
        }
        run_s = st.x;
        run_e = int(st.y);
        run_pos = st.z;
        run_split = st.w;
    }
    barrier();
    uint window_end = (term_count + WINDOW - 1u) / WINDOW;
    for (uint r = 0u; r < rounds; r++) {
        if (!walk_round(lane, window_end)) {
            break;
        }
    }
    if (lane == 0u) {
        state[slot] = uvec4(run_s, uint(run_e), run_pos, run_split);
        results[out_word] = int64_t(floatBitsToUint(sum_float(run_s, run_e)));
    }
}
