#version 460
// Products whose results are denormal floats: v[2i+1] = v[2i] * v[2i+1]
// for each pair. The gpu crate's test checks that a device which can keep
// denormals does so in every pipeline (gpu/src/spirv.rs adds the request).
// The operands come from a buffer so no compiler can fold the product.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer Pairs { float v[]; };
layout(push_constant) uniform Push { uint pairs; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pairs) {
        precise float p = v[2 * i] * v[2 * i + 1];
        v[2 * i + 1] = p;
    }
}
