/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: the sparse residency code of `tex.resid` and
 * `img_ld.resid` (contract 1.8, isa.md "Sparse residency").  A 64x64 RGBA8
 * texture, twiddled, whose second and fourth 4 KiB pages are NULL pages
 * (the translation below hands out its zero page for them, as the device's
 * MMU does for a NULL PTE, and names it in vagx_usc_mem_ops.null_page).
 * Every pixel (x, y) of a 64x64 target looks the texture up at texel
 * (x, y) with a fetch, NEAREST, LINEAR (footprint (x, y) .. (x + 1, y + 1),
 * clamped) and gather, and an image load; the code must be 1 exactly where
 * a texel of the footprint lies on a NULL page, the values those of the
 * same instruction without .resid (NULL texels read 0), on the fast and
 * the reference (VAGX_RENDER_OPT_NO_FAST_IO) paths, whichever way the
 * shader core writes the five registers back (`ways`).
 */
#include "render_test_harness.h"

#define RW 64
#define RH 64

static uint8_t null_buf[VAGX_PAGE_SIZE] __attribute__((aligned(VAGX_PAGE_SIZE)));
static uint64_t null_lo, null_hi; /* texture pages [lo, hi) */

/* a texture page is NULL: the second and the fourth of its four */
static bool va_null(uint64_t va)
{
   if (va < null_lo || va >= null_hi)
      return false;
   const uint64_t pg = (va - null_lo) / VAGX_PAGE_SIZE;
   return pg == 1 || pg == 3;
}

static void *xlate_null(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   (void)ctx;
   if (va < MEM_BASE || va + size > MEM_BASE + MEM_SIZE || va + size < va)
      return NULL;
   *span = VAGX_PAGE_SIZE - (va & (VAGX_PAGE_SIZE - 1));
   if (*span < size)
      return NULL; /* the test's accesses stay within a page */
   if (va_null(va))
      /* reads see zeros; the test never writes the texture */
      return (access & VAGX_USC_ACC_WRITE) ? NULL : null_buf + (va & (VAGX_PAGE_SIZE - 1));
   return mem + (va - MEM_BASE);
}
static const struct vagx_usc_mem_ops null_ops = {.translate = xlate_null, .null_page = null_buf};

static void fill_r(unsigned lv, unsigned layer, unsigned x, unsigned y, uint8_t *o)
{
   (void)lv;
   (void)layer;
   o[0] = (uint8_t)(4 * x + 1);
   o[1] = (uint8_t)(4 * y + 2);
   o[2] = (uint8_t)(x ^ y);
   o[3] = 255;
}

/* An image descriptor (PBE) of texture descriptor tva's level 0, for img_ld */
static uint64_t pbe_of_texture(uint64_t tva)
{
   struct vagx_texture t;
   vagx_texture_unpack(ptr(tva), &t, NULL);
   struct vagx_pbe pbe;
   vagx_pbe_init(&pbe);
   pbe.format = t.format;
   pbe.dimension = t.dimension;
   pbe.layout = t.layout;
   pbe.width = t.width;
   pbe.height = t.height;
   pbe.depth = t.depth;
   pbe.levels = t.levels;
   pbe.stride = t.stride;
   pbe.base_va = t.base_va;
   const uint64_t va = alloc(32, 32);
   vagx_pbe_pack(ptr(va), &pbe);
   return va;
}

static bool texel_null(unsigned x, unsigned y)
{
   return va_null(tex_base + vagx_layout_offset_B(&tex_layout, 0, 0, x, y));
}

/* The ways the shader core hands the result back (usc_exec.c, op_gfx):
 * into a buffer when the destination overlaps the coordinates (r0..r4),
 * straight into the registers (r8..r12), and under a partial mask (the
 * odd columns only: the even ones keep the 9 written before) */
static const struct {
   unsigned dst;
   bool masked;
} ways[] = {{0, false}, {8, false}, {8, true}};

/* Runs the lookup `op` ("tex.fetch...", with .resid or not) at every
 * pixel: r4, r5 = texel (x, y) as integers (fetch, img_ld) or its centre
 * normalised; the result's r, g, b and the code (or alpha) to the target. */
static enum vagx_job_status resid_draw(uint64_t tva, uint64_t sva, uint64_t iva, const char *op,
                                       unsigned way)
{
   W = RW;
   H = RH;
   const unsigned d = ways[way].dst;
   struct prog fs = {.tex = tva, .ntex = 1, .smp = sva, .nsmp = 1, .img = iva, .nimg = iva ? 1 : 0,
                     .code = assemblef("mov r%u, #9\nmov r%u, #9\nmov r%u, #9\nmov r%u, #9\n"
                                       "mov r%u, #9\nmov r4, sr.pix_x\nmov r5, sr.pix_y\n%s"
                                       "mov r6, #0\nmov r7, #0\n"
                                       "%s\nif.nz r13\n%s r%u, r4, r6%s\nendif\n"
                                       "mov r%u, r%u\nst_tile.rt0 r%u, #0\nend\n",
                                       d, d + 1, d + 2, d + 3, d + 4,
                                       strstr(op, "fetch") || strstr(op, "img_ld")
                                          ? ""
                                          : "u2f r4, r4\nfadd r4, r4, #0.5\nfmul r4, r4, #0.015625\n"
                                            "u2f r5, r5\nfadd r5, r5, #0.5\nfmul r5, r5, #0.015625\n",
                                       ways[way].masked ? "and r13, sr.pix_x, #1" : "mov r13, #1",
                                       op, d, strstr(op, "img_ld") ? "" : ", r7", d + 3, d + 4, d)};
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
   return draw_fullscreen(&fs, &o);
}

