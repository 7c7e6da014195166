/* SPDX-License-Identifier: MIT */
/*
 * In-process fuzzer of the renderer core (issue 16), built with
 * -fsanitize=address,undefined against the sanitized core library.
 *
 * It drives the whole device as a guest would: a fake guest RAM with page
 * tables (tests/unit/core/core_test.h), a ring, and per iteration one of
 *   - a render job built valid (render_test_job.h: random topology, counts up
 *     to 2^32 x 2^32, indices, restart, viewport, rasterizer, polygon modes,
 *     textures sampled in every mode, queries), then mutated: random dwords
 *     of everything the job placed in memory (control stream, descriptors,
 *     shader code, vertex and texture data) overwritten;
 *   - a compute job running a random program of valid instructions
 *     (tests/unit/isa/usc_random.h), sometimes in an endless loop;
 *   - a ring slot of random words;
 *   - any of those with a storm of register writes while it runs: aborts,
 *     queue and global resets, TLB invalidations, ring reprogramming,
 *     interrupts, random offsets.
 * Every job carries a timeout; the promise checked is that every job ends --
 * completes, fails, times out, is aborted or dropped by a reset -- within its
 * time limit plus a grace for the machine, and that no sanitizer fires.
 *
 * A finding stops the run and prints its seed and iteration; the iteration
 * alone on a fresh device (`--seed S --only I`) is the reproducer.
 *
 *   fuzz_core [--seconds N] [--seed S] [--only I] [--iters N] [--verbose]
 *   fuzz_core --harness-check    (a fixed storm: the harness's own end check)
 * Without --seed it runs the fixed seed list, the time split between them.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

#include "core_test.h"

#define MEM_SIZE (24u << 20)
#include "render_test_job.h"
#include "usc_random.h"

#define RAM_SIZE (48ull << 20)
#define NULL_VA 0x200000000ull     /* a 2 MiB NULL (sparse) range */
#define HOLE_VA 0x300000000ull     /* unmapped */
/* Beyond the job's timeout before a job counts as hung.  Generous: on a
 * loaded 2-core host (load 10, this process niced) its threads can wait
 * seconds for a CPU; a real hang never ends.  The figures report how late
 * jobs really ended. */
#define GRACE_S 10.0
#define MAX_TIMEOUT_MS 160         /* job_header.timeout_ms of every job is below */

/* ---------------------------------------------------------------- random -- */
static uint64_t rng;
static uint32_t rnd(void)
{
   rng += 0x9e3779b97f4a7c15ull;
   uint64_t z = rng;
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return (uint32_t)((z ^ (z >> 31)) >> 16);
}
static uint32_t below(uint32_t n) { return n ? rnd() % n : 0; }
static bool chance(unsigned percent) { return below(100) < percent; }

static uint32_t interesting_u32(void)
{
   static const uint32_t v[] = {0, 1, 2, 3, 4, 0xff, 0xffff, 0x10000, 0x7fffffff, 0x80000000u,
                                0xffffffffu, 0xfffffffeu, 0x7fc00000u, 0x7f800000u, 0xff800000u,
                                0x7f7fffffu, 0x00000001u, 0x3f800000u, 0xbf800000u, 0x4b000000u};
   return v[below(sizeof(v) / sizeof(v[0]))];
}

static float rnd_float(void)
{
   uint32_t u = interesting_u32();
   float f;
   if (chance(80))
      return ((float)below(4001) - 2000.0f) / 1000.0f;
   memcpy(&f, &u, 4);
   return f;
}

/* ---------------------------------------------------------------- device -- */
struct fuzz {
   struct tdev d;
   struct tq q;
   uint64_t root, seq;
   /* figures */
   uint64_t iters, jobs[5], status[16], mmio_writes, resets, max_ms_over, worst_iter, worst_seed;
   uint64_t cmd_seen[4], op_seen[4], reg_seen;
   uint32_t snap[5];          /* settled(): the registers last seen */
   double snap_since;         /* since when they are unchanged; < 0: none yet */
};

static uint64_t cur_seed, cur_iter;
static bool verbose;

/* UBSan has its own runtime (no shared death callback): it aborts, and the
 * SIGABRT handler names the iteration.  Only async-signal-safe calls. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
   return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

static void put_u64(char *b, size_t *n, uint64_t v)
{
   char t[24];
   int k = 0;
   do
      t[k++] = (char)('0' + v % 10);
   while ((v /= 10) && k < 24);
   while (k)
      b[(*n)++] = t[--k];
}

static void on_abort(int sig)
{
   char b[256];
   size_t n = 0;
   const char *a = "fuzz_core: FINDING (abort) at seed ", *c = " iteration ",
              *d = "\nfuzz_core: reproduce alone: fuzz_core --seed ", *e = " --only ";
   memcpy(b + n, a, strlen(a)); n += strlen(a);
   put_u64(b, &n, cur_seed);
   memcpy(b + n, c, strlen(c)); n += strlen(c);
   put_u64(b, &n, cur_iter);
   memcpy(b + n, d, strlen(d)); n += strlen(d);
   put_u64(b, &n, cur_seed);
   memcpy(b + n, e, strlen(e)); n += strlen(e);
   put_u64(b, &n, cur_iter);
   b[n++] = '\n';
   if (write(2, b, n) < 0)
      n = 0;
   signal(sig, SIG_DFL);
   raise(sig);
}

static void on_death(void)
{
   fprintf(stderr, "fuzz_core: FINDING (sanitizer) at seed %llu iteration %llu\n"
                   "fuzz_core: reproduce alone: fuzz_core --seed %llu --only %llu\n",
           (unsigned long long)cur_seed, (unsigned long long)cur_iter,
           (unsigned long long)cur_seed, (unsigned long long)cur_iter);
}

static void finding(const char *what)
{
   fprintf(stderr, "fuzz_core: FINDING at seed %llu iteration %llu: %s\n"
                   "fuzz_core: reproduce alone: fuzz_core --seed %llu --only %llu\n",
           (unsigned long long)cur_seed, (unsigned long long)cur_iter, what,
           (unsigned long long)cur_seed, (unsigned long long)cur_iter);
   fflush(stderr);
   _exit(1);   /* a hung device cannot be destroyed */
}

