#version 460
// Binning, last pass: one workgroup per bin splits the bin's list
// (bin_scatter.comp) into a list per tile of the bin, in draw order, so
// that the fused pass walks only the primitives its tile touches (a bin of
// small primitives holds a few hundred times what each tile needs).
//
// FROM_PRIMS (a small scene, fused.rs's one-pass binning): the bin's list
// is not built; every workgroup reads all the primitives instead, in draw
// order, and keeps those whose tile span in its bin is not empty. That is
// exactly the bin list's content (a span is empty outside the bins
// bin_range gives, and entries of the list with an empty span reach no
// tile), so the tile lists are the same, word for word. Each bin then does
// primitives x bins work, but the three passes that build the bin lists
// (and the barriers between them) are skipped: on a GPU their launch
// latency, not their work, is what a scene of a few thousand primitives
// pays for binning.
//
// Invocation `item` (compact_item) owns tile `item` of the bin: a bin has
// exactly WG_SIZE tiles, numbered row by row (tile_span's order). The bin's
// list is read CHUNK entries at a time, ENTRIES per invocation, and an
// entry's tile span (a rectangle) is marked as two bitmaps over the chunk's
// entries: one per tile row it covers and one per tile column. The entries
// a tile receives are then the bits set in both its row's and its column's
// bitmap, in draw order, whatever the entry's size: a primitive covering
// the whole bin marks 32 words, not 256 tiles, and each tile does only its
// own work, so a bin of large primitives (the dashboard's panels and video
// panes) is no slower than a bin of small ones.
//
// Two walks over the list. The first counts each tile's entries; an
// exclusive prefix sum over the tiles (the ordered compaction's scan,
// compact.glsl, in either SCAN_MODE) turns the counts into where each
// tile's list starts, from the bin's start in the tile-list buffer
// (tile_offsets, from the host). The second appends each tile's entries to
// its list, chunk by chunk (a list of one chunk is marked once, for both
// walks). The bitmaps and the chunk's entries are double
// buffered: a chunk's are cleared or written while the previous chunk's
// are still being read, so each chunk needs two barriers.
//
// Tile t of bin b has slot b * WG_SIZE + t in tile_ranges. Tiles past the
// target's edge (in the last row or column of bins) get lists too; the
// fused pass never reads them.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
// 1: the entries are all the primitives, not the bin's list (see above).
layout(constant_id = 2) const uint FROM_PRIMS = 0u;
#include "compact.glsl"
#include "prims.glsl"

// Entries each invocation reads per chunk, and the chunk they make: as
// many as keep the shared arrays within 16 KiB, the least Vulkan promises.
#define ENTRIES 3u
#define CHUNK (WG_SIZE * ENTRIES)
// Words of a bitmap over a chunk's entries.
#define WORDS (CHUNK / 32u)

layout(set = 0, binding = 0, std430) readonly buffer BinOffsets { uint bin_offsets[]; };
layout(set = 0, binding = 1, std430) readonly buffer TileOffsets { uint tile_offsets[]; };
layout(set = 0, binding = 2, std430) readonly buffer BinLists { uvec2 bin_lists[]; };
// Per tile slot: its list's start and end in tile_lists.
layout(set = 0, binding = 3, std430) writeonly buffer TileRanges { uvec2 tile_ranges[]; };
// Primitive indices, IMAGE_BIT set on images.
layout(set = 0, binding = 4, std430) writeonly buffer TileLists { uint tile_lists[]; };
// Read with FROM_PRIMS only.
layout(set = 0, binding = 5, std430) readonly buffer Prims { Prim prims[]; };

// The binning passes' push constants (bin_chunk.glsl's; twin:
// encode::BinPush). Read with FROM_PRIMS only.
layout(push_constant) uniform Push {
    uint prim_count;
    uint bins_x;
    uint bins_y;
};

