/* SPDX-License-Identifier: MIT */
/* Stream output (transform feedback, contract 1.2) tests: render jobs built
 * in flat memory (identity translate), a vertex shader that copies per-vertex
 * words from memory, and expected buffer contents computed here from the
 * decomposition rules of render.md (an independent reference: index lists
 * are split at restarts and decomposed per topology and provoking-vertex
 * convention, never by the renderer's assembler).  Covers every topology
 * with restart and instancing, draws crossing the device's vertex batches,
 * overflow, append across jobs, rasteriser discard, the primitive queries
 * and the documented errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "vagx_asm.h"

#include "vagx_check.h"

/* ------------------------------------------------------------ memory -- */
#define MEM_SIZE (32u << 20)
#include "render_test_job.h"
#include "render_test_prims.h"

#define HOLE_VA (MEM_BASE + MEM_SIZE + 0x10000) /* never translates */
static uint32_t *wptr(uint64_t va) { return (uint32_t *)ptr(va); }

static void usc(struct vagx_usc_program *u, uint64_t code, const uint32_t *uni, unsigned nuni,
                uint64_t img)
{
   t_usc_program(u, code, 32, nuni, nuni ? put(uni, nuni * 4, 4) : 0);
   if (img) {
      u->image_count = 1;
      u->image_va = img;
   }
}

/* Control stream writer. */
static uint32_t cs[4096];
static unsigned ncs;
#define EMIT(T, ...) VAGX_CS_EMIT(cs, ncs, T, __VA_ARGS__)
/* VA of the last stream make_job placed (commands are copied in order). */
static uint64_t last_cs_va;

/* ------------------------------------------------------------ vertices -- */
/* Vertex v's output words: 4 position words, NVAR varyings read from memory,
 * then sr.instance_id ^ sr.base_instance << 20 (inst_word).  Word i of
 * vertex v holds tag(v, i). */
#define NVAR 2
#define NOUT (4 + NVAR + 1)
#define MAXV 8192
static uint64_t vtx_va;
static uint32_t tag(uint32_t v, unsigned i) { return 0x40000000u | v << 4 | i; }
/* the last output word of instance i (from 0) of a draw with base b */
static uint32_t inst_word(uint32_t i, uint32_t b) { return (b + i) ^ b << 20; }

/* With draw_params set, the last word is param_word(sr.base_vertex,
 * sr.draw_id, sr.instance_id) instead (contract 1.9). */
static bool draw_params;
static uint32_t param_word(int32_t base_vertex, uint32_t draw_id, uint32_t instance)
{
   return (uint32_t)base_vertex << 12 ^ draw_id ^ instance << 28;
}

static uint64_t vs_code(void)
{
   char src[2048];
   int n = snprintf(src, sizeof(src), "imul r1, sr.vertex_id, #%u\n", (4 + NVAR) * 4);
   for (unsigned i = 0; i < 4 + NVAR; i++)
      n += snprintf(src + n, sizeof(src) - n,
                    "iadd r2, r1, #%u\nld_global.b32 r%u, u0, r2\nst_var r%u, #%u\n", i * 4,
                    8 + i, 8 + i, i);
   if (draw_params)
      snprintf(src + n, sizeof(src) - n,
               "shl r4, sr.base_vertex, #12\nxor r3, sr.draw_id, r4\nshl r5, sr.instance_id, #28\n"
               "xor r3, r3, r5\nst_var r3, #%u\nend\n",
               4 + NVAR);
   else
      snprintf(src + n, sizeof(src) - n,
               "shl r4, sr.base_instance, #20\nxor r3, sr.instance_id, r4\nst_var r3, #%u\nend\n",
               4 + NVAR);
   return assemble(src);
}

static void fill_vertices(void)
{
   vtx_va = alloc((uint64_t)MAXV * (4 + NVAR) * 4, 16);
   for (uint32_t v = 0; v < MAXV; v++)
      for (unsigned i = 0; i < 4 + NVAR; i++)
         wptr(vtx_va)[v * (4 + NVAR) + i] = tag(v, i);
}

/* Vertices 0..2 as a real triangle covering the framebuffer centre. */
static void real_triangle(void)
{
   const float p[3][4] = {{-1, -1, 0, 1}, {3, -1, 0, 1}, {-1, 3, 0, 1}};
   for (unsigned v = 0; v < 3; v++)
      memcpy(&wptr(vtx_va)[v * (4 + NVAR)], p[v], 16);
}

