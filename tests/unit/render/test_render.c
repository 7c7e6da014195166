/* SPDX-License-Identifier: MIT */
/* Renderer core II tests: render jobs built in flat memory (identity
 * translate), shaders written in assembly, results compared against an
 * independent reference rasteriser (double-precision edge functions with the
 * top-left rule).  Failing images are written as PPM under the build dir. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "usc_simd.h"
#include "vagx_asm.h"
#include "vagx_layout.h"

#include "vagx_check.h"
#include "vagx_cs.h"
#include "vagx_test_desc.h"

/* ------------------------------------------------------------ memory -- */
#define MEM_SIZE (64u << 20)
#include "render_test_mem.h"

/* ------------------------------------------------------------ helpers -- */
#include "render_test_prog.h"

/* Control stream writer. */
static uint32_t cs[16384];
static unsigned ncs;
#define EMIT(T, ...) VAGX_CS_EMIT(cs, ncs, T, __VA_ARGS__)

/* Framebuffer */
static unsigned W = 64, H = 64;
static uint64_t fb_va, fb_stride;

static const char *bg_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nend\n";
static const char *bg4_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nst_tile.rt0 r0, #1\nst_tile.rt0 r0, #2\nst_tile.rt0 r0, #3\nend\n";
static const char *eot_src =
   "mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
   "img_st.i0.2d r4, r0, #0\nend\n";

struct job_opts {
   unsigned samples;
   float clear[4];
   bool zs;
   enum vagx_format zs_format;
   float clear_depth;
   bool depth_store;
   bool depth_load, stencil_load, stencil_store;
   unsigned clear_stencil;
   enum vagx_format rt_format;   /* INVALID (0): RGBA8_UNORM; also the PBE format */
   const char *eot;              /* replaces eot_src */
   bool pbe_twiddled;            /* the PBE image is twiddled (fb_layout), samples as the job */
};
static struct vagx_layout fb_layout;   /* make_job with pbe_twiddled */

static uint64_t zs_tex_va, zs_base;
static struct vagx_pbe last_pbe;   /* end-of-tile PBE of the last make_job */
static uint64_t last_pbe_va;
static struct vagx_layout zs_layout;
static unsigned fb_bpp = 4;

/* Builds the render job around the current control stream. */
static uint64_t make_job(const struct job_opts *o)
{
   uint64_t cs_va = put(cs, ncs * 4, 16);
   unsigned samples = o->samples ? o->samples : 1;
   const enum vagx_format rtf = o->rt_format ? o->rt_format : VAGX_FORMAT_RGBA8_UNORM;
   fb_bpp = vagx_format_bytes_per_block(rtf);
   fb_stride = t_linear_stride(W, fb_bpp);
   fb_va = alloc(fb_stride * H, 128);
   struct vagx_pbe pbe;
   t_pbe_linear_2d(&pbe, rtf, W, H, (uint32_t)fb_stride, fb_va);
   if (o->pbe_twiddled) {
      struct vagx_layout *l = &fb_layout;
      memset(l, 0, sizeof(*l));
      l->width_px = W; l->height_px = H; l->depth_px = 1; l->levels = 1;
      l->sample_count_sa = samples; l->block_width_px = l->block_height_px = 1;
      l->bytes_per_block_B = fb_bpp;
      l->tiling = VAGX_TILING_TWIDDLED;
      vagx_layout_init(l);
      fb_va = alloc(l->size_B, 16384);
      pbe.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
      pbe.samples = samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
      pbe.stride = 0;
      pbe.base_va = fb_va;
   }
   uint64_t pbe_va = alloc(32, 32);
   vagx_pbe_pack(ptr(pbe_va), &pbe);
   last_pbe = pbe;
   last_pbe_va = pbe_va;

   struct prog bg = {.code = assemble(samples == 4 ? bg4_src : bg_src), .nuni = 4};
   memcpy(bg.uni, o->clear, 16);
   struct prog eot = {.code = assemble(o->eot ? o->eot : eot_src), .img = pbe_va, .nimg = 1};

   struct vagx_render_job rj;
   t_render_job_1rt(&rj, W, H, rtf, cs_va);
   rj.samples = samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
   rj.clear_depth = o->clear_depth;
   rj.clear_stencil = o->clear_stencil;
   if (o->zs) {
      struct vagx_texture t;
      vagx_texture_init(&t);
      t.format = o->zs_format;
      t.dimension = VAGX_DIMENSION_2D;
      t.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
      t.samples = rj.samples;
      t.width = W;
      t.height = H;
      t.depth = 1;
      t.levels = 1;
      t.swizzle_g = VAGX_SWIZZLE_G; t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
      struct vagx_layout l;
      memset(&l, 0, sizeof(l));
      l.width_px = W; l.height_px = H; l.depth_px = 1; l.levels = 1;
      l.sample_count_sa = samples; l.block_width_px = l.block_height_px = 1;
      l.bytes_per_block_B = vagx_format_bytes_per_block(o->zs_format);
      l.tiling = VAGX_TILING_TWIDDLED;
      vagx_layout_init(&l);
      zs_layout = l;
      zs_base = alloc(l.size_B, 16384);
      t.base_va = zs_base;
      zs_tex_va = alloc(32, 32);
      vagx_texture_pack(ptr(zs_tex_va), &t);
      rj.zs_desc_va = zs_tex_va;
      rj.depth_store = o->depth_store;
      rj.depth_load = o->depth_load;
      rj.stencil_load = o->stencil_load;
      rj.stencil_store = o->stencil_store;
   }
   to_usc(&bg, &rj.bg_program);
   to_usc(&eot, &rj.eot_program);
   uint64_t va = alloc(VAGX_RENDER_JOB_DWORDS * 4, 64);
   vagx_render_job_pack(ptr(va), &rj);
   return va;
}

/* Serial pool emulating N workers round-robin (exercises worker indices). */
static void rr_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   unsigned nw = *(unsigned *)opaque;
   for (unsigned i = 0; i < n; i++)
      fn(ctx, i, i % nw);
}

static struct vagx_render_device *dev;
static unsigned nworkers = 3;
static const struct vagx_usc_mem_ops *run_mem = &mem_ops;   /* translation of run() */

static enum vagx_job_status run(uint64_t job, struct vagx_render_fault *f)
{
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = run_mem;
   env.run = rr_run;
   env.run_opaque = &nworkers;
   env.nworkers = nworkers;
   return vagx_render_run(dev, &env, job, f);
}

static const uint8_t *px(unsigned x, unsigned y)
{
   return (const uint8_t *)ptr(fb_va) + y * fb_stride + x * fb_bpp;
}

static void save_ppm(const char *name)
{
   char path[256];
   snprintf(path, sizeof(path), "render-%s.ppm", name);
   FILE *f = fopen(path, "wb");
   if (!f)
      return;
   fprintf(f, "P6\n%u %u\n255\n", W, H);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         fwrite(px(x, y), 1, 3, f);
   fclose(f);
   fprintf(stderr, "  wrote %s\n", path);
}

/* Common state: viewport identity-ish (ndc -> pixels), scissor full. */
static void emit_state(unsigned nvar_smooth, unsigned nvar_flat, unsigned nvar_linear,
                       uint64_t vbuf, const struct prog *fs, const uint32_t *cfb, unsigned ncfb,
                       unsigned ncf, bool z_slot)
{
   struct prog vs = {.code = vs_code(nvar_smooth + nvar_flat + nvar_linear), .nuni = 2};
   vs.uni[0] = (uint32_t)vbuf;
   vs.uni[1] = (uint32_t)(vbuf >> 32);
   EMIT(cmd_bind_vertex_pipeline, v_.smooth32 = nvar_smooth; v_.flat32 = nvar_flat;
        v_.linear32 = nvar_linear; to_usc(&vs, &v_.program));
   uint64_t cfb_va = ncfb ? put(cfb, ncfb * 4, 4) : 0;
   EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = ncfb; v_.cf_count = ncf;
        v_.slots32 = 1 + (z_slot ? 1 : 0) + nvar_smooth + nvar_flat + nvar_linear;
        v_.z_slot = z_slot; v_.cf_bindings_va = cfb_va; to_usc(fs, &v_.program));
   /* ndc [-1,1] -> [0,W] x [0,H], y down as given */
   EMIT(cmd_viewport, v_.scale_x = W / 2.0f; v_.offset_x = W / 2.0f; v_.scale_y = H / 2.0f;
        v_.offset_y = H / 2.0f; v_.scale_z = 1; v_.offset_z = 0; v_.min_depth = 0;
        v_.max_depth = 1);
   EMIT(cmd_scissor, v_.min_x = 0; v_.min_y = 0; v_.max_x = W; v_.max_y = H);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1);
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
}

static uint32_t binding(unsigned slot, unsigned count, unsigned cf, enum vagx_interp in)
{
   return t_cf_binding(slot, count, cf, in);
}

/* Pixel (window) -> ndc for the viewport above. */
static float ndcx(double x) { return (float)(x / (W / 2.0) - 1.0); }
static float ndcy(double y) { return (float)(y / (H / 2.0) - 1.0); }

/* Reference coverage: pixel centre inside triangle (window coords). */
static bool ref_edge(double ax, double ay, double bx, double by, double px_, double py_)
{
   double e = (bx - ax) * (py_ - ay) - (by - ay) * (px_ - ax);
   if (e != 0)
      return e > 0;
   double dy = by - ay, dx = bx - ax;
   return dy < 0 || (dy == 0 && dx > 0);
}
static bool ref_inside(const double t[3][2], double x, double y)
{
   double a = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
   int i1 = a > 0 ? 1 : 2, i2 = a > 0 ? 2 : 1;
   if (a == 0)
      return false;
   return ref_edge(t[0][0], t[0][1], t[i1][0], t[i1][1], x, y) &&
          ref_edge(t[i1][0], t[i1][1], t[i2][0], t[i2][1], x, y) &&
          ref_edge(t[i2][0], t[i2][1], t[0][0], t[0][1], x, y);
}

static uint64_t vbuf_tris(const double (*t)[2], unsigned nv, unsigned nvar, const float *var,
                          const float *wv, const float *zv)
{
   unsigned words = 4 + nvar;
   float *b = calloc(nv * words, 4);
   for (unsigned i = 0; i < nv; i++) {
      float w = wv ? wv[i] : 1.0f;
      b[i * words + 0] = ndcx(t[i][0]) * w;
      b[i * words + 1] = ndcy(t[i][1]) * w;
      b[i * words + 2] = (zv ? zv[i] : 0.5f) * w;
      b[i * words + 3] = w;
      for (unsigned k = 0; k < nvar; k++)
         b[i * words + 4 + k] = var[i * nvar + k];
   }
   uint64_t va = put(b, nv * words * 4, 16);
   free(b);
   return va;
}

static void draw(enum vagx_primitive prim, unsigned count)
{
   EMIT(cmd_draw, v_.primitive = prim; v_.count = count; v_.instance_count = 1);
}

static const char *fs_const =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n";

static struct prog const_fs(float r, float g, float b, float a)
{
   struct prog p = {.code = assemble(fs_const), .nuni = 4};
   float c[4] = {r, g, b, a};
   memcpy(p.uni, c, 16);
   return p;
}

/* ------------------------------------------------------------ tests -- */

static void test_triangle(void)
{
   W = 77; H = 50;  /* partial tiles */
   ncs = 0;
   double t[3][2] = {{3.25, 2.5}, {70.0, 10.125}, {20.5, 47.75}};
   uint64_t vb = vbuf_tris(t, 3, 0, NULL, NULL, NULL);
   struct prog fs = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 1, 1}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
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

/* Additive FS: R += 1/255 per hit (in-shader blending via the tile buffer). */
static const char *fs_count =
   "ld_tile.rt0 r0, #0\nfadd r0, r0, #0x3b808081\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n";

static void test_shared_edges(void)
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "mesh status");
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
static void run_var_triangle(uint64_t vb, bool clip_distance, const char *what)
{
   struct prog fs = {.code = assemble(fs_var)};
   uint32_t cfb[4] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH),
                      binding(3, 1, 3, VAGX_INTERP_FLAT), binding(4, 1, 4, VAGX_INTERP_LINEAR)};
   emit_state(2, 1, 1, vb, &fs, cfb, 4, 5, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.provoking = VAGX_PROVOKING_VERTEX_LAST);
   if (clip_distance) {
      /* all four outputs in the smooth group, as Mesa emits them (the LINEAR
       * binding alone makes the fourth one noperspective), and a clip
       * distance after them */
      struct prog vs = {.code = vs_code(5), .nuni = 2};
      vs.uni[0] = (uint32_t)vb;
      vs.uni[1] = (uint32_t)(vb >> 32);
      EMIT(cmd_bind_vertex_pipeline, v_.smooth32 = 4; v_.clip_distances = 1;
           to_usc(&vs, &v_.program));
   }
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "%s status", what);
}

static void test_varyings(void)
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
static void test_noperspective_clipped(void)
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

static void test_depth_cull_query(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[6][2] = {{4, 4}, {60, 4}, {4, 60}, {8, 8}, {62, 8}, {8, 62}};
   float z[6] = {0.7f, 0.7f, 0.7f, 0.3f, 0.3f, 0.3f};
   /* draw far (green) after near (red) in reverse: near first */
   double tn[6][2];
   memcpy(tn[0], t[3], sizeof(double) * 6);
   memcpy(tn[3], t[0], sizeof(double) * 6);
   float zn[6] = {0.3f, 0.3f, 0.3f, 0.7f, 0.7f, 0.7f};
   (void)z;
   uint64_t vb = vbuf_tris(tn, 6, 0, NULL, NULL, zn);
   struct prog red = const_fs(1, 0, 0, 1), green = const_fs(0, 1, 0, 1);
   emit_state(0, 0, 0, vb, &red, NULL, 0, 0, false);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
        v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   uint64_t qva = alloc(8, 8);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = qva);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; to_usc(&green, &v_.program));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 3;
        v_.instance_count = 1);
   EMIT(cmd_query_end);
   /* a back-facing (CCW on screen) triangle culled with BACK */
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.cull = VAGX_CULL_MODE_BACK; v_.front_face = VAGX_FRONT_FACE_CW);
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
   double cc[3][2] = {{0, 0}, {0, 30}, {30, 0}}; /* counter-clockwise on screen */
   uint64_t vb2 = vbuf_tris(cc, 3, 0, NULL, NULL, NULL);
   struct prog vs = {.code = vs_code(0), .nuni = 2};
   vs.uni[0] = (uint32_t)vb2;
   vs.uni[1] = (uint32_t)(vb2 >> 32);
   EMIT(cmd_bind_vertex_pipeline, to_usc(&vs, &v_.program));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 1}, .clear_depth = 1.0f};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "depth status %d", st);
   unsigned bad = 0, nred = 0, ngreen = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         bool inr = ref_inside((const double(*)[2])tn, x + 0.5, y + 0.5);
         bool ing = ref_inside((const double(*)[2])tn + 3, x + 0.5, y + 0.5);
         const uint8_t *p = px(x, y);
         unsigned e = inr ? 1 : ing ? 2 : 0;
         nred += inr;
         ngreen += ing && !inr;
         unsigned got = p[0] == 255 && p[1] == 0 ? 1 : p[1] == 255 && p[0] == 0 ? 2 : p[0] == 0 && p[1] == 0 ? 0 : 9;
         if (got != e)
            bad++;
      }
   CHECK(bad == 0, "depth/cull: %u pixels wrong", bad);
   uint64_t q;
   memcpy(&q, ptr(qva), 8);
   CHECK(q == nred + ngreen, "occlusion count %llu expected %u", (unsigned long long)q, nred + ngreen);
   if (bad)
      save_ppm("depth");
}

static void test_strip_fan_clip(void)
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "strip status");
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
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "clip status");
   unsigned red_n = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         red_n += px(x, y)[0] == 255;
   CHECK(red_n == W * H, "full-screen clipped triangle covers %u of %u", red_n, W * H);
}

static void test_faults(void)
{
   W = 32; H = 32;
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   /* opcode 0 */
   ncs = 0;
   cs[ncs++] = 0;
   uint64_t job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_VDM,
         "opcode 0 -> %d", f.status);
   /* draw before state */
   ncs = 0;
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_INVALID_COMMAND, "draw before state -> %d", f.status);
   /* jump to a wild address */
   ncs = 0;
   EMIT(cmd_jump, v_.target_va = 0xdead0000ull);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_MMU_FAULT && f.address == 0xdead0000ull,
         "wild jump -> %d %llx", f.status, (unsigned long long)f.address);
   /* endless jump loop */
   ncs = 0;
   uint64_t loop_va = MEM_BASE + ((brk_ + 15) & ~15ull);
   EMIT(cmd_jump, v_.target_va = loop_va);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_INVALID_COMMAND && f.address == loop_va,
         "jump loop -> %d", f.status);
   /* call depth > MAX_STREAM_CALL_DEPTH: a stream that calls itself */
   ncs = 0;
   loop_va = MEM_BASE + ((brk_ + 15) & ~15ull);
   EMIT(cmd_jump, v_.call = 1; v_.target_va = loop_va);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_INVALID_COMMAND, "call depth -> %d", f.status);
   /* wild vertex buffer: fault in the vertex shader */
   ncs = 0;
   double t[3][2] = {{1, 1}, {20, 1}, {1, 20}};
   (void)t;
   struct prog fs = const_fs(1, 1, 1, 1);
   emit_state(0, 0, 0, 0x7000000000ull, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_MMU_FAULT, "wild vertex fetch -> %d", f.status);
   /* bad render job */
   job = make_job(&o);
   ((uint32_t *)ptr(job))[1] |= 1u << 31; /* reserved bit */
   CHECK(run(job, &f) == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "reserved bit -> %d", f.status);
   /* wild job */
   CHECK(run(0x42, &f) == VAGX_JOB_STATUS_MMU_FAULT, "wild desc -> %d", f.status);
   /* illegal instruction in fragment shader */
   ncs = 0;
   double t2[3][2] = {{1, 1}, {20, 1}, {1, 20}};
   uint64_t vb = vbuf_tris(t2, 3, 0, NULL, NULL, NULL);
   struct prog bad = {.code = put((uint64_t[]){0xffull}, 8, 16)};
   emit_state(0, 0, 0, vb, &bad, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, "illegal fs -> %d", f.status);
}

/* Texture: the same image as linear and twiddled sampled with nearest and
 * linear filters must give identical results; nearest matches texels. */
static const char *fs_tex =
   "iter.center.persp r4, cf1, cf0, r0\niter.center.persp r5, cf2, cf0, r0\n"
   "tex.auto.t0.s0.2d r0, r4, r0, r0\nst_tile.rt0 r0, #0\nend\n";

static uint64_t make_tex(unsigned tw, unsigned th, bool twiddled, const uint32_t *texels)
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = tw; l.height_px = th; l.depth_px = 1; l.levels = 1;
   l.sample_count_sa = 1; l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = 4;
   l.tiling = twiddled ? VAGX_TILING_TWIDDLED : VAGX_TILING_LINEAR;
   vagx_layout_init(&l);
   uint64_t base = alloc(l.size_B, 16384);
   vagx_layout_tile(&l, ptr(base), texels, tw * 4, 0, 0, 0, 0, tw, th);
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = VAGX_FORMAT_RGBA8_UNORM;
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = twiddled ? VAGX_IMAGE_LAYOUT_TWIDDLED : VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = tw; t.height = th; t.depth = 1; t.levels = 1;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = twiddled ? 0 : l.level[0].stride_B;
   t.base_va = base;
   uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   return va;
}

/* A job that draws fs_tex over the whole 64x64 target: texture descriptor
 * `tex` sampled with sampler `sva`, u and v from 0 to 1. */
