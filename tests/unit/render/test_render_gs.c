/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: the geometry stage (contract 1.11, render.md
 * "geometry stage", render_gs.c) with hand-assembled geometry programs: a
 * pass-through program draws the image the draw draws without one (also
 * with the geometry phase on the pool, in both orders), points expanded to
 * quads, strips with cut, emits past max_vertices, invocations and
 * primitive ids (per instance), outputs reset by emit, triangle-strip
 * winding, every adjacency topology's vertex order (across vertex batches),
 * stream output and the PRIMITIVES_* queries of the output, and the errors.
 * The harness is render_test_harness.h, main() in test_render.c.
 */
#include "render_test_harness.h"

static void bind_gs(enum vagx_gs_input in, enum vagx_gs_output out, unsigned inv, unsigned inw,
                    unsigned maxv, unsigned smooth, const char *src)
{
   struct prog gs = {.code = assemble(src)};
   EMIT(cmd_bind_geometry_pipeline, v_.input_primitive = in; v_.output_primitive = out;
        v_.invocations = inv; v_.input_words = inw; v_.max_vertices = maxv; v_.smooth32 = smooth;
        to_usc(&gs, &v_.program));
}

static void rasterizer(bool discard, bool first)
{
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.discard = discard;
        v_.provoking = first ? VAGX_PROVOKING_VERTEX_FIRST : VAGX_PROVOKING_VERTEX_LAST);
}

/* Stream output of `words` output words from word `src`, one record per
 * vertex, into a buffer of `size` bytes; returns the buffer. */
static uint64_t so_setup(unsigned src, unsigned words, uint32_t size, uint64_t *offset_va)
{
   const uint64_t va = alloc(size, 16);
   memset(ptr(va), 0xee, size);
   *offset_va = alloc(4, 4);
   EMIT(cmd_stream_out_buffer, v_.index = 0; v_.base_va = va; v_.size = size;
        v_.stride = words * 4; v_.offset_va = *offset_va);
   uint32_t w[8];
   unsigned n = 0;
   for (unsigned k = 0; k < words; k += 4, n++) {   /* runs of at most 4 words */
      struct vagx_stream_out_decl d;
      vagx_stream_out_decl_init(&d);
      d.src = src + k;
      d.count = words - k < 4 ? words - k : 4;
      d.dst = k;
      vagx_stream_out_decl_pack(&w[n], &d);
   }
   EMIT(cmd_stream_out, v_.enable = 1; v_.decl_count = n; v_.decls_va = put(w, n * 4, 4));
   return va;
}

/* A stream-output-only draw's state from an empty stream: nv vertices with
 * nvar varyings for the fetching vertex shader, rasteriser discard, stream
 * output of `words` output words from word `src`; returns the buffer. */
static uint64_t so_scene(unsigned nv, unsigned nvar, const float (*pos)[4], const float *var,
                         bool first, unsigned src, unsigned words, uint32_t size, uint64_t *off_va)
{
   brk_ = 0;
   ncs = 0;
   uint64_t vb = vbuf_put(nv, nvar, pos, var);
   struct prog fs = const_fs(1, 0, 0, 1);
   emit_state(nvar, 0, 0, vb, &fs, NULL, 0, 0, false);
   rasterizer(true, first);
   return so_setup(src, words, size, off_va);
}

/* The pass-through program: every vertex of a triangle, all `words` words. */
static const char *passthrough(unsigned words)
{
   static char src[8192];
   int n = 0;
   for (unsigned v = 0; v < 3; v++) {
      for (unsigned w = 0; w < words; w++)
         n += snprintf(src + n, sizeof(src) - n, "ld_vin r1, #%u, #%u\nst_var r1, #%u\n", v, w, w);
      n += snprintf(src + n, sizeof(src) - n, "emit\n");
   }
   snprintf(src + n, sizeof(src) - n, "end\n");
   return src;
}

