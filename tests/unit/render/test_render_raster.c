/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: rasterisation and primitive assembly: triangles (top-
 * left rule, shared edges), varyings and their interpolation, strips and
 * fans, clipping (clip distances, the view volume), MSAA coverage, lines,
 * points, polygon modes, edge flags and draws longer than the vertex batch.
 * The harness is render_test_harness.h, main() in test_render.c.
 */
#include "render_test_harness.h"
#include "render_test_prims.h"

void test_triangle(void)
{
   W = 77; H = 50;  /* partial tiles */
   ncs = 0;
   double t[3][2] = {{3.25, 2.5}, {70.0, 10.125}, {20.5, 47.75}};
   uint64_t vb = vbuf_tris(t, 3, 0, NULL, NULL, NULL);
   struct prog fs = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   struct job_opts o = {.clear = {0, 0, 1, 1}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "triangle status %d unit %d addr %llx", st, f.unit,
         (unsigned long long)f.address);
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         bool in = ref_inside(t, x + 0.5, y + 0.5);
         const uint8_t *p = px(x, y);
         bool ok = in ? (p[0] == 255 && p[1] == 0 && p[2] == 0 && p[3] == 255)
                      : (p[0] == 0 && p[1] == 0 && p[2] == 255 && p[3] == 255);
         if (!ok)
            bad++;
      }
   CHECK(bad == 0, "triangle: %u pixels differ from reference", bad);
   if (bad)
      save_ppm("triangle");
}

void test_shared_edges(void)
{
   W = 96; H = 80;
   ncs = 0;
   enum { N = 7 };
   double g[N + 1][N + 1][2];
   unsigned seed = 12345;
   for (unsigned j = 0; j <= N; j++)
      for (unsigned i = 0; i <= N; i++) {
         seed = seed * 1103515245u + 12345u;
         double jx = (i > 0 && i < N) ? ((seed >> 16) % 2048) / 256.0 - 4 : 0;
         seed = seed * 1103515245u + 12345u;
         double jy = (j > 0 && j < N) ? ((seed >> 16) % 2048) / 256.0 - 4 : 0;
         g[j][i][0] = 4 + i * (W - 8) / (double)N + jx;
         g[j][i][1] = 4 + j * (H - 8) / (double)N + jy;
         g[j][i][0] = floor(g[j][i][0] * 256) / 256;
         g[j][i][1] = floor(g[j][i][1] * 256) / 256;
      }
   /* add exact pixel-centre hits on some vertices/edges */
   g[3][3][0] = floor(g[3][3][0]) + 0.5;
   g[3][3][1] = floor(g[3][3][1]) + 0.5;
   g[3][4][1] = g[3][3][1];
   double (*t)[2] = malloc(sizeof(double[2]) * N * N * 6);
   unsigned nv = 0;
   for (unsigned j = 0; j < N; j++)
      for (unsigned i = 0; i < N; i++) {
         const double *a = g[j][i], *b = g[j][i + 1], *c = g[j + 1][i], *d = g[j + 1][i + 1];
         const double *q[6] = {a, b, d, a, d, c};
         if ((i + j) & 1) {
            q[2] = c; q[3] = b; q[4] = d; q[5] = c;
         }
         for (unsigned k = 0; k < 6; k++) {
            t[nv][0] = q[k][0];
            t[nv][1] = q[k][1];
            nv++;
         }
      }
   uint64_t vb = vbuf_tris(t, nv, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, nv);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "mesh status");
   unsigned bad = 0, hits = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         unsigned expect = 0;
         for (unsigned k = 0; k < nv; k += 3)
            expect += ref_inside((const double(*)[2])t + k, x + 0.5, y + 0.5);
         hits += px(x, y)[0];
         if (px(x, y)[0] != expect || expect > 1)
            bad++;
      }
   CHECK(bad == 0, "shared edges: %u pixels wrong (hits %u)", bad, hits);
   if (bad)
      save_ppm("mesh");
   free(t);
}

static const char *fs_var =
   "iter.center.persp r0, cf1, cf0, r0\niter.center.persp r1, cf2, cf0, r0\n"
   "ldcf r2, cf3\niter.center r3, cf4, cf0, r0\nst_tile.rt0 r0, #0\nend\n";

/* Window-space barycentrics of (X, Y) in triangle t. */
static void screen_bary(const double (*t)[2], double X, double Y, double b[3])
{
   double d = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
   b[1] = ((X - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (Y - t[0][1])) / d;
   b[2] = ((t[1][0] - t[0][0]) * (Y - t[0][1]) - (X - t[0][0]) * (t[1][1] - t[0][1])) / d;
   b[0] = 1 - b[1] - b[2];
}

/* Draws the triangle of vertex buffer vb with fs_var and the bindings
 * smooth r, g; flat b; linear a into a cleared target; with clip_distance,
 * vb has a fifth word per vertex, a clip distance. */
static void run_var_triangle_fs(uint64_t vb, bool clip_distance, const char *what, const char *fsrc)
{
   struct prog fs = {.code = assemble(fsrc)};
   uint32_t cfb[4] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH),
                      binding(3, 1, 3, VAGX_INTERP_FLAT), binding(4, 1, 4, VAGX_INTERP_LINEAR)};
   emit_state(2, 1, 1, vb, &fs, cfb, 4, 5, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.provoking = VAGX_PROVOKING_VERTEX_LAST);
   if (clip_distance) {
      /* all four outputs in the smooth group, as Mesa emits them (the LINEAR
       * binding alone makes the fourth one noperspective), and a clip
       * distance after them */
      struct prog vs = vs_prog(5, vb);
      EMIT(cmd_bind_vertex_pipeline, v_.smooth32 = 4; v_.clip_distances = 1;
           to_usc(&vs, &v_.program));
   }
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "%s status", what);
}

static void run_var_triangle(uint64_t vb, bool clip_distance, const char *what)
{
   run_var_triangle_fs(vb, clip_distance, what, fs_var);
}

/* Perspective-correct varyings bit for bit: the AVX2 copy of the tile
 * phase (4 doubles a vector) and the baseline copy must interpolate the
 * same float at every pixel (its four bytes stored as the colour), for
 * random triangles, W from 2^-10 to 2^10 and varyings from 0 and 2^-140 to
 * 2^120. */
