/*
 * vagx image layout library: sparse pages and the mip tail.
 *
 * SPDX-License-Identifier: MIT
 *
 * Which bytes of a twiddled image one sparse page (64 KiB, what the kernel
 * binds or NULL-maps for GL's glTexPageCommitmentARB) covers.  Nothing here
 * changes the layout itself: the device samples and stores a sparse image
 * exactly like any other twiddled image; only the driver needs these rules
 * (docs/hw/layout.md section 10).  Freestanding like vagx_layout.c.
 */
#include "vagx_layout.h"

struct vagx_tile
vagx_layout_sparse_block(uint32_t element_size_B)
{
   /* tiles are stored row-major, so four consecutive ones -- a page -- are
    * a 4 x 1 strip of tiles */
   struct vagx_tile t = vagx_layout_large_tile(element_size_B);
   t.width_el *= VAGX_LAYOUT_SPARSE_PAGE_TILES;
   return t;
}

/* A level is a whole grid of pages when its large-tile grid has no padding
 * (tiles beyond the level or allocated beyond the grid), is a whole number
 * of pages wide, and starts on a page. */
static bool
level_is_paged(const struct vagx_layout *l, uint32_t i)
{
   const struct vagx_layout_level *lv = &l->level[i];
   return lv->large && lv->tiles_x * lv->tilesize_el.width_el == lv->width_el &&
          lv->tiles_y * lv->tilesize_el.height_el == lv->height_el &&
          lv->tiles_alloc == lv->tiles_x * lv->tiles_y &&
          lv->tiles_x % VAGX_LAYOUT_SPARSE_PAGE_TILES == 0 &&
          lv->offset_B % VAGX_LAYOUT_SPARSE_PAGE_B == 0;
}

uint32_t
vagx_layout_sparse_tail_level(const struct vagx_layout *l)
{
   if (l->tiling != VAGX_TILING_TWIDDLED)
      return 0;
   uint32_t i = 0;
   while (i < l->levels_alloc && level_is_paged(l, i))
      i++;
   return i;
}

bool
vagx_layout_sparse_ok(const struct vagx_layout *l)
{
   /* (the sparse layout gives the last condition for any miptree) */
   return l->tiling == VAGX_TILING_TWIDDLED && l->sample_count_sa == 1 &&
          (l->layers == 1 || l->layer_stride_B % VAGX_LAYOUT_SPARSE_PAGE_B == 0);
}

uint64_t
vagx_layout_sparse_page_B(const struct vagx_layout *l, uint32_t level, uint32_t layer,
                          uint32_t page_x, uint32_t page_y)
{
   const struct vagx_layout_level *lv = &l->level[level];
   const uint64_t tile_B = (uint64_t)lv->tilesize_el.width_el * lv->tilesize_el.height_el *
                           l->element_size_B;
   const uint64_t tile = (uint64_t)page_y * lv->tiles_x +
                         (uint64_t)page_x * VAGX_LAYOUT_SPARSE_PAGE_TILES;
   return (uint64_t)layer * l->layer_stride_B + lv->offset_B + tile * tile_B;
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
   /* to the end of the layer's last page: the layer stride when it is
    * whole pages, else (one layer) the image rounded up to a page */
   const uint64_t end = l->layer_stride_B + VAGX_LAYOUT_SPARSE_PAGE_B - 1;
   *offset_B = (uint64_t)layer * l->layer_stride_B + l->level[tail].offset_B;
   *size_B = (uint64_t)layer * l->layer_stride_B +
             (end - end % VAGX_LAYOUT_SPARSE_PAGE_B) - *offset_B;
}