static uint64_t tex_quad_job(uint64_t tex, uint64_t sva)
{
   ncs = 0;
   double t[6][2] = {{0, 0}, {64, 0}, {64, 64}, {0, 0}, {64, 64}, {0, 64}};
   float uv[6 * 2] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
   uint64_t vb = vbuf_tris(t, 6, 2, uv, NULL, NULL);
   struct prog fs = {.code = assemble(fs_tex), .tex = tex, .ntex = 1, .smp = sva, .nsmp = 1};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
   emit_state(2, 0, 0, vb, &fs, cfb, 2, 3, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   return make_job(&o);
}

static void test_textures(void)
{
   W = 64; H = 64;
   const unsigned tw = 16, th = 8;
   uint32_t texels[16 * 8];
   for (unsigned i = 0; i < tw * th; i++)
      texels[i] = (i * 37u % 256) | ((i * 91u % 256) << 8) | ((i * 13u % 256) << 16) | 0xff000000u;
   uint8_t img[2][2][64 * 64 * 4];
   for (unsigned filt = 0; filt < 2; filt++)
      for (unsigned tl = 0; tl < 2; tl++) {
         struct vagx_sampler s;
         vagx_sampler_init(&s);
         s.min_filter = s.mag_filter = filt ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
         s.wrap_s = VAGX_WRAP_REPEAT;
         s.wrap_t = VAGX_WRAP_CLAMP_TO_EDGE;
         s.max_lod = 16;
         uint64_t sva = alloc(32, 32);
         vagx_sampler_pack(ptr(sva), &s);
         uint64_t job = tex_quad_job(make_tex(tw, th, tl, texels), sva);
         struct vagx_render_fault f;
         enum vagx_job_status st = run(job, &f);
         CHECK(st == VAGX_JOB_STATUS_OK, "texture status %d unit %d", st, f.unit);
         for (unsigned y = 0; y < H; y++)
            memcpy(img[filt][tl] + y * W * 4, px(0, y), W * 4);
         if (!filt && tl) {
            unsigned bad = 0;
            for (unsigned y = 0; y < H; y++)
               for (unsigned x = 0; x < W; x++) {
                  uint32_t e = texels[(y * th / H) * tw + x * tw / W], g;
                  memcpy(&g, px(x, y), 4);
                  bad += e != g;
               }
            CHECK(bad == 0, "nearest texture: %u pixels wrong", bad);
            if (bad)
               save_ppm("tex-nearest");
         }
      }
   CHECK(!memcmp(img[0][0], img[0][1], sizeof(img[0][0])), "nearest: linear != twiddled");
   CHECK(!memcmp(img[1][0], img[1][1], sizeof(img[1][0])), "bilinear: linear != twiddled");
   CHECK(memcmp(img[0][0], img[1][0], sizeof(img[0][0])) != 0, "bilinear == nearest?");
}

/* Decoded descriptors are cached per job (render_priv.h): a descriptor
 * rewritten between two jobs at the same address must be read again. */
static void test_desc_cache(void)
{
   W = 64; H = 64;
   const unsigned tw = 16, th = 8;
   uint32_t texels[2][16 * 8];
   for (unsigned i = 0; i < tw * th; i++) {
      texels[0][i] = (i * 37u % 256) | ((i * 91u % 256) << 8) | 0xff000000u;
      texels[1][i] = (i * 53u % 256) << 8 | ((i * 7u % 256) << 16) | 0xff000000u;
   }
   struct vagx_sampler sm;
   vagx_sampler_init(&sm);
   sm.min_filter = sm.mag_filter = VAGX_FILTER_NEAREST;
   sm.max_lod = 16;
   uint64_t sva = alloc(32, 32);
   vagx_sampler_pack(ptr(sva), &sm);
   const uint64_t tex[2] = {make_tex(tw, th, true, texels[0]), make_tex(tw, th, false, texels[1])};
   uint64_t job = tex_quad_job(tex[0], sva);
   for (unsigned k = 0; k < 2; k++) {
      if (k)
         memcpy(ptr(tex[0]), ptr(tex[1]), 32);
      struct vagx_render_fault f;
      enum vagx_job_status st = run(job, &f);
      CHECK(st == VAGX_JOB_STATUS_OK, "desc cache job %u: status %d", k, st);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            uint32_t e = texels[k][(y * th / H) * tw + x * tw / W], g;
            memcpy(&g, px(x, y), 4);
            bad += e != g;
         }
      CHECK(bad == 0, "desc cache job %u: %u pixels not from the %s descriptor", k, bad,
            k ? "rewritten" : "first");
   }
}

static void test_msaa(void)
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "%s: status", name);
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

static void test_lines(void)
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 1, 1}, .clear_depth = 0.5f};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "line varyings status");
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

static float r_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t r_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ------------------------------------------------ stencil, depth/stencil I/O -- */
/* Independent model of GL 4.6 17.3.5 (stencil) and 17.3.6 (depth) per pixel. */
static uint8_t ref_sop(enum vagx_stencil_op op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VAGX_STENCIL_OP_KEEP: return s;
   case VAGX_STENCIL_OP_ZERO: return 0;
   case VAGX_STENCIL_OP_REPLACE: return ref;
   case VAGX_STENCIL_OP_INCR_CLAMP: return s < 255 ? s + 1 : 255;
   case VAGX_STENCIL_OP_DECR_CLAMP: return s > 0 ? s - 1 : 0;
   case VAGX_STENCIL_OP_INVERT: return 255 - s;
   case VAGX_STENCIL_OP_INCR_WRAP: return (s + 1) & 255;
   case VAGX_STENCIL_OP_DECR_WRAP: return (s + 255) & 255;
   }
   return s;
}

static bool ref_cmp(enum vagx_compare_func f, double a, double b)
{
   static const bool tab[8][3] = { /* a<b, a==b, a>b */
      {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
   return tab[f][a < b ? 0 : a == b ? 1 : 2];
}

struct srect {
   int x0, y0, x1, y1;
   bool ccw;                  /* counter-clockwise on screen: back-facing with CW front */
   float z;
   struct vagx_cmd_depth_stencil ds;
   float col;                 /* red value written by the draw */
};

static void rect_tris(double (*t)[2], int x0, int y0, int x1, int y1, bool ccw)
{
   double v[6][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}, {x1, y1}, {x0, y1}};
   for (unsigned i = 0; i < 6; i++) {
      unsigned k = ccw ? (i % 3 == 1 ? i + 1 : i % 3 == 2 ? i - 1 : i) : i;
      t[i][0] = v[k][0];
      t[i][1] = v[k][1];
   }
}

static struct vagx_stencil_face sface(enum vagx_compare_func f, enum vagx_stencil_op fail,
                                      enum vagx_stencil_op zfail, enum vagx_stencil_op zpass,
                                      unsigned ref, unsigned rmask, unsigned wmask)
{
   struct vagx_stencil_face s;
   vagx_stencil_face_init(&s);
   s.func = f; s.fail_op = fail; s.zfail_op = zfail; s.zpass_op = zpass;
   s.ref = ref; s.read_mask = rmask; s.write_mask = wmask;
   return s;
}

/* Z values of the zs formats as stored: the encoding from the format table. */
static uint32_t enc_unorm(double v, unsigned bits)
{
   double m = (double)((1ull << bits) - 1);
   v = v < 0 ? 0 : v > 1 ? 1 : v;
   return (uint32_t)nearbyint(v * m);
}

static void zs_texel(unsigned x, unsigned y, unsigned s, uint8_t **p)
{
   *p = (uint8_t *)ptr(zs_base) + vagx_layout_offset_B(&zs_layout, 0, 0, x, y) +
        s * zs_layout.bytes_per_block_B;
}

/* Writes depth d (as the format's encoding) and stencil st into the zs image. */
static void zs_put(enum vagx_format f, unsigned x, unsigned y, double d, uint8_t st)
{
   uint8_t *p;
   zs_texel(x, y, 0, &p);
   uint32_t u;
   float fd = (float)d;
   switch (f) {
   case VAGX_FORMAT_Z16_UNORM: u = enc_unorm(d, 16); memcpy(p, &u, 2); break;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: u = enc_unorm(d, 24) | (uint32_t)st << 24; memcpy(p, &u, 4); break;
   case VAGX_FORMAT_Z32_FLOAT: memcpy(p, &fd, 4); break;
   case VAGX_FORMAT_S8_UINT: p[0] = st; break;
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT: memcpy(p, &fd, 4); u = st; memcpy(p + 4, &u, 4); break;
   default: break;
   }
}

/* Stored depth (decoded as the format defines it) and stencil. */
static void zs_get(enum vagx_format f, unsigned x, unsigned y, uint32_t *draw, uint8_t *st)
{
   uint8_t *p;
   zs_texel(x, y, 0, &p);
   uint32_t u = 0;
   *draw = 0;
   *st = 0;
   switch (f) {
   case VAGX_FORMAT_Z16_UNORM: memcpy(&u, p, 2); *draw = u; break;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: memcpy(&u, p, 4); *draw = u & 0xffffff; *st = u >> 24; break;
   case VAGX_FORMAT_Z32_FLOAT: memcpy(draw, p, 4); break;
   case VAGX_FORMAT_S8_UINT: *st = p[0]; break;
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT: memcpy(draw, p, 4); *st = p[4]; break;
   default: break;
   }
}

/* Encoding of depth d in f as stored (the raw word zs_get returns). */
static uint32_t zs_enc(enum vagx_format f, double d)
{
   float fd = (float)d;
   uint32_t u;
   switch (f) {
   case VAGX_FORMAT_Z16_UNORM: return enc_unorm(d, 16);
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: return enc_unorm(d, 24);
   case VAGX_FORMAT_Z32_FLOAT:
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT: memcpy(&u, &fd, 4); return u;
   default: return 0;
   }
}

/* Stencil: a sequence of rectangles with every op, both faces, masks, depth
 * pass/fail, loaded from and stored to each depth/stencil format; colour and
 * the stored image are compared with the per-pixel model above. */
static void test_stencil(void)
{
   W = 64; H = 48;
   const struct srect R[] = {
      /* front: zpass INCR_WRAP, zfail DECR_CLAMP against the loaded depth */
      {4, 4, 60, 30, false, 0.5f,
       {.depth_test = 1, .depth_func = VAGX_COMPARE_FUNC_LESS, .stencil_test = 1,
        .front = sface(VAGX_COMPARE_FUNC_ALWAYS, VAGX_STENCIL_OP_ZERO, VAGX_STENCIL_OP_DECR_CLAMP,
                       VAGX_STENCIL_OP_INCR_WRAP, 0, 0xff, 0xff)}, 0.2f},
      /* back-facing: GREATER with read mask, INVERT on fail, masked REPLACE */
      {10, 12, 50, 44, true, 0.5f,
       {.stencil_test = 1, .depth_func = VAGX_COMPARE_FUNC_ALWAYS,
        .front = sface(VAGX_COMPARE_FUNC_NEVER, VAGX_STENCIL_OP_ZERO, VAGX_STENCIL_OP_ZERO,
                       VAGX_STENCIL_OP_ZERO, 0, 0xff, 0xff),
        .back = sface(VAGX_COMPARE_FUNC_GREATER, VAGX_STENCIL_OP_INVERT, VAGX_STENCIL_OP_KEEP,
                      VAGX_STENCIL_OP_REPLACE, 100, 0xf0, 0x3c)}, 0.4f},
      /* full screen front: NOTEQUAL 0, zfail ZERO, zpass DECR_WRAP, depth LEQUAL write */
      {0, 0, 64, 48, false, 0.375f,
       {.depth_test = 1, .depth_write = 1, .depth_func = VAGX_COMPARE_FUNC_LEQUAL, .stencil_test = 1,
        .front = sface(VAGX_COMPARE_FUNC_NOTEQUAL, VAGX_STENCIL_OP_INCR_CLAMP, VAGX_STENCIL_OP_ZERO,
                       VAGX_STENCIL_OP_DECR_WRAP, 0, 0xff, 0xff)}, 0.6f},
      /* EQUAL with a masked reference, clamps */
      {20, 0, 40, 48, false, 0.125f,
       {.stencil_test = 1, .depth_test = 1, .depth_func = VAGX_COMPARE_FUNC_GEQUAL,
        .front = sface(VAGX_COMPARE_FUNC_LEQUAL, VAGX_STENCIL_OP_DECR_CLAMP, VAGX_STENCIL_OP_INCR_CLAMP,
                       VAGX_STENCIL_OP_INVERT, 0x41, 0x0f, 0xf0)}, 0.8f},
   };
   const unsigned nr = sizeof(R) / sizeof(R[0]);
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z24_UNORM_S8_UINT, VAGX_FORMAT_Z32_FLOAT_S8X24_UINT,
                                           VAGX_FORMAT_S8_UINT, VAGX_FORMAT_Z16_UNORM,
                                           VAGX_FORMAT_Z32_FLOAT};
   for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
      const enum vagx_format f = fmts[fi];
      const bool hd = vagx_format_depth(f), hs = vagx_format_stencil(f);
      ncs = 0;
      double (*t)[2] = malloc(sizeof(double[2]) * 6 * nr);
      float *z = malloc(sizeof(float) * 6 * nr);
      for (unsigned i = 0; i < nr; i++) {
         rect_tris(t + 6 * i, R[i].x0, R[i].y0, R[i].x1, R[i].y1, R[i].ccw);
         for (unsigned k = 0; k < 6; k++)
            z[6 * i + k] = R[i].z;
      }
      uint64_t vb = vbuf_tris(t, 6 * nr, 0, NULL, NULL, z);
      struct prog fs0 = const_fs(0, 0, 0, 1);
      emit_state(0, 0, 0, vb, &fs0, NULL, 0, 0, false);
      EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
           v_.front_face = VAGX_FRONT_FACE_CW; v_.point_size = 1; v_.line_width = 1);
      for (unsigned i = 0; i < nr; i++) {
         struct prog fs = const_fs(R[i].col, 0, 0, 1);
         EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; to_usc(&fs, &v_.program));
         EMIT(cmd_depth_stencil, v_ = R[i].ds; v_.depth_func = R[i].ds.depth_func);
         EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6 * i;
              v_.instance_count = 1);
      }
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = f, .clear_depth = 0.9f,
                           .clear_stencil = 0x77, .depth_load = 1, .depth_store = 1,
                           .stencil_load = 1, .stencil_store = 1};
      uint64_t job = make_job(&o);
      /* initial image: depth 0.25 left half, 0.75 right; stencil pattern */
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            zs_put(f, x, y, x < 32 ? 0.25 : 0.75, (uint8_t)(x * 7 + y * 13));
      struct vagx_render_fault fl;
      enum vagx_job_status st = run(job, &fl);
      CHECK(st == VAGX_JOB_STATUS_OK, "stencil %s: status %d", vagx_format_name(f), st);
      unsigned bad_c = 0, bad_s = 0, bad_d = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            /* the tile's depth is the loaded value (exact in float) or clear */
            double d = hd ? (f == VAGX_FORMAT_Z16_UNORM ? (double)(float)(enc_unorm(x < 32 ? 0.25 : 0.75, 16) / 65535.0)
                             : f == VAGX_FORMAT_Z24_UNORM_S8_UINT ? (double)(float)(enc_unorm(x < 32 ? 0.25 : 0.75, 24) / 16777215.0)
                             : (x < 32 ? 0.25 : 0.75)) : 0.9f;
            uint8_t s = hs ? (uint8_t)(x * 7 + y * 13) : 0x77;
            float col = 0;
            for (unsigned i = 0; i < nr; i++) {
               const struct srect *r = &R[i];
               if ((int)x < r->x0 || (int)x >= r->x1 || (int)y < r->y0 || (int)y >= r->y1)
                  continue;
               const struct vagx_stencil_face *sf = r->ccw ? &r->ds.back : &r->ds.front;
               bool spass = !r->ds.stencil_test ||
                            ref_cmp(sf->func, sf->ref & sf->read_mask, s & sf->read_mask);
               bool dpass = !r->ds.depth_test || ref_cmp(r->ds.depth_func, r->z, d);
               enum vagx_stencil_op op = !spass ? sf->fail_op : !dpass ? sf->zfail_op : sf->zpass_op;
               if (r->ds.stencil_test)
                  s = (uint8_t)((s & ~sf->write_mask) | (ref_sop(op, s, (uint8_t)sf->ref) & sf->write_mask));
               if (spass && dpass) {
                  col = r->col;
                  if (r->ds.depth_test && r->ds.depth_write)
                     d = r->z;
               }
            }
            if (abs((int)px(x, y)[0] - (int)lrint(col * 255)) > 0)
               bad_c++;
            uint32_t gd;
            uint8_t gs;
            zs_get(f, x, y, &gd, &gs);
            if (hs && gs != s) {
               if (bad_s < 3)
                  fprintf(stderr, "  stencil %s (%u,%u): got %u want %u\n", vagx_format_name(f), x, y, gs, s);
               bad_s++;
            }
            if (hd && gd != zs_enc(f, d)) {
               if (bad_d < 3)
                  fprintf(stderr, "  depth %s (%u,%u): got %#x want %#x\n", vagx_format_name(f), x, y, gd,
                          zs_enc(f, d));
               bad_d++;
            }
         }
      CHECK(bad_c == 0 && bad_s == 0 && bad_d == 0,
            "stencil/depth %s: %u colour, %u stencil, %u depth pixels wrong", vagx_format_name(f), bad_c,
            bad_s, bad_d);
      if (bad_c)
         save_ppm("stencil");
      free(t);
      free(z);
   }
}

/* Depth quantization (render.md "Depth"): with a unorm depth format the
 * fragment depth and clear_depth are converted to the format before the
 * test, so they compare exactly as the values a later job loads.  The
 * expected outcome of each draw is computed from the format's encoding
 * (round to nearest of z * (2^n - 1)), independently of the renderer. */
static double ref_zq(enum vagx_format f, double z)
{
   switch (f) {
   case VAGX_FORMAT_Z16_UNORM: return enc_unorm(z, 16) / 65535.0;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: return enc_unorm(z, 24) / 16777215.0;
   default: return (float)z;
   }
}

static void test_depth_quantize(void)
{
   W = 32; H = 16;
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z24_UNORM_S8_UINT, VAGX_FORMAT_Z16_UNORM,
                                           VAGX_FORMAT_Z32_FLOAT};
   /* 0.3f * (2^n - 1) has a fraction above 1/2 for n = 16 and 24: the stored
    * depth is above the fragment's unquantized depth */
   const float z = 0.3f, zc = nextafterf(0.3f, 1.0f);
   for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
      const enum vagx_format f = fmts[fi];
      const bool unorm = f != VAGX_FORMAT_Z32_FLOAT;
      CHECK(!unorm || (ref_zq(f, z) > z && ref_zq(f, zc) == ref_zq(f, z)),
            "depth_quantize %s: test values do not round up", vagx_format_name(f));
      /* jobs: 0 draws at z into a cleared (1.0) buffer and stores it; 1 loads
       * it and redraws the same depth with LESS (left) and LEQUAL (right);
       * 2 clears to zc (above z in float, the same unorm code) and draws z
       * with LESS (left) and GREATER (right) */
      const double clear_z[3] = {1.0, 0, zc};
      for (unsigned jn = 0; jn < 3; jn++) {
         ncs = 0;
         double t[12][2];
         float zv[12];
         rect_tris(t, 0, 0, 16, 16, false);
         rect_tris(t + 6, 16, 0, 32, 16, false);
         for (unsigned k = 0; k < 12; k++)
            zv[k] = z;
         uint64_t vb = vbuf_tris(t, 12, 0, NULL, NULL, zv);
         struct prog green = const_fs(0, 1, 0, 1);
         emit_state(0, 0, 0, vb, &green, NULL, 0, 0, false);
         const enum vagx_compare_func fn[3][2] = {
            {VAGX_COMPARE_FUNC_LESS, VAGX_COMPARE_FUNC_LESS},
            {VAGX_COMPARE_FUNC_LESS, VAGX_COMPARE_FUNC_LEQUAL},
            {VAGX_COMPARE_FUNC_LESS, VAGX_COMPARE_FUNC_GREATER}};
         for (unsigned h = 0; h < 2; h++) {
            EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1; v_.depth_func = fn[jn][h]);
            EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6 * h;
                 v_.instance_count = 1);
         }
         EMIT(cmd_end);
         struct job_opts o = {.clear = {0, 0, 0, 1}, .zs = true, .zs_format = f,
                              .clear_depth = (float)clear_z[jn], .depth_load = jn == 1,
                              .depth_store = 1};
         /* the zs image of job 0 is reloaded by job 1: keep its contents */
         uint8_t keep[32 * 16 * 8];
         if (jn == 1)
            memcpy(keep, ptr(zs_base), zs_layout.size_B < sizeof(keep) ? zs_layout.size_B : sizeof(keep));
         uint64_t job = make_job(&o);
         if (jn == 1)
            memcpy(ptr(zs_base), keep, zs_layout.size_B < sizeof(keep) ? zs_layout.size_B : sizeof(keep));
         struct vagx_render_fault fl;
         enum vagx_job_status st = run(job, &fl);
         CHECK(st == VAGX_JOB_STATUS_OK, "depth_quantize %s job %u: status %d", vagx_format_name(f), jn, st);
         /* the depth each pixel holds before the draw: clear or job 0's z */
         const double before = ref_zq(f, jn == 1 ? z : clear_z[jn]);
         unsigned bad = 0, bad_d = 0;
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               const bool pass = ref_cmp(fn[jn][x >= 16], ref_zq(f, z), before);
               if ((px(x, y)[1] == 255) != pass)
                  bad++;
               uint32_t gd;
               uint8_t gs;
               zs_get(f, x, y, &gd, &gs);
               if (gd != zs_enc(f, pass ? z : (jn == 1 ? z : clear_z[jn])))
                  bad_d++;
            }
         CHECK(bad == 0 && bad_d == 0, "depth_quantize %s job %u: %u colour, %u depth pixels wrong",
               vagx_format_name(f), jn, bad, bad_d);
      }
   }
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
static void test_points(void)
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
      struct prog vs = {.code = vs_code(1), .nuni = 2};
      vs.uni[0] = (uint32_t)vb;
      vs.uni[1] = (uint32_t)(vb >> 32);
      emit_state(0, 0, 0, vb, &fs, cfb, 2, 3, false);
      EMIT(cmd_bind_vertex_pipeline, v_.point_size = mode < 2; to_usc(&vs, &v_.program));
      EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = 2; v_.cf_count = 3; v_.slots32 = 1;
           v_.cf_bindings_va = put(cfb, 8, 4); to_usc(&fs, &v_.program));
      EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 5; v_.line_width = 1;
           v_.sample_mask = 0xf; v_.depth_clip = 1; v_.point_sprite_lower_left = mode == 1);
      draw(VAGX_PRIMITIVE_POINTS, np);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      uint64_t job = make_job(&o);
      struct vagx_render_fault f;
      CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "points status %d", f.status);
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
static void test_clip_distances(void)
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
   struct prog vs = {.code = vs_code(2), .nuni = 2};
   vs.uni[0] = (uint32_t)vb;
   vs.uni[1] = (uint32_t)(vb >> 32);
   EMIT(cmd_bind_vertex_pipeline, v_.clip_distances = 2; to_usc(&vs, &v_.program));
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "clip distance status %d", f.status);
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
   struct prog vs2 = {.code = vs_code(2), .nuni = 2};
   vs2.uni[0] = (uint32_t)vb2;
   vs2.uni[1] = (uint32_t)(vb2 >> 32);
   emit_state(0, 0, 0, vb2, &fs, NULL, 0, 0, false);
   EMIT(cmd_bind_vertex_pipeline, v_.clip_distances = 2; to_usc(&vs2, &v_.program));
   draw(VAGX_PRIMITIVE_POINTS, 2);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_LINES; v_.count = 2; v_.first = 2; v_.instance_count = 1);
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "clip distance points status %d", f.status);
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

