/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: the geometry phase across workers (render_geom_par.c)
 * against the serial order (VAGX_RENDER_OPT_SERIAL_GEOMETRY): the same
 * images and bins for every primitive type, with clipping, polygon modes and
 * restarts, whichever order the pool runs vertex groups and primitive chunks
 * in; and the error of the serial order (the first faulting vertex group's)
 * when later groups fault first.  The harness is render_test_harness.h,
 * main() in test_render.c.
 */
#include "render_test_harness.h"

/* r smooth, g noperspective, b and a flat: every kind of coefficient set-up */
static const char *fs_mixed =
   "iter.center.persp r0, cf1, cf0, r0\niter.center r1, cf2, cf0, r0\n"
   "ldcf r2, cf3\nldcf r3, cf4\nst_tile.rt0 r0, #0\nend\n";

static uint32_t lcg(uint32_t *s)
{
   *s = *s * 1664525u + 1013904223u;
   return *s >> 8;
}

static double rnd(uint32_t *s, double lo, double hi)
{
   return lo + (hi - lo) * (lcg(s) & 0xffff) / 65535.0;
}

struct scene {
   const char *name;
   enum vagx_primitive prim;
   unsigned nv;
   bool restarts;             /* indexed, with a restart every 37 indices */
   enum vagx_fill_mode fill;
   bool short_runs;           /* flushed run by run: too few primitives for the pool */
};

/* Draws a scene of nv random vertices (positions beyond the viewport and
 * behind the near plane, so clipping makes vertices; random w) and returns
 * the job. */
static uint64_t scene_job(const struct scene *sc)
{
   uint32_t seed = 12345u + sc->nv + sc->prim;
   double (*v)[2] = calloc(sc->nv, sizeof(*v));
   float *var = calloc((size_t)sc->nv * 4, sizeof(float));
   float *wv = calloc(sc->nv, sizeof(float)), *zv = calloc(sc->nv, sizeof(float));
   uint32_t *idx = calloc((size_t)sc->nv * 2, sizeof(uint32_t));
   for (unsigned i = 0; i < sc->nv; i++) {
      v[i][0] = rnd(&seed, -24, W + 24);
      v[i][1] = rnd(&seed, -24, H + 24);
      wv[i] = (float)rnd(&seed, 0.5, 2.0);
      zv[i] = (float)rnd(&seed, -0.2, 1.0);
      for (unsigned k = 0; k < 4; k++)
         var[i * 4 + k] = (float)rnd(&seed, 0, 1);
   }
   ncs = 0;
   uint64_t vb = vbuf_tris((const double(*)[2])v, sc->nv, 4, var, wv, zv);
   struct prog fs = {.code = assemble(fs_mixed)};
   uint32_t cfb[4] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 1, 1, VAGX_INTERP_SMOOTH),
                      binding(2, 1, 2, VAGX_INTERP_LINEAR), binding(3, 2, 3, VAGX_INTERP_FLAT)};
   emit_state(4, 0, 0, vb, &fs, cfb, 4, 5, false);
   EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 3; v_.line_width = 2;
        v_.sample_mask = 0xf; v_.depth_clip = 1; v_.fill_front = sc->fill;
        v_.fill_back = sc->fill; v_.provoking = VAGX_PROVOKING_VERTEX_LAST);
   if (sc->restarts) {
      unsigned n = 0;
      for (unsigned i = 0; i < sc->nv; i++) {
         if (i % 37 == 36)
            idx[n++] = 0xffffu;
         idx[n++] = i;
      }
      uint64_t ib = put(idx, n * 4, 4);
      EMIT(cmd_draw, v_.primitive = sc->prim; v_.count = n; v_.instance_count = 2;
           v_.index_size = VAGX_INDEX_SIZE_U32; v_.index_va = ib; v_.index_buffer_size = n * 4;
           v_.restart = 1; v_.restart_index = 0xffffu);
   } else {
      EMIT(cmd_draw, v_.primitive = sc->prim; v_.count = sc->nv; v_.instance_count = 1);
   }
   EMIT(cmd_end);
   free(v);
   free(var);
   free(wv);
   free(zv);
   free(idx);
   struct job_opts o = {.clear = {0.1f, 0.2f, 0.3f, 1}};
   return make_job(&o);
}

