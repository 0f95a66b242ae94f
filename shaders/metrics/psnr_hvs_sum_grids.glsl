// psnr_hvs's exact float sum: the candidate grids a run of terms is
// precomputed on (psnr_hvs_sum_window.comp, psnr_hvs_sum_first.comp). Needs
// psnr_hvs_sum.glsl's LOWEST and HIGHEST.

// The grid of a sum near x (x >= 0; an infinity or NaN gives the highest).
int grid_near(double x) {
    uint field = (floatBitsToUint(float(x)) >> 23) & 0xffu;
    return clamp(int(field) - 150, LOWEST, HIGHEST);
}

// Candidate grids of a run of terms whose sum is estimated to go from
// `start` to `end`: the start's grid, and the next one up where the run
// should cross into it or the start lies just below a power of two, down
// where it lies just above one; else the start's grid twice (after n terms
// a float sum is within a factor (1 +- 2^-24)^n of the exact one, in
// practice far closer).
ivec2 candidates(double start, double end) {
    int e0 = grid_near(start);
    uint fraction = floatBitsToUint(float(start)) & 0x7fffffu;
    if ((grid_near(end) > e0 || fraction >= 0x7e0000u) && e0 < HIGHEST) {
        return ivec2(e0, e0 + 1);
    }
    if (fraction < 0x20000u && e0 > LOWEST) {
        return ivec2(e0, e0 - 1);
    }
    return ivec2(e0);
}
