// CIEDE2000's hue weight T (libvmaf's `get_upcase_t`; twin: `hue_weight`
// in metrics/src/features/ciede/mod.rs) for ciede.comp, and for the test
// shader test/ciede_hue_weight.comp that checks the error bound below.
// Needs ciede_math.glsl.
//
// libvmaf computes, in double from the float h̄ (h = double(h̄), in [0, 3π):
// mean_hue's wrap adds 2π to a sum below 4π before halving),
//   T = 1 − 0.17·cos(a1) + 0.24·cos(a2) + 0.32·cos(a3) − 0.20·cos(a4),
//   a1 = h − π/6, a2 = 2h, a3 = 3h + π/30, a4 = 4h − 7π/20,
// each argument one double rounding (2h, 3h and 4h of a float are exact),
// four libm cosines, and keeps T as a float. `hue_weight_libm` does that
// step by step (four cos_d). `hue_weight` first tries a cheaper evaluation
// (Ziv's strategy): one sine and cosine of h, the four cosines from them by
// the angle-sum and double-angle identities, and keeps its rounding to float
// when no float rounding boundary (a midpoint between two floats) lies
// within the bound E of it; otherwise it takes `hue_weight_libm`.
//
// Why that is exact. Let T* be the real value of the formula at libvmaf's
// rounded arguments. libvmaf's double result T_lib has |T_lib − T*| ≤ e_lib
// and the cheap one |T_fast − T*| ≤ e_fast. If no midpoint lies within
// E ≥ e_lib + e_fast of T_fast, T_lib and T_fast lie strictly between the
// same two midpoints and round to the same float. (hue_weight_libm itself
// agrees with libm's float except within a few double ulps of a midpoint,
// ciede_math.glsl; the fast path is never used there.)
//
// The bound, in units of 2^-52 (every value below is at most 1 in
// magnitude except the running sums of T, below 2):
// - c = cos h, s = sin h from one reduce_pio2 and sin_poly/cos_poly: the
//   reduced argument's relative error is about 2^-52 (|r| ≤ π/4 contributes
//   below 0.8), the polynomials' truncation is below 2^-62 and their
//   rounding (fused or not) below 1: e0 ≤ 2.
// - c2 = c·c − s·s, s2 = 2·s·c: 2(|c| + |s|)·e0 plus the roundings:
//   ≤ 2√2·2 + 1.5 ≤ 7.2 and ≤ 2√2·2 + 0.5 ≤ 6.2.
// - c3 = c2·c − s2·s, s3 = s2·c + c2·s: (|c| + |s|)·7.2 + (|c2| + |s2|)·2
//   + 1.5 ≤ 10.2 + 2.9 + 1.5 ≤ 14.6 each.
// - c4 = c2·c2 − s2·s2, s4 = 2·s2·c2: 2(|c2| + |s2|)·7.2 + 1.5 ≤ 22 each.
// - cos(x ± P) = cos x·cos P ∓ sin x·sin P with cos P, sin P the doubles
//   nearest (libm, within 1 ulp ≤ 0.5 of the double P libvmaf uses): √2·e_x
//   + √2·0.5 + 1.5. X1 = cos(h − P1): 2.8 + 0.7 + 1.5 = 5; X2 = c2: 7.2;
//   X3 = cos(3h + P3): 20.6 + 2.2 = 22.8; X4 = cos(4h − P4): 31.1 + 2.2
//   = 33.3.
// - libvmaf's arguments are rounded, ours are exact: |a1| < 9 (a1 ∈
//   (−0.53, 8.9)), |a3| < 32, |a4| < 64 give half-ulps of 4, 8 and 16 (units
//   2^-52), and |cos′| ≤ 1: X1 ≤ 9, X3 ≤ 30.8, X4 ≤ 49.3 from the rounded
//   arguments' cosines.
// - T's sum: 0.17·9 + 0.24·7.2 + 0.32·30.8 + 0.20·49.3 ≤ 23 from the
//   terms, plus four products' and four sums' roundings ≤ 0.4 + 4:
//   e_fast ≤ 28.
// - libvmaf's own: four libm cosines within 1 ulp (≤ 1 each) weighted by
//   0.93 in all, and the same eight roundings: e_lib ≤ 5.4.
// So e_lib + e_fast ≤ 34·2^-52 < 2^-46.9; E = 2^-45 leaves a factor of 3.7.
//
// The test looks at T_fast's double bits: a double between 2^k and 2^(k+1)
// that lies on a float midpoint has its low 29 mantissa bits equal to
// 2^28, and its distance to that midpoint is |low 29 bits − 2^28| double
// ulps (a power of two, a float, is never a midpoint, so no boundary of a
// binade matters). T lies in [0.36, 1.58] (the formula's range); for T ≥
// 1/4 a double ulp is at least 2^-54, so E is at most 2^9 ulps and
// |low 29 bits − 2^28| > 2^9 puts T_fast farther than E from any midpoint.
// Anything below 1/4 (never met) takes the libm path. In doubt: about one
// pixel in 2^19.

