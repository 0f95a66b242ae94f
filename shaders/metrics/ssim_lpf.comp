#version 460
// float_ms_ssim's step to the next coarser scale: libvmaf's 9x9 low-pass
// table g_lpf around every second sample, symmetric border, output size
// n/2 + (n&1). Twin: ms_ssim.rs `downscale` (= ssim.rs `decimate` with
// `lpf_kernel()`, factor 2, length 9). Both planes in one dispatch
// (gl_WorkGroupID.z); each workgroup stages the 39x39 input window of its
// 16x16 outputs in shared memory, so each input sample is read from memory
// about once instead of 81 / 4 times.
layout(local_size_x = 16, local_size_y = 16) in;

#include "ssim_common.glsl"

// This scale's planes and the next scale's, bound as separate ranges of one
// buffer. FROM_FRAME (a second build of this file, for scale 0 -> 1): the
// source samples are the frame's, converted as ssim_decimate.comp converts
// them at factor 1 (float(sample) * 2^-(bpc-8), exact), instead of float
// planes.
#ifdef FROM_FRAME
layout(set = 0, binding = 0, std430) readonly buffer RefWords { uint ref_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer DisWords { uint dis_words[]; };
#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dis_words
#include "plane_pair.glsl"
#define DST_BINDING 2
#else
layout(set = 0, binding = 0, std430) readonly buffer Src { float src_planes[]; };
#define DST_BINDING 1
#endif
layout(set = 0, binding = DST_BINDING, std430) writeonly buffer Dst { float dst_planes[]; };

// Twin: float_ms_ssim/gpu.rs `LpfPush` (32 bytes), and with FROM_FRAME
// `FrameLpfPush` (100 bytes); the two must agree.
layout(push_constant) uniform Push {
    uint src_width;
    uint src_height;
    uint dst_width;
    uint dst_height;
    uint src_offset[2]; // reference, distorted; in floats into src_planes
    uint dst_offset[2]; // in floats into dst_planes
#ifdef FROM_FRAME
    PlaneDesc ref_plane; // src_width x src_height samples
    PlaneDesc dis_plane;
    float sample_scale;  // 2^-(bpc-8)
#endif
};

const uint T = 16u;
const int LEN = 9;
const uint SPAN = 2u * T + uint(LEN) - 2u; // 39 input samples per tile side

// One quadrant of g_lpf (rows and columns 0-4); the table is symmetric about
// its centre row and column. Twin: ms_ssim.rs LPF_QUADRANT.
const float LPF_QUADRANT[25] = float[](
     0.000714, -0.000450, -0.002090,  0.007132,  0.016114,
    -0.000450,  0.000283,  0.001316, -0.004490, -0.010146,
    -0.002090,  0.001316,  0.006115, -0.020867, -0.047149,
     0.007132, -0.004490, -0.020867,  0.071207,  0.160885,
     0.016114, -0.010146, -0.047149,  0.160885,  0.363505);

shared float s_tile[SPAN * SPAN];

float lpf(int v, int u) {
    int fv = min(v, LEN - 1 - v);
    int fu = min(u, LEN - 1 - u);
    return LPF_QUADRANT[fv * 5 + fu];
}

void main() {
    uint z = gl_WorkGroupID.z;
    int w = int(src_width);
    int h = int(src_height);
    // Top-left input sample of the tile: output (x0, y0) is centred on
    // (2*x0, 2*y0) and its window starts 4 samples before.
    int bx = int(gl_WorkGroupID.x * T) * 2 - LEN / 2;
    int by = int(gl_WorkGroupID.y * T) * 2 - LEN / 2;
    for (uint i = gl_LocalInvocationIndex; i < SPAN * SPAN; i += T * T) {
        uint r = i / SPAN;
        uint c = i - r * SPAN;
        // Clamped as well as mirrored: edge tiles reach past where any valid
        // output reads, and those samples must still be in bounds.
        int sx = clamp(ssim_mirror(bx + int(c), w), 0, w - 1);
        int sy = clamp(ssim_mirror(by + int(r), h), 0, h - 1);
#ifdef FROM_FRAME
        uint value = z == 0u ? plane_load(ref_plane, uint(sx), uint(sy))
                              : plane_load_b(dis_plane, uint(sx), uint(sy));
        s_tile[i] = float(value) * sample_scale;
#else
        s_tile[i] = src_planes[src_offset[z] + uint(sy) * src_width + uint(sx)];
#endif
    }
    barrier();

    uint ox = gl_GlobalInvocationID.x;
    uint oy = gl_GlobalInvocationID.y;
    if (ox >= dst_width || oy >= dst_height) {
        return;
    }
    uint base = 2u * gl_LocalInvocationID.y * SPAN + 2u * gl_LocalInvocationID.x;
    // Products rounded to float, summed in double (scaled, see `widened`),
    // rows outer.
    precise double sum = 0.0;
    for (int v = 0; v < LEN; v++) {
        for (int u = 0; u < LEN; u++) {
            precise float product = s_tile[base + uint(v) * SPAN + uint(u)] * lpf(v, u);
            sum += widened(product);
        }
    }
    dst_planes[dst_offset[z] + oy * dst_width + ox] = narrowed(sum);
}
