#version 460
// float_ssim / float_ms_ssim input stage: one plane's samples as floats on
// the 0-255 scale, decimated by IQA's box filter when `factor` > 1.
// Twin: ssim.rs `to_float_plane` followed by `decimate(.., box_kernel(f), f)`
// (factor 1 is the plain conversion: one tap of weight 1.0 is exact).
// One output sample per invocation; the taps are few (factor^2 <= 100) and
// neighbouring invocations share them through the cache.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Words { uint words[]; };
#define PLANE_WORDS words
#include "plane.glsl"
#include "ssim_common.glsl"
layout(set = 0, binding = 1, std430) writeonly buffer Plane { float out_plane[]; };

// Twin: ssim_gpu.rs `DecimatePush` (52 bytes); the two must agree.
layout(push_constant) uniform Push {
    PlaneDesc plane;
    uint out_width;
    uint out_height;
    uint factor;
    float weight;       // the float 1.0f / (factor * factor), rounded on the host as IQA rounds it
    float sample_scale; // 2^-(bpc-8): libvmaf's exact division by 2^(bpc-8)
};

void main() {
    uint ox = gl_GlobalInvocationID.x;
    uint oy = gl_GlobalInvocationID.y;
    if (ox >= out_width || oy >= out_height) {
        return;
    }
    // Factor 1 (float_ms_ssim's input, float_ssim unscaled): the sum below
    // would be 0 + widened(s * 1.0), narrowed again, which is s exactly (a
    // product by 1.0 and by powers of two, all exact), so store s without
    // the double round trip.
    if (factor == 1u) {
        out_plane[oy * out_width + ox] = float(plane_load(plane, ox, oy)) * sample_scale;
        return;
    }
    // IQA centres an even window one sample left/up: taps -f/2 .. f-1-f/2.
    int lo = int(factor / 2u);
    int hi = int(factor) - 1 - lo;
    int cx = int(ox * factor);
    int cy = int(oy * factor);
    int w = int(plane.width);
    int h = int(plane.height);
    // Products rounded to float, summed in double (scaled, see `widened`),
    // rows outer (convolve.c).
    precise double sum = 0.0;
    for (int v = -lo; v <= hi; v++) {
        uint row = uint(ssim_mirror(cy + v, h));
        for (int u = -lo; u <= hi; u++) {
            uint col = uint(ssim_mirror(cx + u, w));
            float s = float(plane_load(plane, col, row)) * sample_scale;
            precise float product = s * weight;
            sum += widened(product);
        }
    }
    out_plane[oy * out_width + ox] = narrowed(sum);
}
