/* SPDX-License-Identifier: MIT */
/*
 * Part of test_render: buffer textures (contract 1.4, render.md "Buffer
 * textures"): texel fetches by index, 0 at or past buffer_elements without
 * touching memory there, counts beyond MAX_TEXTURE_SIZE, size queries,
 * swizzles, the other modes reading 0 and the descriptor's rules.
 */
#include "render_test_harness.h"

/* A BUFFER descriptor of `n` texels of format f at va. */
static uint64_t buf_texture(enum vagx_format f, uint64_t va, uint32_t n, const enum vagx_swizzle *swz)
{
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = f;
   t.dimension = VAGX_DIMENSION_BUFFER;
   t.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   t.width = t.height = t.depth = t.levels = 1;
   t.swizzle_r = swz ? swz[0] : VAGX_SWIZZLE_R;
   t.swizzle_g = swz ? swz[1] : VAGX_SWIZZLE_G;
   t.swizzle_b = swz ? swz[2] : VAGX_SWIZZLE_B;
   t.swizzle_a = swz ? swz[3] : VAGX_SWIZZLE_A;
   t.base_va = va;
   t.buffer_elements = n;
   const uint64_t d = alloc(32, 32);
   vagx_texture_pack(ptr(d), &t);
   return d;
}

/* Every pixel of a 16x4 RGBA32_UINT target gets `op` of texture tva at
 * index (x + 16 y) * mul + add (`op` reads r4). */
static enum vagx_job_status buf_draw(uint64_t tva, const char *op, int mul, int add)
{
   W = 16;
   H = 4;
   struct prog fs = {.tex = tva, .ntex = 1,
                     .code = assemblef("mov r4, sr.pix_y\nshl r4, r4, #4\niadd r4, r4, sr.pix_x\n"
                                       "imul r4, r4, #%d\niadd r4, r4, #%d\nmov r6, #0\n"
                                       "%s r0, r4, r6, r0\nst_tile.rt0 r0, #0\nend\n",
                                       mul, add, op)};
   struct job_opts o = {.rt_format = VAGX_FORMAT_RGBA32_UINT};
   return draw_fullscreen(&fs, &o);
}

static void px_u32(unsigned x, unsigned y, uint32_t out[4])
{
   memcpy(out, px(x, y), 16);
}

