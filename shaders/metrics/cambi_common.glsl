// Shared by the CAMBI kernels after preprocessing (cambi_*.comp): the push
// constants and the layout of the tables buffer. Driver and twin of the push
// block: metrics/src/features/cambi/gpu.rs (`CambiPush`); the two must agree.
// CPU twin of the algorithm: metrics/src/features/cambi/.

// A sample outside the mask or outside the histogram band (cambi_scale.comp).
#define CAMBI_NONE 0xFFFFFFFFu
// Word offsets in the tables buffer: per contrast step its threshold (tvi,
// adjusted codes) and its weight, then libvmaf's reciprocal table (float
// bits), then per picture its scale table (at `scales`) and the
// preprocessing's sample positions.
#define CAMBI_TVI 0u
#define CAMBI_WEIGHTS 32u
#define CAMBI_RECIPROCAL 64u
// A picture's scale table: per scale CAMBI_SCALE_WORDS words (its grid's
// width and height, the word where that grid starts in the codes and the
// c-values, how many values its top-k keeps, its first cambi_cvalues.comp
// workgroup and how many of them cover a row of the grid), then the
// workgroups of all scales.
#define CAMBI_SCALES 5u
#define CAMBI_SCALE_WORDS 8u
#define CAMBI_SCALE_WIDTH 0u
#define CAMBI_SCALE_HEIGHT 1u
#define CAMBI_SCALE_OFFSET 2u
#define CAMBI_SCALE_K 3u
#define CAMBI_SCALE_FIRST_GROUP 4u
#define CAMBI_SCALE_GROUPS_ACROSS 5u
#define CAMBI_SCALE_TOTAL_GROUPS (CAMBI_SCALES * CAMBI_SCALE_WORDS)
// Bins of each scale's radix-select histograms (16 bits of a float): scale
// s's lie at s · CAMBI_BINS in the high and low histogram buffers.
#define CAMBI_BINS 65536u

layout(push_constant, std430) uniform Push {
    uint width;          // cambi_mask, _scale: the grid this dispatch covers
    uint height;
    uint src_width;      // cambi_scale: width of the grid it reads
    uint step;           // cambi_scale: 1, or 2 to decimate what it reads
    uint mask_shift;     // cambi_scale: the mask is read at (i, j) << shift
    uint mask_width;     // width of the working-size mask
    uint mask_threshold; // cambi_mask: libvmaf's mask index
    uint pad;            // half the window
    uint num_diffs;      // 2^max_log_contrast
    uint band_base;      // first histogram code
    uint band_size;      // histogram codes
    uint vlt_luma;       // first code at the visibility threshold
    uint scales;         // word offset of the picture's scale table in tables
    uint rows;           // cambi_cvalues: rows of a grid a workgroup scores
    uint offset;         // cambi_scale: the word its scale's codes start at
    uint out_word;       // result slot of the first scale
};
