/* SPDX-License-Identifier: MIT */
/*
 * Render-job throughput of the tile pipeline (qemu-device/core/render/):
 * vagx_render_run() on a 1920x1080 RGBA8 framebuffer in flat memory
 * (identity translation, as the unit tests), tiles spread over a pool of
 * worker threads, against memset() of the same bytes measured in the same
 * run.  Workloads:
 *
 *   clear     background program (constant colour) + end-of-tile store
 *   flat      the same plus a full-screen quad with a constant fragment shader
 *   small     10 000 triangles of 8 pixels each (half of a 4x4 square)
 *   textured  8 overlapping 960x540 quads, bilinear RGBA8 texture, blended in
 *             the shader with ld_tile (src*a + dst*(1-a))
 *   depth     what a GL application's frame looks like to the device: a
 *             twiddled RGBA8 colour target and a twiddled Z24S8 depth buffer
 *             (cleared, stored), a 960x540 mesh near the viewer then a full
 *             screen mesh behind it (48x27 quads of 40x40 pixels) with depth
 *             test LESS + write and interpolated colours
 *
 * Every figure is the best of REPEATS runs (default 5, 30 for the cheap clear
 * + store: the machine is shared), with 1 worker and with N; the memset
 * reference is also re-measured before every job, in the state the job finds
 * the frame in.  Results are checked, so a fast wrong
 * renderer fails the benchmark.
 *
 *   bench_render [N [REPEATS [MASK]]]   N workers for the parallel runs (default:
 *                                       CPUs); MASK: bit i runs workload i (profiling)
 *
 * BENCH_RENDER_OPTIONS=n sets vagx_render_set_options() (e.g. 6: no fast
 * paths, no HSR; 8: no span/tile I/O fast paths) to measure what an
 * optimisation buys.  BENCH_RENDER_PAGED=1 makes the translation answer as
 * the device MMU does (a span ends at the 4 KiB page), so per-page costs show.
 * BENCH_RENDER_ONCE=1 runs each selected scene once with 1 worker, no
 * reference, no rounds (for valgrind --tool=callgrind: exact instruction
 * counts on a shared machine).
 *
 * Scaling: the pools of 1, N and (oversubscribed) 4 and 8 workers run in
 * interleaved rounds; each worker's CPU and items (tiles or bands), the
 * calling thread's serial CPU (everything outside the tile phase: VDM, PPP,
 * binning, setup) and the machine's load are reported (bench_stats.h).
 */
#include "bench_stats.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "render.h"
#include "vagx_layout.h"

#define FB_W 1920
#define FB_H 1080
/* The flat memory (defined here, 96 MiB for the 1920x1080 images) and the
 * jobs built as test_render builds them (render_test_draw.c). */
#define MEM_SIZE (96u << 20)
#define RENDER_TEST_MEM_SHARED
#define RENDER_TEST_MEM_DEFINE
#include "render_test_mem.h"
#include "render_test_draw.h"

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* As the device MMU answers (core_compute.c: usc_translate): a span ends at
 * the end of the 4 KiB page (guest RAM is contiguous here, so an access
 * crossing a page is allowed). */
static void *xlate_paged(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   void *p = xlate(ctx, va, size, access, span);
   if (p) {
      uint64_t s = 4096 - (va & 4095);
      while (s < size)
         s += 4096;
      *span = s;
   }
   return p;
}
static const struct vagx_usc_mem_ops mem_ops_paged = {.translate = xlate_paged};
static bool paged;

/* ------------------------------------------------------------ pool -- */
/* As the core's parallel-for (core_render.c): the calling thread claims
 * tiles itself (worker 0) and n - 1 helper threads join when they wake up,
 * so a job never waits for a thread to be scheduled.  Items are claimed
 * from a cursor tagged with the generation, so a helper that wakes late
 * cannot run an item of the next job with the previous job's function. */
