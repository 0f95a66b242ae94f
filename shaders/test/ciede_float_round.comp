#version 460
// ciede_math.glsl's float_round on a list of doubles (gpu_ciede's test):
// v[i] becomes float_round(v[i]).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer Values { double v[]; };

layout(push_constant, std430) uniform Push { uint count; };

layout(constant_id = 0) const bool FUSED_FMA = false;

#include "metrics/ciede_math.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) {
        v[i] = float_round(v[i]);
    }
}
