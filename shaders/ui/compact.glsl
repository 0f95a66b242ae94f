// Ordered stream compaction of one workgroup's worth of items.
//
// Each invocation owns item `compact_item()` (derived from the subgroup, so
// that item order equals (gl_SubgroupID, gl_SubgroupInvocationID) order) and
// keeps `count` entries of it. compact_position() returns where its first
// kept entry lands among the workgroup's kept entries, in item order, and the
// total kept.
//
// SCAN_MODE 0: subgroupExclusiveAdd inside each subgroup plus a carry across
// subgroups through shared memory (s_sg_total, sized by the device's minimum
// subgroup size, indexed by gl_SubgroupID): correct for any subgroup size.
// SCAN_MODE 1: lane 0 scans all counts serially (the baseline).
//
// Requires before inclusion: WG_SIZE (items per workgroup), the
// specialization constants SCAN_MODE and MAX_SUBGROUPS, and full subgroups
// (the pipeline asks for them).

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

shared uint s_sg_total[MAX_SUBGROUPS];
shared uint s_serial[WG_SIZE];
shared uint s_serial_total;

uint compact_item() {
    return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
}

uint compact_position(uint count, out uint total) {
    if (SCAN_MODE == 0u) {
        uint local_pos = subgroupExclusiveAdd(count);
        uint sg_sum = subgroupAdd(count);
        if (subgroupElect()) {
            s_sg_total[gl_SubgroupID] = sg_sum;
        }
        barrier();
        uint before = 0u;
        total = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) {
            uint t = s_sg_total[s];
            before += (s < gl_SubgroupID) ? t : 0u;
            total += t;
        }
        barrier();
        return before + local_pos;
    } else {
        uint item = compact_item();
        s_serial[item] = count;
        barrier();
        if (item == 0u) {
            uint run = 0u;
            for (uint i = 0u; i < WG_SIZE; ++i) {
                uint n = s_serial[i];
                s_serial[i] = run;
                run += n;
            }
            s_serial_total = run;
        }
        barrier();
        uint pos = s_serial[item];
        total = s_serial_total;
        barrier();
        return pos;
    }
}

// One entry per item, kept or not.
uint compact_position(bool keep, out uint total) {
    return compact_position(keep ? 1u : 0u, total);
}
