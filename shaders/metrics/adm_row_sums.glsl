// Adding a 32x8 tile's per-sample values into the int64 row sums of the
// integer ADM kernels (layout in adm_common.glsl). libvmaf rounds every
// row's sum before adding rows up, so rows stay apart until adm_rows.comp;
// the columns of a row are summed in shared memory here, then added across
// tiles with int64 atomics.
//
// Requires before inclusion: adm_common.glsl, `#define ROW_FIELDS n` (values
// per sample), a `buffer { int64_t row_sums[]; }`, local size 32x8.
#extension GL_EXT_shader_atomic_int64 : require

shared int64_t s_row[ROW_FIELDS][256];

// Every invocation of the workgroup calls this (it has barriers), with
// `vals` of its own sample (0 where the sample is not scored); it may be
// called again, the shared memory is free when it returns. Tile row j
// is core row `core_row0 + j`; rows outside [0, core_rows) are not added.
// Field f goes to field `first_field + f` of the row.
void add_row_sums(int64_t vals[ROW_FIELDS], uint base, int core_row0, int core_rows,
                  uint first_field) {
    uint tid = gl_LocalInvocationIndex;
    for (int f = 0; f < ROW_FIELDS; f++) {
        s_row[f][tid] = vals[f];
    }
    barrier();
    // Fold each row's 32 columns into its first 8.
    if ((tid & 31u) < 8u) {
        for (int f = 0; f < ROW_FIELDS; f++) {
            s_row[f][tid] += s_row[f][tid + 8u] + s_row[f][tid + 16u] + s_row[f][tid + 24u];
        }
    }
    barrier();
    if (tid < 8u * uint(ROW_FIELDS)) {
        uint row = tid / uint(ROW_FIELDS);
        uint f = tid % uint(ROW_FIELDS);
        int64_t sum = 0;
        for (uint c = 0u; c < 8u; c++) {
            sum += s_row[f][row * 32u + c];
        }
        int core_row = core_row0 + int(row);
        if (core_row >= 0 && core_row < core_rows && sum != 0) {
            atomicAdd(row_sums[base + uint(core_row) * ADM_FIELDS + first_field + f], sum);
        }
    }
    barrier();
}
