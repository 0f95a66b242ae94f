// One scale of integer VIF: the separable filter of x, y, x², y², xy with
// libvmaf's per-pass rounding and mirror, the σ's, and each pixel's terms,
// summed into four int64 per workgroup and added atomically to this scale's
// four of the sixteen frame sums (`sums` at 4·FILTER_INDEX). Integer
// addition, so the order the workgroups add in does not matter. Scales 3 and
// 2 run last, side by side (after barriers behind the other scales): the
// last of their workgroups to finish moves the sixteen sums to the results
// and zeroes them for the next frame. Scale 3 (DECIMATING) decimates its
// input from the scale-2 planes itself, so it need not wait for a
// decimation step of its own.
//
// Included by vif_scale0..3.comp.
//
// Twin: metrics/src/vif/stat.rs (scale_sums, sigmas, gain_terms,
// accumulate_pixel) and filter.rs (rounding by the plane's bpc: scale 0 reads
// the input planes with their own depth, later scales the 16-bit decimated
// planes with bpc = 16). Push constants: `VifScalePush` in
// metrics/src/vif/gpu.rs — the two must agree.
//
// Work split: a workgroup owns a TW × TH = 240 × 4 tile of output pixels
// and computes vertical sums for VCOLS = 256 columns (the tile and up to
// 2·HALF mirrored halo columns: a mirrored column's vertical sums are those
// of the column it mirrors, so mirroring the loads is libvmaf's horizontal
// padding).
//  - Vertical pass, register-blocked: each invocation owns one column and R
//    consecutive rows, streams the R + 2·HALF input samples of that column
//    from the planes once, and adds each sample's x, y, x², y², xy to the R
//    accumulators it touches (every tap a compile-time constant). The five
//    sums are stored as one uvec4 per (row, column) in shared memory.
//  - Horizontal pass, register-blocked the same way: each of the first
//    TH·TW/P = 240 invocations owns P adjacent output pixels of a row and
//    reads the P + 2·HALF uvec4 it needs once.
// One row of 256 columns rather than two rows of 128 (4 tile rows instead of
// 8): the halo's share of the vertical pass falls from 16/128 to 16/256,
// 240 rather than 224 of the 256 invocations filter horizontally, and 3840
// and 1920 are whole numbers of tiles (on the H200 this cut the four scales
// at 4K by 3%).
// R = P = 4 rather than larger blocks: the kernel waits on memory more than
// it computes, and small blocks need few registers, so more workgroups fit
// on a multiprocessor (on the H200 going from 8 rows and 7 pixels to 4 and
// 4 cut the four scales at 4K by about a quarter, although each output now
// loads more samples).
// Widths (proved in filter.rs terms): µ sums are Σc·x ≤ 65536·65535 < 2^32
// for every plane; the vertical squares of an 8-bit plane are
// Σc·x·y ≤ 65536·255² < 2^32, so scale 0 of 8-bit input (SQ32) keeps them in
// uint32, every other plane in uint64; horizontal squares are
// Σc·(uint32) < 2^48, summed as exact integers in double (below 2^53; see
// "Exact integer arithmetic in double").
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

layout(local_size_x = 256) in;