/* Programs the ring again (same memory) and enables the queue. */
static void ring_restart(struct fuzz *F)
{
   struct tq *t = &F->q;
   t->tail = 0;
   wr(&F->d, VAGX_REG_Q_RING_BASE_LO(0), (uint32_t)t->ring_pa);
   wr(&F->d, VAGX_REG_Q_RING_BASE_HI(0), (uint32_t)(t->ring_pa >> 32));
   wr(&F->d, VAGX_REG_Q_RING_SIZE(0), VAGX_Q_RING_SIZE_LOG2(t->log2));
   wr(&F->d, VAGX_REG_Q_CONTROL(0), VAGX_Q_CONTROL_ENABLE(1));
}

static void fuzz_init(struct fuzz *F)
{
   memset(F, 0, sizeof(*F));
   tdev_init(&F->d, RAM_SIZE, 2, false);
   F->root = vm_new(F->d.f);
   uint64_t pa = vm_alloc(F->d.f, F->root, MEM_BASE, MEM_SIZE, false);
   mem = pa_ptr(F->d.f, pa);    /* render_test_mem.h's flat memory is this VA range */
   vm_set_null(F->d.f, F->root, NULL_VA, VAGX_PT_LEVELS - 2);
   tq_init(&F->q, &F->d, 0, 4);
   vagx_core_frontend_start(F->d.core);
   F->seq = 1;
   (void)mem_ops;
}

/* A wild address: inside, NULL, unmapped, or anything. */
static uint64_t rnd_va(void)
{
   switch (below(5)) {
   case 0: return NULL_VA + below(1u << 20) * 4;
   case 1: return HOLE_VA + below(4096) * 4;
   case 2: return ((uint64_t)rnd() << 32 | rnd()) & ~3ull;
   default: return MEM_BASE + (brk_ ? below((uint32_t)brk_) & ~3u : 0);
   }
}

/* ------------------------------------------------------------ programs -- */
static void note_op(struct fuzz *F, unsigned op) { F->op_seen[op >> 6] |= 1ull << (op & 63); }

/* Appends a random valid instance of opcode op; false if none came out. */
static bool emit_op(struct fuzz *F, uint32_t *words, unsigned *nw, unsigned op)
{
   struct vagx_instr I;
   uint64_t enc[2];
   usc_random_instr(op, &I, rnd);
   const int k = vagx_encode(&I, enc);
   if (k <= 0)
      return false;
   note_op(F, op);
   memcpy(&words[*nw], enc, (size_t)k * 8);
   *nw += 2 * (unsigned)k;
   return true;
}

/* n random valid instructions placed before the given program text, in
 * randomly nested if/else and loop constructs (with break/continue, so some
 * loops end and others do not); `endless` wraps it all in a loop without
 * exit.  Jumps and branches get random targets (mostly refused at decode). */
static uint64_t random_program(struct fuzz *F, unsigned n, const char *tail, bool endless)
{
   static uint32_t words[8192];
   unsigned nw = 0, depth = 0;
   unsigned open[8];                 /* VAGX_OP_IF / VAGX_OP_LOOP of each open construct */
   bool has_else[8];
   if (endless && emit_op(F, words, &nw, VAGX_OP_LOOP))
      open[depth] = VAGX_OP_LOOP, has_else[depth++] = false;
   for (unsigned i = 0; i < n && nw < 4000; i++) {
      const unsigned pick = below(100);
      if (pick < 6 && depth < 8) {
         const unsigned op = chance(60) ? VAGX_OP_IF : VAGX_OP_LOOP;
         if (emit_op(F, words, &nw, op))
            open[depth] = op, has_else[depth++] = false;
         continue;
      }
      if (pick < 12 && depth > (endless ? 1u : 0u)) {
         const unsigned top = depth - 1;
         if (open[top] == VAGX_OP_IF && !has_else[top] && chance(40)) {
            has_else[top] = emit_op(F, words, &nw, VAGX_OP_ELSE);
         } else if (open[top] == VAGX_OP_LOOP && chance(50)) {
            emit_op(F, words, &nw, chance(70) ? VAGX_OP_BREAK : VAGX_OP_CONTINUE);
         } else if (emit_op(F, words, &nw, open[top] == VAGX_OP_IF ? VAGX_OP_ENDIF : VAGX_OP_ENDLOOP)) {
            depth--;
         }
         continue;
      }
      if (pick < 13) {
         emit_op(F, words, &nw, chance(50) ? VAGX_OP_JMP : VAGX_OP_BR);
         continue;
      }
      if (pick < 15) {
         emit_op(F, words, &nw, chance(50) ? VAGX_OP_DISCARD : chance(50) ? VAGX_OP_END : VAGX_OP_BARRIER);
         continue;
      }
      unsigned op;
      const struct vagx_op_info *info;
      do {
         op = below(256);
         info = vagx_info(op);
      } while (!info->name || (info->flags & VAGX_OPF_CF));
      emit_op(F, words, &nw, op);
   }
   while (depth) {
      depth--;
      emit_op(F, words, &nw, open[depth] == VAGX_OP_IF ? VAGX_OP_ENDIF : VAGX_OP_ENDLOOP);
   }
   struct vagx_asm_error err;
   long m = vagx_asm_assemble(tail, &words[nw], 8192 - nw, &err);
   if (m < 0)
      m = 0;
   return put(words, (uint64_t)(nw + (unsigned)m) * 4, 16);
}

