#version 460
// Integer VIF statistics at scale 2 (5-tap filter): vif_scale.glsl.
#define FILTER_INDEX 2u
#include "vif_scale.glsl"
