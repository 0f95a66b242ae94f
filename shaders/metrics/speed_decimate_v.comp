#version 460
// SpEED, pass 1 of 5: the vertical pass of the anti-aliasing filter over one
// plane, only at the rows the decimation by 16 keeps (16·oy), every column,
// into vertical[out_base + oy * width + x].
// CPU twin: metrics/src/features/speed/mod.rs (`float_plane`, `decimate`);
// driver: metrics/src/features/speed/gpu.rs.
//
// A sample becomes libvmaf's float: scaled by 2^(8 - bpc) (exact) minus 128
// (exact). With FLOAT_INPUT (a prescale) the samples are pass 0's resampled
// floats instead, at scaled[float_base + y * width + x]. With `subtract` (speed_temporal) the filtered value is the float
// difference of the plane's and the `minus` plane's floats (previous frame
// minus current). The tap sum is ((0 + t0*s0) + t1*s1) + ... in float with each
// product rounded: `precise` keeps the driver from fusing it into FMAs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(constant_id = 0) const bool FLOAT_INPUT = false;

layout(set = 0, binding = 0, std430) readonly buffer PlaneWords { uint plane_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Vertical { float vertical[]; };
layout(set = 0, binding = 3, std430) readonly buffer MinusWords { uint minus_words[]; };
layout(set = 0, binding = 4, std430) readonly buffer Scaled { float scaled[]; };

#define PLANE_WORDS_A plane_words
#define PLANE_WORDS_B minus_words
#include "plane_pair.glsl"

// Twin: `VerticalPush` in metrics/src/features/speed/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc plane;
    PlaneDesc minus;
    uint subtract;
    uint taps_len;
    uint out_rows;
    uint out_base;
    uint float_base;
};

float to_float(uint v, uint bpc) {
    return ldexp(float(v), 8 - int(bpc)) - 128.0;
}

// libvmaf's one-bounce mirror (-k -> k, n-1+k -> n-1-k); the driver checks
// that sides exceed the filter radius.
int mirror(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint oy = gl_GlobalInvocationID.y;
    uint w = plane.width;
    if (x >= w || oy >= out_rows) {
        return;
    }
    int radius = int(taps_len / 2u);
    int y = int(16u * oy);
    precise float acc = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        uint row = uint(mirror(y - radius + int(k), int(plane.height)));
        float s;
        if (FLOAT_INPUT) {
            s = scaled[float_base + row * w + x];
        } else {
            s = to_float(plane_load(plane, x, row), plane.bpc);
            if (subtract != 0u) {
                s = s - to_float(plane_load_b(minus, x, row), minus.bpc);
            }
        }
        precise float product = taps[k] * s;
        acc = acc + product;
    }
    vertical[out_base + oy * w + x] = acc;
}