void test_varyings_bits(void)
{
   W = 64; H = 64;
   ncs = 0;
   static const char *fsrc =
      "iter.center.persp r4, cf1, cf0, r0\niter.center.persp r5, cf2, cf0, r0\n"
      "fadd r4, r4, r5\n"
      "and r0, r4, #255\nu2f r0, r0\nfmul r0, r0, #0.003921568859368563\n"
      "shr r1, r4, #8\nand r1, r1, #255\nu2f r1, r1\nfmul r1, r1, #0.003921568859368563\n"
      "shr r2, r4, #16\nand r2, r2, #255\nu2f r2, r2\nfmul r2, r2, #0.003921568859368563\n"
      "shr r3, r4, #24\nu2f r3, r3\nfmul r3, r3, #0.003921568859368563\n"
      "st_tile.rt0 r0, #0\nend\n";
   static uint8_t ref[64 * 64 * 4];
   uint64_t rng = 2026;
   unsigned differ = 0, shaded = 0;
   for (unsigned n = 0; n < 24; n++) {
      double t[3][2];
      float var[3 * 4], wv[3];
      for (unsigned i = 0; i < 3; i++) {
         rng = rng * 6364136223846793005ull + 1442695040888963407ull;
         t[i][0] = (double)(rng >> 40 & 0xffff) / 65536 * 80 - 8;
         t[i][1] = (double)(rng >> 20 & 0xffff) / 65536 * 80 - 8;
         wv[i] = (float)exp2((double)(rng >> 8 & 1023) / 1024 * 20 - 10);
         for (unsigned k = 0; k < 4; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const int e = n % 4 == 3 ? (int)(rng >> 33 & 255) - 140 : (int)(rng >> 33 & 15) - 8;
            var[i * 4 + k] = (rng >> 60 & 7) == 0 ? 0.0f
                             : (float)ldexp((double)(rng >> 41 & 0xfffff) / 0x100000 + 0.5, e) *
                                  ((rng >> 62 & 1) ? -1.0f : 1.0f);
         }
      }
      const uint64_t vb = vbuf_tris((const double(*)[2])t, 3, 4, var, wv, NULL);
      for (unsigned mode = 0; mode < 2; mode++) {
         usc_simd_force(mode ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
         run_var_triangle_fs(vb, false, "varyings bits", fsrc);
         usc_simd_force(USC_SIMD_AUTO);
         for (unsigned y = 0; y < H; y++) {
            if (!mode) {
               memcpy(ref + y * W * 4, px(0, y), W * 4);
               for (unsigned x = 0; x < W; x++)
                  shaded += memcmp(px(x, y), "\0\0\0\0", 4) != 0;
            } else if (memcmp(ref + y * W * 4, px(0, y), W * 4) && !differ++) {
               fprintf(stderr, "  triangle %u row %u differs between the AVX2 and baseline copies\n",
                       n, y);
            }
         }
      }
   }
   CHECK(differ == 0, "perspective varyings differ between the tile copies in %u rows", differ);
   CHECK(shaded > 5000, "only %u pixels shaded", shaded);
   printf("  varyings_bits: 24 triangles, %u pixels compared bit for bit\n", shaded);
}

void test_varyings(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[3][2] = {{2.0, 3.0}, {60.0, 8.0}, {12.0, 61.0}};
   /* smooth r, g; flat b; linear a */
   float var[3 * 4] = {1, 0, 0.25f, 0, 0, 1, 0.5f, 0.5f, 0, 0, 0.75f, 1};
   float wv[3] = {1.0f, 3.0f, 2.0f};
   uint64_t vb = vbuf_tris(t, 3, 4, var, wv, NULL);
   run_var_triangle(vb, false, "varyings");
   unsigned bad = 0, n = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         if (!ref_inside(t, x + 0.5, y + 0.5))
            continue;
         n++;
         double bc[3];
         screen_bary(t, x + 0.5, y + 0.5, bc);
         const double b0 = bc[0], b1 = bc[1], b2 = bc[2];
         double bw[3] = {b0 / wv[0], b1 / wv[1], b2 / wv[2]}, sw = bw[0] + bw[1] + bw[2];
         double exp[4];
         for (unsigned k = 0; k < 2; k++)
            exp[k] = (bw[0] * var[k] + bw[1] * var[4 + k] + bw[2] * var[8 + k]) / sw;
         exp[2] = var[8 + 2];
         exp[3] = b0 * var[3] + b1 * var[7] + b2 * var[11];
         const uint8_t *p = px(x, y);
         for (unsigned k = 0; k < 4; k++)
            if (fabs(p[k] - exp[k] * 255) > 1.01)
               bad++;
      }
   CHECK(n > 500 && bad == 0, "varyings: %u of %u components off", bad, n);
   if (bad)
      save_ppm("varyings");
}

/* Noperspective varyings of a triangle cut by a clip plane (here a clip
 * distance, w varying per vertex): the vertices the clipper generates get
 * window-space interpolated values (GL 4.6 13.5), so the part that survives
 * shows exactly the values of the unclipped triangle.  Interpolating them in
 * clip space, like smooth ones, is off by up to 0.2 here. */
void test_noperspective_clipped(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[3][2] = {{2.0, 3.0}, {60.0, 8.0}, {12.0, 61.0}};
   float wv[3] = {1.0f, 3.0f, 2.0f};
   const double pl[3] = {1, 0.35, -30}; /* clip distance: plane(x, y) in window px, times w */
   const float a[3] = {0, 0.5f, 1};     /* the noperspective varying */
   float var[3 * 5];
   for (unsigned i = 0; i < 3; i++) {
      var[i * 5 + 0] = 0.25f;
      var[i * 5 + 1] = 0.5f;
      var[i * 5 + 2] = 0.75f;
      var[i * 5 + 3] = a[i];
      var[i * 5 + 4] = (float)((pl[0] * t[i][0] + pl[1] * t[i][1] + pl[2]) * wv[i]);
   }
   uint64_t vb = vbuf_tris(t, 3, 5, var, wv, NULL);
   run_var_triangle(vb, true, "noperspective clipped");
   unsigned bad = 0, n = 0, dropped = 0;
   const double g = sqrt(pl[0] * pl[0] + pl[1] * pl[1]);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const double X = x + 0.5, Y = y + 0.5;
         const double dist = (pl[0] * X + pl[1] * Y + pl[2]) / g;
         if (!ref_inside(t, X, Y) || fabs(dist) < 1.0 / 64)
            continue;
         const uint8_t *p = px(x, y);
         if (dist < 0) {
            dropped++;
            bad += p[3] != 0 || p[0] != 0;
            continue;
         }
         n++;
         double bc[3];
         screen_bary(t, X, Y, bc);
         double exp = bc[0] * a[0] + bc[1] * a[1] + bc[2] * a[2];
         if (fabs(p[3] - exp * 255) > 1.01)
            bad++;
      }
   CHECK(n > 300 && dropped > 300 && bad == 0, "noperspective clipped: %u of %u pixels off (%u dropped)",
         bad, n + dropped, dropped);
   if (bad)
      save_ppm("noperspective-clipped");
}

void test_strip_fan_clip(void)
{
   W = 64; H = 64;
   ncs = 0;
   /* strip and fan covering the same quad: each pixel hit once */
   double s[4][2] = {{8, 8}, {56, 8}, {8, 56}, {56, 56}};
   double fan[4][2] = {{8, 8}, {56, 8}, {56, 56}, {8, 56}};
   double all[8][2];
   memcpy(all, s, sizeof(s));
   memcpy(all[4], fan, sizeof(fan));
   uint64_t vb = vbuf_tris(all, 8, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLE_STRIP, 4);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLE_FAN; v_.count = 4; v_.first = 4;
        v_.instance_count = 1);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "strip status");
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         unsigned e = (x >= 8 && x < 56 && y >= 8 && y < 56) ? 2 : 0;
         if (px(x, y)[0] != e)
            bad++;
      }
   CHECK(bad == 0, "strip+fan: %u pixels wrong", bad);
   if (bad)
      save_ppm("stripfan");

   /* near-plane crossing and guard band: a huge triangle with a vertex behind
    * the eye (w < 0) must still cover the screen region in front */
   ncs = 0;
   float b[3 * 4] = {-1, -1, 0.5f, 1, 3, -1, 0.5f, 1, -1, 3, 0.5f, 1};
   float b2[3 * 4] = {-0.5f, -0.5f, 0.5f, 1, 50000, -0.5f, 0.5f, 1, -0.5f, 0.5f, -2.0f, -1};
   float bb[6 * 4];
   memcpy(bb, b, sizeof(b));
   memcpy(bb + 12, b2, sizeof(b2));
   uint64_t vb2 = put(bb, sizeof(bb), 16);
   struct prog red = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb2, &red, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "clip status");
   unsigned red_n = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         red_n += px(x, y)[0] == 255;
   CHECK(red_n == W * H, "full-screen clipped triangle covers %u of %u", red_n, W * H);
}

