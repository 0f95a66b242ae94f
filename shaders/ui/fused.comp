#version 460
// The fused UI pass: one workgroup per TILE_SIZE x TILE_SIZE tile. The tile
// walks its own primitive list (bin_tiles.comp: every primitive touching
// the tile, in draw order) from the top of the draw order down, and every
// pixel composites them front to back ("under"). Each subgroup stops once
// all of its pixels are opaque; there is no shared memory and no barrier.
//
// Each invocation owns PIXELS pixels. On a CPU driver (lavapipe) an
// invocation group is one SIMD row that re-reads every primitive: fewer,
// fuller invocations share that cost among more pixels. A GPU wants more
// invocations instead, so the host picks the split per device
// (fused::TileShape); their product is always TILE_SIZE * TILE_SIZE.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64, local_size_x_id = 2) in;
layout(constant_id = 3) const uint PIXELS = 4u;
// The costly shading paths the pass keeps (bits, SHADING_*; all by default).
// A CPU driver (lavapipe) runs every path of an image for each pixel whether
// any pixel takes it or not, so there the host specialises the pass without
// the paths its scene cannot take (fused::Shading). A GPU skips an untaken
// path and keeps them all. A path is compiled out, never made different:
// the pixels of a scene that does not need it are the same either way.
layout(constant_id = 4) const uint SHADING = 3u;
#define SHADING_TONE 1u  // pictures in BT.2020 or with HDR transfer: tone and gamut mapping
#define SHADING_HEAT 2u  // heat maps: the colour ramp
#define WG_SIZE gl_WorkGroupSize.x
#include "prims.glsl"
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require

layout(set = 0, binding = 0, std430) readonly buffer Prims { Prim prims[]; };
// Per tile slot (bin_tiles.comp): its list's start and end in tile_lists.
layout(set = 0, binding = 1, std430) readonly buffer TileRanges { uvec2 tile_ranges[]; };
layout(set = 0, binding = 2, std430) readonly buffer TileLists { uint tile_lists[]; };
layout(set = 0, binding = 3, std430) readonly buffer Clips { vec4 clips[]; };
layout(set = 0, binding = 4, std430) readonly buffer Textures { Texture textures[]; };
// Every sample any image reads: textures, host maps, the glyph atlas, host
// pictures' planes, then what the host copied in from external buffers
// (their pictures' planes and maps). One buffer, because a CPU driver
// (lavapipe) pays for a read from every buffer a branch could pick.
layout(set = 0, binding = 5, std430) readonly buffer Texels { uint texels[]; };
layout(set = 0, binding = 6, std430) readonly buffer Pictures { Picture pictures[]; };
layout(set = 0, binding = 7, std430) readonly buffer Maps { Map maps[]; };
// HDR10_OUTPUT (the build's UI_FUSED_HDR10_OUTPUT variant) writes an HDR10
// window's PQ-coded BT.2020 into a 10-bit image instead of 8-bit R'G'B'.
#ifdef HDR10_OUTPUT
layout(set = 0, binding = 8, rgb10_a2) uniform writeonly image2D target;
#else
layout(set = 0, binding = 8, rgba8) uniform writeonly image2D target;
#endif
layout(push_constant) uniform Push {
    vec4 background;  // premultiplied
    uint width;
    uint height;
    uint bins_x;
};

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

// How a raw sample becomes a value.
#define DECODE_RGBA8  0u  // straight-alpha RGBA8, premultiplied
#define DECODE_UNORM8 1u  // 8-bit coverage, 0..1
#define DECODE_UINT   2u  // a YUV plane's integer sample, unscaled
#define DECODE_FLOAT  3u  // f32 bits

// One plane of samples: `bytes` bytes (1, 2 or 4, little-endian) per sample,
// rows of `size.x` samples from byte `base` of the texel buffer.
struct Plane {
    uint base;
    uvec2 size;
    uint bytes;
    uint decode;
};

// Sample xy of plane `pl` (clamped to its edges), raw.
uint fetch(Plane pl, ivec2 xy) {
    uvec2 c = uvec2(clamp(xy, ivec2(0), ivec2(pl.size) - 1));
    uint byte_index = pl.base + (c.y * pl.size.x + c.x) * pl.bytes;
    uint word = texels[byte_index / 4u];
    return pl.bytes == 4u ? word : (word >> (8u * (byte_index % 4u))) & ((1u << (8u * pl.bytes)) - 1u);
}