void test_geometry_workers(void)
{
   W = 96; H = 80;
   static const struct scene scenes[] = {
      {"triangles", VAGX_PRIMITIVE_TRIANGLES, 3000, false, VAGX_FILL_MODE_FILL},
      {"strip+restarts", VAGX_PRIMITIVE_TRIANGLE_STRIP, 3300, true, VAGX_FILL_MODE_FILL},
      {"fan", VAGX_PRIMITIVE_TRIANGLE_FAN, 2000, false, VAGX_FILL_MODE_FILL},
      {"fan+restarts", VAGX_PRIMITIVE_TRIANGLE_FAN, 2000, true, VAGX_FILL_MODE_FILL, true},
      {"lines", VAGX_PRIMITIVE_LINES, 3000, false, VAGX_FILL_MODE_FILL},
      {"line loop", VAGX_PRIMITIVE_LINE_LOOP, 1700, false, VAGX_FILL_MODE_FILL},
      {"line strip+restarts", VAGX_PRIMITIVE_LINE_STRIP, 2000, true, VAGX_FILL_MODE_FILL},
      {"points", VAGX_PRIMITIVE_POINTS, 2500, false, VAGX_FILL_MODE_FILL},
      {"polygon lines", VAGX_PRIMITIVE_TRIANGLES, 1800, false, VAGX_FILL_MODE_LINE},
      {"polygon points", VAGX_PRIMITIVE_TRIANGLE_STRIP, 1800, false, VAGX_FILL_MODE_POINT},
   };
   const size_t fb_bytes = (size_t)fb_stride * H;
   for (unsigned si = 0; si < sizeof(scenes) / sizeof(scenes[0]); si++) {
      const struct scene *sc = &scenes[si];
      uint8_t *img[3];
      struct vagx_render_stats st[3];
      enum vagx_job_status status[3];
      for (unsigned mode = 0; mode < 3; mode++) {
         /* 0: serial geometry; 1: on the pool in order; 2: last item first */
         vagx_render_set_options(dev, mode ? 0 : VAGX_RENDER_OPT_SERIAL_GEOMETRY);
         run_reverse = mode == 2;
         brk_ = 0;
         uint64_t job = scene_job(sc);
         struct vagx_render_fault f;
         status[mode] = run(job, &f);
         run_reverse = false;
         vagx_render_get_stats(dev, &st[mode]);
         img[mode] = malloc(fb_bytes);
         memcpy(img[mode], ptr(fb_va), fb_bytes);
      }
      vagx_render_set_options(dev, 0);
      unsigned changed = 0;
      for (size_t i = 0; i < fb_bytes; i += 4)
         changed += memcmp(img[0] + i, img[0], 4) != 0;
      CHECK(status[0] == VAGX_JOB_STATUS_OK && status[1] == VAGX_JOB_STATUS_OK &&
               status[2] == VAGX_JOB_STATUS_OK && changed > 200,
            "geometry workers %s: status %d %d %d, %u pixels drawn", sc->name, status[0],
            status[1], status[2], changed);
      CHECK(!memcmp(img[0], img[1], fb_bytes) && !memcmp(img[0], img[2], fb_bytes) &&
               st[0].bin_entries == st[1].bin_entries && st[0].bin_entries == st[2].bin_entries,
            "geometry workers %s: images %s/%s, bin entries %llu/%llu/%llu", sc->name,
            memcmp(img[0], img[1], fb_bytes) ? "differ" : "equal",
            memcmp(img[0], img[2], fb_bytes) ? "differ" : "equal",
            (unsigned long long)st[0].bin_entries, (unsigned long long)st[1].bin_entries,
            (unsigned long long)st[2].bin_entries);
      /* the pool really did the work (else this compared serial with serial) */
      CHECK(!st[0].par_vertex_groups && !st[0].par_prim_chunks && st[1].par_vertex_groups >= 16 &&
               (sc->short_runs ? !st[1].par_prim_chunks : st[1].par_prim_chunks >= 4),
            "geometry workers %s: %llu/%llu vertex groups, %llu/%llu primitive chunks on the pool",
            sc->name, (unsigned long long)st[0].par_vertex_groups,
            (unsigned long long)st[1].par_vertex_groups, (unsigned long long)st[0].par_prim_chunks,
            (unsigned long long)st[1].par_prim_chunks);
      for (unsigned mode = 0; mode < 3; mode++)
         free(img[mode]);
   }
}

/* Vertex groups that fault: the vertex buffer has two unmapped pages, the
 * first under groups 8-15 of the first batch, the second under groups
 * 24-31.  Run last group first, the second page faults first in time; the
 * job must still report the first page, at the first vertex the serial order
 * fetches from it, like the serial order itself. */
void test_geometry_fault_order(void)
{
   W = 64; H = 64;
   const unsigned nv = 1200;           /* 16-byte vertices: 256 a page */
   struct vagx_render_fault f[3];
   enum vagx_job_status status[3];
   uint64_t vb = 0;
   for (unsigned mode = 0; mode < 3; mode++) {
      vagx_render_set_options(dev, mode ? 0 : VAGX_RENDER_OPT_SERIAL_GEOMETRY);
      brk_ = 0;
      ncs = 0;
      double (*v)[2] = calloc(nv, sizeof(*v));
      for (unsigned i = 0; i < nv; i++) {
         v[i][0] = (i * 7) % 60 + 2;
         v[i][1] = (i * 13) % 60 + 2;
      }
      brk_ = (brk_ + 4095) & ~4095ull;   /* vertex pages: those of io_hole */
      vb = vbuf_tris((const double(*)[2])v, nv, 0, NULL, NULL, NULL);
      free(v);
      struct prog fs = const_fs(1, 0, 0, 1);
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, nv);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      uint64_t job = make_job(&o);
      memset(io_hole, 0, sizeof(io_hole));
      io_hole[(vb + 1 * 4096 - MEM_BASE) / 4096] = true;
      io_hole[(vb + 3 * 4096 - MEM_BASE) / 4096] = true;
      run_mem = &io_ops;
      run_reverse = mode == 2;
      status[mode] = run(job, &f[mode]);
      run_reverse = false;
      run_mem = &mem_ops;
      memset(io_hole, 0, sizeof(io_hole));
   }
   vagx_render_set_options(dev, 0);
   const uint64_t first = vb + 4096;   /* vertex 256, the first of group 8 */
   for (unsigned mode = 0; mode < 3; mode++)
      CHECK(status[mode] == VAGX_JOB_STATUS_MMU_FAULT && f[mode].unit == VAGX_UNIT_USC &&
               f[mode].address >= first && f[mode].address < first + 32 * 16 &&
               f[mode].address == f[0].address && f[mode].worker == nworkers,
            "geometry fault order (mode %u): status %d unit %d address %llx worker %u, "
            "expected the page at %llx from the calling thread (%u)",
            mode, status[mode], f[mode].unit, (unsigned long long)f[mode].address, f[mode].worker,
            (unsigned long long)first, nworkers);
}