struct pool;
struct pool_arg {
   struct pool *p;
   unsigned id;
   _Atomic int tid;           /* kernel thread id, for its CPU time */
};
/* Per-worker accounting, one cache line each (no false sharing). */
struct pool_acct {
   _Alignas(64) _Atomic uint64_t items;
   double cpu;                /* worker 0 (the caller): CPU inside pool_work */
};
struct pool {
   pthread_t th[64];
   struct pool_arg args[64];
   unsigned n;                /* workers including the caller */
   pthread_mutex_t m;
   pthread_cond_t go, done_cv;
   uint32_t gen;
   bool quit;
   vagx_render_item_fn fn;
   void *ctx;
   unsigned items;
   _Atomic uint64_t cursor;   /* gen << 32 | next item */
   _Atomic unsigned done;
   struct pool_acct acct[64];
};

/* As the core's threads do (core_spin_until, core_pool.c), a helper out of
 * work and the caller waiting for the last items poll for 50 us before they
 * sleep: the geometry phase's parallel-fors come tens of microseconds
 * apart.  Polls until `ready(p, arg)`. */
static bool pool_spin(struct pool *p, bool (*ready)(struct pool *p, uint32_t arg), uint32_t arg)
{
   struct timespec t0, t;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   for (unsigned i = 1;; i++) {
      if (ready(p, arg))
         return true;
      __builtin_ia32_pause();
      if (!(i & 63)) {
         clock_gettime(CLOCK_MONOTONIC, &t);
         if ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) > 50000)
            return false;
      }
   }
}

static bool gen_moved(struct pool *p, uint32_t seen)
{
   return (uint32_t)(atomic_load(&p->cursor) >> 32) != seen;
}

static bool all_done(struct pool *p, uint32_t n)
{
   return atomic_load(&p->done) >= n;
}

/* Runs items of generation gen until none is left. */
static void pool_work(struct pool *p, uint32_t gen, vagx_render_item_fn fn, void *ctx,
                      unsigned items, unsigned id)
{
   for (;;) {
      uint64_t cur = atomic_load(&p->cursor);
      if ((uint32_t)(cur >> 32) != gen || (uint32_t)cur >= items)
         return;
      if (!atomic_compare_exchange_weak(&p->cursor, &cur, cur + 1))
         continue;
      fn(ctx, (uint32_t)cur, id);
      /* counted before `done`, so the caller sees it when the job is done */
      atomic_fetch_add_explicit(&p->acct[id].items, 1, memory_order_relaxed);
      if (atomic_fetch_add(&p->done, 1) + 1 == items) {
         pthread_mutex_lock(&p->m);
         pthread_cond_signal(&p->done_cv);
         pthread_mutex_unlock(&p->m);
      }
   }
}

static void *pool_main(void *arg)
{
   struct pool_arg *a = arg;
   struct pool *p = a->p;
   uint32_t seen = 0;
   atomic_store(&a->tid, (int)syscall(SYS_gettid));
   for (;;) {
      pool_spin(p, gen_moved, seen);
      pthread_mutex_lock(&p->m);
      while (p->gen == seen && !p->quit)
         pthread_cond_wait(&p->go, &p->m);
      if (p->quit) {
         pthread_mutex_unlock(&p->m);
         return NULL;
      }
      seen = p->gen;
      vagx_render_item_fn fn = p->fn;
      void *ctx = p->ctx;
      unsigned items = p->items;
      pthread_mutex_unlock(&p->m);
      pool_work(p, seen, fn, ctx, items, a->id);
   }
}

static void pool_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   struct pool *p = opaque;
   if (!n)
      return;
   pthread_mutex_lock(&p->m);
   p->fn = fn;
   p->ctx = ctx;
   p->items = n;
   p->gen++;
   atomic_store(&p->done, 0);
   atomic_store(&p->cursor, (uint64_t)p->gen << 32);
   const uint32_t gen = p->gen;
   if (p->n > 1)
      pthread_cond_broadcast(&p->go);
   pthread_mutex_unlock(&p->m);
   double c0 = bs_thread_cpu();
   pool_work(p, gen, fn, ctx, n, 0);
   p->acct[0].cpu += bs_thread_cpu() - c0;
   pool_spin(p, all_done, n);
   pthread_mutex_lock(&p->m);
   while (atomic_load(&p->done) < n)
      pthread_cond_wait(&p->done_cv, &p->m);
   pthread_mutex_unlock(&p->m);
}

