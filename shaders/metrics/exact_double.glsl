// Error-free transformations of doubles (ciede_math.glsl, speed_covariance.comp):
// a product or a sum as its rounded value plus the exact remainder, built from
// correctly rounded products and sums only (Vulkan's fma() on doubles may or
// may not round once). Every expression is `precise`, as the transformations
// rely on each operation's own rounding.

const double SPLITTER = 134217729.0lf; // 2^27 + 1: Dekker's splitting constant

// a·b exactly, as hi + lo (Dekker's product: no fma, which lavapipe does
// not fuse).
dvec2 two_prod(double a, double b) {
    precise double p = a * b;
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
