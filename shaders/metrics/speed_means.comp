#version 460
// SpEED, pass 4 of 5: the mean of the window at each of a block's 25
// offsets, one workgroup per plane, one invocation per offset: a float sum in
// raster order (libvmaf's order; it cannot be split) divided by the window's
// area, rounded as a float division is.
// CPU twin: metrics/src/features/speed/mod.rs (`window_means`); driver:
// metrics/src/features/speed/gpu.rs.

layout(local_size_x = 32) in;

layout(set = 0, binding = 0, std430) readonly buffer Centered { float centered[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Means { float means[]; };

// Twin: `WindowPush` in metrics/src/features/speed/gpu.rs; the two must agree.
layout(push_constant, std430) uniform Push {
    uint width;
    uint height;
    uint win_w;
    uint win_h;
};

// The float nearest below and above q (q finite and not zero).
float float_below(float q) {
    return uintBitsToFloat(floatBitsToUint(q) + (q > 0.0 ? uint(-1) : 1u));
}
float float_above(float q) {
    return uintBitsToFloat(floatBitsToUint(q) + (q > 0.0 ? 1u : uint(-1)));
}

// a / n correctly rounded to float (ties to even), n a positive integer below
// 2^24. Vulkan's float and double divisions are not correctly rounded, so the
// double quotient rounded to float is checked against the remainder
// a − q·n, which is exact in double (q and n have 24 significant bits each),
// and moved to a neighbour while it lies more than half a gap away.
float divide_by_count(float a, uint n) {
    double dn = double(n);
    float q = float(double(a) / dn);
    for (int i = 0; i < 3 && q != 0.0; i++) {
        precise double r = double(a) - double(q) * dn;
        float above = float_above(q);
        float below = float_below(q);
        precise double half_up = (double(above) - double(q)) * 0.5lf * dn;
        precise double half_down = (double(q) - double(below)) * 0.5lf * dn;
        bool odd = (floatBitsToUint(q) & 1u) != 0u;
        if (r > half_up || (r == half_up && odd)) {
            q = above;
        } else if (-r > half_down || (-r == half_down && odd)) {
            q = below;
        } else {
            break;
        }
    }
    return q;
}

void main() {
    uint e = gl_LocalInvocationID.x;
    if (e >= 25u) {
        return;
    }
    uint plane = gl_WorkGroupID.x;
    uint start = plane * width * height + (e / 5u) * width + e % 5u;
    precise float sum = 0.0;
    for (uint i = 0u; i < win_h; i++) {
        uint row = start + i * width;
        for (uint j = 0u; j < win_w; j++) {
            sum = sum + centered[row + j];
        }
    }
    means[plane * 25u + e] = divide_by_count(sum, win_w * win_h);
}