static void pool_start(struct pool *p, unsigned n)
{
   memset(p, 0, sizeof(*p));
   p->n = n;
   pthread_mutex_init(&p->m, NULL);
   pthread_cond_init(&p->go, NULL);
   pthread_cond_init(&p->done_cv, NULL);
   for (unsigned i = 1; i < n; i++) {
      p->args[i].p = p;
      p->args[i].id = i;
      atomic_store(&p->args[i].tid, 0);
      pthread_create(&p->th[i], NULL, pool_main, &p->args[i]);
   }
}

static void pool_stop(struct pool *p)
{
   pthread_mutex_lock(&p->m);
   p->quit = true;
   pthread_cond_broadcast(&p->go);
   pthread_mutex_unlock(&p->m);
   for (unsigned i = 1; i < p->n; i++)
      pthread_join(p->th[i], NULL);
}

/* ------------------------------------------------------------ jobs -- */
/* The frame every linear job stores to (and the reference memsets): one for
 * the whole run, at the start of the memory; its rows are as far apart as
 * make_job's fb_stride (FB_W * 4 bytes is already aligned). */
static uint64_t frame_va;
static const uint32_t frame_stride = FB_W * 4;
static const float clear_rgba[4] = {0.25f, 0.5f, 0.75f, 1.0f};
#define CLEAR_PX 0xffbf8040u   /* clear_rgba as RGBA8 bytes 40 80 bf ff */

/* Vertex buffer from window positions (+ nvar varyings per vertex); z of
 * every vertex vz (0.5 when 0).  The positions go to NDC in float
 * arithmetic (test_render's vbuf_tris does it in double), as the
 * benchmark's jobs always had them. */
static float vz;
static uint64_t vbuf(const float *xy, unsigned nv, unsigned nvar, const float *var)
{
   float (*pos)[4] = malloc((size_t)nv * sizeof(*pos));
   for (unsigned i = 0; i < nv; i++) {
      pos[i][0] = xy[2 * i] / (FB_W / 2.0f) - 1.0f;
      pos[i][1] = xy[2 * i + 1] / (FB_H / 2.0f) - 1.0f;
      pos[i][2] = vz ? vz : 0.5f;
      pos[i][3] = 1.0f;
   }
   uint64_t va = vbuf_put(nv, nvar, (const float(*)[4])pos, var);
   free(pos);
   return va;
}

static void quad(float *xy, float x0, float y0, float x1, float y1)
{
   const float q[12] = {x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1};
   memcpy(xy, q, sizeof(q));
}

/* ------------------------------------------------------------ scenes -- */
enum scene { CLEAR, FLAT, SMALL, TEXTURED, DEPTH, NSCENES };
/* DEPTH: quad size in pixels; the near mesh's rectangle */
enum { MESH_Q = 40, NEAR_X = 480, NEAR_Y = 280, NEAR_W = 960, NEAR_H = 520 };
#define SMALL_TRIS 10000

/* TEXTURED: its RGBA8 texture, TEX_W x TEX_W texels of varied colour and
 * alpha. */
enum { TEX_W = 256 };
static void tex_texel(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *out)
{
   (void)lv;
   (void)layer;
   const unsigned i = y * TEX_W + x;
   const uint32_t v = (i * 37u % 256) | ((i * 91u % 256) << 8) | ((i * 13u % 256) << 16) |
                      ((64u + i % 128u) << 24);
   memcpy(out, &v, 4);
}

