/*
 * vagx layout library: sparse pages and the mip tail (vagx_layout_sparse.c).
 * SPDX-License-Identifier: MIT
 *
 *  1. the standard block shapes and a hand-worked miptree;
 *  2. a page of a square-tiled format is a 2 x 2 block of 16 KiB tiles;
 *  3. for many images in the sparse layout: every element of a level
 *     before the tail lies in the page vagx_layout_sparse_page_B names for
 *     its block, every element of the tail in the layer's tail range, and
 *     no two blocks (nor a block and a tail) share a page; the ordinary
 *     layout is never sparse;
 *  4. which images can be sparse, and the sparse layout (layer stride a
 *     whole number of sparse pages).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vagx_check.h"
#include "vagx_layout.h"

#define PAGE VAGX_LAYOUT_SPARSE_PAGE_B
#define FULL 0xffu
#define CHECK_EQ(a, b, ctx)                                                                    \
   CHECK((uint64_t)(a) == (uint64_t)(b), "%s: %s = %" PRIu64 ", expected %" PRIu64, ctx, #a, \
         (uint64_t)(a), (uint64_t)(b))

static bool sparse_layout;

static struct vagx_layout
img(uint32_t w, uint32_t h, uint32_t layers, uint32_t levels, uint32_t bpb, uint32_t samples)
{
   struct vagx_layout l;
   memset(&l, 0, sizeof(l));
   l.width_px = w;
   l.height_px = h;
   l.depth_px = layers;
   /* FULL: the whole chain */
   uint32_t full = 0;
   for (uint32_t m = w > h ? w : h; m; m >>= 1)
      full++;
   l.levels = levels == FULL ? full : levels;
   l.sample_count_sa = samples;
   l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = bpb;
   l.tiling = VAGX_TILING_TWIDDLED;
   l.sparse = sparse_layout;
   CHECK(vagx_layout_init(&l), "init %ux%ux%u L%u %uB", w, h, layers, levels, bpb);
   return l;
}

static void
test_hand_worked(void)
{
   /* the standard sparse block shapes (ARB_sparse_texture2, Vulkan's
    * standard sparse image block shapes for 2D single-sample images) */
   static const uint32_t shape[][3] = {
      {1, 256, 256}, {2, 256, 128}, {4, 128, 128}, {8, 128, 64}, {16, 64, 64},
   };
   for (unsigned i = 0; i < 5; i++) {
      struct vagx_tile b = vagx_layout_sparse_block(shape[i][0]);
      CHECK_EQ(b.width_el, shape[i][1], "block width");
      CHECK_EQ(b.height_el, shape[i][2], "block height");
      /* a block is exactly one sparse page */
      CHECK_EQ(b.width_el * b.height_el * shape[i][0], PAGE, "block bytes");
      /* and the sparse layout's large tile */
      struct vagx_layout l = img(2 * shape[i][1], shape[i][2], 1, 1, shape[i][0], 1);
      CHECK_EQ(l.level[0].tilesize_el.width_el, shape[i][1], "sparse tile width");
      CHECK_EQ(l.level[0].tilesize_el.height_el, shape[i][2], "sparse tile height");
   }
   CHECK_EQ(vagx_layout_sparse_block(3).width_el, 0, "no block for 3 B");
   CHECK_EQ(vagx_layout_sparse_block(32).width_el, 0, "no block for 32 B (MSAA)");

   /* 1024x512 RGBA8, full chain: 128x128 tiles = pages.
    * L0 8x4 pages at 0; L1 4x2 pages at 2 MiB;
    * L2 2x1 pages at 2 MiB + 512 KiB = 2621440;
    * L3 (128x64) is less than a page high, small: the tail, at
    * 2621440 + 128 KiB = 2752512 (page 42).  It holds L3 (32 KiB) and the
    * small levels, less than one page. */
   struct vagx_layout l = img(1024, 512, 1, FULL, 4, 1);
   CHECK(vagx_layout_sparse_ok(&l), "1024x512 sparse ok");
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 3, "tail level");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 0, 1, 0), PAGE, "L0 page (1,0)");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 0, 0, 1), 8 * PAGE, "L0 page (0,1)");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 2, 0, 1, 0), 2621440 + PAGE, "L2 page (1,0)");
   /* texels: the last of page (1,0) is its last 4 bytes, Morton inside */
   CHECK_EQ(vagx_layout_offset_B(&l, 0, 0, 255, 127), 2 * PAGE - 4, "L0 (255,127)");
   CHECK_EQ(vagx_layout_offset_B(&l, 0, 0, 130, 5), PAGE + (4 + 2 + 32) * 4,
            "L0 (130,5): Morton (2,5) = 0b100110");
   uint64_t off, size;
   vagx_layout_sparse_tail(&l, 0, &off, &size);
   CHECK_EQ(off, 2752512, "tail offset");
   CHECK_EQ(size, PAGE, "tail size");

   /* one level only: no tail; 512x256, 4x2 pages a layer */
   l = img(512, 256, 3, 1, 4, 1);
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 1, "single level tail");
   vagx_layout_sparse_tail(&l, 2, &off, &size);
   CHECK_EQ(size, 0, "no tail");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 2, 1, 1), 2 * 8 * PAGE + 5 * PAGE, "layer 2");

   /* level 0 less than a page high: small (4 tiles of 64x64), all of it
    * the tail */
   l = img(200, 64, 1, 1, 4, 1);
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 0, "unaligned tail level");
   vagx_layout_sparse_tail(&l, 0, &off, &size);
   CHECK_EQ(off, 0, "unaligned tail offset");
   CHECK_EQ(size, PAGE, "unaligned tail size (4 tiles rounded to a page)");

   /* level 0 not whole pages wide: the tail (its grid is padded) */
   l = img(200, 128, 1, 1, 4, 1);
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 0, "padded level 0 tail");
   vagx_layout_sparse_tail(&l, 0, &off, &size);
   CHECK_EQ(size, 2 * PAGE, "padded level 0 tail size");
}

