/* SPDX-License-Identifier: MIT */
/* Renderer core II tests: render jobs built in flat memory (identity
 * translate), shaders written in assembly, results compared against an
 * independent reference rasteriser (double-precision edge functions with the
 * top-left rule).  Failing images are written as PPM under the build dir.
 *
 * One program, one file a subject (the harness is render_test_harness.h):
 * this file holds tile binning, the tile fast paths against the generic
 * code, hidden-surface removal and main(); test_render_raster.c, _depth.c,
 * _texture.c, _formats.c and _faults.c the rest. */
#include "render_test_harness.h"
#include "render_priv.h" /* test_hsr: the workers' HSR ids */

/* ------------------------------------------------------------ binning -- */
/* Per-tile edge binning: a thin diagonal triangle across 8x8 tiles is binned
 * only into tiles its closed area meets (independent test: separating axes
 * in double), never fewer than the tiles holding covered pixels, and renders
 * the same image as bounding-box binning. */
static bool ref_tri_meets_box(const double t[3][2], double x0, double y0, double x1, double y1)
{
   double mnx = 1e30, mxx = -1e30, mny = 1e30, mxy = -1e30;
   for (unsigned i = 0; i < 3; i++) {
      mnx = fmin(mnx, t[i][0]); mxx = fmax(mxx, t[i][0]);
      mny = fmin(mny, t[i][1]); mxy = fmax(mxy, t[i][1]);
   }
   if (mxx < x0 || mnx > x1 || mxy < y0 || mny > y1)
      return false;
   for (unsigned i = 0; i < 3; i++) {
      const double *a = t[i], *b = t[(i + 1) % 3];
      double nx = -(b[1] - a[1]), ny = b[0] - a[0];   /* edge normal */
      double tmin = 1e30, tmax = -1e30, bmin = 1e30, bmax = -1e30;
      for (unsigned k = 0; k < 3; k++) {
         double v = nx * t[k][0] + ny * t[k][1];
         tmin = fmin(tmin, v); tmax = fmax(tmax, v);
      }
      const double cx[4] = {x0, x1, x0, x1}, cy[4] = {y0, y0, y1, y1};
      for (unsigned k = 0; k < 4; k++) {
         double v = nx * cx[k] + ny * cy[k];
         bmin = fmin(bmin, v); bmax = fmax(bmax, v);
      }
      if (bmax < tmin || bmin > tmax)
         return false;
   }
   return true;
}

static void test_binning(void)
{
   W = 256; H = 256;
   double t[6][2] = {{1.5, 2.25}, {254.75, 250.5}, {250.125, 254.0},  /* thin diagonal */
                     {200, 10}, {250, 12}, {230, 60}};                 /* small, one corner */
   uint8_t img[2][256 * 256 * 4];
   uint64_t entries[2];
   for (unsigned mode = 0; mode < 2; mode++) {
      vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_BBOX_BINNING : 0);
      ncs = 0;
      uint64_t vb = vbuf_tris(t, 6, 0, NULL, NULL, NULL);
      struct prog fs = {.code = assemble(fs_count)};
      emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
      draw(VAGX_PRIMITIVE_TRIANGLES, 6);
      struct job_opts o = {.clear = {0, 0, 0, 0}};
      struct vagx_render_fault f;
      CHECK(run_stream(&o, &f) == VAGX_JOB_STATUS_OK, "binning status");
      struct vagx_render_stats st;
      vagx_render_get_stats(dev, &st);
      entries[mode] = st.bin_entries;
      for (unsigned y = 0; y < H; y++)
         memcpy(img[mode] + y * W * 4, px(0, y), W * 4);
   }
   vagx_render_set_options(dev, 0);
   unsigned meets = 0, lit_tiles = 0, bbox = 0;
   for (unsigned k = 0; k < 2; k++) {
      const double(*tri)[2] = (const double(*)[2])t + 3 * k;
      double mnx = 1e30, mxx = -1e30, mny = 1e30, mxy = -1e30;
      for (unsigned i = 0; i < 3; i++) {
         mnx = fmin(mnx, tri[i][0]); mxx = fmax(mxx, tri[i][0]);
         mny = fmin(mny, tri[i][1]); mxy = fmax(mxy, tri[i][1]);
      }
      bbox += ((unsigned)mxx / 32 - (unsigned)mnx / 32 + 1) * ((unsigned)mxy / 32 - (unsigned)mny / 32 + 1);
      for (unsigned ty = 0; ty < 8; ty++)
         for (unsigned tx = 0; tx < 8; tx++) {
            meets += ref_tri_meets_box(tri, tx * 32.0, ty * 32.0, tx * 32.0 + 32, ty * 32.0 + 32);
            bool lit = false;
            for (unsigned y = ty * 32; y < ty * 32 + 32 && !lit; y++)
               for (unsigned x = tx * 32; x < tx * 32 + 32 && !lit; x++)
                  lit = ref_inside(tri, x + 0.5, y + 0.5);
            lit_tiles += lit;
         }
   }
   CHECK(entries[0] <= meets && entries[0] >= lit_tiles && entries[1] == bbox && meets < bbox,
         "edge binning: %llu entries (tiles met %u, with pixels %u), bbox binning %llu (expected %u)",
         (unsigned long long)entries[0], meets, lit_tiles, (unsigned long long)entries[1], bbox);
   printf("  binning: %llu tile entries with edge tests, %llu by bounding box\n",
          (unsigned long long)entries[0], (unsigned long long)entries[1]);
   CHECK(!memcmp(img[0], img[1], sizeof(img[0])), "edge binning changes the image");
   unsigned bad = 0;
   for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
         bad += img[0][(y * W + x) * 4] != (unsigned)(ref_inside((const double(*)[2])t, x + 0.5, y + 0.5) +
                                                     ref_inside((const double(*)[2])t + 3, x + 0.5, y + 0.5));
   CHECK(bad == 0, "binning: %u pixels differ from the reference", bad);
}

/* Background/end-of-tile fast paths (constant fill, row copy to a linear
 * PBE) against the interpreter: same bytes in memory, same status and fault,
 * and the fast path taken exactly when it applies.  patch: 1 = PBE base
 * unmapped, 2 = PBE narrower and shorter than the framebuffer, 3 = PBE
 * format differs from the render target's. */
static bool fast_band;   /* fast_case: 4 rows of tiles, the triangle in the first one */