static uint64_t tri_job(bool gs, bool first, enum vagx_primitive prim)
{
   uint32_t seed = 99;
   const unsigned nv = 900;
   double (*v)[2] = calloc(nv, sizeof(*v));
   float *var = calloc(nv * 4, sizeof(float)), *wv = calloc(nv, sizeof(float));
   for (unsigned i = 0; i < nv; i++) {
      seed = seed * 1664525u + 1013904223u;
      v[i][0] = -20 + (seed >> 8) % (W + 40);
      seed = seed * 1664525u + 1013904223u;
      v[i][1] = -20 + (seed >> 8) % (H + 40);
      wv[i] = 0.5f + (float)(i % 7) / 4;
      for (unsigned k = 0; k < 4; k++)
         var[i * 4 + k] = (float)((i * 7 + k * 3) % 11) / 10;
   }
   ncs = 0;
   uint64_t vb = vbuf_tris((const double(*)[2])v, nv, 4, var, wv, NULL);
   struct prog fs = {.code = assemble("iter.center.persp r0, cf1, cf0, r0\n"
                                      "iter.center.persp r1, cf2, cf0, r0\nldcf r2, cf3\n"
                                      "ldcf r3, cf4\nst_tile.rt0 r0, #0\nend\n")};
   uint32_t cfb[3] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 2, 1, VAGX_INTERP_SMOOTH),
                      binding(3, 2, 3, VAGX_INTERP_FLAT)};
   emit_state(4, 0, 0, vb, &fs, cfb, 3, 5, false);
   rasterizer(false, first);
   if (gs)
      bind_gs(VAGX_GS_INPUT_TRIANGLES, VAGX_GS_OUTPUT_TRIANGLE_STRIP, 1, 8, 3, 4, passthrough(8));
   EMIT(cmd_draw, v_.primitive = prim; v_.count = nv; v_.instance_count = 1);
   EMIT(cmd_end);
   free(v);
   free(var);
   free(wv);
   struct job_opts o = {.clear = {0.1f, 0.2f, 0.3f, 1}};
   return make_job(&o);
}

/* A pass-through geometry program changes nothing; the geometry phase on
 * the pool (in either order) gives the serial order's image. */
void test_gs_passthrough(void)
{
   W = 96; H = 80;
   const size_t bytes = (size_t)fb_stride * H;
   static const enum vagx_primitive prims[] = {VAGX_PRIMITIVE_TRIANGLES, VAGX_PRIMITIVE_TRIANGLE_STRIP,
                                               VAGX_PRIMITIVE_TRIANGLE_FAN};
   for (unsigned pi = 0; pi < 3; pi++) {
      for (int first = 0; first < 2; first++) {
         uint8_t *ref = malloc(bytes), *img = malloc(bytes);
         struct vagx_render_fault f;
         brk_ = 0;
         enum vagx_job_status st0 = run(tri_job(false, first, prims[pi]), &f);
         memcpy(ref, ptr(fb_va), bytes);
         unsigned drawn = 0;
         for (size_t i = 0; i < bytes; i += 4)
            drawn += memcmp(ref + i, ref, 4) != 0;
         for (unsigned mode = 0; mode < 3; mode++) {
            vagx_render_set_options(dev, mode ? 0 : VAGX_RENDER_OPT_SERIAL_GEOMETRY);
            run_reverse = mode == 2;
            brk_ = 0;
            enum vagx_job_status st = run(tri_job(true, first, prims[pi]), &f);
            run_reverse = false;
            memcpy(img, ptr(fb_va), bytes);
            CHECK(st0 == VAGX_JOB_STATUS_OK && st == VAGX_JOB_STATUS_OK && drawn > 500 &&
                     !memcmp(ref, img, bytes),
                  "gs passthrough prim %d first %d mode %u: status %d/%d, %u drawn, images %s",
                  prims[pi], first, mode, st0, st, drawn, memcmp(ref, img, bytes) ? "differ" : "equal");
         }
         vagx_render_set_options(dev, 0);
         free(ref);
         free(img);
      }
   }
}