static uint64_t build(enum scene s)
{
   ncs = 0;
   /* as the Gallium driver binds them: every shader but the textured
    * scene's (which reads the tile to blend) is opaque */
   emit_state_opaque = s != TEXTURED;
   if (s == FLAT) {
      float xy[12];
      quad(xy, 0, 0, FB_W, FB_H);
      struct prog fs = const_fs(1.0f, 0.0f, 0.5f, 1.0f);
      emit_state(0, 0, 0, vbuf(xy, 6, 0, NULL), &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 6);
   } else if (s == SMALL) {
      /* half 4x4 squares (8 pixel centres each) on a jittered grid */
      float *xy = malloc(sizeof(float) * 6 * SMALL_TRIS);
      unsigned seed = 1;
      for (unsigned i = 0; i < SMALL_TRIS; i++) {
         seed = seed * 1103515245u + 12345u;
         float x = (float)((i % 100) * 19 + 2) + (float)((seed >> 16) % 256) / 256.0f;
         float y = (float)((i / 100) * 10 + 2) + (float)((seed >> 8) % 256) / 256.0f;
         const float t[6] = {x, y, x + 4, y, x, y + 4};
         memcpy(xy + 6 * i, t, sizeof(t));
      }
      struct prog fs = const_fs(1.0f, 1.0f, 1.0f, 1.0f);
      emit_state(0, 0, 0, vbuf(xy, 3 * SMALL_TRIS, 0, NULL), &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 3 * SMALL_TRIS);
      free(xy);
   } else if (s == TEXTURED) {
      const struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, TEX_W, TEX_W, 1, 1,
                                 0, 0, false};
      const uint64_t tva = make_texture(&td, tex_texel);
      const uint64_t sva = make_sampler(VAGX_FILTER_LINEAR, VAGX_FILTER_LINEAR, VAGX_MIP_FILTER_NONE,
                                        VAGX_WRAP_REPEAT, 0, 16, 0);
      struct prog fs = {.code = assemble(
                           "iter.center.persp r4, cf1, cf0, r0\niter.center.persp r5, cf2, cf0, r0\n"
                           "tex.auto.t0.s0.2d r0, r4, r0, r0\nld_tile.rt0 r8, #0\n"
                           "fadd r12, -r3, #1.0\nfmul r8, r8, r12\nfmul r9, r9, r12\n"
                           "fmul r10, r10, r12\nffma r0, r0, r3, r8\nffma r1, r1, r3, r9\n"
                           "ffma r2, r2, r3, r10\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n"),
                        .tex = tva, .ntex = 1, .smp = sva, .nsmp = 1};
      float xy[8 * 12], uv[8 * 12];
      for (unsigned q = 0; q < 8; q++) {
         float x0 = (float)(q % 4) * 320.0f, y0 = (float)(q / 4) * 540.0f;
         quad(xy + 12 * q, x0, y0, x0 + 960, y0 + 540);
         quad(uv + 12 * q, 0, 0, 3.75f, 2.1f);   /* ~1 texel per pixel, repeated */
      }
      uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH)};
      emit_state(2, 0, 0, vbuf(xy, 48, 2, uv), &fs, cfb, 2, 3, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 48);
   } else if (s == DEPTH) {
      /* two meshes of MESH_Q-pixel quads with per-vertex colours: near
       * (z 0.25) over the centre, then the whole screen behind (z 0.75) */
      const char *fs_src = "iter.center.persp r0, cf1, cf0, r0\niter.center.persp r1, cf2, cf0, r0\n"
                           "iter.center.persp r2, cf3, cf0, r0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n";
      struct prog fs = {.code = assemble(fs_src)};
      uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
      for (unsigned layer = 0; layer < 2; layer++) {
         const unsigned x0 = layer ? 0 : NEAR_X, y0 = layer ? 0 : NEAR_Y;
         const unsigned w = layer ? FB_W : NEAR_W, h = layer ? FB_H : NEAR_H;
         const unsigned nx = (w + MESH_Q - 1) / MESH_Q, ny = (h + MESH_Q - 1) / MESH_Q;
         float *xy = malloc(sizeof(float) * 12 * nx * ny), *col = malloc(sizeof(float) * 18 * nx * ny);
         for (unsigned q = 0; q < nx * ny; q++) {
            const float qx = (float)(x0 + q % nx * MESH_Q), qy = (float)(y0 + q / nx * MESH_Q);
            quad(xy + 12 * q, qx, qy, qx + MESH_Q, qy + MESH_Q);
            for (unsigned v = 0; v < 6; v++) {
               const float *p = xy + 12 * q + 2 * v;
               col[18 * q + 3 * v + 0] = p[0] / FB_W;
               col[18 * q + 3 * v + 1] = p[1] / FB_H;
               col[18 * q + 3 * v + 2] = layer ? 0.25f : 1.0f;
            }
         }
         vz = layer ? 0.75f : 0.25f;
         emit_state(3, 0, 0, vbuf(xy, 6 * nx * ny, 3, col), &fs, cfb, 2, 4, false);
         vz = 0;
         EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
              v_.depth_func = VAGX_COMPARE_FUNC_LESS);
         draw(VAGX_PRIMITIVE_TRIANGLES, 6 * nx * ny);
         free(xy);
         free(col);
      }
   }
   EMIT(cmd_end);
   /* cleared to clear_rgba, stored to the frame; DEPTH: a twiddled colour
    * target and a twiddled Z24S8 depth buffer cleared to 1 and stored */
   struct job_opts o = {.clear_depth = 1.0f, .fb_va = frame_va};
   memcpy(o.clear, clear_rgba, sizeof(o.clear));
   if (s == DEPTH) {
      o.pbe_twiddled = o.zs = o.depth_store = true;
      o.zs_format = VAGX_FORMAT_Z24_UNORM_S8_UINT;
   }
   return make_job(&o);
}

