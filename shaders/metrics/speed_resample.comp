#version 460
// SpEED with a prescale, pass 0: the plane as libvmaf's floats (or the float
// difference of two planes, previous minus current, for speed_temporal)
// resampled to the prescaled size as `vif_scale_frame_s` does it — nearest,
// bilinear or bicubic (constant METHOD) — one output sample per invocation,
// into scaled[out_base + y * dst_w + x] for pass 1.
// CPU twin: metrics/src/features/float_vif/resample.rs (`resample`), on the
// floats of metrics/src/features/speed/mod.rs (`float_plane`); driver:
// metrics/src/features/speed/gpu.rs.
//
// Every expression is the twin's, in float and in its order; the source
// coordinate is computed in double and stored as a float. `precise` keeps
// the driver from fusing products and sums.

layout(local_size_x = 64, local_size_y = 4) in;

// 0 nearest, 1 bilinear, 2 bicubic (`PrescaleMethod` on the host).
layout(constant_id = 0) const uint METHOD = 1u;

layout(set = 0, binding = 0, std430) readonly buffer PlaneWords { uint plane_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer MinusWords { uint minus_words[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Scaled { float scaled[]; };

#define PLANE_WORDS_A plane_words
#define PLANE_WORDS_B minus_words
#include "plane_pair.glsl"

// Twin: `ResamplePush` in metrics/src/features/speed/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc plane;
    PlaneDesc minus;
    uint subtract;
    uint src_w;
    uint src_h;
    uint dst_w;
    uint dst_h;
    float ratio_x;  // src_w / dst_w, a float division done on the host
    float ratio_y;
    uint out_base;
};

float to_float(uint v, uint bpc) {
    return ldexp(float(v), 8 - int(bpc)) - 128.0;
}

float source(int x, int y) {
    float s = to_float(plane_load(plane, uint(x), uint(y)), plane.bpc);
    if (subtract != 0u) {
        precise float d = s - to_float(plane_load_b(minus, uint(x), uint(y)), minus.bpc);
        s = d;
    }
    return s;
}

// (i + 0.5)·ratio − 0.5 in double, stored as a float.
float source_coordinate(uint i, float ratio) {
    precise double c = (double(i) + 0.5lf) * double(ratio) - 0.5lf;
    return float(c);
}

// libvmaf's float mirror, then C's truncating cast.
int mirrored_index(float i, uint n) {
    float right = float(n - 1u);
    precise float m = i < 0.0 ? -i : (i > right ? 2.0 * right - i : i);
    return int(m);
}

float bilinear(float x, float y) {
    int x1 = mirrored_index(floor(x), src_w);
    int x2 = mirrored_index(ceil(x), src_w);
    int y1 = mirrored_index(floor(y), src_h);
    int y2 = mirrored_index(ceil(y), src_h);
    precise float dx = x - float(x1);
    precise float dy = y - float(y1);
    precise float v = (1.0 - dy) * (1.0 - dx) * source(x1, y1) + (1.0 - dy) * dx * source(x2, y1)
        + dy * (1.0 - dx) * source(x1, y2) + dy * dx * source(x2, y2);
    return v;
}

// bicubic_kernel, a = −0.75.
float bicubic_weight(float t) {
    t = abs(t);
    if (t < 1.0) {
        precise float w = ((1.25 * t - 2.25) * t) * t + 1.0;
        return w;
    }
    if (t < 2.0) {
        precise float w = (((t - 5.0) * t + 8.0) * t - 4.0) * -0.75;
        return w;
    }
    return 0.0;
}

float bicubic(float x, float y) {
    int x0 = int(floor(x));
    int y0 = int(floor(y));
    precise float dx = x - float(x0);
    precise float dy = y - float(y0);
    float wx[4];
    float wy[4];
    for (int k = 0; k < 4; k++) {
        precise float tx = float(k - 1) - dx;
        precise float ty = float(k - 1) - dy;
        wx[k] = bicubic_weight(tx);
        wy[k] = bicubic_weight(ty);
    }
    precise float v = 0.0;
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++) {
            int xi = mirrored_index(float(x0 + i - 1), src_w);
            int yi = mirrored_index(float(y0 + j - 1), src_h);
            precise float w = wx[i] * wy[j];
            precise float term = source(xi, yi) * w;
            v = v + term;
        }
    }
    return v;
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= dst_w || y >= dst_h) {
        return;
    }
    float v;
    if (METHOD == 0u) {
        precise float px = float(x) * ratio_x;
        precise float py = float(y) * ratio_y;
        v = source(int(px), int(py));
    } else {
        float xx = source_coordinate(x, ratio_x);
        float yy = source_coordinate(y, ratio_y);
        v = METHOD == 1u ? bilinear(xx, yy) : bicubic(xx, yy);
    }
    scaled[out_base + y * dst_w + x] = v;
}