/* ------------------------------------------------------------ textures II -- */
struct texdesc {
   enum vagx_format fmt;
   enum vagx_dimension dim;
   unsigned w, h, depth, levels, base, maxl;
   bool linear;
};

/* Builds a texture whose texel (level, layer, x, y) has the bytes fill()
 * returns; returns the descriptor VA. */
static struct vagx_layout tex_layout; /* of the last make_texture */
static uint64_t tex_base;

static uint64_t make_texture(const struct texdesc *d,
                             void (*fill)(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *out))
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = d->w; l.height_px = d->h; l.depth_px = d->depth; l.levels = d->levels;
   l.sample_count_sa = 1; l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = vagx_format_bytes_per_block(d->fmt);
   l.tiling = d->linear ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
   l.mipmapped_z = d->dim == VAGX_DIMENSION_3D;
   if (d->linear)
      l.linear_stride_B = (d->w * l.bytes_per_block_B + 15) & ~15u;
   if (!vagx_layout_init(&l)) {
      fprintf(stderr, "bad test layout\n");
      exit(2);
   }
   uint64_t base = alloc(l.size_B, 16384);
   tex_layout = l;
   tex_base = base;
   for (unsigned lv = 0; lv < d->levels; lv++)
      for (unsigned layer = 0; layer < vagx_layout_level_depth(&l, lv); layer++)
         for (unsigned y = 0; y < l.level[lv].height_px; y++)
            for (unsigned x = 0; x < l.level[lv].width_px; x++)
               fill(lv, layer, x, y, (uint8_t *)ptr(base) + vagx_layout_offset_B(&l, lv, layer, x, y));
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = d->fmt;
   t.dimension = d->dim;
   t.layout = d->linear ? VAGX_IMAGE_LAYOUT_LINEAR : VAGX_IMAGE_LAYOUT_TWIDDLED;
   t.width = d->w; t.height = d->h; t.depth = d->depth; t.levels = d->levels;
   t.base_level = d->base; t.max_level = d->maxl;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = d->linear ? l.linear_stride_B : 0;
   t.base_va = base;
   uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   return va;
}

static uint64_t make_sampler(enum vagx_filter minf, enum vagx_filter magf, enum vagx_mip_filter mipf,
                             enum vagx_wrap wrap, float min_lod, float max_lod, float bias)
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = minf; s.mag_filter = magf; s.mip_filter = mipf;
   s.wrap_s = s.wrap_t = s.wrap_r = wrap;
   s.min_lod = min_lod; s.max_lod = max_lod; s.lod_bias = bias;
   uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}

/* A LINEAR texture as window systems share them (PRIME, scanout): BGRA8,
 * a size that is no power of two, and a row stride with padding past the
 * last texel (the exporter picks the stride).  Sampled 1:1 with nearest
 * filtering, pixel (x, y) must be texel (x, y) with B and R in place; the
 * padding (a colour no texel has) must never be read. */
static void test_tex_linear_stride(void)
{
   W = 24; H = 10;
   const unsigned stride = 24 * 4 + 48;
   uint64_t base = alloc((uint64_t)stride * H, 16384);
   uint8_t *img = ptr(base);
   memset(img, 0xcd, (size_t)stride * H);
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         uint8_t *t = img + y * stride + x * 4; /* B, G, R, A */
         t[0] = (uint8_t)(x * 10);
         t[1] = (uint8_t)(y * 25);
         t[2] = (uint8_t)(255 - x * 10);
         t[3] = 0xff;
      }
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = VAGX_FORMAT_BGRA8_UNORM;
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = W; t.height = H; t.depth = 1; t.levels = 1;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.stride = stride;
   t.base_va = base;
   const char *err = NULL;
   CHECK(vagx_texture_validate(&t, &err), "linear descriptor: %s", err);
   uint64_t tva = alloc(32, 32);
   vagx_texture_pack(ptr(tva), &t);

   ncs = 0;
   double tri[6][2] = {{0, 0}, {24, 0}, {24, 10}, {0, 0}, {24, 10}, {0, 10}};
   float uv[6 * 2] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
   uint64_t vb = vbuf_tris(tri, 6, 2, uv, NULL, NULL);
   struct prog fs = {.code = assemble(fs_tex), .tex = tva, .ntex = 1,
                     .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                         VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0),
                     .nsmp = 1};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
   emit_state(2, 0, 0, vb, &fs, cfb, 2, 3, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(&o), &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "linear texture status %d unit %d", st, f.unit);
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *g = px(x, y); /* RGBA8 render target */
         const uint8_t e[4] = {(uint8_t)(255 - x * 10), (uint8_t)(y * 25), (uint8_t)(x * 10), 0xff};
         if (memcmp(g, e, 4)) {
            if (!bad)
               fprintf(stderr, "  (%u,%u): %02x%02x%02x%02x, want %02x%02x%02x%02x\n", x, y, g[0],
                       g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
            bad++;
         }
      }
   CHECK(bad == 0, "linear BGRA8 texture with padded stride: %u pixels wrong", bad);
   if (bad)
      save_ppm("tex-linear-stride");
}

/* The job of a full-screen quad with fragment shader fs (no varyings). */
static uint64_t fullscreen_job(const struct prog *fs, const struct job_opts *o)
{
   ncs = 0;
   double t[6][2];
   rect_tris(t, 0, 0, (int)W, (int)H, false);
   uint64_t vb = vbuf_tris(t, 6, 0, NULL, NULL, NULL);
   emit_state(0, 0, 0, vb, fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   return make_job(o);
}

/* Runs it. */
static enum vagx_job_status draw_fullscreen(const struct prog *fs, const struct job_opts *o)
{
   uint64_t job = fullscreen_job(fs, o);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   if (st != VAGX_JOB_STATUS_OK)
      fprintf(stderr, "  job status %d unit %d addr %#llx\n", st, f.unit, (unsigned long long)f.address);
   return st;
}

/* Level i of the mip test is the solid colour mipc(i). */
static void mipc(unsigned i, uint8_t *c)
{
   c[0] = (uint8_t)(i * 36);
   c[1] = (uint8_t)(255 - i * 36);
   c[2] = (uint8_t)((i * 73) & 255);
   c[3] = 255;
}
static void fill_mip(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)layer; (void)x; (void)y;
   mipc(lv, o);
}

/* Texels of the fast-sampling test: every byte differs from its neighbours. */
static void fill_hash(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   uint32_t h = (lv * 7919u + layer * 104729u + x * 2654435761u) ^ (y * 40503u + 0x9e3779b9u);
   h ^= h >> 15;
   h *= 0x2c1b3c6du;
   h ^= h >> 12;
   memcpy(o, &h, 4);
}

/* A translation that answers page by page like the device MMU, with the
 * pages of io_hole unmapped, and records the first fault as the core's MMU
 * context does (probes are not recorded). */
static bool io_hole[MEM_SIZE / 4096];
static struct { bool faulted; uint64_t va; unsigned access; } io_first;

static void *xlate_io(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   uint64_t s;
   uint8_t *p = xlate(ctx, va, size, access, &s);
   for (uint64_t a = va; p && a < va + size; a = (a | 4095) + 1)
      if (io_hole[(a - MEM_BASE) / 4096])
         p = NULL;
   if (!p) {
      if (!io_first.faulted && !(access & VAGX_USC_ACC_PROBE)) {
         io_first.faulted = true;
         io_first.va = va;
         io_first.access = access & (VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE);
      }
      return NULL;
   }
   s = 4096 - (va & 4095);
   while (s < size)
      s += 4096;
   *span = s;
   return p;
}
static const struct vagx_usc_mem_ops io_ops = {.translate = xlate_io};

/* The texture sampling fast paths (RGBA8/BGRA8 texels by table, bilinear
 * footprints addressed per row and column, descriptors cached per job, all
 * lanes of an instruction at once: render_tex_lanes.c) against the generic
 * path (VAGX_RENDER_OPT_NO_FAST_IO), byte for byte: both formats, linear
 * and twiddled, sizes that are and are not powers of two, every wrap mode
 * without a border, nearest and linear filters with and without mipmaps,
 * coordinates rotated, scaled (magnified and minified) and shifted past the
 * edges.  The fast paths run on the host's best SIMD level and on the
 * baseline one, in flat memory (one span covers a texture) and through a
 * page-by-page translation (texel by texel), with a page of the texture
 * unmapped: the same status, fault and first translation fault. */
static void tex_fast_run(const struct prog *fs, const struct job_opts *o, unsigned opts,
                         int simd, bool paged, enum vagx_job_status *st,
                         struct vagx_render_fault *f, __typeof__(io_first) *first)
{
   vagx_render_set_options(dev, opts);
   usc_simd_force(simd);
   run_mem = paged ? &io_ops : &mem_ops;
   memset(&io_first, 0, sizeof(io_first));
   *st = run(fullscreen_job(fs, o), f);
   *first = io_first;
   run_mem = &mem_ops;
   usc_simd_force(USC_SIMD_AUTO);
   vagx_render_set_options(dev, 0);
}

static void test_tex_fast_sampling(void)
{
   W = 64; H = 64;
   static const char *src =
      "u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nu2f r5, sr.pix_y\nfadd r5, r5, #0.5\n"
      "fmul r6, r4, u0\nfmul r8, r5, u1\nfadd r6, r6, r8\nfadd r6, r6, u2\n"
      "fmul r7, r4, u3\nfmul r8, r5, u4\nfadd r7, r7, r8\nfadd r7, r7, u5\n"
      "tex.auto.t0.s0.2d r0, r6, r0, r0\nst_tile.rt0 r0, #0\nend\n";
   static const struct { unsigned w, h, levels; } sizes[] = {{64, 64, 7}, {37, 23, 6}, {256, 8, 9}, {5, 3, 1}};
   static const enum vagx_wrap wraps[] = {VAGX_WRAP_REPEAT, VAGX_WRAP_MIRRORED_REPEAT,
                                          VAGX_WRAP_CLAMP_TO_EDGE, VAGX_WRAP_MIRROR_CLAMP_TO_EDGE};
   uint64_t rng = 12345;
   unsigned cases = 0, diffs = 0, faulted = 0;
   static uint8_t ref[64 * 64 * 4];
   for (unsigned si = 0; si < 4; si++)
      for (unsigned fl = 0; fl < 4; fl++)          /* BGRA8 x linear */
         for (unsigned wi = 0; wi < 4; wi++)
            for (unsigned fi = 0; fi < 6; fi++) {
               const bool bgra = fl & 1, lin_layout = fl >> 1;
               struct texdesc td = {bgra ? VAGX_FORMAT_BGRA8_UNORM : VAGX_FORMAT_RGBA8_UNORM,
                                    VAGX_DIMENSION_2D, sizes[si].w, sizes[si].h, 1,
                                    lin_layout ? 1 : sizes[si].levels, 0, 0, lin_layout};
               td.maxl = td.levels - 1;
               const enum vagx_filter f = fi & 1 ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
               const enum vagx_mip_filter mf = fi >> 1 == 0 ? VAGX_MIP_FILTER_NONE
                                               : fi >> 1 == 1 ? VAGX_MIP_FILTER_NEAREST
                                                              : VAGX_MIP_FILTER_LINEAR;
               struct prog fs = {.tex = make_texture(&td, fill_hash), .ntex = 1, .nuni = 6, .nsmp = 1,
                                 .smp = make_sampler(f, f, mf, wraps[wi], 0, 16, 0)};
               fs.code = assemble(src);
               /* uv = M (x, y) + t: rotation by a, scale 2^e texels per pixel */
               rng = rng * 6364136223846793005ull + 1442695040888963407ull;
               const double a = (double)(rng >> 40 & 1023) / 1024 * 6.2832;
               const double e = (double)(rng >> 20 & 1023) / 1024 * 5 - 2.5;
               const double k = exp2(e);
               const float u[6] = {(float)(k * cos(a) / td.w), (float)(-k * sin(a) / td.w),
                                   (float)((double)(rng >> 50 & 255) / 64 - 2),
                                   (float)(k * sin(a) / td.h), (float)(k * cos(a) / td.h),
                                   (float)((double)(rng >> 8 & 255) / 64 - 2)};
               memcpy(fs.uni, u, sizeof(u));
               struct job_opts o = {.clear = {0, 0, 0, 0}};
               /* 0: generic path (reference); 1: fast; 2: fast, baseline SIMD;
                * 3: fast, page by page */
               for (unsigned mode = 0; mode < 4; mode++) {
                  enum vagx_job_status st;
                  struct vagx_render_fault fault;
                  __typeof__(io_first) first;
                  tex_fast_run(&fs, &o, mode ? 0 : VAGX_RENDER_OPT_NO_FAST_IO,
                               mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO, mode == 3, &st,
                               &fault, &first);
                  CHECK(st == VAGX_JOB_STATUS_OK, "fast sampling case %u mode %u: status %d", cases,
                        mode, st);
                  if (!mode) {
                     for (unsigned y = 0; y < H; y++)
                        memcpy(ref + y * W * 4, px(0, y), W * 4);
                     continue;
                  }
                  unsigned bad = 0;
                  for (unsigned y = 0; y < H; y++)
                     bad += memcmp(ref + y * W * 4, px(0, y), W * 4) != 0;
                  if (bad && !diffs++)
                     fprintf(stderr, "  first differing case: %ux%u %s %s wrap %d filter %d mip %d "
                             "mode %u, %u rows differ\n", td.w, td.h, bgra ? "BGRA8" : "RGBA8",
                             lin_layout ? "linear" : "twiddled", wraps[wi], f, mf, mode, bad);
               }
               /* a page of level 0 unmapped (the one of its middle texel) */
               memset(io_hole, 0, sizeof(io_hole));
               io_hole[(tex_base + vagx_layout_offset_B(&tex_layout, 0, 0, td.w / 2, td.h / 2) -
                        MEM_BASE) / 4096] = true;
               enum vagx_job_status hst[2];
               struct vagx_render_fault hf[2];
               __typeof__(io_first) hfirst[2];
               for (unsigned mode = 0; mode < 2; mode++)
                  tex_fast_run(&fs, &o, mode ? 0 : VAGX_RENDER_OPT_NO_FAST_IO, USC_SIMD_AUTO, true,
                               &hst[mode], &hf[mode], &hfirst[mode]);
               memset(io_hole, 0, sizeof(io_hole));
               faulted += hst[0] == VAGX_JOB_STATUS_MMU_FAULT;
               CHECK(hst[0] == hst[1] &&
                        hf[0].unit == hf[1].unit && hf[0].address == hf[1].address &&
                        hf[0].access == hf[1].access && hfirst[0].faulted == hfirst[1].faulted &&
                        hfirst[0].va == hfirst[1].va && hfirst[0].access == hfirst[1].access,
                     "fast sampling case %u, page unmapped: status %d/%d fault %llx/%llx first %llx/%llx",
                     cases, hst[0], hst[1], (unsigned long long)hf[0].address,
                     (unsigned long long)hf[1].address, (unsigned long long)hfirst[0].va,
                     (unsigned long long)hfirst[1].va);
               cases++;
            }
   vagx_render_set_options(dev, 0);
   CHECK(diffs == 0, "fast texture sampling differs from the generic path in %u of %u cases", diffs,
         cases);
   /* minified and rotated footprints need not read the unmapped page */
   CHECK(faulted >= cases / 2, "only %u of %u cases met the unmapped texture page", faulted, cases);
   printf("  tex_fast_sampling: %u cases x 4 runs, %u met an unmapped page\n", cases, faulted);
}

/* Mip selection (GL 4.6 8.14.1-8.14.3): lambda = log2(rho) (+ shader bias)
 * + sampler bias, clamped to [min_lod, max_lod]; lambda <= 0 magnifies
 * (level base); NEAREST picks base + ceil(lambda + 1/2) - 1 (base for lambda
 * <= 1/2), LINEAR blends floor(lambda) and the next level by frac(lambda),
 * both limited to q = min(max_level, levels - 1). */