void test_msaa(void)
{
   W = 32; H = 32;
   ncs = 0;
   double t[3][2] = {{2.25, 3.5}, {30.0, 9.125}, {9.5, 29.75}};
   uint64_t vb = vbuf_tris(t, 3, 0, NULL, NULL, NULL);
   /* FS writes white to every covered sample */
   struct prog fs = {.code = assemble("mov r0, #1.0\nmov r1, #1.0\nmov r2, #1.0\nmov r3, #1.0\n"
                                      "st_tile.rt0 r0, #0\nst_tile.rt0 r0, #1\n"
                                      "st_tile.rt0 r0, #2\nst_tile.rt0 r0, #3\nend\n")};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.multisample = 1);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   /* EOT resolves by averaging the four samples in the shader */
   struct job_opts o = {.samples = 4, .clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   /* replace eot: average */
   struct vagx_render_job rj;
   const char *err;
   vagx_render_job_unpack(ptr(job), &rj, &err);
   rj.eot_program.code_va = assemble(
      "mov r4, sr.pix_x\nmov r5, sr.pix_y\n"
      "ld_tile.rt0 r0, #0\nld_tile.rt0 r8, #1\nld_tile.rt0 r12, #2\nld_tile.rt0 r16, #3\n"
      "fadd r0, r0, r8\nfadd r0, r0, r12\nfadd r0, r0, r16\nfmul r0, r0, #0.25\n"
      "mov r1, r0\nmov r2, r0\nmov r3, #1.0\nimg_st.i0.2d r4, r0, #0\nend\n");
   vagx_render_job_pack(ptr(job), &rj);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "msaa status %d", f.status);
   static const int sp[4][2] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         unsigned n = 0;
         for (unsigned s = 0; s < 4; s++)
            n += ref_inside(t, x + sp[s][0] / 16.0, y + sp[s][1] / 16.0);
         unsigned e = (unsigned)lrint(n * 255 / 4.0);
         if (abs((int)px(x, y)[0] - (int)e) > 1)
            bad++;
      }
   CHECK(bad == 0, "msaa coverage: %u pixels wrong", bad);
   if (bad)
      save_ppm("msaa");
}

/* ------------------------------------------------------------ lines -- */
/* Reference for GL 4.6 14.5.1, written from the definition: the segment
 * from pa' to pb' (pa' = pa - (e, e^2), e -> 0+) produces pixel f when it
 * meets the open diamond |x - xf| + |y - yf| < 1/2 and pb' is not inside it.
 * Values are polynomials c0 + c1 e + c2 e^2 compared lexicographically;
 * every number is a short dyadic, so the doubles are exact. */
struct eps { double c[3]; };

static int eps_cmp(struct eps a, struct eps b)
{
   for (unsigned k = 0; k < 3; k++)
      if (a.c[k] != b.c[k])
         return a.c[k] < b.c[k] ? -1 : 1;
   return 0;
}

static struct eps eps_scale(struct eps a, double s)
{
   for (unsigned k = 0; k < 3; k++)
      a.c[k] *= s;
   return a;
}

static const int dn[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

/* n . (p' - c) */
static struct eps eps_ndot(unsigned i, double px_, double py_, double cx, double cy)
{
   struct eps r = {{dn[i][0] * (px_ - cx) + dn[i][1] * (py_ - cy), -dn[i][0], -dn[i][1]}};
   return r;
}

static bool ref_in_diamond(double px_, double py_, double cx, double cy)
{
   const struct eps half = {{0.5, 0, 0}};
   for (unsigned i = 0; i < 4; i++)
      if (eps_cmp(eps_ndot(i, px_, py_, cx, cy), half) >= 0)
         return false;
   return true;
}

/* Does a' + t (b - a), t in [0, 1], meet the open diamond around (cx, cy)?
 * Bounds on t are num/den with den > 0 (Liang-Barsky). */
static bool ref_meets(double ax, double ay, double bx, double by, double cx, double cy)
{
   struct eps lo_n[5] = {{{0, 0, 0}}}, hi_n[5] = {{{1, 0, 0}}};
   double lo_d[5] = {1}, hi_d[5] = {1};
   unsigned nlo = 1, nhi = 1;
   for (unsigned i = 0; i < 4; i++) {
      struct eps a = eps_ndot(i, ax, ay, cx, cy), num = {{0.5 - a.c[0], -a.c[1], -a.c[2]}};
      double B = dn[i][0] * (bx - ax) + dn[i][1] * (by - ay);
      if (B == 0) {
         struct eps z = {{0, 0, 0}};
         if (eps_cmp(num, z) <= 0)
            return false;
      } else if (B > 0) {
         hi_n[nhi] = num;
         hi_d[nhi++] = B;
      } else {
         lo_n[nlo] = eps_scale(num, -1);
         lo_d[nlo++] = -B;
      }
   }
   for (unsigned i = 0; i < nlo; i++)
      for (unsigned k = 0; k < nhi; k++)
         if (eps_cmp(eps_scale(lo_n[i], hi_d[k]), eps_scale(hi_n[k], lo_d[i])) >= 0)
            return false;
   return true;
}

/* Adds the fragments of one segment of width w (GL's wide-line rule: the
 * segment shifted by -(w-1)/2 in the minor direction, each fragment
 * replicated w times in +minor) to cnt[H][W]. */
static void ref_line(unsigned *cnt, double ax, double ay, double bx, double by, int w)
{
   const bool ymajor = fabs(by - ay) > fabs(bx - ax);
   const double sh = (w - 1) / 2.0;
   if (ymajor) {
      ax -= sh;
      bx -= sh;
   } else {
      ay -= sh;
      by -= sh;
   }
   const int m = w + 3;
   for (int y = -m; y < (int)H + m; y++)
      for (int x = -m; x < (int)W + m; x++) {
         const double cx = x + 0.5, cy = y + 0.5;
         if (ref_in_diamond(bx, by, cx, cy) || !ref_meets(ax, ay, bx, by, cx, cy))
            continue;
         for (int k = 0; k < w; k++) {
            int fx = ymajor ? x + k : x, fy = ymajor ? y : y + k;
            if (fx >= 0 && fy >= 0 && fx < (int)W && fy < (int)H)
               cnt[fy * W + fx]++;
         }
      }
}

/* Draws nv vertices as prim with width w (additive count shader) and
 * compares the per-pixel counts with ref[]. Returns the differing pixels. */
static unsigned draw_lines_check(const char *name, enum vagx_primitive prim, const double (*v)[2],
                                 unsigned nv, float width, const unsigned *ref)
{
   ncs = 0;
   uint64_t vb = vbuf_tris(v, nv, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = width;
        v_.sample_mask = 0xf; v_.depth_clip = 1);
   draw(prim, nv);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "%s: status", name);
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         if (px(x, y)[0] != ref[y * W + x]) {
            if (bad < 4)
               fprintf(stderr, "  %s: (%u,%u) got %u want %u\n", name, x, y, px(x, y)[0],
                       ref[y * W + x]);
            bad++;
         }
   if (bad)
      save_ppm(name);
   return bad;
}