static struct vagx_render_device *dev;

static double run_job(uint64_t job, struct pool *p)
{
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = paged ? &mem_ops_paged : &mem_ops;
   env.run = pool_run;
   env.run_opaque = p;
   env.nworkers = p->n;
   struct vagx_render_fault f;
   double t0 = now_s();
   enum vagx_job_status st = vagx_render_run(dev, &env, job, &f);
   double t = now_s() - t0;
   if (st != VAGX_JOB_STATUS_OK) {
      fprintf(stderr, "bench_render: job failed with %s (unit %d, address 0x%llx)\n",
              vagx_job_status_name(st), f.unit, (unsigned long long)f.address);
      exit(1);
   }
   return t;
}

/* One job on pool p, accounted: the caller's CPU inside the tile phase is
 * worker 0's, the rest of its CPU is the serial part (setup, VDM, PPP,
 * binning, queries); the helpers' CPU comes from /proc (read before and
 * after the job, outside the timed region). */
static void run_rep(uint64_t job, struct pool *p, struct bs_run *tot, unsigned ncpu)
{
   struct bs_run rep;
   struct bs_snap s0, s1;
   uint64_t items0[64];
   bs_run_init(&rep, p->n);
   for (unsigned i = 0; i < p->n; i++)
      items0[i] = atomic_load(&p->acct[i].items);
   bs_snap(&s0);
   const double par0 = p->acct[0].cpu, m0 = bs_thread_cpu();
   rep.wall = run_job(job, p);
   const double m1 = bs_thread_cpu(), par = p->acct[0].cpu - par0;
   bs_snap(&s1);
   rep.units = 1;
   rep.serial_cpu = (m1 - m0) - par;
   rep.nw = p->n;
   double cpu, wait;
   if (bs_task_delta(&s0, &s1, getpid(), &cpu, &wait))
      rep.main_wait = wait;
   rep.w_cpu[0] = par;
   for (unsigned i = 1; i < p->n; i++)
      if (bs_task_delta(&s0, &s1, atomic_load(&p->args[i].tid), &cpu, &wait)) {
         rep.w_cpu[i] = cpu;
         rep.w_wait[i] = wait;
      }
   for (unsigned i = 0; i < p->n; i++)
      rep.w_units[i] = (double)(atomic_load(&p->acct[i].items) - items0[i]);
   bs_run_add(tot, &rep, ncpu);
}

