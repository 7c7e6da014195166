/* SPDX-License-Identifier: MIT */
/* Render jobs a guest builds to hurt the device (issue 16): every one must
 * end -- by itself, by abort, or with an error -- within a bounded amount of
 * work, keep host memory within the job's budget, and never read outside
 * what the renderer owns.  Each case failed before its fix:
 *   unstoppable_draws  item 1: empty vertex groups / discarded batches
 *                      skipped the abort check (ran 2^64 steps)
 *   tile_safepoints    item 5: a tile of many primitives passed one safepoint
 *   budget_binds_draws item 3: draws, binds and programs were not charged
 *   grad_registers     item 2: tex .grad read past the register file (ASan)
 *   bad_positions      item 8: NaN window positions became INT64_MIN (UBSan)
 *   nan_lod            item 9: a NaN LOD picked a level below base_level */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "render.h"
#include "vagx_asm.h"
#include "vagx_layout.h"

#include "vagx_check.h"

#define MEM_SIZE (16u << 20)
#include "render_test_job.h"

/* ---- environment: per-thread contexts that count safepoints ---- */
#define NWORKERS 2
struct tctx {
   unsigned index;
   _Atomic uint64_t safepoints;
};
static struct tctx ctxs[NWORKERS + 1];

static void *ctx_xlate(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   return xlate(ctx, va, size, access, span);
}
static bool ctx_safepoint(void *ctx)
{
   atomic_fetch_add(&((struct tctx *)ctx)->safepoints, 1);
   return true;
}
static const struct vagx_usc_mem_ops ctx_ops = {.translate = ctx_xlate, .safepoint = ctx_safepoint};
static void *mem_ctx(void *opaque, unsigned worker)
{
   (void)opaque;
   return &ctxs[worker];
}

static void rr_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   (void)opaque;
   for (unsigned i = 0; i < n; i++)
      fn(ctx, i, i % NWORKERS);
}

static struct vagx_render_device *dev;
static vagx_usc_abort_t abort_flag;

struct runner {
   uint64_t job;
   struct vagx_render_fault f;
   enum vagx_job_status st;
   _Atomic bool done;
};

static void *runner_main(void *arg)
{
   struct runner *r = arg;
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = &ctx_ops;
   env.mem_ctx = mem_ctx;
   env.run = rr_run;
   env.nworkers = NWORKERS;
   env.abort = &abort_flag;
   r->st = vagx_render_run(dev, &env, r->job, &r->f);
   atomic_store(&r->done, true);
   return NULL;
}

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs the job on a thread; sets the abort flag after abort_after_s (< 0:
 * never) and gives it limit_s in all.  A job still running then can only be
 * abandoned: the test reports it and exits. */
static enum vagx_job_status run_bounded(uint64_t job, struct vagx_render_fault *f,
                                        double abort_after_s, double limit_s, const char *what)
{
   static struct runner r;
   memset(&r, 0, sizeof(r));
   r.job = job;
   atomic_store(&abort_flag, false);
   for (unsigned i = 0; i <= NWORKERS; i++) {
      ctxs[i].index = i;
      atomic_store(&ctxs[i].safepoints, 0);
   }
   pthread_t t;
   pthread_create(&t, NULL, runner_main, &r);
   const double t0 = now_s();
   while (!atomic_load(&r.done) && now_s() - t0 < limit_s) {
      if (abort_after_s >= 0 && now_s() - t0 >= abort_after_s)
         atomic_store(&abort_flag, true);
      usleep(1000);
   }
   if (!atomic_load(&r.done)) {
      CHECK(false, "%s: still running %.1f s after it started (abort set after %.2f s)", what,
            limit_s, abort_after_s);
      fprintf(stderr, "%d of %d checks failed\n", t_failures, t_checks);
      fflush(stderr);
      _exit(1);
   }
   pthread_join(t, NULL);
   *f = r.f;
   return r.st;
}

static const float black[4] = {0, 0, 0, 0}, red[4] = {1, 0, 0, 1};

/* ---------------------------------------------------------------- tests -- */

/* Item 1: an indexed draw with primitive restart at index 0 and an empty
 * index buffer reads every index as 0, i.e. a restart: no vertex group has a
 * live lane and no batch has a primitive.  count = instances = 0xffffffff is
 * 2^64 vertices.  Abort must still stop it (rasteriser discard on and off). */