static void test_mipmaps(void)
{
   W = 32; H = 32;
   const unsigned T = 64, NL = 7;
   struct cse {
      double lambda;           /* log2 of texels per pixel in x (y: lambda_y) */
      double lambda_y;
      enum vagx_mip_filter mf;
      unsigned mode;           /* 0 auto, 1 bias (shader bias sb), 2 explicit lod sb */
      float sb, min_lod, max_lod, bias;
      unsigned base, maxl;
   } C[] = {
      {-1, -1, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0, 0, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0.3, 0.3, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {0.7, -2, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {1.2, 1.2, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {1, 2.6, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 6},
      {3, 3, VAGX_MIP_FILTER_NONE, 0, 0, 0, 16, 0, 0, 6},
      {0.25, 0.25, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {1.5, 1.5, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {2.75, 1, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {9, 9, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 6},
      {1, 1, VAGX_MIP_FILTER_LINEAR, 1, 0.6f, 0, 16, 0, 0, 6},       /* shader bias */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 1.3f, 0, 6},       /* sampler bias */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 2, 3.4f, 0, 16, 0, 0, 6},       /* explicit lod */
      {1, 1, VAGX_MIP_FILTER_LINEAR, 2, -0.5f, 0, 16, 0, 0, 6},
      {4, 4, VAGX_MIP_FILTER_LINEAR, 0, 0, 0.5f, 2.25f, 0, 0, 6},    /* max_lod */
      {0.2, 0.2, VAGX_MIP_FILTER_LINEAR, 0, 0, 1.75f, 16, 0, 0, 6},  /* min_lod */
      {1.6, 1.6, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 2, 4},      /* base/max level */
      {5, 5, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 2, 4},
      {10, 10, VAGX_MIP_FILTER_NEAREST, 0, 0, 0, 16, 0, 0, 14},      /* max_level beyond levels */
      {10, 10, VAGX_MIP_FILTER_LINEAR, 0, 0, 0, 16, 0, 0, 14},
   };
   unsigned fails = 0;
   for (unsigned ci = 0; ci < sizeof(C) / sizeof(C[0]); ci++) {
      const struct cse *c = &C[ci];
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, T, T, 1, NL, c->base, c->maxl, false};
      struct prog fs = {.tex = make_texture(&td, fill_mip), .ntex = 1, .nuni = 3, .nsmp = 1,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, c->mf,
                                            VAGX_WRAP_REPEAT, c->min_lod, c->max_lod, c->bias)};
      const char *op = c->mode == 0 ? "auto" : c->mode == 1 ? "bias" : "lod";
      char src[512];
      snprintf(src, sizeof(src),
               "u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, u0\n"
               "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, u1\n"
               "tex.%s.t0.s0.2d r0, r4, u2, r0\nst_tile.rt0 r0, #0\nend\n", op);
      fs.code = assemble(src);
      float u[3] = {(float)(exp2(c->lambda) / T), (float)(exp2(c->lambda_y) / T), c->sb};
      memcpy(fs.uni, u, 12);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      enum vagx_job_status st = draw_fullscreen(&fs, &o);
      if (c->maxl >= NL) {
         /* max_level beyond the allocated levels: the descriptor is invalid */
         CHECK(st == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "mip case %u: max_level %u of %u levels -> %d",
               ci, c->maxl, NL, st);
         continue;
      }
      CHECK(st == VAGX_JOB_STATUS_OK, "mip case %u status", ci);
      /* reference: rho is in texels of level base (GL 8.14.1: w_t, h_t are
       * the level_base sizes) */
      double lam = c->mode == 2 ? c->sb : (c->lambda > c->lambda_y ? c->lambda : c->lambda_y) - c->base +
                                             (c->mode == 1 ? c->sb : 0);
      lam += c->bias;
      lam = lam > c->max_lod ? c->max_lod : lam;
      lam = lam < c->min_lod ? c->min_lod : lam;
      const unsigned q = c->maxl < NL - 1 ? c->maxl : NL - 1;
      unsigned d1 = c->base, d2 = c->base;
      double fr = 0;
      if (lam > 0 && c->mf == VAGX_MIP_FILTER_NEAREST) {
         d1 = lam <= 0.5 ? c->base : c->base + (unsigned)ceil(lam + 0.5) - 1;
         d1 = d2 = d1 > q ? q : d1;
      } else if (lam > 0 && c->mf == VAGX_MIP_FILTER_LINEAR) {
         if (c->base + lam >= q) {
            d1 = d2 = q;
         } else {
            d1 = c->base + (unsigned)floor(lam);
            d2 = d1 + 1;
            fr = lam - floor(lam);
         }
      }
      uint8_t a[4], b[4];
      mipc(d1, a);
      mipc(d2, b);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            for (unsigned k = 0; k < 4; k++)
               if (fabs(px(x, y)[k] - (a[k] * (1 - fr) + b[k] * fr)) > 1.01) {
                  if (!bad)
                     fprintf(stderr, "  mip case %u (lambda %.3f): (%u,%u)[%u] = %u, want levels %u/%u frac %.3f\n",
                             ci, lam, x, y, k, px(x, y)[k], d1, d2, fr);
                  bad++;
               }
      fails += bad != 0;
   }
   CHECK(fails == 0, "mipmaps: %u of %zu cases wrong", fails, sizeof(C) / sizeof(C[0]));
}

/* 3D textures: slice z of an 8-deep volume is the grey level 30 * z; nearest
 * picks slice floor(r * 8), linear blends slices at r * 8 - 1/2 (clamped to
 * the edge).  Arrays: the layer is clamp(floor(l + 1/2), 0, layers - 1). */
static void fill_vol(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)x; (void)y;
   o[0] = (uint8_t)(30 * layer + 5);
   o[1] = (uint8_t)(x * 40);
   o[2] = (uint8_t)(y * 40);
   o[3] = 255;
}

static void test_tex_3d_array(void)
{
   W = 64; H = 8;
   for (unsigned lin = 0; lin < 2; lin++) {
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_3D, 4, 4, 8, 1, 0, 0, false};
      struct prog fs = {.tex = make_texture(&td, fill_vol), .ntex = 1, .nsmp = 1,
                        .smp = make_sampler(lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST,
                                            lin ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      /* s = t = 0.375 (texel centre 1), r = (pix_x + 0.5) / 64 */
      fs.code = assemble("u2f r6, sr.pix_x\nfadd r6, r6, #0.5\nfmul r6, r6, #0.015625\n"
                         "mov r4, #0.375\nmov r5, #0.375\nmov r7, #0\n"
                         "tex.lod.t0.s0.3d r0, r4, r7, r0\nst_tile.rt0 r0, #0\nend\n");
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "3d status");
      unsigned bad = 0;
      for (unsigned x = 0; x < W; x++) {
         double r = (x + 0.5) / 64 * 8, e;
         if (!lin) {
            e = 30 * floor(r) + 5;
         } else {
            double zz = r - 0.5, z0 = floor(zz), fz = zz - z0;
            double s0 = z0 < 0 ? 0 : z0, s1 = z0 + 1 > 7 ? 7 : z0 + 1;
            e = (30 * s0 + 5) * (1 - fz) + (30 * s1 + 5) * fz;
         }
         if (fabs(px(x, 3)[0] - e) > 1.01 || px(x, 3)[1] != 40 || px(x, 3)[2] != 40) {
            if (bad < 3)
               fprintf(stderr, "  3d %s x=%u: %u,%u,%u want %.1f,40,40\n", lin ? "linear" : "nearest", x,
                       px(x, 3)[0], px(x, 3)[1], px(x, 3)[2], e);
            bad++;
         }
      }
      CHECK(bad == 0, "3D %s filtering: %u pixels wrong", lin ? "linear" : "nearest", bad);
   }
   /* 2D array, 5 layers, layer coordinate from the pixel */
   {
      static const float lay[8] = {-1.3f, 0.4f, 0.5f, 1.5f, 2.5f, 3.49f, 4.5f, 9};
      struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D_ARRAY, 4, 4, 5, 1, 0, 0, false};
      struct prog fs = {.tex = make_texture(&td, fill_vol), .ntex = 1, .nsmp = 1, .nuni = 8,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NONE, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      memcpy(fs.uni, lay, sizeof(lay));
      /* layer = u[pix_x / 8] via a small select chain */
      char src[1024];
      int n = snprintf(src, sizeof(src), "shr r8, sr.pix_x, #3\nmov r6, u0\n");
      for (unsigned i = 1; i < 8; i++)
         n += snprintf(src + n, sizeof(src) - n, "icmp.eq r9, r8, #%u\nsel r6, r9, u%u, r6\n", i, i);
      snprintf(src + n, sizeof(src) - n, "mov r4, #0.375\nmov r5, #0.625\nmov r7, #0\n"
               "tex.lod.t0.s0.2d.array r0, r4, r7, r0\nst_tile.rt0 r0, #0\nend\n");
      fs.code = assemble(src);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "array status");
      unsigned bad = 0;
      for (unsigned x = 0; x < W; x++) {
         double l = floor(lay[x / 8] + 0.5);
         l = l < 0 ? 0 : l > 4 ? 4 : l;
         if (px(x, 2)[0] != 30 * l + 5 || px(x, 2)[1] != 40 || px(x, 2)[2] != 80) {
            if (bad < 3)
               fprintf(stderr, "  array x=%u (l=%g): %u,%u,%u want %g\n", x, lay[x / 8], px(x, 2)[0],
                       px(x, 2)[1], px(x, 2)[2], 30 * l + 5);
            bad++;
         }
      }
      CHECK(bad == 0, "array layer selection: %u pixels wrong", bad);
   }
}

/* Cube maps: face and (s, t) from GL 4.6 table 8.19, written out here:
 * major axis +x: sc=-z tc=-y; -x: sc=+z tc=-y; +y: sc=+x tc=+z; -y: sc=+x
 * tc=-z; +z: sc=+x tc=-y; -z: sc=-x tc=-y; s = (sc/|ma| + 1)/2. */
static void fill_cube(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   o[0] = (uint8_t)(layer * 20 + 10);
   o[1] = (uint8_t)(x * 30);
   o[2] = (uint8_t)(y * 30);
   o[3] = 255;
}

static void test_tex_cube(void)
{
   W = 32; H = 32;
   const unsigned N = 8, cubes = 2;
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_CUBE_ARRAY, N, N, 6 * cubes, 1, 0, 0, false};
   uint64_t tex = make_texture(&td, fill_cube);
   /* per-pixel direction + cube index in a buffer */
   float *dirs = malloc(W * H * 16);
   unsigned seed = 99;
   for (unsigned i = 0; i < W * H; i++) {
      for (unsigned k = 0; k < 3; k++) {
         seed = seed * 1103515245u + 12345u;
         dirs[i * 4 + k] = (float)(((seed >> 8) & 0xffff) / 32768.0 - 1.0);
      }
      dirs[i * 4 + 3] = (float)(i & 1);
      if (i % 7 == 0)
         dirs[i * 4 + 2] = dirs[i * 4 + 2] < 0 ? -1.5f : 1.5f; /* exercise z faces */
   }
   uint64_t dva = put(dirs, W * H * 16, 16);
   struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .nuni = 2,
                     .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, VAGX_MIP_FILTER_NONE,
                                         VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
   fs.uni[0] = (uint32_t)dva;
   fs.uni[1] = (uint32_t)(dva >> 32);
   char src[512];
   snprintf(src, sizeof(src),
            "imul r8, sr.pix_y, #%u\niadd r8, r8, sr.pix_x\nshl r8, r8, #4\n"
            "ld_global.b128 r4, u0, r8\nmov r9, #0\n"
            "tex.lod.t0.s0.cube.array r0, r4, r9, r0\nst_tile.rt0 r0, #0\nend\n", W);
   fs.code = assemble(src);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "cube status");
   unsigned bad = 0, judged = 0, faces = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const float *d = &dirs[(y * W + x) * 4];
         double rx = d[0], ry = d[1], rz = d[2], ax = fabs(rx), ay = fabs(ry), az = fabs(rz);
         unsigned face;
         double sc, tc, ma;
         if (ax > ay && ax > az) {
            face = rx > 0 ? 0 : 1; ma = ax; sc = rx > 0 ? -rz : rz; tc = -ry;
         } else if (ay > ax && ay > az) {
            face = ry > 0 ? 2 : 3; ma = ay; sc = rx; tc = ry > 0 ? rz : -rz;
         } else if (az > ax && az > ay) {
            face = rz > 0 ? 4 : 5; ma = az; sc = rz > 0 ? rx : -rx; tc = -ry;
         } else {
            continue; /* tie: the spec leaves the face open */
         }
         double s = (sc / ma + 1) / 2 * N, t = (tc / ma + 1) / 2 * N;
         if (fabs(s - nearbyint(s)) < 1e-4 || fabs(t - nearbyint(t)) < 1e-4)
            continue;
         int tx = (int)floor(s), ty = (int)floor(t);
         tx = tx < 0 ? 0 : tx >= (int)N ? (int)N - 1 : tx;
         ty = ty < 0 ? 0 : ty >= (int)N ? (int)N - 1 : ty;
         unsigned layer = 6 * (unsigned)d[3] + face;
         judged++;
         faces |= 1u << face;
         const uint8_t *p = px(x, y);
         if (p[0] != layer * 20 + 10 || p[1] != tx * 30 || p[2] != ty * 30) {
            if (bad < 4)
               fprintf(stderr, "  cube (%.3f,%.3f,%.3f) layer %u: got %u,%u,%u want %u,%d,%d\n", rx, ry, rz,
                       layer, p[0], p[1], p[2], layer * 20 + 10, tx * 30, ty * 30);
            bad++;
         }
      }
   CHECK(bad == 0 && judged > 900 && faces == 0x3f, "cube: %u of %u lookups wrong (faces %#x)", bad,
         judged, faces);
   free(dirs);
}

/* ------------------------------------------------------------- formats -- */
/* Reference codecs written from the format table (descriptors.md): bit
 * positions of the packed formats, UNORM/SNORM/SRGB/UINT/SINT/FLOAT rules as
 * in GL 4.6 2.3.5 and 8.24; f16 through the compiler's _Float16 (IEEE
 * binary16, round to nearest even). */
static bool fmt_packed(enum vagx_format f, unsigned *w, unsigned *o)
{
   static const struct { enum vagx_format f; unsigned w[4], o[4]; } T[] = {
      {VAGX_FORMAT_RGB565_UNORM, {5, 6, 5, 0}, {11, 5, 0, 0}},
      {VAGX_FORMAT_RGBA4_UNORM, {4, 4, 4, 4}, {12, 8, 4, 0}},
      {VAGX_FORMAT_RGB5A1_UNORM, {5, 5, 5, 1}, {11, 6, 1, 0}},
      {VAGX_FORMAT_RGB10A2_UNORM, {10, 10, 10, 2}, {0, 10, 20, 30}},
      {VAGX_FORMAT_RGB10A2_UINT, {10, 10, 10, 2}, {0, 10, 20, 30}},
   };
   for (unsigned i = 0; i < sizeof(T) / sizeof(T[0]); i++)
      if (T[i].f == f) {
         memcpy(w, T[i].w, sizeof(T[i].w));
         memcpy(o, T[i].o, sizeof(T[i].o));
         return true;
      }
   return false;
}

static double ref_srgb_enc(double c)
{
   c = c < 0 ? 0 : c > 1 ? 1 : c;
   return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

static uint32_t ref_uf_enc(double v, unsigned mb)  /* unsigned 5-bit-exponent float */
{
   if (!(v > 0))
      return 0;
   int e;
   frexp(v, &e);                /* v = m * 2^e, m in [0.5, 1) */
   e -= 1;                      /* v = 1.f * 2^e */
   if (e < -14)                 /* denormal */
      return (uint32_t)nearbyint(v / ldexp(1, -14 - (int)mb));
   uint32_t m = (uint32_t)nearbyint((v / ldexp(1, e) - 1) * (1 << mb));
   if (m >> mb) {
      m = 0;
      e++;
   }
   return (uint32_t)(e + 15) << mb | m;
}

static double ref_uf_dec(uint32_t v, unsigned mb)
{
   uint32_t e = v >> mb, m = v & ((1u << mb) - 1);
   return e ? ldexp(1 + m / (double)(1u << mb), (int)e - 15) : ldexp(m, -14 - (int)mb);
}

/* Expected bytes of the render-target/PBE encoding of in[] (float bits or
 * integers) in format f. */
static void ref_encode(enum vagx_format f, const uint32_t in[4], uint8_t *out)
{
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   unsigned w[4], o[4];
   memset(out, 0, bpb);
   if (fmt_packed(f, w, o)) {
      uint32_t v = 0;
      for (unsigned c = 0; c < 4; c++) {
         if (!w[c])
            continue;
         uint32_t m = (1u << w[c]) - 1;
         v |= (k == VAGX_FORMAT_KIND_UINT ? (in[c] > m ? m : in[c]) : enc_unorm(r_f(in[c]), w[c])) << o[c];
      }
      memcpy(out, &v, bpb);
      return;
   }
   if (f == VAGX_FORMAT_R11G11B10_FLOAT) {
      uint32_t v = ref_uf_enc(r_f(in[0]), 6) | ref_uf_enc(r_f(in[1]), 6) << 11 | ref_uf_enc(r_f(in[2]), 5) << 22;
      memcpy(out, &v, 4);
      return;
   }
   const unsigned cb = bpb / nc, bits = 8 * cb;
   for (unsigned c = 0; c < nc; c++) {
      unsigned pos = c;
      if ((f == VAGX_FORMAT_BGRA8_UNORM || f == VAGX_FORMAT_BGRA8_SRGB) && c < 3)
         pos = 2 - c;
      uint64_t x = 0;
      double v = r_f(in[c]);
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: x = enc_unorm(v, bits); break;
      case VAGX_FORMAT_KIND_SRGB: x = enc_unorm(c < 3 ? ref_srgb_enc(v) : v, 8); break;
      case VAGX_FORMAT_KIND_SNORM: {
         double m = (double)((1u << (bits - 1)) - 1);
         v = v < -1 ? -1 : v > 1 ? 1 : v;
         x = (uint64_t)(int64_t)nearbyint(v * m);
         break;
      }
      case VAGX_FORMAT_KIND_UINT: {
         uint64_t m = (1ull << bits) - 1;
         x = in[c] > m ? m : in[c];
         break;
      }
      case VAGX_FORMAT_KIND_SINT: {
         int64_t mx = (1ll << (bits - 1)) - 1, mn = -mx - 1, s = (int32_t)in[c];
         x = (uint64_t)(s > mx ? mx : s < mn ? mn : s);
         break;
      }
      case VAGX_FORMAT_KIND_FLOAT:
         if (cb == 4) {
            x = in[c];
         } else {
            _Float16 h = (_Float16)r_f(in[c]);
            uint16_t hb;
            memcpy(&hb, &h, 2);
            x = hb;
         }
         break;
      default: break;
      }
      for (unsigned b = 0; b < cb; b++)
         out[pos * cb + b] = (uint8_t)(x >> (8 * b));
   }
}

/* Expected unpacked texel (4 x 32 bits, float bits or integers) of bytes p. */
static void ref_decode(enum vagx_format f, const uint8_t *p, bool stencil, uint32_t out[4])
{
   const enum vagx_format_kind k = vagx_format_kind(f);
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   const bool integer = k == VAGX_FORMAT_KIND_UINT || k == VAGX_FORMAT_KIND_SINT || stencil;
   uint32_t v32 = 0;
   memcpy(&v32, p, bpb < 4 ? bpb : 4);
   out[0] = out[1] = out[2] = 0;
   out[3] = integer ? 1 : r_u(1.0f);
   unsigned w[4], o[4];
   if (stencil) {
      out[0] = f == VAGX_FORMAT_S8_UINT ? p[0] : f == VAGX_FORMAT_Z24_UNORM_S8_UINT ? p[3] : p[4];
      return;
   }
   if (fmt_packed(f, w, o)) {
      for (unsigned c = 0; c < 4; c++)
         if (w[c]) {
            uint32_t x = v32 >> o[c] & ((1u << w[c]) - 1);
            out[c] = integer ? x : r_u((float)(x / (double)((1u << w[c]) - 1)));
         }
      return;
   }
   switch (f) {
   case VAGX_FORMAT_R11G11B10_FLOAT:
      out[0] = r_u((float)ref_uf_dec(v32 & 0x7ff, 6));
      out[1] = r_u((float)ref_uf_dec(v32 >> 11 & 0x7ff, 6));
      out[2] = r_u((float)ref_uf_dec(v32 >> 22, 5));
      return;
   case VAGX_FORMAT_RGB9E5_FLOAT:
      for (unsigned c = 0; c < 3; c++)
         out[c] = r_u((float)ldexp(v32 >> (9 * c) & 0x1ff, (int)(v32 >> 27) - 24));
      return;
   case VAGX_FORMAT_Z16_UNORM: out[0] = r_u((float)((v32 & 0xffff) / 65535.0)); return;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: out[0] = r_u((float)((v32 & 0xffffff) / 16777215.0)); return;
   case VAGX_FORMAT_Z32_FLOAT:
   case VAGX_FORMAT_Z32_FLOAT_S8X24_UINT: out[0] = v32; return;
   default: break;
   }
   const unsigned cb = bpb / nc, bits = 8 * cb;
   for (unsigned c = 0; c < nc; c++) {
      unsigned pos = c;
      if ((f == VAGX_FORMAT_BGRA8_UNORM || f == VAGX_FORMAT_BGRA8_SRGB) && c < 3)
         pos = 2 - c;
      uint32_t x = 0;
      for (unsigned b = 0; b < cb; b++)
         x |= (uint32_t)p[pos * cb + b] << (8 * b);
      double m = (double)((1ull << bits) - 1);
      switch (k) {
      case VAGX_FORMAT_KIND_UNORM: out[c] = r_u((float)(x / m)); break;
      case VAGX_FORMAT_KIND_SRGB: {
         double u = x / 255.0;
         out[c] = r_u((float)(c == 3 ? u : u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4)));
         break;
      }
      case VAGX_FORMAT_KIND_SNORM: {
         int32_t s = bits == 32 ? (int32_t)x : (int32_t)(x << (32 - bits)) >> (32 - bits);
         double d = s / (double)((1u << (bits - 1)) - 1);
         out[c] = r_u((float)(d < -1 ? -1 : d));
         break;
      }
      case VAGX_FORMAT_KIND_UINT: out[c] = x; break;
      case VAGX_FORMAT_KIND_SINT: out[c] = bits == 32 ? x : (uint32_t)((int32_t)(x << (32 - bits)) >> (32 - bits)); break;
      case VAGX_FORMAT_KIND_FLOAT:
         if (cb == 4) {
            out[c] = x;
         } else {
            _Float16 h;
            uint16_t hb = (uint16_t)x;
            memcpy(&h, &hb, 2);
            out[c] = r_u((float)h);
         }
         break;
      default: break;
      }
   }
}

static bool near_bits(uint32_t a, uint32_t b, bool fl, unsigned ulps)
{
   if (a == b)
      return true;
   if (!fl)
      return false;
   int64_t d = (int64_t)(int32_t)a - (int64_t)(int32_t)b;
   return (a >> 31) == (b >> 31) && (d < 0 ? -d : d) <= ulps;
}