/* ------------------------------------------------------------ render job -- */
static uint64_t random_texture(uint64_t *smp)
{
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = (enum vagx_format)(1 + below(VAGX_FORMAT_MAX_VALUE));
   t.dimension = (enum vagx_dimension)below(6);
   t.layout = chance(50) ? VAGX_IMAGE_LAYOUT_TWIDDLED : VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = 1 + below(64);
   t.height = 1 + below(64);
   t.depth = 1 + below(6);
   t.levels = 1 + below(7);
   t.base_level = below(t.levels);
   t.max_level = t.base_level + below(t.levels - t.base_level);
   t.stride = chance(50) ? 256 : below(4096);
   /* the sparse layout (contract 1.5), sometimes where the rules refuse it */
   t.sparse = chance(25);
   t.swizzle_r = VAGX_SWIZZLE_R; t.swizzle_g = VAGX_SWIZZLE_G;
   t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.base_va = chance(85) ? alloc(64 * 1024, 16384) : rnd_va();
   for (unsigned i = 0; i < 64 && t.base_va >= MEM_BASE && t.base_va < MEM_BASE + brk_; i++)
      ((uint32_t *)ptr(t.base_va))[below(16384)] = rnd();
   uint64_t va = alloc(32, 32);
   vagx_texture_pack(ptr(va), &t);
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = (enum vagx_filter)below(2);
   s.mag_filter = (enum vagx_filter)below(2);
   s.mip_filter = (enum vagx_mip_filter)below(3);
   s.wrap_s = s.wrap_t = s.wrap_r = (enum vagx_wrap)below(4);
   s.min_lod = chance(80) ? 0 : rnd_float();
   s.max_lod = chance(80) ? 1000 : rnd_float();
   s.lod_bias = chance(80) ? 0 : rnd_float();
   s.seamless_cube = chance(50);
   *smp = alloc(32, 32);
   vagx_sampler_pack(ptr(*smp), &s);
   return va;
}

/* Commands a draw does not need, at random: stream output, timestamps,
 * blend constants, barriers, no-ops, queries, jumps and calls, draw id
 * bases. */
static void extra_commands(void)
{
   const unsigned n = chance(50) ? 0 : below(4);
   for (unsigned i = 0; i < n; i++) {
      switch (below(10)) {
      case 0: {
         const uint32_t stride = 4 * (1 + below(8));
         RTJ_EMIT(cmd_stream_out_buffer, v_.index = below(VAGX_MAX_STREAM_OUT_BUFFERS);
                  v_.base_va = chance(90) ? alloc(4096, 64) : rnd_va(); v_.size = below(4097);
                  v_.stride = stride; v_.append = chance(20); v_.offset_va = alloc(8, 8));
         break;
      }
      case 1: {
         uint32_t decl[4];
         const unsigned nd = 1 + below(4);
         for (unsigned k = 0; k < nd; k++) {
            struct vagx_stream_out_decl d;
            vagx_stream_out_decl_init(&d);
            d.src = below(6);
            d.count = 1 + below(4);
            d.buffer = below(VAGX_MAX_STREAM_OUT_BUFFERS);
            d.dst = 4 * below(4);
            vagx_stream_out_decl_pack(&decl[k], &d);
         }
         RTJ_EMIT(cmd_stream_out, v_.enable = chance(80); v_.decl_count = nd;
                  v_.decls_va = put(decl, nd * 4, 4));
         break;
      }
      case 2:
         RTJ_EMIT(cmd_timestamp, v_.stage = (enum vagx_timestamp_stage)below(2);
                  v_.dst_va = chance(90) ? alloc(8, 8) : rnd_va());
         break;
      case 3:
         RTJ_EMIT(cmd_blend_constant, v_.color[0] = rnd_float(); v_.color[3] = rnd_float());
         break;
      case 4: RTJ_EMIT(cmd_barrier, (void)v_); break;
      case 8: RTJ_EMIT(cmd_draw_id_base, v_.base = rnd()); break;
      case 5: RTJ_EMIT(cmd_nop, (void)v_); break;
      case 6:
         RTJ_EMIT(cmd_query_end, v_.type = (enum vagx_query_type)below(VAGX_QUERY_TYPE_MAX_VALUE + 1));
         break;
      case 7: {
         /* a call to a sub-stream that returns (END), or a jump to itself */
         uint32_t sub[4];
         struct vagx_cmd_nop nop;
         vagx_cmd_nop_init(&nop);
         vagx_cmd_nop_pack(&sub[0], &nop);
         struct vagx_cmd_end e;
         vagx_cmd_end_init(&e);
         vagx_cmd_end_pack(&sub[vagx_cmd_dwords(sub[0])], &e);
         const uint64_t sva = put(sub, sizeof(sub), 16);
         RTJ_EMIT(cmd_jump, v_.call = chance(90); v_.target_va = chance(95) ? sva : rnd_va());
         break;
      }
      default:
         RTJ_EMIT(cmd_query_begin, v_.type = (enum vagx_query_type)below(VAGX_QUERY_TYPE_MAX_VALUE + 1);
                  v_.result_va = alloc(8, 8));
         break;
      }
   }
}

static struct vagx_stencil_face random_face(void)
{
   struct vagx_stencil_face f;
   vagx_stencil_face_init(&f);
   f.func = (enum vagx_compare_func)below(VAGX_COMPARE_FUNC_MAX_VALUE + 1);
   f.fail_op = (enum vagx_stencil_op)below(VAGX_STENCIL_OP_MAX_VALUE + 1);
   f.zfail_op = (enum vagx_stencil_op)below(VAGX_STENCIL_OP_MAX_VALUE + 1);
   f.zpass_op = (enum vagx_stencil_op)below(VAGX_STENCIL_OP_MAX_VALUE + 1);
   f.ref = below(256);
   f.read_mask = below(256);
   f.write_mask = below(256);
   return f;
}

static void random_depth_stencil(struct vagx_cmd_depth_stencil *ds)
{
   ds->depth_test = chance(50);
   ds->depth_write = chance(50);
   ds->depth_func = (enum vagx_compare_func)below(VAGX_COMPARE_FUNC_MAX_VALUE + 1);
   ds->stencil_test = chance(30);
   ds->front = random_face();
   ds->back = random_face();
}

