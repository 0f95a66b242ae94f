#version 460
// The UI's ordered compaction on its own, for the GPU-vs-CPU test: every
// workgroup compacts WG_SIZE keep bits into the indices of the kept items.
#define WG_SIZE 256u
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint SCAN_MODE = 0u;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64u;
#include "../ui/compact.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Keep { uint keep[]; };
// out_items[wg * WG_SIZE + pos] = item index; out_count[wg] = total kept.
layout(set = 0, binding = 1, std430) writeonly buffer Items { uint out_items[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Counts { uint out_count[]; };

void main() {
    uint item = gl_WorkGroupID.x * WG_SIZE + compact_item();
    uint total;
    uint pos = compact_position(keep[item] != 0u, total);
    if (keep[item] != 0u) {
        out_items[gl_WorkGroupID.x * WG_SIZE + pos] = item;
    }
    if (compact_item() == 0u) {
        out_count[gl_WorkGroupID.x] = total;
    }
}