// A raw sample of plane `pl`, decoded.
vec4 decode(Plane pl, uint raw) {
    if (pl.decode == DECODE_RGBA8) {
        vec4 t = unpackUnorm4x8(raw);
        return vec4(t.rgb * t.a, t.a);
    }
    if (pl.decode == DECODE_FLOAT) {
        return vec4(uintBitsToFloat(raw));
    }
    return vec4(pl.decode == DECODE_UNORM8 ? float(raw) / 255.0 : float(raw));
}

// No row: past every row a column of pixels can need.
const int NO_ROW = 0x7FFFFFFF;

// Samples plane `pl` at uv[j] (in its samples) for this invocation's pixels
// that are `wanted`: one tap each (nearest) or four (bilinear). All of an
// invocation's pixels lie in one column, so they share their taps' columns
// and differ only in rows: the loop visits each row any of them needs once,
// fetching its one or two samples there, and hands them to the pixels that
// need that row. A CPU driver (lavapipe) pays for every fetch it reaches
// whatever the lanes' masks, but leaves a loop once no lane needs it (tested
// at the loop's bottom, so it is written there): an enlarged picture then
// costs a fetch per row of the source, not per tap of each pixel.
void sample_column(Plane pl, vec2 uv[PIXELS], bool wanted[PIXELS], bool bilinear, out vec4 sum[PIXELS]) {
    ivec2 i[PIXELS];
    vec2 f[PIXELS];
    int row = NO_ROW;
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        vec2 s = bilinear ? uv[j] - 0.5 : uv[j];
        i[j] = ivec2(floor(s));
        f[j] = bilinear ? s - vec2(i[j]) : vec2(0.0);
        row = wanted[j] ? min(row, i[j].y) : row;
    }
    // Raw taps (0, 0), (1, 0), (0, 1), (1, 1) of each pixel, in that order.
    uint tap[PIXELS][4];
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        tap[j] = uint[4](0u, 0u, 0u, 0u);
    }
    do {
        if (row == NO_ROW) {
            break;
        }
        uint here[2];
        here[0] = fetch(pl, ivec2(i[0].x, row));
        here[1] = bilinear ? fetch(pl, ivec2(i[0].x + 1, row)) : 0u;
        int next = NO_ROW;
        [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
            bool top = i[j].y == row;
            bool bottom = bilinear && i[j].y + 1 == row;
            tap[j][0] = top ? here[0] : tap[j][0];
            tap[j][1] = top ? here[1] : tap[j][1];
            tap[j][2] = bottom ? here[0] : tap[j][2];
            tap[j][3] = bottom ? here[1] : tap[j][3];
            int later = i[j].y > row ? i[j].y : (bilinear && i[j].y + 1 > row ? i[j].y + 1 : NO_ROW);
            next = wanted[j] ? min(next, later) : next;
        }
        row = next;
    } while (row != NO_ROW);
    uint taps = bilinear ? 4u : 1u;
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        sum[j] = vec4(0.0);
        [[unroll]] for (uint t = 0u; t < 4u; ++t) {
            if (t < taps) {
                vec2 w = mix(1.0 - f[j], f[j], vec2(t & 1u, t >> 1u));
                sum[j] += (w.x * w.y) * decode(pl, tap[j][t]);
            }
        }
    }
}

// HDR and wide gamut for an SDR window. Twin: color.rs (same constants and
// steps, in the same order). PQ is SMPTE ST 2084, HLG ARIB STD-B67 with
// BT.2100's OOTF at a 1000-nit nominal peak; both are tone-mapped from a
// 1000-nit source to the display's peak with BT.2390's EETF on the largest
// component (hue kept), gamut-mapped from BT.2020 to BT.709 primaries, and
// encoded for the window with BT.1886's gamma 2.4 (the peak is its white).
const float PQ_M1 = 0.1593017578125;
const float PQ_M2 = 78.84375;
const float PQ_C1 = 0.8359375;
const float PQ_C2 = 18.8515625;
const float PQ_C3 = 18.6875;
const float SOURCE_PEAK_NITS = 1000.0;

float pq_to_nits(float e) {
    float p = pow(clamp(e, 0.0, 1.0), 1.0 / PQ_M2);
    return 10000.0 * pow(max(p - PQ_C1, 0.0) / (PQ_C2 - PQ_C3 * p), 1.0 / PQ_M1);
}