/* Gives the render job at va a depth/stencil image (random format, load and
 * store), as drivers do for depth-tested passes. */
static void add_zs(uint64_t va)
{
   static const enum vagx_format zf[] = {VAGX_FORMAT_Z16_UNORM, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                         VAGX_FORMAT_Z32_FLOAT, VAGX_FORMAT_Z32_FLOAT_S8X24_UINT};
   struct vagx_render_job rj;
   const char *why;
   if (!vagx_render_job_unpack(ptr(va), &rj, &why))
      return;
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = zf[below(4)];
   t.dimension = VAGX_DIMENSION_2D;
   t.layout = VAGX_IMAGE_LAYOUT_TWIDDLED;
   t.samples = rj.samples;
   t.width = rj.width;
   t.height = rj.height;
   t.depth = t.levels = 1;
   t.swizzle_g = VAGX_SWIZZLE_G; t.swizzle_b = VAGX_SWIZZLE_B; t.swizzle_a = VAGX_SWIZZLE_A;
   t.base_va = alloc((uint64_t)(rj.width + 32) * (rj.height + 32) * 8 + 65536, 16384);
   rj.zs_desc_va = alloc(32, 32);
   vagx_texture_pack(ptr(rj.zs_desc_va), &t);
   rj.depth_load = chance(50);
   rj.depth_store = chance(50);
   rj.stencil_load = chance(50);
   rj.stencil_store = chance(50);
   rj.clear_depth = chance(80) ? 1.0f : rnd_float();
   rj.clear_stencil = below(256);
   vagx_render_job_pack(ptr(va), &rj);
}

static void note_cmds(struct fuzz *F)
{
   F->cmd_seen[0] |= 1ull << VAGX_CMD_OPCODE_END;   /* rtj_finish ends every stream */
   for (unsigned i = 0; i < rtj_ncs;) {
      unsigned op = rtj_cs[i] & 0xff, n = vagx_cmd_dwords(rtj_cs[i]);
      F->cmd_seen[op >> 6] |= 1ull << (op & 63);
      i += n ? n : 1;
   }
}