// FILTER_INDEX (0..3, defined by vif_scaleK.comp before including this
// file) picks FILTERS[k] and the record fields 4k..4k+3. A compile-time
// constant rather than a specialization constant, so the tap loops unroll
// into immediates before any driver sees them.
// Test hook: moves the hardware quotient this many ulps before the
// correction step, to prove the correction restores the exact one. 0 in use.
layout(constant_id = 1) const int DIV_PERTURB_ULPS = 0;
// True only for scale 0 of 8-bit input: vertical squares in uint32 (see
// above). The host sets it (`scale_pipeline` in gpu.rs).
layout(constant_id = 2) const bool SQ32 = false;
// True where fma() on doubles is fused, as the host's probe found
// (fma_probe.comp): the division check's remainder is then one fma.
layout(constant_id = 3) const bool FUSED_FMA = false;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DistWords { uint dist_words[]; };
// The same two buffers as bytes, for LOAD_BYTES.
layout(set = 0, binding = 0, std430) readonly buffer RefBytes { uint8_t ref_bytes[]; };
layout(set = 0, binding = 1, std430) readonly buffer DistBytes { uint8_t dist_bytes[]; };
layout(set = 0, binding = 2, std430) readonly buffer Log2Table { uint16_t log2_table[]; };
// The sixteen frame sums (scale k's num_log, den_log, num_non_log,
// den_non_log at 4k..4k+3), then the count of scales 2 and 3's finished
// workgroups.
// Zero between frames.
layout(set = 0, binding = 3, std430) buffer Sums { int64_t sums[]; };
layout(set = 0, binding = 4, std430) writeonly buffer Results { int64_t results[]; };

#include "vif_common.glsl"

layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dist_plane;
    double egl;  // vif_enhn_gain_limit
    uint out_base;  // first of the sixteen result words (scales 2, 3)
    uint finish_groups;  // workgroups of scales 2 and 3 together (scales 2, 3)
};

const uint VCOLS = 256u;                 // vertical-sum columns per tile
const uint TW = VCOLS - 2u * 8u;         // 240 output columns (any scale)
const uint TH = 4u;                      // output rows
const uint R = 4u;                       // rows per vertical task
const uint P = 4u;                       // output pixels per horizontal task
const uint VIN = R + 2u * HALF;          // input rows a vertical task reads
const uint HIN = P + 2u * HALF;          // vertical columns a horizontal task reads
const uint FIELDS = 16u;                 // frame sums (4 scales × 4)
const int SIGMA_NSQ = 65536 << 1;
// 65536 · 1e-10 as C folds it (one rounding of the double product).
const double G_EPS = 6.5536e-6LF;

// Vertical pass per (row, column): (µ ref | µ dist << 16, each libvmaf's
// uint16; xx; yy; xy as uint32), at s_v[sv_index(row, column)]. Reused for
// the workgroup sum at the end (two uvec4 of int64 halves per subgroup, at
// most 512 of the 1024), so the workgroup needs 16 KiB of shared memory.
shared uvec4 s_v[TH * VCOLS];

// Where (row, column) of the vertical sums lives in s_v: the column's low
// two bits XOR its bits 3..4 and the row's parity, a permutation within the
// row. A 16-byte access is served 8 invocations at a time, from 8 groups of
// 4 banks (index mod 8). The horizontal pass's 8 invocations read columns
// 4a + j for 8 consecutive a (one row, or 4 + 4 across a row boundary):
// unswizzled, that is only 2 bank groups; swizzled, index mod 8 is (bit 2,
// low bits ⊕ bits 3..4 ⊕ 2·parity), 8 distinct groups in both cases. The
// vertical pass's 8 consecutive columns stay 8 distinct groups.
uint sv_index(uint row, uint col) {
    return row * VCOLS + (col ^ (((col >> 3) ^ (row << 1)) & 3u));
}

// (v + 2^(s-1)) >> s for s > 0; v for s = 0 (libvmaf's unshifted 8-bit squares).
uint64_t round_shift64(uint64_t v, uint s) {
    return s == 0u ? v : (v + (uint64_t(1) << (s - 1u))) >> s;
}

// ---- Exact integer arithmetic in double ------------------------------
// A sum of products of integers is computed exactly by any type that holds
// every operand and partial sum exactly, and doubles hold all integers
// below 2^53. The horizontal squares' filter sums (below 2^48, see above)
// run as fp64 multiply-adds, which NVIDIA issues on a pipe of their own,
// instead of 64-bit integer multiply-adds on the integer pipe the rest of
// the filter keeps busy (on the H200 this cut scale 0 at 4K by about 5%;
// moving the vertical squares of the 16-bit planes too gained nothing
// measurable). Conversions go through the mantissa: exact, and on the fp64
// pipe rather than the conversion unit.

