#version 460
// One scale of float_ssim / float_ms_ssim, fused: the five 11x11 Gaussian
// windows (means, filtered squares and cross product), the per-pixel
// luminance/contrast/structure terms, the SSIM map, and this workgroup's
// deterministic double partial sums of l*c*s, l, c and s.
// Twin: ssim.rs `ssim_scale` (gaussian_horizontal, gaussian_vertical,
// products, pixel_lcs) — every value here equals the twin's bit for bit.
//
// A workgroup owns a column of `bands` 32x16 tiles of the map (the valid
// region, (w-10)x(h-10)) and walks down it one tile (band) at a time. The
// horizontal pass of all five quantities goes to 26 rows of 32 in shared
// memory, the band's window rows in order: the first band fills them; each
// later band adds only the 16 rows below (staging just those input rows),
// since its upper 10 rows are the previous band's lower ones, moved up
// after its vertical pass. The vertical pass reads its 11-row window from
// there at fixed offsets, so it never touches memory, and the horizontal
// pass runs on 74 rows per 64 map rows instead of 26 per 16.
//
// libvmaf sums the per-pixel doubles sequentially in raster order, which no
// parallel reduction reproduces. This one is deterministic instead: per
// 32x16 tile, each thread adds its two pixels in a fixed order, a fixed
// tree folds the 256 threads into one record (tile_sums), and
// ssim_fold.comp folds the records in a fixed order. No subgroup
// operations, so the result is the same at every subgroup size and every
// run (and the same records as one workgroup per tile would write).
//
// The workgroup is 32 x LY threads, LY = 8. The records are those of 256
// "virtual" threads (32 x 8) whatever LY is: virtual thread (tx, vy) adds
// the pixels of rows vy and vy + 8, and real thread (tx, ty) plays virtual
// rows ty, ty + LY, ... in turn. (32 x 4 workgroups, same records, took
// 25 % longer on the H100: 4K scale 0 0.830 ms against 0.661.)
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 32, local_size_y = 8) in;

#include "ssim_common.glsl"

// FROM_FRAME (a second build of this file): the scale's samples are read
// from the frame's planes and converted as ssim_decimate.comp converts them
// at factor 1 (float(sample) * 2^-(bpc-8), exact), so float_ms_ssim's
// scale 0 needs no float planes and no input pass. Otherwise they are
// float planes (`planes` from a_offset and b_offset).
#ifdef FROM_FRAME
layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"
#define FIRST_OUTPUT 2
#else
layout(set = 0, binding = 0, std430) readonly buffer Planes { float planes[]; };
#define FIRST_OUTPUT 1
#endif
layout(set = 0, binding = FIRST_OUTPUT, std430) writeonly buffer Map { float map_values[]; };
layout(set = 0, binding = FIRST_OUTPUT + 1, std430) writeonly buffer Partials { double partials[]; };

// Twin: float_ssim/gpu.rs `ScalePush` (40 bytes), and with FROM_FRAME
// `FrameScalePush` (108 bytes); the two must agree.
layout(push_constant) uniform Push {
    uint width;        // of this scale's input planes
    uint height;
    uint a_offset;     // reference plane, in floats into `planes`
    uint b_offset;     // distorted plane
    uint write_map;    // nonzero: store each pixel's float(l*c*s) in `map_values`
    uint partial_base; // in doubles: this dispatch's records start here
    float c1;          // SSIM constants, computed in float on the host
    float c2;
    float c3;
    uint bands;        // tiles each workgroup walks down (ssim_gpu.rs `bands_for`)
#ifdef FROM_FRAME
    PlaneDesc ref_plane; // width x height samples
    PlaneDesc dis_plane;
    float sample_scale;  // 2^-(bpc-8)
#endif
};

// Set when every input sample is +0.0 or positive (the frame's samples,
// float_ssim's box-decimated planes; not float_ms_ssim's low-passed scales,
// whose table has negative taps): every filter product (positive Gaussian
// taps) and every filtered value is then +0.0 or positive too, so all five
// quantities widen without the sign mask, one integer operation less each.
layout(constant_id = 0) const bool NONNEGATIVE = false;

// `widened` for a product of possibly signed samples.
double widened_signed(float p) {
    return NONNEGATIVE ? widened_nonnegative(p) : widened(p);
}

