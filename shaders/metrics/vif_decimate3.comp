#version 460
// VIF decimation producing scale 3 (3-tap filter): vif_decimate.glsl.
#define FILTER_INDEX 3u
#include "vif_decimate.glsl"
