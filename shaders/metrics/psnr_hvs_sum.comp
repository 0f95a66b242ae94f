#version 460
// psnr_hvs, step 2 of 2: one plane's float sum of `term_count` terms (from
// float `term_base`), bit for bit the float that adding them one by one in
// order gives (libvmaf's single float accumulator), but with a workgroup
// working on 16384 terms at a time instead of one invocation walking them.
// One workgroup per plane; a dispatch handles at most `WINDOWS` windows and
// leaves its state in state[slot] for the next dispatch (lavapipe ends a
// shader's loops after 65535 iterations in all); results[out_word] gets the
// float bits of the sum so far after every dispatch.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`plane_sum`); driver and
// the proof: metrics/src/features/psnr_hvs/gpu.rs (`PlaneSum`).
//
// Why this is exact, in short (gpu.rs has it in full): every term is
// finite and >= 0, so the running sum s never falls. While s lies in
// [0, 2^(E+24)) on the grid of 2^E (E = -149 below 2^-125, else s's ulp),
// s = S * 2^E with an integer S < 2^24, and one addition of t gives
// S + d, where d is t / 2^E rounded to an integer, ties toward the even
// result, so d depends on t and S's parity only: a pair (d if S even,
// d if S odd). Pairs compose associatively, so a window's running S is a
// prefix scan. Steps are exact below 2^24 and only known to be at least
// 2^24 above (clamped to 2^25), which keeps them in 32 bits and decides
// the same crossings. The first addition whose S + d reaches 2^24 leaves the
// grid: it is done as a correctly rounded float addition, and the scan
// continues from the next term on the new sum's grid.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };
// Per plane: S, E (as uint), the next term's index, unused.
layout(set = 0, binding = 2, std430) buffer State { uvec4 state[]; };

// Twin: `SumPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint first;
    uint out_word;
    uint slot;
};

const uint GROUP = 256u;
// Terms per invocation in a window; GROUP * PER terms per window.
const uint PER = 64u;
// Windows per dispatch: with PER and the scan's 8 steps, about 19000
// loop iterations, well below lavapipe's 65535.
const uint WINDOWS = 128u;
// S's bound on a grid: 2^24 units are 2^(E+24), the next binade.
const uint LIMIT = 1u << 24;
// Composed steps are clamped here: a step that is not below LIMIT only
// has to stay so.
const uint CLAMP = 1u << 25;
// The grid of the zero / subnormal range and of [2^-126, 2^-125).
const int LOWEST = -149;

// Inclusive scan of the invocations' step pairs.
shared uint scan_even[GROUP];
shared uint scan_odd[GROUP];
// The running sum S * 2^E and the next term's index.
shared uint run_s;
shared int run_e;
shared uint run_next;

// Term t in units of 2^e, rounded to an integer: (when S is even, when S is
// odd). LIMIT when t alone reaches 2^(e+24).
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
// result is at least 2^-125, a normal float. Then split into run_s / run_e.
void add_exactly(uint s, int e, float t) {
    uint bits = floatBitsToUint(t) & 0x7fffffffu;
    uint field = bits >> 23;
    int64_t m = int64_t(bits & 0x7fffffu) | (field != 0u ? int64_t(0x800000) : int64_t(0));
    precise double sum = scaled(int64_t(s), e) + scaled(m, field != 0u ? int(field) - 150 : LOWEST);
    uint out_bits = floatBitsToUint(float(sum));
    uint out_field = out_bits >> 23;
    run_e = int(out_field) - 150;
    run_s = (out_bits & 0x7fffffu) | 0x800000u;
}

void main() {
    uint lane = gl_LocalInvocationID.x;
    if (lane == 0u) {
        uvec4 st = first != 0u ? uvec4(0u, uint(LOWEST), 0u, 0u) : state[slot];
        run_s = st.x;
        run_e = int(st.y);
        run_next = st.z;
    }
    barrier();
    for (uint w = 0u; w < WINDOWS; w++) {
        uint next = run_next;
        uint s = run_s;
        int e = run_e;
        barrier();
        // Past the last term, or the sum overflowed to infinity (E = 105),
        // which finite terms leave as it is.
        if (next >= term_count || e > 104) {
            break;
        }
        uint start = next + lane * PER;
        uint end = min(start + PER, term_count);
        uvec2 mine = uvec2(0u);
        for (uint i = start; i < end; i++) {
            mine = then(mine, step_of(terms[term_base + i], e));
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
            // The window's first addition off the grid is one of this
            // invocation's: find it, do it as a float addition, and start
            // the next window after it.
            uint at = s_start;
            for (uint i = start; i < end; i++) {
                float t = terms[term_base + i];
                uint after = apply(step_of(t, e), at);
                if (after >= LIMIT) {
                    add_exactly(at, e, t);
                    run_next = i + 1u;
                    break;
                }
                at = after;
            }
        } else if (lane == GROUP - 1u && s_end < LIMIT) {
            run_s = s_end;
            run_next = next + GROUP * PER;
        }
        barrier();
    }
    if (lane == 0u) {
        state[slot] = uvec4(run_s, uint(run_e), run_next, 0u);
        results[out_word] = int64_t(floatBitsToUint(sum_float(run_s, run_e)));
    }
}
