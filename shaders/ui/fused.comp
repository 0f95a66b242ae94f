#version 460
// The fused UI pass: one workgroup per TILE_SIZE x TILE_SIZE tile. The tile
// walks its bin's primitive list from the top of the draw order down, in
// chunks of CHUNK: each chunk is tested against the tile, the survivors are
// compacted in draw order into shared memory, then every pixel composites
// them front to back ("under"), stopping once the whole tile is opaque.
//
// Each invocation owns PIXELS pixels and tests PIXELS primitives of a chunk.
// On a CPU driver (lavapipe) an invocation group is one SIMD row that
// re-reads every primitive and runs every barrier as a switch between rows:
// fewer, fuller invocations share those costs among more pixels.
#extension GL_EXT_control_flow_attributes : require
#define WG_SIZE 64u
#define PIXELS 4u
#define CHUNK (WG_SIZE * PIXELS)
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
#include "compact.glsl"
#include "prims.glsl"
#extension GL_KHR_shader_subgroup_ballot : require

layout(set = 0, binding = 0, std430) readonly buffer Prims { Prim prims[]; };
layout(set = 0, binding = 1, std430) readonly buffer BinOffsets { uint bin_offsets[]; };
layout(set = 0, binding = 2, std430) readonly buffer BinLists { uint bin_lists[]; };
layout(set = 0, binding = 3, std430) readonly buffer Clips { vec4 clips[]; };
layout(set = 0, binding = 4, std430) readonly buffer Textures { Texture textures[]; };
layout(set = 0, binding = 5, std430) readonly buffer Texels { uint texels[]; };
layout(set = 0, binding = 6, std430) readonly buffer Pictures { Picture pictures[]; };
layout(set = 0, binding = 7, std430) readonly buffer Planes { uint planes[]; };
layout(set = 0, binding = 8, rgba8) uniform writeonly image2D target;
layout(set = 0, binding = 9, std430) readonly buffer Maps { Map maps[]; };
// External maps (MAX_EXTERNAL_MAPS in scene.rs): separate bindings rather
// than an array, since indexing an array of buffers dynamically is an
// optional device feature. Unused slots are bound to the texel buffer.
layout(set = 0, binding = 10, std430) readonly buffer ExtMap0 { float ext_map0[]; };
layout(set = 0, binding = 11, std430) readonly buffer ExtMap1 { float ext_map1[]; };
layout(push_constant) uniform Push {
    vec4 background;  // premultiplied
    uint width;
    uint height;
    uint bins_x;
    uint bins_y;
};

// Survivors of the current chunk in draw order, IMAGE_BIT set on images.
shared uint s_list[CHUNK];
// Pixels of the tile still letting light through, counted in turn into
// either slot so that one barrier per chunk suffices.
shared uint s_open[2];

const uint IMAGE_BIT = 1u << 31;

// Transmittance below which a pixel counts as opaque: what lies beneath
// changes the 8-bit result by less than half a step.
const float OPAQUE_T = 1.0 / 1024.0;

float coverage(float d) {
    return clamp(0.5 - d, 0.0, 1.0);
}

// Signed distance to a rectangle with per-corner radii (tl, tr, br, bl).
float rounded_rect_sd(vec2 p, vec4 r, vec4 radii) {
    vec2 c = 0.5 * (r.xy + r.zw);
    vec2 half_size = 0.5 * (r.zw - r.xy);
    float rad = p.x < c.x ? (p.y < c.y ? radii.x : radii.w) : (p.y < c.y ? radii.y : radii.z);
    rad = min(rad, min(half_size.x, half_size.y));
    vec2 q = abs(p - c) - half_size + rad;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - rad;
}

// Where an image's samples come from.
#define SOURCE_TEXELS 0u
#define SOURCE_PLANES 1u
#define SOURCE_EXT0   2u
#define SOURCE_EXT1   3u

// How a raw sample becomes a value.
#define DECODE_RGBA8  0u  // straight-alpha RGBA8, premultiplied
#define DECODE_UNORM8 1u  // 8-bit coverage, 0..1
#define DECODE_UINT   2u  // a YUV plane's integer sample, unscaled
#define DECODE_FLOAT  3u  // f32 bits