static void fast_case(const char *name, const struct job_opts *o, int patch, bool exp_bg,
                      bool exp_eot)
{
   W = 77; H = fast_band ? 110 : 50;   /* partial tiles */
   ncs = 0;
   double t[3][2] = {{3.25, 2.5}, {70.0, 10.125}, {20.5, 47.75}};
   if (fast_band)
      t[2][1] = 30.5;   /* rows of tiles 1..3 are empty: stored as bands */
   uint64_t vb = vbuf_tris(t, 3, 0, NULL, NULL, NULL);
   struct prog fs = const_fs(0.2f, 0.4f, 0.6f, 0.8f);
   emit_state(0, 0, 0, vb, &fs, NULL, 0, 0, false);
   draw(VAGX_PRIMITIVE_TRIANGLES, 3);
   EMIT(cmd_end);
   uint64_t job = make_job(o);
   if (patch) {
      struct vagx_pbe b = last_pbe;
      if (patch == 1)
         b.base_va = MEM_BASE + MEM_SIZE + 0x10000;
      else if (patch == 2)
         b.width = 45, b.height = 33;
      else
         b.format = VAGX_FORMAT_RGBA8_UINT;
      vagx_pbe_pack(ptr(last_pbe_va), &b);
   }
   const size_t bytes = fb_stride * H;
   uint8_t *img[2];
   struct vagx_render_fault f[2];
   enum vagx_job_status st[2];
   struct vagx_render_stats stats[2];
   for (unsigned mode = 0; mode < 2; mode++) {
      vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_NO_FAST_TILE : 0);
      memset(ptr(fb_va), 0x5a, bytes);
      st[mode] = run(job, &f[mode]);
      vagx_render_get_stats(dev, &stats[mode]);
      img[mode] = malloc(bytes);
      memcpy(img[mode], ptr(fb_va), bytes);
   }
   vagx_render_set_options(dev, 0);
   const unsigned tiles = vagx_tiles(W) * vagx_tiles(H);
   CHECK(st[0] == st[1] && f[0].unit == f[1].unit && f[0].address == f[1].address,
         "fast %s: status %d/%d unit %d/%d address %llx/%llx", name, st[0], st[1], f[0].unit,
         f[1].unit, (unsigned long long)f[0].address, (unsigned long long)f[1].address);
   CHECK(patch == 1 || st[0] == VAGX_JOB_STATUS_OK, "fast %s: status %d", name, st[0]);
   CHECK(!memcmp(img[0], img[1], bytes), "fast %s: image differs from the interpreter's", name);
   /* an unmapped PBE stops the job at its first tile */
   const unsigned ntiles = patch == 1 ? 1 : tiles;
   if (patch == 1)
      exp_eot = false;
   CHECK(stats[0].fast_bg_tiles == (exp_bg ? ntiles : 0) &&
         stats[0].fast_eot_tiles == (exp_eot ? tiles : 0) && stats[1].fast_bg_tiles == 0 &&
         stats[1].fast_eot_tiles == 0,
         "fast %s: %llu/%llu fast bg/eot tiles of %u (expected bg %d eot %d)", name,
         (unsigned long long)stats[0].fast_bg_tiles, (unsigned long long)stats[0].fast_eot_tiles,
         ntiles, exp_bg, exp_eot);
   /* bands: rows of tiles 1..3 when the stores apply and nothing else is stored */
   const unsigned bands = fast_band && exp_eot && patch != 1 && !o->zs ? 3 : 0;
   CHECK(stats[0].fast_bands == bands && stats[1].fast_bands == 0, "fast %s: %llu bands, expected %u",
         name, (unsigned long long)stats[0].fast_bands, bands);
   /* and the clear colour really is there (not just equal garbage) */
   if ((patch == 0 || patch == 2) && o->rt_format == VAGX_FORMAT_RGBA8_UNORM)
      CHECK(img[0][0] == 64 && img[0][1] == 128 && img[0][2] == 191 && img[0][3] == 255,
            "fast %s: corner %u %u %u %u", name, img[0][0], img[0][1], img[0][2], img[0][3]);
   free(img[0]);
   free(img[1]);
}

