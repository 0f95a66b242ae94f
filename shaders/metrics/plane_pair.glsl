// Reading two planes that may live in two different storage buffers (the
// previous and current reference frame for motion, reference and distorted
// for PSNR): plane.glsl binds its loader to one buffer named by PLANE_WORDS,
// so this includes it twice, renaming its struct and function the second
// time, instead of copying its addressing.
//
// Requires before inclusion: `#define PLANE_WORDS_A name_a` and
// `#define PLANE_WORDS_B name_b`, both declared as `uint name[]` buffers.
// Provides: `PlaneDesc`, `plane_load(desc, x, y)` reading buffer A and
// `plane_load_b(desc, x, y)` reading buffer B.

#define PLANE_WORDS PLANE_WORDS_A
#include "plane.glsl"
#undef PLANE_WORDS

#define PLANE_WORDS PLANE_WORDS_B
#define PlaneDesc PlaneDescB_
#define plane_load plane_load_b_
#include "plane.glsl"
#undef plane_load
#undef PlaneDesc
#undef PLANE_WORDS

// Sample at (x, y) of a plane in buffer B. Lists every PlaneDesc field, so a
// change to the struct in plane.glsl fails to compile here rather than
// silently misreading.
uint plane_load_b(PlaneDesc p, uint x, uint y) {
    PlaneDescB_ q = PlaneDescB_(p.offset, p.width, p.height, p.stride, p.bytes_per_sample, p.bpc,
                                p.pad0, p.pad1);
    return plane_load_b_(q, x, y);
}
