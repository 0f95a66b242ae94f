// psnr_hvs's exact float sum: what the three passes share (the step of one
// term on a grid, composing steps, the one float addition that leaves a
// grid). Included by the psnr_hvs_sum_*.comp passes and psnr_hvs_sum.comp; the
// proof is in metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
//
// The running sum s never falls (terms are >= 0). While it lies on the grid
// of 2^E below 2^(E+24) (E = -149 below 2^-125, else s's ulp), s = S * 2^E
// with an integer S < 2^24, and adding a term t gives S + d, where d is
// t / 2^E rounded to an integer, ties toward the even result: d depends on
// t and S's parity only, a pair (d if S even, d if S odd). Pairs compose
// associatively, so runs of terms have pairs too. Steps are exact below
// 2^24 and only known to be at least 2^24 above (clamped to 2^25), which
// keeps them in 32 bits and decides the same crossings, whatever the
// grouping. The first addition whose S + d reaches 2^24 leaves the grid: it
// is done as a correctly rounded float addition, and the sum goes on from
// the next term on the new sum's grid.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

// Terms of a chunk; CHUNKS chunks make a window.
const uint PER = 64u;
const uint CHUNKS = 256u;
const uint WINDOW = PER * CHUNKS;
// Per window in the windows buffer: [0] its two candidate grids, [1] its
// pairs on them. Its four quarters' totals (QUARTER terms each) are in a
// buffer of doubles of their own.
const uint WIN_STRIDE = 2u;
const uint QUARTER = WINDOW / 4u;
// S's bound on a grid: 2^24 units are 2^(E+24), the next binade.
const uint LIMIT = 1u << 24;
// Composed steps are clamped here: a step that is not below LIMIT only
// has to stay so.
const uint CLAMP = 1u << 25;
// The grid of the zero / subnormal range and of [2^-126, 2^-125).
const int LOWEST = -149;
// The highest grid of a finite sum; E = 105 means the sum is infinite.
const int HIGHEST = 104;

// Term t in units of 2^e, rounded to an integer: (when S is even, when S is
// odd). LIMIT when t alone reaches 2^(e+24). The sign bit is ignored (terms
// are >= 0); an infinity or NaN counts as 2^128, so the sum overflows.
uvec2 step_of(float t, int e) {
    uint bits = floatBitsToUint(t) & 0x7fffffffu;
    if (bits == 0u) {
        return uvec2(0u);
    }
    uint field = bits >> 23;
    uint m = bits & 0x7fffffu;
    int f = LOWEST;
    if (field != 0u) {
        m |= 0x800000u;
        f = int(field) - 150;
    }
    // t = m * 2^f with m < 2^24.
    if (f >= e) {
        int up = f - e;
        return uvec2(up >= 24 || m >= (LIMIT >> up) ? LIMIT : m << up);
    }
    int down = e - f;
    // t < 2^(f+24) <= 2^(e-1): below half a unit.
    if (down >= 25) {
        return uvec2(0u);
    }
    uint q = m >> down;
    uint r = m & ((1u << down) - 1u);
    uint half_unit = 1u << (down - 1);
    if (r != half_unit) {
        return uvec2(q + (r > half_unit ? 1u : 0u));
    }
    // A tie: S + q + (0 or 1), whichever is even.
    uint q_odd = q & 1u;
    return uvec2(q + q_odd, q + 1u - q_odd);
}

// `a` then `b`, clamped: exact while below LIMIT, else at least LIMIT (a
// clamped `a` may pick `b`'s wrong half, but the result is past LIMIT
// either way).
uvec2 then(uvec2 a, uvec2 b) {
    uvec2 sum = a + uvec2((a.x & 1u) == 0u ? b.x : b.y, (a.y & 1u) == 0u ? b.y : b.x);
    return min(sum, uvec2(CLAMP));
}

// S (below LIMIT) after `step`.
uint apply(uvec2 step, uint s) {
    return s + ((s & 1u) == 0u ? step.x : step.y);
}

// The pair of terms[term_base + lo .. term_base + hi) on grid e (at most
// PER terms), composed in order. The loads are unrolled ahead of the
// chain: one invocation's pair is one round trip to memory, not PER.
uvec2 chunk_of_terms(uint first, uint lo, uint hi, int e) {
    float ts[PER];
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        ts[j] = lo + j < hi ? terms[first + lo + j] : 0.0;
    }
    uvec2 pair = uvec2(0u);
    [[unroll]] for (uint j = 0u; j < PER; j++) {
        pair = then(pair, step_of(ts[j], e));
    }
    return pair;
}

