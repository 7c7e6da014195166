/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: depth and stencil: depth test, culling and occlusion
 * queries, every stencil op and face, depth/stencil loads and stores of each
 * zs format, depth quantization.  The harness is render_test_harness.h,
 * main() in test_render.c.
 */
#include "render_test_harness.h"

void test_depth_cull_query(void)
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
   struct prog vs = vs_prog(0, vb2);
   EMIT(cmd_bind_vertex_pipeline, to_usc(&vs, &v_.program));
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 3; v_.instance_count = 1);
   struct job_opts o = {.clear = {0, 0, 0, 1}, .clear_depth = 1.0f};
   struct vagx_render_fault f;
   enum vagx_job_status st = run_stream(&o, &f);
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

/* An occlusion query over triangles drawn without depth or stencil tests
 * (the rasteriser's lanes pass as a whole, do_prim): the count is the
 * number of covered pixels, overlaps counted twice. */
void test_query_no_depth(void)
{
   W = 64; H = 64;
   ncs = 0;
   double t[6][2] = {{3, 2}, {61, 9}, {7, 58}, {20, 20}, {63, 40}, {30, 63}};
   uint64_t vb = vbuf_tris(t, 6, 0, NULL, NULL, NULL);
   struct prog red = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &red, NULL, 0, 0, false);
   uint64_t qva = alloc(8, 8);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = qva);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
   EMIT(cmd_query_end);
   struct job_opts o = {.clear = {0, 0, 0, 1}};
   struct vagx_render_fault f;
   CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "query without depth: status");
   unsigned want = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         for (unsigned k = 0; k < 2; k++)
            want += ref_inside((const double(*)[2])t + 3 * k, x + 0.5, y + 0.5);
   uint64_t q;
   memcpy(&q, ptr(qva), 8);
   CHECK(q == want, "occlusion count without depth test %llu, expected %u", (unsigned long long)q,
         want);
}

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

/* Stencil: a sequence of rectangles with every op, both faces, masks, depth
 * pass/fail, loaded from and stored to each depth/stencil format; colour and
 * the stored image are compared with the per-pixel model above. */
void test_stencil(void)
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

void test_depth_quantize(void)
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

/* Depth/stencil stores of tiles that no primitive touched: the tile holds
 * the clear values, which the fast path stores without filling the tile's
 * buffers first (render_tile.c zs_fill_z24s8_1x).  A 96 x 64 target (six
 * tiles), one rectangle inside the first tile, every zs format, with and
 * without the stencil store (a depth-only store keeps the stencil bytes in
 * memory), on the fast and the per-pixel paths; every pixel against the
 * value computed here. */
void test_zs_untouched_store(void)
{
   W = 96;
   H = 64;
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                           VAGX_FORMAT_Z32_FLOAT_S8X24_UINT, VAGX_FORMAT_Z16_UNORM,
                                           VAGX_FORMAT_Z32_FLOAT};
   const float zr = 0.25f, zclear = 0.9f;
   const uint8_t sclear = 0x5a;
   unsigned cases = 0;
   for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++)
      for (unsigned sl = 0; sl < 2; sl++)
         for (unsigned generic = 0; generic < 2; generic++) {
            const enum vagx_format f = fmts[fi];
            const bool hs = vagx_format_stencil(f);
            ncs = 0;
            double t[6][2];
            float zv[6];
            rect_tris(t, 4, 4, 28, 28, false);
            for (unsigned k = 0; k < 6; k++)
               zv[k] = zr;
            uint64_t vb = vbuf_tris(t, 6, 0, NULL, NULL, zv);
            struct prog green = const_fs(0, 1, 0, 1);
            emit_state(0, 0, 0, vb, &green, NULL, 0, 0, false);
            EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
                 v_.depth_func = VAGX_COMPARE_FUNC_LESS);
            EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
            EMIT(cmd_end);
            struct job_opts o = {.clear = {0, 0, 0, 1}, .zs = true, .zs_format = f,
                                 .clear_depth = zclear, .clear_stencil = sclear, .depth_store = 1,
                                 .stencil_store = sl && hs};
            uint64_t job = make_job(&o);
            for (unsigned y = 0; y < H; y++)
               for (unsigned x = 0; x < W; x++)
                  zs_put(f, x, y, 0.5, (uint8_t)(x * 7 + y * 13));
            vagx_render_set_options(dev, generic ? VAGX_RENDER_OPT_NO_FAST_IO : 0);
            struct vagx_render_fault fl;
            enum vagx_job_status st = run(job, &fl);
            vagx_render_set_options(dev, 0);
            CHECK(st == VAGX_JOB_STATUS_OK, "zs_untouched_store %s: status %d", vagx_format_name(f), st);
            unsigned bad_d = 0, bad_s = 0;
            for (unsigned y = 0; y < H; y++)
               for (unsigned x = 0; x < W; x++) {
                  const bool in = x >= 4 && x < 28 && y >= 4 && y < 28;
                  uint32_t gd;
                  uint8_t gs;
                  zs_get(f, x, y, &gd, &gs);
                  if (gd != zs_enc(f, in ? zr : zclear))
                     bad_d++;
                  if (hs && gs != (sl ? sclear : (uint8_t)(x * 7 + y * 13)))
                     bad_s++;
               }
            CHECK(bad_d == 0 && bad_s == 0,
                  "zs_untouched_store %s stencil store %u %s path: %u depth, %u stencil pixels wrong",
                  vagx_format_name(f), sl, generic ? "generic" : "fast", bad_d, bad_s);
            cases++;
         }
   printf("  zs_untouched_store: %u jobs, every pixel checked\n", cases);
}

