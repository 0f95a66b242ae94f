#version 460
// psnr_hvs, step 2 of 2: one plane's float sum of psnr_hvs_block.comp's
// terms, added one by one in libvmaf's order (blocks in raster order, the
// 64 terms of a block in raster order), leaving the sum's float bits in
// results[out_word]. The host divides by the coefficient count and the
// squared peak as the twin does.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`plane_sum`); driver:
// metrics/src/features/psnr_hvs/gpu.rs.
//
// libvmaf accumulates every term of a plane in ONE float, so each addition
// rounds to float; any other order (a tree, per-row partials, doubles)
// rounds differently and drifts well beyond what the dB values tolerate.
// This is therefore a single invocation walking the terms in order: exact,
// but serial (see gpu.rs for what it costs).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Terms { float terms[]; };
layout(set = 0, binding = 1, std430) buffer Results { int64_t results[]; };

// Twin: `SumPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    uint term_base;
    uint term_count;
    uint out_word;
};

void main() {
    precise float sum = 0.0;
    for (uint k = 0u; k < term_count; k++) {
        sum += terms[term_base + k];
    }
    results[out_word] = int64_t(floatBitsToUint(sum));
}
