// Shared pieces of the float ADM kernels (float_adm_dwt.comp,
// float_adm_cm.comp). CPU twin: metrics/src/features/float_adm/ (dwt.rs,
// level.rs, rcp.rs); every float expression here is the twin's, in its
// order, `precise` so that no driver fuses or reorders it.
//
// Level buffers (float words, planes of the band size `w * h`, row-major):
//   plane 0, 1: the a band of the reference, of the distorted image (the
//               next level's input);
//   planes 2-4: the restored part r of h, v, d;
//   planes 5-7: the additive part a of h, v, d (2-7 over the widened
//               region only).
// Per-sample values (one float buffer for all levels, at `vals_base`):
//   field f of core row y, column x at vals_base + (f * rows + y) * cols + x;
//   fields num h/v/d, aim h/v/d, den h/v/d (each |.|^3 of libvmaf's sums).

const uint FADM_FIELDS = 9u;

// libvmaf's DWT mirror (adm/dwt.rs `mirror`): -1 -> 1, n -> n - 1.
int fadm_mirror(int idx, int n) {
    return idx < 0 ? -idx : (idx >= n ? 2 * n - idx - 1 : idx);
}

// The db2 analysis taps, libvmaf's double literals rounded to float
// (dwt.rs LO / HI).
const float FADM_LO[4] = float[4](0.482962913144690, 0.836516303737469, 0.224143868041857,
                                  -0.129409522550921);
const float FADM_HI[4] = float[4](-0.129409522550921, -0.224143868041857, 0.836516303737469,
                                  -0.482962913144690);

// dwt.rs `filter`: ((((0 + c0 s0) + c1 s1) + c2 s2) + c3 s3) in float.
float fadm_filter(bool high, vec4 s) {
    precise float acc = 0.0;
    for (int k = 0; k < 4; k++) {
        precise float c = high ? FADM_HI[k] : FADM_LO[k];
        acc = acc + c * s[k];
    }
    return acc;
}

// libvmaf's 1/30 and 1/15 are double literals (level.rs ONE_BY_30/15).
const double FADM_ONE_BY_30 = 0.0333333351LF;
const double FADM_ONE_BY_15 = 0.0666666701LF;

// level.rs `csf`'s masking share of a weighted value: |dst|/30 in double,
// rounded to float.
float fadm_share(float dst) {
    precise double p = FADM_ONE_BY_30 * double(abs(dst));
    return float(p);
}

// level.rs `neighbours`: the row or column before and after i in 0..n.
ivec3 fadm_neighbours(int i, int n) {
    return ivec3(i == 0 ? 1 : i - 1, i, i + 1 == n ? n - 1 : i + 1);
}

// Unpacks a region corner packed as x | y << 16.
ivec2 fadm_corner(uint packed) {
    return ivec2(int(packed & 0xFFFFu), int(packed >> 16));
}
