#version 460
// The vertical pass of swscale's bicubic scale: each output sample is the
// weighted sum of `taps` intermediate rows (scale_h.comp's) from its
// filter's first one, plus half the unit of the final shift, shifted right
// by 27 - bpc and clipped to the sample range. One invocation writes one
// 32-bit word of the output plane (4 samples at 8 bits, 2 above), so planes
// stay packed as the upload path lays them out (rows back to back, the
// plane starting on a word); bytes of the last word past the plane are 0.
// CPU twin: video/src/scale.rs (`PlaneScale::scale`, second loop); driver:
// metrics/src/scale.rs.

#define THREADS 256

layout(local_size_x = THREADS) in;

layout(set = 0, binding = 0, std430) readonly buffer Mid { int mid[]; };
layout(set = 0, binding = 1, std430) readonly buffer Filters { int filters[]; };
layout(set = 0, binding = 2, std430) buffer DstWords { uint dst_words[]; };

// For `PlaneDesc` (plane_load goes unused: words are written whole).
#define PLANE_WORDS dst_words
#include "plane.glsl"

// Twin: `VerticalPush` in metrics/src/scale.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc dst;    // stride == width
    uint taps;
    uint first_at;
    uint weights_at;
    uint mid_at;
    uint shift;       // 27 - bpc
    uint words;       // words the plane covers
};

void main() {
    // Groups are laid out 2D only to stay under the per-dimension limit.
    uint w = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * THREADS
        + gl_LocalInvocationIndex;
    if (w >= words) {
        return;
    }
    uint per_word = 4u / dst.bytes_per_sample;
    uint bits = 8u * dst.bytes_per_sample;
    uint samples = dst.width * dst.height;
    int top = (1 << dst.bpc) - 1;
    uint word = 0u;
    for (uint k = 0u; k < per_word; k++) {
        uint s = w * per_word + k;
        if (s >= samples) {
            break;
        }
        uint x = s % dst.width;
        uint y = s / dst.width;
        uint first = uint(filters[first_at + y]);
        uint w0 = weights_at + y * taps;
        int sum = 1 << (shift - 1u);
        for (uint j = 0u; j < taps; j++) {
            sum += mid[mid_at + (first + j) * dst.width + x] * filters[w0 + j];
        }
        word |= uint(clamp(sum >> shift, 0, top)) << (k * bits);
    }
    dst_words[(dst.offset >> 2) + w] = word;
}