/* Points expanded to 8x8 quads (two triangles of a strip each). */
void test_gs_quads(void)
{
   W = 64; H = 64;
   brk_ = 0;
   ncs = 0;
   const float pos[3][4] = {{ndcx(10), ndcy(12), 0.5f, 1}, {ndcx(40), ndcy(20), 0.5f, 1},
                            {ndcx(30), ndcy(50), 0.5f, 1}};
   uint64_t vb = vbuf_put(3, 0, pos, NULL);
   struct prog fs = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   /* half size 4 pixels = 0.125 in ndc at W = H = 64 */
   bind_gs(VAGX_GS_INPUT_POINTS, VAGX_GS_OUTPUT_TRIANGLE_STRIP, 1, 4, 4, 0,
           "ld_vin r0, #0, #0\nld_vin r1, #0, #1\nld_vin r2, #0, #2\nld_vin r3, #0, #3\n"
           "fadd r4, r0, #-0.125\nfadd r5, r1, #-0.125\nfadd r6, r0, #0.125\nfadd r7, r1, #0.125\n"
           "st_var r4, #0\nst_var r5, #1\nst_var r2, #2\nst_var r3, #3\nemit\n"
           "st_var r6, #0\nst_var r5, #1\nst_var r2, #2\nst_var r3, #3\nemit\n"
           "st_var r4, #0\nst_var r7, #1\nst_var r2, #2\nst_var r3, #3\nemit\n"
           "st_var r6, #0\nst_var r7, #1\nst_var r2, #2\nst_var r3, #3\nemit\nend\n");
   draw(VAGX_PRIMITIVE_POINTS, 3);
   struct job_opts o = {.clear = {0, 0, 0, 1}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
   static const int c[3][2] = {{10, 12}, {40, 20}, {30, 50}};
   unsigned bad = 0, red = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
         bool in = false;
         for (unsigned i = 0; i < 3; i++)
            in |= (int)x >= c[i][0] - 4 && (int)x < c[i][0] + 4 && (int)y >= c[i][1] - 4 &&
                  (int)y < c[i][1] + 4;
         red += px(x, y)[0] == 255;
         bad += (px(x, y)[0] == 255) != in;
      }
   CHECK(st == VAGX_JOB_STATUS_OK && red == 3 * 64 && !bad,
         "gs quads: status %d, %u red pixels (expected 192), %u wrong", st, red, bad);
}

/* Strips, cut, max_vertices, invocations, primitive ids per instance,
 * outputs reset by emit, stream output and both queries of the output. */
void test_gs_strips(void)
{
   W = 32; H = 32;
   float pos[3][4], var[3];
   for (unsigned i = 0; i < 3; i++) {
      pos[i][0] = 10.0f + i; pos[i][1] = 0; pos[i][2] = 0; pos[i][3] = 1;
      var[i] = 0;
   }
   uint64_t off_va, so = so_scene(3, 1, (const float(*)[4])pos, var, false, 0, 6, 4096, &off_va);
   /* word 0 = x (first vertex only: emit clears it), 4 = primitive id,
    * 5 = 16 x invocation + k for the k-th emit; the fifth emit is dropped */
   bind_gs(VAGX_GS_INPUT_POINTS, VAGX_GS_OUTPUT_LINE_STRIP, 3, 5, 4, 2,
           "ld_vin r0, #0, #0\nmov r1, sr.primitive_id\nimul r2, sr.invocation_id, #16\n"
           "st_var r0, #0\nst_var r1, #4\nst_var r2, #5\nemit\n"
           "iadd r3, r2, #1\nst_var r1, #4\nst_var r3, #5\nemit\ncut\n"
           "iadd r3, r2, #2\nst_var r1, #4\nst_var r3, #5\nemit\n"
           "iadd r3, r2, #3\nst_var r1, #4\nst_var r3, #5\nemit\n"
           "iadd r3, r2, #4\nst_var r1, #4\nst_var r3, #5\nemit\nend\n");
   uint64_t qg = alloc(8, 8), qe = alloc(8, 8);
   *(uint64_t *)ptr(qg) = 0;
   *(uint64_t *)ptr(qe) = 0;
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED; v_.result_va = qg);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED; v_.result_va = qe);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = 3; v_.instance_count = 2);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_GENERATED);
   EMIT(cmd_query_end, v_.type = VAGX_QUERY_TYPE_PRIMITIVES_EMITTED);
   struct job_opts o = {.clear = {0, 0, 0, 1}};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
   const uint32_t *r = ptr(so);
   unsigned bad = 0, n = 0;
   for (unsigned inst = 0; inst < 2; inst++)
      for (unsigned p = 0; p < 3; p++)
         for (unsigned inv = 0; inv < 3; inv++)
            for (unsigned k = 0; k < 4; k++, n++) {
               float x;
               memcpy(&x, &r[n * 6], 4);
               bad += x != (k ? 0.0f : 10.0f + p) || r[n * 6 + 4] != p ||
                      r[n * 6 + 5] != 16 * inv + k;
            }
   CHECK(st == VAGX_JOB_STATUS_OK && !bad && *(uint32_t *)ptr(off_va) == n * 24 &&
            *(uint64_t *)ptr(qg) == n / 2 && *(uint64_t *)ptr(qe) == n / 2 && r[n * 6] == 0xeeeeeeeeu,
         "gs strips: status %d (unit %d at %llx), %u wrong of %u vertices, offset %u, generated %llu emitted %llu",
         st, f.unit, (unsigned long long)f.address, bad, n, *(uint32_t *)ptr(off_va), (unsigned long long)*(uint64_t *)ptr(qg),
         (unsigned long long)*(uint64_t *)ptr(qe));
}