// Two sets (the chunk's parity) of BIN_TILES row bitmaps then BIN_TILES
// column bitmaps, WORDS words each.
#define SET_WORDS (2u * BIN_TILES * WORDS)
shared uint s_bits[2u * SET_WORDS];
// The chunk's entries (primitive index | IMAGE_BIT), for the second walk.
shared uint s_entries[2u * CHUNK];

// First word of row bitmap `row` (or, past the rows, column bitmap
// `row - BIN_TILES`) in set `set`.
uint bitmap(uint set, uint row) {
    return set * SET_WORDS + row * WORDS;
}

// Marks this invocation's entries of the chunk at `chunk` (ending at `end`)
// in set `set` after clearing it, keeping their primitive indices when
// `keep` (the second walk). Ends with the barrier after which the set can
// be read.
void mark_chunk(uint chunk, uint end, uint set, bool keep) {
    for (uint w = gl_LocalInvocationID.x; w < SET_WORDS; w += WG_SIZE) {
        s_bits[set * SET_WORDS + w] = 0u;
    }
    barrier();
    for (uint j = 0u; j < ENTRIES; ++j) {
        uint k = j * WG_SIZE + gl_LocalInvocationID.x;  // entry k of the chunk
        if (chunk + k < end) {
            uvec2 entry;
            if (FROM_PRIMS != 0u) {
                uint bin = gl_WorkGroupID.x;
                uint i = chunk + k;
                entry.x = list_index(i, prims[i].header.x);
                entry.y = tile_span(prims[i].bounds, uvec2(bin % bins_x, bin / bins_x));
            } else {
                entry = bin_lists[chunk + k];
            }
            if (keep) {
                s_entries[set * CHUNK + k] = entry.x;
            }
            // The span's tiles as x0, x1, y0, y1, ends exclusive.
            uvec4 s = (uvec4(entry.y) >> uvec4(0u, 5u, 10u, 15u)) & 31u;
            uint word = k / 32u;
            uint bit = 1u << (k % 32u);
            if (s.x < s.y) {
                for (uint y = s.z; y < s.w; ++y) {
                    atomicOr(s_bits[bitmap(set, y) + word], bit);
                }
            }
            if (s.z < s.w) {
                for (uint x = s.x; x < s.y; ++x) {
                    atomicOr(s_bits[bitmap(set, BIN_TILES + x) + word], bit);
                }
            }
        }
    }
    barrier();
}

void main() {
    uint bin = gl_WorkGroupID.x;
    uint start = FROM_PRIMS != 0u ? 0u : bin_offsets[bin];
    uint end = FROM_PRIMS != 0u ? prim_count : bin_offsets[bin + 1u];
    uint tile = compact_item();
    uint row = bitmap(0u, tile / BIN_TILES);
    uint column = bitmap(0u, BIN_TILES + tile % BIN_TILES);

    // A list of one chunk (most bins of a dashboard) is marked once: the
    // second walk reads the first walk's bitmaps and entries.
    bool one_chunk = end - start <= CHUNK;
    uint count = 0u;
    uint set = 0u;
    for (uint chunk = start; chunk < end; chunk += CHUNK, set ^= 1u) {
        mark_chunk(chunk, end, set, one_chunk);
        uint base = set * SET_WORDS;
        for (uint w = 0u; w < WORDS; ++w) {
            count += bitCount(s_bits[base + row + w] & s_bits[base + column + w]);
        }
    }
    uint total;
    uint next = tile_offsets[bin] + compact_position(count, total);
    tile_ranges[bin * WG_SIZE + tile] = uvec2(next, next + count);

    set = 0u;
    for (uint chunk = start; chunk < end; chunk += CHUNK, set ^= 1u) {
        if (!one_chunk) {
            mark_chunk(chunk, end, set, true);
        }
        uint base = set * SET_WORDS;
        for (uint w = 0u; w < WORDS; ++w) {
            uint bits = s_bits[base + row + w] & s_bits[base + column + w];
            for (; bits != 0u; bits &= bits - 1u) {
                tile_lists[next] = s_entries[set * CHUNK + w * 32u + uint(findLSB(bits))];
                ++next;
            }
        }
    }
}