static double rnd_grid(unsigned *seed, double lo, double hi)
{
   *seed = *seed * 1103515245u + 12345u;
   double r = ((*seed >> 8) & 0xffffff) / 16777216.0;
   return floor((lo + r * (hi - lo)) * 256) / 256;
}

void test_lines(void)
{
   W = 64; H = 64;
   unsigned *ref = calloc(W * H, sizeof(unsigned));
   /* hand-picked: x-major, y-major, 45 degrees both ways, horizontal and
    * vertical on pixel boundaries, endpoints on pixel centres (Bresenham
    * case), inside/outside/on the boundary of their diamonds, both directions */
   static const double hand[][4] = {
      {3.5, 3.5, 20.5, 9.5},      {20.5, 9.5, 3.5, 3.5},      /* centres, x-major */
      {5.5, 10.5, 9.5, 40.5},     {9.5, 40.5, 5.5, 10.5},     /* centres, y-major */
      {10.5, 12.5, 30.5, 32.5},   {30.5, 12.5, 10.5, 32.5},   /* 45 degrees */
      {33.0, 40.0, 53.0, 60.0},   {53.0, 40.0, 33.0, 60.0},   /* 45, pixel corners */
      {2.0, 50.0, 30.0, 50.0},    {30.0, 52.0, 2.0, 52.0},    /* horizontal on boundary */
      {40.0, 2.0, 40.0, 30.0},    {44.0, 30.0, 44.0, 2.0},    /* vertical on boundary */
      {35.75, 5.5, 60.25, 5.5},   {60.25, 7.5, 35.75, 7.5},   /* ends 1/4 from centre */
      {35.0, 9.5, 61.0, 9.5},     {61.0, 11.5, 35.0, 11.5},   /* ends on left/right vertex */
      {36.5, 13.0, 60.5, 14.0},   {60.5, 20.0, 36.5, 19.0},   /* ends on top/bottom vertex */
      {37.25, 22.75, 59.75, 25.25}, {59.75, 27.25, 37.25, 29.75}, /* on diamond edges */
      {12.0, 44.0, 12.5, 44.25},  {14.4, 44.6, 14.6, 44.4},   /* short, inside one pixel */
      {16.1, 44.5, 16.9, 44.5},   {20.75, 44.5, 21.25, 44.5}, /* short, crossing centres */
   };
   const unsigned nh = sizeof(hand) / sizeof(hand[0]);
   unsigned bad = 0, lit = 0;
   for (unsigned i = 0; i < nh; i++) {
      double v[2][2] = {{floor(hand[i][0] * 256) / 256, floor(hand[i][1] * 256) / 256},
                        {floor(hand[i][2] * 256) / 256, floor(hand[i][3] * 256) / 256}};
      memset(ref, 0, W * H * sizeof(unsigned));
      ref_line(ref, v[0][0], v[0][1], v[1][0], v[1][1], 1);
      bad += draw_lines_check("line-hand", VAGX_PRIMITIVE_LINES, (const double(*)[2])v, 2, 1, ref);
      for (unsigned k = 0; k < W * H; k++)
         lit += ref[k];
   }
   CHECK(bad == 0, "hand-picked lines: %u pixels differ from the diamond-exit reference", bad);
   CHECK(lit > 300, "hand-picked lines drew only %u fragments", lit);

   /* random subpixel segments, 8 per job, with widths 1..4 */
   unsigned seed = 777;
   bad = 0;
   for (unsigned it = 0; it < 48; it++) {
      double v[16][2];
      int w = it < 24 ? 1 : 1 + (int)(it % 4);
      memset(ref, 0, W * H * sizeof(unsigned));
      for (unsigned k = 0; k < 16; k += 2) {
         for (unsigned e = 0; e < 2; e++) {
            v[k + e][0] = rnd_grid(&seed, -3, W + 3);
            v[k + e][1] = rnd_grid(&seed, -3, H + 3);
            /* sometimes snap to a centre, corner or diamond vertex */
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 16) % 6) {
            case 0: v[k + e][0] = floor(v[k + e][0]) + 0.5; v[k + e][1] = floor(v[k + e][1]) + 0.5; break;
            case 1: v[k + e][0] = floor(v[k + e][0]); v[k + e][1] = floor(v[k + e][1]); break;
            case 2: v[k + e][0] = floor(v[k + e][0]) + 0.5; v[k + e][1] = floor(v[k + e][1]); break;
            default: break;
            }
         }
         if (k == 2) {  /* an exact 45-degree segment */
            double d = v[k + 1][0] - v[k][0];
            v[k + 1][1] = v[k][1] + ((seed >> 20) & 1 ? d : -d);
         }
         ref_line(ref, v[k][0], v[k][1], v[k + 1][0], v[k + 1][1], w);
      }
      bad += draw_lines_check("line-rand", VAGX_PRIMITIVE_LINES, (const double(*)[2])v, 16,
                              (float)w, ref);
   }
   CHECK(bad == 0, "random lines: %u pixels differ from the diamond-exit reference", bad);

   /* strips and loops: the sum of their segments; shared vertices of
    * segments with the same major axis are never drawn twice */
   static const double poly[][2] = {{4.5, 4.5}, {30.25, 10.75}, {55.5, 12.0}, {58.0, 40.5},
                                    {50.5, 58.5}, {20.75, 55.25}, {8.0, 30.0}, {12.5, 20.5}};
   const unsigned np = sizeof(poly) / sizeof(poly[0]);
   for (unsigned loop = 0; loop < 2; loop++) {
      memset(ref, 0, W * H * sizeof(unsigned));
      for (unsigned i = 0; i + 1 < np + loop; i++) {
         const double *a = poly[i], *b = poly[(i + 1) % np];
         ref_line(ref, a[0], a[1], b[0], b[1], 1);
      }
      unsigned maxc = 0;
      for (unsigned k = 0; k < W * H; k++)
         maxc = ref[k] > maxc ? ref[k] : maxc;
      bad = draw_lines_check(loop ? "line-loop" : "line-strip",
                             loop ? VAGX_PRIMITIVE_LINE_LOOP : VAGX_PRIMITIVE_LINE_STRIP, poly, np,
                             1, ref);
      CHECK(bad == 0, "%s: %u pixels differ", loop ? "loop" : "strip", bad);
      CHECK(maxc == 1, "%s: reference hits a pixel %u times", loop ? "loop" : "strip", maxc);
   }
   /* an x-major strip zig-zagging through pixel centres: exactly Bresenham,
    * half-open, shared vertices once */
   {
      double zz[6][2] = {{2.5, 30.5}, {12.5, 25.5}, {22.5, 33.5}, {40.5, 30.5}, {52.5, 36.5},
                         {61.5, 29.5}};
      memset(ref, 0, W * H * sizeof(unsigned));
      for (unsigned i = 0; i + 1 < 6; i++)
         ref_line(ref, zz[i][0], zz[i][1], zz[i + 1][0], zz[i + 1][1], 1);
      bad = draw_lines_check("line-zigzag", VAGX_PRIMITIVE_LINE_STRIP, (const double(*)[2])zz, 6,
                             1, ref);
      unsigned cols = 0;
      for (unsigned x = 0; x < W; x++) {
         unsigned n = 0;
         for (unsigned y = 0; y < H; y++)
            n += px(x, y)[0];
         cols += n == 1;
      }
      CHECK(bad == 0 && cols == 59, "zig-zag strip: %u bad, %u columns with one fragment", bad,
            cols);
   }
   free(ref);

   /* varyings and depth along a line: r goes 0 -> 1 (smooth, w = 1) from
    * x = 4.5 to 60.5; z goes 0 -> 1 and the depth test LESS against 0.5
    * keeps the first half */
   ncs = 0;
   double lv[2][2] = {{4.5, 20.5}, {60.5, 20.5}};
   float var[2] = {0, 1}, zv[2] = {0, 1};
   uint64_t vb = vbuf_tris(lv, 2, 1, var, NULL, zv);
   struct prog fs = {.code = assemble("iter.center.persp r0, cf1, cf0, r0\nmov r1, #0\n"
                                      "mov r2, #0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_LINEAR), binding(1, 1, 1, VAGX_INTERP_SMOOTH)};
   emit_state(1, 0, 0, vb, &fs, cfb, 2, 2, false);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
        v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   draw(VAGX_PRIMITIVE_LINES, 2);
   struct job_opts o = {.clear = {0, 0, 1, 1}, .clear_depth = 0.5f};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "line varyings status");
   unsigned vbad = 0;
   for (unsigned x = 0; x < W; x++) {
      /* pixel x's centre is at t = (x + 0.5 - 4.5) / 56; drawn for x in [4, 60)
       * with z = t < 0.5 */
      double t = (x + 0.5 - 4.5) / 56.0;
      bool in = x >= 4 && x < 60 && t < 0.5;
      const uint8_t *p = px(x, 20);
      bool ok = in ? (p[2] == 0 && fabs(p[0] - t * 255.0) <= 1.0) : (p[2] == 255 && p[0] == 0);
      if (!ok)
         vbad++;
   }
   CHECK(vbad == 0, "line varyings/depth: %u pixels wrong", vbad);
   if (vbad)
      save_ppm("line-varyings");
}

