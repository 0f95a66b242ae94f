#version 460
// A decoded NV12 or P010 picture (as copied from the decoder's image: luma
// rows of `stride` bytes, `coded_height` of them, then interleaved Cb Cr
// rows) into the three tight planes the metrics read, cropped to the
// display window. P010 samples (`bytes_per_sample` 2) are little-endian
// words with their 10 bits high; the planes get them as words 0 to 1023,
// as y4m lays them out. One invocation writes one luma sample and, inside
// the chroma plane's size, one Cb and one Cr sample.
// Twin: video/src/device_decode.rs (`crop`, `Nv12Push`).
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, std430) readonly buffer Nv12 { uint8_t src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Planes { uint8_t dst[]; };
layout(push_constant) uniform Push {
    uint stride;       // bytes per luma (and chroma) row of the picture
    uint coded_height; // luma rows of the picture
    uint left;         // crop offsets, in luma samples (even in 4:2:0)
    uint top;
    uint width;        // display size
    uint height;
    uint y_offset;     // byte offsets of the Y, Cb and Cr planes in `dst`
    uint u_offset;
    uint v_offset;
    uint bytes_per_sample; // 1 (NV12) or 2 (P010)
};

// Copies the sample at byte `from` of `src` to sample `to` of the plane at
// byte `plane` of `dst`.
void copy_sample(uint from, uint plane, uint to) {
    if (bytes_per_sample == 1) {
        dst[plane + to] = src[from];
    } else {
        uint word = (uint(src[from]) | (uint(src[from + 1]) << 8)) >> 6;
        dst[plane + 2 * to] = uint8_t(word & 0xff);
        dst[plane + 2 * to + 1] = uint8_t(word >> 8);
    }
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    uint b = bytes_per_sample;
    if (p.x < width && p.y < height) {
        copy_sample((top + p.y) * stride + (left + p.x) * b, y_offset, p.y * width + p.x);
    }
    uint cw = (width + 1) / 2;
    uint ch = (height + 1) / 2;
    if (p.x < cw && p.y < ch) {
        uint s = stride * coded_height + (top / 2 + p.y) * stride + 2 * (left / 2 + p.x) * b;
        copy_sample(s, u_offset, p.y * cw + p.x);
        copy_sample(s + b, v_offset, p.y * cw + p.x);
    }
}