/* ------------------------------------------------------------ jobs -- */
#define W 32
#define H 32
static uint64_t fb_va;
static const float clear_col[4] = {0.25f, 0.5f, 0.75f, 1.0f};

static void begin_stream(void) { ncs = 0; }

/* State every draw needs; discard = rasteriser discard. */
static void emit_state(bool discard, bool provoking_first)
{
   uint32_t uni[2] = {(uint32_t)vtx_va, (uint32_t)(vtx_va >> 32)};
   EMIT(cmd_bind_vertex_pipeline, v_.smooth32 = NVAR + 1; usc(&v_.program, vs_code(), uni, 2, 0));
   /* fragment shader: constant red */
   static const char *fs = "mov r0, #0x3f800000\nmov r1, #0\nmov r2, #0\nmov r3, #0x3f800000\n"
                           "st_tile.rt0 r0, #0\nend\n";
   EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; usc(&v_.program, assemble(fs), NULL, 0, 0));
   EMIT(cmd_viewport, v_.scale_x = W / 2.0f; v_.offset_x = W / 2.0f; v_.scale_y = H / 2.0f;
        v_.offset_y = H / 2.0f; v_.scale_z = 1; v_.max_depth = 1);
   EMIT(cmd_scissor, v_.max_x = W; v_.max_y = H);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.discard = discard;
        v_.provoking = provoking_first ? VAGX_PROVOKING_VERTEX_FIRST : VAGX_PROVOKING_VERTEX_LAST);
   EMIT(cmd_depth_stencil, v_.depth_func = VAGX_COMPARE_FUNC_ALWAYS);
}

/* The job around the stream: render_test_job.h's (clear to clear_col, RT0
 * stored to a W x H linear framebuffer). */
static uint64_t make_job(void)
{
   memcpy(rtj_cs, cs, ncs * 4);
   rtj_ncs = ncs;
   rtj_w = W;
   rtj_h = H;
   const uint64_t job = rtj_finish(clear_col);
   last_cs_va = rtj_cs_va;
   fb_va = rtj_fb_va;
   return job;
}

static struct vagx_render_device *dev;
static unsigned nworkers = 2;

static void rr_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   unsigned nw = *(unsigned *)opaque;
   for (unsigned i = 0; i < n; i++)
      fn(ctx, i, i % nw);
}

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

/* Byte offset in the stream of the command about to be emitted; its VA is
 * last_cs_va + here() once make_job has placed the stream. */
static uint64_t here(void) { return ncs * 4; }

/* ------------------------------------------------------------ stream out -- */
struct sobuf {
   uint64_t va, offset_va;
   uint32_t size, stride;
};

static struct sobuf make_buf(uint32_t size, uint32_t stride)
{
   struct sobuf b = {.size = size, .stride = stride};
   b.va = alloc(size + 64, 64);
   memset(ptr(b.va), 0xee, size + 64);   /* sentinel: never written by the device */
   b.offset_va = alloc(4, 4);
   *wptr(b.offset_va) = 0xdeadbeef;
   return b;
}

static void bind_buf(unsigned index, const struct sobuf *b, bool append, uint32_t offset)
{
   EMIT(cmd_stream_out_buffer, v_.index = index; v_.append = append; v_.base_va = b->va;
        v_.size = b->size; v_.stride = b->stride; v_.offset = offset; v_.offset_va = b->offset_va);
}

static uint32_t decl(unsigned src, unsigned count, unsigned buffer, unsigned dst)
{
   struct vagx_stream_out_decl d;
   vagx_stream_out_decl_init(&d);
   d.src = src;
   d.count = count;
   d.buffer = buffer;
   d.dst = dst;
   uint32_t w;
   vagx_stream_out_decl_pack(&w, &d);
   return w;
}

static void stream_out(bool enable, const uint32_t *decls, unsigned n)
{
   uint64_t va = n ? put(decls, n * 4, 4) : 0;
   EMIT(cmd_stream_out, v_.enable = enable; v_.decl_count = n; v_.decls_va = va);
}

/* The layout most tests use: buffer 0 (stride 16) gets position x, y in
 * dwords 0-1 and varying 1 in dword 2 (dword 3 untouched), buffer 1 (stride
 * 8) gets the instance id in dword 1 and varying 0 in dword 0. */
