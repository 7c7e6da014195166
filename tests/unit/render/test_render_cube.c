/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: seamless cube-map filtering (render.md, "Seamless
 * cube maps").  The texels a footprint reads past a face's edge are found
 * here on the cube itself (the direction through the texel's centre on the
 * face's extended plane, GL 4.6 table 8.19 written out), not with the
 * device's unfolding, and compared with r_cube_fold; then cube arrays are
 * sampled NEAREST and LINEAR, seamless and not, RGBA8 (8-bit filter) and
 * RGBA32F, on the generic and the fast path, and gathered, each pixel
 * against its expected value computed here.
 */
#include "render_test_harness.h"
#include "render_tex_cube.h"

#define CN 4     /* texels a face side */
#define CUBES 2

/* face and face coordinates (s, t) in [0, 1] of a direction; false on a
 * tie of the major axis (GL leaves the face open) */
static bool ref_face(double rx, double ry, double rz, unsigned *face, double *s, double *t)
{
   const double ax = fabs(rx), ay = fabs(ry), az = fabs(rz);
   double sc, tc, ma;
   if (ax > ay && ax > az) {
      *face = rx > 0 ? 0 : 1; ma = ax; sc = rx > 0 ? -rz : rz; tc = -ry;
   } else if (ay > ax && ay > az) {
      *face = ry > 0 ? 2 : 3; ma = ay; sc = rx; tc = ry > 0 ? rz : -rz;
   } else if (az > ax && az > ay) {
      *face = rz > 0 ? 4 : 5; ma = az; sc = rz > 0 ? rx : -rx; tc = -ry;
   } else {
      return false;
   }
   *s = (sc / ma + 1) / 2;
   *t = (tc / ma + 1) / 2;
   return true;
}

/* the point of face `face`'s plane at face coordinates (s, t): the
 * table's inverse */
static void ref_dir(unsigned face, double s, double t, double d[3])
{
   const double sc = 2 * s - 1, tc = 2 * t - 1;
   static const double m[6][3][3] = {
      /* d = ma * a + sc * b + tc * c */
      {{1, 0, 0}, {0, 0, -1}, {0, -1, 0}},  {{-1, 0, 0}, {0, 0, 1}, {0, -1, 0}},
      {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}},    {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},
      {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},   {{0, 0, -1}, {-1, 0, 0}, {0, -1, 0}},
   };
   for (unsigned k = 0; k < 3; k++)
      d[k] = m[face][0][k] + sc * m[face][1][k] + tc * m[face][2][k];
}

/* texel (x, y) of face *f, n texels a side, at most one past one edge:
 * the texel of the face its centre's direction hits; false at a corner */
static bool ref_fold(unsigned *f, int n, int *x, int *y)
{
   const bool ox = *x < 0 || *x >= n, oy = *y < 0 || *y >= n;
   if (!ox && !oy)
      return true;
   if (ox && oy)
      return false;
   double d[3], s, t;
   ref_dir(*f, (*x + 0.5) / n, (*y + 0.5) / n, d);
   if (!ref_face(d[0], d[1], d[2], f, &s, &t))
      return false;
   *x = (int)floor(s * n);
   *y = (int)floor(t * n);
   return *x >= 0 && *x < n && *y >= 0 && *y < n;
}

/* the texels' bytes: distinct per layer, column, row and component */
static uint8_t cube_byte(unsigned layer, unsigned x, unsigned y, unsigned k)
{
   switch (k) {
   case 0: return (uint8_t)(layer * 20 + 10);
   case 1: return (uint8_t)(x * 60 + 17);
   case 2: return (uint8_t)(y * 60 + 23);
   default: return (uint8_t)(250 - 13 * (x + CN * y));
   }
}

static void fill_cube8(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   for (unsigned k = 0; k < 4; k++)
      o[k] = cube_byte(layer, x, y, k);
}

static void fill_cube32f(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   for (unsigned k = 0; k < 4; k++) {
      const float f = (float)(cube_byte(layer, x, y, k) / 255.0);
      memcpy(o + 4 * k, &f, 4);
   }
}

static uint64_t cube_sampler(enum vagx_filter f, bool seamless)
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = s.mag_filter = f;
   s.mip_filter = VAGX_MIP_FILTER_NONE;
   /* REPEAT: seamless sampling ignores it, per-face sampling wraps */
   s.wrap_s = s.wrap_t = s.wrap_r = VAGX_WRAP_REPEAT;
   s.seamless_cube = seamless;
   s.max_lod = 16;
   uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}