// Product `p` of quantity `q` (mu1, mu2, xx, yy, xy) widened for its sum.
double term(uint q, float p) {
    // xx and yy (q = 2, 3) are filtered squares: never negative.
    return (q == 2u || q == 3u) ? widened_nonnegative(p) : widened_signed(p);
}

const uint TW = 32u;
const uint TH = 16u;           // one band: the tile of one partial record
const uint WIN = 11u;
const uint IW = TW + WIN - 1u; // 42
const uint IH = TH + WIN - 1u; // 26: the window rows of a band
const uint LY = gl_WorkGroupSize.y;
const uint THREADS = TW * LY;
const uint VIRTUAL = TW * 8u;  // the record's virtual threads, 32 x 8
const uint HSIZE = IH * TW;    // one quantity's horizontal results

// IQA's Gaussian table, printed to six decimals. Twin: ssim.rs GAUSSIAN_TAPS.
const float TAPS[11] = float[](0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012,
                               0.213006, 0.109361, 0.036001, 0.007599, 0.001028);

// The input rows a band adds (all IH for the first band, TH later), as
// float bits, the reference's and the distorted's sample side by side: the
// horizontal pass reads both with one load. Once it has read them, the
// vertical pass reuses the first 4 * VIRTUAL pairs (1024 of 1092) for the
// virtual threads' sums.
shared uvec2 s_in[IH * IW];
// Horizontal pass results: mu1, mu2, xx, yy, xy, each IH rows of TW, the
// band's window rows in order. (A ring indexed modulo IH instead cost the
// vertical pass a wrapped row index per tap; moving 10 rows a band costs
// each thread a few shared loads and stores.)
shared float s_h[5u * HSIZE];
// The tile's 32 column totals, field-major (tile_sums).
shared double s_col[4u * TW];
// Per field, the sums of the columns congruent modulo 8 (tile_sums).
shared double s_oct[4u * 8u];

// ssim.rs `pixel_lcs` of two pixels side by side (lane k of every vector
// is pixel k): their l, c and s as doubles. Each lane rounds as the twin
// does; the twin's branch is a select here. Two lanes are two independent
// chains of divisions and square roots, which the GPU overlaps (one pixel
// at a time, these terms took 0.11 of scale 0's 0.66 ms at 4K on the
// H100).
void pixel_lcs2(vec2 mu1, vec2 mu2, vec2 xx, vec2 yy, vec2 xy, out dvec2 l, out dvec2 c,
                out dvec2 s) {
    vec2 zero = vec2(0.0);
    precise vec2 d1 = xx - mu1 * mu1;
    precise vec2 d2 = yy - mu2 * mu2;
    // IQA's MAX(0.0, v): NaN and -0.0 stay as they are.
    vec2 var1 = mix(d1, zero, greaterThan(zero, d1));
    vec2 var2 = mix(d2, zero, greaterThan(zero, d2));
    precise vec2 cov = xy - mu1 * mu2;
    precise vec2 var_prod = var1 * var2;
    vec2 sd_prod = vec2(sqrt(dvec2(var_prod)));

    precise vec2 l_den = mu1 * mu1 + mu2 * mu2 + c1;
    precise dvec2 l_num = 2.0lf * dvec2(mu1) * dvec2(mu2) + double(c1);
    l = l_num / dvec2(l_den);
    precise vec2 c_den = var1 + var2 + c2;
    precise dvec2 c_num = 2.0lf * dvec2(sd_prod) + double(c2);
    c = c_num / dvec2(c_den);
    bvec2 negative = lessThan(cov, zero);
    bvec2 no_spread = lessThanEqual(sd_prod, zero);
    cov = mix(cov, zero, bvec2(negative.x && no_spread.x, negative.y && no_spread.y));
    precise vec2 s_num = cov + c3;
    precise vec2 s_den = sd_prod + c3;
    // A float division, emulated: the GPU's float '/' is not correctly
    // rounded, a double divide rounded to float is.
    s = dvec2(vec2(dvec2(s_num) / dvec2(s_den)));
}

// Double `d` at pair `at` of s_in; the threads' stores and loads are then
// consecutive pairs, free of bank conflicts.
void stash(uint at, double d) {
    s_in[at] = unpackDouble2x32(d);
}

double unstash(uint at) {
    return packDouble2x32(s_in[at]);
}