/* ------------------------------------------------------------- points -- */
static uint32_t binding_src(unsigned slot, unsigned count, unsigned cf, enum vagx_interp in,
                            enum vagx_cf_source src)
{
   return t_cf_binding_src(slot, count, cf, in, src);
}

/* Point sprites (GL 4.6 14.4): pixel f is covered when its centre lies in the
 * square of side `size` around the point (left/top edges inside, right/bottom
 * outside: the top-left rule), gl_PointCoord s = 1/2 + (xf + 1/2 - xw)/size,
 * t = 1/2 + (yf + 1/2 - yw)/size (upper-left origin, y down) or 1/2 - ... with
 * point_sprite_lower_left.  Sizes from the rasterizer state and from the
 * vertex shader's point-size output. */
void test_points(void)
{
   W = 64; H = 64;
   /* x, y (1/256 grid), size; some squares have edges exactly on centres */
   static const double P[][3] = {
      {5.5, 5.5, 1}, {12.25, 6.75, 1}, {20.0, 6.0, 2}, {30.5, 6.5, 3},
      {44.125, 8.375, 4.5}, {56.0, 8.5, 6.25}, {8.5, 24.0, 7}, {26.0, 26.0, 9},
      {47.75, 27.25, 11.5}, {12.0, 48.0, 16}, {36.5, 46.5, 20}, {58.0, 58.0, 0.5},
      {62.0, 40.0, 6}, /* partly outside the framebuffer */
   };
   const unsigned np = sizeof(P) / sizeof(P[0]);
   const struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   for (unsigned mode = 0; mode < 3; mode++) {
      /* 0: vertex point size, upper-left; 1: lower-left; 2: rasterizer size 5 */
      ncs = 0;
      double v[16][2];
      float ps[16];
      for (unsigned i = 0; i < np; i++) {
         v[i][0] = P[i][0];
         v[i][1] = P[i][1];
         ps[i] = (float)P[i][2];
      }
      uint64_t vb = vbuf_tris((const double(*)[2])v, np, 1, ps, NULL, NULL);
      struct prog fs = {.code = assemble("iter.center r0, cf1, cf0, r0\niter.center r1, cf2, cf0, r0\n"
                                         "mov r2, #1.0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
      uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_LINEAR),
                         binding_src(0, 2, 1, VAGX_INTERP_LINEAR, VAGX_CF_SOURCE_POINT_COORD)};
      struct prog vs = vs_prog(1, vb);
      emit_state(0, 0, 0, vb, &fs, cfb, 2, 3, false);
      EMIT(cmd_bind_vertex_pipeline, v_.point_size = mode < 2; to_usc(&vs, &v_.program));
      EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = 2; v_.cf_count = 3; v_.slots32 = 1;
           v_.cf_bindings_va = put(cfb, 8, 4); to_usc(&fs, &v_.program));
      EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 5; v_.line_width = 1;
           v_.sample_mask = 0xf; v_.depth_clip = 1; v_.point_sprite_lower_left = mode == 1);
      draw(VAGX_PRIMITIVE_POINTS, np);
      CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "points status %d", f.status);
      unsigned bad_cov = 0, bad_pc = 0, lit = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            int hit = -1;
            double s = 0, tt = 0;
            for (unsigned i = 0; i < np; i++) {
               /* sizes below 1 are clamped to the point size range [1, 8192] */
               double size = mode == 2 ? 5 : fmax(P[i][2], 1), h = size / 2;
               double cx = x + 0.5, cy = y + 0.5;
               if (cx >= P[i][0] - h && cx < P[i][0] + h && cy >= P[i][1] - h && cy < P[i][1] + h) {
                  hit = (int)i;
                  s = 0.5 + (cx - P[i][0]) / size;
                  tt = 0.5 + (mode == 1 ? -1 : 1) * (cy - P[i][1]) / size;
               }
            }
            const uint8_t *p = px(x, y);
            if ((hit >= 0) != (p[2] == 255)) {
               if (bad_cov < 4)
                  fprintf(stderr, "  points mode %u (%u,%u): covered %d want %d\n", mode, x, y, p[2] == 255,
                          hit >= 0);
               bad_cov++;
               continue;
            }
            if (hit < 0)
               continue;
            lit++;
            if (fabs(p[0] - s * 255) > 0.51 || fabs(p[1] - tt * 255) > 0.51) {
               if (bad_pc < 4)
                  fprintf(stderr, "  points mode %u (%u,%u): coord %u,%u want %.2f,%.2f\n", mode, x, y,
                          p[0], p[1], s * 255, tt * 255);
               bad_pc++;
            }
         }
      CHECK(bad_cov == 0 && bad_pc == 0 && lit > 100,
            "points mode %u: %u coverage, %u point-coord pixels wrong (%u lit)", mode, bad_cov, bad_pc, lit);
      if (bad_cov || bad_pc)
         save_ppm("points");
   }
}

