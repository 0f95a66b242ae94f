#version 460
// Integer ADM, level 0: the db2 wavelet transform of both input planes
// (metrics/src/adm/dwt.rs `dwt_s0`, `vertical_s0`, `horizontal_s0`), the
// decoupling and CSF `flt` sums of every sample the masking reads
// (decouple.rs `decouple_s0`, csf.rs `csf_s0`) and the denominator row sums
// (cm.rs `den_row_s0`). Output layout: adm_common.glsl.
//
// One workgroup of 32x8 invocations makes a 32x16 tile of outputs of all
// four bands of both images, two rows per invocation (half the workgroups,
// 34 window rows per 16 output rows rather than 18 per 8, two independent
// decouplings per invocation to overlap: on an H200 17% faster than one
// row). It loads the two 66x34 windows of mirrored input samples into
// shared memory (uint16, as libvmaf reads them: a sample past the file's
// bit depth, which some filters write, keeps its value), runs the vertical
// low/high pass for its 16 output rows over all 66 columns, then the
// horizontal pass. Each invocation then holds the reference and distorted
// h, v, d of its samples and decouples them at once, so neither the bands
// nor the decoupling of a tile's halo are recomputed by the masking
// kernel. All arithmetic is the twin's wrapping int32 with int16 stores.
//
// MODE (specialization constant 1) splits the work for a ladder, where the
// reference's part is done once for every rendition (metrics/src/adm/gpu.rs
// `AdmReference`): 0, both images (a pair alone); 1, the reference alone:
// its four bands over the whole level (plane 0: a | h << 16, plane 1:
// v | d << 16, int16 halves) and the denominator row sums; 2, the
// distorted image alone, reading the reference's h, v, d from those bands
// (binding 4) to decouple, and adding no denominator. Each image's
// transform is the same arithmetic in every mode, so the values are too.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#include "adm_common.glsl"
#include "adm_decouple.glsl"

layout(local_size_x = 32, local_size_y = 8) in;