// One plane of samples: `bytes` bytes (1, 2 or 4, little-endian) per sample,
// rows of `size.x` samples from byte `base` of buffer `source`.
struct Plane {
    uint source;
    uint base;
    uvec2 size;
    uint bytes;
    uint decode;
};

uint fetch_word(uint source, uint word) {
    if (source == SOURCE_TEXELS) {
        return texels[word];
    }
    if (source == SOURCE_PLANES) {
        return planes[word];
    }
    if (source == SOURCE_EXT0) {
        return floatBitsToUint(ext_map0[word]);
    }
    return floatBitsToUint(ext_map1[word]);
}

// Sample xy of plane `pl` (clamped to its edges), decoded.
vec4 fetch(Plane pl, ivec2 xy) {
    uvec2 c = uvec2(clamp(xy, ivec2(0), ivec2(pl.size) - 1));
    uint byte_index = pl.base + (c.y * pl.size.x + c.x) * pl.bytes;
    uint word = fetch_word(pl.source, byte_index / 4u);
    uint raw = pl.bytes == 4u ? word : (word >> (8u * (byte_index % 4u))) & ((1u << (8u * pl.bytes)) - 1u);
    if (pl.decode == DECODE_RGBA8) {
        vec4 t = unpackUnorm4x8(raw);
        return vec4(t.rgb * t.a, t.a);
    }
    if (pl.decode == DECODE_FLOAT) {
        return vec4(uintBitsToFloat(raw));
    }
    return vec4(pl.decode == DECODE_UNORM8 ? float(raw) / 255.0 : float(raw));
}

// Samples plane `pl` at uv (in its samples): one tap (nearest) or four
// (bilinear). The taps are a loop rather than unrolled so that a CPU driver,
// which runs both sides of a branch but leaves a loop once no lane needs it,
// does one fetch for a nearest sample.
vec4 sample_plane(Plane pl, vec2 uv, bool bilinear) {
    vec2 s = bilinear ? uv - 0.5 : uv;
    ivec2 i = ivec2(floor(s));
    vec2 f = bilinear ? s - vec2(i) : vec2(0.0);
    uint taps = bilinear ? 4u : 1u;
    vec4 sum = vec4(0.0);
    for (uint t = 0u; t < taps; ++t) {
        ivec2 o = ivec2(t & 1u, t >> 1u);
        vec2 w = mix(1.0 - f, f, vec2(o));
        sum += (w.x * w.y) * fetch(pl, i + o);
    }
    return sum;
}

// BT.601 / BT.709 YUV samples (unscaled integers of `pic`'s depth and
// range) to opaque RGB.
vec4 yuv_to_rgb(Picture pic, vec3 yuv) {
    float y = yuv.x;
    float cb = yuv.y;
    float cr = yuv.z;
    float scale = float(1u << (pic.bit_depth - 8u));
    float yn, cbn, crn;
    if (pic.full_range != 0u) {
        float maxv = float((1u << pic.bit_depth) - 1u);
        yn = y / maxv;
        cbn = (cb - 128.0 * scale) / maxv;
        crn = (cr - 128.0 * scale) / maxv;
    } else {
        yn = (y - 16.0 * scale) / (219.0 * scale);
        cbn = (cb - 128.0 * scale) / (224.0 * scale);
        crn = (cr - 128.0 * scale) / (224.0 * scale);
    }
    float kr = pic.matrix == 0u ? 0.299 : 0.2126;
    float kb = pic.matrix == 0u ? 0.114 : 0.0722;
    float kg = 1.0 - kr - kb;
    vec3 rgb = vec3(
        yn + 2.0 * (1.0 - kr) * crn,
        yn - (2.0 * kb * (1.0 - kb) / kg) * cbn - (2.0 * kr * (1.0 - kr) / kg) * crn,
        yn + 2.0 * (1.0 - kb) * cbn);
    return vec4(clamp(rgb, 0.0, 1.0), 1.0);
}

