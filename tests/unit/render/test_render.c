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
#include "vagx_asm.h"
#include "vagx_layout.h"

static int failures, checks;
#define CHECK(c, ...)                                                                  \
   do {                                                                                \
      checks++;                                                                        \
      if (!(c)) {                                                                      \
         failures++;                                                                   \
         fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
         fprintf(stderr, __VA_ARGS__);                                                 \
         fputc('\n', stderr);                                                          \
      }                                                                                \
   } while (0)

/* ------------------------------------------------------------ memory -- */
#define MEM_BASE 0x100000000ull
#define MEM_SIZE (64u << 20)
static uint8_t *mem;
static uint64_t brk_;

static void *xlate(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   (void)ctx;
   (void)access;
   if (va < MEM_BASE || va + size > MEM_BASE + MEM_SIZE || va + size < va)
      return NULL;
   *span = MEM_BASE + MEM_SIZE - va;
   return mem + (va - MEM_BASE);
}
static const struct vagx_usc_mem_ops mem_ops = {.translate = xlate};

static uint64_t alloc(uint64_t size, uint64_t align)
{
   brk_ = (brk_ + align - 1) & ~(align - 1);
   uint64_t va = MEM_BASE + brk_;
   brk_ += size;
   if (brk_ > MEM_SIZE) {
      fprintf(stderr, "test memory exhausted\n");
      exit(2);
   }
   memset(mem + (va - MEM_BASE), 0, size);
   return va;
}
static void *ptr(uint64_t va) { return mem + (va - MEM_BASE); }

static uint64_t put(const void *data, uint64_t size, uint64_t align)
{
   uint64_t va = alloc(size, align);
   memcpy(ptr(va), data, size);
   return va;
}

static uint64_t assemble(const char *src)
{
   static uint32_t words[8192];
   struct vagx_asm_error err;
   long n = vagx_asm_assemble(src, words, 8192, &err);
   if (n < 0) {
      fprintf(stderr, "asm error line %d: %s\n%s\n", err.line, err.msg, src);
      exit(2);
   }
   return put(words, (uint64_t)n * 4, 16);
}

/* ------------------------------------------------------------ helpers -- */
struct prog {
   uint64_t code;
   unsigned gprs;
   uint32_t uni[16];
   unsigned nuni;
   uint64_t tex, smp, img;
   unsigned ntex, nsmp, nimg;
};

static void to_usc(const struct prog *p, struct vagx_usc_program *u)
{
   vagx_usc_program_init(u);
   u->code_va = p->code;
   u->gpr_count = p->gprs ? p->gprs : 32;
   u->uniform_count = p->nuni;
   if (p->nuni)
      u->uniform_va = put(p->uni, p->nuni * 4, 4);
   u->texture_count = p->ntex;
   u->texture_va = p->tex;
   u->sampler_count = p->nsmp;
   u->sampler_va = p->smp;
   u->image_count = p->nimg;
   u->image_va = p->img;
}

/* Control stream writer. */
static uint32_t cs[16384];
static unsigned ncs;
#define EMIT(T, ...)                                                                   \
   do {                                                                                \
      struct vagx_##T v_;                                                              \
      vagx_##T##_init(&v_);                                                            \
      __VA_ARGS__;                                                                     \
      vagx_##T##_pack(&cs[ncs], &v_);                                                  \
      ncs += vagx_cmd_dwords(cs[ncs]);                                                 \
   } while (0)

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

/* Vertex shader: 4 position words + nvar words loaded from u0:u1 + id*stride. */
static uint64_t vs_code(unsigned nvar)
{
   char src[2048];
   unsigned words = 4 + nvar, stride = words * 4;
   int n = snprintf(src, sizeof(src), "imul r1, sr.vertex_id, #%u\n", stride);
   for (unsigned i = 0; i < words; i++)
      n += snprintf(src + n, sizeof(src) - n,
                    "iadd r2, r1, #%u\nld_global.b32 r%u, u0, r2\nst_var r%u, #%u\n", i * 4,
                    8 + i, 8 + i, i);
   snprintf(src + n, sizeof(src) - n, "end\n");
   return assemble(src);
}

struct job_opts {
   unsigned samples;
   float clear[4];
   bool zs;
   enum vagx_format zs_format;
   float clear_depth;
   bool depth_store;
};

static uint64_t zs_tex_va, zs_base;

