/* SPDX-License-Identifier: MIT */
/* The renderer's span/addressing/format fast paths (render_io.h) against the
 * generic code they replace, bit for bit, on random inputs:
 *   - r_addr_offset against vagx_layout_offset_B on random layouts (linear
 *     and twiddled, small and large levels, mip chains, layers, 4X);
 *   - r_zs_load_px / r_zs_store_px / r_zs_quantize against the generic
 *     r_fmt_unpack / r_fmt_pack conversion (r_zs_px) for every depth/stencil
 *     format, random memory bytes, random depths (NaN, negatives, > 1,
 *     denormals) and every load/store combination;
 *   - r_unorm_enc against the nearbyint() formula it replaced;
 *   - r_span_map against r_map through a page-granular translation with
 *     unmapped pages: same host addresses, the same first fault (address,
 *     access, unit), probes never recorded.
 * The whole-job comparison (images, faults) is test_render's fast_io. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_io.h"
#include "render_test_fault.h"

#include "vagx_check.h"
#include "vagx_test_rand.h"

static uint32_t rnd_to(uint32_t n) { return n ? t_rand() % n : 0; }

/* ---------------------------------------------------------- addressing -- */

static bool random_layout(struct vagx_layout *l)
{
   static const uint32_t bpbs[] = {1, 2, 4, 8, 16};
   memset(l, 0, sizeof(*l));
   const bool linear = rnd_to(4) == 0, msaa = !linear && rnd_to(5) == 0;
   const uint32_t big = rnd_to(3) == 0 ? 3000 : 300;
   l->width_px = 1 + rnd_to(big);
   l->height_px = 1 + rnd_to(rnd_to(4) == 0 ? 40 : big);
   l->bytes_per_block_B = bpbs[rnd_to(5)];
   l->block_width_px = l->block_height_px = 1;
   l->sample_count_sa = msaa ? 4 : 1;
   l->tiling = linear ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
   l->depth_px = linear || rnd_to(2) ? 1 : 1 + rnd_to(7);
   l->mipmapped_z = !msaa && l->depth_px > 1 && rnd_to(2);
   l->levels = linear || msaa || rnd_to(2) ? 1 : 2 + rnd_to(3);
   if (linear && rnd_to(2))
      l->linear_stride_B = (l->width_px * l->bytes_per_block_B + 15 + 16 * rnd_to(8)) & ~15u;
   return vagx_layout_init(l);
}

static void test_addr(void)
{
   unsigned layouts = 0, points = 0;
   for (unsigned n = 0; n < 3000; n++) {
      struct vagx_layout l;
      if (!random_layout(&l))
         continue;
      layouts++;
      for (unsigned k = 0; k < 40; k++) {
         const uint32_t level = rnd_to(l.levels_alloc), layer = rnd_to(l.layers);
         struct raddr a;
         r_addr_init(&a, &l, level, layer);
         for (unsigned p = 0; p < 20; p++) {
            const uint32_t x = rnd_to(l.level[level].width_el), y = rnd_to(l.level[level].height_el);
            const uint64_t ref = vagx_layout_offset_B(&l, level, layer, x, y);
            const uint64_t got = r_addr_offset(&a, x, y);
            points++;
            CHECK(ref == got, "offset %ux%u bpb %u %s level %u layer %u (%u,%u): %llu != %llu",
                  l.width_px, l.height_px, l.bytes_per_block_B,
                  l.tiling == VAGX_TILING_LINEAR ? "linear" : "twiddled", level, layer, x, y,
                  (unsigned long long)got, (unsigned long long)ref);
         }
         /* a contiguous block really is one Morton run */
         const struct vagx_layout_level *lv = &l.level[level];
         if (r_addr_block_contiguous(&a) && lv->width_el >= R_TS && lv->height_el >= R_TS) {
            const uint32_t bx = rnd_to(lv->width_el / R_TS) * R_TS, by = rnd_to(lv->height_el / R_TS) * R_TS;
            const uint32_t lx = rnd_to(R_TS), ly = rnd_to(R_TS);
            CHECK(vagx_layout_offset_B(&l, level, layer, bx + lx, by + ly) ==
                     r_addr_offset(&a, bx, by) + (uint64_t)r_tile_morton(lx, ly) * a.E,
                  "block (%u,%u)+(%u,%u) not Morton-contiguous", bx, by, lx, ly);
         }
      }
   }
   printf("  addressing: %u layouts, %u offsets\n", layouts, points);
}

