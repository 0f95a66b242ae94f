#version 460
// Integer motion, pass 1 of 2: the blurred frame difference of libvmaf 3.2's
// integer_motion, one TILE_W x TILE_H tile of outputs per workgroup.
// CPU twin: metrics/src/motion.rs (`vertical_row`, `horizontal_row_sad`);
// driver: metrics/src/motion_gpu.rs.
//
// 1. d = prev - cur over the tile plus a 2-sample apron on every side,
//    mirrored into the plane (-k -> k, size-1+k -> size-1-k), into shared.
// 2. Vertical 5-tap pass over the tile's rows and all apron columns:
//    (sum + 2^(bpc-1)) >> bpc, into shared. Filtering mirrored columns is the
//    same as mirroring the filtered row, so the horizontal pass needs no
//    further index games.
// 3. Horizontal 5-tap pass, (sum + 32768) >> 16, and |val| summed per row.
//
// libvmaf sums |val| of a row in a uint32 that wraps, then adds rows into a
// uint64. This pass writes each row's segment sum (a uint) per tile; the
// second pass (motion_rows.comp) adds a row's segments in uint, where the
// wrap happens exactly as in libvmaf since addition mod 2^32 is
// order-independent, and only then widens to 64 bits.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define TILE_W 64
#define TILE_H 16
#define IN_W (TILE_W + 4)
#define IN_H (TILE_H + 4)
#define THREADS 256

layout(local_size_x = THREADS) in;

layout(set = 0, binding = 0, std430) readonly buffer PrevWords { uint prev_words[]; };
layout(set = 0, binding = 1, std430) readonly buffer CurWords { uint cur_words[]; };
// segments[tile_x * height + y]: |val| of row y summed over tile column tile_x.
layout(set = 0, binding = 2, std430) writeonly buffer Segments { uint segments[]; };

#define PLANE_WORDS_A prev_words
#define PLANE_WORDS_B cur_words
#include "plane_pair.glsl"

// Twin: `MotionPush` in metrics/src/motion_gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    PlaneDesc prev;
    PlaneDesc cur;
};

// libvmaf's motion filter; the taps sum to 2^16.
const int FILTER[5] = int[5](3571, 16004, 26386, 16004, 3571);

shared int s_diff[IN_H * IN_W];
shared int s_vert[TILE_H * IN_W];
shared uint s_row[TILE_H];

// libvmaf 3.2's one-bounce mirror; needs size >= 3 and -2 <= i <= size + 1.
int mirror(int i, int size) {
    return i < 0 ? -i : (i >= size ? 2 * size - i - 2 : i);
}

void load_differences(int x0, int y0, int w, int h) {
    for (uint i = gl_LocalInvocationIndex; i < IN_H * IN_W; i += THREADS) {
        int x = x0 - 2 + int(i % IN_W);
        int y = y0 - 2 + int(i / IN_W);
        int d = 0;
        // Samples past the far apron only feed outputs outside the plane.
        if (x <= w + 1 && y <= h + 1) {
            uint mx = uint(mirror(x, w));
            uint my = uint(mirror(y, h));
            d = int(plane_load(prev, mx, my)) - int(plane_load_b(cur, mx, my));
        }
        s_diff[i] = d;
    }
}

// The vertical sum fits int32 up to 14 bits (|sum| <= 2^16 * (2^14 - 1));
// libvmaf itself uses int32 at 8 bits and int64 above. Same integers.
void vertical_pass(uint bpc) {
    for (uint i = gl_LocalInvocationIndex; i < TILE_H * IN_W; i += THREADS) {
        uint r = i / IN_W;
        uint c = i % IN_W;
        int v;
        if (bpc <= 14u) {
            int acc = 0;
            for (uint k = 0u; k < 5u; k++) {
                acc += FILTER[k] * s_diff[(r + k) * IN_W + c];
            }
            v = (acc + (1 << (bpc - 1u))) >> bpc;
        } else {
            int64_t acc = 0;
            for (uint k = 0u; k < 5u; k++) {
                acc += int64_t(FILTER[k]) * int64_t(s_diff[(r + k) * IN_W + c]);
            }
            v = int((acc + (int64_t(1) << (bpc - 1u))) >> bpc);
        }
        s_vert[i] = v;
    }
}

// Vertical outputs are below 2^16 in magnitude, so the horizontal sum
// reaches 2^32: int64.
int horizontal_at(uint r, uint c) {
    int64_t acc = 0;
    for (uint k = 0u; k < 5u; k++) {
        acc += int64_t(FILTER[k]) * int64_t(s_vert[r * IN_W + c + k]);
    }
    return int((acc + 32768) >> 16);
}

void main() {
    int w = int(prev.width);
    int h = int(prev.height);
    int x0 = int(gl_WorkGroupID.x) * TILE_W;
    int y0 = int(gl_WorkGroupID.y) * TILE_H;
    uint lid = gl_LocalInvocationIndex;
    if (lid < TILE_H) {
        s_row[lid] = 0u;
    }
    load_differences(x0, y0, w, h);
    barrier();
    vertical_pass(prev.bpc);
    barrier();

    // 16 threads per row, each taking every 16th column of it.
    uint r = lid / 16u;
    uint sum = 0u;
    if (y0 + int(r) < h) {
        for (uint c = lid % 16u; c < TILE_W; c += 16u) {
            if (x0 + int(c) < w) {
                sum += uint(abs(horizontal_at(r, c)));
            }
        }
    }
    atomicAdd(s_row[r], sum);
    barrier();
    if (lid < TILE_H && y0 + int(lid) < h) {
        segments[gl_WorkGroupID.x * uint(h) + uint(y0) + lid] = s_row[lid];
    }
}