void test_tex_buffer(void)
{
   /* A: 36 R32_UINT texels (base_va 16-aligned) that end on a page whose successor is unmapped:
    * indices -5 .. 58 read the texel or 0, and none faults */
   const uint32_t n = 36;
   const uint64_t page = alloc(2 * 4096, 4096);
   const uint64_t bva = page + 4096 - n * 4;
   for (uint32_t i = 0; i < n; i++) {
      const uint32_t v = i * 0x01010101u + 0x5a000000u;
      memcpy(ptr(bva + i * 4), &v, 4);
   }
   memset(io_hole, 0, sizeof(io_hole));
   io_hole[(page + 4096 - MEM_BASE) / 4096] = true;
   run_mem = &io_ops;
   const uint64_t tva = buf_texture(VAGX_FORMAT_R32_UINT, bva, n, NULL);
   enum vagx_job_status st = buf_draw(tva, "tex.fetch.t0.s0.buf", 1, -5);
   run_mem = &mem_ops;
   CHECK(st == VAGX_JOB_STATUS_OK, "buffer fetch: status %d", st);
   unsigned bad = 0;
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 16; x++) {
         const int i = (int)(x + 16 * y) - 5;
         uint32_t g[4], e[4] = {0, 0, 0, 1};
         if (i < 0 || i >= (int)n)
            e[3] = 0;
         else
            e[0] = (uint32_t)i * 0x01010101u + 0x5a000000u;
         px_u32(x, y, g);
         bad += memcmp(g, e, 16) != 0;
      }
   CHECK(bad == 0, "buffer fetch: %u of 64 pixels wrong", bad);

   /* B: more texels than MAX_TEXTURE_SIZE, swizzled (B, R, ONE, ZERO) */
   const uint32_t big = 3 * VAGX_MAX_TEXTURE_SIZE + 7;
   const uint64_t bigva = alloc((uint64_t)big * 4, 16);
   for (uint32_t i = 0; i < big; i++) {
      const uint32_t v = (i & 0xff) | ((i >> 8 & 0xff) << 16) | 0x80000000u;
      memcpy(ptr(bigva + i * 4ull), &v, 4);
   }
   const enum vagx_swizzle swz[4] = {VAGX_SWIZZLE_B, VAGX_SWIZZLE_R, VAGX_SWIZZLE_ONE,
                                     VAGX_SWIZZLE_ZERO};
   const int step = (int)(big / 63);
   st = buf_draw(buf_texture(VAGX_FORMAT_RGBA8_UINT, bigva, big, swz), "tex.fetch.t0.s0.buf", step, 0);
   CHECK(st == VAGX_JOB_STATUS_OK, "big buffer fetch: status %d", st);
   bad = 0;
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 16; x++) {
         const uint32_t i = (x + 16 * y) * (uint32_t)step;
         const uint32_t e[4] = {i >> 8 & 0xff, i & 0xff, 1, 0};
         uint32_t g[4];
         px_u32(x, y, g);
         bad += memcmp(g, e, 16) != 0;
      }
   CHECK(bad == 0 && 63u * step > VAGX_MAX_TEXTURE_SIZE, "big buffer fetch: %u of 64 pixels wrong",
         bad);

   /* C: a float format converts (RGBA8_UNORM 255 -> 1.0) */
   const uint64_t fva = alloc(64, 16);
   memset(ptr(fva), 0xff, 64);
   st = buf_draw(buf_texture(VAGX_FORMAT_RGBA8_UNORM, fva, 16, NULL), "tex.fetch.t0.s0.buf", 0, 3);
   uint32_t g[4];
   px_u32(5, 2, g);
   CHECK(st == VAGX_JOB_STATUS_OK && g[0] == 0x3f800000u && g[3] == 0x3f800000u,
         "unorm buffer fetch: status %d, %08x", st, g[0]);

   /* D: size query; a non-buf fetch and a sampling mode read 0; an empty
    * range reads 0 */
   st = buf_draw(tva, "tex.size.t0.s0.buf", 0, 0);
   px_u32(3, 1, g);
   CHECK(st == VAGX_JOB_STATUS_OK && g[0] == n && !g[1] && !g[2] && !g[3],
         "buffer size: status %d, %u %u %u %u", st, g[0], g[1], g[2], g[3]);
   st = buf_draw(tva, "tex.fetch.t0.s0.1d", 0, 2);
   px_u32(0, 0, g);
   CHECK(st == VAGX_JOB_STATUS_OK && !g[0] && !g[3], "buffer 1d fetch: status %d, %u", st, g[0]);
   st = buf_draw(buf_texture(VAGX_FORMAT_R32_UINT, bva, 0, NULL), "tex.fetch.t0.s0.buf", 0, 0);
   px_u32(0, 0, g);
   CHECK(st == VAGX_JOB_STATUS_OK && !g[0] && !g[3], "empty buffer: status %d, %u", st, g[0]);

   /* E: the descriptor's rules: a stride, or buffer_elements on a 2D
    * texture, is an invalid descriptor */
   struct vagx_texture t;
   const char *err = NULL;
   vagx_texture_unpack(ptr(tva), &t, &err);
   t.stride = 16;
   uint32_t raw[8];
   vagx_texture_pack(raw, &t);
   CHECK(!vagx_texture_unpack(raw, &t, &err), "buffer texture with a stride unpacks");
   const uint64_t bad_tva = alloc(32, 32);
   memcpy(ptr(bad_tva), raw, 32);
   st = buf_draw(bad_tva, "tex.fetch.t0.s0.buf", 1, 0);
   CHECK(st == VAGX_JOB_STATUS_INVALID_DESCRIPTOR, "buffer texture with a stride: status %d", st);
}