static void test_fast_tile(void)
{
   const float c[4] = {0.25f, 0.5f, 0.75f, 1.0f};
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA8_UNORM};
   memcpy(o.clear, c, sizeof(c));
   fast_case("rgba8", &o, 0, true, true);
   fast_case("unmapped", &o, 1, true, true);   /* the fault comes from the interpreter */
   fast_case("narrow", &o, 2, true, true);
   fast_case("format", &o, 3, true, false);
   o.samples = 4;
   fast_case("rgba8-4x", &o, 0, true, true);
   o.samples = 1;
   o.rt_format = VAGX_FORMAT_RG32_FLOAT;
   fast_case("rg32f", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGBA16_UNORM;
   fast_case("rgba16", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGB565_UNORM;
   fast_case("rgb565", &o, 0, true, true);
   const uint32_t ic[4] = {5, 0xfffffff0u, 300, 0x7fffffff};
   memcpy(o.clear, ic, sizeof(ic));
   o.rt_format = VAGX_FORMAT_RGBA16_SINT;
   fast_case("rgba16i", &o, 0, true, true);
   const float sc[4] = {0.1f, 0.5f, 0.3f, 1.0f};
   memcpy(o.clear, sc, sizeof(sc));
   o.rt_format = VAGX_FORMAT_RGBA8_SRGB;
   fast_case("srgb", &o, 0, true, false);
   o.rt_format = VAGX_FORMAT_RGBA16_FLOAT;
   fast_case("rgba16f", &o, 0, true, false);
   /* whole empty rows of tiles (bands), their fallbacks, and a job whose
    * depth store keeps empty tiles on the tile path */
   fast_band = true;
   memcpy(o.clear, c, sizeof(c));
   o.rt_format = VAGX_FORMAT_RGBA8_UNORM;
   fast_case("band", &o, 0, true, true);
   fast_case("band-unmapped", &o, 1, true, true);
   fast_case("band-narrow", &o, 2, true, true);
   fast_case("band-format", &o, 3, true, false);
   o.rt_format = VAGX_FORMAT_RGBA16_SINT;
   fast_case("band-rgba16i", &o, 0, true, true);
   o.rt_format = VAGX_FORMAT_RGBA8_UNORM;
   o.zs = true;
   o.zs_format = VAGX_FORMAT_Z32_FLOAT;
   o.clear_depth = 0.5f;
   o.depth_store = true;
   fast_case("band-zs", &o, 0, true, true);
   float d;
   uint32_t dr;
   uint8_t sdummy;
   zs_get(VAGX_FORMAT_Z32_FLOAT, 60, 100, &dr, &sdummy);
   memcpy(&d, &dr, 4);
   CHECK(d == 0.5f, "band-zs: empty tile stored depth %g, expected the clear 0.5", d);
   fast_band = false;
}

/* Span/tile I/O fast paths (render_io.h: end-of-tile stores, depth/stencil
 * load and store, texel addressing) against the generic per-pixel paths
 * (VAGX_RENDER_OPT_NO_FAST_IO | _NO_FAST_TILE), through a translation that
 * answers page by page like the device MMU and has unmapped pages: colour
 * formats x PBE layouts (linear; twiddled with tiles wider and narrower
 * than a 32x32 tile) x samples x depth/stencil formats x an unmapped page in
 * the colour or depth image.  Same bytes everywhere, same status and fault,
 * and the same first fault recorded by the translation (as the core's MMU
 * context records it; fast-path probes must not be): io_ops. */
/* End-of-tile program of a 4x target: each sample from the tile buffer to
 * the same sample of the (twiddled) image. */
static const char *eot_4x =
   "mov r4, sr.pix_x\nmov r5, sr.pix_y\n"
   "ld_tile.rt0 r0, #0\nimg_st.i0.2d r4, r0, #0\nld_tile.rt0 r8, #1\nimg_st.i0.2d r4, r8, #1\n"
   "ld_tile.rt0 r12, #2\nimg_st.i0.2d r4, r12, #2\nld_tile.rt0 r16, #3\nimg_st.i0.2d r4, r16, #3\nend\n";

static void fast_io_case(enum vagx_format cf, bool twiddled, unsigned samples, enum vagx_format zf,
                         unsigned hole, unsigned w, unsigned h)
{
   brk_ = 0;
   W = w; H = h;
   ncs = 0;
   const double t[9][2] = {{1.5, 0.25}, {w - 0.5, 3.75}, {w * 0.3, h - 0.5},
                           {w * 0.9, h * 0.1}, {w * 0.95, h - 1.0}, {2.0, h * 0.6},
                           {-5.0, -3.0}, {w + 7.0, h * 0.5}, {w * 0.5, h + 9.0}};
   const float z[9] = {0.3f, 0.6f, 0.9f, 0.2f, 0.8f, 0.5f, 0.4f, 0.4f, 0.4f};
   float col[9 * 3];
   for (unsigned i = 0; i < 27; i++)
      col[i] = (float)((i * 37) % 101) / 100.0f;
   uint64_t vb = vbuf_tris(t, 9, 3, col, NULL, z);
   struct prog fs = {.code = assemble("iter.center.persp r0, cf1, cf0, r0\n"
                                      "iter.center.persp r1, cf2, cf0, r0\n"
                                      "iter.center.persp r2, cf3, cf0, r0\n"
                                      "mov r3, #0.75\nst_tile.rt0 r0, #0\nend\n")};
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
   emit_state(3, 0, 0, vb, &fs, cfb, 2, 4, false);
   const bool zs = zf != VAGX_FORMAT_INVALID;
   if (zs)
      EMIT(cmd_depth_stencil, v_.depth_test = vagx_format_depth(zf); v_.depth_write = 1;
           v_.depth_func = VAGX_COMPARE_FUNC_LESS; v_.stencil_test = vagx_format_stencil(zf);
           v_.front.func = v_.back.func = VAGX_COMPARE_FUNC_ALWAYS;
           v_.front.zpass_op = v_.back.zpass_op = VAGX_STENCIL_OP_INCR_WRAP;
           v_.front.write_mask = v_.back.write_mask = 0xff);
   draw(VAGX_PRIMITIVE_TRIANGLES, 9);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0.1f, 0.2f, 0.3f, 0.4f}, .samples = samples, .rt_format = cf,
                        .pbe_twiddled = twiddled, .eot = samples == 4 ? eot_4x : NULL, .zs = zs,
                        .zs_format = zf, .clear_depth = 0.7f, .clear_stencil = 3,
                        .depth_load = zs, .depth_store = zs, .stencil_load = zs, .stencil_store = zs};
   uint64_t job = make_job(&o);
   const uint64_t fb_size = twiddled ? fb_layout.size_B : fb_stride * H;
   const uint64_t zs_size = zs ? zs_layout.size_B : 0;
   memset(io_hole, 0, sizeof(io_hole));
   /* the page holding the middle pixel: every path touches it */
   const uint64_t hole_size = hole == 1 ? fb_size : zs_size;
   const uint64_t hole_va = hole == 1 ? fb_va + (twiddled ? vagx_layout_offset_B(&fb_layout, 0, 0, w / 2, h / 2)
                                                          : fb_stride * (h / 2) + fb_bpp * (w / 2))
                                      : zs_base + vagx_layout_offset_B(&zs_layout, 0, 0, w / 2, h / 2);
   if (hole && hole_size)
      io_hole[(hole_va - MEM_BASE) / 4096] = true;
   uint8_t *init = malloc(fb_size + zs_size), *res[3];
   for (uint64_t i = 0; i < fb_size + zs_size; i++)
      init[i] = (uint8_t)(i * 2654435761u >> 13);
   struct vagx_render_fault f[3];
   enum vagx_job_status st[3];
   __typeof__(io_first) first[3];
   run_mem = &io_ops;
   /* the fast paths, the generic ones, the fast paths' baseline SIMD copy
    * (render_tile_avx2.c) */
   for (unsigned mode = 0; mode < 3; mode++) {
      memcpy(ptr(fb_va), init, fb_size);
      if (zs)
         memcpy(ptr(zs_base), init + fb_size, zs_size);
      memset(&io_first, 0, sizeof(io_first));
      vagx_render_set_options(dev, mode == 1 ? VAGX_RENDER_OPT_NO_FAST_IO | VAGX_RENDER_OPT_NO_FAST_TILE : 0);
      usc_simd_force(mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
      st[mode] = run(job, &f[mode]);
      first[mode] = io_first;
      struct vagx_render_stats stats;
      vagx_render_get_stats(dev, &stats);
      /* the fast store is taken (sRGB's round trip is not a copy) */
      CHECK(mode == 1 || hole || cf == VAGX_FORMAT_RGBA8_SRGB || stats.fast_eot_tiles > 0,
            "fast_io: no fast end-of-tile store");
      res[mode] = malloc(fb_size + zs_size);
      memcpy(res[mode], ptr(fb_va), fb_size);
      if (zs)
         memcpy(res[mode] + fb_size, ptr(zs_base), zs_size);
   }
   run_mem = &mem_ops;
   vagx_render_set_options(dev, 0);
   usc_simd_force(USC_SIMD_AUTO);
   char name[128];
   snprintf(name, sizeof(name), "%s %s %ux %s hole %u %ux%u", vagx_format_name(cf),
            twiddled ? "twiddled" : "linear", samples, zs ? vagx_format_name(zf) : "no-zs", hole, w, h);
   CHECK(st[0] == st[1] && f[0].unit == f[1].unit && f[0].address == f[1].address &&
            f[0].access == f[1].access,
         "fast_io %s: status %d/%d unit %d/%d address %llx/%llx", name, st[0], st[1], f[0].unit,
         f[1].unit, (unsigned long long)f[0].address, (unsigned long long)f[1].address);
   CHECK(first[0].faulted == first[1].faulted && first[0].va == first[1].va &&
            first[0].access == first[1].access,
         "fast_io %s: first translation fault %d %llx/%d %llx", name, first[0].faulted,
         (unsigned long long)first[0].va, first[1].faulted, (unsigned long long)first[1].va);
   CHECK((hole != 0 && hole_size) == (st[0] == VAGX_JOB_STATUS_MMU_FAULT), "fast_io %s: status %d",
         name, st[0]);
   CHECK(!memcmp(res[0], res[1], fb_size), "fast_io %s: colour image differs", name);
   CHECK(!memcmp(res[0] + fb_size, res[1] + fb_size, zs_size), "fast_io %s: depth/stencil differs",
         name);
   CHECK(st[2] == st[0] && f[2].address == f[0].address && first[2].va == first[0].va &&
            first[2].faulted == first[0].faulted && !memcmp(res[0], res[2], fb_size + zs_size),
         "fast_io %s: the SIMD levels differ", name);
   free(init);
   free(res[0]);
   free(res[1]);
   free(res[2]);
}