layout(set = 0, binding = 0, std430) readonly buffer RefPlane { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisPlane { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Level { int level[]; };
layout(set = 0, binding = 3, std430) buffer RowSums { int64_t row_sums[]; };
// MODE 2 only: the reference's bands that MODE 1 stored.
layout(set = 0, binding = 4, std430) readonly buffer RefBands { int ref_bands[]; };

layout(constant_id = 1) const uint MODE = 0u;
const bool WITH_REF = MODE != 2u;
const bool WITH_DIS = MODE != 1u;

// Whether this mode transforms image `img` (0 reference, 1 distorted).
bool uses_image(int img) {
    return img == 0 ? WITH_REF : WITH_DIS;
}

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

#define ROW_FIELDS 3
#include "adm_row_sums.glsl"

// Twin: `Dwt0Push` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint width;       // band size
    uint height;
    uint left;        // core region [left, right) x [top, bottom)
    uint top;
    uint right;
    uint bottom;
    uint rows_base;   // int64 index of this level's row sums
    uint decouple;    // 0: level 0 is not scored, only its band a is made
    uint cos_bits;    // f32 bits of cos^2(1 degree)
    uint egl_lo;      // f64 bits of the enhancement gain limit
    uint egl_hi;
    uint rf01;        // i_rfactor of h | v << 16
    uint rf2;         // i_rfactor of d
} pc;

const int TW = 32;
const int LH = 8;        // invocation rows
const int GROUPS = 2;    // output rows per invocation
const int TH = LH * GROUPS;
const int IW = 2 * TW + 2;
const int IH = 2 * TH + 2;
const int ROW_SLOTS = (IH + LH - 1) / LH;

shared uint16_t s_in[2][IH][IW];
shared int16_t s_lo[2][TH][IW];
shared int16_t s_hi[2][TH][IW];

// Loads both images' mirrored input windows of the tile at output (ox0, oy0)
// into shared memory. Invocation (lx, ly) loads window columns lx and
// lx + 32 of rows ly, ly + 8, ... below IH, the first 2 * IH invocations
// the last two columns; every load is issued before the first store, so an
// invocation waits for memory once.
void load_windows(int ox0, int oy0, int lx, int ly, uint tid) {
    // Input tile position 0 is sample 2*o0 - 1: output o reads local
    // 2*(o - o0) + 0..3, already mirrored.
    int x0 = 2 * ox0 - 1;
    int y0 = 2 * oy0 - 1;
    int w = int(pc.ref_plane.width);
    int h = int(pc.ref_plane.height);
    uint xs[2] = uint[2](uint(adm_mirror(x0 + lx, w)), uint(adm_mirror(x0 + lx + TW, w)));
    ivec2 v[ROW_SLOTS][2];
    for (int r = 0; r < ROW_SLOTS; r++) {
        if (ly + LH * r < IH) {
            uint y = uint(adm_mirror(y0 + ly + LH * r, h));
            for (int c = 0; c < 2; c++) {
                v[r][c] = ivec2(WITH_REF ? plane_load(pc.ref_plane, xs[c], y) : 0u,
                                WITH_DIS ? plane_load_b(pc.dis_plane, xs[c], y) : 0u);
            }
        }
    }
    bool edge = tid < uint(2 * IH);
    int ex = 2 * TW + int(tid & 1u);
    int ey = int(tid >> 1);
    ivec2 e = ivec2(0);
    if (edge) {
        uint x = uint(adm_mirror(x0 + ex, w));
        uint y = uint(adm_mirror(y0 + ey, h));
        e = ivec2(WITH_REF ? plane_load(pc.ref_plane, x, y) : 0u,
                  WITH_DIS ? plane_load_b(pc.dis_plane, x, y) : 0u);
    }
    for (int r = 0; r < ROW_SLOTS; r++) {
        if (ly + LH * r < IH) {
            for (int c = 0; c < 2; c++) {
                s_in[0][ly + LH * r][lx + TW * c] = uint16_t(v[r][c].x);
                s_in[1][ly + LH * r][lx + TW * c] = uint16_t(v[r][c].y);
            }
        }
    }
    if (edge) {
        s_in[0][ey][ex] = uint16_t(e.x);
        s_in[1][ey][ex] = uint16_t(e.y);
    }
}

// The vertical low/high pass of image `img`, output row i, window column c.
void vertical_at(int img, int i, int c) {
    int bpc = int(pc.ref_plane.bpc);
    int round_v = 1 << (bpc - 1);
    int lo = 0;
    int hi = 0;
    for (int t = 0; t < 4; t++) {
        int s = int(s_in[img][2 * i + t][c]);
        lo += ADM_LO[t] * s;
        hi += ADM_HI[t] * s;
    }
    lo -= ADM_LO_SUM * round_v;
    // The int16 stores wrap as the twin's `as i16` does.
    s_lo[img][i][c] = int16_t((lo + round_v) >> bpc);
    s_hi[img][i][c] = int16_t((hi + round_v) >> bpc);
}

// The vertical pass of both images over the whole window width:
// invocation (lx, ly) makes rows ly, ly + 8, ... of columns lx and lx + 32,
// the first 4 * TH invocations the last two columns.
void vertical(int lx, int ly, uint tid) {
    for (int img = 0; img < 2; img++) {
        if (!uses_image(img)) {
            continue;
        }
        for (int g = 0; g < GROUPS; g++) {
            vertical_at(img, ly + LH * g, lx);
            vertical_at(img, ly + LH * g, lx + TW);
        }
    }
    if (tid < uint(4 * TH) && uses_image(int(tid) / (2 * TH))) {
        vertical_at(int(tid) / (2 * TH), int(tid >> 1) % TH, 2 * TW + int(tid & 1u));
    }
}

// The horizontal pass of image `img` at local (lx, ly): bands a, h, v, d.
ivec4 horizontal(int img, int lx, int ly) {
    int a = 0, v = 0, hh = 0, d = 0;
    for (int t = 0; t < 4; t++) {
        int l = int(s_lo[img][ly][2 * lx + t]);
        int u = int(s_hi[img][ly][2 * lx + t]);
        a += ADM_LO[t] * l;
        v += ADM_HI[t] * l;
        hh += ADM_LO[t] * u;
        d += ADM_HI[t] * u;
    }
    return ivec4(adm_wrap16((a + 32768) >> 16), adm_wrap16((hh + 32768) >> 16),
                 adm_wrap16((v + 32768) >> 16), adm_wrap16((d + 32768) >> 16));
}

uint word_at(uint plane, int x, int y) {
    return (plane * pc.height + uint(y)) * pc.width + uint(x);
}

bool inside(int x, int y, int left, int top, int right, int bottom) {
    return x >= left && x < right && y >= top && y < bottom;
}

// Stores the bands and decoupled parts of output (x, y), local row ly;
// returns its denominator terms in `den` (0 outside the core).
void store_sample(int x, int y, int lx, int ly, out int64_t den[3]) {
    den = int64_t[3](0, 0, 0);
    int w = int(pc.width);
    int h = int(pc.height);
    int left = int(pc.left);
    int top = int(pc.top);
    int right = int(pc.right);
    int bottom = int(pc.bottom);
    ivec4 o = WITH_REF ? horizontal(0, lx, ly) : ivec4(0);
    ivec4 t = WITH_DIS ? horizontal(1, lx, ly) : ivec4(0);
    if (x >= w || y >= h) {
        return;
    }
    if (MODE == 1u) {
        level[word_at(0u, x, y)] = adm_pack16(o.x, o.y);
        level[word_at(1u, x, y)] = adm_pack16(o.z, o.w);
        if (pc.decouple != 0u && inside(x, y, left, top, right, bottom)) {
            for (int b = 0; b < 3; b++) {
                uint m = uint(abs(o[b + 1]));
                den[b] = int64_t(uint64_t(m * m) * uint64_t(m));
            }
        }
        return;
    }
    level[word_at(0u, x, y)] = adm_pack16(o.x, t.x);
    // Decoupled over the core and the one-sample ring the masking's
    // neighbours read (mirrored reads land inside it).
    bool ring = inside(x, y, max(left - 1, 0), max(top - 1, 0), min(right + 1, w),
                       min(bottom + 1, h));
    if (pc.decouple == 0u || !ring) {
        return;
    }
    if (MODE == 2u) {
        int hv = ref_bands[word_at(0u, x, y)];
        int vd = ref_bands[word_at(1u, x, y)];
        o.yzw = ivec3(adm_unpack16(hv, 1u), adm_unpack16(vd, 0u), adm_unpack16(vd, 1u));
    }
    double cos_sq = double(uintBitsToFloat(pc.cos_bits));
    double egl = packDouble2x32(uvec2(pc.egl_lo, pc.egl_hi));
    bool angle = angle_flag_s0(o.y, o.z, t.y, t.z, cos_sq);
    bool core = inside(x, y, left, top, right, bottom);
    uint rf[3] = uint[3](pc.rf01 & 0xFFFFu, pc.rf01 >> 16, pc.rf2);
    int fr = 0;
    int fa = 0;
    for (int b = 0; b < 3; b++) {
        int r = restored_s0(o[b + 1], t[b + 1], angle, egl);
        int a = adm_wrap16(t[b + 1] - r);
        fr += csf_flt_s0(csf_dst_s0(r, rf[b], b));
        fa += csf_flt_s0(csf_dst_s0(a, rf[b], b));
        if (core) {
            level[word_at(uint(1 + b), x, y)] = adm_pack16(r, a);
            if (MODE == 0u) {
                uint m = uint(abs(o[b + 1]));
                den[b] = int64_t(uint64_t(m * m) * uint64_t(m));
            }
        }
    }
    level[word_at(4u, x, y)] = fr;
    level[word_at(5u, x, y)] = fa;
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

    int64_t den[GROUPS][3];
    for (int g = 0; g < GROUPS; g++) {
        store_sample(ox0 + lx, oy0 + ly + LH * g, lx, ly + LH * g, den[g]);
    }
    // Only row groups that meet the core have denominator terms (uniform);
    // MODE 2 has none.
    int left = int(pc.left);
    int top = int(pc.top);
    int right = int(pc.right);
    int bottom = int(pc.bottom);
    for (int g = 0; g < GROUPS; g++) {
        int gy0 = oy0 + LH * g;
        bool meets_core = MODE != 2u && pc.decouple != 0u && ox0 + TW > left && ox0 < right
            && gy0 + LH > top && gy0 < bottom;
        if (meets_core) {
            add_row_sums(den[g], pc.rows_base, gy0 - top, bottom - top, 6u);
        }
    }
}