static void fill_fmt(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o);
static enum vagx_format fill_format;

static void fill_fmt(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer;
   const enum vagx_format f = fill_format;
   const unsigned bpb = vagx_format_bytes_per_block(f), nc = vagx_format_comps(f);
   unsigned seed = (x * 7919u + y * 104729u) ^ (unsigned)f * 2654435761u;
   for (unsigned b = 0; b < bpb; b++) {
      seed = seed * 1103515245u + 12345u;
      o[b] = (uint8_t)(seed >> 16);
   }
   if (x == 0)  /* extremes: all zeros, all ones in the next texel */
      memset(o, 0, bpb);
   if (x == 1)
      memset(o, 0xff, bpb);
   /* no Inf/NaN encodings in float formats (their bits are not defined to
    * survive the float path) */
   if (vagx_format_kind(f) == VAGX_FORMAT_KIND_FLOAT && f != VAGX_FORMAT_RGB9E5_FLOAT) {
      if (f == VAGX_FORMAT_R11G11B10_FLOAT) {
         o[1] &= ~0x04; o[2] &= ~0x20; o[3] &= ~0x80;
      } else {
         const unsigned cb = bpb / nc;
         for (unsigned c = 0; c < nc; c++)
            o[c * cb + cb - 1] &= ~0x40;
      }
   }
   if (f == VAGX_FORMAT_Z32_FLOAT || f == VAGX_FORMAT_Z32_FLOAT_S8X24_UINT)
      o[3] &= ~0x40;
}

static void test_formats(void)
{
   /* A: every renderable format as tile-buffer format and PBE target: the
    * fragment shader's st_tile, the end-of-tile ld_tile + img_st */
   W = 8; H = 4;
   unsigned nfmt = 0, bad_fmt = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f) || !vagx_format_render((enum vagx_format)f))
         continue;
      const enum vagx_format_kind k = vagx_format_kind((enum vagx_format)f);
      uint32_t in[4];
      if (k == VAGX_FORMAT_KIND_UINT) {
         uint32_t v[4] = {5, 300, 70000, 3};
         memcpy(in, v, 16);
      } else if (k == VAGX_FORMAT_KIND_SINT) {
         uint32_t v[4] = {(uint32_t)-5, 300, (uint32_t)-70000, 3};
         memcpy(in, v, 16);
      } else {
         float v[4] = {0.2f, -0.7f, 0.55f, 1.3f};
         memcpy(in, v, 16);
      }
      struct prog fs = {.code = assemble(fs_const), .nuni = 4};
      memcpy(fs.uni, in, 16);
      struct job_opts o = {.rt_format = (enum vagx_format)f};
      if (draw_fullscreen(&fs, &o) != VAGX_JOB_STATUS_OK) {
         bad_fmt++;
         continue;
      }
      nfmt++;
      uint8_t want[16];
      ref_encode((enum vagx_format)f, in, want);
      unsigned bpb = vagx_format_bytes_per_block((enum vagx_format)f), bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            for (unsigned b = 0; b < bpb; b++) {
               int d = (int)px(x, y)[b] - (int)want[b];
               /* sRGB: the encode curve through powf may round the other way */
               if (d && !(k == VAGX_FORMAT_KIND_SRGB && abs(d) == 1))
                  bad++;
            }
      if (bad) {
         fprintf(stderr, "  format %s: got", vagx_format_name((enum vagx_format)f));
         for (unsigned b = 0; b < bpb; b++)
            fprintf(stderr, " %02x", px(0, 0)[b]);
         fprintf(stderr, " want");
         for (unsigned b = 0; b < bpb; b++)
            fprintf(stderr, " %02x", want[b]);
         fprintf(stderr, "\n");
         bad_fmt++;
      }
   }
   CHECK(bad_fmt == 0 && nfmt >= 39, "render formats: %u of %u wrong", bad_fmt, nfmt);

   /* B: every format (and the stencil aspect of the depth/stencil ones)
    * sampled with texel fetch, written raw through an RGBA32_UINT target */
   W = 16; H = 4;
   unsigned ntex = 0, bad_tex = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f))
         continue;
      for (unsigned st = 0; st < 2; st++) {
         const bool has_s = vagx_format_stencil((enum vagx_format)f);
         if (st && !has_s)
            continue;
         if (!st && f == VAGX_FORMAT_S8_UINT)
            continue;
         fill_format = (enum vagx_format)f;
         struct texdesc td = {(enum vagx_format)f, VAGX_DIMENSION_2D, W, H, 1, 1, 0, 0, false};
         uint64_t tva = make_texture(&td, fill_fmt);
         struct vagx_texture t;
         const char *err;
         vagx_texture_unpack(ptr(tva), &t, &err);
         t.sample_stencil = st;
         vagx_texture_pack(ptr(tva), &t);
         struct prog fs = {.tex = tva, .ntex = 1,
                           .code = assemble("mov r4, sr.pix_x\nmov r5, sr.pix_y\nmov r6, #0\n"
                                            "tex.fetch.t0.s0.2d r0, r4, r6, r0\nst_tile.rt0 r0, #0\nend\n")};
         struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
         if (draw_fullscreen(&fs, &o) != VAGX_JOB_STATUS_OK) {
            bad_tex++;
            continue;
         }
         ntex++;
         const enum vagx_format_kind k = vagx_format_kind((enum vagx_format)f);
         const bool fl = !st && k != VAGX_FORMAT_KIND_UINT && k != VAGX_FORMAT_KIND_SINT;
         /* sRGB decode goes through powf: 2 ulp */
         const unsigned ulps = k == VAGX_FORMAT_KIND_SRGB ? 2 : 0;
         unsigned bad = 0;
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               uint8_t raw[16];
               fill_fmt(0, 0, x, y, raw);
               uint32_t want[4], got[4];
               ref_decode((enum vagx_format)f, raw, st, want);
               memcpy(got, px(x, y), 16);
               for (unsigned c = 0; c < 4; c++)
                  if (!near_bits(got[c], want[c], fl, ulps)) {
                     if (!bad)
                        fprintf(stderr, "  texture %s%s (%u,%u)[%u]: got %#x want %#x\n",
                                vagx_format_name((enum vagx_format)f), st ? " stencil" : "", x, y, c,
                                got[c], want[c]);
                     bad++;
                  }
            }
         bad_tex += bad != 0;
      }
   }
   CHECK(bad_tex == 0 && ntex >= 52, "texture formats: %u of %u wrong", bad_tex, ntex);
}

/* ------------------------------- integer and stencil sampling (render.md) -- */
/* tex in the sampling modes on integer formats and the stencil aspect:
 * never filtered (LINEAR min/mag/mip filters act as NEAREST), the texel's
 * integers as the format defines them (ref_decode), the border colour's raw
 * values, swizzles with ONE = integer 1.  The shader samples a quarter
 * texel right of the texel's centre, where a bilinear filter would blend. */
static uint64_t int_smp(enum vagx_wrap wrap, const uint32_t border[4])
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = s.mag_filter = VAGX_FILTER_LINEAR;
   s.mip_filter = VAGX_MIP_FILTER_LINEAR;
   s.wrap_s = s.wrap_t = s.wrap_r = wrap;
   s.max_lod = 16;
   memcpy(s.border_color, border, 16);
   uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}

static void fill_int_mip(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)layer;
   o[0] = (uint8_t)(lv * 100 + x + 16 * y + 1);   /* R8_UINT */
}

static void test_tex_int_sampling(void)
{
   W = 16; H = 4;
   static const uint32_t zero[4] = {0, 0, 0, 0};
   /* u = (x + 0.75 - off) / W, v = (y + 0.5) / H */
   const char *fs_src = "u2f r4, sr.pix_x\nfadd r4, r4, u2\nfmul r4, r4, u0\n"
                        "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, u1\n"
                        "tex.%s.t0.s0.2d r0, r4, u3, r0\nst_tile.rt0 r0, #0\nend\n";
   char src[512];
   const float uni_c[4] = {1.0f / 16, 1.0f / 4, 0.75f, 0.0f};
   unsigned ntex = 0, bad_tex = 0;
   for (unsigned f = 1; f < 64; f++) {
      if (!vagx_format_is_valid((enum vagx_format)f))
         continue;
      for (unsigned st = 0; st < 2; st++) {
         if (st ? !vagx_format_stencil((enum vagx_format)f) : !vagx_format_is_integer((enum vagx_format)f))
            continue;
         fill_format = (enum vagx_format)f;
         struct texdesc td = {(enum vagx_format)f, VAGX_DIMENSION_2D, W, H, 1, 1, 0, 0, false};
         uint64_t tva = make_texture(&td, fill_fmt);
         struct vagx_texture t;
         const char *err;
         vagx_texture_unpack(ptr(tva), &t, &err);
         t.sample_stencil = st;
         vagx_texture_pack(ptr(tva), &t);
         snprintf(src, sizeof(src), fs_src, "auto");
         struct prog fs = {.tex = tva, .ntex = 1, .smp = int_smp(VAGX_WRAP_CLAMP_TO_EDGE, zero), .nsmp = 1,
                           .nuni = 4, .code = assemble(src)};
         memcpy(fs.uni, uni_c, 16);
         struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
         if (draw_fullscreen(&fs, &o) != VAGX_JOB_STATUS_OK) {
            bad_tex++;
            continue;
         }
         ntex++;
         unsigned bad = 0;
         for (unsigned y = 0; y < H; y++)
            for (unsigned x = 0; x < W; x++) {
               uint8_t raw[16];
               fill_fmt(0, 0, x, y, raw);
               uint32_t want[4], got[4];
               ref_decode((enum vagx_format)f, raw, st, want);
               memcpy(got, px(x, y), 16);
               for (unsigned c = 0; c < 4; c++)
                  if (got[c] != want[c]) {
                     if (!bad)
                        fprintf(stderr, "  sampled %s%s (%u,%u)[%u]: got %#x want %#x\n",
                                vagx_format_name((enum vagx_format)f), st ? " stencil" : "", x, y, c,
                                got[c], want[c]);
                     bad++;
                  }
            }
         bad_tex += bad != 0;
      }
   }
   /* 19 integer formats + 3 stencil aspects */
   CHECK(bad_tex == 0 && ntex >= 22, "integer/stencil sampling: %u of %u wrong", bad_tex, ntex);

   /* border (raw values, also where they are no valid float) and swizzle
    * (B, ONE, ZERO, R) on RGBA16_SINT; x 0..7 fall left of the image */
   {
      const uint32_t border[4] = {7, 0x80000001u, 300, 0xfffffffeu};
      fill_format = VAGX_FORMAT_RGBA16_SINT;
      struct texdesc td = {VAGX_FORMAT_RGBA16_SINT, VAGX_DIMENSION_2D, W, H, 1, 1, 0, 0, true};
      uint64_t tva = make_texture(&td, fill_fmt);
      struct vagx_texture t;
      const char *err;
      vagx_texture_unpack(ptr(tva), &t, &err);
      t.swizzle_r = VAGX_SWIZZLE_B; t.swizzle_g = VAGX_SWIZZLE_ONE;
      t.swizzle_b = VAGX_SWIZZLE_ZERO; t.swizzle_a = VAGX_SWIZZLE_R;
      vagx_texture_pack(ptr(tva), &t);
      snprintf(src, sizeof(src), fs_src, "auto");
      struct prog fs = {.tex = tva, .ntex = 1, .smp = int_smp(VAGX_WRAP_CLAMP_TO_BORDER, border), .nsmp = 1,
                        .nuni = 4, .code = assemble(src)};
      const float u[4] = {1.0f / 16, 1.0f / 4, 0.75f - 8.0f, 0.0f};
      memcpy(fs.uni, u, 16);
      struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "int border status");
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            uint32_t v[4], want[4], got[4];
            if (x < 8) {
               memcpy(v, border, 16);
            } else {
               uint8_t raw[16];
               fill_fmt(0, 0, x - 8, y, raw);
               ref_decode(VAGX_FORMAT_RGBA16_SINT, raw, false, v);
            }
            want[0] = v[2]; want[1] = 1; want[2] = 0; want[3] = v[0];
            memcpy(got, px(x, y), 16);
            if (memcmp(got, want, 16)) {
               if (!bad)
                  fprintf(stderr, "  int border/swizzle (%u,%u): got %#x %#x %#x %#x want %#x %#x %#x %#x\n",
                          x, y, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
               bad++;
            }
         }
      CHECK(bad == 0, "integer border colour and swizzle: %u pixels wrong", bad);
   }

   /* LINEAR mip filter on R8_UINT (16x4, 8x2): lod 0.4 -> level 0, lod
    * 0.6 -> level 1 (the nearest level, GL's NEAREST rule), no blend */
   for (unsigned k = 0; k < 2; k++) {
      struct texdesc td = {VAGX_FORMAT_R8_UINT, VAGX_DIMENSION_2D, W, H, 1, 2, 0, 1, false};
      uint64_t tva = make_texture(&td, fill_int_mip);
      snprintf(src, sizeof(src), fs_src, "lod");
      struct prog fs = {.tex = tva, .ntex = 1, .smp = int_smp(VAGX_WRAP_CLAMP_TO_EDGE, zero), .nsmp = 1,
                        .nuni = 4, .code = assemble(src)};
      const float u[4] = {1.0f / 16, 1.0f / 4, 0.75f, k ? 0.6f : 0.4f};
      memcpy(fs.uni, u, 16);
      struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "int mip status");
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++) {
            /* level 1 is 8x2: texel floor((x + 0.75) / 2), floor((y + 0.5) / 2) */
            const unsigned tx = k ? (4 * x + 3) / 8 : x, ty = k ? (2 * y + 1) / 4 : y;
            const uint32_t want[4] = {k * 100 + tx + 16 * ty + 1, 0, 0, 1};
            uint32_t got[4];
            memcpy(got, px(x, y), 16);
            if (memcmp(got, want, 16)) {
               if (!bad)
                  fprintf(stderr, "  int mip lod %s (%u,%u): got %u %u %u %u want %u\n", k ? "0.6" : "0.4",
                          x, y, got[0], got[1], got[2], got[3], want[0]);
               bad++;
            }
         }
      CHECK(bad == 0, "integer LINEAR mip filter, lod %s: %u pixels wrong", k ? "0.6" : "0.4", bad);
   }
}

/* ------------------------------------------- fragment outputs (contract 1.x) -- */
/* st_zs.depth (gl_FragDepth), st_zs.stencil (stencil export), the blend
 * constant special registers, and discard ordered before the stencil test
 * (GL 4.6 17.3: a discarded fragment never reaches the stencil test, so its
 * fail op does not run). */
/* Special registers a fragment shader reads that do_prim keeps from one
 * primitive or block to the next while they do not change (render_tile.c):
 * the helper-lane row, the front-face row, the blend-colour rows.  A tiny
 * triangle A leaves helper lanes in the first quad; B then covers that
 * block whole (no helper lane); C has the other winding and B's blend
 * constant; D C's winding and another blend constant.  Each outputs
 * (helper, front face, blend red). */
static void test_sr_rows(void)
{
   W = 32; H = 16;
   ncs = 0;
   const double t[12][2] = {{0, 0}, {1.2, 0}, {0, 1.2},       /* A */
                            {0, 0}, {16, 0}, {0, 16},         /* B */
                            {16, 0}, {0, 16}, {16, 16},       /* C: the other winding */
                            {16, 0}, {16, 16}, {32, 0}};      /* D: C's winding */
   uint64_t vb = vbuf_tris(t, 12, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble("and r4, sr.helper, #1\nu2f r0, r4\n"
                                      "and r5, sr.front_face, #1\nu2f r1, r5\n"
                                      "mov r2, sr.blend_r\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_blend_constant, v_.color[0] = 0.25f; v_.color[3] = 1);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 9; v_.instance_count = 1);
   EMIT(cmd_blend_constant, v_.color[0] = 0.75f; v_.color[3] = 1);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 9;
        v_.instance_count = 1);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   CHECK(run(make_job(&o), &f) == VAGX_JOB_STATUS_OK, "sr rows: status %d", f.status);
   const uint8_t fb = px(0, 0)[1], fc = px(15, 15)[1];
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = px(x, y);
         const unsigned s = x % 16 + y;   /* pixel centres: x + y + 1 against the edge at 16 */
         if (s == 15 || (x >= 16 && s > 15))
            continue;                     /* on an edge, or outside D */
         const uint8_t front = x < 16 && s < 15 ? fb : fc, blend = x < 16 ? 64 : 191;
         bad += p[0] != 0 || p[1] != front || p[2] != blend;
      }
   CHECK(bad == 0 && fb != fc && (fb == 255 || fc == 255),
         "sr rows: %u pixels wrong (front face %u then %u)", bad, fb, fc);
}

/* Clipping at the view volume (render_ppp.c: a triangle inside every
 * view-volume plane skips the clipping loop): triangles crossing the far
 * and the near plane (depth clip on) lose exactly their part beyond it;
 * triangles reaching 10^15 pixels past each side of the guard band draw
 * their visible part.  Pixels whose centre is within 0.05 pixel (or 0.02
 * in depth) of a boundary are not judged. */
static void test_clip_view_volume(void)
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
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      struct vagx_render_fault f;
      CHECK(run(make_job(&o), &f) == VAGX_JOB_STATUS_OK, "clip case %u: status %d", ci, f.status);
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

static void test_frag_outputs(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[5][6][2];
   float z[5][6];
   const int ry[5][2] = {{0, 16}, {0, 16}, {16, 32}, {32, 48}, {48, 64}};
   const float rz[5] = {0.5f, 0.9f, 0.5f, 0.5f, 0.5f};
   for (unsigned i = 0; i < 5; i++) {
      rect_tris(t[i], 0, ry[i][0], 64, ry[i][1], false);
      for (unsigned k = 0; k < 6; k++)
         z[i][k] = rz[i];
   }
   uint64_t vb = vbuf_tris(&t[0][0], 30, 0, NULL, NULL, &z[0][0]);
   struct prog red = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &red, NULL, 0, 0, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.front_face = VAGX_FRONT_FACE_CW);
   EMIT(cmd_blend_constant, v_.color[0] = 0.25f; v_.color[1] = 0.5f; v_.color[2] = 0.75f; v_.color[3] = 1);
   /* A: depth 0.5, then gl_FragDepth = (x + 0.5) / 64 under LESS */
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1; v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
   struct prog fdepth = {.code = assemble("u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, #0.015625\n"
                                          "st_zs.depth r4, r0\nmov r0, #0\nmov r1, #1.0\nmov r2, #0\n"
                                          "mov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.writes_depth = 1; to_usc(&fdepth, &v_.program));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6; v_.instance_count = 1);
   /* B: stencil reference = pix_y, REPLACE */
   struct prog fsten = {.code = assemble("st_zs.stencil r0, sr.pix_y\nmov r0, #0\nmov r1, #0\n"
                                         "mov r2, #1.0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.writes_stencil = 1; to_usc(&fsten, &v_.program));
   EMIT(cmd_depth_stencil, v_.stencil_test = 1; v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS;
        v_.front = sface(VAGX_COMPARE_FUNC_ALWAYS, VAGX_STENCIL_OP_KEEP, VAGX_STENCIL_OP_KEEP,
                         VAGX_STENCIL_OP_REPLACE, 3, 0xff, 0xff));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 12; v_.instance_count = 1);
   /* C: the blend constant */
   struct prog fblend = {.code = assemble("mov r0, sr.blend_r\nmov r1, sr.blend_g\nmov r2, sr.blend_b\n"
                                          "mov r3, sr.blend_a\nst_tile.rt0 r0, #0\nend\n")};
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; to_usc(&fblend, &v_.program));
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 18; v_.instance_count = 1);
   /* D: odd columns discard; stencil NEVER with fail INCR_WRAP */
   struct prog fdisc = {.code = assemble("and r4, sr.pix_x, #1\ndiscard.cond r4\nmov r0, #1.0\n"
                                         "mov r1, #1.0\nmov r2, #1.0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.discards = 1; to_usc(&fdisc, &v_.program));
   EMIT(cmd_depth_stencil, v_.stencil_test = 1; v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS;
        v_.front = sface(VAGX_COMPARE_FUNC_NEVER, VAGX_STENCIL_OP_INCR_WRAP, VAGX_STENCIL_OP_KEEP,
                         VAGX_STENCIL_OP_KEEP, 0, 0xff, 0xff));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 24; v_.instance_count = 1);
   EMIT(cmd_end);
   const enum vagx_format f = VAGX_FORMAT_Z32_FLOAT_S8X24_UINT;
   struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = f, .clear_depth = 1.0f,
                        .clear_stencil = 0x10, .depth_store = 1, .stencil_store = 1};
   uint64_t job = make_job(&o);
   struct vagx_render_fault fl;
   enum vagx_job_status st = run(job, &fl);
   CHECK(st == VAGX_JOB_STATUS_OK, "fragment outputs: status %d", st);
   unsigned bad[4] = {0, 0, 0, 0};
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         const uint8_t *p = px(x, y);
         uint32_t gd;
         uint8_t gs;
         zs_get(f, x, y, &gd, &gs);
         if (y < 16) {
            bool front = (x + 0.5) / 64 < 0.5;
            float d = front ? (float)((x + 0.5) / 64) : 0.5f;
            bad[0] += (front ? p[1] != 255 || p[0] != 0 : p[0] != 255 || p[1] != 0) || gd != r_u(d) ||
                      gs != 0x10;
         } else if (y < 32) {
            bad[1] += p[2] != 255 || gs != y;
         } else if (y < 48) {
            bad[2] += p[0] != 64 || p[1] != 128 || p[2] != 191 || p[3] != 255 || gs != 0x10;
         } else {
            bad[3] += p[0] != 0 || gs != ((x & 1) ? 0x10 : 0x11);
         }
      }
   CHECK(!bad[0] && !bad[1] && !bad[2] && !bad[3],
         "fragment outputs: depth %u, stencil export %u, blend constant %u, discard/stencil %u pixels wrong",
         bad[0], bad[1], bad[2], bad[3]);
   if (bad[0] || bad[1] || bad[2] || bad[3])
      save_ppm("frag-outputs");
}