/* n random triangles with random vertex colours (3 smooth varyings) and
 * depths z (NULL: 0) in a vertex buffer: first vertices anywhere in the
 * frame and 10 pixels around it, the others within `scale` of their first
 * (independent: anywhere too); ties: on pixel edges and centres. */
static uint64_t rand_colour_tris(unsigned *seed, unsigned n, double scale, bool independent,
                                 bool ties, const float *z)
{
   double (*t)[2] = malloc(sizeof(*t) * n * 3);
   float *col = malloc(sizeof(*col) * n * 9);
   for (unsigned i = 0; i < n * 3; i++) {
      *seed = *seed * 1103515245u + 12345u;
      const unsigned sd = *seed;
      if (i % 3 == 0 || independent) {
         t[i][0] = (sd >> 8) % (W + 20) - 10.0;
         t[i][1] = (sd >> 16) % (H + 20) - 10.0;
      } else {  /* near the first vertex: small and thin triangles */
         t[i][0] = t[i - i % 3][0] + ((sd >> 4) % 1000) / 1000.0 * scale - scale / 2;
         t[i][1] = t[i - i % 3][1] + ((sd >> 14) % 1000) / 1000.0 * scale - scale / 2;
      }
      if (ties) {
         t[i][0] = floor(t[i][0]) + ((sd >> 3) & 1) * 0.5;
         t[i][1] = floor(t[i][1]) + ((sd >> 5) & 1) * 0.5;
      }
      for (unsigned k = 0; k < 3; k++)
         col[i * 3 + k] = (float)((sd >> (k * 7)) % 251) / 250.0f;
   }
   uint64_t vb = vbuf_tris((const double(*)[2])t, n * 3, 3, col, NULL, z);
   free(t);
   free(col);
   return vb;
}

/* Runs job the three ways a fast path is compared, each with renderer
 * options `base`: 0 with the fast paths, 1 with renderer options `slow` as
 * well (the generic code they must match), 2
 * with the fast paths' baseline SIMD copy (render_tile_avx2.c's twin), each
 * on a framebuffer of fb_size bytes of 0x5a and a depth/stencil image of
 * zs_size bytes of 0xa5; leaves each way's fragment count in lanes[] and
 * its images, colour then depth/stencil, in img[] (malloc'd). */
static void run_three_ways(const char *what, uint64_t job, unsigned base, unsigned slow,
                           uint64_t fb_size, uint64_t zs_size, uint64_t lanes[3], uint8_t *img[3])
{
   for (unsigned mode = 0; mode < 3; mode++) {
      vagx_render_set_options(dev, base | (mode == 1 ? slow : 0));
      usc_simd_force(mode == 2 ? USC_SIMD_GENERIC : USC_SIMD_AUTO);
      memset(ptr(fb_va), 0x5a, fb_size);
      if (zs_size)
         memset(ptr(zs_base), 0xa5, zs_size);
      struct vagx_render_fault f;
      CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "%s status", what);
      struct vagx_render_stats st;
      vagx_render_get_stats(dev, &st);
      lanes[mode] = st.fragment_lanes;
      img[mode] = malloc(fb_size + zs_size);
      memcpy(img[mode], ptr(fb_va), fb_size);
      if (zs_size)
         memcpy(img[mode] + fb_size, ptr(zs_base), zs_size);
   }
   vagx_render_set_options(dev, 0);
   usc_simd_force(USC_SIMD_AUTO);
}

/* The vertex colour (cf1..cf3 of rand_colour_tris) in r0..r2. */
#define COLOUR_FS_ITER                                                                            \
   "iter.center.persp r0, cf1, cf0, r0\niter.center.persp r1, cf2, cf0, r0\n"                     \
   "iter.center.persp r2, cf3, cf0, r0\n"

/* emit_state for rand_colour_tris's varyings and fragment program fs. */
static void emit_colour_state(uint64_t vb, const struct prog *fs)
{
   uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH), binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
   emit_state(3, 0, 0, vb, fs, cfb, 2, 4, false);
}

/* Block coverage (an 8x4 block's edge functions stepped across it) against
 * per-sample edge tests (VAGX_RENDER_OPT_NO_FAST_RASTER): random triangles,
 * tiny to huge, on and off the pixel grid, sharing edges, 1X and 4X, with
 * colours from the vertices so any coverage difference shows. */
