#version 460
// CIEDE2000's hue weight T for a list of mean hues h̄ (gpu_ciede's test of
// ciede_hue_weight.glsl's error bound and fallback): for each h̄[i],
// fast[i] is the cheap evaluation's double, sure[i] whether hue_weight kept
// its rounding, t[i] hue_weight's float and libm[i] hue_weight_libm's.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Hues { float h_bar[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Fast { double fast[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Sure { uint sure_flags[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Weights { float t[]; };
layout(set = 0, binding = 4, std430) writeonly buffer Libm { float libm[]; };

layout(push_constant, std430) uniform Push { uint count; };

// As ciede.comp's: whether the device's double fma() rounds once.
layout(constant_id = 0) const bool FUSED_FMA = false;

#include "metrics/ciede_math.glsl"
#include "metrics/ciede_hue_weight.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= count) {
        return;
    }
    bool sure;
    fast[i] = hue_weight_fast(h_bar[i], sure);
    sure_flags[i] = sure ? 1u : 0u;
    t[i] = hue_weight(h_bar[i]);
    libm[i] = hue_weight_libm(h_bar[i]);
}
