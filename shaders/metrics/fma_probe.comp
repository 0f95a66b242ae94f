#version 460
// Whether this driver's fma() on doubles is fused (one rounding): computes
// fma(v[0], v[1], v[2]) into v[3]. The host passes operands whose fused and
// unfused results differ (metrics/src/vif/gpu.rs `fma_fuses`) and picks the
// VIF division check's remainder by the answer. The operands come from a
// buffer so that no compiler can fold the call.
layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) buffer Probe { double v[4]; };

void main() {
    precise double r = fma(v[0], v[1], v[2]);
    v[3] = r;
}
