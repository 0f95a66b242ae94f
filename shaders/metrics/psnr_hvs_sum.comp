#version 460
// psnr_hvs's exact float sum, pass 3 of 3: one plane's float sum of
// `term_count` terms (from float `term_base`), bit for bit the float that
// adding them one by one in order gives (libvmaf's single float
// accumulator). One workgroup per plane walks the sum in rounds: the 256
// invocations take the next 256 items (the chunks left in the current
// window, then whole windows), each item's step pair on the sum's current
// grid (pass 2's where the grid is one of the window's candidates, else
// computed from the chunk's terms; a window off its candidates counts as a
// crossing, so it is split into chunks), scan them, and advance to the
// first item where the sum reaches the next binade. A window there is
// split into its chunks next round; a chunk is walked term by term by its
// invocation, the crossing additions done as float additions. A dispatch
// runs at most ROUNDS rounds and leaves its state in state[slot] for the
// next (lavapipe ends a shader's loops after 65535 iterations in all);
// results[out_word] gets the float bits of the sum so far after each.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`plane_sum`); driver and
// the proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

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
};

#include "psnr_hvs_sum.glsl"

const uint GROUP = 256u;
// Rounds per dispatch: each round's loops take at most 1 + 8 (scan) + PER
// (a chunk's terms) + PER (the walk) iterations, so 400 rounds stay below
// lavapipe's 65535. `ROUNDS` in gpu.rs must agree.
const uint ROUNDS = 400u;

// Inclusive scan of the invocations' step pairs.
shared uint scan_even[GROUP];
shared uint scan_odd[GROUP];
// The running sum S * 2^E, the next term's index, whether to split.
shared uint run_s;
shared int run_e;
shared uint run_pos;
shared uint run_split;

// The pair of window v (of this plane) on grid e; LIMIT (a crossing, so
// the window gets split) when e is neither of its candidates.
uvec2 window_pair(uint v, int e) {
    ivec2 grids = ivec2(windows[(window_base + v) * WIN_STRIDE + 1u].xy);
    uvec4 pairs = windows[(window_base + v) * WIN_STRIDE + 2u];
    if (e == grids.x) {
        return pairs.xy;
    }
    return e == grids.y ? pairs.zw : uvec2(LIMIT);
}

// The pair of chunk c of window v, terms [lo, hi), on grid e.
uvec2 chunk_pair(uint v, uint c, uint lo, uint hi, int e) {
    ivec2 grids = ivec2(windows[(window_base + v) * WIN_STRIDE + 1u].xy);
    if (e == grids.x || e == grids.y) {
        uvec4 pairs = chunks[(window_base + v) * CHUNKS + c];
        return e == grids.x ? pairs.xy : pairs.zw;
    }
    return chunk_of_terms(term_base, lo, hi, e);
}

// Adds terms [lo, hi) one by one to S * 2^e (S < LIMIT), on the grid while
// the sum stays in its binade, as float additions where it leaves it;
// stores the state after them.
void walk(uint lo, uint hi, uint s, int e) {
    float ts[PER];
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        ts[j] = lo + j < hi ? terms[term_base + lo + j] : 0.0;
    }
    uint end = hi;
    for (uint j = 0u; j < hi - lo; j++) {
        uint after = apply(step_of(ts[j], e), s);
        if (after < LIMIT) {
            s = after;
            continue;
        }
        uvec2 grid = add_exactly(s, e, ts[j]);
        s = grid.x;
        e = int(grid.y);
        if (e > HIGHEST) {
            // Infinite: finite terms leave it so.
            end = term_count;
            break;
        }
    }
    run_s = s;
    run_e = e;
    run_pos = end;
    run_split = 0u;
}

void main() {
    uint lane = gl_LocalInvocationID.x;
    if (lane == 0u) {
        uvec4 st = first != 0u ? uvec4(0u, uint(LOWEST), 0u, 0u) : state[slot];
        run_s = st.x;
        run_e = int(st.y);
        run_pos = st.z;
        run_split = st.w;
    }
    barrier();
    for (uint r = 0u; r < ROUNDS; r++) {
        uint pos = run_pos;
        uint s = run_s;
        int e = run_e;
        bool split = run_split != 0u;
        barrier();
        if (pos >= term_count || e > HIGHEST) {
            break;
        }
        // pos starts a chunk. Items: the chunks left in its window (all of
        // them when it is to be split), then whole windows.
        uint w0 = pos / WINDOW;
        uint c0 = (pos % WINDOW) / PER;
        uint in_chunks = c0 != 0u || split ? CHUNKS - c0 : 0u;
        bool is_chunk = lane < in_chunks;
        uint lo;
        uint hi;
        uvec2 mine = uvec2(0u);
        if (is_chunk) {
            lo = min(w0 * WINDOW + (c0 + lane) * PER, term_count);
            hi = min(lo + PER, term_count);
            if (lo < hi) {
                mine = chunk_pair(w0, c0 + lane, lo, hi, e);
            }
        } else {
            uint v = w0 + lane - in_chunks + (in_chunks != 0u ? 1u : 0u);
            lo = min(v * WINDOW, term_count);
            hi = min(lo + WINDOW, term_count);
            if (lo < hi) {
                mine = window_pair(v, e);
            }
        }
        scan_even[lane] = mine.x;
        scan_odd[lane] = mine.y;
        barrier();
        for (uint reach = 1u; reach < GROUP; reach <<= 1) {
            uvec2 before = uvec2(0u);
            if (lane >= reach) {
                before = uvec2(scan_even[lane - reach], scan_odd[lane - reach]);
            }
            barrier();
            if (lane >= reach) {
                uvec2 upto = then(before, uvec2(scan_even[lane], scan_odd[lane]));
                scan_even[lane] = upto.x;
                scan_odd[lane] = upto.y;
            }
            barrier();
        }
        uint s_end = apply(uvec2(scan_even[lane], scan_odd[lane]), s);
        uint s_start = lane == 0u ? s : apply(uvec2(scan_even[lane - 1u], scan_odd[lane - 1u]), s);
        barrier();
        if (s_start < LIMIT && s_end >= LIMIT) {
            // The first item where the sum leaves its binade (or a window
            // off its candidates).
            if (is_chunk) {
                walk(lo, hi, s_start, e);
            } else {
                run_s = s_start;
                run_pos = lo;
                run_split = 1u;
            }
        } else if (lane == GROUP - 1u && s_end < LIMIT) {
            run_s = s_end;
            run_pos = hi;
            run_split = 0u;
        }
        barrier();
    }
    if (lane == 0u) {
        state[slot] = uvec4(run_s, uint(run_e), run_pos, run_split);
        results[out_word] = int64_t(floatBitsToUint(sum_float(run_s, run_e)));
    }
}