static void test_unstoppable_draws(void)
{
   for (unsigned discard = 0; discard < 2; discard++) {
      brk_ = 0;
      struct vagx_cmd_rasterizer rs = rtj_rasterizer();
      rs.discard = discard;
      rtj_state(rtj_vs_const(), (const uint32_t *)red, 4, rtj_fs_const(), red, &rs);
      const uint64_t ib = alloc(64, 64);
      RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 0xffffffffu;
               v_.instance_count = 0xffffffffu; v_.index_size = VAGX_INDEX_SIZE_U32;
               v_.index_va = ib; v_.index_buffer_size = 0; v_.restart = 1; v_.restart_index = 0);
      uint64_t job = rtj_finish(black);
      struct vagx_render_fault f;
      const double t0 = now_s();
      enum vagx_job_status st = run_bounded(job, &f, 0.05, 5.0, "empty-index draw");
      CHECK(st == VAGX_JOB_STATUS_ABORTED, "discard %u: status %d", discard, st);
      CHECK(now_s() - t0 < 1.0, "discard %u: abort took %.3f s", discard, now_s() - t0);
      /* the front end passed safepoints all along (a TLB invalidation completes) */
      CHECK(atomic_load(&ctxs[NWORKERS].safepoints) > 100, "discard %u: %llu safepoints",
            discard, (unsigned long long)atomic_load(&ctxs[NWORKERS].safepoints));
   }
}

/* Item 5: one tile, many primitives each covering it: the tile's worker must
 * pass a safepoint (and abort check) at least once per primitive, not once
 * per tile. */
static void test_tile_safepoints(void)
{
   brk_ = 0;
   enum { NTRI = 3000 };
   float *v = malloc(NTRI * 3 * 16);
   static const float tri[3][4] = {{-1, -1, 0.5f, 1}, {3, -1, 0.5f, 1}, {-1, 3, 0.5f, 1}};
   for (unsigned i = 0; i < NTRI; i++)
      memcpy(&v[i * 12], tri, sizeof(tri));
   const uint64_t vb = put(v, NTRI * 3 * 16, 16);
   free(v);
   const uint32_t vu[2] = {(uint32_t)vb, (uint32_t)(vb >> 32)};
   rtj_state(rtj_vs_fetch(), vu, 2, rtj_fs_const(), red, NULL);
   RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = NTRI * 3;
            v_.instance_count = 1);
   uint64_t job = rtj_finish(black);
   struct vagx_render_fault f;
   enum vagx_job_status st = run_bounded(job, &f, -1, 60.0, "many primitives in one tile");
   uint64_t tile_sp = 0;
   for (unsigned i = 0; i < NWORKERS; i++)
      tile_sp += atomic_load(&ctxs[i].safepoints);
   CHECK(st == VAGX_JOB_STATUS_OK && rtj_px(5, 5)[0] == 255, "status %d", st);
   CHECK(tile_sp >= NTRI, "%llu safepoints in the tile phase for %u primitives",
         (unsigned long long)tile_sp, NTRI);
}

/* Item 3: what a job keeps per draw, per pipeline bind and per distinct
 * program counts against its budget; a stream of many binds and draws (here
 * of culled triangles: no primitive is ever charged) fails with
 * INVALID_COMMAND at the command that crossed it, instead of growing. */
static void test_budget_binds_draws(void)
{
   brk_ = 0;
   const uint64_t budget = 128 * 1024;
   struct vagx_cmd_rasterizer rs = rtj_rasterizer();
   rs.cull = VAGX_CULL_MODE_FRONT_AND_BACK;
   const uint64_t vs = rtj_vs_const(), fs = rtj_fs_const();
   enum { NDRAW = 100 };
   for (unsigned i = 0; i < NDRAW; i++) {
      rtj_state(vs, (const uint32_t *)red, 4, fs, red, &rs);
      RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3;
               v_.instance_count = 1);
   }
   uint64_t job = rtj_finish(black);
   vagx_render_set_geometry_budget(dev, budget);
   struct vagx_render_fault f;
   enum vagx_job_status st = run_bounded(job, &f, -1, 30.0, "many draws");
   vagx_render_set_geometry_budget(dev, 0);
   CHECK(st == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_VDM &&
            f.address >= rtj_cs_va && f.address < rtj_cs_va + 8192 * 4,
         "%u draws + binds over a %llu-byte budget: status %d unit %d address %llx", NDRAW,
         (unsigned long long)budget, st, f.unit, (unsigned long long)f.address);
   /* the budget applies per job: an empty job after it runs */
   job = rtj_finish(black);
   st = run_bounded(job, &f, -1, 30.0, "empty job");
   CHECK(st == VAGX_JOB_STATUS_OK, "empty job: %d", st);
}