/* ------------------------------------------------------- clip distances -- */
/* Clip distances (GL 4.6 13.7.1): a pixel is drawn when every distance,
 * interpolated perspective-correctly from the vertices, is >= 0.  Pixels
 * within 1/64 pixel of a clip edge are not judged (the clipped vertices are
 * snapped to 1/256). */
void test_clip_distances(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[6][2] = {{2, 2}, {62, 4}, {6, 62}, {60, 60}, {62, 10}, {8, 63}};
   float wv[6] = {1, 2.5f, 0.75f, 1.5f, 1, 3};
   /* per vertex: cd0, cd1 (in pixels at w = 1, times w: clip space) */
   float cd[6][2];
   const double pl[2][3] = {{1, 0.35, -30}, {-0.4, 1, -5}}; /* a*x + b*y + c in window px */
   for (unsigned i = 0; i < 6; i++)
      for (unsigned k = 0; k < 2; k++)
         cd[i][k] = (float)((pl[k][0] * t[i][0] + pl[k][1] * t[i][1] + pl[k][2]) * wv[i] *
                            (i < 3 ? 1 : -1));
   uint64_t vb = vbuf_tris(t, 6, 2, &cd[0][0], wv, NULL);
   struct prog fs = const_fs(1, 1, 1, 1);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   struct prog vs = vs_prog(2, vb);
   EMIT(cmd_bind_vertex_pipeline, v_.clip_distances = 2; to_usc(&vs, &v_.program));
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "clip distance status %d", f.status);
   unsigned bad = 0, lit = 0, judged = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const double X = x + 0.5, Y = y + 0.5;
         bool in = false, unsure = false;
         for (unsigned tri = 0; tri < 2; tri++) {
            const double(*v)[2] = (const double(*)[2])t + 3 * tri;
            if (!ref_inside(v, X, Y))
               continue;
            /* the distances are (screen-space plane) * w * sign: perspective-
             * correct interpolation gives plane(X, Y) * sign exactly */
            bool ok = true;
            for (unsigned k = 0; k < 2; k++) {
               double dd = (pl[k][0] * X + pl[k][1] * Y + pl[k][2]) * (tri ? -1 : 1);
               double g = sqrt(pl[k][0] * pl[k][0] + pl[k][1] * pl[k][1]);
               if (fabs(dd / g) < 1.0 / 64)
                  unsure = true;
               if (dd < 0)
                  ok = false;
            }
            in |= ok;
         }
         if (unsure)
            continue;
         judged++;
         lit += in;
         if ((px(x, y)[0] == 255) != in)
            bad++;
      }
   CHECK(bad == 0 && lit > 200 && judged > 3500, "clip distances: %u of %u pixels wrong (%u lit)", bad,
         judged, lit);
   if (bad)
      save_ppm("clipdist");

   /* points and lines: a point is dropped when any distance is negative, a
    * line is cut where the distance crosses 0 */
   ncs = 0;
   double pv[4][2] = {{10.5, 10.5}, {20.5, 10.5}, {4.5, 30.5}, {60.5, 30.5}};
   float pcd[4][2] = {{1, 0}, {-0.5f, 1}, {-16, 1}, {40, 1}}; /* line: cd0 = 0 at x = 20.5 */
   uint64_t vb2 = vbuf_tris((const double(*)[2])pv, 4, 2, &pcd[0][0], NULL, NULL);
   struct prog vs2 = vs_prog(2, vb2);
   emit_state(0, 0, 0, vb2, &fs, NULL, 0, 0, false);
   EMIT(cmd_bind_vertex_pipeline, v_.clip_distances = 2; to_usc(&vs2, &v_.program));
   draw(VAGX_PRIMITIVE_POINTS, 2);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_LINES; v_.count = 2; v_.first = 2; v_.instance_count = 1);
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "clip distance points status %d", f.status);
   unsigned n = 0, bad2 = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         bool on = px(x, y)[0] == 255, want = false;
         want |= x == 10 && y == 10;
         want |= y == 30 && x >= 20 && x < 60;
         n += on;
         bad2 += on != want;
      }
   CHECK(bad2 == 0 && n == 41, "clip distances on points/lines: %u pixels wrong, %u lit", bad2, n);
   if (bad2)
      save_ppm("clipdist-pl");
}

/* Clipping at the view volume (render_ppp.c: a triangle inside every
 * view-volume plane skips the clipping loop): triangles crossing the far
 * and the near plane (depth clip on) lose exactly their part beyond it;
 * triangles reaching 10^15 pixels past each side of the guard band draw
 * their visible part.  Pixels whose centre is within 0.05 pixel (or 0.02
 * in depth) of a boundary are not judged. */
void test_clip_view_volume(void)
{
   W = 64; H = 64;
   static const struct {
      double t[3][2];
      float z[3];
   } C[] = {
      {{{-10, -10}, {140, -10}, {-10, 140}}, {0.2f, 1.8f, 0.2f}},   /* far plane */
      {{{-10, -10}, {140, -10}, {-10, 140}}, {-0.8f, 0.8f, -0.8f}}, /* near plane */
      {{{5, 5}, {5, 60}, {1e15, 32}}, {0.5f, 0.5f, 0.5f}},           /* right guard band */
      {{{60, 5}, {60, 60}, {-1e15, 32}}, {0.5f, 0.5f, 0.5f}},        /* left */
      {{{5, 5}, {60, 5}, {32, 1e15}}, {0.5f, 0.5f, 0.5f}},           /* bottom */
      {{{5, 60}, {60, 60}, {32, -1e15}}, {0.5f, 0.5f, 0.5f}},        /* top */
   };
   for (unsigned ci = 0; ci < sizeof(C) / sizeof(C[0]); ci++) {
      ncs = 0;
      uint64_t vb = vbuf_tris(C[ci].t, 3, 0, NULL, NULL, C[ci].z);
      struct prog fs = const_fs(1, 1, 1, 1);
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 3);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      struct vagx_render_fault f;
      CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "clip case %u: status %d", ci, f.status);
      unsigned bad = 0, judged = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            const double cx = x + 0.5, cy = y + 0.5;
            bool in = ref_inside(C[ci].t, cx, cy), clear = true;
            for (unsigned k = 0; k < 4; k++)
               clear &= ref_inside(C[ci].t, cx + (k & 1 ? 0.05 : -0.05),
                                   cy + (k & 2 ? 0.05 : -0.05)) == in;
            if (ci < 2) {
               /* depth is linear in x here: z(x) through the first two vertices */
               const double z = C[ci].z[0] + (C[ci].z[1] - C[ci].z[0]) * (cx + 10) / 150;
               clear &= fabs(z - (ci == 0 ? 1.0 : 0.0)) > 0.02;
               in &= ci == 0 ? z <= 1 : z >= 0;
            }
            if (!clear)
               continue;
            judged++;
            bad += (px(x, y)[0] == 255) != in;
         }
      CHECK(bad == 0 && judged > W * H / 2, "clip case %u: %u of %u pixels wrong", ci, bad, judged);
   }
}

/* Polygon modes: a clockwise (front) triangle in LINE mode is its three
 * edges as diamond-exit lines, a counter-clockwise (back) one in POINT mode
 * is a point at each vertex; culling comes first; polygon offset applies
 * per mode (offset_line). */
