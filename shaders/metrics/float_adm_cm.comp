#version 460
// Contrast masking of one float ADM level: per core sample, the DLM term
// (the restored part r masked by the CSF of the additive part a) and the
// AIM term (a masked by the CSF of r), max(|rf * x| - threshold, 0)^3 per
// orientation, stored for float_row_sums.comp to sum in libvmaf's order.
// The CSF of the 3x3 neighbourhood is recomputed from r and a here (it is
// two roundings per value). One invocation per core sample.
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

// level.rs `threshold` of the masker in planes masker..masker+2.
float threshold(uint masker, ivec3 rows, ivec3 cols) {
    precise float thr = 0.0;
    for (int k = 0; k < 3; k++) {
        precise float sum = 0.0;
        for (int ri = 0; ri < 3; ri++) {
            for (int ci = 0; ci < 3; ci++) {
                precise float dst = rf[k] * detail(masker + uint(k), cols[ci], rows[ri]);
                if (ri == 1 && ci == 1) {
                    precise double s = double(sum) + FADM_ONE_BY_15 * double(abs(dst));
                    sum = float(s);
                } else {
                    sum = sum + fadm_share(dst);
                }
            }
        }
        thr = thr + sum;
    }
    return thr;
}

void main() {
    ivec2 clt = fadm_corner(core_lt), crb = fadm_corner(core_rb);
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    int cols_n = crb.x - clt.x, rows_n = crb.y - clt.y;
    if (x >= cols_n || y >= rows_n) return;
    int j = clt.x + x, i = clt.y + y;
    ivec3 rows = fadm_neighbours(i, int(height));
    ivec3 cols = fadm_neighbours(j, int(width));
    // pass 0: num (src r in planes 2-4, masker a in 5-7); 1: aim.
    for (uint pass_ = 0u; pass_ < 2u; pass_++) {
        uint src = pass_ == 0u ? 2u : 5u;
        uint masker = pass_ == 0u ? 5u : 2u;
        float thr = bypass_cm != 0u ? 0.0 : threshold(masker, rows, cols);
        for (int k = 0; k < 3; k++) {
            precise float v = abs(detail(src + uint(k), j, i) * rf[k]) - thr;
            v = v < 0.0 ? 0.0 : v;
            precise float cube = v * v * v;
            uint field = pass_ * 3u + uint(k);
            vals[vals_base + (field * uint(rows_n) + uint(y)) * uint(cols_n) + uint(x)] = cube;
        }
    }
}