/* A twiddled RGBA8 2D texture of size^2 texels and `levels` levels, every
 * texel of level lv = colour[lv]; levels base..max visible.  Returns the
 * descriptor's VA. */
static uint64_t level_texture(unsigned size, unsigned levels, unsigned base, unsigned max,
                              const uint32_t *colour)
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = l.height_px = size;
   l.depth_px = 1;
   l.levels = levels;
   l.sample_count_sa = 1;
   l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = 4;
   l.tiling = VAGX_TILING_TWIDDLED;
   vagx_layout_init(&l);
   const uint64_t texels = alloc(l.size_B, 16384);
   for (unsigned lv = 0; lv < levels; lv++)
      for (unsigned y = 0; y < l.level[lv].height_px; y++)
         for (unsigned x = 0; x < l.level[lv].width_px; x++)
            memcpy((uint8_t *)ptr(texels) + vagx_layout_offset_B(&l, lv, 0, x, y), &colour[lv], 4);
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = VAGX_FORMAT_RGBA8_UNORM;
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
   t.width = t.height = size;
   t.depth = 1;
   t.levels = levels;
   t.base_level = base;
   t.max_level = max;
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.base_va = texels;
   const uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   return va;
}

/* One full-screen triangle shaded by fragment program fs (uniforms uni,
 * gpr_count gprs) sampling texture tex with sampler smp; runs the job and
 * returns its status, with the pixel at (3, 3) in *px33. */
static enum vagx_job_status textured_fullscreen(uint64_t fs, const uint32_t *uni, unsigned nuni,
                                                unsigned gprs, uint64_t tex, uint64_t smp,
                                                uint32_t *px33)
{
   static const float tri[3][4] = {{-1, -1, 0.5f, 1}, {3, -1, 0.5f, 1}, {-1, 3, 0.5f, 1}};
   const uint64_t vb = put(tri, sizeof(tri), 16);
   const uint32_t vu[2] = {(uint32_t)vb, (uint32_t)(vb >> 32)};
   RTJ_EMIT(cmd_bind_vertex_pipeline, rtj_prog(&v_.program, rtj_vs_fetch(), vu, 2));
   RTJ_EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; rtj_prog(&v_.program, fs, uni, nuni);
            v_.program.gpr_count = gprs;
            v_.program.texture_va = tex; v_.program.texture_count = 1;
            v_.program.sampler_va = smp; v_.program.sampler_count = 1);
   rtj_fixed_state(NULL);
   RTJ_EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
   const uint64_t job = rtj_finish(black);
   struct vagx_render_fault f;
   const enum vagx_job_status st = run_bounded(job, &f, -1, 30.0, "textured draw");
   memcpy(px33, rtj_px(3, 3), 4);
   return st;
}

static uint64_t plain_sampler(enum vagx_mip_filter mip)
{
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.mip_filter = mip;
   s.max_lod = 1000;
   const uint64_t va = alloc(32, 32);
   vagx_sampler_pack(ptr(va), &s);
   return va;
}

/* Item 2: tex .grad with the gradients at the top of the register file the
 * program names (r30..r33 of a 2D grad): the file must hold them. */
static void test_grad_registers(void)
{
   brk_ = 0;
   static const uint32_t texel = 0xff00ff00u;
   const uint64_t tex = level_texture(1, 1, 0, 0, &texel);
   const uint64_t fs = assemble("mov r0, #0x3f000000\nmov r1, #0x3f000000\n"
                                "tex.grad.t0.s0.2d r4, r0, r30, r0\n"
                                "st_tile.rt0 r4, #0\nend\n");
   /* gpr_count allows r33: the descriptor check passes, the file must too */
   uint32_t got;
   enum vagx_job_status st =
      textured_fullscreen(fs, NULL, 0, 34, tex, plain_sampler(VAGX_MIP_FILTER_NONE), &got);
   CHECK(st == VAGX_JOB_STATUS_OK && got == texel, "grad at r30: status %d pixel %08x", st, got);
}

/* Item 8: a viewport the fixed-point rasteriser cannot represent positions
 * of (infinite or NaN scale) drops the primitives it makes NaN and clamps
 * the rest: lines, points and polygon-mode triangles all end OK, drawing
 * nothing NaN-positioned and nothing outside the framebuffer. */
