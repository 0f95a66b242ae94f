// Reading samples of a plane that lives in a storage buffer of 32-bit words,
// as the video upload path leaves frames: 1 byte per sample for 8-bit
// input, 2 (little-endian) above. Twin: metrics/src/device.rs `DevicePlane`.
//
// Requires before inclusion: a buffer declared as `uint PLANE_WORDS[]` via
// `#define PLANE_WORDS name`.

struct PlaneDesc {
    uint offset;            // byte offset of sample (0, 0), a multiple of 4
    uint width;
    uint height;
    uint stride;            // samples per row
    uint bytes_per_sample;  // 1 or 2
    uint bpc;               // coded bit depth (8, 10, 12, 16)
    uint pad0;
    uint pad1;
};

// Sample at (x, y); the caller keeps (x, y) inside the plane.
uint plane_load(PlaneDesc p, uint x, uint y) {
    uint byte_index = p.offset + (y * p.stride + x) * p.bytes_per_sample;
    uint word = PLANE_WORDS[byte_index >> 2];
    uint shift = (byte_index & 3u) * 8u;
    return p.bytes_per_sample == 1u ? (word >> shift) & 0xFFu : (word >> shift) & 0xFFFFu;
}
