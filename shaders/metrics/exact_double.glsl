// Error-free transformations of doubles (ciede_math.glsl, speed_covariance.comp):
// a product or a sum as its rounded value plus the exact remainder, built from
// correctly rounded products and sums, or fma() where the device rounds it
// once (Vulkan does not promise it; metrics/src/device.rs `fma_fuses` asks).
// The including shader declares `FUSED_FMA`, a bool specialization constant,
// before including this file. Every expression is `precise`, as the transformations
// rely on each operation's own rounding.

const double SPLITTER = 134217729.0lf; // 2^27 + 1: Dekker's splitting constant

// a·b exactly, as hi + lo. Where the including shader's FUSED_FMA
// specialization constant says the device's fma() rounds once, the remainder
// is one fma; otherwise Dekker's product (lavapipe does not fuse).
dvec2 two_prod(double a, double b) {
    precise double p = a * b;
    if (FUSED_FMA) {
        precise double e = fma(a, b, -p);
        return dvec2(p, e);
    }
    precise double ta = SPLITTER * a;
    precise double ah = ta - (ta - a);
    precise double al = a - ah;
    precise double tb = SPLITTER * b;
    precise double bh = tb - (tb - b);
    precise double bl = b - bh;
    precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return dvec2(p, e);
}

// a + b exactly, as hi + lo (Knuth's sum).
dvec2 two_sum(double a, double b) {
    precise double s = a + b;
    precise double bb = s - a;
    precise double e = (a - (s - bb)) + (b - bb);
    return dvec2(s, e);
}
