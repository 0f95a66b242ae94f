// YUV → CIELAB as libvmaf's ciede converts a pixel (BT.709 limited range →
// sRGB transfer → XYZ, D65 → Lab), and the colour's chroma, shared by
// ciede.comp (which converts each pixel itself above 8 bits and for small
// frames) and ciede_lab_fill.comp (which converts every 8-bit triple once
// into a table ciede.comp's LAB_TABLE variant reads): one function, so a
// table entry is bit for bit what the direct conversion gives. Twin:
// metrics/src/features/ciede/mod.rs `lab` (and the chroma lines of
// `delta_e`). Needs ciede_math.glsl.

// libvmaf's constants of the conversion, as doubles (their decimal forms are the shortest
// that round-trip, so glslang reads the same doubles the C compiler folds).
const double TEN_OVER_255 = 0.0392156862745098lf;
const double INV_1055 = 0.9478672985781991lf;     // 1/1.055
const double INV_1292 = 0.07739938080495357lf;    // 1/12.92
const double LAB_EPSILON = 0.008856451679035631lf; // 216/24389
const double LAB_KAPPA = 903.2962962962963lf;     // 24389/27
const double INV_116 = 0.008620689655172414lf;
const double INV_XN = 1.0521110608435826lf;       // 1/0.95047
const double INV_ZN = 0.9184170164304805lf;       // 1/1.08883
const double INV_219 = 0.0045662100456621lf;
const double INV_224 = 0.004464285714285714lf;

// twin: linearise
double linearise(double c) {
    if (c > TEN_OVER_255) {
        precise double t = (c + 0.055lf) * INV_1055;
        return pow_2_4(t);
    }
    precise double l = c * INV_1292;
    return l;
}

// twin: lab_f
float lab_f(double t) {
    if (t > LAB_EPSILON) {
        return float(pow_third(t));
    }
    precise double l = (LAB_KAPPA * t + 16.0lf) * INV_116;
    return float(l);
}

// twin: lab. 1/(219·2^k) is 1/219 scaled by 2^-k, exactly.
vec3 lab(uint ys, uint us, uint vs, uint bpc) {
    int shift = int(bpc) - 8;
    double scale = ldexp(1.0lf, shift);
    double inv_y = ldexp(INV_219, -shift);
    double inv_c = ldexp(INV_224, -shift);
    precise double y = (double(ys) - 16.0lf * scale) * inv_y;
    precise double u = (double(us) - 128.0lf * scale) * inv_c;
    precise double v = (double(vs) - 128.0lf * scale) * inv_c;
    precise double r_in = y + 1.28033lf * v;
    precise double g_in = y - 0.21482lf * u - 0.38059lf * v;
    precise double b_in = y + 2.12798lf * u;
    double r = linearise(r_in);
    double g = linearise(g_in);
    double b = linearise(b_in);
    precise double cx = r * 0.4124564390896921lf + g * 0.357576077643909lf
                      + b * 0.18043748326639894lf;
    precise double cy = r * 0.21267285140562248lf + g * 0.715152155287818lf
                      + b * 0.07217499330655958lf;
    precise double cz = r * 0.019333895582329317lf + g * 0.119192025881303lf
                      + b * 0.9503040785363677lf;
    precise double xn = cx * INV_XN;
    precise double zn = cz * INV_ZN;
    double fx = double(lab_f(xn));
    double fy = double(lab_f(cy));
    double fz = double(lab_f(zn));
    precise double l = 116.0lf * fy - 16.0lf;
    precise double a = 500.0lf * (fx - fy);
    precise double bb = 200.0lf * (fy - fz);
    return vec3(float(l), float(a), float(bb));
}

// A float's square in double, exact.
double sq(float x) {
    precise double s = double(x) * double(x);
    return s;
}

// (L, a, b) of a YUV triple and its chroma C = √(a² + b²), in double and
// kept as a float as libvmaf keeps it: the only term of the ΔE formula
// that depends on one colour alone, so the table holds it too.
vec4 lab_colour(uint ys, uint us, uint vs, uint bpc) {
    vec3 c = lab(ys, us, vs, bpc);
    precise double chroma = sqrt(sq(c.y) + sq(c.z));
    return vec4(c, float(chroma));
}