/* Pixels of the framebuffer equal to v. */
static unsigned long count_px(uint32_t v)
{
   const uint32_t *p = ptr(frame_va);
   unsigned long n = 0;
   for (size_t i = 0; i < (size_t)FB_W * FB_H; i++)
      n += p[i] == v;
   return n;
}

static bool check(enum scene s)
{
   const unsigned long all = (unsigned long)FB_W * FB_H;
   switch (s) {
   case CLEAR: return count_px(CLEAR_PX) == all;
   case FLAT: return count_px(0xff8000ffu) == all;
   case SMALL: {
      /* the triangles do not overlap: one lit pixel per fragment, and each
       * half 4x4 square holds 6 to 10 pixel centres */
      struct vagx_render_stats st;
      vagx_render_get_stats(dev, &st);
      const unsigned long lit = count_px(0xffffffffu);
      return lit == st.fragment_lanes && lit >= 6ul * SMALL_TRIS && lit <= 10ul * SMALL_TRIS;
   }
   case TEXTURED: return count_px(CLEAR_PX) == 0;  /* every pixel blended at least once */
   case DEPTH: {
      /* every pixel of make_job's twiddled target (fb_va) drawn; its depth
       * image (zs_base) holds the near mesh's 0.25 over its rectangle and
       * the far mesh's 0.75 elsewhere (Z24: 0.25 * (2^24 - 1) rounded) */
      const uint32_t *c = ptr(fb_va), *z = ptr(zs_base);
      unsigned long nclear = 0, nnear = 0, nfar = 0;
      for (size_t i = 0; i < fb_layout.size_B / 4; i++)
         nclear += c[i] == CLEAR_PX;
      for (size_t i = 0; i < zs_layout.size_B / 4; i++) {
         nnear += (z[i] & 0xffffff) == 4194304u;
         nfar += (z[i] & 0xffffff) == 12582911u;
      }
      const unsigned long near = (unsigned long)NEAR_W * NEAR_H;
      return nclear == 0 && nnear == near && nfar == all - near;
   }
   default: return false;
   }
}