// Matplotlib's "inferno" (perceptually uniform, readable in greyscale and by
// most colour-blind viewers), sRGB, sampled at every 16th of its 256 entries
// plus the last and interpolated linearly. Twin: heat::INFERNO.
const vec3 INFERNO[17] = vec3[17](
    vec3(0.001462, 0.000466, 0.013866), vec3(0.042253, 0.028139, 0.141141),
    vec3(0.129285, 0.047293, 0.290788), vec3(0.238273, 0.036621, 0.396353),
    vec3(0.341500, 0.062325, 0.429425), vec3(0.441207, 0.099338, 0.431594),
    vec3(0.540920, 0.134729, 0.415123), vec3(0.640135, 0.171438, 0.381065),
    vec3(0.735683, 0.215906, 0.330245), vec3(0.822386, 0.275197, 0.266085),
    vec3(0.894305, 0.353399, 0.193584), vec3(0.946965, 0.449191, 0.115272),
    vec3(0.978422, 0.557937, 0.034931), vec3(0.987874, 0.675267, 0.065257),
    vec3(0.974638, 0.797692, 0.206332), vec3(0.947594, 0.917399, 0.410665),
    vec3(0.988362, 0.998364, 0.644924));

// Colour of map value v over range (lo, hi): inferno reversed, so values at
// or below lo glow yellow-white and values at or above hi are black (low
// SSIM is damage: it must stand out). NaN shows as magenta. Twin:
// heat::heat_color.
vec4 heat_color(float v, float lo, float hi) {
    if (isnan(v)) {
        return vec4(1.0, 0.0, 1.0, 1.0);
    }
    float t = 1.0 - clamp((v - lo) / (hi - lo), 0.0, 1.0);
    float x = t * 16.0;
    int i = min(int(x), 15);
    return vec4(mix(INFERNO[i], INFERNO[i + 1], x - float(i)), 1.0);
}

bool clipped(vec4 clip, vec2 p) {
    return p.x < clip.x || p.y < clip.y || p.x >= clip.z || p.y >= clip.w;
}

// Premultiplied colour of shape `prim` (clipped to `clip`) at pixel centre p.
vec4 shade_shape(Prim prim, vec4 clip, vec2 p) {
    if (clipped(clip, p)) {
        return vec4(0.0);
    }
    uint kind = prim.header.x & 0xFFu;
    float param = uintBitsToFloat(prim.header.w);
    if (kind == KIND_RECT) {
        float d = rounded_rect_sd(p, prim.p0, prim.p1);
        float outer = coverage(d);
        if (param <= 0.0) {
            return prim.color * outer;
        }
        float inner = coverage(d + param);
        return prim.color * inner + prim.p2 * (outer - inner);
    }
    if (kind == KIND_CIRCLE) {
        float dist = length(p - prim.p0.xy);
        float d = prim.p0.w > 0.0 ? abs(dist - prim.p0.z) - 0.5 * prim.p0.w : dist - prim.p0.z;
        return prim.color * coverage(d);
    }
    vec2 a = prim.p0.xy;
    vec2 ba = prim.p0.zw - a;
    vec2 pa = p - a;
    float len2 = dot(ba, ba);
    float h = len2 > 0.0 ? clamp(dot(pa, ba) / len2, 0.0, 1.0) : 0.0;
    float d = length(pa - ba * h) - 0.5 * param;
    return prim.color * coverage(d);
}

// What an image primitive samples, read once for all of an invocation's
// pixels. Every image kind goes through one sampling path: the kinds differ
// only in the planes they read (YUV has three, the chroma ones subsampled by
// `pic`'s shifts) and in what they make of the samples.
struct Image {
    Plane plane;
    uint plane_count;
    bool bilinear;
    Picture pic;  // set for YUV only: its chroma planes' layout
};