/* ------------------------------------------------------------- formats -- */

static float random_depth(void)
{
   static const float special[] = {0.0f, -0.0f, 1.0f, 0.5f, 0.25f, 0.75f, -1.0f, 2.0f,
                                   1e-40f, 1.0f - 1e-7f, 16777215.0f / 16777216.0f};
   const uint32_t r = rnd_to(4);
   if (r == 0)
      return special[rnd_to(sizeof(special) / sizeof(special[0]))];
   if (r == 1) {
      uint32_t u = t_rand();
      return r_f(u);   /* any bits, NaN and infinities included */
   }
   return (float)t_rand() / 4294967296.0f;
}

static void test_zs_formats(void)
{
   static const enum vagx_format fmts[] = {VAGX_FORMAT_Z16_UNORM, VAGX_FORMAT_Z24_UNORM_S8_UINT,
                                           VAGX_FORMAT_Z32_FLOAT, VAGX_FORMAT_S8_UINT,
                                           VAGX_FORMAT_Z32_FLOAT_S8X24_UINT};
   for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
      const enum vagx_format f = fmts[fi];
      for (unsigned n = 0; n < 20000; n++) {
         uint8_t mem[8], a[8], b[8];
         for (unsigned i = 0; i < 8; i++)
            mem[i] = (uint8_t)t_rand();
         const bool dl = rnd_to(2), sl = rnd_to(2);
         /* load */
         float d0 = -7.0f, d1 = -7.0f;
         uint8_t s0 = 0x5a, s1 = 0x5a;
         r_zs_px(f, memcpy(a, mem, 8), false, dl, sl, &d0, &s0);
         r_zs_load_px(f, mem, dl, sl, &d1, &s1);
         CHECK(r_u(d0) == r_u(d1) && s0 == s1, "%s load dl %d sl %d: %08x/%u != %08x/%u",
               vagx_format_name(f), dl, sl, r_u(d1), s1, r_u(d0), s0);
         /* store */
         float d = random_depth();
         uint8_t s = (uint8_t)t_rand();
         memcpy(a, mem, 8);
         memcpy(b, mem, 8);
         r_zs_px(f, a, true, dl, sl, &d, &s);
         r_zs_store_px(f, b, dl, sl, d, s);
         CHECK(!memcmp(a, b, 8), "%s store dl %d sl %d depth %08x stencil %u", vagx_format_name(f),
               dl, sl, r_u(d), s);
      }
      /* quantization of fragment depths */
      if (f == VAGX_FORMAT_Z16_UNORM || f == VAGX_FORMAT_Z24_UNORM_S8_UINT)
         for (unsigned n = 0; n < 200000; n++) {
            const double z = n < 1000 ? n / 999.0 : random_depth();
            uint8_t buf[8];
            uint32_t v[4] = {r_u((float)z), 0, 0, 0};
            r_fmt_pack(f, v, buf, false);
            r_fmt_unpack(f, buf, v);
            const double q = r_zs_quantize(f, z);
            CHECK(v[0] == r_u((float)q) && (double)r_f(v[0]) == q, "%s quantize %.17g: %a, expected %a",
                  vagx_format_name(f), z, q, (double)r_f(v[0]));
         }
   }
   /* r_unorm_enc: every bit count the formats use, random floats */
   for (unsigned n = 0; n < 2000000; n++) {
      static const unsigned bits[] = {1, 2, 4, 5, 6, 8, 10, 16, 24};
      const unsigned b = bits[rnd_to(sizeof(bits) / sizeof(bits[0]))];
      const float v = n & 1 ? r_f(t_rand()) : (float)rnd_to(1u << b) / (float)((1u << b) - 1) +
                                              (float)((int)rnd_to(3) - 1) * 0x1p-25f;
      const double max = (double)((1ull << b) - 1);
      const uint32_t ref = !(v > 0) ? 0 : v >= 1 ? (uint32_t)max : (uint32_t)nearbyint(v * max);
      CHECK(r_unorm_enc(v, b) == ref, "unorm_enc(%a, %u) = %u, expected %u", v, b,
            r_unorm_enc(v, b), ref);
   }
   /* the RGBA8 / BGRA8 pack shortcut against the per-component formula */
   for (unsigned n = 0; n < 200000; n++) {
      uint32_t in[4];
      for (unsigned c = 0; c < 4; c++)
         in[c] = n & 1 ? t_rand() : r_u((float)rnd_to(256) / 255.0f + (float)((int)rnd_to(3) - 1) * 0x1p-24f);
      uint8_t p[4], q[4];
      r_fmt_pack(VAGX_FORMAT_RGBA8_UNORM, in, p, true);
      r_fmt_pack(VAGX_FORMAT_BGRA8_UNORM, in, q, true);
      bool ok = true;
      for (unsigned c = 0; c < 4; c++) {
         const float v = r_f(in[c]);
         const uint32_t e = !(v > 0) ? 0 : v >= 1 ? 255 : (uint32_t)nearbyint(v * 255.0);
         ok &= p[c] == e && q[c == 3 ? 3 : 2 - c] == e;
      }
      CHECK(ok, "rgba8/bgra8 pack of %08x %08x %08x %08x", in[0], in[1], in[2], in[3]);
   }
}

