#version 460
// Binning, pass 1 of 4: how many primitives of each chunk (bin_chunk.glsl)
// each bin receives, into chunk_counts[bin * chunks + chunk] (bin-major,
// so that bin_scan.comp reads a bin's counts in a row).
#include "prims.glsl"
#include "bin_chunk.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Prims { Prim prims[]; };
layout(set = 0, binding = 1, std430) writeonly buffer ChunkCounts { uint chunk_counts[]; };

void main() {
    uint chunk = chunk_index();
    uint chunks = chunk_count();
    if (chunk >= chunks) {
        return;  // the whole workgroup: padding of a two-dimensional dispatch
    }
    uint i = chunk * CHUNK_PRIMS + gl_LocalInvocationID.x;
    bool valid = i < prim_count;
    uvec4 r = valid ? bin_range(prims[i].bounds, uvec2(bins_x, bins_y)) : uvec4(0u);
    for (uint first = 0u; first < bins_x * bins_y; first += GROUP_BINS) {
        mark_group(valid, r, first);
        for (uint b = gl_LocalInvocationID.x; b < GROUP_BINS && first + b < bins_x * bins_y; b += gl_WorkGroupSize.x) {
            chunk_counts[(first + b) * chunks + chunk] = group_count(b);
        }
        barrier();  // the counts are read before the next group clears
    }
}
