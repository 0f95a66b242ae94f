#version 460
// psnr_hvs, step 1 of 2: one invocation per 8x8 block of a range of one
// plane's blocks (block corners 7 samples apart), writing the 64 values that
// block adds to the plane's float sum, in libvmaf's order, at
// terms[(block - block_begin) * 64 + k] (blocks in raster order; the driver
// binds the terms of the range alone, so that other work may read the
// plane's other terms meanwhile; the workgroup stores its 64 blocks' terms
// together, from shared memory). psnr_hvs_sum.comp adds them up.
// CPU twin: metrics/src/features/psnr_hvs/mod.rs (`block_terms`); driver:
// metrics/src/features/psnr_hvs/gpu.rs.
//
// Bit-exactness with the twin: the DCT is 32-bit integer arithmetic (GLSL
// `int` wraps and shifts arithmetically, as libvmaf's `int` does on x86).
// Every float expression is `precise` so that no multiply fuses into an
// add; the variance ratio's float divide goes through double and rounds to
// float (the double quotient of two floats rounds to the correctly rounded
// float quotient), the 63 masking floors a block are double products with
// the mask's reciprocals, which round to the same floats (`masking_floor`);
// the masking strength's square root is taken in double, as libvmaf's
// `sqrt` is. Divisions by 64, 16 and 32 are multiplications by the exact
// reciprocal, which give the same bits.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
// Per plane p, from p * TABLE_WORDS: csf at [k], mask at [64 + k]
// (float bits), 1/mask as doubles at [128 + 2k] (low word) and [129 + 2k].
// Read as words: the doubles' halves are no floats.
layout(set = 0, binding = 2, std430) readonly buffer Tables { uint tables[]; };
// The terms as float bits (moved, never converted).
layout(set = 0, binding = 3, std430) writeonly buffer Terms { uint terms[]; };
// The sum's quarter-window totals (psnr_hvs_sum_total.comp writes them for
// other sums): four a window, the plane's from window_base * 4 on.
layout(set = 0, binding = 4, std430) writeonly buffer Quarters { double quarter_totals[]; };

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"

// Twin: `BlockPush` in metrics/src/features/psnr_hvs/gpu.rs; the two must
// agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc ref_plane;
    PlaneDesc dis_plane;
    uint blocks_x;
    uint blocks_y;
    uint table;       // plane index: 0 Y, 1 Cb, 2 Cr
    float block_var_scale;     // libvmaf's float constant (1/63)·64
    float quadrant_var_scale;  // (1/15)·16
    uint block_begin;          // the blocks of this dispatch, raster order
    uint block_end;            // (block_begin a multiple of 64)
    uint window_base;          // the plane's first window in the sum's buffers
};

const uint BLOCK = 8u;
const uint STEP = 7u;
// Twin: `TABLE_WORDS` in metrics/src/features/psnr_hvs/gpu.rs.
const uint TABLE_WORDS = 256u;

float csf_weight(uint k) {
    return uintBitsToFloat(tables[table * TABLE_WORDS + k]);
}

float mask_weight(uint k) {
    return uintBitsToFloat(tables[table * TABLE_WORDS + 64u + k]);
}

// masking / mask[k], correctly rounded, without a division: the double
// product with the reciprocal rounds to the float quotient for every float
// `masking` (the proof is on `Tables::mask_reciprocals`).
float masking_floor(float masking, uint k) {
    uint at = table * TABLE_WORDS + 128u + 2u * k;
    double reciprocal = packDouble2x32(uvec2(tables[at], tables[at + 1u]));
    precise double floor_k = double(masking) * reciprocal;
    return float(floor_k);
}

// Halving that rounds toward zero: the sign bit added before the shift.
int half_tz(int a) {
    return (int(uint(a) >> 31) + a) >> 1;
}

// (a·m + r) >> s in wrapping 32-bit integers.
int lift(int a, int m, int r, int s) {
    return (a * m + r) >> s;
}

// Daala's 8-point integer forward DCT, in place (inputs in natural order).
void fdct8(inout int v[8]) {
    int t0 = v[0];
    int t4 = v[1];
    int t2 = v[2];
    int t6 = v[3];
    int t7 = v[4];
    int t3 = v[5];
    int t5 = v[6];
    int t1 = v[7];
    t1 = t0 - t1;
    int t1h = half_tz(t1);
    t0 -= t1h;
    t4 += t5;
    int t4h = half_tz(t4);
    t5 -= t4h;
    t3 = t2 - t3;
    t2 -= half_tz(t3);
    t6 += t7;
    int t6h = half_tz(t6);
    t7 = t6h - t7;
    t0 += t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    t0 -= lift(t4, 13573, 16384, 15);
    t4 += lift(t0, 11585, 8192, 14);
    t0 -= lift(t4, 13573, 16384, 15);
    t6 -= lift(t2, 21895, 16384, 15);
    t2 += lift(t6, 15137, 8192, 14);
    t6 -= lift(t2, 21895, 16384, 15);
    t3 += lift(t5, 19195, 16384, 15);
    t5 += lift(t3, 11585, 8192, 14);
    t3 -= lift(t5, 7489, 4096, 13);
    t7 = half_tz(t5) - t7;
    t5 -= t7;
    t3 = t1h - t3;
    t1 -= t3;
    t7 += lift(t1, 3227, 16384, 15);
    t1 -= lift(t7, 6393, 16384, 15);
    t7 += lift(t1, 3227, 16384, 15);
    t5 += lift(t3, 2485, 4096, 13);
    t3 -= lift(t5, 18205, 16384, 15);
    t5 += lift(t3, 2485, 4096, 13);
    v = int[8](t0, t1, t2, t3, t4, t5, t6, t7);
}