/* A 4-vertex triangle strip: two triangles, the second wound backwards. */
void test_gs_winding(void)
{
   W = 32; H = 32;
   for (int first = 0; first < 2; first++) {
      const float pos[1][4] = {{0, 0, 0, 1}};
      uint64_t off_va, so = so_scene(1, 0, pos, NULL, first, 4, 1, 4096, &off_va);
      bind_gs(VAGX_GS_INPUT_POINTS, VAGX_GS_OUTPUT_TRIANGLE_STRIP, 1, 4, 4, 1,
              "mov r0, #0\nst_var r0, #4\nemit\nmov r0, #1\nst_var r0, #4\nemit\n"
              "mov r0, #2\nst_var r0, #4\nemit\nmov r0, #3\nst_var r0, #4\nemit\nend\n");
      draw(VAGX_PRIMITIVE_POINTS, 1);
      struct job_opts o = {.clear = {0, 0, 0, 1}};
      struct vagx_render_fault f;
      enum vagx_job_status st = run_stream(&o, &f);
      const uint32_t *r = ptr(so);
      static const uint32_t want[2][6] = {{0, 1, 2, 2, 1, 3}, {0, 1, 2, 1, 3, 2}};
      CHECK(st == VAGX_JOB_STATUS_OK && !memcmp(r, want[first], sizeof(want[0])) &&
               *(uint32_t *)ptr(off_va) == 24,
            "gs winding first=%d: status %d, %u %u %u / %u %u %u", first, st, r[0], r[1], r[2],
            r[3], r[4], r[5]);
   }
}

/* The vertex order render.md gives each adjacency topology. */
static unsigned ref_adj(enum vagx_primitive p, unsigned c, bool first, uint32_t *out)
{
   unsigned n = 0;
   switch (p) {
   case VAGX_PRIMITIVE_LINES_ADJACENCY:
      for (unsigned i = 0; 4 * i + 3 < c; i++)
         for (unsigned k = 0; k < 4; k++)
            out[n++] = 4 * i + k;
      break;
   case VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY:
      for (unsigned i = 0; i + 3 < c; i++)
         for (unsigned k = 0; k < 4; k++)
            out[n++] = i + k;
      break;
   case VAGX_PRIMITIVE_TRIANGLES_ADJACENCY:
      for (unsigned i = 0; 6 * i + 5 < c; i++)
         for (unsigned k = 0; k < 6; k++)
            out[n++] = 6 * i + k;
      break;
   default:
      for (unsigned i = 0; 2 * i + 5 < c; i++) {
         const unsigned a = 2 * i, b = a + 7 < c ? a + 6 : a + 5, cc = i ? a - 2 : 1;
         const uint32_t even[6] = {a, cc, a + 2, b, a + 4, a + 3};
         const uint32_t odd_last[6] = {a + 2, cc, a, a + 3, a + 4, b};
         const uint32_t odd_first[6] = {a, a + 3, a + 4, b, a + 2, cc};
         memcpy(out + n, !(i & 1) ? even : first ? odd_first : odd_last, sizeof(even));
         n += 6;
      }
      break;
   }
   return n;
}

