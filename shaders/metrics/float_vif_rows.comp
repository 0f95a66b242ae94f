#version 460
// float_vif, one scale: libvmaf's float sum of each row of per-pixel values,
// from 0 in column order, one invocation per row (a float sum in any other
// order rounds differently). Workgroup z picks num (0) or den (1).
// CPU twin: metrics/src/features/float_vif/mod.rs `sum_rows`;
// driver: metrics/src/features/float_vif/gpu.rs.
layout(local_size_x = 64) in;

// The scale's per-pixel values (num at 0, den at den_at) and its row
// totals (num at 0, den at height), each bound to its own range.
layout(set = 0, binding = 0, std430) readonly buffer Pixels { float pixels[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Rows { float rows[]; };

// Twin: `RowsPush` in metrics/src/features/float_vif/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint den_at;
};

void main() {
    uint y = gl_GlobalInvocationID.x;
    uint which = gl_WorkGroupID.z;
    if (y >= height) {
        return;
    }
    uint at = (which == 0u ? 0u : den_at) + y * width;
    float acc = 0.0;
    for (uint x = 0u; x < width; x++) {
        acc += pixels[at + x];
    }
    rows[which * height + y] = acc;
}
