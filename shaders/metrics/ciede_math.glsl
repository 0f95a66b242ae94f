// Double-precision elementary functions for ciede.comp: the libm calls
// libvmaf's ciede makes (pow, atan2, sin, cos, exp), which GLSL offers
// only in float and inexactly. Each is the same mathematical function
// evaluated in double to within about one ulp: sin, cos, exp and atan2 by
// exact argument reduction and a polynomial over the reduced range; the
// two powers ciede needs (t^2.4 and t^(1/3) on t in [2^-7, 4]) by Newton's
// method from a float estimate, with the last step's residual computed
// exactly, then corrected for pow's exponent being the double nearest 2.4
// or 1/3 rather than the real number. Callers that store libvmaf's result
// in a float round these, and then agree with libm except in the rare case
// where the exact value lies within a few double ulps of a float rounding
// boundary.
//
// Only the argument ranges ciede needs are handled: positive normal bases
// for the powers, |x| < 2^20 for sin and cos, results of exp in the normal
// range. Every expression is `precise`: no compiler may fuse or reorder
// what the error analysis counts; the explicit fma() calls round once where
// the device fuses and twice where it does not (lavapipe), which changes
// only last-bit rounding inside a polynomial. The including shader declares
// the FUSED_FMA specialization constant (exact_double.glsl).

// From the shaders root, so that shaders outside metrics/ (the tests') find it.
#include "metrics/exact_double.glsl"

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

const double ONE_THIRD = 0.3333333333333333lf;

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

// x rounded to the nearest integer, ties to even (roundEven), for |x| <
// 2^51, and that integer as an int in `k`: adding 1.5·2^52 rounds x to an
// integer (the sum's ulp is 1) and leaves it in the sum's low word, and
// subtracting 1.5·2^52 again is exact. Two double additions instead of a
// rounding and a conversion to int, which NVIDIA runs on its conversion
// unit, a quarter as fast and shared with every float-double conversion.
const double ROUND_MAGIC = 6755399441055744.0lf;

double round_int(double x, out int k) {
    precise double t = x + ROUND_MAGIC;
    k = int(unpackDouble2x32(t).x);
    precise double r = t - ROUND_MAGIC;
    return r;
}

// exp(x): x = k·ln2 + r, |r| ≤ ln2/2, exp(r) from its Taylor series to
// r^13 (truncation below 2^-57), evaluated by Horner's rule.
double exp_d(double x) {
    // A product of its own, so that it is not fused into round_int's sum.
    precise double y = x * INV_LN2;
    int ki;
    precise double k = round_int(y, ki);
    precise double r = fma(-k, LN2_LO, fma(-k, LN2_HI, x));
    precise double p = 1.6059043836821613e-10lf;
    p = fma(p, r, 2.08767569878681e-09lf);
    p = fma(p, r, 2.505210838544172e-08lf);
    p = fma(p, r, 2.755731922398589e-07lf);
    p = fma(p, r, 2.7557319223985893e-06lf);
    p = fma(p, r, 2.48015873015873e-05lf);
    p = fma(p, r, 0.0001984126984126984lf);
    p = fma(p, r, 0.001388888888888889lf);
    p = fma(p, r, 0.008333333333333333lf);
    p = fma(p, r, 0.041666666666666664lf);
    p = fma(p, r, 0.16666666666666666lf);
    p = fma(p, r, 0.5lf);
    // exp(r) − 1, then 1 added last so that only one rounding is large.
    precise double em1 = fma(r * r, p, r);
    precise double e = 1.0lf + em1;
    return ldexp(e, ki);
}

// pow(t, 2.4) for t in [2^-7, 4]. t^(12/5) = t²·s with s = t^(2/5): z ≈
// t^(-1/5) from a float estimate and one Newton step (z ← z + z·(1 − t·z⁵)/5,
// good to about 1e-11), s ≈ t·z³, then one Newton step on s⁵ = t² whose
// residual t² − s⁵ is formed from the exact t² (correction ≈ residual·z⁸/5,
// as 1/s⁴ = z⁸). libm's exponent is 2.4 − D with D = 2.4 − (double)2.4, so
// its result is t^2.4·(1 − D·ln t) to double precision; ln t need only be
// roughly right, as D·ln t is below 2^-51.
const double POW_2_4_GAP = 8.881784197001252e-17lf;

double pow_2_4(double t) {
    precise double z = double(pow(float(t), -0.2));
    precise double z2 = z * z;
    precise double e = fma(-t, (z2 * z2) * z, 1.0lf);
    z = fma(z * e, 0.2lf, z);
    precise double zz = z * z;
    precise double s = t * (zz * z);
    dvec2 t2 = two_prod(t, t);
    precise double s2 = s * s;
    precise double s4 = s2 * s2;
    precise double residual = fma(-s4, s, t2.x) + t2.y;
    precise double z4 = zz * zz;
    s = fma(residual, (z4 * z4) * 0.2lf, s);
    precise double r = fma(t2.x, s, t2.y * s);
    precise double gap = -POW_2_4_GAP * double(log(float(t)));
    precise double corrected = fma(r, gap, r);
    return corrected;
}

