#version 460
// Integer VIF statistics at scale 3 (3-tap filter), decimating its input from
// the scale-2 planes itself: vif_scale.glsl.
#define FILTER_INDEX 3u
#define DECIMATING
#include "vif_scale.glsl"
