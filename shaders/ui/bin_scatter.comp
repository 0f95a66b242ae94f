#version 460
// Binning, pass 3 of 4: every primitive writes its entry into each bin it
// covers, at its chunk's start in that bin (bin_scan.comp) plus the number
// of the chunk's primitives before it in the bin, so that every bin's list
// is in draw order. An entry is the primitive's index (IMAGE_BIT set on
// images) and the bin's tiles it overlaps (tile_span), so that
// bin_tiles.comp splits the list among the tiles without reading the
// primitives.
#include "prims.glsl"
#include "bin_chunk.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Prims { Prim prims[]; };
layout(set = 0, binding = 1, std430) readonly buffer ChunkStarts { uint chunk_starts[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BinLists { uvec2 bin_lists[]; };

void main() {
    uint chunk = chunk_index();
    uint chunks = chunk_count();
    if (chunk >= chunks) {
        return;  // the whole workgroup: padding of a two-dimensional dispatch
    }
    uint i = chunk * CHUNK_PRIMS + gl_LocalInvocationID.x;
    bool valid = i < prim_count;
    vec4 bounds = vec4(0.0);
    uvec4 r = uvec4(0u);
    uint index = i;
    if (valid) {
        bounds = prims[i].bounds;
        r = bin_range(bounds, uvec2(bins_x, bins_y));
        index = list_index(i, prims[i].header.x);
    }
    for (uint first = 0u; first < bins_x * bins_y; first += GROUP_BINS) {
        mark_group(valid, r, first);
        if (valid) {
            ivec2 rows = group_rows(r, first);
            for (int y = rows.x; y <= rows.y; ++y) {
                ivec2 cols = group_columns(r, first, uint(y));
                for (int x = cols.x; x <= cols.y; ++x) {
                    uint bin = uint(y) * bins_x + uint(x);
                    uint at = chunk_starts[bin * chunks + chunk] + group_rank(bin - first);
                    bin_lists[at] = uvec2(index, tile_span(bounds, uvec2(x, y)));
                }
            }
        }
        barrier();  // the bitmaps are read before the next group clears
    }
}
