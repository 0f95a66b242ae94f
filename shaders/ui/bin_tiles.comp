#version 460
// Binning, pass 4 of 4: one workgroup per bin splits the bin's list
// (bin_scatter.comp) into a list per tile of the bin, in draw order, so
// that the fused pass walks only the primitives its tile touches (a bin of
// small primitives holds a few hundred times what each tile needs).
//
// Two walks over the bin's list, WG_SIZE entries at a time. The first
// counts each tile's entries; an exclusive prefix sum over the tiles (the
// ordered compaction's scan, compact.glsl, in either SCAN_MODE) turns the
// counts into where each tile's list starts, from the bin's start in the
// tile-list buffer (tile_offsets, from the host). The second writes every
// entry into each tile its span covers at the tile's running end plus its
// rank there, from a bitmap per tile as bin_chunk.glsl ranks primitives
// per bin: the bits below an entry's own are the chunk's entries before it
// in that tile.
//
// Tiles are numbered inside their bin, row by row (tile_span's order):
// tile t of bin b has slot b * BIN_TILES^2 + t in tile_ranges. Tiles past
// the target's edge (in the last row or column of bins) get lists too; the
// fused pass never reads them.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
#include "compact.glsl"
#include "prims.glsl"

#define TILES_PER_BIN (BIN_TILES * BIN_TILES)
// Words of a tile's bitmap: one bit per entry of the chunk.
#define ENTRY_WORDS (WG_SIZE / 32u)

layout(set = 0, binding = 0, std430) readonly buffer BinOffsets { uint bin_offsets[]; };
layout(set = 0, binding = 1, std430) readonly buffer TileOffsets { uint tile_offsets[]; };
layout(set = 0, binding = 2, std430) readonly buffer BinLists { uvec2 bin_lists[]; };
// Per tile slot: its list's start and end in tile_lists.
layout(set = 0, binding = 3, std430) writeonly buffer TileRanges { uvec2 tile_ranges[]; };
// Primitive indices, IMAGE_BIT set on images.
layout(set = 0, binding = 4, std430) writeonly buffer TileLists { uint tile_lists[]; };

// Per tile: its entries (first walk), then where its next one goes.
shared uint s_next[TILES_PER_BIN];
shared uint s_bits[TILES_PER_BIN * ENTRY_WORDS];

// The tiles of `span` (tile_span), as x0, x1, y0, y1, ends exclusive.
uvec4 span_tiles(uint span) {
    return (uvec4(span) >> uvec4(0u, 5u, 10u, 15u)) & 31u;
}

void main() {
    uint bin = gl_WorkGroupID.x;
    uint start = bin_offsets[bin];
    uint end = bin_offsets[bin + 1u];
    uint lane = gl_LocalInvocationID.x;

    s_next[lane] = 0u;
    for (uint w = 0u; w < ENTRY_WORDS; ++w) {
        s_bits[lane * ENTRY_WORDS + w] = 0u;
    }
    barrier();
    for (uint e = start + lane; e < end; e += WG_SIZE) {
        uvec4 s = span_tiles(bin_lists[e].y);
        for (uint y = s.z; y < s.w; ++y) {
            for (uint x = s.x; x < s.y; ++x) {
                atomicAdd(s_next[y * BIN_TILES + x], 1u);
            }
        }
    }
    barrier();
    // Tile `item` (compact_item: the scan's order is the tiles' order).
    uint item = compact_item();
    uint count = s_next[item];
    uint total;
    uint first = tile_offsets[bin] + compact_position(count, total);
    tile_ranges[bin * TILES_PER_BIN + item] = uvec2(first, first + count);
    s_next[item] = first;
    barrier();

    for (uint chunk = start; chunk < end; chunk += WG_SIZE) {
        uint e = chunk + lane;
        uvec2 entry = e < end ? bin_lists[e] : uvec2(0u);  // span 0: no tile
        uvec4 s = span_tiles(entry.y);
        uint word = lane / 32u;
        uint bit = 1u << (lane % 32u);
        for (uint y = s.z; y < s.w; ++y) {
            for (uint x = s.x; x < s.y; ++x) {
                atomicOr(s_bits[(y * BIN_TILES + x) * ENTRY_WORDS + word], bit);
            }
        }
        barrier();
        for (uint y = s.z; y < s.w; ++y) {
            for (uint x = s.x; x < s.y; ++x) {
                uint t = y * BIN_TILES + x;
                uint rank = bitCount(s_bits[t * ENTRY_WORDS + word] & (bit - 1u));
                for (uint w = 0u; w < word; ++w) {
                    rank += bitCount(s_bits[t * ENTRY_WORDS + w]);
                }
                tile_lists[s_next[t] + rank] = entry.x;
            }
        }
        barrier();
        // Tile `lane` moves its end past this chunk's entries and clears
        // its bitmap for the next chunk (only it reads it now).
        uint n = 0u;
        for (uint w = 0u; w < ENTRY_WORDS; ++w) {
            n += bitCount(s_bits[lane * ENTRY_WORDS + w]);
            s_bits[lane * ENTRY_WORDS + w] = 0u;
        }
        s_next[lane] += n;
        barrier();
    }
}