const double TWO_52 = 4503599627370496.0LF;

// v as a double: v in the low bits of the mantissa of 2^52, minus 2^52.
double exact_double(uint v) {
    return packDouble2x32(uvec2(v, 0x43300000u)) - TWO_52;
}

// The integer an integer-valued 0 ≤ d < 2^52 holds: d + 2^52 has it in the
// low 52 bits of its mantissa.
uint64_t exact_uint64(double d) {
    uvec2 w = unpackDouble2x32(d + TWO_52);
    return pack64(uvec2(w.x, w.y & 0xFFFFFu));
}

// acc + c·v on integers whose products and sums the type holds exactly, so
// fused or not, the result is the exact integer.
double mad(double c, double v, double acc) {
    return fma(c, v, acc);
}

// Index of the highest set bit of a nonzero 64-bit value.
int msb64(uint64_t x) {
    uint hi = uint(x >> 32);
    return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(x));
}

// libvmaf's log2_32 / log2_64 (Log2Table in metrics/src/vif/log2.rs): keep
// the top 16 significant bits, look them up, add 2048 per dropped bit.
int log2_32(uint x) {
    int k = findMSB(x) - 15;
    return int(log2_table[x >> uint(k)]) + 2048 * k;
}

int log2_64(uint64_t x) {
    int k = msb64(x) - 15;
    return int(log2_table[uint(x >> uint(k))]) + 2048 * k;
}

// ---- Correctly rounded double division -------------------------------
// Vulkan does not promise a correctly rounded fp64 divide. The hardware
// quotient q is checked against the exact remainder r = a − q·b (one fused
// fma where the driver fuses it, else Dekker's exact product: lavapipe does
// not fuse fma(), NVIDIA does, and Vulkan promises neither): q is
// the correctly rounded a/b iff r/b lies within half the gap to each
// neighbour of q. If not, one Newton step q + r/b brings q within an ulp and
// the neighbours are walked to the right one. Valid for the operands here:
// 0 < a < 2^31, 2^17 ≤ b < 2^31 (no overflow or underflow).

// Veltkamp split: a = hi + lo, each with at most 26 significant bits.
void split(double a, out double hi, out double lo) {
    precise double c = 134217729.0LF * a;
    precise double h = c - (c - a);
    hi = h;
    precise double l = a - h;
    lo = l;
}

// a − q·b, exact whenever q is within an ulp of a/b (the remainder is then a
// double), and of the right sign otherwise: a fused fma rounds a − q·b once,
// Dekker's product keeps q·b as p + e exactly.
double remainder_of(double a, double b, double q) {
    if (FUSED_FMA) {
        precise double r = fma(-q, b, a);
        return r;
    }
    precise double p = q * b;
    double qh, ql, bh, bl;
    split(q, qh, ql);
    split(b, bh, bl);
    precise double e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;  // q·b = p + e
    precise double r = (a - p) - e;
    return r;
}

double next_up(double x) { return uint64BitsToDouble(doubleBitsToUint64(x) + 1ul); }
double next_down(double x) { return uint64BitsToDouble(doubleBitsToUint64(x) - 1ul); }

// -1: a/b lies below q by more than half the gap to q's lower neighbour,
// +1: above q by more than half the gap to its upper one, 0: q is the
// correctly rounded quotient (no ties: an exact quotient of doubles is never
// a midpoint). The gaps are powers of two, so half of each times b is exact.
int rounding_error(double a, double b, double q) {
    double r = remainder_of(a, b, q);
    precise double up = (next_up(q) - q) * 0.5LF * b;
    precise double down = (q - next_down(q)) * 0.5LF * b;
    return r > up ? 1 : (-r > down ? -1 : 0);
}

