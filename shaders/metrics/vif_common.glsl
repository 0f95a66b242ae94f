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

// Sample of a plane at byte address `byte` (1 or 2 bytes a sample).
uint sample_ref(uint byte, uint mask) {
    return (ref_words[byte >> 2] >> ((byte & 3u) * 8u)) & mask;
}
uint sample_dist(uint byte, uint mask) {
    return (dist_words[byte >> 2] >> ((byte & 3u) * 8u)) & mask;
}

// Input sample i (0..VIN−1) of a vertical task's column (the column's byte
// addresses col_r, col_d, its first row ybase, row strides stride_r,
// stride_d in bytes), as x (reference) and y (distorted), two ways:
//  - LOAD_MIRRORED: any rows and strides; each row mirrored, each sample's
//    byte found in its word.
//  - LOAD_DIRECT: only where loads_direct holds (the task's rows
//    ybase..ybase+VIN−1 all lie in the plane and both row strides are whole
//    words, so the sample's byte within its word is the same on every row)
//    and after DIRECT_WORDS: row i's word is word_r + i·words_r, the sample
//    at bit shift_r of it.
#define LOAD_MIRRORED(i)                                                            \
    int gy = vif_mirror(ybase + int(i), h);                                        \
    uint x = sample_ref(col_r + uint(gy) * stride_r, mask_r);                      \
    uint y = sample_dist(col_d + uint(gy) * stride_d, mask_d);
#define LOAD_DIRECT(i)                                                              \
    uint x = (ref_words[word_r + (i) * words_r] >> shift_r) & mask_r;              \
    uint y = (dist_words[word_d + (i) * words_d] >> shift_d) & mask_d;
#define DIRECT_WORDS                                                                \
    uint word_r = (col_r + uint(ybase) * stride_r) >> 2;                           \
    uint word_d = (col_d + uint(ybase) * stride_d) >> 2;                           \
    uint shift_r = (col_r & 3u) * 8u;                                              \
    uint shift_d = (col_d & 3u) * 8u;                                              \
    uint words_r = stride_r >> 2;                                                  \
    uint words_d = stride_d >> 2;

// Whether rows ybase..ybase+vin−1 all lie in planes h rows high, so a
// vertical task needs no row mirror.
bool rows_inside(int ybase, uint vin, int h) {
    return ybase >= 0 && ybase + int(vin) <= h;
}

// Whether a vertical task reading rows ybase..ybase+vin−1 of planes h rows
// high may use LOAD_DIRECT. Uniform over a subgroup in both kernels (their
// subgroups share a row group; the strides are push constants), so each
// subgroup takes one path.
bool loads_direct(uint stride_r, uint stride_d, int ybase, uint vin, int h) {
    return ((stride_r | stride_d) & 3u) == 0u && rows_inside(ybase, vin, h);
}
