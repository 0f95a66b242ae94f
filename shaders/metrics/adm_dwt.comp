#version 460
// Integer ADM, levels 1-3: the db2 wavelet transform of both images'
// previous-level band a (metrics/src/adm/dwt.rs `dwt_s123`, `vertical_s123`,
// `horizontal_s123`: int64 tap sums, per-level rounding and shift, int32
// stores), then, as in adm_dwt0.comp, the decoupling and CSF `flt` sums of
// every sample the masking reads (decouple.rs `decouple_s123`, csf.rs
// `csf_s123`) and the denominator row sums (cm.rs `den_row_s123`). Same
// tiling as adm_dwt0.comp; layouts in adm_common.glsl.
//
// MODE (specialization constant 1) as in adm_dwt0.comp: 0, both images; 1,
// the reference alone (its previous level's band a from plane 0 of a MODE 1
// buffer; stores its four bands over the whole level in planes 0-3, a, h,
// v, d, and adds the denominator row sums); 2, the distorted image alone
// (band a from the distorted half or plane of a MODE 2 buffer), reading the
// reference's h, v, d from the MODE 1 buffer of this level (binding 3).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "adm_common.glsl"
#include "adm_decouple.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { int src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { int dst[]; };
layout(set = 0, binding = 2, std430) buffer RowSums { int64_t row_sums[]; };
// MODE 2 only: the reference's bands of this level that MODE 1 stored.
layout(set = 0, binding = 3, std430) readonly buffer RefBands { int ref_bands[]; };

layout(constant_id = 1) const uint MODE = 0u;
const bool WITH_REF = MODE != 2u;
const bool WITH_DIS = MODE != 1u;

// Whether this mode transforms image `img` (0 reference, 1 distorted).
bool uses_image(int img) {
    return img == 0 ? WITH_REF : WITH_DIS;
}

#define ROW_FIELDS 3
#include "adm_row_sums.glsl"

// Twin: `DwtPush` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    uint in_width;
    uint in_height;
    uint width;       // output band size
    uint height;
    uint scale;       // 1, 2 or 3
    uint left;        // core region [left, right) x [top, bottom)
    uint top;
    uint right;
    uint bottom;
    uint rows_base;   // int64 index of this level's row sums
    uint cos_bits;    // f32 bits of cos^2(1 degree)
    uint egl_lo;      // f64 bits of the enhancement gain limit
    uint egl_hi;
    uint den_cub;     // denominator cube shift
    uint den_sq;      // denominator square shift
    uint rf[3];       // i_rfactor of h, v, d
} pc;

const int TW = 32;
const int TH = 8;
const int IW = 2 * TW + 2;
const int IH = 2 * TH + 2;

shared int s_in[2][IH][IW];
shared int s_lo[2][TH][IW];
shared int s_hi[2][TH][IW];

// dwt.rs S123_VERTICAL / S123_HORIZONTAL: (round, shift) per level 1..3.
const int64_t V_ROUND[3] = int64_t[3](0l, 32768l, 32768l);
const uint V_SHIFT[3] = uint[3](0u, 16u, 16u);
const int64_t H_ROUND[3] = int64_t[3](16384l, 32768l, 16384l);
const uint H_SHIFT[3] = uint[3](15u, 16u, 15u);

// Band a of both images at (x, y) of the previous level: level 0 packs
// both images' int16 into one word, levels 1-2 keep one int32 plane each.
ivec2 src_a(uint x, uint y) {
    uint at = y * pc.in_width + x;
    if (pc.scale == 1u) {
        int word = src[at];
        return ivec2(adm_unpack16(word, 0u), adm_unpack16(word, 1u));
    }
    return ivec2(WITH_REF ? src[at] : 0, WITH_DIS ? src[pc.in_width * pc.in_height + at] : 0);
}

