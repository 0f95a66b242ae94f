#version 460
// SpEED, pass 2 of 5: the horizontal pass of the anti-aliasing filter at
// the columns the decimation by 16 keeps (16·ox), over pass 1's rows: one
// decimated sample per invocation, into decimated[out_base + oy * out_w + ox].
// CPU twin: metrics/src/features/speed/mod.rs (`decimate`); driver:
// metrics/src/features/speed/gpu.rs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer Vertical { float vertical[]; };
layout(set = 0, binding = 1, std430) readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Decimated { float decimated[]; };

// Twin: `HorizontalPush` in metrics/src/features/speed/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint width;
    uint out_w;
    uint out_h;
    uint taps_len;
    uint in_base;
    uint out_base;
};

int mirror(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

void main() {
    uint ox = gl_GlobalInvocationID.x;
    uint oy = gl_GlobalInvocationID.y;
    if (ox >= out_w || oy >= out_h) {
        return;
    }
    int radius = int(taps_len / 2u);
    int x = int(16u * ox);
    precise float acc = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        uint col = uint(mirror(x - radius + int(k), int(width)));
        precise float product = taps[k] * vertical[in_base + oy * width + col];
        acc = acc + product;
    }
    decimated[out_base + oy * out_w + ox] = acc;
}
