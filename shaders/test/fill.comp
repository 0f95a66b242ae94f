#version 460
// Writes value + index into every element: the smallest kernel the gpu
// crate's own tests dispatch (specialization constant and push constant).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ADD = 0;
layout(set = 0, binding = 0, std430) buffer Out { uint data[]; };
layout(push_constant) uniform Push { uint count; uint value; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) data[i] = value + i + ADD;
}