Image image_of(Prim prim) {
    uint kind = prim.header.x & 0xFFu;
    Image img;
    img.plane_count = 1u;
    img.bilinear = ((prim.header.x >> 8) & 1u) != 0u;
    if (kind == KIND_YUV) {
        Picture pic = pictures[prim.header.z];
        img.pic = pic;
        img.plane = Plane(SOURCE_PLANES, pic.offset_y, uvec2(pic.width, pic.height), pic.bytes_per_sample, DECODE_UINT);
        img.plane_count = 3u;
    } else if (kind == KIND_HEATMAP) {
        Map m = maps[prim.header.z];
        uint source = m.source == 0u ? SOURCE_TEXELS : SOURCE_EXT0 + m.source - 1u;
        img.plane = Plane(source, 4u * m.offset, uvec2(m.width, m.height), 4u, DECODE_FLOAT);
    } else {
        Texture t = textures[prim.header.z];
        bool glyph = kind == KIND_GLYPH;
        img.plane = Plane(SOURCE_TEXELS, 4u * t.offset, uvec2(t.width, t.height), glyph ? 1u : 4u, glyph ? DECODE_UNORM8 : DECODE_RGBA8);
        // Glyphs are always drawn 1:1.
        img.bilinear = img.bilinear && !glyph;
    }
    return img;
}

// Premultiplied colour of image `prim` (clipped to `clip`) at pixel centre p.
vec4 shade_image(Prim prim, vec4 clip, Image img, vec2 p) {
    // Images cover their destination rectangle with hard edges, so a video
    // shown 1:1 maps each pixel to exactly one sample.
    vec4 dst = prim.p0;
    if (clipped(clip, p) || clipped(dst, p)) {
        return vec4(0.0);
    }
    vec2 uv = prim.p1.xy + (p - dst.xy) / (dst.zw - dst.xy) * (prim.p1.zw - prim.p1.xy);
    Plane pl = img.plane;
    vec4 samples = vec4(0.0);  // the first plane's; x, y, z: Y, Cb, Cr for YUV
    for (uint k = 0u; k < img.plane_count; ++k) {
        vec4 s = sample_plane(pl, uv, img.bilinear);
        samples = k == 0u ? s : vec4(samples.x, k == 1u ? s.x : samples.y, s.x, 1.0);
        uvec2 shift = uvec2(img.pic.chroma_shift_x, img.pic.chroma_shift_y);
        pl.base = k == 0u ? img.pic.offset_u : img.pic.offset_v;
        pl.size = (uvec2(img.pic.width, img.pic.height) + (uvec2(1u) << shift) - 1u) >> shift;
        uv = k == 0u ? uv / vec2(uvec2(1u) << shift) : uv;
    }
    uint kind = prim.header.x & 0xFFu;
    float param = uintBitsToFloat(prim.header.w);
    if (kind == KIND_TEXTURE) {
        return samples * param;
    }
    if (kind == KIND_GLYPH) {
        return prim.color * samples.x;
    }
    if (kind == KIND_HEATMAP) {
        return heat_color(samples.x, prim.p2.x, prim.p2.y) * param;
    }
    return yuv_to_rgb(img.pic, samples.xyz);
}

// Whether survivor k (counting from 1; 0 reads the first) is an image.
bool is_image(uint k) {
    return (s_list[max(k, 1u) - 1u] & IMAGE_BIT) != 0u;
}

// The tile's pixel `j` of this invocation: PIXELS rows apart, so that a
// subgroup covers whole runs of a row.
uvec2 pixel_of(uvec2 tile, uint item, uint j) {
    uint q = item + WG_SIZE * j;
    return tile * TILE_SIZE + uvec2(q % TILE_SIZE, q / TILE_SIZE);
}

