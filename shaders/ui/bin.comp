#version 460
// Coarse binning: one workgroup per bin of BIN_TILES x BIN_TILES tiles scans
// every primitive in chunks and appends those touching the bin, in draw
// order, to the bin's list. The host sized each list exactly (bin_offsets).
// An entry is the primitive's index (IMAGE_BIT set on images) and the
// bin's tiles it overlaps (tile_span), so that the fused pass tests a
// primitive against a tile without reading it.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
#include "compact.glsl"
#include "prims.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Prims { Prim prims[]; };
layout(set = 0, binding = 1, std430) readonly buffer BinOffsets { uint bin_offsets[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BinLists { uvec2 bin_lists[]; };
layout(push_constant) uniform Push {
    uint prim_count;
    uint bins_x;
    uint bins_y;
};

void main() {
    uint bin = gl_WorkGroupID.x;
    uvec2 here = uvec2(bin % bins_x, bin / bins_x);
    uint out_base = bin_offsets[bin];
    uint written = 0u;
    for (uint chunk = 0u; chunk < prim_count; chunk += WG_SIZE) {
        uint i = chunk + compact_item();
        bool keep = false;
        uvec2 entry = uvec2(0u);
        if (i < prim_count) {
            vec4 bounds = prims[i].bounds;
            uvec4 r = bin_range(bounds, uvec2(bins_x, bins_y));
            keep = all(greaterThanEqual(here, r.xy)) && all(lessThanEqual(here, r.zw));
            bool image = (prims[i].header.x & 0xFFu) >= KIND_TEXTURE;
            entry = uvec2(i | (image ? IMAGE_BIT : 0u), tile_span(bounds, here));
        }
        uint total;
        uint pos = compact_position(keep, total);
        if (keep) {
            bin_lists[out_base + written + pos] = entry;
        }
        written += total;
    }
}