// Loads both images' mirrored input windows of the tile at output (ox0, oy0)
// into shared memory, split among the invocations as in adm_dwt0.comp,
// every load issued before the first store.
void load_windows(int ox0, int oy0, int lx, int ly, uint tid) {
    int x0 = 2 * ox0 - 1;
    int y0 = 2 * oy0 - 1;
    int w = int(pc.in_width);
    int h = int(pc.in_height);
    uint xs[2] = uint[2](uint(adm_mirror(x0 + lx, w)), uint(adm_mirror(x0 + lx + TW, w)));
    bool third_row = ly < IH - 2 * TH;
    ivec2 v[3][2];
    for (int r = 0; r < 3; r++) {
        if (r < 2 || third_row) {
            uint y = uint(adm_mirror(y0 + ly + TH * r, h));
            for (int c = 0; c < 2; c++) {
                v[r][c] = src_a(xs[c], y);
            }
        }
    }
    bool edge = tid < uint(2 * IH);
    int ex = 2 * TW + int(tid & 1u);
    int ey = int(tid >> 1);
    ivec2 e = ivec2(0);
    if (edge) {
        e = src_a(uint(adm_mirror(x0 + ex, w)), uint(adm_mirror(y0 + ey, h)));
    }
    for (int r = 0; r < 3; r++) {
        if (r < 2 || third_row) {
            for (int c = 0; c < 2; c++) {
                s_in[0][ly + TH * r][lx + TW * c] = v[r][c].x;
                s_in[1][ly + TH * r][lx + TW * c] = v[r][c].y;
            }
        }
    }
    if (edge) {
        s_in[0][ey][ex] = e.x;
        s_in[1][ey][ex] = e.y;
    }
}

// One column window's vertical (low, high) pass at levels 2-3: int64 sums.
ivec2 vertical_s23(int img, int i, int c, int64_t round_v, uint shift) {
    int64_t lo = 0;
    int64_t hi = 0;
    for (int t = 0; t < 4; t++) {
        int64_t s = int64_t(s_in[img][2 * i + t][c]);
        lo += int64_t(ADM_LO[t]) * s;
        hi += int64_t(ADM_HI[t]) * s;
    }
    return ivec2(int((lo + round_v) >> shift), int((hi + round_v) >> shift));
}

// The same at level 1, which neither rounds nor shifts: its input is
// int16, so |sum| <= (15826 + 27411 + 7345 + 4240) * 32768 < 2^31 and
// int32 sums are exact.
ivec2 vertical_s1(int img, int i, int c) {
    int lo = 0;
    int hi = 0;
    for (int t = 0; t < 4; t++) {
        int s = s_in[img][2 * i + t][c];
        lo += ADM_LO[t] * s;
        hi += ADM_HI[t] * s;
    }
    return ivec2(lo, hi);
}

// The vertical low/high pass of image `img`, output row i, window column c.
void vertical_at(int img, int i, int c) {
    uint lvl = pc.scale - 1u;
    ivec2 lh = pc.scale == 1u ? vertical_s1(img, i, c)
                              : vertical_s23(img, i, c, V_ROUND[lvl], V_SHIFT[lvl]);
    s_lo[img][i][c] = lh.x;
    s_hi[img][i][c] = lh.y;
}

// The vertical pass of both images over the whole window width, split
// among the invocations as in adm_dwt0.comp.
void vertical(int lx, int ly, uint tid) {
    for (int img = 0; img < 2; img++) {
        if (uses_image(img)) {
            vertical_at(img, ly, lx);
            vertical_at(img, ly, lx + TW);
        }
    }
    if (tid < uint(4 * TH) && uses_image(int(tid) / (2 * TH))) {
        vertical_at(int(tid) / (2 * TH), int(tid >> 1) % TH, 2 * TW + int(tid & 1u));
    }
}

// The horizontal pass of image `img` at local (lx, ly): bands a, h, v, d.
ivec4 horizontal(int img, int lx, int ly) {
    int64_t a = 0, v = 0, hh = 0, d = 0;
    for (int t = 0; t < 4; t++) {
        int64_t l = int64_t(s_lo[img][ly][2 * lx + t]);
        int64_t u = int64_t(s_hi[img][ly][2 * lx + t]);
        a += int64_t(ADM_LO[t]) * l;
        v += int64_t(ADM_HI[t]) * l;
        hh += int64_t(ADM_LO[t]) * u;
        d += int64_t(ADM_HI[t]) * u;
    }
    uint lvl = pc.scale - 1u;
    int64_t hr = H_ROUND[lvl];
    uint hs = H_SHIFT[lvl];
    return ivec4(int((a + hr) >> hs), int((hh + hr) >> hs), int((v + hr) >> hs),
                 int((d + hr) >> hs));
}