static uint64_t build_render(struct fuzz *F)
{
   rtj_w = 1 + below(chance(10) ? 600 : 96);
   rtj_h = 1 + below(chance(10) ? 600 : 96);
   const unsigned ndraws = 1 + below(3);
   for (unsigned di = 0; di < ndraws; di++) {
      const unsigned nv = 1 + below(48);
      float *v = malloc((size_t)nv * 16);
      for (unsigned i = 0; i < nv * 4; i++)
         v[i] = (i & 3) == 3 ? (chance(90) ? 1.0f : rnd_float()) : rnd_float() * 1.2f;
      const uint64_t vb = put(v, (uint64_t)nv * 16, 16);
      free(v);
      const uint32_t vu[2] = {(uint32_t)vb, (uint32_t)(vb >> 32)};
      const char *vs_tail = "imul r1, sr.vertex_id, #16\n"
                            "ld_global.b32 r8, u0, r1\niadd r2, r1, #4\nld_global.b32 r9, u0, r2\n"
                            "iadd r2, r1, #8\nld_global.b32 r10, u0, r2\n"
                            "iadd r2, r1, #12\nld_global.b32 r11, u0, r2\n"
                            "st_var r8, #0\nst_var r9, #1\nst_var r10, #2\nst_var r11, #3\nend\n";
      const uint64_t vs = chance(80) ? rtj_vs_fetch() : random_program(F, below(12), vs_tail, false);
      RTJ_EMIT(cmd_bind_vertex_pipeline, rtj_prog(&v_.program, vs, vu, 2));
      if (chance(25)) {
         /* a geometry stage (1.11): copies vertex 0 (or a random vertex and
          * word, maybe out of range) a few times, with cuts; random
          * topology match, invocations, max_vertices, output layout */
         char gs_tail[512];
         snprintf(gs_tail, sizeof(gs_tail),
                  "ld_vin r8, #%u, #0\nld_vin r9, #0, #1\nld_vin r10, #0, #%u\nld_vin r11, #0, #3\n"
                  "st_var r8, #0\nst_var r9, #1\nst_var r10, #2\nst_var r11, #3\nemit\n"
                  "%s\nst_var r8, #0\nst_var sr.invocation_id, #1\nst_var r11, #3\nemit\n"
                  "st_var r9, #0\nst_var sr.primitive_id, #4\nst_var r11, #3\nemit\nend\n",
                  chance(95) ? 0 : below(8), chance(95) ? 2 : below(8), chance(50) ? "cut" : "nop");
         const uint64_t gs = random_program(F, below(8), gs_tail, false);
         RTJ_EMIT(cmd_bind_geometry_pipeline,
                  v_.input_primitive = (enum vagx_gs_input)below(VAGX_GS_INPUT_MAX_VALUE + 1);
                  v_.output_primitive = (enum vagx_gs_output)below(VAGX_GS_OUTPUT_MAX_VALUE + 1);
                  v_.invocations = 1 + below(chance(10) ? VAGX_MAX_GS_INVOCATIONS : 3);
                  v_.input_words = 4; v_.max_vertices = 1 + below(8); v_.smooth32 = below(3);
                  rtj_prog(&v_.program, gs, vu, 2));
      } else if (chance(10)) {
         RTJ_EMIT(cmd_unbind_geometry_pipeline, (void)v_);
      }
      uint32_t colour[4] = {rnd(), rnd(), rnd(), rnd()};
      uint64_t tex = 0, smp = 0;
      uint64_t fs;
      if (chance(40)) {
         tex = random_texture(&smp);
         static const char *modes[] = {"auto", "lod", "bias", "grad", "fetch", "size", "levels",
                                       "gather"};
         static const char *dims[] = {"1d", "2d", "3d", "cube", "2dms", "buf"};
         char src[256];
         snprintf(src, sizeof(src),
                  "mov r0, u0\nmov r1, u1\nmov r2, u2\nmov r3, u3\n"
                  "tex.%s.t0.s0.%s%s r4, r0, %s, r2\nst_tile.rt0 r4, #0\nend\n",
                  modes[below(8)], dims[below(6)], chance(30) ? ".array" : "",
                  chance(50) ? "r8" : chance(50) ? "u1" : "#0x7fc00000");
         fs = random_program(F, chance(30) ? below(8) : 0, src, false);
      } else {
         fs = chance(80) ? rtj_fs_const()
                         : random_program(F, below(12), "st_tile.rt0 r0, #0\nend\n", chance(5));
      }
      RTJ_EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; rtj_prog(&v_.program, fs, colour, 4);
               v_.program.texture_va = tex; v_.program.texture_count = tex ? 1 : 0;
               v_.program.sampler_va = smp; v_.program.sampler_count = smp ? 1 : 0);
      if (chance(85)) {
         rtj_fixed_state(NULL);
      } else {
         RTJ_EMIT(cmd_viewport, v_.scale_x = rnd_float() * 50; v_.offset_x = rnd_float() * 50;
                  v_.scale_y = rnd_float() * 50; v_.offset_y = rnd_float() * 50;
                  v_.scale_z = rnd_float(); v_.offset_z = rnd_float(); v_.max_depth = 1);
         RTJ_EMIT(cmd_scissor, v_.min_x = below(64); v_.min_y = below(64); v_.max_x = below(1024);
                  v_.max_y = below(1024));
         RTJ_EMIT(cmd_depth_stencil, random_depth_stencil(&v_));
      }
      struct vagx_cmd_rasterizer rs = rtj_rasterizer();
      rs.cull = (enum vagx_cull_mode)below(VAGX_CULL_MODE_MAX_VALUE + 1);
      rs.front_face = (enum vagx_front_face)below(2);
      rs.fill_front = (enum vagx_fill_mode)below(VAGX_FILL_MODE_MAX_VALUE + 1);
      rs.fill_back = (enum vagx_fill_mode)below(VAGX_FILL_MODE_MAX_VALUE + 1);
      rs.provoking = (enum vagx_provoking_vertex)below(2);
      rs.discard = chance(10);
      rs.depth_clip = chance(70);
      rs.offset_fill = chance(20);
      rs.offset_line = chance(20);
      rs.offset_factor = chance(50) ? 0 : rnd_float();
      rs.offset_units = chance(50) ? 0 : rnd_float();
      rs.line_width = chance(70) ? 1 + below(4) : rnd_float() * 100;
      rs.point_size = chance(70) ? 1 + below(8) : rnd_float() * 100;
      RTJ_EMIT(cmd_rasterizer, v_ = rs);
      if (chance(15)) {
         const uint64_t result = alloc(8, 8);
         RTJ_EMIT(cmd_query_begin, v_.type = (enum vagx_query_type)below(VAGX_QUERY_TYPE_MAX_VALUE + 1);
                  v_.result_va = result);
      }
      extra_commands();
      struct vagx_cmd_draw dr;
      vagx_cmd_draw_init(&dr);
      dr.primitive = (enum vagx_primitive)below(VAGX_PRIMITIVE_MAX_VALUE + 1);
      dr.count = chance(4) ? 0xffffffffu : 1 + below(nv * 2);
      dr.instance_count = chance(3) ? 0xffffffffu : 1 + below(3);
      dr.first = chance(90) ? 0 : interesting_u32();
      dr.draw_id = chance(80) ? 0 : below(VAGX_MAX_DRAW_ID + 1);
      if (chance(35)) {
         dr.index_size = (enum vagx_index_size)(1 + below(3));
         const unsigned ni = below(96);
         uint32_t *ix = malloc(ni * 4 + 4);
         for (unsigned i = 0; i < ni; i++)
            ix[i] = chance(90) ? below(nv) : interesting_u32();
         dr.index_va = chance(95) ? put(ix, ni * 4 + 4, 4) : rnd_va();
         free(ix);
         dr.index_buffer_size = chance(90) ? ni * 4 : rnd();
         dr.restart = chance(40);
         dr.restart_index = chance(50) ? 0xffffffffu : interesting_u32();
         dr.base_vertex = chance(90) ? 0 : (int32_t)interesting_u32();
      }
      if (chance(5)) {
         uint32_t args[5] = {rnd() % 100, 1 + rnd() % 3, 0, 0, 0};
         dr.indirect = true;
         dr.indirect_va = chance(80) ? put(args, sizeof(args), 4) : rnd_va();
      }
      vagx_cmd_draw_pack(&rtj_cs[rtj_ncs], &dr);
      rtj_ncs += vagx_cmd_dwords(rtj_cs[rtj_ncs]);
   }
   note_cmds(F);
   const float clear[4] = {0, 0, 0, 1};
   const uint64_t va = rtj_finish(clear);
   if (chance(30))
      add_zs(va);
   return va;
}

/* Overwrites k random dwords of what this iteration placed in memory. */
static void mutate(unsigned k)
{
   if (brk_ < 4)
      return;
   for (unsigned i = 0; i < k; i++) {
      uint32_t *w = (uint32_t *)mem + below((uint32_t)(brk_ / 4));
      switch (below(3)) {
      case 0: *w ^= 1u << below(32); break;
      case 1: *w = interesting_u32(); break;
      default: *w = rnd(); break;
      }
   }
}

