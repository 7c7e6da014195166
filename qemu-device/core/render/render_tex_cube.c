/* SPDX-License-Identifier: MIT */
/* vagx renderer: seamless cube-map footprints (render_tex_cube.h). */
#include "render_tex_cube.h"

/* Each face's outward normal N (its major axis) and the directions S and T
 * in which its coordinates s and t grow (GL 4.6 table 8.19: +X has
 * sc = -rz, tc = -ry, so S = -z and T = -y; and so on). */
static const signed char cube_axes[6][3][3] = {
   /*   N             S             T */
   {{1, 0, 0},  {0, 0, -1}, {0, -1, 0}}, /* +X */
   {{-1, 0, 0}, {0, 0, 1},  {0, -1, 0}}, /* -X */
   {{0, 1, 0},  {1, 0, 0},  {0, 0, 1}},  /* +Y */
   {{0, -1, 0}, {1, 0, 0},  {0, 0, -1}}, /* -Y */
   {{0, 0, 1},  {1, 0, 0},  {0, -1, 0}}, /* +Z */
   {{0, 0, -1}, {-1, 0, 0}, {0, -1, 0}}, /* -Z */
};

static int dot(const int p[3], const signed char a[3])
{
   return p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
}

/* In units of half a texel from the cube's centre, the centre of texel
 * (x, y) of face F is P = n N + (2x + 1 - n) S + (2y + 1 - n) T.  A texel
 * one past the edge in direction E (+-S or +-T) lies half a texel past the
 * edge; unfolded onto the neighbouring face (whose normal is E) it is the
 * texel half a texel inside it: P' = (n - 1) N + n E + (its coordinate
 * along the edge, unchanged).  P' has the major axis E, so its texel on
 * that face is ((P'.S' + n - 1) / 2, (P'.T' + n - 1) / 2), always whole:
 * P'.S' is n - 1, 1 - n or the unchanged 2c + 1 - n. */
bool r_cube_fold(unsigned *face, int n, int *x, int *y)
{
   const int es = *x < 0 ? -1 : *x >= n ? 1 : 0, et = *y < 0 ? -1 : *y >= n ? 1 : 0;
   if (!es && !et)
      return true;
   if ((es && et) || *x < -1 || *x > n || *y < -1 || *y > n)
      return false;
   const signed char(*a)[3] = cube_axes[*face];
   const int along = es ? 2 * *y + 1 - n : 2 * *x + 1 - n;
   const signed char *dir = es ? a[2] : a[1];
   int e[3], p[3];
   for (unsigned k = 0; k < 3; k++) {
      e[k] = es * a[1][k] + et * a[2][k];
      p[k] = (n - 1) * a[0][k] + n * e[k] + along * dir[k];
   }
   const unsigned axis = e[0] ? 0 : e[1] ? 1 : 2;
   const unsigned f = 2 * axis + (e[axis] < 0);
   *x = (dot(p, cube_axes[f][1]) + n - 1) / 2;
   *y = (dot(p, cube_axes[f][2]) + n - 1) / 2;
   *face = f;
   return true;
}

void r_cube_footprint(unsigned face, int n, int x0, int y0, struct r_cube_footprint *fp)
{
   fp->corner = -1;
   for (unsigned i = 0; i < 4; i++) {
      fp->face[i] = face;
      fp->x[i] = x0 + (int)(i & 1);
      fp->y[i] = y0 + (int)(i >> 1);
      if (!r_cube_fold(&fp->face[i], n, &fp->x[i], &fp->y[i]))
         fp->corner = (int)i;
   }
}