/* Builds the render job around the current control stream. */
static uint64_t make_job(const struct job_opts *o)
{
   uint64_t cs_va = put(cs, ncs * 4, 16);
   unsigned samples = o->samples ? o->samples : 1;
   fb_stride = (W * 4 + 15) & ~15u;
   fb_va = alloc(fb_stride * H, 128);
   struct vagx_pbe pbe;
   vagx_pbe_init(&pbe);
   pbe.format = VAGX_FORMAT_RGBA8_UNORM;
   pbe.dimension = VAGX_DIMENSION_2D;
   pbe.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   pbe.samples = VAGX_MSAA_1X;
   pbe.width = W;
   pbe.height = H;
   pbe.depth = 1;
   pbe.levels = 1;
   pbe.stride = (uint32_t)fb_stride;
   pbe.base_va = fb_va;
   uint64_t pbe_va = alloc(32, 32);
   vagx_pbe_pack(ptr(pbe_va), &pbe);

   struct prog bg = {.code = assemble(samples == 4 ? bg4_src : bg_src), .nuni = 4};
   memcpy(bg.uni, o->clear, 16);
   struct prog eot = {.code = assemble(eot_src), .img = pbe_va, .nimg = 1};

   struct vagx_render_job rj;
   vagx_render_job_init(&rj);
   rj.width = W;
   rj.height = H;
   rj.samples = samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
   rj.rt_count = 1;
   rj.process_empty_tiles = 1;
   rj.cs_va = cs_va;
   for (unsigned i = 0; i < 8; i++)
      rj.rt_format[i] = VAGX_FORMAT_INVALID;
   rj.rt_format[0] = VAGX_FORMAT_RGBA8_UNORM;
   rj.clear_depth = o->clear_depth;
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
      zs_base = alloc(l.size_B, 16384);
      t.base_va = zs_base;
      zs_tex_va = alloc(32, 32);
      vagx_texture_pack(ptr(zs_tex_va), &t);
      rj.zs_desc_va = zs_tex_va;
      rj.depth_store = o->depth_store;
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

static enum vagx_job_status run(uint64_t job, struct vagx_render_fault *f)
{
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = &mem_ops;
   env.run = rr_run;
   env.run_opaque = &nworkers;
   env.nworkers = nworkers;
   return vagx_render_run(dev, &env, job, f);
}

static const uint8_t *px(unsigned x, unsigned y)
{
   return (const uint8_t *)ptr(fb_va) + y * fb_stride + x * 4;
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
   struct vagx_cf_binding b;
   vagx_cf_binding_init(&b);
   b.slot = slot;
   b.count = count;
   b.cf = cf;
   b.interp = in;
   uint32_t w;
   vagx_cf_binding_pack(&w, &b);
   return w;
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

static void test_varyings(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[3][2] = {{2.0, 3.0}, {60.0, 8.0}, {12.0, 61.0}};
   /* smooth r, g; flat b; linear a */
   float var[3 * 4] = {1, 0, 0.25f, 0, 0, 1, 0.5f, 0.5f, 0, 0, 0.75f, 1};
   float wv[3] = {1.0f, 3.0f, 2.0f};
   uint64_t vb = vbuf_tris(t, 3, 4, var, wv, NULL);
   struct prog fs = {.code = assemble(fs_var)};
   uint32_t cfb[4] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH),
                      binding(3, 1, 3, VAGX_INTERP_FLAT), binding(4, 1, 4, VAGX_INTERP_LINEAR)};
   emit_state(2, 1, 1, vb, &fs, cfb, 4, 5, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.sample_mask = 0xf; v_.depth_clip = 1;
        v_.provoking = VAGX_PROVOKING_VERTEX_LAST);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   uint64_t job = make_job(&o);
   struct vagx_render_fault f;
   CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "varyings status");
   unsigned bad = 0, n = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         if (!ref_inside(t, x + 0.5, y + 0.5))
            continue;
         n++;
         /* barycentrics in screen space */
         double X = x + 0.5, Y = y + 0.5;
         double d = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
         double b1 = ((X - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (Y - t[0][1])) / d;
         double b2 = ((t[1][0] - t[0][0]) * (Y - t[0][1]) - (X - t[0][0]) * (t[1][1] - t[0][1])) / d;
         double b0 = 1 - b1 - b2;
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
         ncs = 0;
         double t[6][2] = {{0, 0}, {64, 0}, {64, 64}, {0, 0}, {64, 64}, {0, 64}};
         float uv[6 * 2] = {0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1};
         uint64_t vb = vbuf_tris(t, 6, 2, uv, NULL, NULL);
         struct vagx_sampler s;
         vagx_sampler_init(&s);
         s.min_filter = s.mag_filter = filt ? VAGX_FILTER_LINEAR : VAGX_FILTER_NEAREST;
         s.wrap_s = VAGX_WRAP_REPEAT;
         s.wrap_t = VAGX_WRAP_CLAMP_TO_EDGE;
         s.max_lod = 16;
         uint64_t sva = alloc(32, 32);
         vagx_sampler_pack(ptr(sva), &s);
         struct prog fs = {.code = assemble(fs_tex), .tex = make_tex(tw, th, tl, texels), .ntex = 1,
                           .smp = sva, .nsmp = 1};
         uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
         emit_state(2, 0, 0, vb, &fs, cfb, 2, 3, false);
         draw(VAGX_PRIMITIVE_TRIANGLES, 6);
         EMIT(cmd_end);
         struct job_opts o = {.clear = {0, 0, 0, 0}};
         uint64_t job = make_job(&o);
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
      {"depth_cull_query", test_depth_cull_query},
      {"strip_fan_clip", test_strip_fan_clip},
      {"textures", test_textures},
      {"msaa", test_msaa},
      {"lines", test_lines},
      {"faults", test_faults},
   };
   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      int before = failures;
      brk_ = 0;
      tests[i].fn();
      printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
   }
   printf("%d checks, %d failures\n", checks, failures);
   vagx_render_device_destroy(dev);
   free(mem);
   return failures ? 1 : 0;
}