int main(int argc, char **argv)
{
   unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
   unsigned reps = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
   unsigned mask = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : ~0u;
   if (n < 1 || n > 64)
      n = 2;
   if (reps < 1)
      reps = 1;
   mem = calloc(1, MEM_SIZE);
   dev = vagx_render_device_create();
   if (!mem || !dev)
      return 1;
   paged = getenv("BENCH_RENDER_PAGED") && atoi(getenv("BENCH_RENDER_PAGED"));
   if (getenv("BENCH_RENDER_OPTIONS"))
      vagx_render_set_options(dev, (unsigned)strtoul(getenv("BENCH_RENDER_OPTIONS"), NULL, 0));
   W = FB_W;
   H = FB_H;
   frame_va = alloc((uint64_t)frame_stride * FB_H, 4096);
   const size_t bytes = (size_t)frame_stride * FB_H;

   /* reference: memset of the frame, same bytes, best of reps */
   double tm = 1e30;
   for (unsigned r = 0; r < reps * 4; r++) {
      double t0 = now_s();
      memset(ptr(frame_va), 0x40 + (int)r, bytes);
      __asm__ volatile("" ::: "memory");
      tm = fmin(tm, now_s() - t0);
   }

   double loadavg[3] = {0, 0, 0};
   if (getloadavg(loadavg, 3) < 0)
      loadavg[0] = -1;
   printf("render jobs, %ux%u RGBA8 (%.1f MB), best of %u, load average %.2f%s\n", FB_W, FB_H,
          bytes / 1e6, reps, loadavg[0], paged ? ", translation per 4 KiB page" : "");

   static const char *names[NSCENES] = {"clear + store", "flat full-screen quad",
                                        "10k small triangles", "textured + blended",
                                        "depth, twiddled"};
   enum { MAXCFG = BS_MAX_CONFIGS };
   unsigned workers[MAXCFG];
   const unsigned ncfg = bs_configs(n, workers);
   const unsigned ncpu = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
   static struct pool pools[MAXCFG];
   for (unsigned w = 0; w < ncfg; w++)
      pool_start(&pools[w], workers[w]);
   int status = 0;
   bool first = true;
   for (unsigned s = 0; s < NSCENES; s++) {
      if (!(mask >> s & 1))
         continue;
      brk_ = ((frame_va - MEM_BASE) + bytes + 4095) & ~4095ull;
      uint64_t job = build(s);
      if (getenv("BENCH_RENDER_ONCE") && atoi(getenv("BENCH_RENDER_ONCE"))) {
         run_job(job, &pools[0]);
         printf("  %-24s %s\n", names[s], check(s) ? "ok" : "WRONG IMAGE");
         status |= !check(s);
         continue;
      }
      struct bs_run runs[MAXCFG];
      struct vagx_render_stats st;
      for (unsigned w = 0; w < ncfg; w++) {
         memset(ptr(frame_va), 0, bytes);
         run_job(job, &pools[w]); /* warm-up: program decode, page faults */
         if (!check(s)) {
            fprintf(stderr, "bench_render: %s: wrong image with %u workers\n", names[s],
                    workers[w]);
            status = 1;
         }
         bs_run_init(&runs[w], workers[w]);
      }
      /* interleaved rounds: drifting load hits every configuration alike */
      struct bs_window win;
      bs_window_begin(&win);
      const unsigned rounds = s == CLEAR && reps < 30 ? 30 : reps; /* cheap: more rounds */
      for (unsigned r = 0; r < rounds; r++)
         for (unsigned w = 0; w < ncfg; w++) {
            /* The reference again, in the state a job finds the frame in
             * (last written by the previous configuration's threads), and
             * each job finds it as memset left it. */
            double t0 = now_s();
            memset(ptr(frame_va), 0x40 + (int)r, bytes);
            __asm__ volatile("" ::: "memory");
            tm = fmin(tm, now_s() - t0);
            run_rep(job, &pools[w], &runs[w], ncpu);
         }
      bs_window_end(&win);
      vagx_render_get_stats(dev, &st);
      if (first) /* the best memset so far, also measured between the jobs */
         printf("  memset of the frame (reference)  %8.3f ms  %7.2f GB/s\n", tm * 1e3,
                bytes / tm / 1e9);
      first = false;
      const double t[2] = {runs[0].wall_best, runs[ncfg > 1].wall_best};
      printf("  %-24s 1 worker %8.3f ms (x%.2f memset)  %u workers %8.3f ms (x%.2f memset, "
             "scaling x%.2f)\n", names[s], t[0] * 1e3, t[0] / tm, n, t[1] * 1e3, t[1] / tm,
             t[0] / t[1]);
      if (s == SMALL)
         printf("  %-24s %.2f M triangles/s (1 worker), %.2f M (%u workers)\n", "",
                SMALL_TRIS / t[0] / 1e6, SMALL_TRIS / t[1] / 1e6, n);
      if (st.fragment_lanes)
         printf("  %-24s %.1f M fragments/s (1 worker), %.1f M (%u workers); %llu fragments, "
                "%llu bin entries\n", "", st.fragment_lanes / t[0] / 1e6,
                st.fragment_lanes / t[1] / 1e6, n, (unsigned long long)st.fragment_lanes,
                (unsigned long long)st.bin_entries);
      printf("    scaling (%u CPUs, %u interleaved rounds; CPU per frame, best round; items are "
             "tiles or bands of tiles):\n", ncpu, rounds);
      for (unsigned w = 0; w < ncfg; w++)
         bs_print("      ", "frame", 1e3, "ms", "item", &runs[0], &runs[w], ncpu);
      bs_print_machine("      ", &win, ncpu);
   }
   for (unsigned w = 0; w < ncfg; w++)
      pool_stop(&pools[w]);
   vagx_render_device_destroy(dev);
   free(mem);
   return status;
}