// The tile's four sums from the virtual threads' sums stashed in s_in, in
// thread `field` (< 4) for that field. The tree is fixed: first, virtual
// thread t < 128 adds thread t + 128's value to its own, then the halving
// steps pair t with t + 64, t + 32, ..., t + 1. With t = 32 vy + tx, the
// first three steps fold each column's eight values (rows vy) as
// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), the next two the 32
// column totals into eight, c + (c + 16), then + (c + 8) (a column sum per
// residue of c modulo 8), and the last three those eight in the same shape
// as a column's. Those are the additions, in that order, that a
// shared-memory tree of one step per barrier makes; here each column's
// steps run in one thread per column and field (128 threads), the next two
// in one thread per residue and field (32), the last three in one thread
// per field, after two barriers (and the caller's) instead of nine, each
// thread holding at most eight doubles. Every thread must call it (it has
// barriers), after a barrier that follows the vertical pass, which stashed
// all 256 virtual threads' sums.
double tile_sums() {
    uint lid = gl_LocalInvocationIndex;
    for (uint i = lid; i < 4u * TW; i += THREADS) {
        uint field = i / TW;
        uint at = field * VIRTUAL + (i - field * TW);
        double v0 = unstash(at);
        double v1 = unstash(at + TW);
        double v2 = unstash(at + 2u * TW);
        double v3 = unstash(at + 3u * TW);
        double v4 = unstash(at + 4u * TW);
        double v5 = unstash(at + 5u * TW);
        double v6 = unstash(at + 6u * TW);
        double v7 = unstash(at + 7u * TW);
        precise double sum = ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7));
        s_col[i] = sum;
    }
    barrier();
    if (lid < 32u) {
        // Field lid / 8, residue lid % 8.
        uint at = (lid / 8u) * TW + lid % 8u;
        precise double sum = (s_col[at] + s_col[at + 16u]) + (s_col[at + 8u] + s_col[at + 24u]);
        s_oct[lid] = sum;
    }
    barrier();
    double total = 0.0lf;
    if (lid < 4u) {
        uint at = lid * 8u;
        precise double sum = ((s_oct[at] + s_oct[at + 4u]) + (s_oct[at + 2u] + s_oct[at + 6u]))
            + ((s_oct[at + 1u] + s_oct[at + 5u]) + (s_oct[at + 3u] + s_oct[at + 7u]));
        total = sum;
    }
    return total;
}

// The five vertical filters of the pixel in map row `r` of the band,
// column tx: window rows r .. r + 10 of s_h.
void vertical_filters(uint r, out float f[5]) {
    uint base = r * TW + gl_LocalInvocationID.x;
    for (uint q = 0u; q < 5u; q++) {
        precise double sum = 0.0lf;
        for (uint v = 0u; v < WIN; v++) {
            precise float p = s_h[q * HSIZE + base + v * TW] * TAPS[v];
            sum += term(q, p);
        }
        f[q] = narrowed(sum);
    }
}

