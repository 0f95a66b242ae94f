#version 460
// Integer VIF statistics at scale 0 (17-tap filter): vif_scale.glsl.
#define FILTER_INDEX 0u
#include "vif_scale.glsl"
