#version 460
// VIF decimation producing scale 2 (5-tap filter): vif_decimate.glsl.
#define FILTER_INDEX 2u
#include "vif_decimate.glsl"