// cm.rs `den_row_s123` term of one reference coefficient.
int64_t den_value(int b) {
    uint64_t a = uint64_t(uint(b < 0 ? -b : b));
    uint sq = pc.den_sq;
    return int64_t(((((a * a) + (uint64_t(1) << sq)) >> sq) * a
                    + adm_half_unit_u(pc.den_cub)) >> pc.den_cub);
}

uint word_at(uint plane, int x, int y) {
    return (plane * pc.height + uint(y)) * pc.width + uint(x);
}

bool inside(int x, int y, int left, int top, int right, int bottom) {
    return x >= left && x < right && y >= top && y < bottom;
}

void main() {
    int ox0 = int(gl_WorkGroupID.x) * TW;
    int oy0 = int(gl_WorkGroupID.y) * TH;
    uint tid = gl_LocalInvocationIndex;
    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    load_windows(ox0, oy0, lx, ly, tid);
    barrier();
    vertical(lx, ly, tid);
    barrier();

    int x = ox0 + lx;
    int y = oy0 + ly;
    int w = int(pc.width);
    int h = int(pc.height);
    int left = int(pc.left);
    int top = int(pc.top);
    int right = int(pc.right);
    int bottom = int(pc.bottom);
    ivec4 o = WITH_REF ? horizontal(0, lx, ly) : ivec4(0);
    ivec4 t = WITH_DIS ? horizontal(1, lx, ly) : ivec4(0);
    int64_t den[3] = int64_t[3](0, 0, 0);
    if (MODE == 1u && x < w && y < h) {
        for (int b = 0; b < 4; b++) {
            dst[word_at(uint(b), x, y)] = o[b];
        }
        if (inside(x, y, left, top, right, bottom)) {
            for (int b = 0; b < 3; b++) {
                den[b] = den_value(o[b + 1]);
            }
        }
    } else if (x < w && y < h) {
        if (WITH_REF) {
            dst[word_at(0u, x, y)] = o.x;
        }
        dst[word_at(1u, x, y)] = t.x;
        // Decoupled over the core and the one-sample ring the masking's
        // neighbours read (mirrored reads land inside it).
        bool ring = inside(x, y, max(left - 1, 0), max(top - 1, 0), min(right + 1, w),
                           min(bottom + 1, h));
        if (ring) {
            if (MODE == 2u) {
                o.yzw = ivec3(ref_bands[word_at(1u, x, y)], ref_bands[word_at(2u, x, y)],
                              ref_bands[word_at(3u, x, y)]);
            }
            double cos_sq = double(uintBitsToFloat(pc.cos_bits));
            double egl = packDouble2x32(uvec2(pc.egl_lo, pc.egl_hi));
            bool angle = angle_flag(int64_t(o.y), int64_t(o.z), int64_t(t.y), int64_t(t.z),
                                    cos_sq);
            bool core = inside(x, y, left, top, right, bottom);
            int fr = 0;
            int fa = 0;
            for (int b = 0; b < 3; b++) {
                int r = restored_s123(o[b + 1], t[b + 1], angle, egl);
                int a = t[b + 1] - r;
                fr += csf_flt_s123(csf_dst_s123(r, pc.rf[b]));
                fa += csf_flt_s123(csf_dst_s123(a, pc.rf[b]));
                if (core) {
                    dst[word_at(uint(2 + b), x, y)] = r;
                    dst[word_at(uint(5 + b), x, y)] = a;
                    if (MODE == 0u) {
                        den[b] = den_value(o[b + 1]);
                    }
                }
            }
            dst[word_at(8u, x, y)] = fr;
            dst[word_at(9u, x, y)] = fa;
        }
    }
    // Only tiles that meet the core have denominator terms (uniform test);
    // MODE 2 has none.
    bool meets_core = MODE != 2u && ox0 + TW > left && ox0 < right && oy0 + TH > top && oy0 < bottom;
    if (meets_core) {
        add_row_sums(den, pc.rows_base, oy0 - top, bottom - top, 6u);
    }
}