double divide_exact(double a, double b) {
    double q = a / b;
    if (DIV_PERTURB_ULPS != 0) {
        q = uint64BitsToDouble(uint64_t(int64_t(doubleBitsToUint64(q)) + DIV_PERTURB_ULPS));
    }
    if (rounding_error(a, b, q) == 0) {
        return q;
    }
    precise double newton = q + remainder_of(a, b, q) / b;
    q = newton;
    for (int i = 0; i < 4; i++) {
        int e = rounding_error(a, b, q);
        if (e == 0) {
            break;
        }
        q = e > 0 ? next_up(q) : next_down(q);
    }
    return q;
}

// ---- Per-pixel statistics (stat.rs) -----------------------------------

// (µa·µb + 2^31) >> 32.
uint mu_product(uint a, uint b) {
    return uint((uint64_t(a) * uint64_t(b) + (uint64_t(1) << 31)) >> 32);
}

// gain_terms + accumulate_pixel: adds one pixel's terms to acc
// (num_log, den_log, num_non_log, den_non_log).
void accumulate_pixel(inout i64vec4 acc, int s1, int s2_raw, int s12) {
    int s2 = max(s2_raw, 0);
    if (s1 >= SIGMA_NSQ) {
        acc.y += int64_t(log2_32(uint(SIGMA_NSQ + s1)) - 2048 * 17);
        if (s12 > 0 && s2 > 0) {
            double d1 = double(s1);
            double d12 = double(s12);
            precise double den = d1 + G_EPS;
            double g = divide_exact(d12, den);
            precise double sv = double(s2) - g * d12;
            // (int32) truncation, then max(·, 0): sv < s2 < 2^31 since g·σ12 > 0,
            // and every sv ≤ 0 (including those below INT_MIN) gives 0.
            int sv_sq = sv > 0.0LF ? int(sv) : 0;
            g = min(g, egl);
            uint numer1 = uint(sv_sq) + uint(SIGMA_NSQ);
            precise double gg = g * g;
            precise double t = gg * d1;
            int64_t numer1_tmp = int64_t(t) + int64_t(numer1);
            acc.x += int64_t(log2_64(uint64_t(numer1_tmp)) - log2_64(uint64_t(numer1)));
        }
    } else {
        acc.z += int64_t(s2);
        acc.w += 1l;
    }
}

// Scales 2 and 3, which run side by side, last; called by the first
// subgroup once its lanes have added the workgroup's sums. It counts this
// workgroup finished (the buffer barrier makes the sums visible before the
// count, the subgroup barrier keeps the count after every lane's add); the
// last of both dispatches counted sees every workgroup's sums, takes them
// and leaves zeros, the count included. Its atomic reads are exact integers:
// the result does not depend on which workgroup finishes last. The rest of
// the workgroup has left by then (on the H200 this, against a workgroup
// barrier on either side of the count, cut scale 2 by 15%).
void finish_frame() {
    memoryBarrierBuffer();
    subgroupBarrier();
    bool last = false;
    if (subgroupElect()) {
        int64_t done = atomicAdd(sums[FIELDS], 1l);
        last = done == int64_t(finish_groups) - 1l;
    }
    if (subgroupBroadcastFirst(last)) {
        memoryBarrierBuffer();
        for (uint i = gl_SubgroupInvocationID; i <= FIELDS; i += gl_SubgroupSize) {
            int64_t total = atomicExchange(sums[i], 0l);
            if (i < FIELDS) {
                results[out_base + i] = total;
            }
        }
    }
}

// Input sample i of a vertical task's column as LOAD_DIRECT (vif_common.glsl)
// gives it, for planes of one byte a sample: a byte load needs no shift and
// mask to find the sample in its word, and no whole-word strides (on the
// H200 this cut scale 0 of 8-bit input at 4K by 3%; 16-bit loads of the
// other planes gained nothing).
#define LOAD_BYTES(i)                                                               \
    uint x = uint(ref_bytes[byte_r + (i) * stride_r]);                             \
    uint y = uint(dist_bytes[byte_d + (i) * stride_d]);

