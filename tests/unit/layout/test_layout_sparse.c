/*
 * vagx layout library: sparse pages and the mip tail (vagx_layout_sparse.c).
 * SPDX-License-Identifier: MIT
 *
 *  1. the block shapes and a hand-worked miptree;
 *  2. for many images: every element of a level before the tail lies in
 *     the page vagx_layout_sparse_page_B names for its block, every
 *     element of the tail in the layer's tail range, and no two blocks
 *     (nor a block and a tail) share a page;
 *  3. which images can be sparse, and the sparse layout (layer stride a
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
   static const uint32_t shape[][3] = {
      {1, 512, 128}, {2, 512, 64}, {4, 256, 64}, {8, 256, 32}, {16, 128, 32},
   };
   for (unsigned i = 0; i < 5; i++) {
      struct vagx_tile b = vagx_layout_sparse_block(shape[i][0]);
      CHECK_EQ(b.width_el, shape[i][1], "block width");
      CHECK_EQ(b.height_el, shape[i][2], "block height");
      /* a block is exactly one sparse page */
      CHECK_EQ(b.width_el * b.height_el * shape[i][0], PAGE, "block bytes");
   }
   CHECK_EQ(vagx_layout_sparse_block(3).width_el, 0, "no block for 3 B");

   /* 1024x512 RGBA8, full chain: 64x64 tiles, blocks 256x64.
    * L0 16x8 tiles (4x8 pages) at 0; L1 8x4 tiles at 2 MiB;
    * L2 4x2 tiles (1x2 pages) at 2 MiB + 512 KiB = 2621440;
    * L3 (128x64) is 2 tiles wide, less than a page: the tail, at
    * 2621440 + 128 KiB = 2752512 (page 42).  It holds L3 (32 KiB) and the
    * small levels, less than one page. */
   struct vagx_layout l = img(1024, 512, 1, FULL, 4, 1);
   CHECK(vagx_layout_sparse_ok(&l), "1024x512 sparse ok");
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 3, "tail level");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 0, 1, 0), PAGE, "L0 page (1,0)");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 0, 0, 1), 4 * PAGE, "L0 page (0,1)");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 2, 0, 0, 1), 2621440 + PAGE, "L2 page (0,1)");
   uint64_t off, size;
   vagx_layout_sparse_tail(&l, 0, &off, &size);
   CHECK_EQ(off, 2752512, "tail offset");
   CHECK_EQ(size, PAGE, "tail size");

   /* one level only: no tail */
   l = img(512, 128, 3, 1, 4, 1);
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 1, "single level tail");
   vagx_layout_sparse_tail(&l, 2, &off, &size);
   CHECK_EQ(size, 0, "no tail");
   CHECK_EQ(vagx_layout_sparse_page_B(&l, 0, 2, 1, 1), 2 * 4 * PAGE + 3 * PAGE, "layer 2");

   /* level 0 not whole blocks: all of it is the tail */
   l = img(200, 64, 1, 1, 4, 1);
   CHECK_EQ(vagx_layout_sparse_tail_level(&l), 0, "unaligned tail level");
   vagx_layout_sparse_tail(&l, 0, &off, &size);
   CHECK_EQ(off, 0, "unaligned tail offset");
   CHECK_EQ(size, PAGE, "unaligned tail size (4 tiles rounded to a page)");
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
   if (!vagx_layout_sparse_ok(&l)) {
      CHECK(layers > 1 && !sparse_layout, "%s: image not sparse", ctx);
      return;
   }
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
   l = img(256, 64, 4, 1, 4, 1);
   CHECK(vagx_layout_sparse_ok(&l), "single-level array");
   /* 256x64 with mips: the layer is 64 KiB + the small levels, 96 KiB */
   l = img(256, 64, 4, FULL, 4, 1);
   CHECK_EQ(l.layer_stride_B, PAGE + 32768, "mipmapped layer stride");
   CHECK(!vagx_layout_sparse_ok(&l), "layers that share pages");
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
   /* 256x64 with mips in the sparse layout: 96 KiB rounded to 128 KiB,
    * texels where the ordinary layout has them in each layer */
   sparse_layout = true;
   struct vagx_layout sp = img(256, 64, 4, FULL, 4, 1);
   sparse_layout = false;
   struct vagx_layout plain = img(256, 64, 4, FULL, 4, 1);
   CHECK_EQ(sp.layer_stride_B, 2 * PAGE, "sparse layer stride");
   CHECK_EQ(sp.size_B, 8 * PAGE, "sparse size");
   CHECK_EQ(sp.alignment_B, PAGE, "sparse alignment");
   CHECK(vagx_layout_sparse_ok(&sp), "sparse mipmapped array");
   for (uint32_t lv = 0; lv < sp.levels_alloc; lv++)
      CHECK_EQ(vagx_layout_offset_B(&sp, lv, 3, 0, 0) - 3 * sp.layer_stride_B,
               vagx_layout_offset_B(&plain, lv, 3, 0, 0) - 3 * plain.layer_stride_B,
               "same texel placement in a layer");
}

int
main(void)
{
   test_hand_worked();
   test_cover();
   sparse_layout = true;
   test_cover();
   sparse_layout = false;
   test_ok();
   printf("%d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