float nits_to_pq(float nits) {
    float y = pow(clamp(nits / 10000.0, 0.0, 1.0), PQ_M1);
    return pow((PQ_C1 + PQ_C2 * y) / (1.0 + PQ_C3 * y), PQ_M2);
}

float hlg_to_scene(float e) {
    e = clamp(e, 0.0, 1.0);
    return e <= 0.5 ? e * e / 3.0 : (exp((e - 0.55991073) / 0.17883277) + 0.28466892) / 12.0;
}

// BT.2390's EETF: PQ value e of a source normalised to [0, 1] onto [0, max_lum].
float eetf(float e, float max_lum) {
    float ks = 1.5 * max_lum - 0.5;
    if (e < ks) {
        return e;
    }
    float t = (e - ks) / (1.0 - ks);
    float t2 = t * t;
    float t3 = t2 * t;
    return (2.0 * t3 - 3.0 * t2 + 1.0) * ks + (t3 - 2.0 * t2 + t) * (1.0 - ks)
        + (-2.0 * t3 + 3.0 * t2) * max_lum;
}

// Non-linear R'G'B' in [0, 1] to linear light in nits, SDR with `white`
// (nits) as its white.
vec3 to_nits(vec3 rgb, uint transfer, float white) {
    vec3 lin;
    if (transfer == 1u) {
        lin = vec3(pq_to_nits(rgb.r), pq_to_nits(rgb.g), pq_to_nits(rgb.b));
    } else if (transfer == 2u) {
        vec3 scene = vec3(hlg_to_scene(rgb.r), hlg_to_scene(rgb.g), hlg_to_scene(rgb.b));
        float ys = dot(scene, vec3(0.2627, 0.6780, 0.0593));
        lin = SOURCE_PEAK_NITS * pow(ys, 0.2) * scene;
    } else {
        lin = pow(rgb, vec3(2.4)) * white;
    }
    return lin;
}

// Linear BT.2020 RGB to linear BT.709 RGB (BT.2087), unclipped.
vec3 bt2020_to_bt709(vec3 lin) {
    return vec3(
        dot(lin, vec3(1.6605, -0.5876, -0.0728)),
        dot(lin, vec3(-0.1246, 1.1329, -0.0083)),
        dot(lin, vec3(-0.0182, -0.1006, 1.1187)));
}

// Non-linear R'G'B' in [0, 1] of a wide-gamut or HDR picture to the
// window's R'G'B'.
vec3 to_display(vec3 rgb, uint matrix, uint transfer, float peak) {
    vec3 lin = to_nits(rgb, transfer, peak);
    float m = max(lin.r, max(lin.g, lin.b));
    if (transfer != 0u && peak < SOURCE_PEAK_NITS && m > 0.0) {
        float source = nits_to_pq(SOURCE_PEAK_NITS);
        float e = min(nits_to_pq(m) / source, 1.0);
        float mapped = pq_to_nits(eetf(e, nits_to_pq(peak) / source) * source);
        lin *= mapped / m;
    }
    if (matrix == 2u) {
        lin = bt2020_to_bt709(lin);
    }
    return pow(clamp(lin / peak, 0.0, 1.0), vec3(1.0 / 2.4));
}

#ifdef HDR10_OUTPUT
// An HDR10 window. Everything is composited as in an SDR window (blending
// of the UI's colours unchanged), in BT.709's primaries with gamma 2.4 and
// REFERENCE_WHITE_NITS as 1.0, but extended: pictures keep their light
// above 1.0 and their wide-gamut colours as negative components. Only the
// final store turns that into PQ-coded BT.2020, so the UI's white lands on
// BT.2408's reference white and a picture's light is passed on untouched.
// Twin: color::hdr10_rgb and color::extended_to_pq.
const float REFERENCE_WHITE_NITS = 203.0;

// Non-linear R'G'B' in [0, 1] of a wide-gamut or HDR picture, not
// tone-mapped, to the extended compositing space.
vec3 to_extended(vec3 rgb, uint matrix, uint transfer) {
    vec3 lin = to_nits(rgb, transfer, REFERENCE_WHITE_NITS);
    if (matrix == 2u) {
        lin = bt2020_to_bt709(lin);
    }
    return sign(lin) * pow(abs(lin) / REFERENCE_WHITE_NITS, vec3(1.0 / 2.4));
}

