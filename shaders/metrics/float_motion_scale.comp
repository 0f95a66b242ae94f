#version 460
// float_motion, pass 2 of 4 (only with motion_add_scale1): libvmaf's
// bilinear downscale of both blurred planes to half size. CPU twin:
// `downscale` in metrics/src/features/float_motion/mod.rs; driver: its
// gpu.rs.
//
// The source coordinate (i + 0.5) * ratio - 0.5 is a double expression
// stored as a float, the ratio a float division done on the host; the
// interpolation is libvmaf's float expression left to right, `precise`.

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer Blurred { float blurred[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Scaled { float scaled[]; };

// Twin: `ScalePush` in metrics/src/features/float_motion/gpu.rs.
layout(push_constant, std430) uniform Push {
    uint src_w;
    uint src_h;
    uint dst_w;
    uint dst_h;
    float ratio_x;
    float ratio_y;
};

float source_coordinate(uint i, float ratio) {
    precise double c = (double(i) + 0.5) * double(ratio) - 0.5;
    return float(c);
}

// libvmaf's float mirror of the bilinear scaler.
float reflect_index(float i, float right) {
    precise float above = 2.0 * right - i;
    return i < 0.0 ? -i : (i > right ? above : i);
}

void main() {
    uint ox = gl_GlobalInvocationID.x;
    uint oy = gl_GlobalInvocationID.y;
    if (ox >= dst_w || oy >= dst_h) {
        return;
    }
    uint src_base = gl_GlobalInvocationID.z * src_w * src_h;
    float x = source_coordinate(ox, ratio_x);
    float y = source_coordinate(oy, ratio_y);
    float right_x = float(src_w - 1u);
    float right_y = float(src_h - 1u);
    int x1 = int(reflect_index(floor(x), right_x));
    int x2 = int(reflect_index(ceil(x), right_x));
    int y1 = int(reflect_index(floor(y), right_y));
    int y2 = int(reflect_index(ceil(y), right_y));
    precise float dx = x - float(x1);
    precise float dy = y - float(y1);
    float s11 = blurred[src_base + uint(y1) * src_w + uint(x1)];
    float s12 = blurred[src_base + uint(y1) * src_w + uint(x2)];
    float s21 = blurred[src_base + uint(y2) * src_w + uint(x1)];
    float s22 = blurred[src_base + uint(y2) * src_w + uint(x2)];
    precise float v = (1.0 - dy) * (1.0 - dx) * s11 + (1.0 - dy) * dx * s12
        + dy * (1.0 - dx) * s21 + dy * dx * s22;
    scaled[gl_GlobalInvocationID.z * dst_w * dst_h + oy * dst_w + ox] = v;
}