static const unsigned L_STRIDE0 = 16, L_STRIDE1 = 8;
static void std_decls(void)
{
   const uint32_t d[] = {decl(0, 2, 0, 0), decl(5, 1, 0, 2), decl(6, 1, 1, 1), decl(4, 1, 1, 0)};
   stream_out(true, d, 4);
}
/* Expected record of vertex v (instance inst) in buffer 0 / 1. */
static void rec0(uint32_t v, uint32_t r[4])
{
   r[0] = tag(v, 0);
   r[1] = tag(v, 1);
   r[2] = tag(v, 5);
   r[3] = 0xeeeeeeee;
}
static void rec1(uint32_t v, uint32_t inst, uint32_t r[2])
{
   r[0] = tag(v, 4);
   r[1] = inst;
}

/* ------------------------------------------------------------ reference -- */
/* Checks the records of buffer 0/1 against the expected vertex list. */
static int check_records(const struct sobuf *b0, const struct sobuf *b1, const uint32_t *verts,
                         const uint32_t *inst, unsigned nverts, const char *what)
{
   int bad = 0;
   for (unsigned i = 0; i < nverts && bad < 5; i++) {
      uint32_t r0[4], r1[2];
      rec0(verts[i], r0);
      rec1(verts[i], inst[i], r1);
      if (memcmp(wptr(b0->va + i * L_STRIDE0), r0, 16)) {
         fprintf(stderr, "  %s: buffer 0 vertex %u: %08x %08x %08x %08x, expected %08x %08x %08x %08x\n",
                 what, i, wptr(b0->va + i * L_STRIDE0)[0], wptr(b0->va + i * L_STRIDE0)[1],
                 wptr(b0->va + i * L_STRIDE0)[2], wptr(b0->va + i * L_STRIDE0)[3], r0[0], r0[1],
                 r0[2], r0[3]);
         bad++;
      }
      if (b1 && memcmp(wptr(b1->va + i * L_STRIDE1), r1, 8)) {
         fprintf(stderr, "  %s: buffer 1 vertex %u: %08x %08x, expected %08x %08x\n", what, i,
                 wptr(b1->va + i * L_STRIDE1)[0], wptr(b1->va + i * L_STRIDE1)[1], r1[0], r1[1]);
         bad++;
      }
   }
   return bad;
}

static bool untouched(uint64_t va, uint32_t bytes)
{
   const uint8_t *p = ptr(va);
   for (uint32_t i = 0; i < bytes; i++)
      if (p[i] != 0xee)
         return false;
   return true;
}

/* A new control stream drawing with rasterisation discarded (provoking
 * vertex first when provoking_first) and streaming out into b0 and b1 from
 * their starts under std_decls(). */
static void stream_two(const struct sobuf *b0, const struct sobuf *b1, bool provoking_first)
{
   begin_stream();
   emit_state(true, provoking_first);
   bind_buf(0, b0, false, 0);
   bind_buf(1, b1, false, 0);
   std_decls();
}

/* ------------------------------------------------------------ tests -- */
static const char *prim_name[] = {"points", "lines", "line_loop", "line_strip",
                                  "triangles", "tri_strip", "tri_fan"};

/* Every topology, indexed with restarts, 2 instances (base_instance 5), both
 * provoking conventions; counts of the two queries; vertex order. */