// libvmaf's constants, as doubles (shortest round-trip decimal forms, as in
// ciede_lab.glsl).
const double PI_6 = 0.5235987755982988lf;
const double PI_30 = 0.10471975511965977lf;
const double PI7_20 = 1.0995574287564276lf;       // 7π/20 as (7·π)/20

// Their cosines and sines (the doubles nearest, from libm).
const double COS_PI_6 = 0.8660254037844387lf;
const double SIN_PI_6 = 0.49999999999999994lf;
const double COS_PI_30 = 0.9945218953682733lf;
const double SIN_PI_30 = 0.10452846326765346lf;
const double COS_PI7_20 = 0.4539904997395468lf;
const double SIN_PI7_20 = 0.8910065241883678lf;

// E in double ulps of a T in [1/4, 1/2) (see above).
const int HUE_WEIGHT_DOUBT_ULPS = 512;

// T as libvmaf evaluates it: four cosines (twin: hue_weight).
float hue_weight_libm(float h_bar) {
    double h = double(h_bar);
    precise double a1 = h - PI_6;
    precise double a2 = 2.0lf * h;
    precise double a3 = 3.0lf * h + PI_30;
    precise double a4 = 4.0lf * h - PI7_20;
    precise double t = 1.0lf - 0.17lf * cos_d(a1) + 0.24lf * cos_d(a2) + 0.32lf * cos_d(a3)
                     - 0.20lf * cos_d(a4);
    return float(t);
}

// T from one sine and cosine (see above); `sure` is false where its
// rounding to float is in doubt.
double hue_weight_fast(float h_bar, out bool sure) {
    int k;
    double r = reduce_pio2(double(h_bar), k);
    double sp = sin_poly(r);
    double cp = cos_poly(r);
    int q = k & 3;
    double s = q == 0 ? sp : (q == 1 ? cp : (q == 2 ? -sp : -cp));
    double c = q == 0 ? cp : (q == 1 ? -sp : (q == 2 ? -cp : sp));
    precise double c2 = c * c - s * s;
    precise double s2 = 2.0lf * s * c;
    precise double c3 = c2 * c - s2 * s;
    precise double s3 = s2 * c + c2 * s;
    precise double c4 = c2 * c2 - s2 * s2;
    precise double s4 = 2.0lf * s2 * c2;
    precise double x1 = c * COS_PI_6 + s * SIN_PI_6;
    precise double x3 = c3 * COS_PI_30 - s3 * SIN_PI_30;
    precise double x4 = c4 * COS_PI7_20 + s4 * SIN_PI7_20;
    precise double t = 1.0lf - 0.17lf * x1 + 0.24lf * c2 + 0.32lf * x3 - 0.20lf * x4;
    int low = int(unpackDouble2x32(t).x & 0x1FFFFFFFu) - 0x10000000;
    sure = t >= 0.25lf && abs(low) > HUE_WEIGHT_DOUBT_ULPS;
    return t;
}

// twin: hue_weight
float hue_weight(float h_bar) {
    bool sure;
    double t = hue_weight_fast(h_bar, sure);
    if (sure) {
        return float(t);
    }
    return hue_weight_libm(h_bar);
}
