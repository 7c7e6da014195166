/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: texture gather (`tex .gather`, render.md "Texture
 * gather"): the four texels of the bilinear footprint in GL's order, the
 * component select, wrap modes at the edges, the descriptor's swizzle,
 * integer formats and shadow (compare) gathers.
 */
#include "render_test_harness.h"

#define GW 16
#define GH 4

/* texel (x, y) of the 4x4 RGBA8 texture: distinct bytes per component */
static void fill_g(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   (void)layer;
   for (unsigned k = 0; k < 4; k++)
      o[k] = (uint8_t)(16 * y + 4 * x + k * 64 + 1);
}

/* depth of texel (x, y) of the Z32_FLOAT texture */
static float depth_g(unsigned x, unsigned y)
{
   return (float)(x + 4 * y) / 16.0f;
}

static void fill_depth_g(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   (void)layer;
   const float d = depth_g(x, y);
   memcpy(o, &d, 4);
}

/* Every pixel (x, y) of a 16x4 RGBA32_UINT target gathers component comp of
 * texture tva at ((x + 0.5) / 16, (y + 0.5) / 4), shadow reference 0.4. */
static enum vagx_job_status gather_draw(uint64_t tva, uint64_t sva, unsigned comp, bool shadow)
{
   W = GW;
   H = GH;
   struct prog fs = {.tex = tva, .ntex = 1, .smp = sva, .nsmp = 1,
                     .code = assemblef("u2f r4, sr.pix_x\nfadd r4, r4, #0.5\nfmul r4, r4, #0.0625\n"
                                       "u2f r5, sr.pix_y\nfadd r5, r5, #0.5\nfmul r5, r5, #0.25\n"
                                       "mov r6, #%u\nmov r7, #0x3ecccccd\n"
                                       "tex.gather.t0.s0.2d%s r0, r4, r6, r7\n"
                                       "st_tile.rt0 r0, #0\nend\n",
                                       comp, shadow ? ".shadow" : "")};
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
   return draw_fullscreen(&fs, &o);
}

/* the wrapped texel coordinate of the footprint's i-th column or row */
static int wrap_g(int i, enum vagx_wrap w)
{
   if (w == VAGX_WRAP_REPEAT)
      return (i % 4 + 4) % 4;
   return i < 0 ? 0 : i > 3 ? 3 : i;
}

static uint64_t gather_tex(enum vagx_format f, const enum vagx_swizzle *swz,
                           void (*fill)(unsigned, unsigned, unsigned, unsigned, uint8_t *))
{
   struct texdesc td = {f, VAGX_DIMENSION_2D, 4, 4, 1, 1, 0, 0, false};
   uint64_t tva = make_texture(&td, fill);
   if (swz) {
      struct vagx_texture t;
      vagx_texture_unpack(ptr(tva), &t, NULL);
      t.swizzle_r = swz[0];
      t.swizzle_g = swz[1];
      t.swizzle_b = swz[2];
      t.swizzle_a = swz[3];
      vagx_texture_pack(ptr(tva), &t);
   }
   return tva;
}

void test_tex_gather(void)
{
   static const int di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
   /* A: RGBA8_UNORM, each component, CLAMP_TO_EDGE and REPEAT (pixel
    * columns 0 and 15 reach past the edges) */
   unsigned bad = 0, runs = 0;
   for (unsigned wi = 0; wi < 2; wi++) {
      const enum vagx_wrap w = wi ? VAGX_WRAP_REPEAT : VAGX_WRAP_CLAMP_TO_EDGE;
      const uint64_t tva = gather_tex(VAGX_FORMAT_RGBA8_UNORM, NULL, fill_g);
      const uint64_t sva = make_sampler(VAGX_FILTER_LINEAR, VAGX_FILTER_LINEAR, VAGX_MIP_FILTER_NONE,
                                        w, 0, 16, 0);
      for (unsigned comp = 0; comp < 4; comp++) {
         enum vagx_job_status st = gather_draw(tva, sva, comp, false);
         CHECK(st == VAGX_JOB_STATUS_OK, "gather: status %d", st);
         runs++;
         for (unsigned y = 0; y < GH; y++)
            for (unsigned x = 0; x < GW; x++) {
               /* texel space: x / 4 - 0.375 and y; footprint from floor */
               const int x0 = (int)floor((x + 0.5) / 4.0 - 0.5), y0 = (int)floor((y + 0.5) - 0.5);
               uint32_t g[4];
               memcpy(g, px(x, y), 16);
               for (unsigned k = 0; k < 4; k++) {
                  uint8_t t[4];
                  fill_g(0, 0, (unsigned)wrap_g(x0 + di[k], w), (unsigned)wrap_g(y0 + dj[k], w), t);
                  float e = t[comp] / 255.0f, gf;
                  memcpy(&gf, &g[k], 4);
                  bad += fabsf(gf - e) > 1e-6f;
               }
            }
      }
   }
   CHECK(bad == 0, "gather RGBA8: %u of %u results wrong", bad, runs * GW * GH * 4);

   /* B: the swizzle applies before the component select: (B, A, ONE, ZERO) */
   const enum vagx_swizzle swz[4] = {VAGX_SWIZZLE_B, VAGX_SWIZZLE_A, VAGX_SWIZZLE_ONE,
                                     VAGX_SWIZZLE_ZERO};
   const uint64_t sva = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, VAGX_MIP_FILTER_NONE,
                                     VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0);
   const uint64_t sw = gather_tex(VAGX_FORMAT_RGBA8_UNORM, swz, fill_g);
   static const struct { unsigned comp; int src; } sel[] = {{0, 2}, {1, 3}, {2, -1}, {3, -2}};
   bad = 0;
   for (unsigned i = 0; i < 4; i++) {
      enum vagx_job_status st = gather_draw(sw, sva, sel[i].comp, false);
      CHECK(st == VAGX_JOB_STATUS_OK, "swizzled gather: status %d", st);
      uint32_t g[4];
      memcpy(g, px(6, 1), 16);   /* x0 = 1, y0 = 1 */
      for (unsigned k = 0; k < 4; k++) {
         uint8_t t[4];
         fill_g(0, 0, 1 + di[k], 1 + dj[k], t);
         const float e = sel[i].src >= 0 ? t[sel[i].src] / 255.0f : sel[i].src == -1 ? 1.0f : 0.0f;
         float gf;
         memcpy(&gf, &g[k], 4);
         bad += gf != e;
      }
   }
   CHECK(bad == 0, "swizzled gather: %u of 16 results wrong", bad);

   /* C: an integer format gathers the integers (RGBA8_UINT) */
   const uint64_t it = gather_tex(VAGX_FORMAT_RGBA8_UINT, NULL, fill_g);
   enum vagx_job_status st = gather_draw(it, sva, 1, false);
   uint32_t g[4];
   memcpy(g, px(6, 1), 16);
   uint8_t t0[4], t3[4];
   fill_g(0, 0, 1, 2, t0);
   fill_g(0, 0, 1, 1, t3);
   CHECK(st == VAGX_JOB_STATUS_OK && g[0] == t0[1] && g[3] == t3[1], "integer gather: %u %u",
         g[0], g[3]);

   /* D: shadow gather, LESS (passes when 0.4 < depth): 0.0/1.0 per texel */
   struct vagx_sampler s;
   vagx_sampler_init(&s);
   s.min_filter = s.mag_filter = VAGX_FILTER_LINEAR;
   s.wrap_s = s.wrap_t = s.wrap_r = VAGX_WRAP_CLAMP_TO_EDGE;
   s.compare_enable = true;
   s.compare_func = VAGX_COMPARE_FUNC_LESS;
   s.max_lod = 16;
   const uint64_t cva = alloc(32, 32);
   vagx_sampler_pack(ptr(cva), &s);
   const uint64_t dt = gather_tex(VAGX_FORMAT_Z32_FLOAT, NULL, fill_depth_g);
   st = gather_draw(dt, cva, 0, true);
   CHECK(st == VAGX_JOB_STATUS_OK, "shadow gather: status %d", st);
   bad = 0;
   for (unsigned y = 0; y < GH; y++)
      for (unsigned x = 0; x < GW; x++) {
         const int x0 = (int)floor((x + 0.5) / 4.0 - 0.5), y0 = (int)y;
         memcpy(g, px(x, y), 16);
         for (unsigned k = 0; k < 4; k++) {
            const float d = depth_g((unsigned)wrap_g(x0 + di[k], VAGX_WRAP_CLAMP_TO_EDGE),
                                    (unsigned)wrap_g(y0 + dj[k], VAGX_WRAP_CLAMP_TO_EDGE));
            const float e = 0.4f < d ? 1.0f : 0.0f;
            float gf;
            memcpy(&gf, &g[k], 4);
            bad += gf != e;
         }
      }
   CHECK(bad == 0, "shadow gather: %u of %u results wrong", bad, GW * GH * 4);
}