static void test_topologies(void)
{
   /* runs of 1..7 vertices between restarts (incomplete primitives too) */
   static const int32_t idx_src[] = {3, 9, 1, 4, -1, 7, -1, 2, 8, 6, 5, 11, 12, 13, -1,
                                     10, 20, -1, 14, 15, 16, 17, 18, 19, 21};
   const unsigned n = sizeof(idx_src) / sizeof(idx_src[0]);
   uint16_t idx[32];
   int64_t ids[32];
   for (unsigned i = 0; i < n; i++) {
      idx[i] = idx_src[i] < 0 ? 0xffff : (uint16_t)idx_src[i];
      ids[i] = idx_src[i] < 0 ? -1 : idx_src[i] + 100; /* base_vertex 100 */
   }
   for (int p = VAGX_PRIMITIVE_POINTS; p <= VAGX_PRIMITIVE_TRIANGLE_FAN; p++) {
      for (int first = 0; first < 2; first++) {
         brk_ = 0;
         fill_vertices();
         uint64_t idx_va = put(idx, sizeof(idx), 4);
         struct sobuf b0 = make_buf(4096, L_STRIDE0), b1 = make_buf(4096, L_STRIDE1);
         uint64_t qg = alloc(8, 8), qe = alloc(8, 8);
         *(uint64_t *)ptr(qg) = 1000; /* results accumulate */
         stream_two(&b0, &b1, first);
         EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = qg);
         EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED; v_.result_va = qe);
         EMIT(cmd_draw, v_.primitive = p; v_.index_size = VAGX_INDEX_SIZE_U16; v_.restart = 1;
              v_.restart_index = 0xffff; v_.count = n; v_.instance_count = 2; v_.base_vertex = 100;
              v_.base_instance = 5; v_.index_va = idx_va; v_.index_buffer_size = n * 2);
         EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED);
         EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
         uint64_t job = make_job();
         struct vagx_render_fault f;
         enum vagx_job_status st = run(job, &f);
         CHECK(st == VAGX_JOB_STATUS_OK, "%s first=%d: status %d", prim_name[p], first, st);

         uint32_t verts[256], inst[256];
         unsigned k = 0, nv = 0, prims = 0;
         for (unsigned i = 0; i < 2; i++) {
            unsigned k0 = k;
            prims += ref_decompose(p, ids, n, first, verts, &k, &nv);
            for (unsigned q = k0; q < k; q++)
               inst[q] = inst_word(i, 5);
         }
         char what[64];
         snprintf(what, sizeof(what), "%s first=%d", prim_name[p], first);
         CHECK(!check_records(&b0, &b1, verts, inst, k, what), "%s: records", what);
         CHECK(untouched(b0.va + k * L_STRIDE0, 64) && untouched(b1.va + k * L_STRIDE1, 64),
               "%s: nothing written past %u vertices", what, k);
         CHECK(*wptr(b0.offset_va) == k * L_STRIDE0 && *wptr(b1.offset_va) == k * L_STRIDE1,
               "%s: offsets %u %u, expected %u %u", what, *wptr(b0.offset_va),
               *wptr(b1.offset_va), k * L_STRIDE0, k * L_STRIDE1);
         CHECK(*(uint64_t *)ptr(qg) == 1000 + prims, "%s: generated %llu, expected %u", what,
               (unsigned long long)*(uint64_t *)ptr(qg), 1000 + prims);
         CHECK(*(uint64_t *)ptr(qe) == prims, "%s: emitted %llu, expected %u", what,
               (unsigned long long)*(uint64_t *)ptr(qe), prims);
      }
   }
}

/* Indirect draws: the instance count and base instance come from memory
 * (cmd_draw's are ignored), and sr.base_instance is the one read
 * (contract 1.7), non-indexed and indexed. */
static void test_indirect_base_instance(void)
{
   brk_ = 0;
   fill_vertices();
   struct sobuf b0 = make_buf(64 * L_STRIDE0, L_STRIDE0), b1 = make_buf(64 * L_STRIDE1, L_STRIDE1);
   const uint32_t args[] = {3, 2, 4, 9,       /* draw_indirect_args: base 9 */
                            3, 3, 0, 20, 7};  /* draw_indexed_indirect_args: base 7 */
   const uint64_t args_va = put(args, sizeof(args), 4);
   static const uint16_t idx[] = {2, 0, 1};
   const uint64_t idx_va = put(idx, sizeof(idx), 4);
   stream_two(&b0, &b1, false);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.indirect = 1; v_.count = 99;
        v_.instance_count = 99; v_.base_instance = 5; v_.indirect_va = args_va);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.indirect = 1;
        v_.index_size = VAGX_INDEX_SIZE_U16; v_.index_va = idx_va; v_.index_buffer_size = 6;
        v_.base_instance = 5; v_.indirect_va = args_va + 16);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(), &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "indirect base instance: status %d", st);
   uint32_t verts[15], inst[15];
   unsigned k = 0;
   for (uint32_t i = 0; i < 2; i++)
      for (uint32_t v = 0; v < 3; v++, k++) {
         verts[k] = 4 + v;
         inst[k] = inst_word(i, 9);
      }
   for (uint32_t i = 0; i < 3; i++)
      for (uint32_t v = 0; v < 3; v++, k++) {
         verts[k] = idx[v] + 20;
         inst[k] = inst_word(i, 7);
      }
   CHECK(!check_records(&b0, &b1, verts, inst, k, "indirect base instance"),
         "indirect base instance: records");
   CHECK(*wptr(b0.offset_va) == k * L_STRIDE0, "indirect base instance: %u vertices written, expected %u",
         *wptr(b0.offset_va) / L_STRIDE0, k);
}