static const double fm_a[3][2] = {{6.25, 5.5}, {40.75, 12.125}, {14.5, 37.25}};   /* CW */
static const double fm_b[3][2] = {{44.25, 30.5}, {50.5, 58.25}, {60.75, 40.125}};  /* CCW */

/* A new control stream with the state to draw fm_a then fm_b (six
 * vertices; with `flags`, one more word a vertex) with fs_count; returns
 * the vertex buffer. */
static uint64_t fm_state(const float *flags)
{
   ncs = 0;
   double t[6][2];
   memcpy(t, fm_a, sizeof(fm_a));
   memcpy(t[3], fm_b, sizeof(fm_b));
   uint64_t vb = vbuf_tris((const double(*)[2])t, 6, flags ? 1 : 0, flags, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   return vb;
}

static void fill_scene(enum vagx_cull_mode cull, bool fill_first, bool offset_line)
{
   W = 64; H = 64;
   fm_state(NULL);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
        v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   if (fill_first)
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 3; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.front_face = VAGX_FRONT_FACE_CW;
        v_.cull = cull; v_.fill_front = VAGX_FILL_MODE_LINE; v_.fill_back = VAGX_FILL_MODE_POINT;
        v_.offset_fill = 1; v_.offset_line = offset_line; v_.offset_units = -4);
   /* the lines and points test against the fill but do not write depth (a
    * vertex shared by two edges counts twice) */
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   struct job_opts o = {.clear = {0, 0, 0, 0}, .clear_depth = 1.0f};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "fill modes: status");
}

void test_fill_modes(void)
{
   W = 64; H = 64;
   static unsigned lines[64 * 64], pts[64 * 64];
   memset(lines, 0, sizeof(lines));
   memset(pts, 0, sizeof(pts));
   for (unsigned e = 0; e < 3; e++)
      ref_line(lines, fm_a[e][0], fm_a[e][1], fm_a[(e + 1) % 3][0], fm_a[(e + 1) % 3][1], 1);
   for (unsigned v = 0; v < 3; v++)   /* 3x3 point squares, top-left rule */
      for (unsigned y = 0; y < 64; y++)
         for (unsigned x = 0; x < 64; x++)
            pts[y * 64 + x] += x + 0.5 >= fm_b[v][0] - 1.5 && x + 0.5 < fm_b[v][0] + 1.5 &&
                               y + 0.5 >= fm_b[v][1] - 1.5 && y + 0.5 < fm_b[v][1] + 1.5;
   for (unsigned pass = 0; pass < 4; pass++) {
      /* 0: LINE + POINT; 1: cull FRONT (the lines go); 2: fill A first, then
       * its lines with offset_line (all pass); 3: the same without
       * offset_line (offset_fill only: lines on the fill fail LESS) */
      fill_scene(pass == 1 ? VAGX_CULL_MODE_FRONT : VAGX_CULL_MODE_NONE, pass >= 2, pass == 2);
      unsigned bad = 0, nlines = 0;
      for (unsigned y = 0; y < 64; y++)
         for (unsigned x = 0; x < 64; x++) {
            const unsigned i = y * 64 + x;
            const unsigned in = pass >= 2 && ref_inside(fm_a, x + 0.5, y + 0.5);
            unsigned e = pts[i] + in;
            if (pass == 0 || pass == 2)
               e += lines[i];
            else if (pass == 3)
               e += in ? 0 : lines[i];
            nlines += lines[i];
            if (px(x, y)[0] != e) {
               if (bad < 4)
                  fprintf(stderr, "  fill %u: (%u,%u) got %u want %u\n", pass, x, y, px(x, y)[0], e);
               bad++;
            }
         }
      CHECK(bad == 0 && nlines > 60, "fill modes pass %u: %u pixels wrong", pass, bad);
      if (bad)
         save_ppm("fill-modes");
   }
   /* near-clipped triangle in LINE mode: the parts of its edges survive, the
    * edge along the near plane (between the two intersections) is not drawn */
   ncs = 0;
   const double c[3][2] = {{8.5, 50.25}, {30.5, 6.75}, {58.25, 44.5}};
   const float cz[3] = {-0.5f, 0.5f, 0.5f};   /* v0 behind the near plane: t = 1/2 */
   uint64_t vb = vbuf_tris(c, 3, 0, NULL, NULL, cz);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.fill_front = VAGX_FILL_MODE_LINE;
        v_.fill_back = VAGX_FILL_MODE_LINE);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "fill modes: clipped status");
   memset(lines, 0, sizeof(lines));
   const double m01[2] = {(c[0][0] + c[1][0]) / 2, (c[0][1] + c[1][1]) / 2};
   const double m20[2] = {(c[2][0] + c[0][0]) / 2, (c[2][1] + c[0][1]) / 2};
   ref_line(lines, m01[0], m01[1], c[1][0], c[1][1], 1);
   ref_line(lines, c[1][0], c[1][1], c[2][0], c[2][1], 1);
   ref_line(lines, c[2][0], c[2][1], m20[0], m20[1], 1);
   unsigned bad = 0;
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++)
         bad += px(x, y)[0] != lines[y * 64 + x];
   CHECK(bad == 0, "fill modes: clipped LINE triangle: %u pixels wrong", bad);
   if (bad)
      save_ppm("fill-clipped");
}

/* Edge flags (cmd_bind_vertex_pipeline.edge_flag): the word after the clip
 * distances; vertex i's 0.0 drops the edge from vertex i to i + 1 in LINE
 * mode and vertex i itself in POINT mode.  The reference draws only the
 * flagged edges and vertices with the same line and point rules as
 * test_fill_modes. */
void test_edge_flags(void)
{
   W = 64; H = 64;
   static const float flags[6] = {1, 0, 1, 0, 1, 1};
   static unsigned want[64 * 64];
   memset(want, 0, sizeof(want));
   for (unsigned e = 0; e < 3; e++)
      if (flags[e] != 0)
         ref_line(want, fm_a[e][0], fm_a[e][1], fm_a[(e + 1) % 3][0], fm_a[(e + 1) % 3][1], 1);
   for (unsigned v = 0; v < 3; v++)
      for (unsigned y = 0; y < 64 && flags[3 + v] != 0; y++)
         for (unsigned x = 0; x < 64; x++)
            want[y * 64 + x] += x + 0.5 >= fm_b[v][0] - 1.5 && x + 0.5 < fm_b[v][0] + 1.5 &&
                                y + 0.5 >= fm_b[v][1] - 1.5 && y + 0.5 < fm_b[v][1] + 1.5;
   const uint64_t vb = fm_state(flags);
   /* the vertex shader stores word 4 (the flag): no varyings, no point size
    * or clip distances, so it is the edge flag word */
   struct prog vs = vs_prog(1, vb);
   EMIT(cmd_bind_vertex_pipeline, v_.edge_flag = 1; to_usc(&vs, &v_.program));
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 3; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.front_face = VAGX_FRONT_FACE_CW;
        v_.fill_front = VAGX_FILL_MODE_LINE; v_.fill_back = VAGX_FILL_MODE_POINT);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "edge flags: status");
   unsigned bad = 0, n = 0;
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++) {
         n += want[y * 64 + x];
         if (px(x, y)[0] != want[y * 64 + x]) {
            if (bad < 4)
               fprintf(stderr, "  edge flags: (%u,%u) got %u want %u\n", x, y, px(x, y)[0],
                       want[y * 64 + x]);
            bad++;
         }
      }
   CHECK(bad == 0 && n > 40, "edge flags: %u pixels wrong", bad);
   if (bad)
      save_ppm("edge-flags");
}

