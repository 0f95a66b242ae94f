#version 460
// Binning, pass 2 of 4: one workgroup per bin turns the bin's per-chunk
// counts (bin_count.comp) into where each chunk's entries start in the
// bin-list buffer: the bin's own start (bin_offsets, from the host) plus an
// exclusive prefix sum over the chunks, in place. The sum is the ordered
// compaction's scan (compact.glsl), in either SCAN_MODE, WG_SIZE counts
// at a time with the running total carried between steps.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
#include "compact.glsl"
#include "prims.glsl"

layout(set = 0, binding = 0, std430) readonly buffer BinOffsets { uint bin_offsets[]; };
layout(set = 0, binding = 1, std430) buffer ChunkCounts { uint chunk_counts[]; };
layout(push_constant) uniform Push {
    uint prim_count;
    uint bins_x;
    uint bins_y;
};

void main() {
    uint bin = gl_WorkGroupID.x;
    uint chunks = (prim_count + CHUNK_PRIMS - 1u) / CHUNK_PRIMS;
    uint row = bin * chunks;
    uint run = bin_offsets[bin];
    for (uint step = 0u; step < chunks; step += WG_SIZE) {
        uint c = step + compact_item();
        uint count = c < chunks ? chunk_counts[row + c] : 0u;
        uint total;
        uint pos = compact_position(count, total);
        if (c < chunks) {
            chunk_counts[row + c] = run + pos;
        }
        run += total;
    }
}
