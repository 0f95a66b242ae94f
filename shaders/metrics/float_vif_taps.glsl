// float_vif_stat's filters as specialization constants, so that
// every tap is a constant the driver folds into the multiplies (no tap
// loads, no registers holding taps): TAPS (id 0) is the filter width, tap k
// is id 1 + k, the unused ones 0. The host sets them from the twin's taps
// (`tap_constants` in metrics/src/features/float_vif/gpu.rs). Each pipeline
// serves one scale. Loops over taps have constant bounds, so the driver
// unrolls them and every VIF_TAPS[k] becomes an immediate.
//
// The next scale's filter, for the decimation float_vif_stat fuses in,
// likewise: NEXT_TAPS (id 200; 0 where no scale follows), tap k id 201 + k.
//
// Requires before inclusion: TAPS_MAX (float_vif_common.glsl).

layout(constant_id = 0) const uint TAPS = 17u;
layout(constant_id = 1) const float TAP0 = 0.0; layout(constant_id = 2) const float TAP1 = 0.0;
layout(constant_id = 3) const float TAP2 = 0.0; layout(constant_id = 4) const float TAP3 = 0.0;
layout(constant_id = 5) const float TAP4 = 0.0; layout(constant_id = 6) const float TAP5 = 0.0;
layout(constant_id = 7) const float TAP6 = 0.0; layout(constant_id = 8) const float TAP7 = 0.0;
layout(constant_id = 9) const float TAP8 = 0.0; layout(constant_id = 10) const float TAP9 = 0.0;
layout(constant_id = 11) const float TAP10 = 0.0; layout(constant_id = 12) const float TAP11 = 0.0;
layout(constant_id = 13) const float TAP12 = 0.0; layout(constant_id = 14) const float TAP13 = 0.0;
layout(constant_id = 15) const float TAP14 = 0.0; layout(constant_id = 16) const float TAP15 = 0.0;
layout(constant_id = 17) const float TAP16 = 0.0; layout(constant_id = 18) const float TAP17 = 0.0;
layout(constant_id = 19) const float TAP18 = 0.0; layout(constant_id = 20) const float TAP19 = 0.0;
layout(constant_id = 21) const float TAP20 = 0.0; layout(constant_id = 22) const float TAP21 = 0.0;
layout(constant_id = 23) const float TAP22 = 0.0; layout(constant_id = 24) const float TAP23 = 0.0;
layout(constant_id = 25) const float TAP24 = 0.0; layout(constant_id = 26) const float TAP25 = 0.0;
layout(constant_id = 27) const float TAP26 = 0.0; layout(constant_id = 28) const float TAP27 = 0.0;
layout(constant_id = 29) const float TAP28 = 0.0; layout(constant_id = 30) const float TAP29 = 0.0;
layout(constant_id = 31) const float TAP30 = 0.0; layout(constant_id = 32) const float TAP31 = 0.0;
layout(constant_id = 33) const float TAP32 = 0.0; layout(constant_id = 34) const float TAP33 = 0.0;
layout(constant_id = 35) const float TAP34 = 0.0; layout(constant_id = 36) const float TAP35 = 0.0;
layout(constant_id = 37) const float TAP36 = 0.0; layout(constant_id = 38) const float TAP37 = 0.0;
layout(constant_id = 39) const float TAP38 = 0.0; layout(constant_id = 40) const float TAP39 = 0.0;
layout(constant_id = 41) const float TAP40 = 0.0; layout(constant_id = 42) const float TAP41 = 0.0;
layout(constant_id = 43) const float TAP42 = 0.0; layout(constant_id = 44) const float TAP43 = 0.0;
layout(constant_id = 45) const float TAP44 = 0.0; layout(constant_id = 46) const float TAP45 = 0.0;
layout(constant_id = 47) const float TAP46 = 0.0; layout(constant_id = 48) const float TAP47 = 0.0;
layout(constant_id = 49) const float TAP48 = 0.0; layout(constant_id = 50) const float TAP49 = 0.0;
layout(constant_id = 51) const float TAP50 = 0.0; layout(constant_id = 52) const float TAP51 = 0.0;
layout(constant_id = 53) const float TAP52 = 0.0; layout(constant_id = 54) const float TAP53 = 0.0;
layout(constant_id = 55) const float TAP54 = 0.0; layout(constant_id = 56) const float TAP55 = 0.0;
layout(constant_id = 57) const float TAP56 = 0.0; layout(constant_id = 58) const float TAP57 = 0.0;
layout(constant_id = 59) const float TAP58 = 0.0; layout(constant_id = 60) const float TAP59 = 0.0;
layout(constant_id = 61) const float TAP60 = 0.0; layout(constant_id = 62) const float TAP61 = 0.0;
layout(constant_id = 63) const float TAP62 = 0.0; layout(constant_id = 64) const float TAP63 = 0.0;
layout(constant_id = 65) const float TAP64 = 0.0; layout(constant_id = 66) const float TAP65 = 0.0;
layout(constant_id = 67) const float TAP66 = 0.0; layout(constant_id = 68) const float TAP67 = 0.0;
layout(constant_id = 69) const float TAP68 = 0.0;

