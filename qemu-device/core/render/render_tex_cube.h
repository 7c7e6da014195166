/* SPDX-License-Identifier: MIT */
/* vagx renderer: seamless cube-map filtering (docs/hw/render.md, "Seamless
 * cube maps"): which texels of which faces a bilinear footprint that
 * crosses a face's edge reads.  Pure geometry, no memory: render_tex.c
 * fetches and blends the texels. */
#ifndef VAGX_RENDER_TEX_CUBE_H
#define VAGX_RENDER_TEX_CUBE_H

#include <stdbool.h>

/* The four texels of a footprint, in bilerp order: (x0, y0), (x0 + 1, y0),
 * (x0, y0 + 1), (x0 + 1, y0 + 1) of the sampled face. */
struct r_cube_footprint {
   unsigned face[4];
   int x[4], y[4];
   /* the texel outside the face across both edges (a cube corner: no face
    * has it), which takes the average of the other three; -1: none */
   int corner;
};

/* Texel (*x, *y) of n x n face *face (0..5: +X, -X, +Y, -Y, +Z, -Z), at
 * most one texel outside the face across one of its edges, as the texel of
 * the neighbouring face that lies there when the cube's surface is unfolded
 * across that edge; a texel inside the face is left as it is.  Returns
 * false for a texel outside across two edges (a corner) or further out,
 * leaving it untouched. */
bool r_cube_fold(unsigned *face, int n, int *x, int *y);

/* The footprint at (x0, y0) of n x n face `face` (n >= 1), x0 and y0 in
 * [-1, n - 1]: each texel inside the face or folded onto its neighbour. */
void r_cube_footprint(unsigned face, int n, int x0, int y0, struct r_cube_footprint *fp);

#endif