/* ----------------------------------------------------------- span cache -- */

#define PAGES 64
#define PAGE 4096u
#define BASE 0x40000000ull
static uint8_t *pmem;
static bool unmapped[PAGES];
static bool joined[PAGES];   /* page p + 1 follows p in host memory as far as translate says */
static struct first_fault first; /* as the core's translate context records it */
static unsigned translations;

/* Page-granular translation; a span covers the following mapped pages. */
/* r_unorm_depth multiplies by 1/max: the same float as the division
 * r_fmt_unpack does, for every value of both unorm depth formats. */
static void test_unorm_depth(void)
{
   unsigned bad = 0;
   for (uint32_t v = 0; v < (1u << 24); v++)
      bad += r_unorm_depth(v, R_Z24_MAX) != (float)((double)v / R_Z24_MAX);
   for (uint32_t v = 0; v < (1u << 16); v++)
      bad += r_unorm_depth(v, R_Z16_MAX) != (float)((double)v / R_Z16_MAX);
   CHECK(bad == 0, "unorm depth: %u values differ from the division", bad);
}

static void *xlate_pages(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   (void)ctx;
   translations++;
   bool ok = va >= BASE && va + size <= BASE + PAGES * PAGE && size;
   for (uint64_t p = (va - BASE) / PAGE; ok && p <= (va + size - 1 - BASE) / PAGE; p++)
      ok = !unmapped[p];
   if (!ok) {
      first_fault_note(&first, va, access);
      return NULL;
   }
   uint64_t end = (va - BASE) / PAGE * PAGE + PAGE;
   while (end / PAGE < PAGES && !unmapped[end / PAGE] && joined[end / PAGE - 1])
      end += PAGE;         /* sometimes further: contiguous mapped pages */
   *span = BASE + end - va;
   return pmem + (va - BASE);
}
static const struct vagx_usc_mem_ops pages_ops = {.translate = xlate_pages};

