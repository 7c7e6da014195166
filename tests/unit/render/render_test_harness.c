/* SPDX-License-Identifier: MIT */
/*
 * The harness of test_render (render_test_harness.h): the memory and check
 * counters shared by its files, the runner, the reference coverage, and the
 * helpers of several subjects (depth/stencil image access, full-screen
 * draws, a paged translation with holes); the job builder is
 * render_test_draw.c.
 */
#define RENDER_TEST_MEM_DEFINE
#include "render_test_harness.h"

/* The check counters of vagx_check.h, one pair for the whole program. */
int t_checks, t_failures;

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

/* Serial pool emulating N workers round-robin (exercises worker indices);
 * with run_reverse, the items run last first, as a pool may finish them. */
bool run_reverse;
static void rr_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   unsigned nw = *(unsigned *)opaque;
   for (unsigned k = 0; k < n; k++) {
      const unsigned i = run_reverse ? n - 1 - k : k;
      fn(ctx, i, i % nw);
   }
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
struct first_fault io_first;

static void *xlate_io(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   uint64_t s;
   uint8_t *p = xlate(ctx, va, size, access, &s);
   for (uint64_t a = va; p && a < va + size; a = (a | 4095) + 1)
      if (io_hole[(a - MEM_BASE) / 4096])
         p = NULL;
   if (!p) {
      first_fault_note(&io_first, va, access);
      return NULL;
   }
   s = 4096 - (va & 4095);
   while (s < size)
      s += 4096;
   *span = s;
   return p;
}
const struct vagx_usc_mem_ops io_ops = {.translate = xlate_io};