#ifdef DECIMATING
// Sample (gx, gy) of scale 3 for both planes at once, decimated here from
// the scale-2 planes the kernel is bound to: vif_decimate.glsl's steps for
// one kept sample (vertical taps of FILTERS[3] over mirrored rows 2·gy ± 1,
// (+2^15) >> 16, then horizontal taps over mirrored columns 2·gx ± 1,
// (+2^15) >> 16; every sum below 2^32). Twin: filter.rs `decimate`.
uvec2 decimated_pair(int gx, int gy) {
    int w2 = int(ref_plane.width), h2 = int(ref_plane.height);
    uvec2 acc = uvec2(0u);
    [[unroll]] for (int dx = -1; dx <= 1; dx++) {
        uint sx = uint(vif_mirror(2 * gx + dx, w2));
        uvec2 v = uvec2(0u);
        [[unroll]] for (int dy = -1; dy <= 1; dy++) {
            uint sy = uint(vif_mirror(2 * gy + dy, h2));
            uvec2 xy = uvec2(plane_load(ref_plane, sx, sy), plane_load_b(dist_plane, sx, sy));
            v += VIF_FILTERS[3][dy + 1] * xy;
        }
        acc += VIF_FILTERS[3][dx + 1] * ((v + 32768u) >> 16);
    }
    return (acc + 32768u) >> 16;
}

// Input sample i of a vertical task's column decimated as above (gx is the
// column's mirrored scale-3 position, w × h scale 3's size).
#define LOAD_DECIMATED(i)                                                           \
    uvec2 pair = decimated_pair(gx, vif_mirror(ybase + int(i), h));                \
    uint x = pair.x;                                                               \
    uint y = pair.y;
#endif