/* ------------------------------------------------------------ binning -- */
/* Per-tile edge binning: a thin diagonal triangle across 8x8 tiles is binned
 * only into tiles its closed area meets (independent test: separating axes
 * in double), never fewer than the tiles holding covered pixels, and renders
 * the same image as bounding-box binning. */
static bool ref_tri_meets_box(const double t[3][2], double x0, double y0, double x1, double y1)
{
   double mnx = 1e30, mxx = -1e30, mny = 1e30, mxy = -1e30;
   for (unsigned i = 0; i < 3; i++) {
      mnx = fmin(mnx, t[i][0]); mxx = fmax(mxx, t[i][0]);
      mny = fmin(mny, t[i][1]); mxy = fmax(mxy, t[i][1]);
   }
   if (mxx < x0 || mnx > x1 || mxy < y0 || mny > y1)
      return false;
   for (unsigned i = 0; i < 3; i++) {
      const double *a = t[i], *b = t[(i + 1) % 3];
      double nx = -(b[1] - a[1]), ny = b[0] - a[0];   /* edge normal */
      double tmin = 1e30, tmax = -1e30, bmin = 1e30, bmax = -1e30;
      for (unsigned k = 0; k < 3; k++) {
         double v = nx * t[k][0] + ny * t[k][1];
         tmin = fmin(tmin, v); tmax = fmax(tmax, v);
      }
      const double cx[4] = {x0, x1, x0, x1}, cy[4] = {y0, y0, y1, y1};
      for (unsigned k = 0; k < 4; k++) {
         double v = nx * cx[k] + ny * cy[k];
         bmin = fmin(bmin, v); bmax = fmax(bmax, v);
      }
      if (bmax < tmin || bmin > tmax)
         return false;
   }
   return true;
}

static void test_binning(void)
{
   W = 256; H = 256;
   double t[6][2] = {{1.5, 2.25}, {254.75, 250.5}, {250.125, 254.0},  /* thin diagonal */
                     {200, 10}, {250, 12}, {230, 60}};                 /* small, one corner */
   uint8_t img[2][256 * 256 * 4];
   uint64_t entries[2];
   for (unsigned mode = 0; mode < 2; mode++) {
      vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_BBOX_BINNING : 0);
      ncs = 0;
      uint64_t vb = vbuf_tris(t, 6, 0, NULL, NULL, NULL);
      struct prog fs = {.code = assemble(fs_count)};
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 6);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      uint64_t job = make_job(&o);
      struct vagx_render_fault f;
      CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "binning status");
      struct vagx_render_stats st;
      vagx_render_get_stats(dev, &st);
      entries[mode] = st.bin_entries;
      for (unsigned y = 0; y < H; y++)
         memcpy(img[mode] + y * W * 4, px(0, y), W * 4);
   }
   vagx_render_set_options(dev, 0);
   unsigned meets = 0, lit_tiles = 0, bbox = 0;
   for (unsigned k = 0; k < 2; k++) {
      const double(*tri)[2] = (const double(*)[2])t + 3 * k;
      double mnx = 1e30, mxx = -1e30, mny = 1e30, mxy = -1e30;
      for (unsigned i = 0; i < 3; i++) {
         mnx = fmin(mnx, tri[i][0]); mxx = fmax(mxx, tri[i][0]);
         mny = fmin(mny, tri[i][1]); mxy = fmax(mxy, tri[i][1]);
      }
      bbox += ((unsigned)mxx / 32 - (unsigned)mnx / 32 + 1) * ((unsigned)mxy / 32 - (unsigned)mny / 32 + 1);
      for (unsigned ty = 0; ty < 8; ty++)
         for (unsigned tx = 0; tx < 8; tx++) {
            meets += ref_tri_meets_box(tri, tx * 32.0, ty * 32.0, tx * 32.0 + 32, ty * 32.0 + 32);
            bool lit = false;
            for (unsigned y = ty * 32; y < ty * 32 + 32 && !lit; y++)
               for (unsigned x = tx * 32; x < tx * 32 + 32 && !lit; x++)
                  lit = ref_inside(tri, x + 0.5, y + 0.5);
            lit_tiles += lit;
         }
   }
   CHECK(entries[0] <= meets && entries[0] >= lit_tiles && entries[1] == bbox && meets < bbox,
         "edge binning: %llu entries (tiles met %u, with pixels %u), bbox binning %llu (expected %u)",
         (unsigned long long)entries[0], meets, lit_tiles, (unsigned long long)entries[1], bbox);
   printf("  binning: %llu tile entries with edge tests, %llu by bounding box\n",
          (unsigned long long)entries[0], (unsigned long long)entries[1]);
   CHECK(!memcmp(img[0], img[1], sizeof(img[0])), "edge binning changes the image");
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         bad += img[0][(y * W + x) * 4] != (unsigned)(ref_inside((const double(*)[2])t, x + 0.5, y + 0.5) +
                                                     ref_inside((const double(*)[2])t + 3, x + 0.5, y + 0.5));
   CHECK(bad == 0, "binning: %u pixels differ from the reference", bad);
}

/* Background/end-of-tile fast paths (constant fill, row copy to a linear
 * PBE) against the interpreter: same bytes in memory, same status and fault,
 * and the fast path taken exactly when it applies.  patch: 1 = PBE base
 * unmapped, 2 = PBE narrower and shorter than the framebuffer, 3 = PBE
 * format differs from the render target's. */
static bool fast_band;   /* fast_case: 4 rows of tiles, the triangle in the first one */

static void fast_case(const char *name, const struct job_opts *o, int patch, bool exp_bg,
                      bool exp_eot)
{
   W = 77; H = fast_band ? 110 : 50;   /* partial tiles */
   ncs = 0;
   double t[3][2] = {{3.25, 2.5}, {70.0, 10.125}, {20.5, 47.75}};
   if (fast_band)
      t[2][1] = 30.5;   /* rows of tiles 1..3 are empty: stored as bands */
   uint64_t vb = vbuf_tris(t, 3, 0, NULL, NULL, NULL);
   struct prog fs = const_fs(0.2f, 0.4f, 0.6f, 0.8f);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   uint64_t job = make_job(o);
   if (patch) {
      struct vagx_pbe b = last_pbe;
      if (patch == 1)
         b.base_va = MEM_BASE + MEM_SIZE + 0x10000;
      else if (patch == 2)
         b.width = 45, b.height = 33;
      else
         b.format = VAGX_FORMAT_RGBA8_UINT;
      vagx_pbe_pack(ptr(last_pbe_va), &b);
   }
   const size_t bytes = fb_stride * H;
   uint8_t *img[2];
   struct vagx_render_fault f[2];
   enum vagx_job_status st[2];
   struct vagx_render_stats stats[2];
   for (unsigned mode = 0; mode < 2; mode++) {
      vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_NO_FAST_TILE : 0);
      memset(ptr(fb_va), 0x5a, bytes);
      st[mode] = run(job, &f[mode]);
      vagx_render_get_stats(dev, &stats[mode]);
      img[mode] = malloc(bytes);
      memcpy(img[mode], ptr(fb_va), bytes);
   }
   vagx_render_set_options(dev, 0);
   const unsigned tiles = vagx_tiles(W) * vagx_tiles(H);
   CHECK(st[0] == st[1] && f[0].unit == f[1].unit && f[0].address == f[1].address,
         "fast %s: status %d/%d unit %d/%d address %llx/%llx", name, st[0], st[1], f[0].unit,
         f[1].unit, (unsigned long long)f[0].address, (unsigned long long)f[1].address);
   CHECK(patch == 1 || st[0] == VAGX_JOB_STATUS_OK, "fast %s: status %d", name, st[0]);
   CHECK(!memcmp(img[0], img[1], bytes), "fast %s: image differs from the interpreter's", name);
   /* an unmapped PBE stops the job at its first tile */
   const unsigned ntiles = patch == 1 ? 1 : tiles;
   if (patch == 1)
      exp_eot = false;
   CHECK(stats[0].fast_bg_tiles == (exp_bg ? ntiles : 0) &&
         stats[0].fast_eot_tiles == (exp_eot ? tiles : 0) && stats[1].fast_bg_tiles == 0 &&
         stats[1].fast_eot_tiles == 0,
         "fast %s: %llu/%llu fast bg/eot tiles of %u (expected bg %d eot %d)", name,
         (unsigned long long)stats[0].fast_bg_tiles, (unsigned long long)stats[0].fast_eot_tiles,
         ntiles, exp_bg, exp_eot);
   /* bands: rows of tiles 1..3 when the stores apply and nothing else is stored */
   const unsigned bands = fast_band && exp_eot && patch != 1 && !o->zs ? 3 : 0;
   CHECK(stats[0].fast_bands == bands && stats[1].fast_bands == 0, "fast %s: %llu bands, expected %u",
         name, (unsigned long long)stats[0].fast_bands, bands);
   /* and the clear colour really is there (not just equal garbage) */
   if ((patch == 0 || patch == 2) && o->rt_format == VAGX_FORMAT_RGBA8_UNORM)
      CHECK(img[0][0] == 64 && img[0][1] == 128 && img[0][2] == 191 && img[0][3] == 255,
            "fast %s: corner %u %u %u %u", name, img[0][0], img[0][1], img[0][2], img[0][3]);
   free(img[0]);
   free(img[1]);
}

