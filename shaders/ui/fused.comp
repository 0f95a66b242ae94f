#version 460
// The fused UI pass: one workgroup per TILE_SIZE x TILE_SIZE tile. The tile
// walks its bin's primitive list from the top of the draw order down, in
// chunks of WG_SIZE: each chunk is tested against the tile, the survivors are
// compacted in draw order into shared memory, then every pixel composites
// them front to back ("under"), stopping once the whole tile is opaque.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
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

shared uint s_list[WG_SIZE];
shared uint s_open;  // pixels of the tile still letting light through

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

// Straight-alpha RGBA8 texel, premultiplied.
vec4 texel_rgba(Texture t, ivec2 xy) {
    xy = clamp(xy, ivec2(0), ivec2(t.width, t.height) - 1);
    vec4 c = unpackUnorm4x8(texels[t.offset + uint(xy.y) * t.width + uint(xy.x)]);
    return vec4(c.rgb * c.a, c.a);
}

float texel_r8(Texture t, ivec2 xy) {
    xy = clamp(xy, ivec2(0), ivec2(t.width, t.height) - 1);
    uint i = uint(xy.y) * t.width + uint(xy.x);
    return float((texels[t.offset + i / 4u] >> (8u * (i % 4u))) & 0xFFu) / 255.0;
}

vec4 sample_rgba(Texture t, vec2 uv, bool bilinear) {
    if (!bilinear) {
        return texel_rgba(t, ivec2(floor(uv)));
    }
    vec2 s = uv - 0.5;
    ivec2 i = ivec2(floor(s));
    vec2 f = s - vec2(i);
    vec4 top = mix(texel_rgba(t, i), texel_rgba(t, i + ivec2(1, 0)), f.x);
    vec4 bottom = mix(texel_rgba(t, i + ivec2(0, 1)), texel_rgba(t, i + ivec2(1, 1)), f.x);
    return mix(top, bottom, f.y);
}

// One sample of a plane, normalised to 0..1 of its bit depth's range.
float plane_sample(Picture pic, uint offset, uint w, uint h, ivec2 xy) {
    xy = clamp(xy, ivec2(0), ivec2(w, h) - 1);
    uint byte_index = offset + (uint(xy.y) * w + uint(xy.x)) * pic.bytes_per_sample;
    uint word = planes[byte_index / 4u];
    uint v;
    if (pic.bytes_per_sample == 1u) {
        v = (word >> (8u * (byte_index % 4u))) & 0xFFu;
    } else {
        v = (word >> (8u * (byte_index % 4u))) & 0xFFFFu;
    }
    return float(v);
}

float plane_bilinear(Picture pic, uint offset, uint w, uint h, vec2 uv, bool bilinear) {
    if (!bilinear) {
        return plane_sample(pic, offset, w, h, ivec2(floor(uv)));
    }
    vec2 s = uv - 0.5;
    ivec2 i = ivec2(floor(s));
    vec2 f = s - vec2(i);
    float top = mix(plane_sample(pic, offset, w, h, i), plane_sample(pic, offset, w, h, i + ivec2(1, 0)), f.x);
    float bottom = mix(plane_sample(pic, offset, w, h, i + ivec2(0, 1)), plane_sample(pic, offset, w, h, i + ivec2(1, 1)), f.x);
    return mix(top, bottom, f.y);
}