void test_tex_resid(void)
{
   struct texdesc td = {VAGX_FORMAT_RGBA8_UNORM, VAGX_DIMENSION_2D, RW, RH, 1, 1, 0, 0, false};
   const uint64_t tva = make_texture(&td, fill_r);
   null_lo = tex_base;
   null_hi = null_lo + 4 * VAGX_PAGE_SIZE;
   CHECK(tex_base % VAGX_PAGE_SIZE == 0 && tex_layout.size_B == 4 * VAGX_PAGE_SIZE,
         "resid: texture of 4 pages");
   const uint64_t iva = pbe_of_texture(tva);
   const uint64_t near = make_sampler(VAGX_FILTER_NEAREST, VAGX_FILTER_NEAREST, VAGX_MIP_FILTER_NONE,
                                      VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0);
   const uint64_t lin = make_sampler(VAGX_FILTER_LINEAR, VAGX_FILTER_LINEAR, VAGX_MIP_FILTER_NONE,
                                     VAGX_WRAP_CLAMP_TO_EDGE, 0, 16, 0);
   /* the NULL pages hold texels of the texture, and so do resident ones */
   unsigned nnull = 0;
   for (unsigned y = 0; y < RH; y++)
      for (unsigned x = 0; x < RW; x++)
         nnull += texel_null(x, y);
   CHECK(nnull > 0 && nnull < RW * RH, "resid: %u of %u texels on NULL pages", nnull, RW * RH);

   static const struct {
      const char *op;
      bool lin;         /* footprint: 2x2 from the texel, else the texel */
      bool smp_lin;
   } cases[] = {
      {"tex.fetch.t0.s0.2d", false, false},
      {"tex.auto.t0.s0.2d", false, false},
      {"tex.auto.t0.s0.2d", true, true},
      {"tex.gather.t0.s0.2d", true, false},
      {"img_ld.i0.2d", false, false},
   };
   run_mem = &null_ops;
   for (unsigned run = 0; run < 2 * 3; run++) {
      const unsigned mode = run % 2, way = run / 2;
      vagx_render_set_options(dev, mode ? VAGX_RENDER_OPT_NO_FAST_IO : 0);
      for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
         const uint64_t sva = cases[i].smp_lin ? lin : near;
         enum vagx_job_status st = resid_draw(tva, sva, iva, cases[i].op, 0);
         CHECK(st == VAGX_JOB_STATUS_OK, "%s: status %d", cases[i].op, st);
         static uint32_t plain[RH][RW][4];
         for (unsigned y = 0; y < RH; y++)
            for (unsigned x = 0; x < RW; x++)
               memcpy(plain[y][x], px(x, y), 16);
         char op[64];
         snprintf(op, sizeof(op), "%s.resid", cases[i].op);
         st = resid_draw(tva, sva, iva, op, way);
         CHECK(st == VAGX_JOB_STATUS_OK, "%s: status %d", op, st);
         unsigned bad_code = 0, bad_val = 0, ones = 0;
         for (unsigned y = 0; y < RH; y++)
            for (unsigned x = 0; x < RW; x++) {
               uint32_t r[4];
               memcpy(r, px(x, y), 16);
               if (ways[way].masked && !(x & 1)) {
                  /* not executed: the registers keep their 9 */
                  bad_code += r[3] != 9;
                  bad_val += r[0] != 9 || r[1] != 9 || r[2] != 9;
                  continue;
               }
               bool e = texel_null(x, y);
               if (cases[i].lin) {
                  const unsigned x1 = x + 1 < RW ? x + 1 : x, y1 = y + 1 < RH ? y + 1 : y;
                  e = e || texel_null(x1, y) || texel_null(x, y1) || texel_null(x1, y1);
               }
               bad_code += r[3] != (uint32_t)e;
               ones += r[3] == 1;
               bad_val += memcmp(r, plain[y][x], 12) != 0;
               /* a single texel's value: the data, or 0 from a NULL page */
               if (!cases[i].lin && !strstr(op, "img_ld")) {
                  uint8_t t[4];
                  fill_r(0, 0, x, y, t);
                  float f;
                  memcpy(&f, &r[0], 4);
                  bad_val += f != (texel_null(x, y) ? 0.0f : t[0] / 255.0f);
               }
            }
         CHECK(bad_code == 0 && ones > 0, "%s (%s path, r%u%s): %u codes wrong (%u ones)", op,
               mode ? "reference" : "fast", ways[way].dst, ways[way].masked ? ", masked" : "",
               bad_code, ones);
         CHECK(bad_val == 0, "%s (%s path, r%u%s): %u values differ from the lookup without .resid",
               op, mode ? "reference" : "fast", ways[way].dst, ways[way].masked ? ", masked" : "",
               bad_val);
      }
   }
   vagx_render_set_options(dev, 0);

   /* without the NULL page named, every texel counts as resident */
   static const struct vagx_usc_mem_ops blind_ops = {.translate = xlate_null};
   run_mem = &blind_ops;
   enum vagx_job_status st = resid_draw(tva, near, iva, "tex.fetch.t0.s0.2d.resid", 0);
   unsigned ones = 0;
   for (unsigned y = 0; y < RH; y++)
      for (unsigned x = 0; x < RW; x++)
         ones += ((const uint32_t *)px(x, y))[3] != 0;
   CHECK(st == VAGX_JOB_STATUS_OK && ones == 0, "resid without null_page: status %d, %u codes", st,
         ones);
   run_mem = &mem_ops;
}
