#version 460
// The horizontal pass of swscale's bicubic scale (ffmpeg's `scale` at its
// default): each output sample of each input row is the weighted sum of
// `taps` input samples from its filter's first one, shifted right to
// swscale's 15-bit intermediate precision and capped at 32767 (never
// floored: the cubic's overshoot below zero is kept for the vertical pass).
// Filters (first sample, then `taps` weights per output sample) are int
// words in `filters`; intermediates are ints, `dst_width` per input row.
// CPU twin: video/src/scale.rs (`PlaneScale::scale`, first loop); driver:
// metrics/src/scale.rs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer SrcWords { uint src_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer Filters { int filters[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Mid { int mid[]; };

#define PLANE_WORDS src_words
#include "plane.glsl"

// Twin: `HorizontalPush` in metrics/src/scale.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc src;
    uint dst_width;
    uint taps;
    uint first_at;    // word index of the first-sample table
    uint weights_at;  // word index of the weights
    uint mid_at;      // word index of this plane's intermediates
    uint shift;       // 7 at 8 bits, bpc - 1 above
};

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= dst_width || y >= src.height) {
        return;
    }
    // The filter init keeps every tap inside the row.
    uint first = uint(filters[first_at + x]);
    uint w0 = weights_at + x * taps;
    int sum = 0;
    for (uint j = 0u; j < taps; j++) {
        sum += filters[w0 + j] * int(plane_load(src, first + j, y));
    }
    mid[mid_at + y * dst_width + x] = min(sum >> shift, 32767);
}