static void test_fast_tile(void)
{
   const float c[4] = {0.25f, 0.5f, 0.75f, 1.0f};
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA8_UNORM};
   memcpy(o.clear, c, sizeof(c));
   fast_case("rgba8", &o, 0, true, true);
   fast_case("unmapped", &o, 1, true, true);   /* the fault comes from the interpreter */
   fast_case("narrow", &o, 2, true, true);
   fast_case("format", &o, 3, true, false);
   o.samples = 4;
   fast_case("rgba8-4x", &o, 0, true, true);
   o.samples = 1;
   o.rt_format = VAGX_FORMAT_RG32_FLOAT;
   fast_case("rg32f", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGBA16_UNORM;
   fast_case("rgba16", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGB565_UNORM;
   fast_case("rgb565", &o, 0, true, true);
   const uint32_t ic[4] = {5, 0xfffffff0u, 300, 0x7fffffff};
   memcpy(o.clear, ic, sizeof(ic));
   o.rt_format = VAGX_FORMAT_RGBA16_SINT;
   fast_case("rgba16i", &o, 0, true, true);
   const float sc[4] = {0.1f, 0.5f, 0.3f, 1.0f};
   memcpy(o.clear, sc, sizeof(sc));
   o.rt_format = VAGX_FORMAT_RGBA8_SRGB;
   fast_case("srgb", &o, 0, true, false);
   o.rt_format = VAGX_FORMAT_RGBA16_FLOAT;
   fast_case("rgba16f", &o, 0, true, false);
   /* whole empty rows of tiles (bands), their fallbacks, and a job whose
    * depth store keeps empty tiles on the tile path */
   fast_band = true;
   memcpy(o.clear, c, sizeof(c));
   o.rt_format = VAGX_FORMAT_RGBA8_UNORM;
   fast_case("band", &o, 0, true, true);
   fast_case("band-unmapped", &o, 1, true, true);
   fast_case("band-narrow", &o, 2, true, true);
   fast_case("band-format", &o, 3, true, false);
   o.rt_format = VAGX_FORMAT_RGBA16_SINT;
   fast_case("band-rgba16i", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGBA8_UNORM;
   o.zs = true;
   o.zs_format = VAGX_FORMAT_Z32_FLOAT;
   o.clear_depth = 0.5f;
   o.depth_store = true;
   fast_case("band-zs", &o, 0, true, true);
   float d;
   uint32_t dr;
   uint8_t sdummy;
   zs_get(VAGX_FORMAT_Z32_FLOAT, 60, 100, &dr, &sdummy);
   memcpy(&d, &dr, 4);
   CHECK(d == 0.5f, "band-zs: empty tile stored depth %g, expected the clear 0.5", d);
   fast_band = false;
}

/* Span/tile I/O fast paths (render_io.h: end-of-tile stores, depth/stencil
 * load and store, texel addressing) against the generic per-pixel paths
 * (VAGX_RENDER_OPT_NO_FAST_IO | _NO_FAST_TILE), through a translation that
 * answers page by page like the device MMU and has unmapped pages: colour
 * formats x PBE layouts (linear; twiddled with tiles wider and narrower
 * than a 32x32 tile) x samples x depth/stencil formats x an unmapped page in
 * the colour or depth image.  Same bytes everywhere, same status and fault,
 * and the same first fault recorded by the translation (as the core's MMU
 * context records it; fast-path probes must not be): io_ops. */
static void fast_io_case(enum vagx_format cf, bool twiddled, unsigned samples, enum vagx_format zf,
                         unsigned hole, unsigned w, unsigned h)
{
   brk_ = 0;
   W = w; H = h;
   ncs = 0;
   const double t[9][2] = {{1.5, 0.25}, {w - 0.5, 3.75}, {w * 0.3, h - 0.5},
                           {w * 0.9, h * 0.1}, {w * 0.95, h - 1.0}, {2.0, h * 0.6},
                           {-5.0, -3.0}, {w + 7.0, h * 0.5}, {w * 0.5, h + 9.0}};
   const float z[9] = {0.3f, 0.6f, 0.9f, 0.2f, 0.8f, 0.5f, 0.4f, 0.4f, 0.4f};
   float col[9 * 3];
   for (unsigned i = 0; i < 27; i++)
      col[i] = (float)((i * 37) % 101) / 100.0f;
   uint64_t vb = vbuf_tris(t, 9, 3, col, NULL, z);
   struct prog fs = {.code = assemble("iter.center.persp r0, cf1, cf0, r0\n"
                                      "iter.center.persp r1, cf2, cf0, r0\n"
                                      "iter.center.persp r2, cf3, cf0, r0\n"
                                      "mov r3, #0.75\nst_tile.rt0 r0, #0\nend\n")};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
   emit_state(3, 0, 0, vb, &fs, cfb, 2, 4, false);
   const bool zs = zf != VAGX_FORMAT_INVALID;
   if (zs)
      EMIT(cmd_depth_stencil, v_.depth_test = vagx_format_depth(zf); v_.depth_write = 1;
           v_.depth_func = VAGX_COMPARE_FUNC_LESS; v_.stencil_test = vagx_format_stencil(zf);
           v_.front.func = v_.back.func = VAGX_COMPARE_FUNC_ALWAYS;
           v_.front.zpass_op = v_.back.zpass_op = VAGX_STENCIL_OP_INCR_WRAP;
           v_.front.write_mask = v_.back.write_mask = 0xff);
   draw(VAGX_PRIMITIVE_TRIANGLES, 9);
   EMIT(cmd_end);
   char eot4[512];
   snprintf(eot4, sizeof(eot4), "mov r4, sr.pix_x\nmov r5, sr.pix_y\n"
            "ld_tile.rt0 r0, #0\nimg_st.i0.2d r4, r0, #0\nld_tile.rt0 r8, #1\nimg_st.i0.2d r4, r8, #1\n"
            "ld_tile.rt0 r12, #2\nimg_st.i0.2d r4, r12, #2\nld_tile.rt0 r16, #3\nimg_st.i0.2d r4, r16, #3\nend\n");
   struct job_opts o = {.clear = {0.1f, 0.2f, 0.3f, 0.4f}, .samples = samples, .rt_format = cf,
                        .pbe_twiddled = twiddled, .eot = samples == 4 ? eot4 : NULL, .zs = zs,
                        .zs_format = zf, .clear_depth = 0.7f, .clear_stencil = 3,
                        .depth_load = zs, .depth_store = zs, .stencil_load = zs, .stencil_store = zs};
   uint64_t job = make_job(&o);
   const uint64_t fb_size = twiddled ? fb_layout.size_B : fb_stride * H;
   const uint64_t zs_size = zs ? zs_layout.size_B : 0;
   memset(io_hole, 0, sizeof(io_hole));
   /* the page holding the middle pixel: every path touches it */
   const uint64_t hole_size = hole == 1 ? fb_size : zs_size;
   const uint64_t hole_va = hole == 1 ? fb_va + (twiddled ? vagx_layout_offset_B(&fb_layout, 0, 0, w / 2, h / 2)
                                                          : fb_stride * (h / 2) + fb_bpp * (w / 2))
                                      : zs_base + vagx_layout_offset_B(&zs_layout, 0, 0, w / 2, h / 2);
   if (hole && hole_size)
      io_hole[(hole_va - MEM_BASE) / 4096] = true;
   uint8_t *init = malloc(fb_size + zs_size), *res[3];
   for (uint64_t i = 0; i < fb_size + zs_size; i++)
      init[i] = (uint8_t)(i * 2654435761u >> 13);
   struct vagx_render_fault f[3];
   enum vagx_job_status st[3];
   __typeof__(io_first) first[3];
   run_mem = &io_ops;
   /* the fast paths, the generic ones, the fast paths' baseline SIMD copy
    * (render_tile_avx2.c) */
   for (unsigned mode = 0; mode < 3; mode++) {
      memcpy(ptr(fb_va), init, fb_size);
      if (zs)
         memcpy(ptr(zs_base), init + fb_size, zs_size);
      memset(&io_first, 0, sizeof(io_first));
      vagx_render_set_options(dev, mode == 1 ? VAGX_RENDER_OPT_NO_FAST_IO | VAGX_RENDER_OPT_NO_FAST_TILE : 0);
      usc_simd_force(mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
      st[mode] = run(job, &f[mode]);
      first[mode] = io_first;
      struct vagx_render_stats stats;
      vagx_render_get_stats(dev, &stats);
      /* the fast store is taken (sRGB's round trip is not a copy) */
      CHECK(mode == 1 || hole || cf == VAGX_FORMAT_RGBA8_SRGB || stats.fast_eot_tiles > 0,
            "fast_io: no fast end-of-tile store");
      res[mode] = malloc(fb_size + zs_size);
      memcpy(res[mode], ptr(fb_va), fb_size);
      if (zs)
         memcpy(res[mode] + fb_size, ptr(zs_base), zs_size);
   }
   run_mem = &mem_ops;
   vagx_render_set_options(dev, 0);
   usc_simd_force(USC_SIMD_AUTO);
   char name[128];
   snprintf(name, sizeof(name), "%s %s %ux %s hole %u %ux%u", vagx_format_name(cf),
            twiddled ? "twiddled" : "linear", samples, zs ? vagx_format_name(zf) : "no-zs", hole, w, h);
   CHECK(st[0] == st[1] && f[0].unit == f[1].unit && f[0].address == f[1].address &&
            f[0].access == f[1].access,
         "fast_io %s: status %d/%d unit %d/%d address %llx/%llx", name, st[0], st[1], f[0].unit,
         f[1].unit, (unsigned long long)f[0].address, (unsigned long long)f[1].address);
   CHECK(first[0].faulted == first[1].faulted && first[0].va == first[1].va &&
            first[0].access == first[1].access,
         "fast_io %s: first translation fault %d %llx/%d %llx", name, first[0].faulted,
         (unsigned long long)first[0].va, first[1].faulted, (unsigned long long)first[1].va);
   CHECK((hole != 0 && hole_size) == (st[0] == VAGX_JOB_STATUS_MMU_FAULT), "fast_io %s: status %d",
         name, st[0]);
   CHECK(!memcmp(res[0], res[1], fb_size), "fast_io %s: colour image differs", name);
   CHECK(!memcmp(res[0] + fb_size, res[1] + fb_size, zs_size), "fast_io %s: depth/stencil differs",
         name);
   CHECK(st[2] == st[0] && f[2].address == f[0].address && first[2].va == first[0].va &&
            first[2].faulted == first[0].faulted && !memcmp(res[0], res[2], fb_size + zs_size),
         "fast_io %s: the SIMD levels differ", name);
   free(init);
   free(res[0]);
   free(res[1]);
   free(res[2]);
}

/* n random triangles with random vertex colours (3 smooth varyings) and
 * depths z (NULL: 0) in a vertex buffer: first vertices anywhere in the
 * frame and 10 pixels around it, the others within `scale` of their first
 * (independent: anywhere too); ties: on pixel edges and centres. */
static uint64_t rand_colour_tris(unsigned *seed, unsigned n, double scale, bool independent,
                                 bool ties, const float *z)
{
   double (*t)[2] = malloc(sizeof(*t) * n * 3);
   float *col = malloc(sizeof(*col) * n * 9);
   for (unsigned i = 0; i < n * 3; i++) {
      *seed = *seed * 1103515245u + 12345u;
      const unsigned sd = *seed;
      if (i % 3 == 0 || independent) {
         t[i][0] = (sd >> 8) % (W + 20) - 10.0;
         t[i][1] = (sd >> 16) % (H + 20) - 10.0;
      } else {  /* near the first vertex: small and thin triangles */
         t[i][0] = t[i - i % 3][0] + ((sd >> 4) % 1000) / 1000.0 * scale - scale / 2;
         t[i][1] = t[i - i % 3][1] + ((sd >> 14) % 1000) / 1000.0 * scale - scale / 2;
      }
      if (ties) {
         t[i][0] = floor(t[i][0]) + ((sd >> 3) & 1) * 0.5;
         t[i][1] = floor(t[i][1]) + ((sd >> 5) & 1) * 0.5;
      }
      for (unsigned k = 0; k < 3; k++)
         col[i * 3 + k] = (float)((sd >> (k * 7)) % 251) / 250.0f;
   }
   uint64_t vb = vbuf_tris((const double(*)[2])t, n * 3, 3, col, NULL, z);
   free(t);
   free(col);
   return vb;
}

/* The vertex colour (cf1..cf3 of rand_colour_tris) in r0..r2. */
#define COLOUR_FS_ITER                                                                            \
   "iter.center.persp r0, cf1, cf0, r0\niter.center.persp r1, cf2, cf0, r0\n"                     \
   "iter.center.persp r2, cf3, cf0, r0\n"

/* emit_state for rand_colour_tris's varyings and fragment program fs. */
static void emit_colour_state(uint64_t vb, const struct prog *fs)
{
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
   emit_state(3, 0, 0, vb, fs, cfb, 2, 4, false);
}

/* Block coverage (an 8x4 block's edge functions stepped across it) against
 * per-sample edge tests (VAGX_RENDER_OPT_NO_FAST_RASTER): random triangles,
 * tiny to huge, on and off the pixel grid, sharing edges, 1X and 4X, with
 * colours from the vertices so any coverage difference shows. */
static void test_fast_raster(void)
{
   unsigned seed = 12345;
   for (unsigned samples = 1; samples <= 4; samples += 3)
      for (unsigned round = 0; round < 8; round++) {
         brk_ = 0;
         W = 97; H = 71;
         ncs = 0;
         enum { NT = 120 };
         /* rounds 6 and 7: edges thousands of pixels long (two vertices
          * far outside the viewport), whose values across a block do not
          * fit 32 bits */
         const double scale = round < 2 ? 8.0 : round < 4 ? 40.0 : round < 6 ? 120.0 : 20000.0;
         uint64_t vb = rand_colour_tris(&seed, NT, scale, (round & 1) && round < 6,
                                        round == 5 || round == 7, NULL);
         struct prog fs = {.code = assemble(COLOUR_FS_ITER
                                            "mov r3, #1.0\nst_tile.rt0 r0, #0\n"
                                            "st_tile.rt0 r0, #1\nst_tile.rt0 r0, #2\n"
                                            "st_tile.rt0 r0, #3\nend\n")};
         emit_colour_state(vb, &fs);
         if (samples == 4)
            EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
                 v_.sample_mask = 0xf; v_.depth_clip = 1; v_.multisample = 1);
         draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
         EMIT(cmd_end);
         char eot4[512];
         snprintf(eot4, sizeof(eot4), "mov r4, sr.pix_x\nmov r5, sr.pix_y\n"
                  "ld_tile.rt0 r0, #0\nimg_st.i0.2d r4, r0, #0\nld_tile.rt0 r8, #1\nimg_st.i0.2d r4, r8, #1\n"
                  "ld_tile.rt0 r12, #2\nimg_st.i0.2d r4, r12, #2\nld_tile.rt0 r16, #3\nimg_st.i0.2d r4, r16, #3\nend\n");
         struct job_opts o = {.clear = {0, 0, 0, 0}, .samples = samples, .pbe_twiddled = samples == 4,
                              .eot = samples == 4 ? eot4 : NULL};
         uint64_t job = make_job(&o);
         const uint64_t size = samples == 4 ? fb_layout.size_B : fb_stride * H;
         uint8_t *img[3];
         uint64_t lanes[3];
         /* block coverage, per-sample tests, block coverage's baseline
          * SIMD copy (render_tile_avx2.c) */
         for (unsigned mode = 0; mode < 3; mode++) {
            vagx_render_set_options(dev, mode == 1 ? VAGX_RENDER_OPT_NO_FAST_RASTER : 0);
            usc_simd_force(mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
            memset(ptr(fb_va), 0x5a, size);
            struct vagx_render_fault f;
            CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fast_raster status");
            struct vagx_render_stats st;
            vagx_render_get_stats(dev, &st);
            lanes[mode] = st.fragment_lanes;
            img[mode] = malloc(size);
            memcpy(img[mode], ptr(fb_va), size);
         }
         vagx_render_set_options(dev, 0);
         usc_simd_force(USC_SIMD_AUTO);
         CHECK(lanes[2] == lanes[0] && !memcmp(img[0], img[2], size),
               "fast_raster %ux round %u: the SIMD levels differ", samples, round);
         CHECK(lanes[0] == lanes[1] && lanes[0] > 0, "fast_raster %ux round %u: %llu/%llu fragments",
               samples, round, (unsigned long long)lanes[0], (unsigned long long)lanes[1]);
         CHECK(!memcmp(img[0], img[1], size), "fast_raster %ux round %u: images differ", samples, round);
         free(img[0]);
         free(img[1]);
         free(img[2]);
      }
}

/* Early depth tests of single-sampled triangles a block row at a time
 * (render_tile.c block_depth_1x) against the per-lane path
 * (VAGX_RENDER_OPT_NO_FAST_IO): random overlapping triangles whose depth
 * leaves [0, 1], every compare function, each depth format without a
 * stencil test, with and without depth writes, depth clip (the unit clamp)
 * and hidden-surface removal (an opaque pipeline: its first pass is the
 * block path too).  Same colours, depth buffer and fragment count. */
static void test_fast_depth(void)
{
   static const enum vagx_format zfs[] = {VAGX_FORMAT_Z32_FLOAT, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                          VAGX_FORMAT_Z16_UNORM};
   unsigned seed = 777, cases = 0, shaded = 0;
   for (unsigned fi = 0; fi < 3; fi++)
      for (unsigned func = VAGX_COMPARE_FUNC_NEVER; func <= VAGX_COMPARE_FUNC_ALWAYS; func++)
         for (unsigned v = 0; v < 4; v++) {
            brk_ = 0;
            W = 97; H = 71;
            ncs = 0;
            enum { NT = 60 };
            float z[NT * 3];
            for (unsigned i = 0; i < NT * 3; i++) {
               seed = seed * 1103515245u + 12345u;
               z[i] = (float)((seed >> 3) % 1601) / 1000.0f - 0.3f;
               /* every third triangle flat at a few shared depths (up to past the far
                * plane): equal tests */
               if ((i / 3) % 3 == 2)
                  z[i] = (float)((i / 9) % 6) * 0.25f;
            }
            uint64_t vb = rand_colour_tris(&seed, NT, 40.0, false, false, z);
            struct prog fs = {.code = assemble(COLOUR_FS_ITER "mov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
            emit_colour_state(vb, &fs);
            seed = seed * 1103515245u + 12345u;
            const bool write = seed >> 20 & 1, clip = v >> 1, hsr = v & 1;
            if (hsr) {
               uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH),
                                  binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
               EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = 2; v_.cf_count = 4;
                    v_.slots32 = 4; v_.opaque = 1; v_.cf_bindings_va = put(cfb, 8, 4);
                    to_usc(&fs, &v_.program));
            }
            EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
                 v_.sample_mask = 0xf; v_.depth_clip = clip);
            /* a depth range past [0, 1] (a float depth buffer's, or one a
             * unorm format saturates), or a narrow one */
            static const float ranges[3][2] = {{0, 1}, {-0.5f, 1.5f}, {0.7f, 0.2f}};
            const unsigned ri = (seed >> 22) % 3;
            EMIT(cmd_viewport, v_.scale_x = W / 2.0f; v_.offset_x = W / 2.0f; v_.scale_y = H / 2.0f;
                 v_.offset_y = H / 2.0f; v_.scale_z = 1; v_.offset_z = 0;
                 v_.min_depth = ranges[ri][0]; v_.max_depth = ranges[ri][1]);
            EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = write;
                 v_.depth_func = (enum vagx_compare_func)func);
            draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
            EMIT(cmd_end);
            /* the far plane as clear depth: saturated fragments meet it */
            struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = zfs[fi],
                                 .clear_depth = seed >> 23 & 1 ? 1.0f : 0.5f, .depth_store = true};
            uint64_t job = make_job(&o);
            const uint64_t fb_size = fb_stride * H, zs_size = zs_layout.size_B;
            uint8_t *img[3];
            uint64_t lanes[3];
            /* the fast paths, the per-lane path, the fast paths' baseline
             * SIMD copy (render_tile_avx2.c) */
            for (unsigned mode = 0; mode < 3; mode++) {
               vagx_render_set_options(dev, mode == 1 ? VAGX_RENDER_OPT_NO_FAST_IO : 0);
               usc_simd_force(mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
               memset(ptr(fb_va), 0x5a, fb_size);
               memset(ptr(zs_base), 0xa5, zs_size);
               struct vagx_render_fault f;
               CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fast_depth status");
               struct vagx_render_stats st;
               vagx_render_get_stats(dev, &st);
               lanes[mode] = st.fragment_lanes;
               img[mode] = malloc(fb_size + zs_size);
               memcpy(img[mode], ptr(fb_va), fb_size);
               memcpy(img[mode] + fb_size, ptr(zs_base), zs_size);
            }
            vagx_render_set_options(dev, 0);
            usc_simd_force(USC_SIMD_AUTO);
            shaded += lanes[0] > 0;
            CHECK(lanes[0] == lanes[1] && (lanes[0] == 0 || func != VAGX_COMPARE_FUNC_NEVER),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: %llu/%llu fragments",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri, (unsigned long long)lanes[0],
                  (unsigned long long)lanes[1]);
            CHECK(!memcmp(img[0], img[1], fb_size + zs_size),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: %s differ",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri,
                  memcmp(img[0], img[1], fb_size) ? "colours" : "depths");
            CHECK(lanes[2] == lanes[0] && !memcmp(img[0], img[2], fb_size + zs_size),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: the SIMD levels differ",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri);
            free(img[0]);
            free(img[1]);
            free(img[2]);
            cases++;
         }
   CHECK(shaded >= cases / 2, "fast_depth: only %u of %u jobs shaded anything", shaded, cases);
   printf("  fast_depth: %u jobs compared with the per-lane path, %u shaded\n", cases, shaded);
}

/* ld_tile of a single-sampled RGBA8/BGRA8 target (render_tile.c's fast
 * path: blends in the shader, end-of-tile programs) against the per-lane
 * path (VAGX_RENDER_OPT_NO_FAST_IO): overlapping random triangles whose
 * shader mixes the tile's colour (read as a float and as the sample
 * index's lane value) into its own. */
static void test_fast_ld_tile(void)
{
   unsigned seed = 4242;
   for (unsigned fi = 0; fi < 2; fi++) {
      brk_ = 0;
      W = 61; H = 45;
      ncs = 0;
      enum { NT = 40 };
      uint64_t vb = rand_colour_tris(&seed, NT, 0, true, false, NULL);
      struct prog fs = {.code = assemble(COLOUR_FS_ITER "ld_tile.rt0 r4, #0\n"
                                         "fmul r0, r0, #0.5\nfmul r4, r4, #0.5\nfadd r0, r0, r4\n"
                                         "fmul r1, r1, #0.5\nfmul r5, r5, #0.5\nfadd r1, r1, r5\n"
                                         "fmul r2, r2, #0.5\nfmul r6, r6, #0.5\nfadd r2, r2, r6\n"
                                         "fadd r3, r7, #0.125\nst_tile.rt0 r0, #0\nend\n")};
      emit_colour_state(vb, &fs);
      draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0.2f, 0.4f, 0.6f, 0.3f},
                           .rt_format = fi ? VAGX_FORMAT_BGRA8_UNORM : VAGX_FORMAT_RGBA8_UNORM};
      uint64_t job = make_job(&o);
      const uint64_t size = fb_stride * H;
      uint8_t *img[2];
      for (unsigned mode = 0; mode < 2; mode++) {
         vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_NO_FAST_IO : 0);
         memset(ptr(fb_va), 0x5a, size);
         struct vagx_render_fault f;
         CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fast_ld_tile status");
         img[mode] = malloc(size);
         memcpy(img[mode], ptr(fb_va), size);
      }
      vagx_render_set_options(dev, 0);
      CHECK(!memcmp(img[0], img[1], size), "fast_ld_tile %s: images differ",
            fi ? "BGRA8" : "RGBA8");
      /* and the blend happened: the clear colour shows through */
      unsigned mixed = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            mixed += px(x, y)[3] != (uint8_t)lrint(0.3 * 255);
      CHECK(mixed > 0, "fast_ld_tile: nothing drawn");
      free(img[0]);
      free(img[1]);
   }
}

static void test_fast_io(void)
{
   static const enum vagx_format cfs[] = {VAGX_FORMAT_RGBA8_UNORM, VAGX_FORMAT_BGRA8_UNORM,
                                          VAGX_FORMAT_R8_UNORM, VAGX_FORMAT_RGBA16_UNORM,
                                          VAGX_FORMAT_RGBA32_FLOAT, VAGX_FORMAT_RGBA8_SRGB};
   static const enum vagx_format zfs[] = {VAGX_FORMAT_INVALID, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                          VAGX_FORMAT_Z16_UNORM, VAGX_FORMAT_Z32_FLOAT,
                                          VAGX_FORMAT_S8_UINT, VAGX_FORMAT_Z32_FLOAT_S8X24_UINT};
   static const unsigned sizes[][2] = {{77, 50}, {70, 15}, {130, 97}};
   unsigned n = 0;
   for (unsigned ci = 0; ci < sizeof(cfs) / sizeof(cfs[0]); ci++)
      for (unsigned lay = 0; lay < 3; lay++)          /* linear, twiddled 1X, twiddled 4X */
         for (unsigned zi = 0; zi < sizeof(zfs) / sizeof(zfs[0]); zi++)
            for (unsigned hole = 0; hole < 3; hole++) {
               if (hole == 2 && zfs[zi] == VAGX_FORMAT_INVALID)
                  continue;
               const unsigned *sz = sizes[(ci + zi + hole + lay) % 3];
               fast_io_case(cfs[ci], lay > 0, lay == 2 ? 4 : 1, zfs[zi], hole, sz[0], sz[1]);
               n++;
            }
   printf("  fast_io: %u jobs compared with the generic paths\n", n);
}

/* Hidden-surface removal: overlapping opaque quads drawn back to front with
 * a depth test.  The image must equal the reference (the last quad covering
 * each pixel centre) with HSR on and off, the query must count the same
 * samples, and with HSR each covered pixel is shaded once.  Pipelines HSR
 * must not touch (not opaque, discard) shade every fragment. */
enum { HSR_N = 6 };
static const double hsr_q[HSR_N][4] = {   /* x0 y0 x1 y1, back to front */
   {2, 3, 62, 60}, {10.5, 0, 50, 40.25}, {20, 20, 64, 64}, {0, 30, 33.75, 55},
   {25, 5, 45, 58}, {5.5, 44, 60, 49.5}};

static void hsr_scene(bool opaque, bool discards, bool depth_write, bool hsr, uint8_t *img,
                      uint64_t *lanes, uint64_t *query)
{
   W = 64; H = 64;
   ncs = 0;
   double t[HSR_N * 6][2];
   float z[HSR_N * 6];
   for (unsigned q = 0; q < HSR_N; q++) {
      const double *r = hsr_q[q];
      const double v[6][2] = {{r[0], r[1]}, {r[2], r[1]}, {r[2], r[3]},
                              {r[0], r[1]}, {r[2], r[3]}, {r[0], r[3]}};
      memcpy(t + 6 * q, v, sizeof(v));
      for (unsigned k = 0; k < 6; k++)
         z[6 * q + k] = 0.9f - 0.1f * (float)q;
   }
   uint64_t vb = vbuf_tris((const double(*)[2])t, HSR_N * 6, 0, NULL, NULL, z);
   struct prog fs0 = const_fs(0, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs0, NULL, 0, 0, false);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = depth_write;
        v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   uint64_t qva = alloc(8, 8);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = qva);
   for (unsigned q = 0; q < HSR_N; q++) {
      struct prog fs = const_fs((q + 1) * 40 / 255.0f, (q & 1) ? 1.0f : 0.0f, q / 10.0f, 1);
      EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.opaque = opaque; v_.discards = discards;
           to_usc(&fs, &v_.program));
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6 * q;
           v_.instance_count = 1);
   }
   EMIT(cmd_query_end);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 1, 1}, .clear_depth = 1.0f};
   uint64_t job = make_job(&o);
   vagx_render_set_options(dev, hsr ? 0 : VAGX_RENDER_OPT_NO_HSR);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   vagx_render_set_options(dev, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "hsr status %d", st);
   struct vagx_render_stats stats;
   vagx_render_get_stats(dev, &stats);
   *lanes = stats.fragment_lanes;
   memcpy(query, ptr(qva), 8);
   for (unsigned y = 0; y < H; y++)
      memcpy(img + y * W * 4, px(0, y), W * 4);
}

static void test_hsr(void)
{
   static uint8_t img[2][64 * 64 * 4];
   uint64_t lanes[2], query[2];
   /* reference: colour of the last (nearest) quad covering each pixel centre */
   unsigned covered = 0, frags = 0, bad = 0;
   int last[64 * 64];
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++) {
         last[y * 64 + x] = -1;
         for (unsigned q = 0; q < HSR_N; q++) {
            const double *r = hsr_q[q];
            const double a[3][2] = {{r[0], r[1]}, {r[2], r[1]}, {r[2], r[3]}};
            const double b[3][2] = {{r[0], r[1]}, {r[2], r[3]}, {r[0], r[3]}};
            if (ref_inside(a, x + 0.5, y + 0.5) || ref_inside(b, x + 0.5, y + 0.5)) {
               last[y * 64 + x] = (int)q;
               frags++;
            }
         }
         covered += last[y * 64 + x] >= 0;
      }
   for (unsigned mode = 0; mode < 2; mode++)
      hsr_scene(true, false, true, mode == 0, img[mode], &lanes[mode], &query[mode]);
   for (unsigned i = 0; i < 64 * 64; i++) {
      const int q = last[i];
      const uint8_t e[4] = {q < 0 ? 0 : (uint8_t)((q + 1) * 40), q >= 0 && (q & 1) ? 255 : 0,
                            q < 0 ? 255 : (uint8_t)lrint((double)(q / 10.0f) * 255), 255};
      bad += memcmp(img[0] + 4 * i, e, 4) != 0;
   }
   CHECK(bad == 0, "hsr: %u pixels differ from the reference", bad);
   CHECK(!memcmp(img[0], img[1], sizeof(img[0])), "hsr: image differs with HSR off");
   CHECK(query[0] == frags && query[1] == frags, "hsr: occlusion %llu/%llu, expected %u",
         (unsigned long long)query[0], (unsigned long long)query[1], frags);
   CHECK(lanes[0] == covered && lanes[1] == frags,
         "hsr: %llu lanes shaded with HSR (expected %u, one per covered pixel), %llu without "
         "(expected %u)", (unsigned long long)lanes[0], covered, (unsigned long long)lanes[1], frags);
   printf("  hsr: %u fragments, %llu shaded with HSR, %llu without\n", frags,
          (unsigned long long)lanes[0], (unsigned long long)lanes[1]);
   /* not opaque (e.g. blending), or discarding: every fragment is shaded */
   static uint8_t im2[64 * 64 * 4];
   uint64_t l2, q2;
   hsr_scene(false, false, true, true, im2, &l2, &q2);
   CHECK(l2 == frags && !memcmp(im2, img[0], sizeof(im2)), "hsr: non-opaque shaded %llu of %u",
         (unsigned long long)l2, frags);
   hsr_scene(true, true, true, true, im2, &l2, &q2);
   CHECK(l2 == frags && !memcmp(im2, img[0], sizeof(im2)), "hsr: discarding shaded %llu of %u",
         (unsigned long long)l2, frags);
   /* depth writes off: every fragment passes against the clear depth and the
    * last one wins, with or without HSR */
   hsr_scene(true, false, false, true, im2, &l2, &q2);
   uint64_t l3, q3;
   static uint8_t im3[64 * 64 * 4];
   hsr_scene(true, false, false, false, im3, &l3, &q3);
   CHECK(!memcmp(im2, im3, sizeof(im2)) && !memcmp(im2, img[0], sizeof(im2)) && l2 == covered &&
         l3 == frags && q2 == frags && q3 == frags,
         "hsr: depth writes off: lanes %llu/%llu queries %llu/%llu", (unsigned long long)l2,
         (unsigned long long)l3, (unsigned long long)q2, (unsigned long long)q3);
}