// The 8-point DCT of each column becomes a row of the output. Unrolled, so
// that every index is a constant and the block stays in registers.
void columns_to_rows(inout int b[64]) {
    int out_b[64];
    [[unroll]] for (uint c = 0u; c < BLOCK; c++) {
        int v[8];
        [[unroll]] for (uint r = 0u; r < BLOCK; r++) {
            v[r] = b[r * BLOCK + c];
        }
        fdct8(v);
        [[unroll]] for (uint r = 0u; r < BLOCK; r++) {
            out_b[c * BLOCK + r] = v[r];
        }
    }
    b = out_b;
}

uint quadrant(uint k) {
    return uint(k / BLOCK >= 4u) + 2u * uint(k % BLOCK >= 4u);
}

float divide(float a, float b) {
    return float(double(a) / double(b));
}

// Variance ratio and masking strength of one block; replaces its samples
// by their DCT coefficients. Every loop is unrolled (constant indices: no
// local memory) by the driver: build.rs compiles this shader without
// spirv-opt, whose unrolled copies would lose `precise`.
//
// The means: libvmaf adds the samples to a float in raster order, but the
// samples are integers below 2^12, so every partial sum is an integer below
// 64 * 2^12 < 2^24 and exact in float: the integer sum, converted, is the
// same float in any order.
float analyse(inout int b[64]) {
    int total = 0;
    ivec4 totals = ivec4(0);
    [[unroll]] for (uint k = 0u; k < 64u; k++) {
        total += b[k];
        totals[quadrant(k)] += b[k];
    }
    float mean = float(total) * 0.015625;
    vec4 means = vec4(totals) * 0.0625;
    precise float var = 0.0;
    precise float vars[4] = float[4](0.0, 0.0, 0.0, 0.0);
    [[unroll]] for (uint k = 0u; k < 64u; k++) {
        precise float d = float(b[k]) - mean;
        var += d * d;
        uint q = quadrant(k);
        precise float dq = float(b[k]) - means[q];
        vars[q] += dq * dq;
    }
    var *= block_var_scale;
    [[unroll]] for (uint q = 0u; q < 4u; q++) {
        vars[q] *= quadrant_var_scale;
    }
    if (var > 0.0) {
        precise float sum = vars[0] + vars[1] + vars[2] + vars[3];
        var = divide(sum, var);
    }
    columns_to_rows(b);
    columns_to_rows(b);
    precise float energy = 0.0;
    [[unroll]] for (uint k = 1u; k < 64u; k++) {
        energy += float(b[k] * b[k]) * mask_weight(k);
    }
    precise float product = energy * var;
    return float(sqrt(double(product)) * 0.03125lf);
}

// The workgroup's terms (float bits), staged so that the stores to `terms`
// are contiguous across invocations (an invocation's own 64 terms are 256
// bytes apart from its neighbour's): block i's term k at i * 65 + k (the
// odd stride keeps the banks apart both ways).
const uint STAGE = 65u;
shared uint staged[64u * STAGE];
// Each block's terms' total, in double.
shared double block_totals[64];

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint group_first = block_begin + gl_WorkGroupID.x * 64u;
    uint block = group_first + lane;
    double total = 0.0lf;
    if (block < block_end) {
        uint x0 = (block % blocks_x) * STEP;
        uint y0 = (block / blocks_x) * STEP;
        // The reference's coefficients wait in this invocation's stage
        // slots while the distorted block is analysed (64 registers
        // fewer), and give way to the terms one by one.
        int r[64];
        [[unroll]] for (uint k = 0u; k < 64u; k++) {
            r[k] = int(plane_load(ref_plane, x0 + k % BLOCK, y0 + k / BLOCK));
        }
        float masking = analyse(r);
        [[unroll]] for (uint k = 0u; k < 64u; k++) {
            staged[lane * STAGE + k] = uint(r[k]);
        }
        int d[64];
        [[unroll]] for (uint k = 0u; k < 64u; k++) {
            d[k] = int(plane_load_b(dis_plane, x0 + k % BLOCK, y0 + k / BLOCK));
        }
        float d_masking = analyse(d);
        if (d_masking > masking) {
            masking = d_masking;
        }
        [[unroll]] for (uint k = 0u; k < 64u; k++) {
            int r_k = int(staged[lane * STAGE + k]);
            precise float err = float(abs(r_k - d[k]));
            if (k != 0u) {
                float floor_k = masking_floor(masking, k);
                err = err < floor_k ? 0.0 : err - floor_k;
            }
            precise float weighted = err * csf_weight(k);
            precise float term = weighted * weighted;
            staged[lane * STAGE + k] = floatBitsToUint(term);
            total += double(term);
        }
    }
    block_totals[lane] = total;
    barrier();
    // Block group_first + i's term k goes to (group_first + i - block_begin)
    // * 64 + k: this invocation stores word lane of each block in turn.
    uint blocks_here = min(64u, block_end - group_first);
    uint out_base = (group_first - block_begin) * 64u;
    for (uint i = 0u; i < blocks_here; i++) {
        terms[out_base + i * 64u + lane] = staged[i * STAGE + lane];
    }
    // The workgroup's 64 blocks are a quarter of a window of the sum's
    // terms (QUARTER terms from quarter * QUARTER): its total (only an
    // estimate for the sum's passes, so any order will do) saves them a
    // pass over the terms.
    if (lane == 0u) {
        double quarter_total = 0.0lf;
        for (uint i = 0u; i < 64u; i++) {
            quarter_total += block_totals[i];
        }
        uint quarter = group_first / 64u;
        quarter_totals[window_base * 4u + quarter] = quarter_total;
    }
}