static void test_fast_raster(void)
{
   unsigned seed = 12345;
   for (unsigned samples = 1; samples <= 4; samples += 3)
      for (unsigned round = 0; round < 8; round++) {
         brk_ = 0;
         W = 97; H = 71;
         ncs = 0;
         enum { NT = 120 };
         /* rounds 6 and 7: edges thousands of pixels long (two vertices
          * far outside the viewport), whose values across a block do not
          * fit 32 bits */
         const double scale = round < 2 ? 8.0 : round < 4 ? 40.0 : round < 6 ? 120.0 : 20000.0;
         uint64_t vb = rand_colour_tris(&seed, NT, scale, (round & 1) && round < 6,
                                        round == 5 || round == 7, NULL);
         struct prog fs = {.code = assemble(COLOUR_FS_ITER
                                            "mov r3, #1.0\nst_tile.rt0 r0, #0\n"
                                            "st_tile.rt0 r0, #1\nst_tile.rt0 r0, #2\n"
                                            "st_tile.rt0 r0, #3\nend\n")};
         emit_colour_state(vb, &fs);
         if (samples == 4)
            EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
                 v_.sample_mask = 0xf; v_.depth_clip = 1; v_.multisample = 1);
         draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
         EMIT(cmd_end);
         struct job_opts o = {.clear = {0, 0, 0, 0}, .samples = samples, .pbe_twiddled = samples == 4,
                              .eot = samples == 4 ? eot_4x : NULL};
         uint64_t job = make_job(&o);
         const uint64_t size = samples == 4 ? fb_layout.size_B : fb_stride * H;
         uint8_t *img[3];
         uint64_t lanes[3];
         /* block coverage, per-sample tests, block coverage's baseline
          * SIMD copy */
         run_three_ways("fast_raster", job, 0, VAGX_RENDER_OPT_NO_FAST_RASTER, size, 0, lanes, img);
         CHECK(lanes[2] == lanes[0] && !memcmp(img[0], img[2], size),
               "fast_raster %ux round %u: the SIMD levels differ", samples, round);
         CHECK(lanes[0] == lanes[1] && lanes[0] > 0, "fast_raster %ux round %u: %llu/%llu fragments",
               samples, round, (unsigned long long)lanes[0], (unsigned long long)lanes[1]);
         CHECK(!memcmp(img[0], img[1], size), "fast_raster %ux round %u: images differ", samples, round);
         free(img[0]);
         free(img[1]);
         free(img[2]);
      }
}

/* Early depth tests of single-sampled triangles a block row at a time
 * (render_tile.c block_depth_1x) against the per-lane path
 * (VAGX_RENDER_OPT_NO_FAST_IO): random overlapping triangles whose depth
 * leaves [0, 1], every compare function, each depth format without a
 * stencil test, with and without depth writes, depth clip (the unit clamp)
 * and hidden-surface removal (an opaque pipeline: its first pass is the
 * block path too).  Same colours, depth buffer and fragment count. */
static void test_fast_depth(void)
{
   static const enum vagx_format zfs[] = {VAGX_FORMAT_Z32_FLOAT, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                          VAGX_FORMAT_Z16_UNORM};
   unsigned seed = 777, cases = 0, shaded = 0;
   for (unsigned fi = 0; fi < 3; fi++)
      for (unsigned func = VAGX_COMPARE_FUNC_NEVER; func <= VAGX_COMPARE_FUNC_ALWAYS; func++)
         for (unsigned v = 0; v < 4; v++) {
            brk_ = 0;
            W = 97; H = 71;
            ncs = 0;
            enum { NT = 60 };
            float z[NT * 3];
            for (unsigned i = 0; i < NT * 3; i++) {
               seed = seed * 1103515245u + 12345u;
               z[i] = (float)((seed >> 3) % 1601) / 1000.0f - 0.3f;
               /* every third triangle flat at a few shared depths (up to past the far
                * plane): equal tests */
               if ((i / 3) % 3 == 2)
                  z[i] = (float)((i / 9) % 6) * 0.25f;
            }
            uint64_t vb = rand_colour_tris(&seed, NT, 40.0, false, false, z);
            struct prog fs = {.code = assemble(COLOUR_FS_ITER "mov r3, #1.0\nst_tile.rt0 r0, #0\nend\n")};
            emit_colour_state(vb, &fs);
            seed = seed * 1103515245u + 12345u;
            const bool write = seed >> 20 & 1, clip = v >> 1, hsr = v & 1;
            if (hsr) {
               uint32_t cfb[2] = {binding(0, 1, 0, VAGX_INTERP_SMOOTH),
                                  binding(1, 3, 1, VAGX_INTERP_SMOOTH)};
               EMIT(cmd_bind_fragment_pipeline, v_.cf_binding_count = 2; v_.cf_count = 4;
                    v_.slots32 = 4; v_.opaque = 1; v_.cf_bindings_va = put(cfb, 8, 4);
                    to_usc(&fs, &v_.program));
            }
            EMIT(cmd_rasterizer, v_.half_pixel_center = 1; v_.point_size = 1; v_.line_width = 1;
                 v_.sample_mask = 0xf; v_.depth_clip = clip);
            /* a depth range past [0, 1] (a float depth buffer's, or one a
             * unorm format saturates), or a narrow one */
            static const float ranges[3][2] = {{0, 1}, {-0.5f, 1.5f}, {0.7f, 0.2f}};
            const unsigned ri = (seed >> 22) % 3;
            EMIT(cmd_viewport, v_.scale_x = W / 2.0f; v_.offset_x = W / 2.0f; v_.scale_y = H / 2.0f;
                 v_.offset_y = H / 2.0f; v_.scale_z = 1; v_.offset_z = 0;
                 v_.min_depth = ranges[ri][0]; v_.max_depth = ranges[ri][1]);
            EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = write;
                 v_.depth_func = (enum vagx_compare_func)func);
            draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
            EMIT(cmd_end);
            /* the far plane as clear depth: saturated fragments meet it */
            struct job_opts o = {.clear = {0, 0, 0, 0}, .zs = true, .zs_format = zfs[fi],
                                 .clear_depth = seed >> 23 & 1 ? 1.0f : 0.5f, .depth_store = true};
            uint64_t job = make_job(&o);
            const uint64_t fb_size = fb_stride * H, zs_size = zs_layout.size_B;
            uint8_t *img[3];
            uint64_t lanes[3];
            /* the fast paths, the per-lane path, the fast paths' baseline
             * SIMD copy */
            /* hsr: HSR whatever the shader costs */
            run_three_ways("fast_depth", job, hsr ? VAGX_RENDER_OPT_ALL_HSR : 0,
                           VAGX_RENDER_OPT_NO_FAST_IO, fb_size, zs_size, lanes, img);
            shaded += lanes[0] > 0;
            CHECK(lanes[0] == lanes[1] && (lanes[0] == 0 || func != VAGX_COMPARE_FUNC_NEVER),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: %llu/%llu fragments",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri, (unsigned long long)lanes[0],
                  (unsigned long long)lanes[1]);
            CHECK(!memcmp(img[0], img[1], fb_size + zs_size),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: %s differ",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri,
                  memcmp(img[0], img[1], fb_size) ? "colours" : "depths");
            CHECK(lanes[2] == lanes[0] && !memcmp(img[0], img[2], fb_size + zs_size),
                  "fast_depth %s func %u write %d clip %d hsr %d range %u: the SIMD levels differ",
                  vagx_format_name(zfs[fi]), func, write, clip, hsr, ri);
            free(img[0]);
            free(img[1]);
            free(img[2]);
            cases++;
         }
   CHECK(shaded >= cases / 2, "fast_depth: only %u of %u jobs shaded anything", shaded, cases);
   printf("  fast_depth: %u jobs compared with the per-lane path, %u shaded\n", cases, shaded);
}