/* Point size range (render.md): sizes in (0, 1) rasterise as 1 (GL clamps
 * gl_PointSize to the range), 0 draws nothing.  A 1-pixel square centred on
 * a pixel centre covers exactly that pixel. */
void test_point_size_min(void)
{
   W = 32; H = 32;
   const float sizes[3] = {0.25f, 0.0f, 1.0f};
   for (unsigned k = 0; k < 3; k++) {
      ncs = 0;
      const double p[1][2] = {{20.5, 10.5}};
      uint64_t vb = vbuf_tris(p, 1, 0, NULL, NULL, NULL);
      struct prog fs = const_fs(1, 1, 1, 1);
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = sizes[k]; v_.line_width = 1;
           v_.sample_mask = 0xf; v_.depth_clip = 1);
      draw(VAGX_PRIMITIVE_POINTS, 1);
      struct job_opts o = {.clear = {0, 0, 0, 1}};
      struct vagx_render_fault f;
      CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "point size %g: status", sizes[k]);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += (px(x, y)[0] == 255) != (sizes[k] > 0 && x == 20 && y == 10);
      CHECK(bad == 0, "point size %g: %u pixels wrong", sizes[k], bad);
   }
}

/* Draws longer than the device's vertex batch (1536): strips, fans, loops
 * and lists whose runs cross batch boundaries, with restarts next to them,
 * against the test's own primitive assembly (render_test_prims.h).  The
 * zigzag strip tiles a band once (fs_count counts hits); BACK culling
 * catches a lost odd-triangle swap. */
static void ref_assemble(enum vagx_primitive prim, const double (*v)[2], const uint32_t *idx,
                         unsigned n, unsigned *cnt)
{
   static int64_t ids[4096];
   static uint32_t out[3 * 4096];
   if (n > 4096) {
      CHECK(false, "ref_assemble: %u vertices, more than it holds", n);
      return;
   }
   for (unsigned i = 0; i < n; i++)
      ids[i] = idx[i] == 0xffffffffu ? -1 : (int64_t)idx[i];
   unsigned words = 0, nv;
   const unsigned prims = ref_decompose(prim, ids, n, false, out, &words, &nv);
   for (unsigned p = 0; p < prims; p++) {
      const double *a = v[out[p * nv]], *b = v[out[p * nv + 1]];
      if (nv == 2) {
         ref_line(cnt, a[0], a[1], b[0], b[1], 1);
         continue;
      }
      const double *c = v[out[p * nv + 2]];
      const double t[3][2] = {{a[0], a[1]}, {b[0], b[1]}, {c[0], c[1]}};
      const double area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) -
                          (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
      if (area > 0) /* clockwise on screen = front (CW), BACK culled */
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++)
               cnt[y * W + x] += ref_inside(t, x + 0.5, y + 0.5);
   }
}

void test_big_draws(void)
{
   W = 64; H = 64;
   enum { NV = 3500 };
   static double v[NV][2];
   static uint32_t idx[NV + 8];
   static unsigned cnt[64 * 64];
   const enum vagx_primitive prims[] = {VAGX_PRIMITIVE_TRIANGLE_STRIP, VAGX_PRIMITIVE_TRIANGLE_FAN,
                                        VAGX_PRIMITIVE_TRIANGLES, VAGX_PRIMITIVE_LINE_STRIP,
                                        VAGX_PRIMITIVE_LINE_LOOP};
   for (unsigned pi = 0; pi < 5; pi++)
      for (unsigned restart = 0; restart < 2; restart++) {
         const enum vagx_primitive prim = prims[pi];
         const bool lines = prim == VAGX_PRIMITIVE_LINE_STRIP || prim == VAGX_PRIMITIVE_LINE_LOOP;
         for (unsigned i = 0; i < NV; i++) {
            const double t = (double)i / NV;
            if (prim == VAGX_PRIMITIVE_TRIANGLE_FAN) {
               /* a disc around the centre: one turn, clockwise on screen */
               const double a = 2 * M_PI * (i ? (i - 1) / (double)(NV - 2) : 0);
               v[i][0] = i ? 32 + 28 * cos(a) : 32;
               v[i][1] = i ? 32 + 28 * sin(a) : 32;
            } else if (lines) {
               /* a slow spiral: segments a few pixels long */
               const double a = 2 * M_PI * 5 * t;
               v[i][0] = 32 + (6 + 24 * t) * cos(a);
               v[i][1] = 32 + (6 + 24 * t) * sin(a);
            } else {
               /* zigzag band: top, bottom, top, ... (strip triangles alternate) */
               v[i][0] = 2 + 60 * t;
               v[i][1] = (i & 1) ? 12 : 50;
               if (prim == VAGX_PRIMITIVE_TRIANGLES)   /* thin slivers, front facing */
                  v[i][1] = (i % 3 == 0) ? 12 : (i % 3 == 1) ? 12.5 + 0.1 * (i % 7) : 50;
            }
            v[i][0] = floor(v[i][0] * 256) / 256;
            v[i][1] = floor(v[i][1] * 256) / 256;
         }
         unsigned n = 0;
         for (unsigned i = 0; i < NV; i++) {
            /* restarts on both sides of the first batch boundary */
            /* restarts: a run crossing the first batch boundary with an odd
             * length, one crossing the second with an even length */
            if (restart && (i == 2 || i == 3070))
               idx[n++] = 0xffffffffu;
            idx[n++] = i;
         }
         memset(cnt, 0, sizeof(cnt));
         ref_assemble(prim, (const double(*)[2])v, idx, n, cnt);
         ncs = 0;
         uint64_t vb = vbuf_tris((const double(*)[2])v, NV, 0, NULL, NULL, NULL);
         uint64_t ib = put(idx, n * 4, 4);
         struct prog fs = {.code = assemble(fs_count)};
         emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
         EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
              v_.sample_mask = 0xf; v_.depth_clip = 1; v_.front_face = VAGX_FRONT_FACE_CW;
              v_.cull = lines ? VAGX_CULL_MODE_NONE : VAGX_CULL_MODE_BACK);
         EMIT(cmd_draw, v_.primitive = prim; v_.count = n; v_.instance_count = 1;
              v_.index_size = VAGX_INDEX_SIZE_U32; v_.index_va = ib; v_.index_buffer_size = n * 4;
              v_.restart = 1; v_.restart_index = 0xffffffffu);
         struct job_opts o = {.clear = {0, 0, 0, 0}};
         struct vagx_render_fault f;
         CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "big draw %u/%u: status", pi, restart);
         unsigned bad = 0, hits = 0;
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               hits += cnt[y * W + x];
               bad += px(x, y)[0] != (cnt[y * W + x] > 255 ? 255 : cnt[y * W + x]);
            }
         CHECK(bad == 0 && hits > 300, "big draw prim %d restart %u: %u pixels wrong (%u hits)",
               prim, restart, bad, hits);
         if (bad)
            save_ppm("big-draw");
      }
}
