/* SPDX-License-Identifier: MIT */
/* vagx renderer: the bilinear filter's precision for RGBA8 / BGRA8 UNORM
 * textures (docs/hw/render.md, "Filtering precision"), the one rule the
 * generic path (render_tex.c) and the lane paths (render_tex_lanes.c,
 * render_tex_lanes_avx2.c) all follow.
 *
 * As GPUs do, the sub-texel fractions are quantised to 8 bits (weights in
 * 1/256) and the texels enter the blend as their 8-bit integers, so the
 * blend is integer arithmetic: a weighted sum below 2^24, which a float
 * holds exactly however it is computed (the lane paths use floats, 8 lanes
 * an instruction, in any order), divided once by 255 * 256 * 256 with
 * IEEE rounding.  The result is deterministic and the same bits on every
 * path, and far cheaper than blending decoded floats in double. */
#ifndef VAGX_RENDER_FILTER_H
#define VAGX_RENDER_FILTER_H

#include <stdint.h>

/* 255 * 256 * 256: the weighted sum of an all-255 footprint */
#define R_FILTER8_ONE 16711680.0f

/* The 8-bit weight of a sub-texel fraction f: round(f * 256), clamped to
 * [0, 256]; 0 for NaN (a NaN coordinate's fraction) and negative values
 * (coordinates clamped at -1e9). */
static inline int r_filter8_weight(double f)
{
   const double s = f * 256.0 + 0.5;
   return s > 0 ? (s < 256 ? (int)s : 256) : 0;
}

/* The filtered value of four 8-bit components b0 (x0, y0), b1 (x1, y0),
 * b2 (x0, y1), b3 (x1, y1) with weights wx, wy from r_filter8_weight. */
static inline float r_filter8_bilerp(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3,
                                     uint32_t wx, uint32_t wy)
{
   const uint32_t top = b0 * (256 - wx) + b1 * wx, bot = b2 * (256 - wx) + b3 * wx;
   return (float)(top * (256 - wy) + bot * wy) / R_FILTER8_ONE;
}

/* A component already decoded to float (a texel through the generic
 * unpack, or a border colour) as the 8-bit integer the blend takes:
 * round(clamp(v, 0, 1) * 255), NaN as 0.  A decoded byte gives itself
 * back ((float)(b / 255.0) * 255 rounds to b for every byte). */
static inline uint32_t r_filter8_byte(float v)
{
   return v > 0 ? (v < 1 ? (uint32_t)(v * 255.0f + 0.5f) : 255u) : 0u;
}

#endif