// S * 2^e as a float (exact: S < 2^24, normalised above the lowest grid).
float sum_float(uint s, int e) {
    if (e == LOWEST) {
        return uintBitsToFloat(s);
    }
    return uintBitsToFloat((uint(e + 150) << 23) | (s & 0x7fffffu));
}

// x * 2^e in double, exact for the exponents here (`precise` all the
// same: a product that feeds an add is never left to contraction).
double scaled(int64_t x, int e) {
    precise double r = double(x) * int64BitsToDouble(int64_t(e + 1023) << 52);
    return r;
}

// s * 2^e + t rounded once to float: the double sum of two floats rounded
// to float is the correctly rounded float sum (53 >= 2 * 24 + 2). The
// result is at least 2^-125, a normal float: returned as (S, E) of its
// grid.
uvec2 add_exactly(uint s, int e, float t) {
    uint bits = floatBitsToUint(t) & 0x7fffffffu;
    uint field = bits >> 23;
    int64_t m = int64_t(bits & 0x7fffffu) | (field != 0u ? int64_t(0x800000) : int64_t(0));
    precise double sum = scaled(int64_t(s), e) + scaled(m, field != 0u ? int(field) - 150 : LOWEST);
    uint out_bits = floatBitsToUint(float(sum));
    return uvec2((out_bits & 0x7fffffu) | 0x800000u, uint(int(out_bits >> 23) - 150));
}

#ifdef PSNR_HVS_SUBGROUP_WALK
// What a walk on one subgroup needs (psnr_hvs_sum_first.comp,
// psnr_hvs_sum.comp): the including shader has the subgroup extensions
// (basic, arithmetic), `terms`, `term_base`, GROUP and full subgroups
// (lanes 0 .. gl_SubgroupSize - 1).
shared uvec2 scan_pairs[GROUP];