void main() {
    uint tiles_x = (width + TILE_SIZE - 1u) / TILE_SIZE;
    uvec2 tile = uvec2(gl_WorkGroupID.x % tiles_x, gl_WorkGroupID.x / tiles_x);
    uint item = compact_item();
    vec4 tile_rect = vec4(tile * TILE_SIZE, (tile + 1u) * TILE_SIZE);

    uvec2 bin = tile / BIN_TILES;
    uint b = bin.y * bins_x + bin.x;
    uint start = bin_offsets[b];
    uint end = bin_offsets[b + 1u];

    vec2 p[PIXELS];
    bool open[PIXELS];  // inside the image and not yet opaque
    vec4 acc[PIXELS];
    float transmit[PIXELS];
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        uvec2 pixel = pixel_of(tile, item, j);
        p[j] = vec2(pixel) + 0.5;
        open[j] = pixel.x < width && pixel.y < height;
        acc[j] = vec4(0.0);
        transmit[j] = 1.0;
    }
    // Ordered before any count by the first chunk's barriers.
    if (item == 0u) {
        s_open[0] = 0u;
        s_open[1] = 0u;
    }
    for (uint chunk_end = end, parity = 0u; chunk_end > start; parity ^= 1u) {
        uint chunk_start = chunk_end > start + CHUNK ? chunk_end - CHUNK : start;
        // This invocation's PIXELS consecutive primitives of the chunk.
        uint first = chunk_start + PIXELS * item;
        uint entry[PIXELS];
        uint kept = 0u;  // bit j: entry j survives
        [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
            uint i = first + j;
            entry[j] = 0u;
            if (i < chunk_end) {
                uint prim_index = bin_lists[i];
                vec4 bb = prims[prim_index].bounds;
                if (bb.x < tile_rect.z && bb.z > tile_rect.x && bb.y < tile_rect.w && bb.w > tile_rect.y) {
                    bool image = (prims[prim_index].header.x & 0xFFu) >= KIND_TEXTURE;
                    entry[j] = prim_index | (image ? IMAGE_BIT : 0u);
                    kept |= 1u << j;
                }
            }
        }
        uint total;
        uint pos = compact_position(uint(bitCount(kept)), total);
        [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
            if ((kept & (1u << j)) != 0u) {
                s_list[pos] = entry[j];
                ++pos;
            }
        }
        barrier();
        // The loops run in step across the workgroup and the primitive index
        // is made visibly uniform: a SIMD driver (lavapipe) then loads the
        // primitive once per subgroup. lavapipe (Mesa 22.3) also runs both
        // sides of every branch under a mask, but it does leave a loop once
        // no lane is active: looping over each run of shapes, then over each
        // run of images, spares a shape the image code and an image the
        // shape code, for one masked pass at each change of run.
        for (uint k = total; k > 0u;) {
            for (; k > 0u && !is_image(k); --k) {
                Prim prim = prims[subgroupBroadcastFirst(s_list[k - 1u])];
                vec4 clip = clips[prim.header.y];
                [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
                    if (open[j]) {
                        vec4 c = shade_shape(prim, clip, p[j]);
                        acc[j] += transmit[j] * c;
                        transmit[j] *= 1.0 - c.a;
                        open[j] = transmit[j] > OPAQUE_T;
                    }
                }
            }
            for (; k > 0u && is_image(k); --k) {
                Prim prim = prims[subgroupBroadcastFirst(s_list[k - 1u]) & ~IMAGE_BIT];
                vec4 clip = clips[prim.header.y];
                Image img = image_of(prim);
                [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
                    if (open[j]) {
                        vec4 c = shade_image(prim, clip, img, p[j]);
                        acc[j] += transmit[j] * c;
                        transmit[j] *= 1.0 - c.a;
                        open[j] = transmit[j] > OPAQUE_T;
                    }
                }
            }
        }
        if (chunk_start == start) {
            break;
        }
        // Stop once no pixel of the tile lets light through. The other slot
        // was last read before this chunk's barriers and is next counted
        // into after the next chunk's: it can be cleared now.
        uint open_here = 0u;
        [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
            open_here += open[j] ? 1u : 0u;
        }
        if (open_here > 0u) {
            atomicAdd(s_open[parity], open_here);
        }
        if (item == 0u) {
            s_open[parity ^ 1u] = 0u;
        }
        barrier();
        if (s_open[parity] == 0u) {
            break;
        }
        chunk_end = chunk_start;
    }
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        uvec2 pixel = pixel_of(tile, item, j);
        if (pixel.x < width && pixel.y < height) {
            vec4 c = acc[j] + transmit[j] * background;
            imageStore(target, ivec2(pixel), vec4(clamp(c.rgb, 0.0, 1.0), 1.0));
        }
    }
}
