#version 460
// float_ansnr's float sums in libvmaf's order: invocation i adds `count`
// vec2 values src[i * item_step + k * elem_step], k = 0, 1, ... in turn,
// into a float accumulator that starts at 0, and writes it to
// dst[dst_base + i]. Run once per row over ansnr_filter.comp's terms
// (item_step 1, elem_step height: a row's terms left to right), then once
// with a single invocation over the row totals (top to bottom), which is
// how libvmaf accumulates sig and noise. The last pass writes into the
// int64 result buffer: one vec2 fills one 64-bit word (sig in its low
// half, noise in its high half).
// CPU twin: metrics/src/features/float_ansnr/mod.rs (`ansnr_sums`);
// driver: metrics/src/features/float_ansnr/gpu.rs.
//
// Float additions round at every step, so no other order gives libvmaf's
// bits; `precise` keeps the compiler from reassociating them.

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer Src { vec2 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { vec2 dst[]; };

// Twin: `SumPush` in metrics/src/features/float_ansnr/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint sums;
    uint count;
    uint item_step;
    uint elem_step;
    uint dst_base;
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= sums) {
        return;
    }
    precise vec2 acc = vec2(0.0);
    uint at = i * item_step;
    for (uint k = 0u; k < count; k++) {
        acc += src[at];
        at += elem_step;
    }
    dst[dst_base + i] = acc;
}
