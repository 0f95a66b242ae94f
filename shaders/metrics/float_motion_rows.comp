#version 460
// float_motion, pass 4 of 5: one invocation per row adds |prev - cur| along
// the row in float, in column order, exactly as libvmaf's running row sum
// (a float sum in any other order rounds differently). CPU twin:
// `abs_diff_sum` in metrics/src/features/float_motion/mod.rs; driver: its
// gpu.rs.

layout(local_size_x = 64) in;

// The previous plane at [0, w*h), the current one at [w*h, 2*w*h).
layout(set = 0, binding = 0, std430) readonly buffer Planes { float planes[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Rows { float rows[]; };

// Twin: `RowsPush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint out_offset;
};

void main() {
    uint y = gl_GlobalInvocationID.x;
    if (y >= height) {
        return;
    }
    uint a = y * width;
    uint b = width * height + a;
    precise float line = 0.0;
    for (uint x = 0u; x < width; x++) {
        line = line + abs(planes[a + x] - planes[b + x]);
    }
    rows[out_offset + y] = line;
}
