/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: faults and hostile jobs: invalid commands and MMU
 * faults with their unit and address, the geometry budget, NaN/inf,
 * degenerate and enormous geometry, out-of-range indices.  The harness is
 * render_test_harness.h, main() in test_render.c.
 */
#include "render_test_harness.h"

void test_faults(void)
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
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_INVALID_COMMAND, "draw before state -> %d", f.status);
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
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_MMU_FAULT, "wild vertex fetch -> %d", f.status);
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
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, "illegal fs -> %d", f.status);
}

/* Geometry budget: an enormous draw (2^32 - 16 points, all visible) fails
 * with INVALID_COMMAND at the draw once the job's geometry exceeds the
 * budget, with memory bounded by the vertex batch (it must not try to
 * allocate per-vertex storage for the whole count); a draw within the
 * budget renders. */
void test_geometry_budget(void)
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
void test_bad_geometry(void)
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
   struct job_opts o = {.clear = {0, 0, 0, 0}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
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
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "3e38 triangle: status %d", f.status);
}
