#version 460
// Contrast masking of one float ADM level: per core sample, the DLM term
// (the restored part r masked by the CSF of the additive part a) and the
// AIM term (a masked by the CSF of r), max(|rf * x| - threshold, 0)^3 per
// orientation, stored for float_row_sums.comp to sum in libvmaf's order.
// The CSF of the 3x3 neighbourhood is recomputed from r and a here (it is
// two roundings per value). One invocation per core sample. Each value's
// share (|rf * x| / 30) enters the thresholds of nine samples, so a
// workgroup first computes the shares of its 16 x 16 samples and their
// one-sample border once each, into shared memory.
// CPU twin: metrics/src/features/float_adm/level.rs (`csf`, `threshold`,
// `cm_rows`); driver: float_adm/gpu.rs.

#include "float_adm_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer Level { float level[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Vals { float vals[]; };

// Twin: `CmPush` in metrics/src/features/float_adm/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint core_lt;
    uint core_rb;
    float rf[3];
    uint bypass_cm;
    uint vals_base;
};

float detail(uint plane, int x, int y) {
    return level[plane * width * height + uint(y) * width + uint(x)];
}

// The shares of planes 2-7 (p - 2) at the workgroup's samples and their
// border: window row r, column c (level row i0 - 1 + r, column j0 - 1 + c,
// taken as level.rs `neighbours` takes them) at
// s_share[((p - 2) * WIN + r) * WIN + c].
#define WIN 18u
shared float s_share[6u * WIN * WIN];

// level.rs `neighbours` for the window: -1 is 1, n is n - 1; indices past
// n (samples beyond the core, never read) are clamped into the level.
int window_index(int v, int n) {
    return v < 0 ? 1 : min(v, n - 1);
}

// level.rs `threshold` of the masker in planes masker..masker+2 at level
// sample (j, i), window position (lx + 1, ly + 1).
float threshold(uint masker, int j, int i, uint lx, uint ly) {
    precise float thr = 0.0;
    for (uint k = 0u; k < 3u; k++) {
        precise float sum = 0.0;
        uint at = ((masker - 2u + k) * WIN + ly) * WIN + lx;
        for (uint ri = 0u; ri < 3u; ri++) {
            for (uint ci = 0u; ci < 3u; ci++) {
                if (ri == 1u && ci == 1u) {
                    precise float dst = rf[k] * detail(masker + k, j, i);
                    precise double s = double(sum) + FADM_ONE_BY_15 * double(abs(dst));
                    sum = float(s);
                } else {
                    sum = sum + s_share[at + ri * WIN + ci];
                }
            }
        }
        thr = thr + sum;
    }
    return thr;
}

void main() {
    ivec2 clt = fadm_corner(core_lt), crb = fadm_corner(core_rb);
    int cols_n = crb.x - clt.x, rows_n = crb.y - clt.y;
    // bypass_cm is uniform, so every invocation skips the barrier or none.
    if (bypass_cm == 0u) {
        int i0 = clt.y + int(gl_WorkGroupID.y * 16u), j0 = clt.x + int(gl_WorkGroupID.x * 16u);
        for (uint e = gl_LocalInvocationIndex; e < 6u * WIN * WIN; e += 256u) {
            uint p = e / (WIN * WIN);
            int r = int(e / WIN % WIN), c = int(e % WIN);
            int row = window_index(i0 - 1 + r, int(height));
            int col = window_index(j0 - 1 + c, int(width));
            uint k = p % 3u;
            precise float dst = rf[k] * detail(2u + p, col, row);
            s_share[e] = fadm_share(dst);
        }
        barrier();
    }
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= cols_n || y >= rows_n) return;
    int j = clt.x + x, i = clt.y + y;
    uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    // pass 0: num (src r in planes 2-4, masker a in 5-7); 1: aim.
    for (uint pass_ = 0u; pass_ < 2u; pass_++) {
        uint src = pass_ == 0u ? 2u : 5u;
        uint masker = pass_ == 0u ? 5u : 2u;
        float thr = bypass_cm != 0u ? 0.0 : threshold(masker, j, i, lx, ly);
        for (int k = 0; k < 3; k++) {
            precise float v = abs(detail(src + uint(k), j, i) * rf[k]) - thr;
            v = v < 0.0 ? 0.0 : v;
            precise float cube = v * v * v;
            uint field = pass_ * 3u + uint(k);
            vals[vals_base + (field * uint(rows_n) + uint(y)) * uint(cols_n) + uint(x)] = cube;
        }
    }
}
