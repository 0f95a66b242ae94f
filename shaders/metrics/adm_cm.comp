#version 460
// Integer ADM, one level's contrast masking, summed per row (metrics/src/
// adm/cm.rs `cm_row_s0`, `cm_row_s123`).
//
// A workgroup covers a 32x8 tile of the scored (core) region. The wavelet
// kernel of the level has already decoupled every sample and stored the
// restored (r) and additive (a) parts and the orientation sums of their
// CSF `flt` (fr, fa; layout in adm_common.glsl). The tile and its
// one-sample mirrored ring of fr and fa are loaded into shared memory, then
// each invocation masks its own sample:
//   num (DLM): r masked by the threshold built from csf(a),
//   aim:       a masked by the threshold built from csf(r),
// for h, v, d: 6 int64 per sample, added into the level's row sums
// (adm_row_sums.glsl; the denominator is the wavelet kernel's).
//
// LEVEL0 (specialization constant 0) selects the 16-bit level-0 formulas
// and packed layout, otherwise the 32-bit level 1-3 ones.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "adm_common.glsl"

layout(local_size_x = 32, local_size_y = 8) in;
layout(constant_id = 0) const bool LEVEL0 = true;

layout(set = 0, binding = 0, std430) readonly buffer Level { int level[]; };
layout(set = 0, binding = 1, std430) buffer RowSums { int64_t row_sums[]; };

#define ROW_FIELDS 6
#include "adm_row_sums.glsl"

// Twin: `CmPush` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    uint width;        // band size
    uint height;
    uint left;         // core region [left, right) x [top, bottom)
    uint top;
    uint right;
    uint bottom;
    uint rows_base;    // int64 index of this level's row sums
    uint skip_aim;
    uint rf[3];        // i_rfactor (u16 at level 0, u32 above)
    uint cub[3];       // masking cube shift per orientation
} pc;

const int TW = 32;
const int TH = 8;
const int HW = TW + 2;
const int HH = TH + 2;
const int HALO = HW * HH;

shared int s_fr[HALO];  // sum over h, v, d of flt(csf(r)), wrapping
shared int s_fa[HALO];  // same for a

// ---- CSF (csf.rs) ------------------------------------------------------

int csf_dst(int src, int theta) {
    return LEVEL0 ? csf_dst_s0(src, pc.rf[theta], theta) : csf_dst_s123(src, pc.rf[theta]);
}

// ---- masking (cm.rs) ---------------------------------------------------

int centre(int dst) {
    if (LEVEL0) {
        return adm_wrap16((8738 * abs(dst) + 2048) >> 12);
    }
    return int((int64_t(286331153) * int64_t(adm_wabs(dst)) - (int64_t(1) << 31)) >> 32);
}

int64_t cm_value(int src, int thr, int theta) {
    uint cub = pc.cub[theta];
    int64_t x;
    int x_sq;
    if (LEVEL0) {
        uint sub = theta == 2 ? 12u : 10u;
        uint sq = theta == 2 ? 30u : 29u;
        int xi = max(abs(src * int(pc.rf[theta])) - (thr << sub), 0);
        x = int64_t(xi);
        x_sq = int((x * x + (int64_t(1) << (sq - 1u))) >> sq);
    } else {
        int xi = int((int64_t(src) * int64_t(uint64_t(pc.rf[theta])) + (int64_t(1) << 27)) >> 28);
        xi = max(adm_wabs(xi) - thr, 0);
        x = int64_t(xi);
        x_sq = int((x * x + (int64_t(1) << 29)) >> 30);
    }
    return (int64_t(x_sq) * x + adm_half_unit(cub)) >> cub;
}

// ---- kernel --------------------------------------------------------------

uint word_at(uint plane, int x, int y) {
    return (plane * pc.height + uint(y)) * pc.width + uint(x);
}

// r and a of orientation b at (x, y).
ivec2 restored_additive(int b, int x, int y) {
    if (LEVEL0) {
        int word = level[word_at(uint(1 + b), x, y)];
        return ivec2(adm_unpack16(word, 0u), adm_unpack16(word, 1u));
    }
    return ivec2(level[word_at(uint(2 + b), x, y)], level[word_at(uint(5 + b), x, y)]);
}

// Ring and tile samples each invocation loads.
const int LOADS = (HALO + TW * TH - 1) / (TW * TH);

// Loads fr and fa of the tile at (tx0, ty0) and its mirrored ring into
// shared memory, every load issued before the first store.
void load_flt(int tx0, int ty0, uint tid) {
    uint fr_plane = LEVEL0 ? 4u : 8u;
    int w = int(pc.width);
    int h = int(pc.height);
    ivec2 v[LOADS];
    for (int i = 0; i < LOADS; i++) {
        int k = int(tid) + i * TW * TH;
        if (k < HALO) {
            int x = adm_mirror(tx0 - 1 + k % HW, w);
            int y = adm_mirror(ty0 - 1 + k / HW, h);
            v[i] = ivec2(level[word_at(fr_plane, x, y)], level[word_at(fr_plane + 1u, x, y)]);
        }
    }
    for (int i = 0; i < LOADS; i++) {
        int k = int(tid) + i * TW * TH;
        if (k < HALO) {
            s_fr[k] = v[i].x;
            s_fa[k] = v[i].y;
        }
    }
}

void main() {
    int tx0 = int(pc.left) + int(gl_WorkGroupID.x) * TW;
    int ty0 = int(pc.top) + int(gl_WorkGroupID.y) * TH;
    uint tid = gl_LocalInvocationIndex;
    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int x = tx0 + lx;
    int y = ty0 + ly;
    bool scored = x < int(pc.right) && y < int(pc.bottom);
    // The sample's own r and a are loaded alongside the ring.
    ivec2 ra[3];
    for (int b = 0; b < 3; b++) {
        ra[b] = scored ? restored_additive(b, x, y) : ivec2(0);
    }
    load_flt(tx0, ty0, tid);
    barrier();

    int64_t vals[6] = int64_t[6](0, 0, 0, 0, 0, 0);
    if (scored) {
        int p = (ly + 1) * HW + lx + 1;
        // Thresholds: the 8 neighbours' flt sums plus each orientation's
        // centre term (wrapping int32, order-free).
        int thr_num = 0;
        int thr_aim = 0;
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                if (dx != 0 || dy != 0) {
                    thr_num += s_fa[p + dy * HW + dx];
                    thr_aim += s_fr[p + dy * HW + dx];
                }
            }
        }
        for (int b = 0; b < 3; b++) {
            thr_num += centre(csf_dst(ra[b].y, b));
            thr_aim += centre(csf_dst(ra[b].x, b));
        }
        for (int b = 0; b < 3; b++) {
            vals[b] = cm_value(ra[b].x, thr_num, b);
            vals[3 + b] = pc.skip_aim != 0u ? int64_t(0) : cm_value(ra[b].y, thr_aim, b);
        }
    }
    add_row_sums(vals, pc.rows_base, int(gl_WorkGroupID.y) * TH, int(pc.bottom - pc.top), 0u);
}