layout(constant_id = 200) const uint NEXT_TAPS = 0u;
layout(constant_id = 201) const float NTAP0 = 0.0; layout(constant_id = 202) const float NTAP1 = 0.0;
layout(constant_id = 203) const float NTAP2 = 0.0; layout(constant_id = 204) const float NTAP3 = 0.0;
layout(constant_id = 205) const float NTAP4 = 0.0; layout(constant_id = 206) const float NTAP5 = 0.0;
layout(constant_id = 207) const float NTAP6 = 0.0; layout(constant_id = 208) const float NTAP7 = 0.0;
layout(constant_id = 209) const float NTAP8 = 0.0; layout(constant_id = 210) const float NTAP9 = 0.0;
layout(constant_id = 211) const float NTAP10 = 0.0; layout(constant_id = 212) const float NTAP11 = 0.0;
layout(constant_id = 213) const float NTAP12 = 0.0; layout(constant_id = 214) const float NTAP13 = 0.0;
layout(constant_id = 215) const float NTAP14 = 0.0; layout(constant_id = 216) const float NTAP15 = 0.0;
layout(constant_id = 217) const float NTAP16 = 0.0; layout(constant_id = 218) const float NTAP17 = 0.0;
layout(constant_id = 219) const float NTAP18 = 0.0; layout(constant_id = 220) const float NTAP19 = 0.0;
layout(constant_id = 221) const float NTAP20 = 0.0; layout(constant_id = 222) const float NTAP21 = 0.0;
layout(constant_id = 223) const float NTAP22 = 0.0; layout(constant_id = 224) const float NTAP23 = 0.0;
layout(constant_id = 225) const float NTAP24 = 0.0; layout(constant_id = 226) const float NTAP25 = 0.0;
layout(constant_id = 227) const float NTAP26 = 0.0; layout(constant_id = 228) const float NTAP27 = 0.0;
layout(constant_id = 229) const float NTAP28 = 0.0; layout(constant_id = 230) const float NTAP29 = 0.0;
layout(constant_id = 231) const float NTAP30 = 0.0; layout(constant_id = 232) const float NTAP31 = 0.0;
layout(constant_id = 233) const float NTAP32 = 0.0; layout(constant_id = 234) const float NTAP33 = 0.0;
layout(constant_id = 235) const float NTAP34 = 0.0; layout(constant_id = 236) const float NTAP35 = 0.0;
layout(constant_id = 237) const float NTAP36 = 0.0;

// The next scale's filter is narrower than this scale's and has at most
// this many taps (35 at the widest kernel scale libvmaf accepts).
#define NEXT_TAPS_MAX 37u

// The taps as arrays (glslang makes no constant array of specialization
// constants): main() calls vif_init_taps() first; once the loops are
// unrolled, every read of them has a constant index and folds to the tap.
float VIF_TAPS[TAPS_MAX];
float VIF_NEXT_TAPS[NEXT_TAPS_MAX];

void vif_init_taps() {
    VIF_TAPS = float[TAPS_MAX](
        TAP0, TAP1, TAP2, TAP3, TAP4, TAP5, TAP6, TAP7, TAP8, TAP9, TAP10, TAP11, TAP12, TAP13,
        TAP14, TAP15, TAP16, TAP17, TAP18, TAP19, TAP20, TAP21, TAP22, TAP23, TAP24, TAP25, TAP26,
        TAP27, TAP28, TAP29, TAP30, TAP31, TAP32, TAP33, TAP34, TAP35, TAP36, TAP37, TAP38, TAP39,
        TAP40, TAP41, TAP42, TAP43, TAP44, TAP45, TAP46, TAP47, TAP48, TAP49, TAP50, TAP51, TAP52,
        TAP53, TAP54, TAP55, TAP56, TAP57, TAP58, TAP59, TAP60, TAP61, TAP62, TAP63, TAP64, TAP65,
        TAP66, TAP67, TAP68);
    VIF_NEXT_TAPS = float[NEXT_TAPS_MAX](
        NTAP0, NTAP1, NTAP2, NTAP3, NTAP4, NTAP5, NTAP6, NTAP7, NTAP8, NTAP9, NTAP10, NTAP11,
        NTAP12, NTAP13, NTAP14, NTAP15, NTAP16, NTAP17, NTAP18, NTAP19, NTAP20, NTAP21, NTAP22,
        NTAP23, NTAP24, NTAP25, NTAP26, NTAP27, NTAP28, NTAP29, NTAP30, NTAP31, NTAP32, NTAP33,
        NTAP34, NTAP35, NTAP36);
}