static void test_span(void)
{
   pmem = calloc(PAGES, PAGE);
   struct vagx_render_env env;
   memset(&env, 0, sizeof(env));
   env.mem = &pages_ops;
   env.nworkers = 1;
   struct rworker w;
   memset(&w, 0, sizeof(w));
   struct vagx_render_device dev;
   memset(&dev, 0, sizeof(dev));
   dev.w = &w;
   dev.nw = 1;
   unsigned runs = 0, saved = 0;
   for (unsigned n = 0; n < 400; n++) {
      for (unsigned p = 0; p < PAGES; p++) {
         unmapped[p] = rnd_to(12) == 0;
         joined[p] = rnd_to(2);
      }
      /* the same random walk of accesses through r_map and r_span_map */
      struct rjob j[2];
      struct rspan sp;
      r_span_reset(&sp);
      uint8_t *got[2][256];
      unsigned ngot[2], ntr[2];
      struct vagx_render_fault jf[2];
      struct first_fault ff[2];
      const uint64_t seed = t_rng;
      for (unsigned mode = 0; mode < 2; mode++) {
         t_rng = seed;
         memset(&j[mode], 0, sizeof(j[mode]));
         j[mode].env = &env;
         j[mode].dev = &dev;
         pthread_mutex_init(&j[mode].lock, NULL);
         memset(&first, 0, sizeof(first));
         translations = 0;
         const unsigned access = rnd_to(3) == 0 ? VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE
                                                : rnd_to(2) ? VAGX_USC_ACC_WRITE : VAGX_USC_ACC_READ;
         uint64_t va = BASE + rnd_to(PAGES * PAGE - 64);
         ngot[mode] = 0;
         for (unsigned k = 0; k < 256; k++) {
            const uint32_t size = 1u << rnd_to(5);
            va = (va + (rnd_to(8) == 0 ? rnd_to(3 * PAGE) : 4 * rnd_to(24))) % (PAGES * PAGE - 64) + BASE;
            va &= ~(uint64_t)(size - 1);
            uint8_t *p = mode ? r_span_map(&j[mode], 0, &sp, va, size, access, VAGX_UNIT_TEX)
                              : r_map(&j[mode], 0, va, size, access, VAGX_UNIT_TEX);
            got[mode][ngot[mode]++] = p;
            if (!p)
               break;
         }
         ntr[mode] = translations;
         jf[mode] = j[mode].fault;
         ff[mode] = first;
         pthread_mutex_destroy(&j[mode].lock);
      }
      runs++;
      saved += ntr[0] - ntr[1];
      CHECK(ngot[0] == ngot[1] && !memcmp(got[0], got[1], ngot[0] * sizeof(got[0][0])),
            "span cache: other host addresses (%u/%u accesses)", ngot[0], ngot[1]);
      CHECK(jf[0].status == jf[1].status && jf[0].address == jf[1].address &&
               jf[0].unit == jf[1].unit && jf[0].access == jf[1].access,
            "span cache: fault %llx/%llx", (unsigned long long)jf[0].address,
            (unsigned long long)jf[1].address);
      CHECK(ff[0].faulted == ff[1].faulted && ff[0].va == ff[1].va && ff[0].access == ff[1].access,
            "span cache: the translation recorded another first fault");
      /* a probe records nothing, anywhere */
      memset(&first, 0, sizeof(first));
      struct rjob pj;
      memset(&pj, 0, sizeof(pj));
      pj.env = &env;
      pj.dev = &dev;
      pthread_mutex_init(&pj.lock, NULL);
      r_span_reset(&sp);
      for (unsigned p = 0; p < PAGES; p++)
         r_span_map(&pj, 0, &sp, BASE + p * PAGE, 8, VAGX_USC_ACC_WRITE, VAGX_UNIT_NONE);
      CHECK(!first.faulted && !atomic_load(&pj.failed), "a probe recorded a fault");
      pthread_mutex_destroy(&pj.lock);
   }
   printf("  span cache: %u random walks, %u translations saved\n", runs, saved);
   free(pmem);
}

int main(void)
{
   test_addr();
   test_zs_formats();
   test_unorm_depth();
   test_span();
   printf("%d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
