// Shared by the CAMBI kernels after preprocessing (cambi_*.comp): the push
// constants and the layout of the tables buffer. Driver and twin of the push
// block: metrics/src/features/cambi/gpu.rs (`CambiPush`); the two must agree.
// CPU twin of the algorithm: metrics/src/features/cambi/.

// A sample outside the mask or outside the histogram band (cambi_scale.comp).
#define CAMBI_NONE 0xFFFFFFFFu
// Word offsets in the tables buffer: per contrast step its threshold (tvi,
// adjusted codes) and its weight, then libvmaf's reciprocal table (float
// bits), then the preprocessing's sample positions.
#define CAMBI_TVI 0u
#define CAMBI_WEIGHTS 32u
#define CAMBI_RECIPROCAL 64u

layout(push_constant, std430) uniform Push {
    uint width;          // the grid this dispatch covers
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
    uint scale;          // which scale's pooling slots to use
    uint k;              // values the top-k mean keeps
    uint n;              // values of the grid
    uint out_word;       // result slot of this scale
};