/* Draw parameters (contract 1.9): sr.base_vertex is an indexed draw's
 * base_vertex (negative too; an indirect draw's from memory) and 0 for a
 * non-indexed draw whatever cmd_draw.base_vertex holds; sr.draw_id is
 * cmd_draw.draw_id (up to MAX_DRAW_ID) plus cmd_draw_id_base's base, for
 * direct and indirect draws. */
static void test_draw_parameters(void)
{
   brk_ = 0;
   draw_params = true;
   fill_vertices();
   struct sobuf b0 = make_buf(64 * L_STRIDE0, L_STRIDE0), b1 = make_buf(64 * L_STRIDE1, L_STRIDE1);
   const uint32_t args[] = {3, 1, 4, 9,                   /* draw_indirect_args */
                            3, 2, 0, (uint32_t)-10, 7};   /* draw_indexed_indirect_args */
   const uint64_t args_va = put(args, sizeof(args), 4);
   static const uint16_t idx[] = {12, 10, 11};
   const uint64_t idx_va = put(idx, sizeof(idx), 4);
   stream_two(&b0, &b1, false);
   /* non-indexed: first 4, a base_vertex field that must not show */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1;
        v_.first = 4; v_.base_vertex = 5; v_.draw_id = 3);
   /* indexed, base vertex -10 and 20, the largest draw id */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1;
        v_.index_size = VAGX_INDEX_SIZE_U16; v_.index_va = idx_va; v_.index_buffer_size = 6;
        v_.base_vertex = -10; v_.draw_id = VAGX_MAX_DRAW_ID);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1;
        v_.index_size = VAGX_INDEX_SIZE_U16; v_.index_va = idx_va; v_.index_buffer_size = 6;
        v_.base_vertex = 20; v_.draw_id = 0);
   /* indirect: the base vertex from memory (cmd_draw's ignored), the draw
    * id from cmd_draw */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.indirect = 1; v_.base_vertex = 5;
        v_.draw_id = 1; v_.indirect_va = args_va);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.indirect = 1; v_.base_vertex = 99;
        v_.index_size = VAGX_INDEX_SIZE_U16; v_.index_va = idx_va; v_.index_buffer_size = 6;
        v_.draw_id = 2; v_.indirect_va = args_va + 16);
   /* a base for larger draw indices, then back to 0 */
   EMIT(cmd_draw_id_base, v_.base = 0x12340000);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1;
        v_.first = 7; v_.draw_id = 5);
   EMIT(cmd_draw_id_base, v_.base = 0);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1;
        v_.first = 7; v_.draw_id = 6);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(), &f);
   draw_params = false;
   CHECK(st == VAGX_JOB_STATUS_OK, "draw parameters: status %d", st);
   uint32_t verts[24], word[24];
   unsigned k = 0;
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = 4 + v;
      word[k] = param_word(0, 3, 0);
   }
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = idx[v] - 10;
      word[k] = param_word(-10, VAGX_MAX_DRAW_ID, 0);
   }
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = idx[v] + 20;
      word[k] = param_word(20, 0, 0);
   }
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = 4 + v;
      word[k] = param_word(0, 1, 9);
   }
   for (uint32_t i = 0; i < 2; i++)
      for (uint32_t v = 0; v < 3; v++, k++) {
         verts[k] = idx[v] - 10;
         word[k] = param_word(-10, 2, 7 + i);
      }
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = 7 + v;
      word[k] = param_word(0, 0x12340005, 0);
   }
   for (uint32_t v = 0; v < 3; v++, k++) {
      verts[k] = 7 + v;
      word[k] = param_word(0, 6, 0);
   }
   CHECK(!check_records(&b0, &b1, verts, word, k, "draw parameters"), "draw parameters: records");
   CHECK(*wptr(b0.offset_va) == k * L_STRIDE0, "draw parameters: %u vertices written, expected %u",
         *wptr(b0.offset_va) / L_STRIDE0, k);
}

/* Long non-indexed draws cross the device's vertex batches: strips must keep
 * their parity, fans their centre, loops their first vertex. */