/* A fragment program that loads its pixel's direction and cube index
 * (the buffer at dva) into r4..r7, samples with `tex` (which leaves its
 * result in r0..r3) and stores r0..r3 */
static struct prog cube_prog(uint64_t tex, uint64_t smp, uint64_t dva, const char *op)
{
   struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .nuni = 2, .smp = smp};
   fs.uni[0] = (uint32_t)dva;
   fs.uni[1] = (uint32_t)(dva >> 32);
   fs.code = assemblef("imul r8, sr.pix_y, #%u\niadd r8, r8, sr.pix_x\nshl r8, r8, #4\n"
                       "ld_global.b128 r4, u0, r8\n%s\nst_tile.rt0 r0, #0\nend\n", W, op);
   return fs;
}

/* Directions with fixed seeds, most of them within a texel of an edge or
 * a corner, of both cubes; some exactly on an edge (s or t = 1). */
static float *cube_dirs(void)
{
   float *dirs = malloc(W * H * 16);
   uint64_t rng = 77;
   for (unsigned i = 0; i < W * H; i++) {
      double r[4];
      for (unsigned k = 0; k < 4; k++) {
         rng = rng * 6364136223846793005ull + 1442695040888963407ull;
         r[k] = (double)(rng >> 11) / 9007199254740992.0;
      }
      const unsigned face = (unsigned)(r[0] * 6) % 6, kind = i % 4;
      /* 0: anywhere; 1: within a texel of an s edge; 2: of a t edge; 3: a corner */
      double s = r[1], t = r[2];
      if (kind & 1)
         s = s < 0.5 ? s * 2 / CN : 1 - (s - 0.5) * 2 / CN;
      if (kind & 2)
         t = t < 0.5 ? t * 2 / CN : 1 - (t - 0.5) * 2 / CN;
      if (i % 61 == 0)
         s = 1; /* on the edge: NEAREST clamps (seamless) or wraps (REPEAT) */
      double d[3];
      ref_dir(face, s, t, d);
      const double len = 0.5 + 3 * r[3];
      for (unsigned k = 0; k < 3; k++)
         dirs[i * 4 + k] = (float)(d[k] * len);
      dirs[i * 4 + 3] = (float)(i / 3 % CUBES);
   }
   return dirs;
}

static int wrap_repeat(int i)
{
   return (i % CN + CN) % CN;
}

/* texel (face, x, y) of cube `cube` as the sampler reads it */
static void ref_texel(unsigned cube, unsigned face, int x, int y, double out[4])
{
   for (unsigned k = 0; k < 4; k++)
      out[k] = (float)(cube_byte(6 * cube + face, (unsigned)x, (unsigned)y, k) / 255.0);
}

