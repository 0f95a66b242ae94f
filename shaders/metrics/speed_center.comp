#version 460
// SpEED, pass 3 of 5: local mean removal on the decimated planes. Each sample
// minus its scale-4 Gaussian blur (the vertical pass, then the horizontal one
// over its results, libvmaf's one-bounce mirror at the edges), one sample per
// invocation, plane `gl_GlobalInvocationID.z`: into centered[] for passes 4
// and 5, and as float bits into the frame's result words (32-bit halves, low
// half first) for the host's solve.
// CPU twin: metrics/src/features/speed/mod.rs (`remove_local_mean`, through
// float_vif's `filter`); driver: metrics/src/features/speed/gpu.rs.
//
// Tap sums are ((0 + t0*s0) + t1*s1) + ... in float with each product
// rounded: `precise` keeps the driver from fusing them into FMAs.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer Decimated { float decimated[]; };
layout(set = 0, binding = 1, std430) readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Centered { float centered[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Results { uint results[]; };

// Twin: `CenterPush` in metrics/src/features/speed/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint taps_len;
    uint out_index;
};

int mirror(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

// The vertical pass at column x, row y of the plane starting at `base`.
float vertical_at(uint base, int x, int y, int radius) {
    precise float acc = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        uint row = uint(mirror(y - radius + int(k), int(height)));
        precise float product = taps[k] * decimated[base + row * width + uint(x)];
        acc = acc + product;
    }
    return acc;
}

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x >= width || y >= height) {
        return;
    }
    uint base = gl_GlobalInvocationID.z * width * height;
    int radius = int(taps_len / 2u);
    precise float blur = 0.0;
    for (uint k = 0u; k < taps_len; k++) {
        int col = mirror(int(x) - radius + int(k), int(width));
        precise float product = taps[k] * vertical_at(base, col, int(y), radius);
        blur = blur + product;
    }
    uint at = base + y * width + x;
    precise float c = decimated[at] - blur;
    centered[at] = c;
    results[out_index + at] = floatBitsToUint(c);
}
