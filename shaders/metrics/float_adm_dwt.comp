#version 460
// One level of float ADM: the db2 wavelet transform of the reference and
// distorted images, then, per output sample, the decoupling of the
// distorted details into restored and additive parts (over the widened
// region) and the denominator's |rf * reference|^3 (over the core region).
// One invocation per output sample; it recomputes the vertical filter of
// its four tap columns, so no intermediate row is stored.
// CPU twin: metrics/src/features/float_adm/ (dwt.rs `dwt`, level.rs
// `decouple`, `den_rows`, rcp.rs `divide`); driver: float_adm/gpu.rs.
//
// Level 0 (specialization LEVEL0) reads the uploaded planes as
// sample / 2^(bpc-8) - 128 (exact in float); levels 1-3 read planes 0 and 1
// of the previous level's buffer.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "float_adm_common.glsl"

layout(constant_id = 0) const bool LEVEL0 = false;

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Src0 { uint src0[]; };
layout(set = 0, binding = 1, std430) readonly buffer Src1 { uint src1[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Level { float level[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Vals { float vals[]; };
layout(set = 0, binding = 4, std430) readonly buffer Rcp { uint rcp_table[]; };

#define PLANE_WORDS_A src0
#define PLANE_WORDS_B src1
#include "plane_pair.glsl"

// Twin: `DwtPush` in metrics/src/features/float_adm/gpu.rs.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint in_width;
    uint in_height;
    uint width;
    uint height;
    uint core_lt;   // left | top << 16
    uint core_rb;   // right | bottom << 16
    uint wide_lt;
    uint wide_rb;
    float rf[3];
    uint cos_bits;  // f32 bits of cos^2(1 degree)
    uint egl_lo;    // f64 bits of adm_enhn_gain_limit
    uint egl_hi;
    uint decouple;  // 0: transform only (adm_skip_scale0 at level 0)
    uint vals_base;
};

float load_src(bool dis, int x, int y) {
    if (LEVEL0) {
        uint v = dis ? plane_load_b(dis_plane, uint(x), uint(y))
                     : plane_load(ref_plane, uint(x), uint(y));
        precise float f = ldexp(float(v), -(int(ref_plane.bpc) - 8)) - 128.0;
        return f;
    }
    uint at = (dis ? in_width * in_height : 0u) + uint(y) * in_width + uint(x);
    return uintBitsToFloat(src0[at]);
}

// a, v, h, d of output (i, j) of one image.
vec4 transform(bool dis, ivec4 rows, ivec4 cols) {
    vec4 lo, hi;
    for (int c = 0; c < 4; c++) {
        vec4 s = vec4(load_src(dis, cols[c], rows[0]), load_src(dis, cols[c], rows[1]),
                      load_src(dis, cols[c], rows[2]), load_src(dis, cols[c], rows[3]));
        lo[c] = fadm_filter(false, s);
        hi[c] = fadm_filter(true, s);
    }
    return vec4(fadm_filter(false, lo), fadm_filter(true, lo), fadm_filter(false, hi),
                fadm_filter(true, hi));
}

// rcp.rs `rcp_estimate`: the x86 rcpss estimate (AMD Zen's table).
float rcp_estimate(float x) {
    uint b = floatBitsToUint(x);
    uint s = b & 0x80000000u;
    uint e = (b >> 23) & 0xFFu;
    uint m = b & 0x7FFFFFu;
    if (e == 0u) return uintBitsToFloat(s | 0x7F800000u);
    if (e == 255u) return m != 0u ? uintBitsToFloat(b | 0x400000u) : uintBitsToFloat(s);
    if (e >= 253u) return uintBitsToFloat(s);
    uint i = m >> 11;
    uint t = (rcp_table[i >> 1] >> ((i & 1u) * 16u)) & 0xFFFFu;
    return uintBitsToFloat(s | ((253u - e) << 23) | (t << 11));
}

// rcp.rs `divide`.
float divide(float n, float d) {
    precise float r = rcp_estimate(d);
    precise float q = n * (r + r * (1.0 - d * r));
    return q;
}

const float EPS = 1e-30;

void main() {
    int j = int(gl_GlobalInvocationID.x);
    int i = int(gl_GlobalInvocationID.y);
    int w = int(width), h = int(height);
    if (j >= w || i >= h) return;
    ivec4 rows = ivec4(fadm_mirror(2 * i - 1, int(in_height)), fadm_mirror(2 * i, int(in_height)),
                       fadm_mirror(2 * i + 1, int(in_height)),
                       fadm_mirror(2 * i + 2, int(in_height)));
    ivec4 cols = ivec4(fadm_mirror(2 * j - 1, int(in_width)), fadm_mirror(2 * j, int(in_width)),
                       fadm_mirror(2 * j + 1, int(in_width)),
                       fadm_mirror(2 * j + 2, int(in_width)));
    vec4 r = transform(false, rows, cols);
    vec4 d = transform(true, rows, cols);
    uint plane = uint(w * h);
    uint at = uint(i * w + j);
    level[at] = r.x;
    level[plane + at] = d.x;
    if (decouple == 0u) return;

    // libvmaf's h, v, d: (lo V, hi H) is v; (hi V, lo H) is h.
    float o[3] = float[3](r.z, r.y, r.w);
    float t[3] = float[3](d.z, d.y, d.w);
    ivec2 wlt = fadm_corner(wide_lt), wrb = fadm_corner(wide_rb);
    if (j >= wlt.x && j < wrb.x && i >= wlt.y && i < wrb.y) {
        float rst[3];
        for (int k = 0; k < 3; k++) {
            precise float q = divide(t[k], o[k] + EPS);
            q = q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
            precise float p = q * o[k];
            rst[k] = p;
        }
        precise float ot_dp = o[0] * t[0] + o[1] * t[1];
        precise float o_mag = o[0] * o[0] + o[1] * o[1];
        precise float t_mag = t[0] * t[0] + t[1] * t[1];
        precise float lhs = ot_dp * ot_dp;
        precise float rhs = uintBitsToFloat(cos_bits) * o_mag * t_mag;
        bool angle_flag = ot_dp >= 0.0 && lhs >= rhs;
        double egl = packDouble2x32(uvec2(egl_lo, egl_hi));
        for (int k = 0; k < 3; k++) {
            if (angle_flag) {
                double tk = double(t[k]);
                if (rst[k] > 0.0) {
                    precise double g = double(rst[k]) * egl;
                    rst[k] = float(g < tk ? g : tk);
                }
                if (rst[k] < 0.0) {
                    precise double g = double(rst[k]) * egl;
                    rst[k] = float(g > tk ? g : tk);
                }
            }
            precise float add = t[k] - rst[k];
            level[(2u + uint(k)) * plane + at] = rst[k];
            level[(5u + uint(k)) * plane + at] = add;
        }
    }
    ivec2 clt = fadm_corner(core_lt), crb = fadm_corner(core_rb);
    if (j >= clt.x && j < crb.x && i >= clt.y && i < crb.y) {
        uint cols_n = uint(crb.x - clt.x), rows_n = uint(crb.y - clt.y);
        uint x = uint(j - clt.x), y = uint(i - clt.y);
        for (int k = 0; k < 3; k++) {
            precise float v = abs(rf[k] * o[k]);
            precise float cube = v * v * v;
            vals[vals_base + ((6u + uint(k)) * rows_n + y) * cols_n + x] = cube;
        }
    }
}
