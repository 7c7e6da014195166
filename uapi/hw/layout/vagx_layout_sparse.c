/*
 * vagx image layout library: sparse pages and the mip tail.
 *
 * SPDX-License-Identifier: MIT
 *
 * Which bytes of a sparse image one sparse page (64 KiB, what the kernel
 * binds or NULL-maps for GL's glTexPageCommitmentARB) covers.  An image in
 * the sparse layout (vagx_layout.sparse, descriptor bit `sparse`) is a
 * twiddled image whose large tile is the sparse page itself, so that a page
 * is the standard sparse block shape of ARB_sparse_texture2 and Vulkan
 * (docs/hw/layout.md section 10).  Freestanding like vagx_layout.c.
 */
#include "vagx_layout.h"

/* (vagx_layout_sparse_block, the sparse layout's tile, is in vagx_layout.c:
 * the layout computation needs it, and some users compile only that file) */

/* A level is a whole grid of pages when it is large (its tiles are pages),
 * its tile grid has no padding (tiles beyond the level or allocated beyond
 * the grid), and it starts on a page (every earlier level is whole pages
 * then, but the check costs nothing). */
static bool
level_is_paged(const struct vagx_layout *l, uint32_t i)
{
   const struct vagx_layout_level *lv = &l->level[i];
   return lv->large && lv->tiles_x * lv->tilesize_el.width_el == lv->width_el &&
          lv->tiles_y * lv->tilesize_el.height_el == lv->height_el &&
          lv->tiles_alloc == lv->tiles_x * lv->tiles_y &&
          lv->offset_B % VAGX_LAYOUT_SPARSE_PAGE_B == 0;
}

uint32_t
vagx_layout_sparse_tail_level(const struct vagx_layout *l)
{
   /* only the sparse layout's tiles are pages */
   if (!l->sparse)
      return 0;
   uint32_t i = 0;
   while (i < l->levels_alloc && level_is_paged(l, i))
      i++;
   return i;
}

bool
vagx_layout_sparse_ok(const struct vagx_layout *l)
{
   /* (vagx_layout_init accepts the sparse layout only twiddled and
    * single-sample, and rounds its layers to whole pages) */
   return l->sparse && l->element_size_B != 0 && l->tiling == VAGX_TILING_TWIDDLED &&
          l->sample_count_sa == 1 && l->layer_stride_B % VAGX_LAYOUT_SPARSE_PAGE_B == 0;
}

uint64_t
vagx_layout_sparse_page_B(const struct vagx_layout *l, uint32_t level, uint32_t layer,
                          uint32_t page_x, uint32_t page_y)
{
   const struct vagx_layout_level *lv = &l->level[level];
   /* one tile per page, tiles in raster order */
   const uint64_t page = (uint64_t)page_y * lv->tiles_x + page_x;
   return (uint64_t)layer * l->layer_stride_B + lv->offset_B + page * VAGX_LAYOUT_SPARSE_PAGE_B;
}

void
vagx_layout_sparse_tail(const struct vagx_layout *l, uint32_t layer, uint64_t *offset_B,
                        uint64_t *size_B)
{
   const uint32_t tail = vagx_layout_sparse_tail_level(l);
   *offset_B = 0;
   *size_B = 0;
   if (tail >= l->levels_alloc)
      return;
   /* to the end of the layer, whose stride is whole pages; the tail
    * starts on a page as every level before it is whole pages */
   *offset_B = (uint64_t)layer * l->layer_stride_B + l->level[tail].offset_B;
   *size_B = (uint64_t)(layer + 1) * l->layer_stride_B - *offset_B;
}