void test_gs_adjacency(void)
{
   W = 32; H = 32;
   static const enum vagx_primitive prims[] = {
      VAGX_PRIMITIVE_LINES_ADJACENCY, VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY,
      VAGX_PRIMITIVE_TRIANGLES_ADJACENCY, VAGX_PRIMITIVE_TRIANGLE_STRIP_ADJACENCY};
   /* small runs, and runs across vertex batches (R_VTX_BATCH = 1536) */
   static const unsigned counts[] = {5, 6, 7, 8, 9, 10, 13, 1601, 3100};
   const unsigned maxc = 3100;
   uint32_t *want = malloc(maxc * 6 * sizeof(uint32_t));
   float (*pos)[4] = calloc(maxc, sizeof(*pos));
   float *var = malloc(maxc * sizeof(float));
   for (unsigned i = 0; i < maxc; i++) {
      pos[i][3] = 1;
      var[i] = (float)i;
   }
   for (unsigned pi = 0; pi < 4; pi++) {
      const bool tri = prims[pi] >= VAGX_PRIMITIVE_TRIANGLES_ADJACENCY;
      const unsigned nin = tri ? 6 : 4;
      char src[1024];
      int len = 0;
      for (unsigned v = 0; v < nin; v++)
         len += snprintf(src + len, sizeof(src) - len, "ld_vin r0, #%u, #4\nst_var r0, #4\nemit\n", v);
      snprintf(src + len, sizeof(src) - len, "end\n");
      for (unsigned ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
         for (int first = 0; first < 2; first++) {
            const unsigned c = counts[ci];
            uint64_t off_va, so = so_scene(c, 1, (const float(*)[4])pos, var, first, 4, 1,
                                           maxc * 6 * 4 + 64, &off_va);
            bind_gs(tri ? VAGX_GS_INPUT_TRIANGLES_ADJACENCY : VAGX_GS_INPUT_LINES_ADJACENCY,
                    VAGX_GS_OUTPUT_POINTS, 1, 5, nin, 1, src);
            draw(prims[pi], c);
            struct job_opts o = {.clear = {0, 0, 0, 1}};
            struct vagx_render_fault f;
            enum vagx_job_status st = run_stream(&o, &f);
            const unsigned n = ref_adj(prims[pi], c, first, want);
            const float *r = ptr(so);
            unsigned bad = 0;
            for (unsigned i = 0; i < n; i++)
               bad += r[i] != (float)want[i];
            CHECK(st == VAGX_JOB_STATUS_OK && !bad && *(uint32_t *)ptr(off_va) == n * 4,
                  "gs adjacency prim %d count %u first %d: status %d, %u of %u wrong, offset %u",
                  prims[pi], c, first, st, bad, n, *(uint32_t *)ptr(off_va));
         }
      }
   }
   free(want);
   free(pos);
   free(var);
}

struct gs_err {
   const char *name;
   enum vagx_primitive prim;
   bool gs, unbind;
   enum vagx_gs_input in;
   unsigned maxv;
   const char *code;
   enum vagx_job_status st;
   enum vagx_unit unit;
   bool at_draw;              /* address = the draw (else: not checked) */
   const char *vs;            /* replaces the vertex shader */
};