/* ------------------------------------------------------------ compute job -- */
static uint64_t build_compute(struct fuzz *F)
{
   const bool endless = chance(10);
   const uint64_t code = random_program(F, 1 + below(40), "end\n", endless);
   uint32_t uni[16];
   const unsigned nuni = below(17);
   const uint64_t buf = alloc(64 * 1024, 64);
   for (unsigned i = 0; i < nuni; i++)
      uni[i] = i % 2 == 0 ? (chance(70) ? (uint32_t)(buf + below(60000)) : rnd())
                          : (chance(70) ? (uint32_t)(buf >> 32) : rnd());
   struct vagx_compute_job j;
   vagx_compute_job_init(&j);
   j.grid_x = chance(2) ? 0xffffffffu : 1 + below(4);
   j.grid_y = 1 + below(2);
   j.grid_z = 1 + below(2);
   j.tg_x = 1 + below(64);
   j.tg_y = 1 + below(4);
   j.tg_z = 1;
   j.shared_size = below(3) * 1024;
   rtj_prog(&j.program, code, uni, nuni);
   j.program.gpr_count = 32 + below(225);
   const uint64_t va = alloc(VAGX_COMPUTE_JOB_LENGTH, 64);
   vagx_compute_job_pack(ptr(va), &j);
   return va;
}

/* ------------------------------------------------------------------ MMIO -- */
static void mmio_storm(struct fuzz *F)
{
   const unsigned n = 1 + below(6);
   for (unsigned i = 0; i < n; i++) {
      uint32_t off, val = chance(50) ? 1 : rnd();
      switch (below(12)) {
      case 0: off = VAGX_REG_Q_ABORT(0); val = VAGX_Q_ABORT_ABORT(1) | (chance(30) ? VAGX_Q_ABORT_MATCH(1) : 0); break;
      case 1: off = VAGX_REG_Q_RESET(0); val = VAGX_Q_RESET_START(1); F->resets++; break;
      case 2: off = VAGX_REG_RESET; val = VAGX_RESET_START(1); F->resets++; break;
      case 3: off = VAGX_REG_TLB_INV_CMD; val = VAGX_TLB_INV_CMD_START(1) | VAGX_TLB_INV_CMD_ALL_ROOTS(1); break;
      case 4: off = VAGX_REG_Q_CONTROL(0); break;
      case 5: off = VAGX_REG_Q_TAIL(0); break;
      case 6: off = VAGX_REG_Q_DOORBELL(0); break;
      case 7: off = VAGX_REG_Q_RESUME(0); break;
      case 8: off = VAGX_REG_INT_ENABLE; break;
      case 9: off = VAGX_REG_INT_STATUS; break;
      case 10: off = VAGX_REG_Q_RING_BASE_LO(0); break;
      default: off = below(0x2000) & ~3u; break;
      }
      if (off < 64 * 64)
         F->reg_seen |= 1ull << (off / 64);
      wr(&F->d, off, val);
      F->mmio_writes++;
      if (chance(50))
         usleep(below(3000));
   }
}

/* ------------------------------------------------------------ iteration -- */
/* How long a device that ran a register storm must look unchanged and idle
 * before the storm's work counts as ended (below).  The front end starts a
 * doorbelled job within microseconds on an idle host. */
#define SETTLE_S 0.02

/* After a storm: true when the device has looked settled -- no reset busy,
 * no queue RUNNING or RESETTING (STATUS.IDLE), queue 0's status, HEAD, TAIL
 * and JOBS_DONE unchanged -- for SETTLE_S.  F->snap_since < 0 starts anew. */
static bool settled(struct fuzz *F)
{
   const uint32_t status = rd(&F->d, VAGX_REG_STATUS);
   const uint32_t s[5] = {status, rd(&F->d, VAGX_REG_Q_STATUS(0)), rd(&F->d, VAGX_REG_Q_HEAD(0)),
                          rd(&F->d, VAGX_REG_Q_TAIL(0)), rd(&F->d, VAGX_REG_Q_JOBS_DONE(0))};
   const double now = t_now_s();
   if (F->snap_since < 0 || !VAGX_STATUS_IDLE_GET(status) || VAGX_STATUS_RESET_BUSY_GET(status) ||
       memcmp(s, F->snap, sizeof(s))) {
      memcpy(F->snap, s, sizeof(s));
      F->snap_since = now;
      return false;
   }
   return now - F->snap_since >= SETTLE_S;
}

/* Has the job just submitted on queue 0 ended?  The queue goes RUNNING
 * only when the front end starts the job, so IDLE alone is not enough: HEAD
 * must have passed the slot.
 * A register storm may have reset the device, enabled queue 0 again (HEAD,
 * TAIL and JOBS_DONE back to 0) and rung the doorbell with a TAIL of its
 * own: the ring then ran other slots and HEAD never reaches F->q.tail (seed
 * 1127 iteration 31236: HEAD = TAIL = JOBS_DONE = 1, the harness waited for
 * HEAD 31237; alone, on a fresh device, F->q.tail was 1 and it passed).  The
 * device only shows the TAIL it runs to at the next doorbell, so after a
 * storm the promise checked is that the device settles.  A doorbelled slot
 * not started yet may look settled on a starved host: repair()'s global
 * reset then drops it, and that reset must end within the grace, so a job
 * that never ends is still found. */
static bool ended(struct fuzz *F, bool storm)
{
   if (rd(&F->d, VAGX_REG_RESET) || rd(&F->d, VAGX_REG_Q_RESET(0)))
      return false;
   const unsigned st = q_state(&F->d, 0), head = rd(&F->d, VAGX_REG_Q_HEAD(0));
   if (st == VAGX_QUEUE_STATE_HALTED || st == VAGX_QUEUE_STATE_STOPPED ||
       (st == VAGX_QUEUE_STATE_IDLE && head == F->q.tail))
      return true;
   return storm && st == VAGX_QUEUE_STATE_IDLE && settled(F);
}

/* Waits up to `limit` seconds for ended(); false: it did not. */
static bool wait_ended(struct fuzz *F, bool storm, double limit)
{
   F->snap_since = -1;
   return WAIT_UNTIL(ended(F, storm), limit);
}