static void test_long_draws(void)
{
   static const struct { enum vagx_primitive p; unsigned count; } cases[] = {
      {VAGX_PRIMITIVE_TRIANGLE_STRIP, 4001}, {VAGX_PRIMITIVE_TRIANGLE_FAN, 3100},
      {VAGX_PRIMITIVE_LINE_LOOP, 3077},      {VAGX_PRIMITIVE_TRIANGLES, 3200},
      {VAGX_PRIMITIVE_LINE_STRIP, 1537},
   };
   static int64_t ids[MAXV];
   static uint32_t verts[3 * MAXV], inst[3 * MAXV];
   for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
      brk_ = 0;
      fill_vertices();
      const unsigned first = 7;
      for (unsigned i = 0; i < cases[c].count; i++)
         ids[i] = first + i;
      unsigned k = 0, nv;
      unsigned prims = ref_decompose(cases[c].p, ids, cases[c].count, false, verts, &k, &nv);
      memset(inst, 0, sizeof(inst));
      struct sobuf b0 = make_buf(k * L_STRIDE0, L_STRIDE0);
      struct sobuf b1 = make_buf(k * L_STRIDE1, L_STRIDE1);
      uint64_t qe = alloc(8, 8);
      stream_two(&b0, &b1, false);
      EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED; v_.result_va = qe);
      EMIT(cmd_draw, v_.primitive = cases[c].p; v_.count = cases[c].count; v_.first = first;
           v_.instance_count = 1);
      EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
      struct vagx_render_fault f;
      enum vagx_job_status st = run(make_job(), &f);
      char what[64];
      snprintf(what, sizeof(what), "long %s %u", prim_name[cases[c].p], cases[c].count);
      CHECK(st == VAGX_JOB_STATUS_OK, "%s: status %d", what, st);
      CHECK(!check_records(&b0, &b1, verts, inst, k, what), "%s: records", what);
      CHECK(*(uint64_t *)ptr(qe) == prims, "%s: emitted %llu, expected %u", what,
            (unsigned long long)*(uint64_t *)ptr(qe), prims);
      CHECK(untouched(b0.va + b0.size, 64), "%s: wrote past the buffer", what);
   }
}

/* Overflow: a triangle that does not fit entirely is neither written nor
 * emitted (but generated); a later point still fits. */
static void test_overflow(void)
{
   brk_ = 0;
   fill_vertices();
   /* room for 2 triangles and 2 more vertices (buffer 0 is the smaller one) */
   struct sobuf b0 = make_buf(8 * L_STRIDE0, L_STRIDE0), b1 = make_buf(100 * L_STRIDE1, L_STRIDE1);
   uint64_t qg = alloc(8, 8), qe = alloc(8, 8);
   stream_two(&b0, &b1, false);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = qg);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED; v_.result_va = qe);
   /* 5 triangles: 0-2, 3-5 fit (6 vertices), 6-8.. do not */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 15; v_.instance_count = 1);
   /* 2 points fit in the 2 remaining vertices, the third does not */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = 3; v_.first = 50;
        v_.instance_count = 1);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(), &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "overflow: status %d", st);
   const uint32_t verts[] = {0, 1, 2, 3, 4, 5, 50, 51};
   const uint32_t inst[8] = {0};
   CHECK(!check_records(&b0, &b1, verts, inst, 8, "overflow"), "overflow: records");
   CHECK(untouched(b0.va + 8 * L_STRIDE0, 64), "overflow: buffer 0 written past its size");
   CHECK(untouched(b1.va + 8 * L_STRIDE1, 64),
         "overflow: buffer 1 got a primitive buffer 0 had no room for");
   CHECK(*wptr(b0.offset_va) == 8 * L_STRIDE0 && *wptr(b1.offset_va) == 8 * L_STRIDE1,
         "overflow: offsets %u %u", *wptr(b0.offset_va), *wptr(b1.offset_va));
   CHECK(*(uint64_t *)ptr(qg) == 5 + 3, "overflow: generated %llu, expected 8",
         (unsigned long long)*(uint64_t *)ptr(qg));
   CHECK(*(uint64_t *)ptr(qe) == 2 + 2, "overflow: emitted %llu, expected 4",
         (unsigned long long)*(uint64_t *)ptr(qe));
}

/* Append: job 1 starts at `offset` 2 vertices in and draws two triangles;
 * job 2 binds with append and continues after them; job 3 restarts at 0. */