/* ld_tile of a single-sampled RGBA8/BGRA8 target (render_tile.c's fast
 * path: blends in the shader, end-of-tile programs) against the per-lane
 * path (VAGX_RENDER_OPT_NO_FAST_IO): overlapping random triangles whose
 * shader mixes the tile's colour (read as a float and as the sample
 * index's lane value) into its own. */
static void test_fast_ld_tile(void)
{
   unsigned seed = 4242;
   for (unsigned fi = 0; fi < 2; fi++) {
      brk_ = 0;
      W = 61; H = 45;
      ncs = 0;
      enum { NT = 40 };
      uint64_t vb = rand_colour_tris(&seed, NT, 0, true, false, NULL);
      struct prog fs = {.code = assemble(COLOUR_FS_ITER "ld_tile.rt0 r4, #0\n"
                                         "fmul r0, r0, #0.5\nfmul r4, r4, #0.5\nfadd r0, r0, r4\n"
                                         "fmul r1, r1, #0.5\nfmul r5, r5, #0.5\nfadd r1, r1, r5\n"
                                         "fmul r2, r2, #0.5\nfmul r6, r6, #0.5\nfadd r2, r2, r6\n"
                                         "fadd r3, r7, #0.125\nst_tile.rt0 r0, #0\nend\n")};
      emit_colour_state(vb, &fs);
      draw(VAGX_PRIMITIVE_TRIANGLES, NT * 3);
      EMIT(cmd_end);
      struct job_opts o = {.clear = {0.2f, 0.4f, 0.6f, 0.3f},
                           .rt_format = fi ? VAGX_FORMAT_BGRA8_UNORM : VAGX_FORMAT_RGBA8_UNORM};
      uint64_t job = make_job(&o);
      const uint64_t size = fb_stride * H;
      uint8_t *img[2];
      for (unsigned mode = 0; mode < 2; mode++) {
         vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_NO_FAST_IO : 0);
         memset(ptr(fb_va), 0x5a, size);
         struct vagx_render_fault f;
         CHECK(run(job, &f) == VAGX_JOB_STATUS_OK, "fast_ld_tile status");
         img[mode] = malloc(size);
         memcpy(img[mode], ptr(fb_va), size);
      }
      vagx_render_set_options(dev, 0);
      CHECK(!memcmp(img[0], img[1], size), "fast_ld_tile %s: images differ",
            fi ? "BGRA8" : "RGBA8");
      /* and the blend happened: the clear colour shows through */
      unsigned mixed = 0;
      for (unsigned y = 0; y < H; y++)
         for (unsigned x = 0; x < W; x++)
            mixed += px(x, y)[3] != (uint8_t)lrint(0.3 * 255);
      CHECK(mixed > 0, "fast_ld_tile: nothing drawn");
      free(img[0]);
      free(img[1]);
   }
}

static void test_fast_io(void)
{
   static const enum vagx_format cfs[] = {VAGX_FORMAT_RGBA8_UNORM, VAGX_FORMAT_BGRA8_UNORM,
                                          VAGX_FORMAT_R8_UNORM, VAGX_FORMAT_RGBA16_UNORM,
                                          VAGX_FORMAT_RGBA32_FLOAT, VAGX_FORMAT_RGBA8_SRGB};
   static const enum vagx_format zfs[] = {VAGX_FORMAT_INVALID, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                          VAGX_FORMAT_Z16_UNORM, VAGX_FORMAT_Z32_FLOAT,
                                          VAGX_FORMAT_S8_UINT, VAGX_FORMAT_Z32_FLOAT_S8X24_UINT};
   static const unsigned sizes[][2] = {{77, 50}, {70, 15}, {130, 97}};
   unsigned n = 0;
   for (unsigned ci = 0; ci < sizeof(cfs) / sizeof(cfs[0]); ci++)
      for (unsigned lay = 0; lay < 3; lay++)          /* linear, twiddled 1X, twiddled 4X */
         for (unsigned zi = 0; zi < sizeof(zfs) / sizeof(zfs[0]); zi++)
            for (unsigned hole = 0; hole < 3; hole++) {
               if (hole == 2 && zfs[zi] == VAGX_FORMAT_INVALID)
                  continue;
               const unsigned *sz = sizes[(ci + zi + hole + lay) % 3];
               fast_io_case(cfs[ci], lay > 0, lay == 2 ? 4 : 1, zfs[zi], hole, sz[0], sz[1]);
               n++;
            }
   printf("  fast_io: %u jobs compared with the generic paths\n", n);
}

/* Hidden-surface removal: overlapping opaque quads drawn back to front with
 * a depth test.  The image must equal the reference (the last quad covering
 * each pixel centre) with HSR on and off, the query must count the same
 * samples, and with HSR each covered pixel is shaded once.  Pipelines HSR
 * must not touch (not opaque, discard) shade every fragment. */
enum { HSR_N = 6 };
static const double hsr_q[HSR_N][4] = {   /* x0 y0 x1 y1, back to front */
   {2, 3, 62, 60}, {10.5, 0, 50, 40.25}, {20, 20, 64, 64}, {0, 30, 33.75, 55},
   {25, 5, 45, 58}, {5.5, 44, 60, 49.5}};

/* The constant shader, or (costly) the same with R_HSR_MIN_COST ALU
 * instructions before it: what the device takes HSR for by default. */