// Linear BT.709 RGB to linear BT.2020 RGB (BT.2087).
vec3 bt709_to_bt2020(vec3 lin) {
    return vec3(
        dot(lin, vec3(0.6274, 0.3293, 0.0433)),
        dot(lin, vec3(0.0691, 0.9195, 0.0114)),
        dot(lin, vec3(0.0164, 0.0880, 0.8956)));
}

// A composited colour of the extended space to PQ-coded BT.2020.
vec3 extended_to_pq(vec3 e) {
    vec3 lin = bt709_to_bt2020(sign(e) * pow(abs(e), vec3(2.4)) * REFERENCE_WHITE_NITS);
    return vec3(nits_to_pq(lin.r), nits_to_pq(lin.g), nits_to_pq(lin.b));
}
#endif

// YUV samples (unscaled integers of `pic`'s depth and range) to opaque RGB
// for the window. Twin: color::display_rgb.
vec4 yuv_to_rgb(Picture pic, vec3 yuv) {
    float y = yuv.x;
    float cb = yuv.y;
    float cr = yuv.z;
    float scale = float(1u << (pic.bit_depth - 8u));
    bool full = pic.full_range != 0u;
    float maxv = float((1u << pic.bit_depth) - 1u);
    float yn = full ? y / maxv : (y - 16.0 * scale) / (219.0 * scale);
    float cbn = full ? (cb - 128.0 * scale) / maxv : (cb - 128.0 * scale) / (224.0 * scale);
    float crn = full ? (cr - 128.0 * scale) / maxv : (cr - 128.0 * scale) / (224.0 * scale);
    float kr = pic.matrix == 0u ? 0.299 : (pic.matrix == 1u ? 0.2126 : 0.2627);
    float kb = pic.matrix == 0u ? 0.114 : (pic.matrix == 1u ? 0.0722 : 0.0593);
    float kg = 1.0 - kr - kb;
    vec3 rgb = clamp(vec3(
        yn + 2.0 * (1.0 - kr) * crn,
        yn - (2.0 * kb * (1.0 - kb) / kg) * cbn - (2.0 * kr * (1.0 - kr) / kg) * crn,
        yn + 2.0 * (1.0 - kb) * cbn), 0.0, 1.0);
    uint transfer = pic.tone & 0xffu;
    if ((SHADING & SHADING_TONE) != 0u && (pic.matrix == 2u || transfer != 0u)) {
#ifdef HDR10_OUTPUT
        rgb = to_extended(rgb, pic.matrix, transfer);
#else
        rgb = to_display(rgb, pic.matrix, transfer, float(pic.tone >> 8u));
#endif
    }
    return vec4(rgb, 1.0);
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
    float t = 1.0 - clamp((v - lo) / (hi - lo), 0.0, 1.0);
    float x = t * 16.0;
    int i = min(int(x), 15);
    // Stops i and i + 1 picked by selection, the same values as indexing:
    // a CPU driver (lavapipe) would index a constant array through memory,
    // one lane at a time, for every image a pixel sees.
    vec3 a = INFERNO[0];
    vec3 b = INFERNO[1];
    [[unroll]] for (int k = 1; k < 16; ++k) {
        a = i == k ? INFERNO[k] : a;
        b = i == k ? INFERNO[k + 1] : b;
    }
    return isnan(v) ? vec4(1.0, 0.0, 1.0, 1.0) : vec4(mix(a, b, x - float(i)), 1.0);
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
        img.plane = Plane(pic.offset_y, uvec2(pic.width, pic.height), pic.bytes_per_sample, DECODE_UINT);
        img.plane_count = 3u;
    } else if (kind == KIND_HEATMAP) {
        Map m = maps[prim.header.z];
        img.plane = Plane(4u * m.offset, uvec2(m.width, m.height), 4u, DECODE_FLOAT);
    } else {
        Texture t = textures[prim.header.z];
        bool glyph = kind == KIND_GLYPH;
        img.plane = Plane(4u * t.offset, uvec2(t.width, t.height), glyph ? 1u : 4u, glyph ? DECODE_UNORM8 : DECODE_RGBA8);
        // Glyphs are always drawn 1:1.
        img.bilinear = img.bilinear && !glyph;
    }
    return img;
}