static void test_append(void)
{
   brk_ = 0;
   fill_vertices();
   struct sobuf b0 = make_buf(64 * L_STRIDE0, L_STRIDE0);
   const uint32_t d[] = {decl(0, 2, 0, 0), decl(5, 1, 0, 2)};

   begin_stream();
   emit_state(true, false);
   bind_buf(0, &b0, false, 2 * L_STRIDE0);
   stream_out(true, d, 2);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
   struct vagx_render_fault f;
   CHECK(run(make_job(), &f) == VAGX_JOB_STATUS_OK, "append job 1");
   CHECK(*wptr(b0.offset_va) == 8 * L_STRIDE0, "append job 1 offset %u", *wptr(b0.offset_va));

   begin_stream();
   emit_state(true, false);
   bind_buf(0, &b0, true, 0);
   stream_out(true, d, 2);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 30;
        v_.instance_count = 1);
   /* disabled stream output: the next draw neither writes nor moves offsets */
   stream_out(false, NULL, 0);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.first = 40;
        v_.instance_count = 1);
   CHECK(run(make_job(), &f) == VAGX_JOB_STATUS_OK, "append job 2");
   CHECK(*wptr(b0.offset_va) == 11 * L_STRIDE0, "append job 2 offset %u", *wptr(b0.offset_va));
   CHECK(untouched(b0.va, 2 * L_STRIDE0), "append: bytes before the first offset written");
   const uint32_t verts[] = {0, 1, 2, 3, 4, 5, 30, 31, 32};
   const uint32_t inst[9] = {0};
   struct sobuf v = b0;
   v.va = b0.va + 2 * L_STRIDE0;
   CHECK(!check_records(&v, NULL, verts, inst, 9, "append"), "append: records");
   CHECK(untouched(b0.va + 11 * L_STRIDE0, 64), "append: disabled draw wrote");

   /* a binding stores its offset even before any draw: a later append sees it */
   begin_stream();
   emit_state(true, false);
   bind_buf(0, &b0, false, 0);
   CHECK(run(make_job(), &f) == VAGX_JOB_STATUS_OK, "append job 3");
   CHECK(*wptr(b0.offset_va) == 0, "bind stores the offset: %u", *wptr(b0.offset_va));
}

/* Rasteriser discard: stream output and counting without any fragment;
 * without discard the same draw streams out and renders. */
static void test_discard(void)
{
   for (int discard = 0; discard < 2; discard++) {
      brk_ = 0;
      fill_vertices();
      real_triangle();
      struct sobuf b0 = make_buf(3 * 16, 16);
      const uint32_t d[] = {decl(0, 4, 0, 0)};
      uint64_t qg = alloc(8, 8), occ = alloc(8, 8);
      begin_stream();
      emit_state(discard, false);
      bind_buf(0, &b0, false, 0);
      stream_out(true, d, 1);
      /* an occlusion query and a generated query active at once */
      EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = occ);
      EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = qg);
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
      EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER);
      EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED);
      struct vagx_render_fault f;
      CHECK(run(make_job(), &f) == VAGX_JOB_STATUS_OK, "discard=%d: status", discard);
      const float p[3][4] = {{-1, -1, 0, 1}, {3, -1, 0, 1}, {-1, 3, 0, 1}};
      CHECK(!memcmp(ptr(b0.va), p, sizeof(p)), "discard=%d: positions streamed out", discard);
      const uint8_t *c = ptr(fb_va + (H / 2 * W + W / 2) * 4);
      const bool red = c[0] == 255 && c[1] == 0 && c[2] == 0;
      CHECK(red == !discard, "discard=%d: centre pixel %u,%u,%u", discard, c[0], c[1], c[2]);
      CHECK(*(uint64_t *)ptr(qg) == 1, "discard=%d: generated %llu", discard,
            (unsigned long long)*(uint64_t *)ptr(qg));
      CHECK(*(uint64_t *)ptr(occ) == (discard ? 0u : (uint64_t)W * H),
            "discard=%d: occlusion %llu", discard, (unsigned long long)*(uint64_t *)ptr(occ));
   }
   /* generated counts with discard and no stream output (enable = 0) */
   brk_ = 0;
   fill_vertices();
   uint64_t qg = alloc(8, 8), qe = alloc(8, 8);
   begin_stream();
   emit_state(true, false);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = qg);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED; v_.result_va = qe);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_LINE_LOOP; v_.count = 5; v_.instance_count = 3);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED);
   struct vagx_render_fault f;
   CHECK(run(make_job(), &f) == VAGX_JOB_STATUS_OK, "generated without stream out");
   CHECK(*(uint64_t *)ptr(qg) == 15 && *(uint64_t *)ptr(qe) == 0,
         "generated %llu (expected 15), emitted %llu (expected 0) without stream output",
         (unsigned long long)*(uint64_t *)ptr(qg), (unsigned long long)*(uint64_t *)ptr(qe));
}

/* A point streamed out into buffer 0 (256 bytes, `stride`) under the
 * declaration d, which the VDM must reject as an invalid command at the
 * draw. */