/* The expected sample of a pixel's direction; false on a tie of faces. */
static bool ref_sample(const float *d, bool lin, bool seamless, bool f8, double out[4])
{
   unsigned face;
   double s, t;
   if (!ref_face(d[0], d[1], d[2], &face, &s, &t))
      return false;
   const unsigned cube = (unsigned)d[3];
   if (!lin) {
      int x = (int)floor(s * CN), y = (int)floor(t * CN);
      if (seamless) {
         x = x < 0 ? 0 : x >= CN ? CN - 1 : x;
         y = y < 0 ? 0 : y >= CN ? CN - 1 : y;
      } else {
         x = wrap_repeat(x);
         y = wrap_repeat(y);
      }
      ref_texel(cube, face, x, y, out);
      return true;
   }
   const double x = s * CN - 0.5, y = t * CN - 0.5;
   const int x0 = (int)floor(x), y0 = (int)floor(y);
   const double fx = x - x0, fy = y - y0;
   double q[4][4];
   int corner = -1;
   for (unsigned i = 0; i < 4; i++) {
      unsigned f = face;
      int tx = x0 + (int)(i & 1), ty = y0 + (int)(i >> 1);
      if (!seamless) {
         tx = wrap_repeat(tx);
         ty = wrap_repeat(ty);
      } else if (!ref_fold(&f, CN, &tx, &ty)) {
         corner = (int)i;
         continue;
      }
      ref_texel(cube, f, tx, ty, q[i]);
   }
   for (unsigned k = 0; k < 4 && corner >= 0; k++) {
      double sum = 0;
      for (unsigned i = 0; i < 4; i++)
         sum += (int)i == corner ? 0 : q[i][k];
      q[corner][k] = (float)(sum / 3);
   }
   for (unsigned k = 0; k < 4; k++) {
      if (f8) {
         /* render.md "Filtering precision": 8-bit weights and texels */
         const double wx = floor(fx * 256 + 0.5), wy = floor(fy * 256 + 0.5);
         double b[4];
         for (unsigned i = 0; i < 4; i++)
            b[i] = floor(q[i][k] * 255 + 0.5);
         const double top = b[0] * (256 - wx) + b[1] * wx, bot = b[2] * (256 - wx) + b[3] * wx;
         out[k] = (float)((top * (256 - wy) + bot * wy) / (255.0 * 65536));
      } else {
         out[k] = (float)((q[0][k] * (1 - fx) + q[1][k] * fx) * (1 - fy) +
                          (q[2][k] * (1 - fx) + q[3][k] * fx) * fy);
      }
   }
   return true;
}

/* The expected gather of component 1 (GL order (i0, j1), (i1, j1), (i1, j0),
 * (i0, j0)), seamless; false on a tie. */
static bool ref_gather(const float *d, double out[4])
{
   unsigned face;
   double s, t;
   if (!ref_face(d[0], d[1], d[2], &face, &s, &t))
      return false;
   const int x0 = (int)floor(s * CN - 0.5), y0 = (int)floor(t * CN - 0.5);
   static const int di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
   int corner = -1;
   double sum = 0;
   for (unsigned k = 0; k < 4; k++) {
      unsigned f = face;
      int tx = x0 + di[k], ty = y0 + dj[k];
      if (!ref_fold(&f, CN, &tx, &ty)) {
         corner = (int)k;
         continue;
      }
      double tex[4];
      ref_texel((unsigned)d[3], f, tx, ty, tex);
      out[k] = tex[1];
      sum += tex[1];
   }
   if (corner >= 0)
      out[corner] = (float)(sum / 3);
   return true;
}

static void test_cube_fold(void)
{
   unsigned bad = 0, folded = 0;
   for (int n = 1; n <= 7; n++)
      for (unsigned face = 0; face < 6; face++)
         for (int y = -1; y <= n; y++)
            for (int x = -1; x <= n; x++) {
               unsigned f = face, rf = face;
               int fx = x, fy = y, rx = x, ry = y;
               const bool ok = r_cube_fold(&f, n, &fx, &fy), rok = ref_fold(&rf, n, &rx, &ry);
               folded += ok && (x < 0 || y < 0 || x >= n || y >= n);
               if (ok != rok || (ok && (f != rf || fx != rx || fy != ry))) {
                  if (bad++ < 4)
                     fprintf(stderr, "  fold n %d face %u (%d, %d): %d face %u (%d, %d), want %d "
                                     "face %u (%d, %d)\n", n, face, x, y, ok, f, fx, fy, rok, rf,
                             rx, ry);
               }
            }
   /* every face has 4n texels past its edges, not counting corners */
   CHECK(bad == 0 && folded == 6 * 4 * 28, "cube fold: %u wrong, %u folded", bad, folded);
}