static struct prog hsr_fs(float r, float g, float b, float a, bool costly)
{
   struct prog p = const_fs(r, g, b, a);
   if (costly) {
      char src[R_HSR_MIN_COST * 16 + 256] = "";
      for (unsigned i = 0; i < R_HSR_MIN_COST; i++)
         strcat(src, "fadd r4, r4, u0\n");
      strcat(src, fs_const);
      p.code = assemble(src);
   }
   return p;
}

/* hsr: VAGX_RENDER_OPT_ALL_HSR (HSR whatever the shader costs); off:
 * VAGX_RENDER_OPT_NO_HSR; `defaults`: neither, the device's own choice */
static void hsr_scene_opts(bool opaque, bool discards, bool depth_write, bool hsr, bool defaults,
                           bool costly, uint8_t *img, uint64_t *lanes, uint64_t *query)
{
   W = 64; H = 64;
   ncs = 0;
   double t[HSR_N * 6][2];
   float z[HSR_N * 6];
   for (unsigned q = 0; q < HSR_N; q++) {
      const double *r = hsr_q[q];
      const double v[6][2] = {{r[0], r[1]}, {r[2], r[1]}, {r[2], r[3]},
                              {r[0], r[1]}, {r[2], r[3]}, {r[0], r[3]}};
      memcpy(t + 6 * q, v, sizeof(v));
      for (unsigned k = 0; k < 6; k++)
         z[6 * q + k] = 0.9f - 0.1f * (float)q;
   }
   uint64_t vb = vbuf_tris((const double(*)[2])t, HSR_N * 6, 0, NULL, NULL, z);
   struct prog fs0 = const_fs(0, 0, 0, 1);
   emit_state(0, 0, 0, vb, &fs0, NULL, 0, 0, false);
   EMIT(cmd_depth_stencil, v_.depth_test = 1; v_.depth_write = depth_write;
        v_.depth_func = VAGX_COMPARE_FUNC_LESS);
   uint64_t qva = alloc(8, 8);
   EMIT(cmd_query_begin, v_.type = VAGX_QUERY_TYPE_OCCLUSION_COUNTER; v_.result_va = qva);
   for (unsigned q = 0; q < HSR_N; q++) {
      struct prog fs = hsr_fs((q + 1) * 40 / 255.0f, (q & 1) ? 1.0f : 0.0f, q / 10.0f, 1, costly);
      EMIT(cmd_bind_fragment_pipeline, v_.slots32 = 1; v_.opaque = opaque; v_.discards = discards;
           to_usc(&fs, &v_.program));
      EMIT(cmd_draw, v_.primitive = VAGX_PRIMITIVE_TRIANGLES; v_.count = 6; v_.first = 6 * q;
           v_.instance_count = 1);
   }
   EMIT(cmd_query_end);
   EMIT(cmd_end);
   struct job_opts o = {.clear = {0, 0, 1, 1}, .clear_depth = 1.0f};
   uint64_t job = make_job(&o);
   vagx_render_set_options(dev, defaults ? 0 : hsr ? VAGX_RENDER_OPT_ALL_HSR : VAGX_RENDER_OPT_NO_HSR);
   struct vagx_render_fault f;
   enum vagx_job_status st = run(job, &f);
   vagx_render_set_options(dev, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "hsr status %d", st);
   struct vagx_render_stats stats;
   vagx_render_get_stats(dev, &stats);
   *lanes = stats.fragment_lanes;
   memcpy(query, ptr(qva), 8);
   for (unsigned y = 0; y < H; y++)
      memcpy(img + y * W * 4, px(0, y), W * 4);
}

static void hsr_scene(bool opaque, bool discards, bool depth_write, bool hsr, uint8_t *img,
                      uint64_t *lanes, uint64_t *query)
{
   hsr_scene_opts(opaque, discards, depth_write, hsr, false, false, img, lanes, query);
}

static void test_hsr(void)
{
   static uint8_t img[2][64 * 64 * 4];
   uint64_t lanes[2], query[2];
   /* reference: colour of the last (nearest) quad covering each pixel centre */
   unsigned covered = 0, frags = 0, bad = 0;
   int last[64 * 64];
   for (unsigned y = 0; y < 64; y++)
      for (unsigned x = 0; x < 64; x++) {
         last[y * 64 + x] = -1;
         for (unsigned q = 0; q < HSR_N; q++) {
            const double *r = hsr_q[q];
            const double a[3][2] = {{r[0], r[1]}, {r[2], r[1]}, {r[2], r[3]}};
            const double b[3][2] = {{r[0], r[1]}, {r[2], r[3]}, {r[0], r[3]}};
            if (ref_inside(a, x + 0.5, y + 0.5) || ref_inside(b, x + 0.5, y + 0.5)) {
               last[y * 64 + x] = (int)q;
               frags++;
            }
         }
         covered += last[y * 64 + x] >= 0;
      }
   for (unsigned mode = 0; mode < 2; mode++)
      hsr_scene(true, false, true, mode == 0, img[mode], &lanes[mode], &query[mode]);
   for (unsigned i = 0; i < 64 * 64; i++) {
      const int q = last[i];
      const uint8_t e[4] = {q < 0 ? 0 : (uint8_t)((q + 1) * 40), q >= 0 && (q & 1) ? 255 : 0,
                            q < 0 ? 255 : (uint8_t)lrint((double)(q / 10.0f) * 255), 255};
      bad += memcmp(img[0] + 4 * i, e, 4) != 0;
   }
   CHECK(bad == 0, "hsr: %u pixels differ from the reference", bad);
   CHECK(!memcmp(img[0], img[1], sizeof(img[0])), "hsr: image differs with HSR off");
   CHECK(query[0] == frags && query[1] == frags, "hsr: occlusion %llu/%llu, expected %u",
         (unsigned long long)query[0], (unsigned long long)query[1], frags);
   CHECK(lanes[0] == covered && lanes[1] == frags,
         "hsr: %llu lanes shaded with HSR (expected %u, one per covered pixel), %llu without "
         "(expected %u)", (unsigned long long)lanes[0], covered, (unsigned long long)lanes[1], frags);
   printf("  hsr: %u fragments, %llu shaded with HSR, %llu without\n", frags,
          (unsigned long long)lanes[0], (unsigned long long)lanes[1]);
   /* not opaque (e.g. blending), or discarding: every fragment is shaded */
   static uint8_t im2[64 * 64 * 4];
   uint64_t l2, q2;
   hsr_scene(false, false, true, true, im2, &l2, &q2);
   CHECK(l2 == frags && !memcmp(im2, img[0], sizeof(im2)), "hsr: non-opaque shaded %llu of %u",
         (unsigned long long)l2, frags);
   hsr_scene(true, true, true, true, im2, &l2, &q2);
   CHECK(l2 == frags && !memcmp(im2, img[0], sizeof(im2)), "hsr: discarding shaded %llu of %u",
         (unsigned long long)l2, frags);
   /* depth writes off: every fragment passes against the clear depth and the
    * last one wins, with or without HSR */
   hsr_scene(true, false, false, true, im2, &l2, &q2);
   uint64_t l3, q3;
   static uint8_t im3[64 * 64 * 4];
   hsr_scene(true, false, false, false, im3, &l3, &q3);
   CHECK(!memcmp(im2, im3, sizeof(im2)) && !memcmp(im2, img[0], sizeof(im2)) && l2 == covered &&
         l3 == frags && q2 == frags && q3 == frags,
         "hsr: depth writes off: lanes %llu/%llu queries %llu/%llu", (unsigned long long)l2,
         (unsigned long long)l3, (unsigned long long)q2, (unsigned long long)q3);
   /* ids continue from run to run (hsr_run) and wrap: at the wrap, every
    * stale id must go, here a 1 at every sample (the first id after the
    * wrap), which would give the background to the first quad */
   for (unsigned i = 0; i < dev->nw; i++) {
      for (unsigned k = 0; k < R_TS * R_TS * VAGX_MAX_SAMPLES; k++)
         dev->w[i].vis[k] = 1;
      dev->w[i].vis_next = UINT32_MAX - 2;
   }
   hsr_scene(true, false, true, true, im2, &l2, &q2);
   CHECK(!memcmp(im2, img[0], sizeof(im2)) && l2 == covered && q2 == frags,
         "hsr: after the ids wrap: lanes %llu (expected %u), image %s", (unsigned long long)l2,
         covered, memcmp(im2, img[0], sizeof(im2)) ? "differs" : "same");
   /* by default the device takes HSR only for a shader that costs more than
    * the second pass (R_HSR_MIN_COST): the constant one is shaded at every
    * fragment, the costly one once per covered pixel; the images are the same */
   for (unsigned costly = 0; costly < 2; costly++) {
      hsr_scene_opts(true, false, true, false, true, costly, im2, &l2, &q2);
      CHECK(!memcmp(im2, img[0], sizeof(im2)) && l2 == (costly ? covered : frags) && q2 == frags,
            "hsr: default choice, %s shader: lanes %llu (expected %u), image %s",
            costly ? "costly" : "cheap", (unsigned long long)l2, costly ? covered : frags,
            memcmp(im2, img[0], sizeof(im2)) ? "differs" : "same");
   }
}