static void test_bad_positions(void)
{
   static const float scales[] = {INFINITY, -INFINITY, NAN, 3e38f};
   static const enum vagx_primitive prims[] = {VAGX_PRIMITIVE_LINES, VAGX_PRIMITIVE_POINTS,
                                               VAGX_PRIMITIVE_TRIANGLES};
   for (unsigned si = 0; si < 4; si++)
      for (unsigned pi = 0; pi < 3; pi++)
         for (unsigned mode = 0; mode < 2; mode++) {
            brk_ = 0;
            /* x = 0 at the first vertex: 0 * inf is NaN there */
            float v[3][4] = {{0, 0.25f, 0.5f, 1}, {0.5f, 0.5f, 0.5f, 1}, {0.25f, -0.5f, 0.5f, 1}};
            const uint64_t vb = put(v, sizeof(v), 16);
            const uint32_t vu[2] = {(uint32_t)vb, (uint32_t)(vb >> 32)};
            uint32_t c[4];
            memcpy(c, red, 16);
            RTJ_EMIT(cmd_bind_vertex_pipeline, rtj_prog(&v_.program, rtj_vs_fetch(), vu, 2));
            RTJ_EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1;
                     rtj_prog(&v_.program, rtj_fs_const(), c, 4));
            RTJ_EMIT(cmd_viewport, v_.scale_x = scales[si]; v_.offset_x = 16; v_.scale_y = 16;
                     v_.offset_y = 16; v_.scale_z = 1; v_.max_depth = 1);
            RTJ_EMIT(cmd_scissor, v_.max_x = rtj_w; v_.max_y = rtj_h);
            struct vagx_cmd_rasterizer rs = rtj_rasterizer();
            if (mode)
               rs.fill_front = rs.fill_back = VAGX_FILL_MODE_LINE;
            RTJ_EMIT(cmd_rasterizer, v_ = rs);
            RTJ_EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
            RTJ_EMIT(cmd_draw, v_.primitive = prims[pi]; v_.count = prims[pi] == VAGX_PRIMITIVE_LINES ? 2 : 3;
                     v_.instance_count = 1);
            uint64_t job = rtj_finish(black);
            struct vagx_render_fault f;
            enum vagx_job_status st = run_bounded(job, &f, -1, 30.0, "bad positions");
            CHECK(st == VAGX_JOB_STATUS_OK, "scale %g prim %d mode %u: status %d", scales[si],
                  prims[pi], mode, st);
         }
}

/* Item 9: tex .lod with a NaN LOD samples as LOD 0: the base level (1 here),
 * never a level below base_level (the old conversion gave level 0). */
static void test_nan_lod(void)
{
   brk_ = 0;
   static const uint32_t level_colour[3] = {0xff0000ffu, 0xff00ff00u, 0xffff0000u};
   const uint64_t tex = level_texture(4, 3, 1, 2, level_colour);
   const uint32_t nan_bits = 0x7fc00000u;
   const uint64_t fs = assemble("mov r0, #0x3f000000\nmov r1, #0x3f000000\n"
                                "tex.lod.t0.s0.2d r4, r0, u0, r0\n"
                                "st_tile.rt0 r4, #0\nend\n");
   for (unsigned mip = 0; mip < 2; mip++) {
      uint32_t got;
      enum vagx_job_status st = textured_fullscreen(
         fs, &nan_bits, 1, 32, tex,
         plain_sampler(mip ? VAGX_MIP_FILTER_LINEAR : VAGX_MIP_FILTER_NEAREST), &got);
      CHECK(st == VAGX_JOB_STATUS_OK && got == level_colour[1],
            "NaN LOD, mip filter %u: status %d pixel %08x (base level %08x)", mip, st, got,
            level_colour[1]);
   }
}

/* Arguments: names of the cases to run (default: all). */
int main(int argc, char **argv)
{
   mem = calloc(1, MEM_SIZE);
   dev = vagx_render_device_create();
   if (!mem || !dev)
      return 2;
   struct {
      const char *name;
      void (*fn)(void);
   } tests[] = {
      {"unstoppable_draws", test_unstoppable_draws},
      {"tile_safepoints", test_tile_safepoints},
      {"budget_binds_draws", test_budget_binds_draws},
      {"grad_registers", test_grad_registers},
      {"bad_positions", test_bad_positions},
      {"nan_lod", test_nan_lod},
   };
   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      bool wanted = argc < 2;
      for (int a = 1; a < argc; a++)
         wanted |= !strcmp(argv[a], tests[i].name);
      if (!wanted)
         continue;
      const int before = t_failures;
      tests[i].fn();
      printf("%s %s\n", t_failures == before ? "ok  " : "FAIL", tests[i].name);
   }
   vagx_render_device_destroy(dev);
   free(mem);
   printf("%d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