// Inclusive scan of the subgroup's pairs, composed in invocation order
// (`then`: exact below LIMIT in any grouping), through shared memory: the
// device is asked for subgroup arithmetic and ballots, not shuffles.
uvec2 subgroup_scan(uvec2 pair, uint sl) {
    uint at = gl_SubgroupID * gl_SubgroupSize + sl;
    for (uint reach = 1u; reach < gl_SubgroupSize; reach <<= 1) {
        scan_pairs[at] = pair;
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        if (sl >= reach) {
            pair = then(scan_pairs[at - reach], pair);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
    }
    return pair;
}

// `add_terms` on the whole subgroup: terms [from, to) added to S * 2^e (S <
// LIMIT), gl_SubgroupSize at a time. S only grows, so the invocations whose
// running S reaches LIMIT are a suffix: the first of them (the first term
// that may leave the grid) and the S before it are a min and a max across
// the subgroup; that term is a float addition, and the walk goes on after
// it on the new grid. Returns (S, E); E > HIGHEST once the sum is infinite.
uvec2 walk_terms(uint from, uint to, uint s, int e, uint sl) {
    uint width = gl_SubgroupSize;
    uint j = from;
    while (j < to && e <= HIGHEST) {
        float t = j + sl < to ? terms[term_base + j + sl] : 0.0;
        uint t_end = apply(subgroup_scan(step_of(t, e), sl), s);
        uint at = subgroupMin(t_end >= LIMIT ? sl : width);
        s = subgroupMax(t_end < LIMIT ? t_end : s);
        if (at == width) {
            j += width;
            continue;
        }
        uvec2 grid = add_exactly(s, e, terms[term_base + j + at]);
        s = grid.x;
        e = int(grid.y);
        j += at + 1u;
    }
    return uvec2(s, uint(e));
}
#endif

#ifdef PSNR_HVS_WALK
// The walk over the items after the sum's exact state (psnr_hvs_sum.comp):
// the including shader has `terms`, `windows`, `chunks`, the push
// constants `term_base`, `term_count`, `window_base`, GROUP (256)
// invocations and PSNR_HVS_SUBGROUP_WALK.
// Each subgroup's composed pairs; the round's first crossing item and the
// S before it.
shared uvec2 group_pairs[GROUP];
shared uint round_first;
shared uint round_below;
// The running sum S * 2^E, the next term's index, whether the window
// starting there is to be split into its chunks.
shared uint run_s;
shared int run_e;
shared uint run_pos;
shared uint run_split;

// The pair of window v (of this sum) on grid e; LIMIT (a crossing, so the
// window gets split) when e is neither of its candidates.
uvec2 window_pair(uint v, int e) {
    ivec2 grids = ivec2(windows[(window_base + v) * WIN_STRIDE].xy);
    uvec4 pairs = windows[(window_base + v) * WIN_STRIDE + 1u];
    if (e == grids.x) {
        return pairs.xy;
    }
    return e == grids.y ? pairs.zw : uvec2(LIMIT);
}

// The candidate grids of chunk c of window v: its window's, unless the
// including shader has its own.
#ifndef CHUNK_GRIDS
#define CHUNK_GRIDS(v, c) ivec2(windows[(window_base + (v)) * WIN_STRIDE].xy)
#endif

// The pair of chunk c of window v, terms [lo, hi), on grid e: pass 2's
// where e is a candidate (both loads issued at once), else from the terms.
uvec2 chunk_pair(uint v, uint c, uint lo, uint hi, int e) {
    ivec2 grids = CHUNK_GRIDS(v, c);
    uvec4 pairs = chunks[(window_base + v) * CHUNKS + c];
    if (e == grids.x) {
        return pairs.xy;
    }
    return e == grids.y ? pairs.zw : chunk_of_terms(term_base, lo, hi, e);
}

// One round from the shared state, over windows below `window_end` (their
// terms, at most): false, doing nothing, once the walk is done. Four
// workgroup barriers a round. Its loops take at most log2(subgroup) (scan)
// + GROUP / subgroup - 1 (the subgroups before) + (1 + log2(subgroup)) *
// (PER / subgroup) (a chunk's terms) iterations, plus 1 + log2(subgroup)
// per crossing in the chunk: 2 + 63 + 48 = 113 at lavapipe's smallest
// subgroup (4), plus 3 per crossing.
bool walk_round(uint lane, uint window_end) {
    uint pos = run_pos;
    uint s = run_s;
    int e = run_e;
    bool split = run_split != 0u;
    uint stop = min(window_end * WINDOW, term_count);
    barrier();
    if (pos >= stop || e > HIGHEST) {
        return false;
    }
    if (lane == 0u) {
        round_first = GROUP;
        round_below = s;
    }
    // pos starts a chunk. Items: the chunks left in its window (all of them
    // when it is to be split), then whole windows.
    uint w0 = pos / WINDOW;
    uint c0 = (pos % WINDOW) / PER;
    uint in_chunks = c0 != 0u || split ? CHUNKS - c0 : 0u;
    bool is_chunk = lane < in_chunks;
    uint lo = stop;
    uint hi = stop;
    uvec2 mine = uvec2(0u);
    if (is_chunk) {
        lo = min(w0 * WINDOW + (c0 + lane) * PER, stop);
        hi = min(lo + PER, stop);
        if (lo < hi) {
            mine = chunk_pair(w0, c0 + lane, lo, hi, e);
        }
    } else {
        uint v = w0 + lane - in_chunks + (in_chunks != 0u ? 1u : 0u);
        if (v < window_end) {
            lo = min(v * WINDOW, stop);
            hi = min(lo + WINDOW, stop);
            if (lo < hi) {
                mine = window_pair(v, e);
            }
        }
    }
    // The items' pairs scanned: within each subgroup, then the subgroups
    // before it composed in order. S only grows, so the invocations whose
    // running S reaches LIMIT are a suffix: the first of them and the S
    // before it are a min and a max.
    uint sl = gl_SubgroupInvocationID;
    uvec2 upto = subgroup_scan(mine, sl);
    if (sl == gl_SubgroupSize - 1u) {
        group_pairs[gl_SubgroupID] = upto;
    }
    barrier();
    uvec2 before = uvec2(0u);
    for (uint g = 0u; g < gl_SubgroupID; g++) {
        before = then(before, group_pairs[g]);
    }
    uint s_end = apply(then(before, upto), s);
    uint first = subgroupMin(s_end >= LIMIT ? lane : GROUP);
    uint below = subgroupMax(s_end < LIMIT ? s_end : s);
    if (sl == 0u) {
        atomicMin(round_first, first);
        atomicMax(round_below, below);
    }
    barrier();
    first = round_first;
    below = round_below;
    if (first == GROUP) {
        // No crossing: past every item.
        if (lane == GROUP - 1u) {
            run_s = s_end;
            run_pos = hi;
            run_split = 0u;
        }
    } else if (first >= in_chunks) {
        // A window where the sum leaves its binade (or off its candidates):
        // split next round.
        if (lane == first) {
            run_s = below;
            run_pos = lo;
            run_split = 1u;
        }
    } else if (gl_SubgroupID == 0u) {
        // A chunk where it does: its terms, on the first subgroup.
        uint c_lo = min(w0 * WINDOW + (c0 + first) * PER, stop);
        uint c_hi = min(c_lo + PER, stop);
        uvec2 after = walk_terms(c_lo, c_hi, below, e, sl);
        if (sl == 0u) {
            run_s = after.x;
            run_e = int(after.y);
            // Infinite: finite terms leave it so.
            run_pos = int(after.y) > HIGHEST ? term_count : c_hi;
            run_split = 0u;
        }
    }
    barrier();
    return true;
}
#endif