// YUV at luma coordinate uv, as opaque RGB.
vec4 sample_yuv(Picture pic, vec2 uv, bool bilinear) {
    uint cw = (pic.width + (1u << pic.chroma_shift_x) - 1u) >> pic.chroma_shift_x;
    uint ch = (pic.height + (1u << pic.chroma_shift_y) - 1u) >> pic.chroma_shift_y;
    vec2 cuv = uv / vec2(1u << pic.chroma_shift_x, 1u << pic.chroma_shift_y);
    float y = plane_bilinear(pic, pic.offset_y, pic.width, pic.height, uv, bilinear);
    float cb = plane_bilinear(pic, pic.offset_u, cw, ch, cuv, bilinear);
    float cr = plane_bilinear(pic, pic.offset_v, cw, ch, cuv, bilinear);
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

float map_value(Map m, ivec2 xy) {
    xy = clamp(xy, ivec2(0), ivec2(m.width, m.height) - 1);
    uint i = m.offset + uint(xy.y) * m.width + uint(xy.x);
    if (m.source == 0u) {
        return uintBitsToFloat(texels[i]);
    }
    return m.source == 1u ? ext_map0[i] : ext_map1[i];
}

// Values are interpolated before they are coloured, so a bilinear heat map
// shows in-between values, not in-between colours of the ramp.
float sample_map(Map m, vec2 uv, bool bilinear) {
    if (!bilinear) {
        return map_value(m, ivec2(floor(uv)));
    }
    vec2 s = uv - 0.5;
    ivec2 i = ivec2(floor(s));
    vec2 f = s - vec2(i);
    float top = mix(map_value(m, i), map_value(m, i + ivec2(1, 0)), f.x);
    float bottom = mix(map_value(m, i + ivec2(0, 1)), map_value(m, i + ivec2(1, 1)), f.x);
    return mix(top, bottom, f.y);
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

// Premultiplied colour of primitive `prim` at pixel centre p.
vec4 shade(Prim prim, vec2 p) {
    vec4 clip = clips[prim.header.y];
    if (p.x < clip.x || p.y < clip.y || p.x >= clip.z || p.y >= clip.w) {
        return vec4(0.0);
    }
    uint kind = prim.header.x & 0xFFu;
    bool bilinear = ((prim.header.x >> 8) & 1u) != 0u;
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
    if (kind == KIND_LINE) {
        vec2 a = prim.p0.xy;
        vec2 ba = prim.p0.zw - a;
        vec2 pa = p - a;
        float len2 = dot(ba, ba);
        float h = len2 > 0.0 ? clamp(dot(pa, ba) / len2, 0.0, 1.0) : 0.0;
        float d = length(pa - ba * h) - 0.5 * param;
        return prim.color * coverage(d);
    }
    // Images cover their destination rectangle with hard edges, so a video
    // shown 1:1 maps each pixel to exactly one sample.
    vec4 dst = prim.p0;
    if (p.x < dst.x || p.y < dst.y || p.x >= dst.z || p.y >= dst.w) {
        return vec4(0.0);
    }
    vec2 uv = prim.p1.xy + (p - dst.xy) / (dst.zw - dst.xy) * (prim.p1.zw - prim.p1.xy);
    if (kind == KIND_TEXTURE) {
        return sample_rgba(textures[prim.header.z], uv, bilinear) * param;
    }
    if (kind == KIND_GLYPH) {
        return prim.color * texel_r8(textures[prim.header.z], ivec2(floor(uv)));
    }
    if (kind == KIND_HEATMAP) {
        float v = sample_map(maps[prim.header.z], uv, bilinear);
        return heat_color(v, prim.p2.x, prim.p2.y) * param;
    }
    return sample_yuv(pictures[prim.header.z], uv, bilinear);
}

void main() {
    uint tiles_x = (width + TILE_SIZE - 1u) / TILE_SIZE;
    uvec2 tile = uvec2(gl_WorkGroupID.x % tiles_x, gl_WorkGroupID.x / tiles_x);
    uint item = compact_item();
    uvec2 pixel = tile * TILE_SIZE + uvec2(item % TILE_SIZE, item / TILE_SIZE);
    vec2 p = vec2(pixel) + 0.5;
    vec4 tile_rect = vec4(tile * TILE_SIZE, (tile + 1u) * TILE_SIZE);

    uvec2 bin = tile / BIN_TILES;
    uint b = bin.y * bins_x + bin.x;
    uint start = bin_offsets[b];
    uint end = bin_offsets[b + 1u];

    vec4 acc = vec4(0.0);
    float transmit = 1.0;
    bool inside = pixel.x < width && pixel.y < height;
    if (item == 0u) {
        s_open = 0u;
    }
    barrier();
    for (uint chunk_end = end; chunk_end > start;) {
        uint chunk_start = chunk_end > start + WG_SIZE ? chunk_end - WG_SIZE : start;
        uint i = chunk_start + item;
        bool keep = false;
        uint prim_index = 0u;
        if (i < chunk_end) {
            prim_index = bin_lists[i];
            vec4 bb = prims[prim_index].bounds;
            keep = bb.x < tile_rect.z && bb.z > tile_rect.x && bb.y < tile_rect.w && bb.w > tile_rect.y;
        }
        uint total;
        uint pos = compact_position(keep, total);
        if (keep) {
            s_list[pos] = prim_index;
        }
        barrier();
        // The loop runs in step across the workgroup and the primitive index
        // is made visibly uniform: a SIMD driver (lavapipe) then loads the
        // primitive once per subgroup and branches on its kind, instead of
        // gathering every field per lane and masking every branch.
        for (uint k = total; k > 0u; --k) {
            uint index = subgroupBroadcastFirst(s_list[k - 1u]);
            if (inside && transmit > OPAQUE_T) {
                vec4 c = shade(prims[index], p);
                acc += transmit * c;
                transmit *= 1.0 - c.a;
            }
        }
        if (inside && transmit > OPAQUE_T) {
            atomicAdd(s_open, 1u);
        }
        barrier();
        uint open_pixels = s_open;
        barrier();
        if (item == 0u) {
            s_open = 0u;
        }
        barrier();
        if (open_pixels == 0u) {
            break;
        }
        chunk_end = chunk_start;
    }
    if (inside) {
        acc += transmit * background;
        imageStore(target, ivec2(pixel), vec4(clamp(acc.rgb, 0.0, 1.0), 1.0));
    }
}