// Premultiplied colour of image `prim` given its samples at a pixel.
vec4 image_color(Prim prim, Image img, vec4 samples) {
    uint kind = prim.header.x & 0xFFu;
    float param = uintBitsToFloat(prim.header.w);
    // Selections, not branches: a CPU driver (lavapipe) runs every branch
    // anyway and pays on top to merge their results, for each pixel. The
    // heat ramp, the one costly kind, stays behind a branch a GPU skips.
    vec4 c = yuv_to_rgb(img.pic, samples.xyz);
    c = kind == KIND_TEXTURE ? samples * param : c;
    c = kind == KIND_GLYPH ? prim.color * samples.x : c;
    if ((SHADING & SHADING_HEAT) != 0u && kind == KIND_HEATMAP) {
        c = heat_color(samples.x, prim.p2.x, prim.p2.y) * param;
    }
    return c;
}

// Premultiplied colours of image `prim` (clipped to `clip`) at this
// invocation's pixel centres p[j]; transparent where not `open`.
void shade_image(Prim prim, vec4 clip, Image img, vec2 p[PIXELS], bool open[PIXELS], out vec4 color[PIXELS]) {
    // Images cover their destination rectangle with hard edges, so a video
    // shown 1:1 maps each pixel to exactly one sample.
    vec4 dst = prim.p0;
    bool inside[PIXELS];
    vec2 uv[PIXELS];
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        inside[j] = open[j] && !clipped(clip, p[j]) && !clipped(dst, p[j]);
        uv[j] = prim.p1.xy + (p[j] - dst.xy) / (dst.zw - dst.xy) * (prim.p1.zw - prim.p1.xy);
    }
    Plane pl = img.plane;
    vec4 samples[PIXELS];  // the first plane's; x, y, z: Y, Cb, Cr for YUV
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        samples[j] = vec4(0.0);
    }
    // Tested at the bottom, as lavapipe would anyway: a loop tested at its
    // top would sample one more plane, masked.
    uint k = 0u;
    do {
        vec4 s[PIXELS];
        sample_column(pl, uv, inside, img.bilinear, s);
        uvec2 shift = uvec2(img.pic.chroma_shift_x, img.pic.chroma_shift_y);
        [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
            samples[j] = k == 0u ? s[j] : vec4(samples[j].x, k == 1u ? s[j].x : samples[j].y, s[j].x, 1.0);
            uv[j] = k == 0u ? uv[j] / vec2(uvec2(1u) << shift) : uv[j];
        }
        pl.base = k == 0u ? img.pic.offset_u : img.pic.offset_v;
        pl.size = (uvec2(img.pic.width, img.pic.height) + (uvec2(1u) << shift) - 1u) >> shift;
    } while (++k < img.plane_count);
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        color[j] = inside[j] ? image_color(prim, img, samples[j]) : vec4(0.0);
    }
}

// Whether any pixel of this invocation's subgroup still lets light through.
bool subgroup_lit(bool open[PIXELS]) {
    bool any = false;
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        any = any || open[j];
    }
    // A ballot rather than subgroupAny: the device is only asked for ballots.
    return subgroupBallot(any) != uvec4(0u);
}

// Entry k of the tile's list, counting from 1 at `first` (0 reads the
// first), made visibly uniform: a SIMD driver (lavapipe) then loads its
// primitive once per subgroup.
uint list_entry(uint first, uint k) {
    return subgroupBroadcastFirst(tile_lists[first + max(k, 1u) - 1u]);
}

// Entry k as list_entry() gives it, after moving k down past the entries
// whose bounds miss every pixel of this subgroup (`box`: x0, y0, x1, y1 of
// their squares), as the tile lists leave out primitives that miss whole
// tiles. A SIMD driver (lavapipe) shades every pixel of a subgroup for each
// primitive it reaches, and a subgroup there is a few columns of the tile:
// a thin line or a glyph often lies in another's.
uint next_hit(uint first, inout uint k, vec4 box) {
    uint entry;
    bool miss;
    do {
        entry = list_entry(first, k);
        // With k at 0 this is the list's first entry again, which exists:
        // the list being walked is not empty.
        vec4 b = prims[entry & ~IMAGE_BIT].bounds;
        miss = k > 0u && (b.x >= box.z || b.z <= box.x || b.y >= box.w || b.w <= box.y);
        k -= miss ? 1u : 0u;
    } while (miss);
    return entry;
}

bool is_image(uint entry) {
    return (entry & IMAGE_BIT) != 0u;
}

// The tile's pixel `j` of this invocation: WG_SIZE pixels apart in row
// order, so that a subgroup covers whole runs of a row and (WG_SIZE being a
// multiple of TILE_SIZE) all of an invocation's pixels share a column.
uvec2 pixel_of(uvec2 tile, uint item, uint j) {
    uint q = item + WG_SIZE * j;
    return tile * TILE_SIZE + uvec2(q % TILE_SIZE, q / TILE_SIZE);
}