/* ------------------------------------ side effects and late tests (1.10) -- */
/* A fragment shader that writes memory runs before the depth test unless
 * early tests are forced (GL 4.6 14.9 / 17.3; contract 1.10, render.md
 * "Fragment outputs"): draw A (near, depth write) covers the target, then
 * B, C and D draw behind it and E in front of it, each adding 1 per
 * invocation (0 per helper invocation) to its own counter with
 * atom_global.  B (side_effects) runs at
 * every pixel though every fragment fails the depth test; C (side_effects
 * and early_tests) runs at none; D (side_effects, a discard, no stencil
 * test: the discard-only path that may cull failing fragments early) at
 * every pixel too; E at every pixel, and its colour wins. */
void test_side_effects_late(void)
{
   W = 32; H = 32;
   ncs = 0;
   double t[2][6][2];
   float z[2][6];
   for (unsigned i = 0; i < 2; i++) {
      rect_tris(t[i], 0, 0, 32, 32, false);
      for (unsigned k = 0; k < 6; k++)
         z[i][k] = i ? 0.7f : 0.3f;
   }
   uint64_t vb = vbuf_tris(&t[0][0], 12, 0, NULL, NULL, &z[0][0]);
   const uint64_t cnt = alloc(16, 16);
   memset(ptr(cnt), 0, 16);
   struct prog red = const_fs(1, 0, 0, 1);
   emit_state(0, 0, 0, vb, &red, NULL, 0, 0, false);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1; v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.instance_count = 1);
   static const char *const src[2] = {
      "and r4, sr.helper, #1\nxor r4, r4, #1\natom_global.add r5, u0, r4, r4\n"
      "mov r0, #0\nmov r1, #1.0\nmov r2, #0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n",
      "and r4, sr.helper, #1\nxor r4, r4, #1\natom_global.add r5, u0, r4, r4\nmov r6, #0\n"
      "discard.cond r6\n"
      "mov r0, #0\nmov r1, #1.0\nmov r2, #0\nmov r3, #1.0\nst_tile.rt0 r0, #0\nend\n"};
   for (unsigned i = 0; i < 4; i++) {
      struct prog fs = {.code = assemble(src[i == 2]), .nuni = 2};
      fs.uni[0] = (uint32_t)(cnt + 4 * i);
      fs.uni[1] = (uint32_t)((cnt + 4 * i) >> 32);
      EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.side_effects = 1;
           v_.early_tests = i == 1; v_.discards = i == 2; to_usc(&fs, &v_.program));
      /* E: the near rectangle again, under LEQUAL */
      if (i == 3)
         EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = 1;
              v_.depth_func = VAGX_COMPARE_FUNC_LEQUAL);
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6;
           v_.first = i == 3 ? 0 : 6; v_.instance_count = 1);
   }
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = VAGX_FORMAT_Z32_FLOAT,
                        .clear_depth = 1.0f};
   struct vagx_render_fault f;
   enum vagx_job_status st = run(make_job(&o), &f);
   CHECK(st == VAGX_JOB_STATUS_OK, "side effects: status %d", st);
   uint32_t n[4];
   memcpy(n, ptr(cnt), sizeof(n));
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         bad += px(x, y)[0] != 0 || px(x, y)[1] != 255;
   CHECK(n[0] == W * H && n[1] == 0 && n[2] == W * H && n[3] == W * H && bad == 0,
         "side effects: invocations %u %u %u %u (want %u 0 %u %u), %u pixels wrong", n[0], n[1],
         n[2], n[3], W * H, W * H, W * H, bad);
}