/* Brings queue 0 back to enabled and idle whatever the iteration did. */
static void repair(struct fuzz *F, bool storm)
{
   if (storm) {
      /* other queues may run rings from random registers: reset it all */
      wr(&F->d, VAGX_REG_RESET, VAGX_RESET_START(1));
      if (!WAIT_UNTIL(rd(&F->d, VAGX_REG_RESET) == 0, GRACE_S))
         finding("global RESET did not complete within the grace");
   } else if (q_state(&F->d, 0) != VAGX_QUEUE_STATE_IDLE) {
      wr(&F->d, VAGX_REG_Q_RESET(0), VAGX_Q_RESET_START(1));
      if (!WAIT_UNTIL(rd(&F->d, VAGX_REG_Q_RESET(0)) == 0, GRACE_S))
         finding("Q_RESET did not complete within the grace");
   } else {
      return;
   }
   wr(&F->d, VAGX_REG_INT_ENABLE, ~0u);
   wr(&F->d, VAGX_REG_INT_STATUS, ~0u);
   wr(&F->d, VAGX_REG_ERROR_ACK, 1);
   wr(&F->d, VAGX_REG_FAULT_ACK, 1);
   ring_restart(F);
}

static void iteration(struct fuzz *F, uint64_t seed, uint64_t iter)
{
   cur_seed = seed;
   cur_iter = iter;
   rng = seed * 0x100000001b3ull ^ (iter + 1) * 0x9e3779b97f4a7c15ull;
   brk_ = 0;
   rtj_ncs = 0;
   struct vagx_job_header h;
   const unsigned kind = below(100);
   const bool storm = chance(20);
   enum vagx_job_type type;
   uint64_t desc = 0;
   uint32_t raw[VAGX_JOB_HEADER_DWORDS], payload[VAGX_RING_SLOT_PAYLOAD_SIZE / 4];
   if (kind < 60) {
      type = VAGX_JOB_TYPE_RENDER;
      desc = build_render(F);
   } else if (kind < 85) {
      type = VAGX_JOB_TYPE_COMPUTE;
      desc = build_compute(F);
   } else {
      type = (enum vagx_job_type)below(VAGX_JOB_TYPE_MAX_VALUE + 1);
   }
   if (chance(60))
      mutate(1 + below(8));
   hdr_init(&F->q, &h, type, F->root, F->seq++);
   h.desc_va = desc;
   h.desc_size = type == VAGX_JOB_TYPE_RENDER ? VAGX_RENDER_JOB_LENGTH
                 : type == VAGX_JOB_TYPE_COMPUTE ? VAGX_COMPUTE_JOB_LENGTH : 0;
   h.timeout_ms = 10 + below(MAX_TIMEOUT_MS - 10);
   vagx_job_header_pack(raw, &h);
   /* RENDER/COMPUTE payloads must be 0; others get random words (COPY and
    * FILL payloads, garbage) */
   for (unsigned i = 0; i < VAGX_RING_SLOT_PAYLOAD_SIZE / 4; i++)
      payload[i] = kind < 85 || chance(50) ? 0 : chance(50) ? rnd() : (uint32_t)rnd_va();
   if (kind >= 85)
      for (unsigned i = 0; i < 3; i++)
         raw[below(VAGX_JOB_HEADER_DWORDS)] = chance(50) ? rnd() : interesting_u32();
   F->jobs[type]++;
   const double t0 = t_now_s();
   const uint64_t slot = tq_submit_raw(&F->q, raw, payload);
   if (storm)
      mmio_storm(F);
   /* a storm may move TAIL over older slots: each of those jobs has its
    * own limit (below MAX_TIMEOUT_MS) */
   const double limit = (storm ? (1u << F->q.log2) * MAX_TIMEOUT_MS : h.timeout_ms) / 1000.0 + GRACE_S;
   if (!wait_ended(F, storm, limit)) {
      char why[384];
      snprintf(why, sizeof(why),
               "%s job did not end within its %u ms limit (+%.0f s grace): Q_STATUS %#x HEAD %u "
               "TAIL %u RESET %#x Q_RESET %#x STATUS %#x JOBS_DONE %u INT_STATUS %#x "
               "TLB_INV_STATUS %#x",
               type == VAGX_JOB_TYPE_RENDER ? "render" : type == VAGX_JOB_TYPE_COMPUTE ? "compute" : "other",
               h.timeout_ms, GRACE_S, rd(&F->d, VAGX_REG_Q_STATUS(0)), rd(&F->d, VAGX_REG_Q_HEAD(0)),
               rd(&F->d, VAGX_REG_Q_TAIL(0)), rd(&F->d, VAGX_REG_RESET), rd(&F->d, VAGX_REG_Q_RESET(0)),
               rd(&F->d, VAGX_REG_STATUS), rd(&F->d, VAGX_REG_Q_JOBS_DONE(0)),
               rd(&F->d, VAGX_REG_INT_STATUS), rd(&F->d, VAGX_REG_TLB_INV_STATUS));
      finding(why);
   }
   const double ms = (t_now_s() - t0) * 1000.0;
   if (!storm && ms > h.timeout_ms && ms - h.timeout_ms > F->max_ms_over) {
      F->max_ms_over = (uint64_t)(ms - h.timeout_ms);
      F->worst_iter = iter;
   }
   struct vagx_job_result r = slot_result(&F->d, slot);
   F->status[r.status & 15]++;
   if (verbose)
      fprintf(stderr, "seed %llu iter %llu: type %u%s status %u %.1f ms\n", (unsigned long long)seed,
              (unsigned long long)iter, type, storm ? " (register storm)" : "", r.status, ms);
   repair(F, storm);
   F->iters++;
}

/* --harness-check: the storm of seed 1127 iteration 31236, made exact.  Jobs
 * ran on queue 0 (F->q.tail is 6), then: global reset, queue 0 enabled again,
 * TAIL 1, doorbell.  Slot 0 (an old NOP) runs again and HEAD stops at 1.
 * ended() must see the device settle; it used to wait for HEAD 6 forever. */
