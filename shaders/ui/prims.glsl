// GPU layout of the UI encoding. Every struct here has a #[repr(C)] twin in
// renderer/src/encode.rs with a layout test: the two must agree field for
// field. Change both or neither.

#define KIND_RECT    0u
#define KIND_CIRCLE  1u
#define KIND_LINE    2u
#define KIND_TEXTURE 3u
#define KIND_GLYPH   4u
#define KIND_YUV     5u
#define KIND_HEATMAP 6u

#define BIN_TILES 16u   // a bin is BIN_TILES x BIN_TILES tiles
#define TILE_SIZE 16u   // a tile is TILE_SIZE x TILE_SIZE pixels
#define BIN_PIXELS (BIN_TILES * TILE_SIZE)
#define CHUNK_PRIMS 256u  // primitives per binning chunk (bin_chunk.glsl)

// 96 bytes. Twin: encode::GpuPrim.
struct Prim {
    vec4 bounds;   // pixel bounding box x0, y0, x1, y1 (anti-aliasing and clip included)
    uvec4 header;  // x: kind | sampling << 8; y: clip index; z: texture/picture/map index; w: float bits of width/opacity
    vec4 color;    // premultiplied fill (or tint)
    vec4 p0;       // geometry: rect / dst rect / circle (cx, cy, r, ring) / line (ax, ay, bx, by)
    vec4 p1;       // rect corner radii (tl, tr, br, bl) / image source rect
    vec4 p2;       // premultiplied border colour / heat map range (lo, hi, -, -)
};

// 16 bytes. Twin: encode::GpuTexture. RGBA8 textures hold one texel per
// word; the glyph atlas (R8) four texels per word.
struct Texture {
    uint offset;   // first word in the texel buffer
    uint width;
    uint height;
    uint format;   // 0: RGBA8 (straight alpha), 1: R8 coverage
};

// 12 bytes. Twin: encode::GpuMap. A grid of f32 values drawn as a heat map,
// as float bits in the texel buffer: host values travel with the scene,
// external ones (a metric kernel's map) are copied in on the GPU.
struct Map {
    uint offset;   // first value, in words of the texel buffer
    uint width;
    uint height;
};

// 48 bytes. Twin: encode::GpuPicture. Offsets are in bytes into the texel
// buffer; samples are 1 or 2 (little-endian) bytes.
struct Picture {
    uint offset_y;
    uint offset_u;
    uint offset_v;
    uint width;
    uint height;
    uint chroma_shift_x;
    uint chroma_shift_y;
    uint bytes_per_sample;
    uint bit_depth;
    uint matrix;      // 0: BT.601, 1: BT.709, 2: BT.2020 (wide gamut)
    uint full_range;  // 0: limited, 1: full
    uint tone;        // transfer (0: SDR, 1: PQ, 2: HLG) | display peak nits << 8
};

// Set in a bin or tile list entry's index on images.
const uint IMAGE_BIT = 1u << 31;

// Primitive i's index as the bin and tile lists hold it, from its header's
// first word: IMAGE_BIT set on images (the kinds from KIND_TEXTURE on).
uint list_index(uint i, uint kind_word) {
    return i | ((kind_word & 0xFFu) >= KIND_TEXTURE ? IMAGE_BIT : 0u);
}

// The tiles of bin `bin` that bounding box b overlaps, counted from the
// bin's first tile: x0 | x1 << 5 | y0 << 10 | y1 << 15, x1 and y1 exclusive
// (none when x1 <= x0 or y1 <= y0). Tile t's pixels span [16t, 16t + 16),
// so b overlaps it when b.x < 16t + 16 and b.z > 16t: t >= floor(b.x / 16)
// and t < ceil(b.z / 16), exactly (division by a power of two is exact).
// The host sums the same spans with the same float operations
// (encode::bin_offsets) to place each bin's tile lists.
uint tile_span(vec4 b, uvec2 bin) {
    vec2 first = vec2(bin * BIN_TILES);
    vec2 lo = clamp(floor(b.xy / float(TILE_SIZE)) - first, 0.0, float(BIN_TILES));
    vec2 hi = clamp(ceil(b.zw / float(TILE_SIZE)) - first, 0.0, float(BIN_TILES));
    uvec4 s = uvec4(lo, hi);
    return s.x | (s.z << 5) | (s.y << 10) | (s.w << 15);
}

// Returns the inclusive range of bins a bounding box touches, clamped to the
// grid. The host computes the same with the same float operations (division
// by a power of two and floor are exact), so its per-bin counts agree.
uvec4 bin_range(vec4 b, uvec2 bins) {
    ivec2 lo = ivec2(floor(b.xy / float(BIN_PIXELS)));
    ivec2 hi = ivec2(floor(b.zw / float(BIN_PIXELS)));
    ivec2 top = ivec2(bins) - 1;
    lo = clamp(lo, ivec2(0), top);
    hi = clamp(hi, ivec2(0), top);
    return uvec4(lo, hi);
}
