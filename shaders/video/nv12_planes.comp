#version 460
// A decoded NV12 picture (as copied from the decoder's image: luma rows of
// `stride` bytes, `coded_height` of them, then interleaved Cb Cr rows) into
// the three tight planes the metrics read, cropped to the display window.
// One invocation writes one luma sample and, inside the chroma plane's
// size, one Cb and one Cr sample. Twin: video/src/device_decode.rs.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, std430) readonly buffer Nv12 { uint8_t src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Planes { uint8_t dst[]; };
layout(push_constant) uniform Push {
    uint stride;       // bytes per luma (and chroma) row of the NV12 picture
    uint coded_height; // luma rows of the NV12 picture
    uint left;         // crop offsets, in luma samples (even in 4:2:0)
    uint top;
    uint width;        // display size
    uint height;
    uint y_offset;     // byte offsets of the Y, Cb and Cr planes in `dst`
    uint u_offset;
    uint v_offset;
};
void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x < width && p.y < height) {
        dst[y_offset + p.y * width + p.x] = src[(top + p.y) * stride + left + p.x];
    }
    uint cw = (width + 1) / 2;
    uint ch = (height + 1) / 2;
    if (p.x < cw && p.y < ch) {
        uint s = stride * coded_height + (top / 2 + p.y) * stride + 2 * (left / 2 + p.x);
        dst[u_offset + p.y * cw + p.x] = src[s];
        dst[v_offset + p.y * cw + p.x] = src[s + 1];
    }
}
