/* SPDX-License-Identifier: MIT */
/*
 * The harness of test_render (render_test_harness.h): the state shared by
 * its files (control stream, framebuffer, last job's images), the job
 * builder and runner, the state and geometry emitters, the reference
 * coverage, and the helpers of several subjects (depth/stencil image access,
 * textures, a paged translation with holes).
 */
#define RENDER_TEST_MEM_DEFINE
#include "render_test_harness.h"

/* The check counters of vagx_check.h, one pair for the whole program. */
int t_checks, t_failures;

/* Control stream writer. */
uint32_t cs[16384];
unsigned ncs;

/* Framebuffer */
unsigned W = 64, H = 64;
uint64_t fb_va, fb_stride;

static const char *bg_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nend\n";
static const char *bg4_src =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
   "st_tile.rt0 r0, #0\nst_tile.rt0 r0, #1\nst_tile.rt0 r0, #2\nst_tile.rt0 r0, #3\nend\n";
static const char *eot_src =
   "mov r4, sr.pix_x\nmov r5, sr.pix_y\nld_tile.rt0 r0, #0\n"
   "img_st.i0.2d r4, r0, #0\nend\n";

struct vagx_layout fb_layout;   /* make_job with pbe_twiddled */

uint64_t zs_tex_va, zs_base;
struct vagx_pbe last_pbe;   /* end-of-tile PBE of the last make_job */
uint64_t last_pbe_va;
struct vagx_layout zs_layout;
unsigned fb_bpp = 4;

/* Builds the render job around the current control stream. */
uint64_t make_job(const struct job_opts *o)
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

uint64_t assemblef(const char *fmt, ...)
{
   char src[4096];
   va_list ap;
   va_start(ap, fmt);
   const int n = vsnprintf(src, sizeof(src), fmt, ap);
   va_end(ap);
   if (n < 0 || (size_t)n >= sizeof(src)) {
      fprintf(stderr, "assemblef: program longer than %zu bytes\n", sizeof(src));
      exit(2);
   }
   return assemble(src);
}

/* Serial pool emulating N workers round-robin (exercises worker indices). */
static void rr_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   unsigned nw = *(unsigned *)opaque;
   for (unsigned i = 0; i < n; i++)
      fn(ctx, i, i % nw);
}

struct vagx_render_device *dev;
unsigned nworkers = 3;
const struct vagx_usc_mem_ops *run_mem = &mem_ops;   /* translation of run() */

enum vagx_job_status run(uint64_t job, struct vagx_render_fault *f)
{
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = run_mem;
   env.run = rr_run;
   env.run_opaque = &nworkers;
   env.nworkers = nworkers;
   return vagx_render_run(dev, &env, job, f);
}

/* Ends the control stream and runs the job make_job(o) builds around it. */
enum vagx_job_status run_stream(const struct job_opts *o, struct vagx_render_fault *f)
{
   EMIT(cmd_end);
   return run(make_job(o), f);
}

const uint8_t *px(unsigned x, unsigned y)
{
   return (const uint8_t *)ptr(fb_va) + y * fb_stride + x * fb_bpp;
}

void save_ppm(const char *name)
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
void emit_state(unsigned nvar_smooth, unsigned nvar_flat, unsigned nvar_linear,
                uint64_t vbuf, const struct prog *fs, const uint32_t *cfb, unsigned ncfb,
                unsigned ncf, bool z_slot)
{
   struct prog vs = vs_prog(nvar_smooth + nvar_flat + nvar_linear, vbuf);
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

uint32_t binding(unsigned slot, unsigned count, unsigned cf, enum vagx_interp in)
{
   return t_cf_binding(slot, count, cf, in);
}

/* Pixel (window) -> ndc for the viewport above. */
float ndcx(double x) { return (float)(x / (W / 2.0) - 1.0); }
float ndcy(double y) { return (float)(y / (H / 2.0) - 1.0); }

/* Reference coverage: pixel centre inside triangle (window coords). */
static bool ref_edge(double ax, double ay, double bx, double by, double px_, double py_)
{
   double e = (bx - ax) * (py_ - ay) - (by - ay) * (px_ - ax);
   if (e != 0)
      return e > 0;
   double dy = by - ay, dx = bx - ax;
   return dy < 0 || (dy == 0 && dx > 0);
}
bool ref_inside(const double t[3][2], double x, double y)
{
   double a = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
   int i1 = a > 0 ? 1 : 2, i2 = a > 0 ? 2 : 1;
   if (a == 0)
      return false;
   return ref_edge(t[0][0], t[0][1], t[i1][0], t[i1][1], x, y) &&
          ref_edge(t[i1][0], t[i1][1], t[i2][0], t[i2][1], x, y) &&
          ref_edge(t[i2][0], t[i2][1], t[0][0], t[0][1], x, y);
}

uint64_t vbuf_tris(const double (*t)[2], unsigned nv, unsigned nvar, const float *var,
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

void draw(enum vagx_primitive prim, unsigned count)
{
   EMIT(cmd_draw, v_.primitive = prim; v_.count = count; v_.instance_count = 1);
}

const char *fs_const =
   "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\nst_tile.rt0 r0, #0\nend\n";

struct prog const_fs(float r, float g, float b, float a)
{
   struct prog p = {.code = assemble(fs_const), .nuni = 4};
   float c[4] = {r, g, b, a};
   memcpy(p.uni, c, 16);
   return p;
}

/* Additive FS: R += 1/255 per hit (in-shader blending via the tile buffer). */
const char *fs_count =
   "ld_tile.rt0 r0, #0\nfadd r0, r0, #0x3b808081\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n";

void rect_tris(double (*t)[2], int x0, int y0, int x1, int y1, bool ccw)
{
   double v[6][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}, {x1, y1}, {x0, y1}};
   for (unsigned i = 0; i < 6; i++) {
      unsigned k = ccw ? (i % 3 == 1 ? i + 1 : i % 3 == 2 ? i - 1 : i) : i;
      t[i][0] = v[k][0];
      t[i][1] = v[k][1];
   }
}

struct vagx_stencil_face sface(enum vagx_compare_func f, enum vagx_stencil_op fail,
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
uint32_t enc_unorm(double v, unsigned bits)
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
void zs_put(enum vagx_format f, unsigned x, unsigned y, double d, uint8_t st)
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
void zs_get(enum vagx_format f, unsigned x, unsigned y, uint32_t *draw, uint8_t *st)
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
uint32_t zs_enc(enum vagx_format f, double d)
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

/* ------------------------------------------------------------ textures II -- */
/* Builds a texture whose texel (level, layer, x, y) has the bytes fill()
 * returns; returns the descriptor VA. */
struct vagx_layout tex_layout; /* of the last make_texture */
uint64_t tex_base;

uint64_t make_texture(const struct texdesc *d,
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

/* The job of a full-screen quad with fragment shader fs (no varyings). */
uint64_t fullscreen_job(const struct prog *fs, const struct job_opts *o)
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
enum vagx_job_status draw_fullscreen(const struct prog *fs, const struct job_opts *o)
{
   uint64_t job = fullscreen_job(fs, o);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   if (st != VAGX_JOB_STATUS_OK)
      fprintf(stderr, "  job status %d unit %d addr %#llx\n", st, f.unit, (unsigned long long)f.address);
   return st;
}

/* A translation that answers page by page like the device MMU, with the
 * pages of io_hole unmapped, and records the first fault as the core's MMU
 * context does (probes are not recorded). */
bool io_hole[MEM_SIZE / 4096];
struct io_fault io_first;

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
const struct vagx_usc_mem_ops io_ops = {.translate = xlate_io};
