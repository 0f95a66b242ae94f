#version 460
// Integer ADM, one level's decoupling, CSF, contrast masking and
// denominator, summed per row of a tile (metrics/src/adm/decouple.rs,
// csf.rs, cm.rs).
//
// A workgroup covers a 32x8 tile of the scored (core) region. It decouples
// the reference and distorted h, v, d coefficients over the tile and its
// one-sample mirrored halo, keeps the restored (r) and additive (a) parts
// and the orientation sums of their CSF `flt` in shared memory, then each
// invocation masks its own sample:
//   num (DLM): r masked by the threshold built from csf(a),
//   aim:       a masked by the threshold built from csf(r),
//   den:       the reference energy,
// for h, v, d: 9 int64 per sample. Those are summed over each tile row and
// written as per-(row, column block) partials; adm_rows.comp sums a row's
// blocks, rounds the row like libvmaf and adds the rows up.
//
// LEVEL0 (specialization constant 0) selects the 16-bit level-0 formulas,
// otherwise the 32-bit level 1-3 ones.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "adm_common.glsl"

layout(local_size_x = 32, local_size_y = 8) in;
layout(constant_id = 0) const bool LEVEL0 = true;

layout(set = 0, binding = 0, std430) readonly buffer Bands { int bands[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Partials { int64_t partials[]; };

// Twin: `CmPush` in metrics/src/adm/gpu.rs (the two must agree).
layout(push_constant) uniform Push {
    uint width;        // band size
    uint height;
    uint left;         // core region [left, right) x [top, bottom)
    uint top;
    uint right;
    uint bottom;
    uint colblocks;    // tiles across the core
    uint partial_base; // int64 index of this level's partials
    uint rf[3];        // i_rfactor (u16 at level 0, u32 above)
    uint cub[3];       // masking cube shift per orientation
    uint den_cub;      // levels 1-3 denominator cube shift
    uint den_sq;       // levels 1-3 denominator square shift
    uint skip_aim;
    uint cos_bits;     // f32 bits of cos^2(1 degree)
    uint egl_lo;       // f64 bits of the enhancement gain limit
    uint egl_hi;
} pc;

const int TW = 32;
const int TH = 8;
const int HW = TW + 2;
const int HH = TH + 2;
const int HALO = HW * HH;

shared int s_r[3][HALO];
shared int s_a[3][HALO];
shared int s_fr[HALO];  // sum over h, v, d of flt(csf(r)), wrapping
shared int s_fa[HALO];  // same for a
shared int64_t s_red[9][TH * TW];

// ---- decoupling (decouple.rs) ----------------------------------------

// 64-bit find-MSB from two 32-bit halves; v != 0.
int msb64(uint64_t v) {
    uvec2 p = unpackUint2x32(v);
    return p.y != 0u ? 32 + findMSB(p.y) : findMSB(p.x);
}

// `(float)x` for an int64 (round to nearest, ties to even), divided by 4096,
// as an exact double: the rounding is done in integers, the scaling by a
// power of two is exact.
double f32_of_i64_by_4096(int64_t x) {
    uint64_t m = uint64_t(x < 0 ? -x : x);
    int sh = 0;
    if (m >= (uint64_t(1) << 24)) {
        sh = msb64(m) - 23;
        uint64_t q = m >> uint(sh);
        uint64_t rem = m & ((uint64_t(1) << uint(sh)) - 1ul);
        uint64_t half_q = uint64_t(1) << uint(sh - 1);
        if (rem > half_q || (rem == half_q && (q & 1ul) == 1ul)) {
            q += 1ul;
        }
        m = q;
    }
    // 2^(sh - 12) built from its exponent bits; |sh - 12| is far from limits.
    double scale = packDouble2x32(uvec2(0u, uint(1023 + sh - 12) << 20));
    precise double v = double(m) * scale;
    return x < 0 ? -v : v;
}

// decouple.rs `angle_flag`.
bool angle_flag(int64_t oh, int64_t ov, int64_t th, int64_t tv) {
    int64_t ot_dp = oh * th + ov * tv;
    int64_t o_mag_sq = oh * oh + ov * ov;
    int64_t t_mag_sq = th * th + tv * tv;
    double dp = f32_of_i64_by_4096(ot_dp);
    double om = f32_of_i64_by_4096(o_mag_sq);
    double tm = f32_of_i64_by_4096(t_mag_sq);
    double cos_sq = double(uintBitsToFloat(pc.cos_bits));
    precise double lhs = dp * dp;
    precise double rhs = (cos_sq * om) * tm;
    return dp >= 0.0lf && lhs >= rhs;
}

// decouple.rs `div_lookup`: 2^30 / i truncated, signed; i != 0.
int div_lookup(int i) {
    int r = (1 << 30) / abs(i);
    return i < 0 ? -r : r;
}

// decouple.rs `gain_limited`. `o` and `t` stay 32-bit here: lavapipe
// (Mesa 22.3, LLVM 15) was seen to get `int64_t(o) > 0` wrong for negative
// int32 `o`, so every sign test is done on the 32-bit value.
int64_t gain_limited(int64_t rst, int64_t k, int o, int t, bool angle) {
    if (!angle || k == 0 || o == 0) {
        return rst;
    }
    double egl = packDouble2x32(uvec2(pc.egl_lo, pc.egl_hi));
    precise double scaled = double(rst) * egl;
    double td = double(t);
    double v = o > 0 ? (scaled < td ? scaled : td) : (scaled > td ? scaled : td);
    return int64_t(v);  // truncation toward zero
}

// The restored part of one orientation (the additive part is t - r).
int restored_s0(int o, int t, bool angle) {
    int64_t ob = int64_t(o);
    int64_t tb = int64_t(t);
    int64_t k = 32768;
    if (o != 0) {
        k = int64_t(int((int64_t(div_lookup(o)) * tb + 16384) >> 15));
    }
    k = clamp(k, int64_t(0), int64_t(32768));
    int64_t rst = int64_t(adm_wrap16(int((k * ob + 16384) >> 15)));
    return adm_wrap16(int(gain_limited(rst, k, o, t, angle)));
}

int restored_s123(int o, int t, bool angle) {
    int64_t ob = int64_t(o);
    int64_t tb = int64_t(t);
    int64_t k = 32768;
    if (o != 0) {
        uint absv = uint(o < 0 ? -o : o);
        uint msb = absv;
        uint shift = 0u;
        if (absv >= 32768u) {
            // get_best15_from32: keep the top 15 significant bits, rounded.
            shift = uint(findMSB(absv)) - 14u;
            msb = (absv + (1u << (shift - 1u))) >> shift;
        }
        int64_t sign = o < 0 ? int64_t(-1) : int64_t(1);
        int64_t round_k = int64_t(int(1u << (14u + shift)));
        k = (int64_t(div_lookup(int(msb))) * tb * sign + round_k) >> (15u + shift);
    }
    k = clamp(k, int64_t(0), int64_t(32768));
    int64_t rst = int64_t(int((k * ob + 16384) >> 15));
    return int(gain_limited(rst, k, o, t, angle));
}

// ---- CSF (csf.rs) ------------------------------------------------------

int csf_dst(int src, int theta) {
    if (LEVEL0) {
        int shift = theta == 2 ? 17 : 15;
        int round_d = theta == 2 ? 65535 : 16384;
        return adm_wrap16((int(pc.rf[theta]) * src + round_d) >> shift);
    }
    return int((int64_t(uint64_t(pc.rf[theta])) * int64_t(src) + (int64_t(1) << 27)) >> 28);
}

int csf_flt(int dst) {
    if (LEVEL0) {
        return adm_wrap16((4369 * abs(dst) + 2048) >> 12);
    }
    // The "half" is 1u << 31 stored in an int32: -2^31.
    return int((int64_t(143165577) * int64_t(adm_wabs(dst)) - (int64_t(1) << 31)) >> 32);
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

uint64_t den_value(int b) {
    uint64_t a = uint64_t(uint(b < 0 ? -b : b));
    if (LEVEL0) {
        return a * a * a;
    }
    uint sq = pc.den_sq;
    return ((((a * a) + (uint64_t(1) << sq)) >> sq) * a + adm_half_unit_u(pc.den_cub)) >> pc.den_cub;
}

// ---- kernel --------------------------------------------------------------

uint band_at(uint image, uint band, int x, int y) {
    return ((image * 4u + band) * pc.height + uint(y)) * pc.width + uint(x);
}

void main() {
    int w = int(pc.width);
    int h = int(pc.height);
    int tx0 = int(pc.left) + int(gl_WorkGroupID.x) * TW;
    int ty0 = int(pc.top) + int(gl_WorkGroupID.y) * TH;
    int tid = int(gl_LocalInvocationIndex);

    // Decouple and CSF over the tile and its mirrored halo.
    for (int k = tid; k < HALO; k += TW * TH) {
        int x = adm_mirror(tx0 - 1 + k % HW, w);
        int y = adm_mirror(ty0 - 1 + k / HW, h);
        int o[3];
        int t[3];
        for (int b = 0; b < 3; b++) {
            o[b] = bands[band_at(0u, uint(b + 1), x, y)];
            t[b] = bands[band_at(1u, uint(b + 1), x, y)];
        }
        bool angle = angle_flag(int64_t(o[0]), int64_t(o[1]), int64_t(t[0]), int64_t(t[1]));
        int fr = 0;
        int fa = 0;
        for (int b = 0; b < 3; b++) {
            int r;
            int a;
            if (LEVEL0) {
                r = restored_s0(o[b], t[b], angle);
                a = adm_wrap16(t[b] - r);
            } else {
                r = restored_s123(o[b], t[b], angle);
                a = t[b] - r;
            }
            s_r[b][k] = r;
            s_a[b][k] = a;
            fr += csf_flt(csf_dst(r, b));
            fa += csf_flt(csf_dst(a, b));
        }
        s_fr[k] = fr;
        s_fa[k] = fa;
    }
    barrier();

    int lx = int(gl_LocalInvocationID.x);
    int ly = int(gl_LocalInvocationID.y);
    int x = tx0 + lx;
    int y = ty0 + ly;
    int64_t vals[9] = int64_t[9](0, 0, 0, 0, 0, 0, 0, 0, 0);
    if (x < int(pc.right) && y < int(pc.bottom)) {
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
            thr_num += centre(csf_dst(s_a[b][p], b));
            thr_aim += centre(csf_dst(s_r[b][p], b));
        }
        for (int b = 0; b < 3; b++) {
            vals[b] = cm_value(s_r[b][p], thr_num, b);
            vals[3 + b] = pc.skip_aim != 0u ? int64_t(0) : cm_value(s_a[b][p], thr_aim, b);
            vals[6 + b] = int64_t(den_value(bands[band_at(0u, uint(b + 1), x, y)]));
        }
    }
    for (int f = 0; f < 9; f++) {
        s_red[f][tid] = vals[f];
    }
    barrier();

    // Per tile row and field: the sum over the row's 32 samples.
    if (tid < 9 * TH) {
        int f = tid / TH;
        int row = tid % TH;
        int64_t sum = 0;
        for (int c = 0; c < TW; c++) {
            sum += s_red[f][row * TW + c];
        }
        int core_row = int(gl_WorkGroupID.y) * TH + row;
        if (ty0 + row < int(pc.bottom)) {
            uint at = pc.partial_base
                + (uint(core_row) * pc.colblocks + gl_WorkGroupID.x) * 9u + uint(f);
            partials[at] = sum;
        }
    }
}