int main(void)
{
   mem = calloc(1, MEM_SIZE);
   dev = vagx_render_device_create();
   if (!mem || !dev)
      return 2;
   struct { const char *name; void (*fn)(void); } tests[] = {
      {"triangle", test_triangle},
      {"shared_edges", test_shared_edges},
      {"varyings", test_varyings},
      {"varyings_bits", test_varyings_bits},
      {"noperspective_clipped", test_noperspective_clipped},
      {"depth_cull_query", test_depth_cull_query},
      {"query_no_depth", test_query_no_depth},
      {"strip_fan_clip", test_strip_fan_clip},
      {"textures", test_textures},
      {"desc_cache", test_desc_cache},
      {"tex_linear_stride", test_tex_linear_stride},
      {"msaa", test_msaa},
      {"lines", test_lines},
      {"faults", test_faults},
      {"stencil_zs_io", test_stencil},
      {"depth_quantize", test_depth_quantize},
      {"zs_untouched_store", test_zs_untouched_store},
      {"side_effects_late", test_side_effects_late},
      {"points", test_points},
      {"clip_distances", test_clip_distances},
      {"mipmaps", test_mipmaps},
      {"tex_fast_sampling", test_tex_fast_sampling},
      {"tex_fast_bits", test_tex_fast_bits},
      {"tex_fast_floor", test_tex_fast_floor},
      {"tex_fast_inactive", test_tex_fast_inactive},
      {"tex_fast_fetch", test_tex_fast_fetch},
      {"st_tile_rgba8_round", test_st_tile_rgba8_round},
      {"tex_filter8_bits", test_tex_filter8_bits},
      {"tex_sparse", test_tex_sparse},
      {"tex_3d_array", test_tex_3d_array},
      {"tex_cube", test_tex_cube},
      {"formats", test_formats},
      {"tex_int_sampling", test_tex_int_sampling},
      {"frag_outputs", test_frag_outputs},
      {"clip_view_volume", test_clip_view_volume},
      {"sr_rows", test_sr_rows},
      {"binning", test_binning},
      {"bad_geometry", test_bad_geometry},
      {"fast_tile", test_fast_tile},
      {"fast_io", test_fast_io},
      {"fast_raster", test_fast_raster},
      {"fast_depth", test_fast_depth},
      {"fast_ld_tile", test_fast_ld_tile},
      {"hsr", test_hsr},
      {"fill_modes", test_fill_modes},
      {"edge_flags", test_edge_flags},
      {"point_size_min", test_point_size_min},
      {"cube_lod", test_cube_lod},
      {"shadow_ref_clamp", test_shadow_ref_clamp},
      {"big_draws", test_big_draws},
      {"geometry_budget", test_geometry_budget},
      {"tex_span_safepoint", test_tex_span_safepoint},
      {"geometry_workers", test_geometry_workers},
      {"geometry_fault_order", test_geometry_fault_order},
      {"gs_passthrough", test_gs_passthrough},
      {"gs_quads", test_gs_quads},
      {"gs_strips", test_gs_strips},
      {"gs_winding", test_gs_winding},
      {"gs_adjacency", test_gs_adjacency},
      {"gs_errors", test_gs_errors},
      {"gs_budget", test_gs_budget},
      {"tex_buffer", test_tex_buffer},
      {"tex_gather", test_tex_gather},
      {"tex_cube_seamless", test_tex_cube_seamless},
      {"tex_resid", test_tex_resid},
   };
   for (unsigned i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
      int before = t_failures;
      brk_ = 0;
      tests[i].fn();
      printf("%s %s\n", t_failures == before ? "ok  " : "FAIL", tests[i].name);
   }
   printf("%d checks, %d failures\n", t_checks, t_failures);
   vagx_render_device_destroy(dev);
   free(mem);
   return t_failures ? 1 : 0;
}