/* Polygon modes: a clockwise (front) triangle in LINE mode is its three
 * edges as diamond-exit lines, a counter-clockwise (back) one in POINT mode
 * is a point at each vertex; culling comes first; polygon offset applies
 * per mode (offset_line). */
static const double fm_a[3][2] = {{6.25, 5.5}, {40.75, 12.125}, {14.5, 37.25}};   /* CW */
static const double fm_b[3][2] = {{44.25, 30.5}, {50.5, 58.25}, {60.75, 40.125}};  /* CCW */

static void fill_scene(enum vagx_cull_mode cull, bool fill_first, bool offset_line)
{
   W = 64; H = 64;
   ncs = 0;
   double t[6][2];
   memcpy(t, fm_a, sizeof(fm_a));
   memcpy(t[3], fm_b, sizeof(fm_b));
   uint64_t vb = vbuf_tris((const double(*)[2])t, 6, 0, NULL, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}, .clear_depth = 1.0f};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fill modes: status");
}

static void test_fill_modes(void)
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
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fill modes: clipped status");
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
static void test_edge_flags(void)
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
   ncs = 0;
   double t[6][2];
   memcpy(t, fm_a, sizeof(fm_a));
   memcpy(t[3], fm_b, sizeof(fm_b));
   uint64_t vb = vbuf_tris((const double(*)[2])t, 6, 1, flags, NULL, NULL);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   /* the vertex shader stores word 4 (the flag): no varyings, no point size
    * or clip distances, so it is the edge flag word */
   struct prog vs = {.code = vs_code(1), .nuni = 2};
   vs.uni[0] = (uint32_t)vb;
   vs.uni[1] = (uint32_t)(vb >> 32);
   EMIT(cmd_bind_vertex_pipeline, v_.edge_flag = 1; to_usc(&vs, &v_.program));
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 3; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.front_face = VAGX_FRONT_FACE_CW;
        v_.fill_front = VAGX_FILL_MODE_LINE; v_.fill_back = VAGX_FILL_MODE_POINT);
   draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "edge flags: status");
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
static void test_point_size_min(void)
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
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 1}};
      uint64_t job = make_job(&o);
      struct vagx_render_fault f;
      CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "point size %g: status", sizes[k]);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += (px(x, y)[0] == 255) != (sizes[k] > 0 && x == 20 && y == 10);
      CHECK(bad == 0, "point size %g: %u pixels wrong", sizes[k], bad);
   }
}

/* Cube map LOD (render.md "Cube map LOD"): the level of detail comes from
 * the derivatives of the face coordinates, (sc/ma + 1)/2, not of the
 * direction, whose components span twice that range.  The shader's
 * direction is linear in the pixel position so that one face (64 texels)
 * spans the 32-pixel framebuffer: 2 texels per pixel, lambda = 1, whatever
 * the direction's length.  Level i's texels are (30 i, 20 face). */
static void fill_cube_lod(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)x; (void)y;
   o[0] = (uint8_t)(lv * 30);
   o[1] = (uint8_t)(layer * 20);
   o[2] = 0;
   o[3] = 255;
}

static void test_cube_lod(void)
{
   W = 32; H = 32;
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_CUBE, 64, 64, 6, 7, 0, 6, false};
   uint64_t tex = make_texture(&td, fill_cube_lod);
   /* dir_k = a_k U + b_k V + c_k with U, V the pixel centre; k = 2/32 */
   const float k = 2.0f / 32;
   struct { unsigned face; float s; float m[9]; } C[] = {
      /* +X: (1, 1 - kV, 1 - kU) * s */
      {0, 1, {0, 0, 1, 0, -k, 1, -k, 0, 1}},
      {0, 3, {0, 0, 3, 0, -3 * k, 3, -3 * k, 0, 3}},
      /* -Y: (kU - 1, -1, kV - 1) * s */
      {3, 1, {k, 0, -1, 0, 0, -1, 0, k, -1}},
      {3, 0.5f, {k / 2, 0, -0.5f, 0, 0, -0.5f, 0, k / 2, -0.5f}},
   };
   char src[1024];
   int n = snprintf(src, sizeof(src), "u2f r10, sr.pix_x\nfadd r10, r10, #0.5\n"
                                      "u2f r11, sr.pix_y\nfadd r11, r11, #0.5\n");
   for (unsigned c = 0; c < 3; c++)
      n += snprintf(src + n, sizeof(src) - n,
                    "fmul r%u, r10, u%u\nfmul r12, r11, u%u\nfadd r%u, r%u, r12\nfadd r%u, r%u, u%u\n",
                    4 + c, 3 * c, 3 * c + 1, 4 + c, 4 + c, 4 + c, 4 + c, 3 * c + 2);
   snprintf(src + n, sizeof(src) - n, "mov r9, #0\ntex.auto.t0.s0.cube r0, r4, r9, r0\n"
                                      "st_tile.rt0 r0, #0\nend\n");
   for (unsigned ci = 0; ci < sizeof(C) / sizeof(C[0]); ci++) {
      struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .nuni = 9,
                        .smp = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST,
                                            VAGX_MIP_FILTER_NEAREST, VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0)};
      memcpy(fs.uni, C[ci].m, sizeof(C[ci].m));
      fs.code = assemble(src);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "cube lod %u: status", ci);
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += px(x, y)[0] != 30 || px(x, y)[1] != C[ci].face * 20;
      CHECK(bad == 0, "cube lod %u (face %u, length %g): %u pixels not level 1 (got level %u)", ci,
            C[ci].face, C[ci].s, bad, px(5, 5)[0] / 30);
   }
}

/* Shadow compares of unorm depth formats clamp the reference to [0, 1]
 * (render.md, GL 4.6 8.23.1): a texel of 1.0 compared LEQUAL with reference
 * 1.5 passes for Z24 and Z16 (1.0 <= 1.0) and fails for Z32_FLOAT. */
static void fill_depth_one(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer; (void)x; (void)y;
   memset(o, 0xff, 4); /* Z24 1.0 (+ stencil), Z16 1.0 (first two bytes) */
}

static void fill_depth_one_f(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv; (void)layer; (void)x; (void)y;
   const float one = 1.0f;
   memcpy(o, &one, 4);
}

static void test_shadow_ref_clamp(void)
{
   W = 8; H = 8;
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z24_UNORM_S8_UINT, VAGX_FORMAT_Z16_UNORM,
                                           VAGX_FORMAT_Z32_FLOAT};
   for (unsigned fi = 0; fi < 3; fi++) {
      const enum vagx_format f = fmts[fi];
      struct texdesc td = {f, VAGX_DIMENSION_2D, 4, 4, 1, 1, 0, 0, false};
      uint64_t tex = make_texture(&td, f == VAGX_FORMAT_Z32_FLOAT ? fill_depth_one_f : fill_depth_one);
      struct vagx_sampler s;
      vagx_sampler_init(&s);
      s.wrap_s = s.wrap_t = s.wrap_r = VAGX_WRAP_CLAMP_TO_EDGE;
      s.max_lod = 16;
      s.compare_enable = 1;
      s.compare_func = VAGX_COMPARE_FUNC_LEQUAL;
      uint64_t smp = alloc(32, 32);
      vagx_sampler_pack(ptr(smp), &s);
      struct prog fs = {.tex = tex, .ntex = 1, .nsmp = 1, .smp = smp, .nuni = 0};
      fs.code = assemble("mov r4, #0.5\nmov r5, #0.5\nmov r9, #0\nmov r8, #1.5\n"
                         "tex.lod.t0.s0.2d r0, r4, r9, r8\nmov r1, r0\nmov r2, r0\nmov r3, #1.0\n"
                         "st_tile.rt0 r0, #0\nend\n");
      struct job_opts o = {.clear = {0.5f, 0.5f, 0.5f, 1}};
      CHECK(draw_fullscreen(&fs, &o) == VAGX_JOB_STATUS_OK, "shadow clamp %s: status",
            vagx_format_name(f));
      const uint8_t want = f == VAGX_FORMAT_Z32_FLOAT ? 0 : 255;
      unsigned bad = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            bad += px(x, y)[0] != want;
      CHECK(bad == 0, "shadow clamp %s: %u pixels wrong (want %u, got %u)", vagx_format_name(f), bad,
            want, px(0, 0)[0]);
   }
}

/* Draws longer than the device's vertex batch (1536): strips, fans, loops
 * and lists whose runs cross batch boundaries, with restarts next to them,
 * against the test's own primitive assembly.  The zigzag strip tiles a band
 * once (fs_count counts hits); BACK culling catches a lost odd-triangle
 * swap. */
static void ref_assemble(enum vagx_primitive prim, const double (*v)[2], const uint32_t *idx,
                         unsigned n, unsigned *cnt)
{
   unsigned s0 = 0;
   for (unsigned i = 0; i <= n; i++) {
      if (i < n && idx[i] != 0xffffffffu)
         continue;
      const unsigned m = i - s0;
      const uint32_t *r = idx + s0;
#define V(k) v[r[k]]
#define TRI(a, b, c)                                                                   \
   do {                                                                                \
      const double t_[3][2] = {{V(a)[0], V(a)[1]}, {V(b)[0], V(b)[1]}, {V(c)[0], V(c)[1]}}; \
      const double ar_ = (t_[1][0] - t_[0][0]) * (t_[2][1] - t_[0][1]) -                 \
                         (t_[2][0] - t_[0][0]) * (t_[1][1] - t_[0][1]);                  \
      if (ar_ > 0) /* clockwise on screen = front (CW), BACK culled */                   \
         for (unsigned y_ = 0; y_ < H; y_++)                                            \
            for (unsigned x_ = 0; x_ < W; x_++)                                         \
               cnt[y_ * W + x_] += ref_inside(t_, x_ + 0.5, y_ + 0.5);                   \
   } while (0)
      switch (prim) {
      case VAGX_PRIMITIVE_TRIANGLE_STRIP:
         for (unsigned k = 0; k + 2 < m; k++) {
            if (k & 1)
               TRI(k + 1, k, k + 2);
            else
               TRI(k, k + 1, k + 2);
         }
         break;
      case VAGX_PRIMITIVE_TRIANGLE_FAN:
         for (unsigned k = 1; k + 1 < m; k++)
            TRI(0, k, k + 1);
         break;
      case VAGX_PRIMITIVE_TRIANGLES:
         for (unsigned k = 0; k + 2 < m; k += 3)
            TRI(k, k + 1, k + 2);
         break;
      case VAGX_PRIMITIVE_LINE_STRIP:
      case VAGX_PRIMITIVE_LINE_LOOP:
         for (unsigned k = 0; k + 1 < m; k++)
            ref_line(cnt, V(k)[0], V(k)[1], V(k + 1)[0], V(k + 1)[1], 1);
         if (prim == VAGX_PRIMITIVE_LINE_LOOP && m >= 2)
            ref_line(cnt, V(m - 1)[0], V(m - 1)[1], V(0)[0], V(0)[1], 1);
         break;
      default:
         break;
      }
#undef TRI
#undef V
      s0 = i + 1;
   }
}

static void test_big_draws(void)
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
         EMIT(cmd_end);
         struct job_opts o = {.clear = {0, 0, 0, 0}};
         uint64_t job = make_job(&o);
         struct vagx_render_fault f;
         CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "big draw %u/%u: status", pi, restart);
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

/* Geometry budget: an enormous draw (2^32 - 16 points, all visible) fails
 * with INVALID_COMMAND at the draw once the job's geometry exceeds the
 * budget, with memory bounded by the vertex batch (it must not try to
 * allocate per-vertex storage for the whole count); a draw within the
 * budget renders. */
static void test_geometry_budget(void)
{
   W = 64; H = 64;
   const uint64_t budget = 256 * 1024;
   const unsigned per_point = VAGX_RENDER_GEOMETRY_PRIM_COST + VAGX_RENDER_GEOMETRY_BIN_COST;
   for (unsigned pass = 0; pass < 2; pass++) {
      ncs = 0;
      struct prog fs = const_fs(1, 1, 1, 1);
      emit_state(0, 0, 0, 0, &fs, NULL, 0, 0, false);
      /* every vertex at pixel (10, 20): a 1-pixel point in one tile */
      struct prog vs = {.code = assemble("mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
                                         "st_var r0, #0\nst_var r1, #1\nst_var r2, #2\n"
                                         "st_var r3, #3\nend\n"),
                        .nuni = 4};
      const float pos[4] = {ndcx(10.5), ndcy(20.5), 0.5f, 1.0f};
      memcpy(vs.uni, pos, sizeof(pos));
      EMIT(cmd_bind_vertex_pipeline, to_usc(&vs, &v_.program));
      const unsigned draw_off = ncs * 4;
      /* the job's five program binds (bg, eot, vs twice, fs; each program
       * < 64 code words) and the draw itself are charged too (render.md) */
      const uint64_t fixed = 5 * (VAGX_RENDER_GEOMETRY_BIND_COST + (64 + 2) * VAGX_RENDER_GEOMETRY_CODE_COST) +
                             VAGX_RENDER_GEOMETRY_DRAW_COST;
      const uint32_t count = pass ? (uint32_t)((budget - fixed) / per_point) - 1 : 0xfffffff0u;
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = count; v_.instance_count = 1);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 1}};
      uint64_t job = make_job(&o);
      struct vagx_render_job rj;
      const char *err;
      vagx_render_job_unpack(ptr(job), &rj, &err);
      vagx_render_set_geometry_budget(dev, budget);
      struct vagx_render_fault f;
      enum vagx_job_status st = run(job, &f);
      vagx_render_set_geometry_budget(dev, 0);
      if (!pass)
         CHECK(st == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_PPP &&
                  f.address == rj.cs_va + draw_off,
               "budget: status %d unit %d address %llx (draw at %llx)", st, f.unit,
               (unsigned long long)f.address, (unsigned long long)(rj.cs_va + draw_off));
      else
         CHECK(st == VAGX_JOB_STATUS_OK && px(10, 20)[0] == 255 && px(11, 20)[0] == 0,
               "budget: %u points within the budget: status %d", count, st);
   }
}

/* Hostile geometry: NaN/inf positions drop their primitive, degenerate and
 * enormous triangles are defined (nothing / clipped to the guard band), and
 * out-of-range indices read as index 0; never a crash or a hang. */
static void test_bad_geometry(void)
{
   W = 64; H = 64;
   ncs = 0;
   const float inf = INFINITY, nan = NAN;
   float v[] = {
      /* NaN and inf vertices */
      nan, 0, 0.5f, 1,  0.5f, 0.5f, 0.5f, 1,  -0.5f, 0.5f, 0.5f, 1,
      -1, -1, 0.5f, inf,  1, -1, 0.5f, 1,  -1, 1, 0.5f, 1,
      inf, -inf, 0.5f, 1,  1, 1, 0.5f, 1,  -1, 1, 0.5f, 1,
      /* degenerate (zero area) and a huge finite one */
      0, 0, 0.5f, 1,  0.5f, 0.5f, 0.5f, 1,  1, 1, 0.5f, 1,
      -1e7f, -1e7f, 0.5f, 1,  1e7f, -1e7f, 0.5f, 1,  0, 1e7f, 0.5f, 1,
      /* beyond double's precision after clipping: a defined result is all
       * that is asked (drawn in its own job below) */
      -3e38f, -3e38f, 0.5f, 1,  3e38f, -3e38f, 0.5f, 1,  0, 3e38f, 0.5f, 1,
   };
   uint64_t vb = put(v, sizeof(v), 16);
   struct prog fs = {.code = assemble(fs_count)};
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 15);
   /* indices beyond the buffer: read as 0 (a degenerate triangle) */
   uint32_t idx[3] = {0xffffffffu, 7, 3};
   uint64_t iva = put(idx, sizeof(idx), 4);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1;
        v_.index_size = VAGX_INDEX_SIZE_U32; v_.index_va = iva; v_.index_buffer_size = 12;
        v_.base_vertex = 1);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   CHECK(st == VAGX_JOB_STATUS_OK || st == VAGX_JOB_STATUS_MMU_FAULT, "bad geometry status %d", st);
   unsigned n1 = 0, other = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         n1 += px(x, y)[0] == 1;
         other += px(x, y)[0] > 1;
      }
   /* only the huge triangle (it covers the whole framebuffer after clipping
    * to the guard band) draws: every pixel exactly once */
   CHECK(st != VAGX_JOB_STATUS_OK || (n1 == W * H && other == 0),
         "bad geometry: %u pixels once, %u more than once", n1, other);
   ncs = 0;
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 15; v_.instance_count = 1);
   EMIT(cmd_end);
   job = make_job(&o);
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "3e38 triangle: status %d", f.status);
}

int main(void)
{
   mem = calloc(1, MEM_SIZE);
   dev = vagx_render_device_create();
   if (!mem || !dev)
      return 2;
   struct { const char *name; void (*fn)(void); } tests[] = {
      {"triangle", test_triangle},
      {"shared_edges", test_shared_edges},
      {"varyings", test_varyings},
      {"noperspective_clipped", test_noperspective_clipped},
      {"depth_cull_query", test_depth_cull_query},
      {"strip_fan_clip", test_strip_fan_clip},
      {"textures", test_textures},
      {"desc_cache", test_desc_cache},
      {"tex_linear_stride", test_tex_linear_stride},
      {"msaa", test_msaa},
      {"lines", test_lines},
      {"faults", test_faults},
      {"stencil_zs_io", test_stencil},
      {"depth_quantize", test_depth_quantize},
      {"points", test_points},
      {"clip_distances", test_clip_distances},
      {"mipmaps", test_mipmaps},
      {"tex_fast_sampling", test_tex_fast_sampling},
      {"tex_3d_array", test_tex_3d_array},
      {"tex_cube", test_tex_cube},
      {"formats", test_formats},
      {"tex_int_sampling", test_tex_int_sampling},
      {"frag_outputs", test_frag_outputs},
      {"clip_view_volume", test_clip_view_volume},
      {"sr_rows", test_sr_rows},
      {"binning", test_binning},
      {"bad_geometry", test_bad_geometry},
      {"fast_tile", test_fast_tile},
      {"fast_io", test_fast_io},
      {"fast_raster", test_fast_raster},
      {"fast_depth", test_fast_depth},
      {"fast_ld_tile", test_fast_ld_tile},
      {"hsr", test_hsr},
      {"fill_modes", test_fill_modes},
      {"edge_flags", test_edge_flags},
      {"point_size_min", test_point_size_min},
      {"cube_lod", test_cube_lod},
      {"shadow_ref_clamp", test_shadow_ref_clamp},
      {"big_draws", test_big_draws},
      {"geometry_budget", test_geometry_budget},
   };
   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      int before = t_failures;
      brk_ = 0;
      tests[i].fn();
      printf("%s %s\n", t_failures == before ? "ok  " : "FAIL", tests[i].name);
   }
   printf("%d checks, %d failures\n", t_checks, t_failures);
   vagx_render_device_destroy(dev);
   free(mem);
   return t_failures ? 1 : 0;
}
