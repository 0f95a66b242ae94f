// Requires before inclusion: prims.glsl (CHUNK_PRIMS, bin_range).
//
// Binning in chunks of CHUNK_PRIMS primitives, one workgroup each, for the
// two passes that visit primitives (bin_count.comp, bin_scatter.comp).
//
// Work is proportional to the bins each primitive covers, not to bins x
// primitives: every invocation sets its primitive's bit in a bitmap per bin
// it covers, so a bin's popcount is how many of the chunk's primitives it
// receives and the bits below a primitive's own are how many of them come
// before it in draw order. Bitmaps live in shared memory for GROUP_BINS
// bins at a time; a larger grid takes several rounds, each marking only the
// covered bins inside its group, so no covered bin is visited twice.
#define CHUNK_WORDS (CHUNK_PRIMS / 32u)
#define GROUP_BINS 256u
layout(local_size_x = 256) in;

layout(push_constant) uniform Push {
    uint prim_count;
    uint bins_x;
    uint bins_y;
};

shared uint s_bits[GROUP_BINS * CHUNK_WORDS];

// The chunk of this workgroup: the host dispatches chunks over x and y
// (a large scene has more than the device's maximum workgroups in x).
uint chunk_index() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

uint chunk_count() {
    return (prim_count + CHUNK_PRIMS - 1u) / CHUNK_PRIMS;
}

// The last bin of the group of bins starting at linear index `first`.
uint group_last(uint first) {
    return min(first + GROUP_BINS, bins_x * bins_y) - 1u;
}

// The rows of range r (bin_range) that reach into the group at `first`
// (none when x > y).
ivec2 group_rows(uvec4 r, uint first) {
    return ivec2(max(r.y, first / bins_x), min(r.w, group_last(first) / bins_x));
}

// The columns of range r in row y that fall inside the group at `first`
// (none when x > y).
ivec2 group_columns(uvec4 r, uint first, uint y) {
    int row = int(y * bins_x);
    return ivec2(max(int(r.x), int(first) - row), min(int(r.z), int(group_last(first)) - row));
}

// Clears the bitmaps, marks the chunk's primitive of this invocation
// (`valid`: it exists) in the bins of r inside the group at `first`, and
// leaves the bitmaps ready to read (barriers included).
void mark_group(bool valid, uvec4 r, uint first) {
    uint words = (group_last(first) + 1u - first) * CHUNK_WORDS;
    for (uint w = gl_LocalInvocationID.x; w < words; w += gl_WorkGroupSize.x) {
        s_bits[w] = 0u;
    }
    barrier();
    if (valid) {
        uint word = gl_LocalInvocationID.x / 32u;
        uint bit = 1u << (gl_LocalInvocationID.x % 32u);
        ivec2 rows = group_rows(r, first);
        for (int y = rows.x; y <= rows.y; ++y) {
            ivec2 cols = group_columns(r, first, uint(y));
            for (int x = cols.x; x <= cols.y; ++x) {
                atomicOr(s_bits[(uint(y) * bins_x + uint(x) - first) * CHUNK_WORDS + word], bit);
            }
        }
    }
    barrier();
}

// Primitives of the chunk in bin `first + local` (local < GROUP_BINS).
uint group_count(uint local) {
    uint n = 0u;
    for (uint w = 0u; w < CHUNK_WORDS; ++w) {
        n += bitCount(s_bits[local * CHUNK_WORDS + w]);
    }
    return n;
}

// Primitives of the chunk in bin `first + local` that come before this
// invocation's.
uint group_rank(uint local) {
    uint word = gl_LocalInvocationID.x / 32u;
    uint below = (1u << (gl_LocalInvocationID.x % 32u)) - 1u;
    uint n = bitCount(s_bits[local * CHUNK_WORDS + word] & below);
    for (uint w = 0u; w < word; ++w) {
        n += bitCount(s_bits[local * CHUNK_WORDS + w]);
    }
    return n;
}