// Vertical pass and per-pixel terms of virtual row vy = ty + LY * k of the
// band: its two pixels, in map rows vy and vy + 8, filtered one after the
// other, their terms side by side (pixel_lcs2). The virtual thread's sum
// adds the first pixel's, then the second's, and is stashed.
void vertical_step(uint k, uvec2 tile) {
    uint tx = gl_LocalInvocationID.x;
    uint vy = gl_LocalInvocationID.y + LY * k;
    float f0[5];
    float f1[5];
    vertical_filters(vy, f0);
    vertical_filters(vy + 8u, f1);
    dvec2 l;
    dvec2 c;
    dvec2 s;
    pixel_lcs2(vec2(f0[0], f1[0]), vec2(f0[1], f1[1]), vec2(f0[2], f1[2]),
               vec2(f0[3], f1[3]), vec2(f0[4], f1[4]), l, c, s);
    dvec4 acc = dvec4(0.0lf);
    uint mx = tile.x + tx;
    for (uint i = 0u; i < 2u; i++) {
        uint my = tile.y + vy + 8u * i;
        if (mx < width - (WIN - 1u) && my < height - (WIN - 1u)) {
            precise double ssim = l[i] * c[i] * s[i];
            if (write_map != 0u) {
                map_values[my * (width - (WIN - 1u)) + mx] = float(ssim);
            }
            acc += dvec4(ssim, l[i], c[i], s[i]);
        }
    }
    uint t = vy * TW + tx;
    for (uint field = 0u; field < 4u; field++) {
        stash(field * VIRTUAL + t, acc[field]);
    }
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint map_h = height - (WIN - 1u);
    uint x0 = gl_WorkGroupID.x * TW;
    uint top = gl_WorkGroupID.y * bands * TH; // the workgroup's first row

    for (uint k = 0u; k < bands; k++) {
        uint band = gl_WorkGroupID.y * bands + k;
        uint y0 = band * TH;
        // Uniform in the workgroup: bands past the map write no record.
        if (y0 >= map_h) {
            break;
        }
        // Window rows (from `top`) this band adds: first..first+rows-1.
        uint first = k == 0u ? 0u : k * TH + WIN - 1u;
        uint rows = k == 0u ? IH : TH;

        // Stage the new input rows. Positions past the plane only feed
        // outputs outside the map, so clamping them is only to stay in
        // bounds.
        for (uint i = lid; i < rows * IW; i += THREADS) {
            uint r = i / IW;
            uint c = i - r * IW;
            uint gx = min(x0 + c, width - 1u);
            uint gy = min(top + first + r, height - 1u);
#ifdef FROM_FRAME
            float a = float(plane_load(ref_plane, gx, gy)) * sample_scale;
            float b = float(plane_load_b(dis_plane, gx, gy)) * sample_scale;
#else
            uint at = gy * width + gx;
            float a = planes[a_offset + at];
            float b = planes[b_offset + at];
#endif
            s_in[i] = floatBitsToUint(vec2(a, b));
        }
        barrier();

        // Horizontal pass over the new rows (ssim.rs gaussian_horizontal
        // over the plane and the three products): float products, double
        // sums (scaled by 2^-896, see `widened`), rounded to float, into
        // window rows 0..25 (first band) or 10..25.
        for (uint i = lid; i < rows * TW; i += THREADS) {
            uint r = i / TW;
            uint c = i - r * TW;
            uint base = r * IW + c;
            precise double m1 = 0.0lf;
            precise double m2 = 0.0lf;
            precise double sxx = 0.0lf;
            precise double syy = 0.0lf;
            precise double sxy = 0.0lf;
            for (uint u = 0u; u < WIN; u++) {
                vec2 ab = uintBitsToFloat(s_in[base + u]);
                float a = ab.x;
                float b = ab.y;
                float t = TAPS[u];
                precise float pa = a * t;
                precise float pb = b * t;
                precise float paa = (a * a) * t;
                precise float pbb = (b * b) * t;
                precise float pab = (a * b) * t;
                m1 += term(0u, pa);
                m2 += term(1u, pb);
                sxx += term(2u, paa);
                syy += term(3u, pbb);
                sxy += term(4u, pab);
            }
            uint at = ((k == 0u ? 0u : WIN - 1u) + r) * TW + c;
            s_h[at] = narrowed(m1);
            s_h[HSIZE + at] = narrowed(m2);
            s_h[2u * HSIZE + at] = narrowed(sxx);
            s_h[3u * HSIZE + at] = narrowed(syy);
            s_h[4u * HSIZE + at] = narrowed(sxy);
        }
        barrier();

        // Vertical pass and per-pixel terms, two pixels per virtual row,
        // each virtual row's sum stashed in s_in (which the horizontal pass
        // no longer reads).
        uvec2 tile = uvec2(x0, y0);
        // Kept rolled (at LY < 8): one virtual row's pixels live at a time.
        [[dont_unroll]] for (uint k = 0u; k < 8u / LY; k++) {
            vertical_step(k, tile);
        }
        barrier();

        // The next band's upper 10 window rows are this band's lower ones:
        // move them up, beside tile_sums' column steps (after the barrier
        // above, so every vertical pass has read them; before tile_sums'
        // next barrier, so before the next horizontal pass overwrites rows
        // 10..25).
        if (k + 1u < bands) {
            const uint KEPT = (WIN - 1u) * TW;
            for (uint i = lid; i < 5u * KEPT; i += THREADS) {
                uint q = i / KEPT;
                uint at = q * HSIZE + (i - q * KEPT);
                s_h[at] = s_h[at + TH * TW];
            }
        }

        // Its barriers also keep the next band's staging from overwriting
        // s_in before the column steps have read it.
        double total = tile_sums();
        if (lid < 4u) {
            uint group = band * gl_NumWorkGroups.x + gl_WorkGroupID.x;
            partials[partial_base + group * 4u + lid] = total;
        }
    }
}