/* With square large tiles (1, 4 and 16 B) a sparse page is the 2 x 2 block
 * of ordinary large tiles in Z order, each in Morton order: the 16 KiB tile
 * index is the page's top two Morton bits. */
static void
test_two_by_two(void)
{
   static const uint32_t bpbs[] = {1, 4, 16};
   for (unsigned i = 0; i < 3; i++) {
      const uint32_t E = bpbs[i];
      const struct vagx_tile t = vagx_layout_large_tile(E);
      const struct vagx_tile b = vagx_layout_sparse_block(E);
      struct vagx_layout l = img(2 * b.width_el, 2 * b.height_el, 1, 1, E, 1);
      for (uint32_t y = 0; y < 2 * b.height_el; y += 3) {
         for (uint32_t x = 0; x < 2 * b.width_el; x += 5) {
            const uint32_t px = x / b.width_el, py = y / b.height_el;
            const uint32_t qx = x % b.width_el / t.width_el, qy = y % b.height_el / t.height_el;
            const uint64_t want = ((uint64_t)py * 2 + px) * PAGE +
                                  (qy * 2 + qx) * (uint64_t)VAGX_LAYOUT_PAGE_B +
                                  (uint64_t)vagx_layout_morton_el(x % t.width_el,
                                                                  y % t.height_el) * E;
            CHECK(vagx_layout_offset_B(&l, 0, 0, x, y) == want, "%u B (%u,%u): 2x2 tiles", E,
                  x, y);
         }
      }
   }
}

/* Marks every page of the image with the block (or tail) that owns it:
 * a page claimed twice, or an element outside its page, fails. */
static void
check_cover(uint32_t w, uint32_t h, uint32_t layers, uint32_t levels, uint32_t bpb)
{
   struct vagx_layout l = img(w, h, layers, levels, bpb, 1);
   char ctx[96];
   snprintf(ctx, sizeof(ctx), "%ux%u x%u L%u %uB%s", w, h, layers, levels, bpb,
            sparse_layout ? " sparse" : "");
   if (!sparse_layout) {
      CHECK(!vagx_layout_sparse_ok(&l), "%s: the ordinary layout is sparse", ctx);
      CHECK_EQ(vagx_layout_sparse_tail_level(&l), 0, ctx);
      return;
   }
   CHECK(vagx_layout_sparse_ok(&l), "%s: image not sparse", ctx);
   const uint64_t pages = (l.size_B + PAGE - 1) / PAGE;
   uint32_t *owner = calloc(pages, sizeof(*owner));
   const uint32_t tail = vagx_layout_sparse_tail_level(&l);
   const struct vagx_tile b = vagx_layout_sparse_block(l.element_size_B);
   uint32_t id = 0;
   for (uint32_t z = 0; z < l.layers; z++) {
      for (uint32_t lv = 0; lv < tail; lv++) {
         const struct vagx_layout_level *L = &l.level[lv];
         CHECK_EQ(L->width_el % b.width_el, 0, ctx);
         CHECK_EQ(L->height_el % b.height_el, 0, ctx);
         for (uint32_t py = 0; py < L->height_el / b.height_el; py++) {
            for (uint32_t px = 0; px < L->width_el / b.width_el; px++) {
               const uint64_t p = vagx_layout_sparse_page_B(&l, lv, z, px, py);
               CHECK(p % PAGE == 0 && p / PAGE < pages, "%s: page offset %" PRIu64, ctx, p);
               if (p % PAGE || p / PAGE >= pages)
                  continue;
               CHECK(!owner[p / PAGE], "%s: page %" PRIu64 " shared", ctx, p / PAGE);
               owner[p / PAGE] = ++id;
               /* a sample of the block's elements, corners included */
               for (uint32_t y = 0; y < b.height_el; y += (y + 1 == b.height_el ? 1 : 7)) {
                  for (uint32_t x = 0; x < b.width_el; x += (x + 1 == b.width_el ? 1 : 13)) {
                     const uint64_t o = vagx_layout_offset_B(&l, lv, z, px * b.width_el + x,
                                                             py * b.height_el + y);
                     CHECK(o - p < PAGE, "%s: L%u (%u,%u) outside its page", ctx, lv, x, y);
                  }
               }
            }
         }
      }
      uint64_t off, size;
      vagx_layout_sparse_tail(&l, z, &off, &size);
      CHECK_EQ(off % PAGE, 0, ctx);
      CHECK_EQ(size % PAGE, 0, ctx);
      CHECK_EQ(size == 0, tail == l.levels_alloc, ctx);
      id++;
      for (uint64_t p = off / PAGE; p < (off + size) / PAGE && p < pages; p++) {
         CHECK(!owner[p], "%s: tail page %" PRIu64 " shared", ctx, p);
         owner[p] = id;
      }
      for (uint32_t lv = tail; lv < l.levels_alloc; lv++) {
         const struct vagx_layout_level *L = &l.level[lv];
         for (uint32_t y = 0; y < L->height_el; y += 5)
            for (uint32_t x = 0; x < L->width_el; x += 3) {
               const uint64_t o = vagx_layout_offset_B(&l, lv, z, x, y);
               CHECK(o >= off && o < off + size, "%s: tail L%u (%u,%u) outside", ctx, lv, x, y);
            }
      }
   }
   free(owner);
}