/* Every malformed input: the documented error, no crash. */
void test_gs_errors(void)
{
   W = 32; H = 32;
#define ok "ld_vin r0, #0, #0\nst_var r0, #0\nemit\nend\n"
   static const struct gs_err cases[] = {
      {"adjacency without gs", VAGX_PRIMITIVE_LINES_ADJACENCY, false, false, 0, 1, ok,
       VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, true},
      {"adjacency after unbind", VAGX_PRIMITIVE_TRIANGLES_ADJACENCY, true, true,
       VAGX_GS_INPUT_TRIANGLES_ADJACENCY, 1, ok, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, true},
      {"input mismatch", VAGX_PRIMITIVE_POINTS, true, false, VAGX_GS_INPUT_TRIANGLES, 1, ok,
       VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, true},
      {"adjacency mismatch", VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY, true, false,
       VAGX_GS_INPUT_TRIANGLES_ADJACENCY, 1, ok, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, true},
      {"ld_vin vertex", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES, 1,
       "ld_vin r0, #3, #0\nend\n", VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, false},
      {"ld_vin word", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES, 1,
       "ld_vin r0, #0, #4\nend\n", VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, false},
      {"no end", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES, 1, "emit\n",
       VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, false},
      {"max_vertices 0", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES, 0, ok,
       VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, false},
      {"control ok", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES, 1, ok,
       VAGX_JOB_STATUS_OK, VAGX_UNIT_NONE, false},
      {"emit in a vertex shader", VAGX_PRIMITIVE_TRIANGLES, false, false, 0, 1, ok,
       VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, false, "emit\nend\n"},
      {"ld_vin in a vertex shader", VAGX_PRIMITIVE_TRIANGLES, true, false, VAGX_GS_INPUT_TRIANGLES,
       1, ok, VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, false,
       "ld_vin r0, #0, #0\nend\n"},
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      const struct gs_err *e = &cases[i];
      brk_ = 0;
      ncs = 0;
      const float pos[6][4] = {{0, 0, 0, 1}, {0.5f, 0, 0, 1}, {0, 0.5f, 0, 1},
                               {0, 0, 0, 1}, {0.5f, 0, 0, 1}, {0, 0.5f, 0, 1}};
      uint64_t vb = vbuf_put(6, 0, pos, NULL);
      struct prog fs = const_fs(1, 0, 0, 1);
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      if (e->vs) {
         struct prog vs = {.code = assemble(e->vs)};
         EMIT(cmd_bind_vertex_pipeline, to_usc(&vs, &v_.program));
      }
      if (e->gs) {
         /* max_vertices 0 is packed unchecked: the device must refuse it */
         struct prog gs = {.code = assemble(e->code)};
         struct vagx_cmd_bind_geometry_pipeline b;
         memset(&b, 0, sizeof(b));
         b.input_primitive = e->in;
         b.output_primitive = VAGX_GS_OUTPUT_POINTS;
         b.invocations = 1;
         b.input_words = 4;
         b.max_vertices = e->maxv;
         to_usc(&gs, &b.program);
         vagx_cmd_bind_geometry_pipeline_pack(&cs[ncs], &b);
         ncs += vagx_cmd_dwords(cs[ncs]);
      }
      if (e->unbind)
         EMIT(cmd_unbind_geometry_pipeline);
      const unsigned draw_off = ncs * 4;
      draw(e->prim, 6);
      struct job_opts o = {.clear = {0, 0, 0, 1}};
      EMIT(cmd_end);
      uint64_t job = make_job(&o);
      struct vagx_render_job rj;
      const char *err;
      vagx_render_job_unpack(ptr(job), &rj, &err);
      struct vagx_render_fault f;
      memset(&f, 0, sizeof(f));
      enum vagx_job_status st = run(job, &f);
      CHECK(st == e->st && (st == VAGX_JOB_STATUS_OK || f.unit == e->unit) &&
               (!e->at_draw || f.address == rj.cs_va + draw_off),
            "gs error %s: status %d (expected %d) unit %d (expected %d) address %llx", e->name, st,
            e->st, f.unit, e->unit, (unsigned long long)f.address);
   }
#undef ok
}

/* Each emitted vertex charges RENDER_GEOMETRY_GS_VERTEX_COST: a discarded
 * draw emitting more than the budget allows fails at the draw, unit PPP. */
void test_gs_budget(void)
{
   W = 32; H = 32;
   brk_ = 0;
   ncs = 0;
   const float pos[1][4] = {{0, 0, 0, 1}};
   uint64_t vb = vbuf_put(1, 0, pos, NULL);
   struct prog fs = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   rasterizer(true, false);
   char src[4096];
   int len = 0;
   for (unsigned k = 0; k < 64; k++)
      len += snprintf(src + len, sizeof(src) - len, "emit\n");
   snprintf(src + len, sizeof(src) - len, "end\n");
   bind_gs(VAGX_GS_INPUT_POINTS, VAGX_GS_OUTPUT_POINTS, 32, 4, 64, 0, src);
   const unsigned draw_off = ncs * 4;
   /* 1M points x 32 invocations x 64 vertices, nothing drawn: 2^35 bytes */
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_POINTS; v_.count = 1u << 20; v_.instance_count = 1;
        v_.index_size = VAGX_INDEX_SIZE_U32; v_.index_va = 0; v_.index_buffer_size = 0);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 1}};
   uint64_t job = make_job(&o);
   struct vagx_render_job rj;
   const char *err;
   vagx_render_job_unpack(ptr(job), &rj, &err);
   vagx_render_set_geometry_budget(dev, 1u << 20);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   vagx_render_set_geometry_budget(dev, 0);
   CHECK(st == VAGX_JOB_STATUS_INVALID_COMMAND && f.unit == VAGX_UNIT_PPP &&
            f.address == rj.cs_va + draw_off,
         "gs budget: status %d unit %d address %llx (draw at %llx)", st, f.unit,
         (unsigned long long)f.address, (unsigned long long)(rj.cs_va + draw_off));
}
