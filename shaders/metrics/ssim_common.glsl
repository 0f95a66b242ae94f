// Shared by the float_ssim / float_ms_ssim shaders (twin: metrics/src/ssim.rs).

// IQA's KBND_SYMMETRIC border: one reflection with the edge sample repeated
// (-1 -> 0, n -> n-1), as ssim.rs `mirror`. Callers whose tiles reach past
// where any valid output reads clamp the result as well.
int ssim_mirror(int i, int n) {
    if (i < 0) {
        return -1 - i;
    }
    if (i >= n) {
        return 2 * n - i - 1;
    }
    return i;
}
