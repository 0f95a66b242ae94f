#version 460
// float_motion, pass 2 of 5: the horizontal blur of both vertically blurred
// planes (gl_GlobalInvocationID.z 0: previous, 1: current), one output
// sample per invocation. CPU twin: `blur` in
// metrics/src/features/float_motion/mod.rs; driver: its gpu.rs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer Vertical { float vertical[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Blurred { float blurred[]; };

// Twin: `HorizontalPush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    float taps[5];
    uint taps_len;
};

// libvmaf's one-bounce mirror, as in float_motion_blur_v.comp.
int mirror(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) {
        return;
    }
    uint base = gl_GlobalInvocationID.z * width * height + y * width;
    int radius = int(taps_len / 2u);
    precise float acc = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        uint col = uint(mirror(int(x) - radius + int(k), int(width)));
        precise float product = taps[k] * vertical[base + col];
        acc = acc + product;
    }
    blurred[base + x] = acc;
}
