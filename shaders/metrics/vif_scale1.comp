#version 460
// Integer VIF statistics at scale 1 (9-tap filter): vif_scale.glsl.
#define FILTER_INDEX 1u
#include "vif_scale.glsl"
