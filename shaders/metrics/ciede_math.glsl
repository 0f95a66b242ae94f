// Double-precision elementary functions for ciede.comp: the libm calls
// libvmaf's ciede makes (pow, atan2, sin, cos, exp), which GLSL offers
// only in float and inexactly. Each is the same mathematical function
// evaluated in double: argument reduction that loses nothing, then a
// Taylor polynomial over the reduced range, accurate to about one ulp of
// double (pow to about 1.5). Callers that store libvmaf's result in a
// float round these, and then agree with libm except in the rare case
// where the exact value lies within a few double ulps of a float rounding
// boundary.
//
// Only the argument ranges ciede needs are handled: positive normal bases
// for pow, |x| < 2^20 for sin and cos, results of exp in the normal range.
// Every expression is `precise`: a fused multiply-add would change the
// roundings the error-free transformations below rely on.

#include "exact_double.glsl"

const double INV_LN2 = 1.4426950408889634lf;
// ln 2 = LN2_HI + LN2_LO; LN2_HI has 32 significant bits, so k·LN2_HI is
// exact for the exponents met here.
const double LN2_HI = 0.6931471803691238lf;
const double LN2_LO = 1.9082149292705877e-10lf;

// π/2 = PIO2_1 + PIO2_2 + PIO2_3 (Cody and Waite): the first two have 33
// significant bits, so k·PIO2_1 and k·PIO2_2 are exact for small k.
const double TWO_OVER_PI = 0.6366197723675814lf;
const double PIO2_1 = 1.5707963267341256lf;
const double PIO2_2 = 6.077100506303966e-11lf;
const double PIO2_3 = 2.0222662487959506e-21lf;

// π/2 and π as double + the remainder.
const double PIO2_HI = 1.5707963267948966lf;
const double PIO2_LO = 6.123233995736766e-17lf;
const double PI_HI = 3.141592653589793lf;
const double PI_LO = 1.2246467991473532e-16lf;

const double SQRT_HALF = 0.7071067811865476lf;

// atan(j/16), j = 0..16, as double + remainder.
const double ATAN_HI[17] = double[](
    0.0lf, 0.06241880999595735lf, 0.12435499454676144lf, 0.18534794999569476lf,
    0.24497866312686414lf, 0.3028848683749714lf, 0.35877067027057225lf, 0.4124104415973873lf,
    0.4636476090008061lf, 0.5123894603107377lf, 0.5585993153435624lf, 0.6022873461349642lf,
    0.6435011087932844lf, 0.6823165548747481lf, 0.7188299996216245lf, 0.7531512809621944lf,
    0.7853981633974483lf);
const double ATAN_LO[17] = double[](
    0.0lf, -1.5490756308295046e-18lf, -3.1253241424539383e-18lf, 4.180692268843079e-18lf,
    1.0698755618734451e-17lf, -1.1010827903001369e-17lf, -2.4623815582638635e-17lf,
    -1.587652227770689e-17lf, 2.2698777452961687e-17lf, -2.5462781472855804e-17lf,
    -5.4556305485916264e-18lf, 2.950430737228402e-17lf, 1.5834785051444286e-17lf,
    6.943223671560008e-18lf, -2.1478388444456983e-17lf, -2.4256934659182068e-17lf,
    3.061616997868383e-17lf);

// exp(hi + lo) for |lo| far below ulp(hi): hi = k·ln2 + r, |r| ≤ ln2/2,
// exp(r) from its Taylor series to r^13 (truncation below 2^-57).
double exp_dd(double hi, double lo) {
    precise double k = roundEven(hi * INV_LN2);
    precise double r = ((hi - k * LN2_HI) - k * LN2_LO) + lo;
    precise double p = 1.6059043836821613e-10lf;
    p = p * r + 2.08767569878681e-09lf;
    p = p * r + 2.505210838544172e-08lf;
    p = p * r + 2.755731922398589e-07lf;
    p = p * r + 2.7557319223985893e-06lf;
    p = p * r + 2.48015873015873e-05lf;
    p = p * r + 0.0001984126984126984lf;
    p = p * r + 0.001388888888888889lf;
    p = p * r + 0.008333333333333333lf;
    p = p * r + 0.041666666666666664lf;
    p = p * r + 0.16666666666666666lf;
    p = p * r + 0.5lf;
    // exp(r) − 1, then 1 added last so that only one rounding is large.
    precise double em1 = r + (r * r) * p;
    precise double e = 1.0lf + em1;
    return ldexp(e, int(k));
}

double exp_d(double x) {
    return exp_dd(x, 0.0lf);
}

// log(x) for a positive normal x, as hi + lo: x = 2^e·m with m in
// [√½, √2), f = m − 1 (exact), log(m) = f − f²/2 + s·(f²/2 + R(s²)) with
// s = f/(2+f) and R(z) = Σ 2z^k/(2k+1) (k ≤ 11, truncation below 2^-60).
// f is carried exactly; only the small correction term is rounded.
dvec2 log_dd(double x) {
    int e;
    double m = frexp(x, e);
    if (m < SQRT_HALF) {
        m = m * 2.0lf;
        e = e - 1;
    }
    precise double f = m - 1.0lf;
    precise double s = f / (2.0lf + f);
    precise double z = s * s;
    precise double rz = 0.08695652173913043lf;
    rz = rz * z + 0.09523809523809523lf;
    rz = rz * z + 0.10526315789473684lf;
    rz = rz * z + 0.11764705882352941lf;
    rz = rz * z + 0.13333333333333333lf;
    rz = rz * z + 0.15384615384615385lf;
    rz = rz * z + 0.18181818181818182lf;
    rz = rz * z + 0.2222222222222222lf;
    rz = rz * z + 0.2857142857142857lf;
    rz = rz * z + 0.4lf;
    rz = rz * z + 0.6666666666666666lf;
    rz = rz * z;
    precise double hfsq = 0.5lf * f * f;
    precise double c = s * (hfsq + rz) - hfsq;
    double de = double(e);
    precise double k_hi = de * LN2_HI;
    dvec2 t = two_sum(k_hi, f);
    precise double lo = t.y + (de * LN2_LO + c);
    return dvec2(t.x, lo);
}

