#version 460
// ciede: ΔE2000 of every pixel of a frame pair, fused: chroma lookup as
// libvmaf's upsampler places it, YUV → CIELAB for both frames, the CIEDE2000
// formula, the ΔE map (one float per pixel, row-major) and this workgroup's
// double partial sum at partials[group]; ciede_fold.comp adds the partials.
// Built with LAB_TABLE (8-bit frames, see gpu.rs), the Lab colours and
// chromas come from the table ciede_lab_fill.comp filled with the same
// `lab_colour` function,
// indexed (U << 16) | (V << 8) | Y so that the pixels of a chroma block
// read within 4 KiB of each other; plain, each pixel converts both sides.
// CPU twin: metrics/src/features/ciede/mod.rs (`ChromaReader::locate`,
// `lab`, `delta_e`); driver: metrics/src/features/ciede/gpu.rs.
//
// Precision follows libvmaf (and the twin) step by step: a value libvmaf
// keeps in a float is rounded to float at the same point, double maths
// stays double, libm calls go to ciede_math.glsl's double versions (rounded
// to float where libvmaf rounds), and every float division is a double
// division rounded to float (correctly rounded; the GPU's float '/' is
// not). Divisions by 2 are multiplications by 0.5, which is exact. The hue
// weight T is first evaluated more cheaply, and that value kept only where
// an error bound proves it rounds to libvmaf's float (Ziv's strategy,
// ciede_hue_weight.glsl); elsewhere it is libvmaf's four cosines.
//
// Workgroup g covers raster pixels [g·1024, g·1024 + 1024): thread t takes
// pixels t, t + 256, t + 512, t + 768 and adds their ΔE in that order, then
// a fixed shared-memory tree adds the threads. libvmaf adds the ΔE in raster
// order; a fixed tree of double sums differs from it by rounding only
// (relative 1e-16-ish, far below the 1e-6 contract) and gives the same
// result on every run and subgroup size.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define THREADS 256u
#define PIXELS_PER_THREAD 4u

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Map { float map_values[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Partials { double partials[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// True where fma() on doubles rounds once on this device (fma_probe.comp):
// exact products then take one fma instead of Dekker's split.
layout(constant_id = 0) const bool FUSED_FMA = false;

#include "ciede_math.glsl"

#include "ciede_lab.glsl"

#include "ciede_hue_weight.glsl"

#ifdef LAB_TABLE
// (L, a, b, C) of every 8-bit YUV triple, U < 128 and U >= 128:
// ciede_lab_fill.comp.
layout(set = 0, binding = 4, std430) readonly buffer TableLow { vec4 table_low[]; };
layout(set = 0, binding = 5, std430) readonly buffer TableHigh { vec4 table_high[]; };
#endif

// Twin: `CiedePush` in metrics/src/features/ciede/gpu.rs; the two must
// agree. Each side's chroma planes lie in its luma plane's buffer, with the
// luma's depth; only their offsets and strides are their own.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_luma;
    PlaneDesc dis_luma;
    uint ref_cb;             // byte offsets of the chroma planes
    uint ref_cr;
    uint dis_cb;
    uint dis_cr;
    uint ref_cb_stride;      // samples per chroma row
    uint ref_cr_stride;
    uint dis_cb_stride;
    uint dis_cr_stride;
    uint chroma_kind;        // 0: 4:4:4, 1: 4:2:0, 2: 4:2:2 (twin: ChromaKind)
    uint chroma_span;        // 4:2:2: libvmaf's padded chroma row length
};

shared double s_sum[THREADS];

// libvmaf's constants of the formula, as doubles (shortest round-trip
// decimal forms, as in ciede_lab.glsl; T's in ciede_hue_weight.glsl).
const double RAD_TO_DEG = 57.29577951308232lf;
const double DEG_TO_RAD = 0.017453292519943295lf;
const double ONE_25TH = 0.04lf;
const double TWO_PI = 6.283185307179586lf;
const double POW25_7 = 6103515625.0lf;            // pow(25, 7)
const float POW25_7_F = 6103515648.0;             // powf(25, 7)
// The largest float below π: libvmaf compares float hue differences, made
// double, with the double π; no float lies between this one and that
// double, so the comparison may stay in float (no conversion).
const float PI_FLOOR_F = 3.1415925025939941;

// A float division as libvmaf's float '/' rounds it.
float fdiv(float a, float b) {
    return float(double(a) / double(b));
}

// twin: hue_angle
float hue_angle(float b, float a_prime) {
    if (b == 0.0 && a_prime == 0.0) {
        return 0.0;
    }
    float h = float(atan2_d(double(b), double(a_prime)));
    if (h < 0.0) {
        precise double wrapped = double(h) + TWO_PI;
        h = float(wrapped);
    }
    return h;
}

// twin: delta_hue
float delta_hue(float c1, float c2, float h1, float h2) {
    if (c1 == 0.0 || c2 == 0.0) {
        return 0.0;
    }
    precise float d = h2 - h1;
    if (abs(h1 - h2) <= PI_FLOOR_F) {
        return d;
    }
    precise double w = h2 <= h1 ? double(d) + TWO_PI : double(d) - TWO_PI;
    return float(w);
}

// twin: mean_hue
float mean_hue(float h1, float h2) {
    precise float s = h1 + h2;
    precise float d = h1 - h2;
    precise double m = abs(d) > PI_FLOOR_F ? (double(s) + TWO_PI) * 0.5lf : double(s) * 0.5lf;
    return float(m);
}

// twin: rotation
float rotation(float c_bar_prime, float h_bar) {
    precise double deg_d = double(h_bar) * RAD_TO_DEG;
    float degrees = float(deg_d);
    precise double off_d = (double(degrees) - 275.0lf) * ONE_25TH;
    float offset = float(off_d);
    float c7 = float(pow7(c_bar_prime));
    precise float c7_sum = c7 + POW25_7_F;
    float ratio = fdiv(c7, c7_sum);
    precise float off_sq = offset * offset;
    precise double angle_deg_d = 60.0lf * exp_d(-double(off_sq));
    float angle_deg = float(angle_deg_d);
    precise double angle_d = double(angle_deg) * DEG_TO_RAD;
    float angle = float(angle_d);
    precise double rt = -2.0lf * sqrt(double(ratio)) * sin_d(double(angle));
    return float(rt);
}

// twin: delta_e. Each colour is (L, a, b, C): lab_colour.
float delta_e(vec4 c1, vec4 c2) {
    precise float delta_l = c2.x - c1.x;
    precise float l_bar = (c1.x + c2.x) * 0.5;
    float chroma1 = c1.w;
    float chroma2 = c2.w;
    precise float c_bar = (chroma1 + chroma2) * 0.5;
    double c_bar7 = pow7(c_bar);
    precise double g = 1.0lf - sqrt(c_bar7 / (c_bar7 + POW25_7));
    precise float half_a1 = c1.y * 0.5;
    precise float half_a2 = c2.y * 0.5;
    precise double ap1_d = double(c1.y) + double(half_a1) * g;
    precise double ap2_d = double(c2.y) + double(half_a2) * g;
    float a_prime1 = float(ap1_d);
    float a_prime2 = float(ap2_d);
    precise double cp1_d = sqrt(sq(a_prime1) + sq(c1.z));
    precise double cp2_d = sqrt(sq(a_prime2) + sq(c2.z));
    float c_prime1 = float(cp1_d);
    float c_prime2 = float(cp2_d);
    precise float c_bar_prime = (c_prime1 + c_prime2) * 0.5;
    precise float delta_c = c_prime2 - c_prime1;
    precise float l_off = l_bar - 50.0;
    double l50 = sq(l_off);
    precise double s_l_d = 1.0lf + (0.015lf * l50) / sqrt(20.0lf + l50);
    float s_l = float(s_l_d);
    precise double s_c_d = 1.0lf + 0.045lf * double(c_bar_prime);
    float s_c = float(s_c_d);
    float h1 = hue_angle(c1.z, a_prime1);
    float h2 = hue_angle(c2.z, a_prime2);
    float delta_h = delta_hue(chroma1, chroma2, h1, h2);
    precise float cp_prod = c_prime1 * c_prime2;
    precise double dbh_d = 2.0lf * sqrt(double(cp_prod)) * sin_d(double(delta_h) * 0.5lf);
    float delta_big_h = float(dbh_d);
    float h_bar = mean_hue(h1, h2);
    float t = hue_weight(h_bar);
    precise double s_h_d = 1.0lf + 0.015lf * double(c_bar_prime) * double(t);
    float s_h = float(s_h_d);
    float r_t = rotation(c_bar_prime, h_bar);
    precise float den_l = 0.65 * s_l;
    precise float den_h = 4.0 * s_h;
    float lightness = fdiv(delta_l, den_l);
    float chroma = fdiv(delta_c, s_c);
    float hue = fdiv(delta_big_h, den_h);
    precise float cross_term = r_t * chroma * hue;
    precise double total = sq(lightness) + sq(chroma) + sq(hue) + double(cross_term);
    return float(sqrt(total));
}

// twin: ChromaReader::locate. Returns false where libvmaf reads a zero of
// its 4:2:2 row padding.
bool chroma_position(uint x, uint y, out uint cx, out uint cy) {
    if (chroma_kind == 0u) {
        cx = x;
        cy = y;
        return true;
    }
    if (chroma_kind == 1u) {
        cx = x >> 1;
        cy = y >> 1;
        return true;
    }
    cx = x % chroma_span;
    cy = (y >> 1) + x / chroma_span;
    return cx < (ref_luma.width >> 1);
}

PlaneDesc chroma_desc(PlaneDesc luma, uint offset, uint stride) {
    return PlaneDesc(offset, luma.width, luma.height, stride, luma.bytes_per_sample, luma.bpc,
                     0u, 0u);
}

// The CIELAB colour and chroma of one side's samples.
vec4 pixel_colour(uint ys, uint us, uint vs) {
#ifdef LAB_TABLE
    uint i = ((us & 127u) << 16) | (vs << 8) | ys;
    return us < 128u ? table_low[i] : table_high[i];
#else
    return lab_colour(ys, us, vs, ref_luma.bpc);
#endif
}

float pixel_delta_e(uint x, uint y) {
    uint cx;
    uint cy;
    bool has_chroma = chroma_position(x, y, cx, cy);
    uint ry = plane_load(ref_luma, x, y);
    uint dy = plane_load_b(dis_luma, x, y);
    uint ru = 0u;
    uint rv = 0u;
    uint du = 0u;
    uint dv = 0u;
    if (has_chroma) {
        ru = plane_load(chroma_desc(ref_luma, ref_cb, ref_cb_stride), cx, cy);
        rv = plane_load(chroma_desc(ref_luma, ref_cr, ref_cr_stride), cx, cy);
        du = plane_load_b(chroma_desc(dis_luma, dis_cb, dis_cb_stride), cx, cy);
        dv = plane_load_b(chroma_desc(dis_luma, dis_cr, dis_cr_stride), cx, cy);
    }
    // Equal samples give equal colours, and the formula gives exactly +0
    // for equal colours (every difference term is ±0, the sum of their
    // squares +0), so unchanged pixels skip the arithmetic.
    if (ry == dy && ru == du && rv == dv) {
        return 0.0;
    }
    return delta_e(pixel_colour(ry, ru, rv), pixel_colour(dy, du, dv));
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint width = ref_luma.width;
    uint pixels = width * ref_luma.height;
    uint base = gl_WorkGroupID.x * (THREADS * PIXELS_PER_THREAD);
    double acc = 0.0lf;
    for (uint i = 0u; i < PIXELS_PER_THREAD; i++) {
        uint p = base + lid + i * THREADS;
        if (p < pixels) {
            float de = pixel_delta_e(p % width, p / width);
            map_values[p] = de;
            acc += double(de);
        }
    }
    s_sum[lid] = acc;
    barrier();
    for (uint half_size = THREADS / 2u; half_size > 0u; half_size >>= 1) {
        if (lid < half_size) {
            s_sum[lid] = s_sum[lid] + s_sum[lid + half_size];
        }
        barrier();
    }
    if (lid == 0u) {
        partials[gl_WorkGroupID.x] = s_sum[0];
    }
}