void test_tex_cube_seamless(void)
{
   test_cube_fold();
   W = 32; H = 32;
   float *dirs = cube_dirs();
   uint64_t dva = put(dirs, W * H * 16, 16);
   struct texdesc td8 = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_CUBE_ARRAY, CN, CN, 6 * CUBES, 1,
                         0, 0, false};
   struct texdesc td32 = td8;
   td32.fmt = VAGX_FORMAT_RGBA32_FLOAT;
   const uint64_t tex[2] = {make_texture(&td8, fill_cube8), make_texture(&td32, fill_cube32f)};
   static float got[2][32 * 32 * 4];
   unsigned changed = 0;
   for (unsigned fmt = 0; fmt < 2; fmt++)
      for (unsigned lin = 0; lin < 2; lin++)
         for (unsigned sl = 0; sl < 2; sl++) {
            const struct prog fs =
               cube_prog(tex[fmt], cube_sampler(lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST, sl),
                         dva, "mov r9, #0\ntex.lod.t0.s0.cube.array r0, r4, r9, r0");
            struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_FLOAT};
            /* path 0: generic (VAGX_RENDER_OPT_NO_FAST_IO), 1: fast */
            for (unsigned path = 0; path < 2; path++) {
               vagx_render_set_options(dev, path ? 0 : VAGX_RENDER_OPT_NO_FAST_IO);
               const enum vagx_job_status st = draw_fullscreen(&fs, &o);
               vagx_render_set_options(dev, 0);
               CHECK(st == VAGX_JOB_STATUS_OK, "cube seamless: status %d", st);
               unsigned bad = 0, judged = 0;
               for (unsigned y = 0; y < H; y++)
                  for (unsigned x = 0; x < W; x++) {
                     const unsigned i = y * W + x;
                     float *g = &got[path][i * 4];
                     memcpy(g, px(x, y), 16);
                     double e[4];
                     if (!ref_sample(&dirs[i * 4], lin, sl, fmt == 0, e))
                        continue;
                     judged++;
                     bool ok = true;
                     for (unsigned k = 0; k < 4; k++)
                        ok &= fabs(g[k] - e[k]) <= 1e-6;
                     if (!ok && bad++ < 3)
                        fprintf(stderr, "  cube %s %s %s path %u (%g, %g, %g): %g %g %g %g, want "
                                        "%g %g %g %g\n", fmt ? "rgba32f" : "rgba8",
                                lin ? "linear" : "nearest", sl ? "seamless" : "per face", path,
                                dirs[i * 4], dirs[i * 4 + 1], dirs[i * 4 + 2], g[0], g[1], g[2],
                                g[3], e[0], e[1], e[2], e[3]);
                  }
               CHECK(bad == 0 && judged > 1000, "cube %u/%u/%u path %u: %u of %u samples wrong",
                     fmt, lin, sl, path, bad, judged);
            }
            CHECK(!memcmp(got[0], got[1], sizeof(got[0])), "cube %u/%u/%u: fast != generic", fmt,
                  lin, sl);
            /* the seamless result differs where a footprint leaves the face */
            static float per_face[32 * 32 * 4];
            if (!sl) {
               memcpy(per_face, got[1], sizeof(per_face));
            } else {
               unsigned d = 0;
               for (unsigned i = 0; i < W * H; i++)
                  d += memcmp(&per_face[i * 4], &got[1][i * 4], 16) != 0;
               changed += d;
               CHECK(d > (lin ? 300u : 5u), "cube %u/%u: seamless changed only %u pixels", fmt, lin,
                     d);
            }
         }
   CHECK(changed > 0, "seamless never changed a sample");

   /* gather of component 1, seamless, RGBA8 */
   const struct prog fs = cube_prog(tex[0], cube_sampler(VAGX_FILTER_LINEAR, true), dva,
                                    "mov r10, #1\nmov r11, #0\n"
                                    "tex.gather.t0.s0.cube.array r0, r4, r10, r11");
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_FLOAT};
   CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "cube gather: status");
   unsigned bad = 0, judged = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const unsigned i = y * W + x;
         double e[4];
         float g[4];
         if (!ref_gather(&dirs[i * 4], e))
            continue;
         judged++;
         memcpy(g, px(x, y), 16);
         bool ok = true;
         for (unsigned k = 0; k < 4; k++)
            ok &= fabs(g[k] - e[k]) <= 1e-6;
         if (!ok && bad++ < 3)
            fprintf(stderr, "  cube gather (%g, %g, %g): %g %g %g %g, want %g %g %g %g\n",
                    dirs[i * 4], dirs[i * 4 + 1], dirs[i * 4 + 2], g[0], g[1], g[2], g[3], e[0],
                    e[1], e[2], e[3]);
      }
   CHECK(bad == 0 && judged > 1000, "cube gather: %u of %u wrong", bad, judged);
   free(dirs);
}