// pow(x, y) for a positive normal x: exp(y·log x) with y·log x carried as
// hi + lo, so the only sizeable errors are exp's and log's last bits.
double pow_pos(double x, double y) {
    dvec2 l = log_dd(x);
    dvec2 p = two_prod(y, l.x);
    precise double lo = p.y + y * l.y;
    return exp_dd(p.x, lo);
}

// x^7 for a float x ≥ 0, exact until the final rounding to double: x² is
// exact, the higher powers are carried as hi + lo.
double pow7(float xf) {
    double x = double(xf);
    precise double x2 = x * x;
    dvec2 x4 = two_prod(x2, x2);
    dvec2 x6 = two_prod(x4.x, x2);
    precise double x6_lo = x6.y + x4.y * x2;
    dvec2 x7 = two_prod(x6.x, x);
    precise double x7_lo = x7.y + x6_lo * x;
    precise double r = x7.x + x7_lo;
    return r;
}

// x = k·π/2 + r with |r| ≤ π/4 (plus rounding); k returned in `k`.
double reduce_pio2(double x, out int k) {
    precise double kd = roundEven(x * TWO_OVER_PI);
    k = int(kd);
    precise double r = ((x - kd * PIO2_1) - kd * PIO2_2) - kd * PIO2_3;
    return r;
}

// sin(r) for |r| ≤ π/4: Taylor to r^17 (truncation below 2^-62 relative).
double sin_poly(double r) {
    precise double z = r * r;
    precise double p = 2.8114572543455206e-15lf;
    p = p * z - 7.647163731819816e-13lf;
    p = p * z + 1.6059043836821613e-10lf;
    p = p * z - 2.505210838544172e-08lf;
    p = p * z + 2.7557319223985893e-06lf;
    p = p * z - 0.0001984126984126984lf;
    p = p * z + 0.008333333333333333lf;
    p = p * z - 0.16666666666666666lf;
    precise double s = r + (r * z) * p;
    return s;
}

// cos(r) for |r| ≤ π/4: Taylor to r^18.
double cos_poly(double r) {
    precise double z = r * r;
    precise double p = 1.5619206968586225e-16lf;
    p = p * z - 4.779477332387385e-14lf;
    p = p * z + 1.1470745597729725e-11lf;
    p = p * z - 2.08767569878681e-09lf;
    p = p * z + 2.755731922398589e-07lf;
    p = p * z - 2.48015873015873e-05lf;
    p = p * z + 0.001388888888888889lf;
    p = p * z - 0.041666666666666664lf;
    p = p * z + 0.5lf;
    precise double c = 1.0lf - z * p;
    return c;
}

double sin_d(double x) {
    int k;
    double r = reduce_pio2(x, k);
    switch (k & 3) {
    case 0: return sin_poly(r);
    case 1: return cos_poly(r);
    case 2: return -sin_poly(r);
    default: return -cos_poly(r);
    }
}

double cos_d(double x) {
    int k;
    double r = reduce_pio2(x, k);
    switch (k & 3) {
    case 0: return cos_poly(r);
    case 1: return -sin_poly(r);
    case 2: return -cos_poly(r);
    default: return sin_poly(r);
    }
}

// atan2(y, x), y and x not both zero, with libm's signs (atan2(−0, x<0) is
// −π). The ratio t = min/max in [0, 1] is reduced around c = j/16:
// atan t = atan c + atan((t − c)/(1 + t·c)), the second by its Taylor
// series (|u| ≤ 1/32, to u^13).
double atan2_d(double y, double x) {
    double ax = abs(x);
    double ay = abs(y);
    bool swap = ay > ax;
    precise double t = swap ? ax / ay : ay / ax;
    int j = int(roundEven(t * 16.0lf));
    precise double c = double(j) * 0.0625lf;
    precise double u = (t - c) / (1.0lf + t * c);
    precise double z = u * u;
    precise double p = 0.07692307692307693lf;
    p = p * z - 0.09090909090909091lf;
    p = p * z + 0.1111111111111111lf;
    p = p * z - 0.14285714285714285lf;
    p = p * z + 0.2lf;
    p = p * z - 0.3333333333333333lf;
    precise double atan_u = u + (u * z) * p;
    precise double a = ATAN_HI[j] + (ATAN_LO[j] + atan_u);
    if (swap) {
        a = (PIO2_HI - a) + PIO2_LO;
    }
    if (x < 0.0lf) {
        a = (PI_HI - a) + PI_LO;
    }
    bool y_negative = (unpackDouble2x32(y).y & 0x80000000u) != 0u;
    return y_negative ? -a : a;
}
