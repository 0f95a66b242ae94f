#version 460
// VIF decimation producing scale 1 (9-tap filter): vif_decimate.glsl.
#define FILTER_INDEX 1u
#include "vif_decimate.glsl"
