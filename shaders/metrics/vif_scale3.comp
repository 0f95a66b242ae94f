#version 460
// Integer VIF statistics at scale 3 (3-tap filter): vif_scale.glsl.
#define FILTER_INDEX 3u
#include "vif_scale.glsl"
