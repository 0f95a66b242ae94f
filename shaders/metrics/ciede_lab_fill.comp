#version 460
// ciede_lab_fill: the CIELAB colour and chroma of every 8-bit YUV triple,
// for ciede.comp's LAB_TABLE variant: entry (U << 16) | (V << 8) | Y holds
// (L, a, b, C) as a vec4, one 16-byte read. The 2^24 entries are two
// buffers of 128 MiB, the most every Vulkan device can bind: U < 128 and
// U >= 128. Workgroup (V, U) fills the 256 lumas of one chroma pair. The
// entries come from ciede_lab.glsl's `lab_colour`, the function the plain
// variant calls per pixel, under the same FUSED_FMA: a table entry is bit
// for bit the direct conversion. Driver: metrics/src/features/ciede/gpu.rs
// (`LabTable`, once per device).

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) writeonly buffer TableLow { vec4 table_low[]; };
layout(set = 0, binding = 1, std430) writeonly buffer TableHigh { vec4 table_high[]; };

// As in ciede.comp: true where fma() on doubles rounds once.
layout(constant_id = 0) const bool FUSED_FMA = false;

#include "ciede_math.glsl"
#include "ciede_lab.glsl"

void main() {
    uint y = gl_LocalInvocationID.x;
    uint v = gl_WorkGroupID.x;
    uint u = gl_WorkGroupID.y;
    vec4 c = lab_colour(y, u, v, 8u);
    uint i = ((u & 127u) << 16) | (v << 8) | y;
    if (u < 128u) {
        table_low[i] = c;
    } else {
        table_high[i] = c;
    }
}
