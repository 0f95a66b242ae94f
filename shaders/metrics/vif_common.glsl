// What both VIF kernels (vif_scale.glsl, vif_decimate.glsl) share: the four
// scales' filters, libvmaf's border mirror, and sample loads from the
// reference and distorted planes (two storage buffers, since the two frames
// need not share one).
//
// Twin: metrics/src/vif/filter.rs (FILTERS, mirror). Requires before
// inclusion: `uint ref_words[]` and `uint dist_words[]` buffers and the
// compile-time constant FILTER_INDEX (0..3).

#define PLANE_WORDS_A ref_words
#define PLANE_WORDS_B dist_words
#include "plane_pair.glsl"

// The taps of FILTERS[FILTER_INDEX], zero-padded to 17 (widths 17, 9, 5, 3;
// each sums to 65536).
const uint VIF_FILTERS[4][17] = uint[4][17](
    uint[17](489u, 935u, 1640u, 2640u, 3896u, 5274u, 6547u, 7455u, 7784u, 7455u, 6547u, 5274u,
             3896u, 2640u, 1640u, 935u, 489u),
    uint[17](1244u, 3663u, 7925u, 12590u, 14692u, 12590u, 7925u, 3663u, 1244u, 0u, 0u, 0u, 0u,
             0u, 0u, 0u, 0u),
    uint[17](3571u, 16004u, 26386u, 16004u, 3571u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u,
             0u),
    uint[17](10904u, 43728u, 10904u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u));

// Half-width of the filter: 8, 4, 2, 1.
const uint HALF = 8u >> FILTER_INDEX;
const uint TAPS = 2u * HALF + 1u;

// libvmaf's padding: -k -> k, n-1+k -> n-1-k (the edge sample is not
// repeated). Tiles that hang over the plane's edge ask for positions further
// out, whose results are discarded; the clamp only keeps those loads inside.
int vif_mirror(int i, int n) {
    int m = i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);
    return clamp(m, 0, n - 1);
}

// Reference sample in the low 16 bits, distorted in the high 16.
uint load_pair(PlaneDesc r, PlaneDesc d, int x, int y) {
    return plane_load(r, uint(x), uint(y)) | (plane_load_b(d, uint(x), uint(y)) << 16);
}
