#version 460
// psnr_hvs, step 2 of 2: adds `block_count` blocks' terms from
// psnr_hvs_block.comp (64 floats each, from float `term_base`, a multiple
// of 64) one by one, in libvmaf's order (blocks in raster order, a block's
// 64 terms in raster order), to one plane's running float sum, kept as
// float bits in results[out_word]: started from 0 when `first` is set, else
// continued from the value an earlier dispatch left there. The host divides
// the final sum by the coefficient count and the squared peak, as the twin
// does.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`plane_sum`); driver:
// metrics/src/features/psnr_hvs/gpu.rs.
//
// libvmaf accumulates every term of a plane in ONE float, so each addition
// rounds to float; any other order (a tree, per-row partials, doubles)
// rounds differently and drifts well beyond what the dB values tolerate.
// This is therefore a single invocation walking the terms in order: exact,
// but serial. The driver splits a plane into dispatches of at most 32768
// blocks, one loop iteration per block with its 64 additions written out:
// lavapipe (llvmpipe) stops a shader's loops after 65535 iterations in all,
// nested loops included, which would silently drop the rest of a plane.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { vec4 terms4[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };

// Twin: `SumPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint block_count;
    uint first;
    uint out_word;
};

#define ADD4(j) v = terms4[at + (j)]; sum += v.x; sum += v.y; sum += v.z; sum += v.w;

void main() {
    precise float sum = first != 0u ? 0.0 : uintBitsToFloat(uint(results[out_word]));
    for (uint b = 0u; b < block_count; b++) {
        uint at = term_base / 4u + b * 16u;
        vec4 v;
        ADD4(0) ADD4(1) ADD4(2) ADD4(3) ADD4(4) ADD4(5) ADD4(6) ADD4(7)
        ADD4(8) ADD4(9) ADD4(10) ADD4(11) ADD4(12) ADD4(13) ADD4(14) ADD4(15)
    }
    results[out_word] = int64_t(floatBitsToUint(sum));
}