void main() {
    uint tiles_x = (width + TILE_SIZE - 1u) / TILE_SIZE;
    uvec2 tile = uvec2(gl_WorkGroupID.x % tiles_x, gl_WorkGroupID.x / tiles_x);
    // Ordered as a subgroup's invocations, so that each subgroup's pixels
    // are whole runs of rows (a tight box for next_hit).
    uint item = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uvec2 bin = tile / BIN_TILES;
    uvec2 in_bin = tile % BIN_TILES;
    uvec2 range = tile_ranges[(bin.y * bins_x + bin.x) * BIN_TILES * BIN_TILES + in_bin.y * BIN_TILES + in_bin.x];

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
    // The squares of this subgroup's pixels span box (x0, y0, x1, y1).
    vec2 lo = p[0];
    vec2 hi = p[0];
    [[unroll]] for (uint j = 1u; j < PIXELS; ++j) {
        lo = min(lo, p[j]);
        hi = max(hi, p[j]);
    }
    vec4 box = vec4(subgroupMin(lo - 0.5), subgroupMax(hi + 0.5));
    // The loops run in step across each subgroup (there is no barrier in
    // them, so subgroups may part) and the primitive index is made visibly
    // uniform: a SIMD driver (lavapipe) then loads the primitive once per
    // subgroup. lavapipe (Mesa 22.3) also runs both sides of every branch
    // under a mask, but it does leave a loop once no lane is active:
    // looping over each run of shapes, then over each run of images,
    // spares a shape the image code and an image the shape code, for one
    // masked pass at each change of run.
    //
    // It tests for that only at the bottom of a loop: after a test at the
    // top fails, the body still runs once, masked. So every loop here tests
    // at its bottom, and a run that is empty costs the one masked pass it
    // would cost anyway.
    //
    // A subgroup whose pixels are all opaque leaves the loops at once:
    // lavapipe would otherwise run every primitive beneath (the panel under
    // a video pane) through the shading code, masked.
    uint k = range.y - range.x;  // entries left, counting down
    // An empty list reads nothing (on a GPU: lavapipe runs the body masked,
    // its reads bounds-checked).
    if (k > 0u) {
        uint entry = next_hit(range.x, k, box);
        bool lit = subgroup_lit(open);
        do {
            bool more = k > 0u && lit && !is_image(entry);
            do {
                if (more) {
                    Prim prim = prims[entry];
                    vec4 clip = clips[prim.header.y];
                    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
                        if (open[j]) {
                            vec4 c = shade_shape(prim, clip, p[j]);
                            acc[j] += transmit[j] * c;
                            transmit[j] *= 1.0 - c.a;
                            open[j] = transmit[j] > OPAQUE_T;
                        }
                    }
                    --k;
                    entry = next_hit(range.x, k, box);
                    lit = subgroup_lit(open);
                    more = k > 0u && lit && !is_image(entry);
                }
            } while (more);
            more = k > 0u && lit;  // an image, if anything
            do {
                if (more) {
                    Prim prim = prims[entry & ~IMAGE_BIT];
                    vec4 clip = clips[prim.header.y];
                    Image img = image_of(prim);
                    vec4 color[PIXELS];
                    shade_image(prim, clip, img, p, open, color);
                    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
                        if (open[j]) {
                            vec4 c = color[j];
                            acc[j] += transmit[j] * c;
                            transmit[j] *= 1.0 - c.a;
                            open[j] = transmit[j] > OPAQUE_T;
                        }
                    }
                    --k;
                    entry = next_hit(range.x, k, box);
                    lit = subgroup_lit(open);
                    more = k > 0u && lit && is_image(entry);
                }
            } while (more);
        } while (k > 0u && lit);
    }
    [[unroll]] for (uint j = 0u; j < PIXELS; ++j) {
        uvec2 pixel = pixel_of(tile, item, j);
        if (pixel.x < width && pixel.y < height) {
            vec4 c = acc[j] + transmit[j] * background;
#ifdef HDR10_OUTPUT
            imageStore(target, ivec2(pixel), vec4(extended_to_pq(c.rgb), 1.0));
#else
            imageStore(target, ivec2(pixel), vec4(clamp(c.rgb, 0.0, 1.0), 1.0));
#endif
        }
    }
}