// pow(t, 1.0/3.0) for t in [2^-7, 4], the same way: z ≈ t^(-1/3) (one
// Newton step from a float estimate), y ≈ t·z², then y + (t − y³)/(3y²)
// with t − y³ from the exact y² (1/y² ≈ z²), and the exponent's gap
// D = 1/3 − (double)(1/3).
const double POW_THIRD_GAP = 1.850371707708594e-17lf;

double pow_third(double t) {
    precise double z = double(pow(float(t), -0.33333334));
    precise double e = fma(-t, (z * z) * z, 1.0lf);
    z = fma(z * e, ONE_THIRD, z);
    precise double zz = z * z;
    precise double y = t * zz;
    dvec2 y2 = two_prod(y, y);
    precise double residual = fma(-y2.x, y, t) - y2.y * y;
    precise double r = fma(residual, zz * ONE_THIRD, y);
    precise double gap = -POW_THIRD_GAP * double(log(float(t)));
    precise double corrected = fma(r, gap, r);
    return corrected;
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
    precise double y = x * TWO_OVER_PI;
    precise double kd = round_int(y, k);
    precise double r = fma(-kd, PIO2_3, fma(-kd, PIO2_2, fma(-kd, PIO2_1, x)));
    return r;
}

// sin(r) for |r| ≤ π/4: Taylor to r^17 (truncation below 2^-62 relative).
double sin_poly(double r) {
    precise double z = r * r;
    precise double p = 2.8114572543455206e-15lf;
    p = fma(p, z, -7.647163731819816e-13lf);
    p = fma(p, z, 1.6059043836821613e-10lf);
    p = fma(p, z, -2.505210838544172e-08lf);
    p = fma(p, z, 2.7557319223985893e-06lf);
    p = fma(p, z, -0.0001984126984126984lf);
    p = fma(p, z, 0.008333333333333333lf);
    p = fma(p, z, -0.16666666666666666lf);
    precise double s = fma(r * z, p, r);
    return s;
}

// cos(r) for |r| ≤ π/4: Taylor to r^18.
double cos_poly(double r) {
    precise double z = r * r;
    precise double p = 1.5619206968586225e-16lf;
    p = fma(p, z, -4.779477332387385e-14lf);
    p = fma(p, z, 1.1470745597729725e-11lf);
    p = fma(p, z, -2.08767569878681e-09lf);
    p = fma(p, z, 2.755731922398589e-07lf);
    p = fma(p, z, -2.48015873015873e-05lf);
    p = fma(p, z, 0.001388888888888889lf);
    p = fma(p, z, -0.041666666666666664lf);
    p = fma(p, z, 0.5lf);
    precise double c = fma(-z, p, 1.0lf);
    return c;
}

// Below 0.78 (< π/4) in magnitude reduce_pio2 finds k = 0 (x·2/π rounds
// to +0) and returns x itself (fma(−0, c, x) = x, signed zeros included),
// so sin_poly(x) is the very result of the reduced path without its six
// operations: ciede's two sines (half a hue difference, the rotation angle
// up to 45°) mostly lie there.
double sin_d(double x) {
    if (abs(x) <= 0.78lf) {
        return sin_poly(x);
    }
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

// atan2(y, x) for y and x floats' values, not both zero, with libm's signs
// (atan2(−0, x<0) is −π). The ratio t = n/d = min/max in [0, 1] is reduced
// around c = j/16: atan t = atan c + atan(u), u = (t − c)/(1 + t·c) =
// (n − c·d)/(d + c·n), one division; atan(u) by its Taylor series (|u| ≤
// 1/32 and a float rounding, to u^13). j needs only a float estimate of t.
// u's error is below 2^-53·c absolute, an ulp of atan t at most.
double atan2_d(double y, double x) {
    double ax = abs(x);
    double ay = abs(y);
    bool swap = ay > ax;
    double n = swap ? ax : ay;
    double d = swap ? ay : ax;
    // j = roundEven(16·t) as round_int finds it, in float: 1.5·2^23 added
    // (the sum's ulp is 1) leaves j in the low bits of the sum.
    precise float j_sum = float(n) / float(d) * 16.0 + 12582912.0;
    int j = int(floatBitsToUint(j_sum) - floatBitsToUint(12582912.0));
    precise double c = double(j) * 0.0625lf;
    precise double u = fma(-c, d, n) / fma(c, n, d);
    precise double z = u * u;
    precise double p = 0.07692307692307693lf;
    p = fma(p, z, -0.09090909090909091lf);
    p = fma(p, z, 0.1111111111111111lf);
    p = fma(p, z, -0.14285714285714285lf);
    p = fma(p, z, 0.2lf);
    p = fma(p, z, -0.3333333333333333lf);
    precise double atan_u = fma(u * z, p, u);
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