static void bad_decl_case(unsigned stride, uint32_t d, const char *what)
{
   brk_ = 0;
   fill_vertices();
   struct sobuf b0 = make_buf(256, stride);
   begin_stream();
   emit_state(true, false);
   bind_buf(0, &b0, false, 0);
   stream_out(true, &d, 1);
   uint64_t draw_va = here();
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = 1; v_.instance_count = 1);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(), &f);
   draw_va += last_cs_va;
   CHECK(st == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_VDM && f.address == draw_va,
         "%s: status %d unit %d address %llx (draw %llx)", what, st, f.unit,
         (unsigned long long)f.address, (unsigned long long)draw_va);
}

/* Documented errors: unit and address of each. */
static void test_errors(void)
{
   struct vagx_render_fault f;
   enum vagx_job_status st;
   const uint32_t ok_decl[] = {decl(0, 2, 0, 0)};

   /* declaration names an unbound buffer, reaches past the vertex outputs
    * (NOUT words), is wider than the stride */
   bad_decl_case(16, decl(0, 2, 1, 0), "unbound buffer");
   bad_decl_case(16, decl(NOUT - 1, 2, 0, 0), "decl past outputs");
   bad_decl_case(8, decl(0, 2, 0, 1), "decl past stride");

   /* unmapped buffer: MMU fault of the PPP at the first vertex's address */
   brk_ = 0;
   fill_vertices();
   struct sobuf hole = {.va = HOLE_VA, .size = 256, .stride = 16};
   begin_stream();
   emit_state(true, false);
   bind_buf(0, &hole, false, 32);
   stream_out(true, ok_decl, 1);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = 1; v_.instance_count = 1);
   st = run(make_job(), &f);
   CHECK(st == VAGX_JOB_STATUS_MMU_FAULT && f.unit == VAGX_UNIT_PPP && f.address == HOLE_VA + 32,
         "unmapped buffer: status %d unit %d address %llx", st, f.unit,
         (unsigned long long)f.address);

   /* unmapped offset_va with append: MMU fault of the VDM */
   brk_ = 0;
   fill_vertices();
   struct sobuf b0 = make_buf(256, 16);
   b0.offset_va = HOLE_VA + 8;
   begin_stream();
   emit_state(true, false);
   bind_buf(0, &b0, true, 0);
   st = run(make_job(), &f);
   CHECK(st == VAGX_JOB_STATUS_MMU_FAULT && f.unit == VAGX_UNIT_VDM && f.address == HOLE_VA + 8,
         "unmapped offset_va: status %d unit %d", st, f.unit);

   /* bad commands: append without offset_va (the _unpack check), stride
    * over the maximum, nested generated query, end without begin */
   for (int c = 0; c < 4; c++) {
      brk_ = 0;
      fill_vertices();
      begin_stream();
      emit_state(true, false);
      uint64_t bad_va = here();
      uint64_t q = alloc(8, 8);
      switch (c) {
      case 0:
         EMIT(cmd_stream_out_buffer, v_.append = 1; v_.base_va = MEM_BASE; v_.size = 16;
              v_.stride = 16);
         break;
      case 1: {
         /* packed by hand: _pack does not check the maximum */
         EMIT(cmd_stream_out_buffer, v_.base_va = MEM_BASE; v_.size = 16; v_.stride = 16);
         cs[ncs - 8 + 4] = VAGX_MAX_STREAM_OUT_STRIDE + 4;
         break;
      }
      case 2:
         EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = q);
         bad_va = here();
         EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = q);
         break;
      case 3:
         EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = q);
         bad_va = here();
         EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
         break;
      }
      st = run(make_job(), &f);
      bad_va += last_cs_va;
      CHECK(st == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_VDM &&
               f.address == bad_va,
            "bad command %d: status %d unit %d address %llx (expected %llx)", c, st, f.unit,
            (unsigned long long)f.address, (unsigned long long)bad_va);
   }
}

int main(void)
{
   mem = aligned_alloc(4096, MEM_SIZE);
   dev = vagx_render_device_create();
   if (!mem || !dev)
      return 2;
   test_topologies();
   test_long_draws();
   test_indirect_base_instance();
   test_draw_parameters();
   test_overflow();
   test_append();
   test_discard();
   test_errors();
   vagx_render_device_destroy(dev);
   free(mem);
   printf("%d/%d checks passed\n", t_checks - t_failures, t_checks);
   return t_failures ? 1 : 0;
}