static int harness_check(void)
{
   static struct fuzz F;
   fuzz_init(&F);
   cur_seed = 1127;
   cur_iter = 31236;
   struct vagx_job_header h;
   for (unsigned i = 0; i < 6; i++) {
      hdr_init(&F.q, &h, VAGX_JOB_TYPE_NOP, F.root, F.seq++);
      h.timeout_ms = 100;
      tq_submit(&F.q, &h, NULL);
      if (i < 5 && !wait_ended(&F, false, GRACE_S))
         finding("harness check: a NOP job did not end");
   }
   wr(&F.d, VAGX_REG_RESET, VAGX_RESET_START(1));
   if (!WAIT_UNTIL(rd(&F.d, VAGX_REG_RESET) == 0, GRACE_S))
      finding("harness check: global RESET did not complete");
   wr(&F.d, VAGX_REG_Q_CONTROL(0), VAGX_Q_CONTROL_ENABLE(1));
   wr(&F.d, VAGX_REG_Q_TAIL(0), 1);
   wr(&F.d, VAGX_REG_Q_DOORBELL(0), 1);
   const double t0 = t_now_s();
   if (!wait_ended(&F, true, 0.1 * MAX_TIMEOUT_MS + GRACE_S))
      finding("harness check: the storm's end was not seen");
   const unsigned head = rd(&F.d, VAGX_REG_Q_HEAD(0)), done = rd(&F.d, VAGX_REG_Q_JOBS_DONE(0));
   if (head != 1 || done != 1 || F.q.tail != 6 || q_state(&F.d, 0) != VAGX_QUEUE_STATE_IDLE)
      finding("harness check: the device did not run slot 0 alone");
   printf("fuzz_core: harness check: storm with HEAD %u != submitted TAIL %u seen ended in "
          "%.1f ms\n", head, F.q.tail, (t_now_s() - t0) * 1000.0);
   vagx_core_frontend_stop(F.d.core);
   tdev_fini(&F.d);
   return 0;
}

static unsigned popcount4(const uint64_t *s)
{
   unsigned n = 0;
   for (unsigned i = 0; i < 4; i++)
      n += (unsigned)__builtin_popcountll(s[i]);
   return n;
}

int main(int argc, char **argv)
{
   double seconds = 30;
   long long seed = -1, only = -1, max_iters = -1;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
         seconds = atof(argv[++i]);
      else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
         seed = atoll(argv[++i]);
      else if (!strcmp(argv[i], "--only") && i + 1 < argc)
         only = atoll(argv[++i]);
      else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
         max_iters = atoll(argv[++i]);
      else if (!strcmp(argv[i], "--verbose"))
         verbose = true;
      else if (!strcmp(argv[i], "--harness-check"))
         return harness_check();
      else {
         fprintf(stderr, "usage: fuzz_core [--seconds N] [--seed S] [--only I] [--iters N] [--verbose] [--harness-check]\n");
         return 2;
      }
   }
   __sanitizer_set_death_callback(on_death);
   signal(SIGABRT, on_abort);
   static const long long seed_list[] = {1, 2, 3, 5, 8, 11};
   const unsigned nseeds = seed >= 0 ? 1 : sizeof(seed_list) / sizeof(seed_list[0]);
   const double t_start = t_now_s();
   struct fuzz total;
   memset(&total, 0, sizeof(total));
   for (unsigned si = 0; si < nseeds; si++) {
      const uint64_t s = seed >= 0 ? (uint64_t)seed : (uint64_t)seed_list[si];
      static struct fuzz F;
      fuzz_init(&F);
      if (only >= 0) {
         iteration(&F, s, (uint64_t)only);
      } else {
         const double end = t_start + seconds * (si + 1) / nseeds;
         for (uint64_t it = 0; t_now_s() < end && (max_iters < 0 || (long long)it < max_iters); it++)
            iteration(&F, s, it);
      }
      vagx_core_frontend_stop(F.d.core);
      tdev_fini(&F.d);
      total.iters += F.iters;
      for (unsigned k = 0; k < 5; k++)
         total.jobs[k] += F.jobs[k];
      for (unsigned k = 0; k < 16; k++)
         total.status[k] += F.status[k];
      for (unsigned k = 0; k < 4; k++) {
         total.cmd_seen[k] |= F.cmd_seen[k];
         total.op_seen[k] |= F.op_seen[k];
      }
      total.reg_seen |= F.reg_seen;
      total.mmio_writes += F.mmio_writes;
      total.resets += F.resets;
      if (F.max_ms_over > total.max_ms_over) {
         total.max_ms_over = F.max_ms_over;
         total.worst_iter = F.worst_iter;
         total.worst_seed = s;
      }
      printf("seed %llu: %llu iterations\n", (unsigned long long)s, (unsigned long long)F.iters);
   }
   printf("fuzz_core: %llu iterations in %.1f s; jobs nop %llu render %llu compute %llu copy %llu "
          "fill %llu; %llu register writes (%llu resets); %u control-stream opcodes, %u ISA opcodes "
          "generated; results:",
          (unsigned long long)total.iters, t_now_s() - t_start, (unsigned long long)total.jobs[0],
          (unsigned long long)total.jobs[1], (unsigned long long)total.jobs[2],
          (unsigned long long)total.jobs[3], (unsigned long long)total.jobs[4],
          (unsigned long long)total.mmio_writes, (unsigned long long)total.resets,
          popcount4(total.cmd_seen), popcount4(total.op_seen));
   for (unsigned k = 0; k < 16; k++)
      if (total.status[k])
         printf(" %u:%llu", k, (unsigned long long)total.status[k]);
   printf("; a job ended at most %llu ms after its timeout (seed %llu iteration %llu); "
          "no findings\n",
          (unsigned long long)total.max_ms_over, (unsigned long long)total.worst_seed,
          (unsigned long long)total.worst_iter);
   return 0;
}