// Vertical pass of one column (tile column `col`, rows rg·R .. rg·R+R−1).
// filter.rs vertical_row: µ in uint32, then (+2^(bpc-1)) >> bpc kept as
// uint16; squares summed exactly, then (+round) >> 2·(bpc−8) kept as uint32.
// ACC is the squares' accumulator type (uint under SQ32, uint64_t else);
// LOAD is LOAD_MIRRORED or LOAD_DIRECT.
#define VERTICAL_PASS(ACC, LOAD)                                                    \
    {                                                                              \
        uint mu1[R], mu2[R];                                                       \
        ACC xx[R], yy[R], xy[R];                                                   \
        [[unroll]] for (uint r = 0u; r < R; r++) {                                 \
            mu1[r] = 0u; mu2[r] = 0u;                                              \
            xx[r] = ACC(0); yy[r] = ACC(0); xy[r] = ACC(0);                        \
        }                                                                          \
        [[unroll]] for (uint i = 0u; i < VIN; i++) {                               \
            LOAD(i)                                                                \
            uint x2 = x * x, y2 = y * y, xy1 = x * y;                              \
            [[unroll]] for (uint r = 0u; r < R; r++) {                             \
                if (i >= r && i - r < TAPS) {                                      \
                    uint c = VIF_FILTERS[FILTER_INDEX][i - r];                     \
                    mu1[r] += c * x;                                               \
                    mu2[r] += c * y;                                               \
                    xx[r] += ACC(x2) * ACC(c);                                     \
                    yy[r] += ACC(y2) * ACC(c);                                     \
                    xy[r] += ACC(xy1) * ACC(c);                                    \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        [[unroll]] for (uint r = 0u; r < R; r++) {                                 \
            uint m1 = ((mu1[r] + mu_round) >> bpc) & 0xFFFFu;                      \
            uint m2 = ((mu2[r] + mu_round) >> bpc) & 0xFFFFu;                      \
            s_v[sv_index(rg * R + r, col)] =                                       \
                uvec4(m1 | (m2 << 16), uint(round_shift64(uint64_t(xx[r]), sq_shift)), \
                      uint(round_shift64(uint64_t(yy[r]), sq_shift)),              \
                      uint(round_shift64(uint64_t(xy[r]), sq_shift)));             \
        }                                                                          \
    }

void main() {
    uint lid = gl_LocalInvocationIndex;
#ifdef DECIMATING
    int w = int(ref_plane.width) / 2;
    int h = int(ref_plane.height) / 2;
#else
    int w = int(ref_plane.width);
    int h = int(ref_plane.height);
#endif
    int x0 = int(gl_WorkGroupID.x * TW);
    int y0 = int(gl_WorkGroupID.y * TH);

    // 1. Vertical pass: invocation = (column, row group).
    uint bpc = ref_plane.bpc;
    uint mu_round = 1u << (bpc - 1u);
    uint sq_shift = 2u * (bpc - 8u);
    {
        uint col = lid % VCOLS;
        uint rg = lid / VCOLS;
        if (col < TW + 2u * HALF) {
            int gx = vif_mirror(x0 + int(col) - int(HALF), w);
            int ybase = y0 + int(rg * R) - int(HALF);
#ifdef DECIMATING
            VERTICAL_PASS(uint64_t, LOAD_DECIMATED)
#else
            uint bps_r = ref_plane.bytes_per_sample;
            uint bps_d = dist_plane.bytes_per_sample;
            uint mask_r = bps_r == 1u ? 0xFFu : 0xFFFFu;
            uint mask_d = bps_d == 1u ? 0xFFu : 0xFFFFu;
            uint col_r = ref_plane.offset + uint(gx) * bps_r;
            uint col_d = dist_plane.offset + uint(gx) * bps_d;
            uint stride_r = ref_plane.stride * bps_r;
            uint stride_d = dist_plane.stride * bps_d;
            if (SQ32 && bps_r == 1u && bps_d == 1u && rows_inside(ybase, VIN, h)) {
                uint byte_r = col_r + uint(ybase) * stride_r;
                uint byte_d = col_d + uint(ybase) * stride_d;
                VERTICAL_PASS(uint, LOAD_BYTES)
            } else if (!SQ32 && loads_direct(stride_r, stride_d, ybase, VIN, h)) {
                DIRECT_WORDS
                VERTICAL_PASS(uint64_t, LOAD_DIRECT)
            } else if (SQ32) {
                VERTICAL_PASS(uint, LOAD_MIRRORED)
            } else {
                VERTICAL_PASS(uint64_t, LOAD_MIRRORED)
            }
#endif
        }
    }
    barrier();

    // 2. Horizontal pass (µ unshifted uint32; squares as exact integers in
    // double, (+32768) >> 16) and the statistics: invocation = (row, P
    // adjacent pixels).
    i64vec4 acc = i64vec4(0);
    if (lid < TH * (TW / P)) {
        uint ty = lid / (TW / P);
        uint q = lid % (TW / P);
        uint tx0 = q * P;
        uint mu1[P], mu2[P];
        double xx[P], yy[P], xy[P];
        [[unroll]] for (uint p = 0u; p < P; p++) {
            mu1[p] = 0u; mu2[p] = 0u;
            xx[p] = 0.0LF; yy[p] = 0.0LF; xy[p] = 0.0LF;
        }
        [[unroll]] for (uint j = 0u; j < HIN; j++) {
            // sv_index(ty, tx0 + j) spelt out for P = 4: tx0 + j is
            // 4·(q + j/4) + j%4, so its bits 3..4 are those of (q + j/4) >> 1,
            // and every j/4 shares its key and base among four loads.
            uint key = (((q + j / 4u) >> 1) ^ (ty << 1)) & 3u;
            uvec4 v = s_v[ty * VCOLS + P * (q + j / 4u) + ((j % 4u) ^ key)];
            uint m1 = v.x & 0xFFFFu;
            uint m2 = v.x >> 16;
            double vxx = exact_double(v.y), vyy = exact_double(v.z), vxy = exact_double(v.w);
            [[unroll]] for (uint p = 0u; p < P; p++) {
                if (j >= p && j - p < TAPS) {
                    uint c = VIF_FILTERS[FILTER_INDEX][j - p];
                    mu1[p] += c * m1;
                    mu2[p] += c * m2;
                    xx[p] = mad(double(c), vxx, xx[p]);
                    yy[p] = mad(double(c), vyy, yy[p]);
                    xy[p] = mad(double(c), vxy, xy[p]);
                }
            }
        }
        bool row_in = y0 + int(ty) < h;
        [[unroll]] for (uint p = 0u; p < P; p++) {
            if (row_in && x0 + int(tx0 + p) < w) {
                uint hxx = uint((exact_uint64(xx[p]) + 32768ul) >> 16);
                uint hyy = uint((exact_uint64(yy[p]) + 32768ul) >> 16);
                uint hxy = uint((exact_uint64(xy[p]) + 32768ul) >> 16);
                // σ = (int32)(uint32 square − uint32 µ·µ): libvmaf's wrapping cast.
                int s1 = int(hxx - mu_product(mu1[p], mu1[p]));
                int s2 = int(hyy - mu_product(mu2[p], mu2[p]));
                int s12 = int(hxy - mu_product(mu1[p], mu2[p]));
                accumulate_pixel(acc, s1, s2, s12);
            }
        }
    }

    // 3. Workgroup sum (integer: any order gives the same total): each
    // subgroup adds its invocations' terms with subgroupAdd, the subgroups'
    // totals meet in s_v once every invocation is done reading it, and the
    // first subgroup adds those up (on the H200 this cut the four scales at
    // 4K by 3% against a sum through shared memory alone). subgroupAdd runs
    // on 32-bit words, which hold every partial sum: an invocation's four
    // pixels give num_log < 4·2^17 and den_log < 4·2^15 (differences ≥ 0 of
    // log2 values below 2048·64; den_log's argument is ≥ 2^18), and
    // den_non_log < 4·2^31 (σ2 < 2^31 each), split at bit 16 into words
    // below 2^16 and 2^17; so in a subgroup of up to 128 invocations every
    // sum stays below 2^27. A separate array for the subgroups' totals would
    // save a barrier, but the driver then gives scale 0 93 registers instead
    // of 80, two workgroups a multiprocessor instead of three, and the four
    // scales at 4K ran 13% slower (0.251 → 0.284 ms).
    {
        uint64_t z = uint64_t(acc.z);
        uvec4 part =
            subgroupAdd(uvec4(uint(acc.x), uint(acc.y), uint(z) & 0xFFFFu, uint(z >> 16)));
        uint flat_pixels = subgroupAdd(uint(acc.w));
        barrier();
        if (subgroupElect()) {
            uint64_t non_log = (uint64_t(part.w) << 16) + uint64_t(part.z);
            s_v[2u * gl_SubgroupID] = uvec4(part.x, 0u, part.y, 0u);
            s_v[2u * gl_SubgroupID + 1u] = uvec4(unpack32(non_log), flat_pixels, 0u);
        }
        barrier();
        if (gl_SubgroupID == 0u) {
            for (uint f = gl_SubgroupInvocationID; f < 4u; f += gl_SubgroupSize) {
                uint64_t sum = 0ul;
                for (uint i = 0u; i < gl_NumSubgroups; i++) {
                    uvec4 v = s_v[2u * i + (f >> 1)];
                    sum += pack64((f & 1u) == 0u ? v.xy : v.zw);
                }
                atomicAdd(sums[4u * FILTER_INDEX + f], int64_t(sum));
            }
            if (FILTER_INDEX >= 2u) {
                finish_frame();
            }
        }
    }
}
