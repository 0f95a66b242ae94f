#version 460
// ciede_lab_fill: the CIELAB colour of every 8-bit YUV triple, for
// ciede.comp's LAB_TABLE variant: L, a and b in three tables of 2^24
// floats (64 MiB each, within the 128 MiB every Vulkan device can bind),
// entry (U << 16) | (V << 8) | Y; workgroup (V, U) fills the 256 lumas of
// one chroma pair. The colours come from ciede_lab.glsl's `lab`, the function the
// plain variant calls per pixel, under the same FUSED_FMA: a table entry
// is bit for bit the direct conversion. Driver:
// metrics/src/features/ciede/gpu.rs (`CiedeKernel::new`, once per kernel).

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) writeonly buffer TableL { float table_l[]; };
layout(set = 0, binding = 1, std430) writeonly buffer TableA { float table_a[]; };
layout(set = 0, binding = 2, std430) writeonly buffer TableB { float table_b[]; };

// As in ciede.comp: true where fma() on doubles rounds once.
layout(constant_id = 0) const bool FUSED_FMA = false;

#include "ciede_math.glsl"
#include "ciede_lab.glsl"

void main() {
    uint y = gl_LocalInvocationID.x;
    uint v = gl_WorkGroupID.x;
    uint u = gl_WorkGroupID.y;
    vec3 c = lab(y, u, v, 8u);
    uint i = (u << 16) | (v << 8) | y;
    table_l[i] = c.x;
    table_a[i] = c.y;
    table_b[i] = c.z;
}
