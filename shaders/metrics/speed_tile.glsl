// SpEED's window chains (speed_means.comp, speed_covariance.comp) read the
// centered plane through tiles staged in shared memory. The windows of the 25
// block offsets (column ox, row oy, both below 5) are each read row by row:
// window row i of offset (ox, oy) is plane row i + oy, columns ox ..
// ox + win_w − 1. Step t of a chain is window row t / chunks, columns
// c0 .. c0 + TILE_COLS − 1 of it (c0 = (t % chunks)·TILE_COLS, the last
// chunk of a row shorter): so tile t holds plane rows i .. i + 4, columns
// c0 .. c0 + TILE_COLS + 3, every sample any offset reads at that step.
// The whole workgroup loads tile t + 1 (speed_covariance.comp: t + 2 too)
// from global memory into registers (consecutive samples across
// invocations) while the chains add up tile t from shared memory; the
// registers go into their half of a double buffer (tile t in half t % 2)
// when their turn comes, after which one barrier suffices per step: an
// invocation writing a half for tile t + 2 has passed the barrier of step
// t + 1, so every chain is done with that half's tile t.
//
// Before including: `width`, `win_w` (push constants), `centered[]`, and
// GL_EXT_control_flow_attributes enabled.

const uint TILE_COLS = 256u;
// A tile row's length: 5 more than TILE_COLS (4 are read), so that the 25
// offsets' first samples (oy·TILE_STRIDE + ox) fall in 25 distinct banks of
// 32 floats.
const uint TILE_STRIDE = TILE_COLS + 5u;
const uint TILE_SIZE = 5u * TILE_STRIDE;
// Samples past the double buffer (declared, never written): chains read up
// to 15 samples ahead of those they add.
const uint TILE_PAD = 16u;
// Invocations of a workgroup, and tile samples each one loads.
const uint TILE_GROUP = 256u;
const uint TILE_LOADS = (TILE_SIZE + TILE_GROUP - 1u) / TILE_GROUP;

// Column chunks per window row.
uint tile_chunks() {
    return (win_w + TILE_COLS - 1u) / TILE_COLS;
}

// Tile t of the plane starting at `base`: the samples invocation `l` keeps,
// slot k at tile index l + k·TILE_GROUP (0 past the plane's edge or the
// tile's end; no chain reads those).
void tile_fetch(uint base, uint t, uint l, out float samples[TILE_LOADS]) {
    uint chunks = tile_chunks();
    uint row0 = t / chunks;
    uint c0 = (t % chunks) * TILE_COLS;
    [[unroll]] for (uint k = 0u; k < TILE_LOADS; k++) {
        uint at = l + k * TILE_GROUP;
        uint r = at / TILE_STRIDE;
        uint col = c0 + at % TILE_STRIDE;
        samples[k] = 0.0;
        if (at < TILE_SIZE && col < width) {
            samples[k] = centered[base + (row0 + r) * width + col];
        }
    }
}

// The columns c0 and count of step t's chunk of a window row.
uvec2 tile_columns(uint t) {
    uint c0 = (t % tile_chunks()) * TILE_COLS;
    return uvec2(c0, min(TILE_COLS, win_w - c0));
}