static void
test_cover(void)
{
   static const uint32_t bpbs[] = {1, 2, 4, 8, 16};
   /* sizes in blocks: powers of two, odd multiples (the tail starts
    * early), wide and tall */
   static const uint32_t dims[][2] = {{1, 1}, {2, 2}, {4, 1}, {1, 8}, {3, 2}, {8, 4}, {6, 3}};
   for (unsigned b = 0; b < 5; b++) {
      const struct vagx_tile blk = vagx_layout_sparse_block(bpbs[b]);
      for (unsigned d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
         const uint32_t w = dims[d][0] * blk.width_el, h = dims[d][1] * blk.height_el;
         check_cover(w, h, 1, 1, bpbs[b]);
         check_cover(w, h, 1, FULL, bpbs[b]);
         check_cover(w, h, 3, 1, bpbs[b]);
         check_cover(w, h, 2, FULL, bpbs[b]);
         check_cover(w + 40, h + 3, 1, FULL, bpbs[b]);
      }
   }
}

static void
test_ok(void)
{
   struct vagx_layout l = img(256, 64, 1, 1, 4, 4);
   CHECK(!vagx_layout_sparse_ok(&l), "MSAA is not sparse");
   sparse_layout = true;
   l = img(256, 128, 4, 1, 4, 1);
   CHECK(vagx_layout_sparse_ok(&l), "single-level array");
   /* 256x64 with mips: the layer is 64 KiB + the small levels, 96 KiB;
    * the sparse layout rounds it to 128 KiB */
   l = img(256, 64, 4, FULL, 4, 1);
   CHECK_EQ(l.layer_stride_B, 2 * PAGE, "sparse layer stride");
   CHECK_EQ(l.size_B, 8 * PAGE, "sparse size");
   CHECK_EQ(l.alignment_B, PAGE, "sparse alignment");
   CHECK(vagx_layout_sparse_ok(&l), "sparse mipmapped array");
   sparse_layout = false;
   l = img(256, 64, 4, FULL, 4, 1);
   CHECK_EQ(l.layer_stride_B, PAGE + 32768, "mipmapped layer stride");
   CHECK(!vagx_layout_sparse_ok(&l), "the ordinary layout is not sparse");
   memset(&l, 0, sizeof(l));
   l.width_px = l.height_px = l.depth_px = l.levels = l.sample_count_sa = 1;
   l.block_width_px = l.block_height_px = 1;
   l.bytes_per_block_B = 4;
   l.tiling = VAGX_TILING_LINEAR;
   CHECK(vagx_layout_init(&l), "linear init");
   CHECK(!vagx_layout_sparse_ok(&l), "linear is not sparse");
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 0, "linear tail");
   /* the sparse layout: linear or MSAA refused */
   l.sparse = true;
   CHECK(!vagx_layout_init(&l), "sparse linear refused");
   l = img(256, 64, 1, 1, 4, 4);
   l.sparse = true;
   CHECK(!vagx_layout_init(&l), "sparse MSAA refused");
   /* 256x256 RGBA8: texel (0,64) is in the ordinary layout's tile 4 (a
    * row of 4 tiles), in the sparse layout in the page's tile 2 (2 x 2) */
   struct vagx_layout plain = img(256, 256, 1, 1, 4, 1);
   sparse_layout = true;
   struct vagx_layout sp = img(256, 256, 1, 1, 4, 1);
   sparse_layout = false;
   CHECK_EQ(vagx_layout_offset_B(&plain, 0, 0, 0, 64), 4 * VAGX_LAYOUT_PAGE_B, "plain (0,64)");
   CHECK_EQ(vagx_layout_offset_B(&sp, 0, 0, 0, 64), 2 * VAGX_LAYOUT_PAGE_B, "sparse (0,64)");
   CHECK_EQ(sp.size_B, plain.size_B, "same size");
}

int
main(void)
{
   sparse_layout = true;
   test_hand_worked();
   test_two_by_two();
   test_cover();
   sparse_layout = false;
   test_cover();
   test_ok();
   printf("%d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
