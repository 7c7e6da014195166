/*
 * vagx image layout library: layout computation and addressing.
 *
 * SPDX-License-Identifier: MIT
 *
 * The rules implemented here are specified in docs/hw/layout.md (which
 * follows docs/drivers/asahi.rst "Image layouts").  Keep the three in sync.
 */
#include "vagx_layout.h"

static inline uint64_t
align64(uint64_t x, uint64_t a)
{
   return (x + a - 1) & ~(a - 1);
}

static inline uint32_t
div_round_up(uint32_t a, uint32_t b)
{
   return (a + b - 1) / b;
}

/* floor(log2(x)), x > 0 (0 for 0).  A bit scan, not a loop: the renderer's
 * texel fetch calls vagx_layout_offset_B, which needs it twice, for every
 * texel (docs/performance.md). */
static inline uint32_t
log2_floor(uint32_t x)
{
#if defined(__GNUC__)
   return x ? 31u - (uint32_t)__builtin_clz(x) : 0;
#else
   uint32_t r = 0;
   while (x >>= 1)
      r++;
   return r;
#endif
}

/* Smallest power of two >= x, x > 0, x <= 2^31 */
static inline uint32_t
next_pot(uint32_t x)
{
   uint32_t p = 1;
   while (p < x)
      p <<= 1;
   return p;
}

static inline uint32_t
min_u32(uint32_t a, uint32_t b)
{
   return a < b ? a : b;
}

static inline uint32_t
max_u32(uint32_t a, uint32_t b)
{
   return a > b ? a : b;
}

struct vagx_tile
vagx_layout_large_tile(uint32_t element_size_B)
{
   struct vagx_tile t = {0, 0};
   /* width * height * element bytes == 16 KiB: one tile per layout page. */
   switch (element_size_B) {
   case 1:  t.width_el = 128; t.height_el = 128; break;
   case 2:  t.width_el = 128; t.height_el = 64;  break;
   case 4:  t.width_el = 64;  t.height_el = 64;  break;
   case 8:  t.width_el = 64;  t.height_el = 32;  break;
   case 16: t.width_el = 32;  t.height_el = 32;  break;
   case 32: t.width_el = 32;  t.height_el = 16;  break;
   case 64: t.width_el = 16;  t.height_el = 16;  break;
   default: break;
   }
   return t;
}

struct vagx_tile
vagx_layout_sparse_block(uint32_t element_size_B)
{
   /* 4 layout pages as a 2 x 2 block of large tiles: n x n or 2n x n
    * elements of w * h * E = 64 KiB (256x256 at 1 B ... 64x64 at 16 B),
    * the sparse page (section 10).  Only single-sample formats are
    * sparse: none for 32 and 64 B. */
   struct vagx_tile t = {0, 0};
   if (element_size_B > 16)
      return t;
   t = vagx_layout_large_tile(element_size_B);
   t.width_el *= 2;
   t.height_el *= 2;
   return t;
}

static bool
valid_block_dim(uint32_t d)
{
   return d == 1 || d == 2 || d == 4 || d == 8;
}

static bool
validate(const struct vagx_layout *l)
{
   if (l->width_px == 0 || l->height_px == 0 || l->depth_px == 0 ||
       l->levels == 0)
      return false;
   if (l->width_px > VAGX_LAYOUT_MAX_DIM_PX ||
       l->height_px > VAGX_LAYOUT_MAX_DIM_PX)
      return false;
   if (l->depth_px > (l->mipmapped_z ? VAGX_LAYOUT_MAX_DIM_PX
                                     : VAGX_LAYOUT_MAX_LAYERS))
      return false;

   switch (l->bytes_per_block_B) {
   case 1: case 2: case 4: case 8: case 16: break;
   default: return false;
   }
   if (l->sample_count_sa != 1 && l->sample_count_sa != 4)
      return false;
   if (!valid_block_dim(l->block_width_px) ||
       !valid_block_dim(l->block_height_px))
      return false;

   /* The sparse layout (section 10): twiddled, single-sample. */
   if (l->sparse && (l->tiling != VAGX_TILING_TWIDDLED || l->sample_count_sa != 1))
      return false;

   if (l->sample_count_sa > 1) {
      /* Multisampled: pixels only, single level, no 3D. */
      if (l->block_width_px != 1 || l->block_height_px != 1 ||
          l->levels != 1 || l->mipmapped_z)
         return false;
   }

   uint32_t major = max_u32(l->width_px, l->height_px);
   if (l->mipmapped_z)
      major = max_u32(major, l->depth_px);
   if (l->levels > log2_floor(major) + 1)
      return false;

   switch (l->tiling) {
   case VAGX_TILING_LINEAR: {
      if (l->levels != 1 || l->depth_px != 1 || l->mipmapped_z ||
          l->sample_count_sa != 1 || l->block_width_px != 1 ||
          l->block_height_px != 1)
         return false;
      uint64_t min_stride_B = (uint64_t)l->width_px * l->bytes_per_block_B;
      if (l->linear_stride_B != 0 &&
          ((l->linear_stride_B % VAGX_LAYOUT_LINEAR_STRIDE_ALIGN_B) != 0 ||
           l->linear_stride_B < min_stride_B))
         return false;
      return true;
   }
   case VAGX_TILING_TWIDDLED:
      return l->linear_stride_B == 0;
   default:
      return false;
   }
}

static void
clear_outputs(struct vagx_layout *l)
{
   l->element_size_B = 0;
   l->levels_alloc = 0;
   l->layers = 0;
   for (uint32_t i = 0; i < VAGX_LAYOUT_MAX_LEVELS; i++) {
      struct vagx_layout_level *lv = &l->level[i];
      lv->offset_B = 0;
      lv->size_B = 0;
      lv->width_px = lv->height_px = 0;
      lv->width_el = lv->height_el = 0;
      lv->tilesize_el.width_el = lv->tilesize_el.height_el = 0;
      lv->tiles_x = lv->tiles_y = lv->tiles_alloc = 0;
      lv->stride_B = 0;
      lv->large = false;
   }
   l->miptree_size_B = 0;
   l->layer_stride_B = 0;
   l->size_B = 0;
   l->alignment_B = 0;
}

static void
init_level_dims(struct vagx_layout *l, uint32_t i)
{
   if (i >= VAGX_LAYOUT_MAX_LEVELS)
      return;
   struct vagx_layout_level *lv = &l->level[i];
   lv->width_px = vagx_layout_minify(l->width_px, i);
   lv->height_px = vagx_layout_minify(l->height_px, i);
   lv->width_el = div_round_up(lv->width_px, l->block_width_px);
   lv->height_el = div_round_up(lv->height_px, l->block_height_px);
}

static void
init_linear(struct vagx_layout *l)
{
   struct vagx_layout_level *lv = &l->level[0];
   init_level_dims(l, 0);

   uint32_t stride_B = l->linear_stride_B;
   if (stride_B == 0)
      stride_B = (uint32_t)align64((uint64_t)lv->width_el * l->element_size_B,
                                   VAGX_LAYOUT_LINEAR_STRIDE_ALIGN_B);

   lv->offset_B = 0;
   lv->size_B = (uint64_t)stride_B * lv->height_el;
   lv->tilesize_el.width_el = lv->width_el;
   lv->tilesize_el.height_el = 1;
   lv->tiles_x = 1;
   lv->tiles_y = lv->height_el;
   lv->tiles_alloc = lv->height_el;
   lv->stride_B = stride_B;
   lv->large = false;

   l->miptree_size_B = align64(lv->size_B, VAGX_LAYOUT_CACHELINE_B);
   l->layer_stride_B = l->miptree_size_B;
   l->size_B = l->layer_stride_B;
   l->alignment_B = VAGX_LAYOUT_LINEAR_ALIGN_B;
}

static void
init_twiddled(struct vagx_layout *l)
{
   const uint32_t E = l->element_size_B;
   /* The sparse layout's large tile is the 64 KiB sparse page (section 10):
    * a page is then one tile, the standard sparse block shape. */
   const struct vagx_tile big =
      l->sparse ? vagx_layout_sparse_block(E) : vagx_layout_large_tile(E);

   /* Level 0 in large tiles: the grid every large level derives from. */
   const uint32_t w0_el = div_round_up(l->width_px, l->block_width_px);
   const uint32_t h0_el = div_round_up(l->height_px, l->block_height_px);
   const uint32_t stx_tl = div_round_up(w0_el, big.width_el);
   const uint32_t sty_tl = div_round_up(h0_el, big.height_el);
   const uint64_t sarea_tl = (uint64_t)stx_tl * sty_tl;

   uint64_t offset_B = 0;
   bool large = true;

   for (uint32_t i = 0; i < l->levels_alloc && i < VAGX_LAYOUT_MAX_LEVELS;
        i++) {
      struct vagx_layout_level *lv = &l->level[i];
      init_level_dims(l, i);

      /* Large while the level covers a whole large tile in both axes; once
       * small, every smaller level is small too. */
      large = large && lv->width_el >= big.width_el &&
              lv->height_el >= big.height_el;
      lv->large = large;

      uint64_t tiles_alloc;
      if (large) {
         /* Tile counts come from level 0: shift the area by 2*i, then add a
          * column (and/or row, and the corner) if any of the first i halvings
          * of the level-0 tile grid rounded down. */
         const uint32_t mask = (1u << i) - 1;
         const bool pad_x = (stx_tl & mask) != 0;
         const bool pad_y = (sty_tl & mask) != 0;

         lv->tilesize_el = big;
         lv->tiles_x = (stx_tl >> i) + (pad_x ? 1 : 0);
         lv->tiles_y = (sty_tl >> i) + (pad_y ? 1 : 0);

         tiles_alloc = sarea_tl >> (2 * i);
         if (pad_x)
            tiles_alloc += sty_tl >> i;
         if (pad_y)
            tiles_alloc += stx_tl >> i;
         if (pad_x && pad_y)
            tiles_alloc += 1;
      } else {
         /* Small: square power-of-two tile fitting the minor axis. */
         const uint32_t m = next_pot(min_u32(lv->width_el, lv->height_el));
         lv->tilesize_el.width_el = m;
         lv->tilesize_el.height_el = m;
         lv->tiles_x = div_round_up(lv->width_el, m);
         lv->tiles_y = div_round_up(lv->height_el, m);
         tiles_alloc = (uint64_t)lv->tiles_x * lv->tiles_y;
      }

      const uint64_t tile_B =
         (uint64_t)lv->tilesize_el.width_el * lv->tilesize_el.height_el * E;
      const uint64_t row_B = tile_B * lv->tiles_x;

      lv->tiles_alloc = (uint32_t)tiles_alloc;
      lv->stride_B = row_B > 0xffffffffu ? 0xffffffffu : (uint32_t)row_B;
      lv->offset_B = offset_B;
      lv->size_B = tiles_alloc * tile_B;

      /* No cache line holds two levels. */
      offset_B = align64(offset_B + lv->size_B, VAGX_LAYOUT_CACHELINE_B);
   }

   l->miptree_size_B = offset_B;
   /* Every layer is a full miptree rounded up to a layout page; in the
    * sparse layout to a sparse page, so no two layers share one. */
   const uint32_t page_B = l->sparse ? VAGX_LAYOUT_SPARSE_PAGE_B : VAGX_LAYOUT_PAGE_B;
   l->layer_stride_B = align64(offset_B, page_B);
   l->size_B = l->layer_stride_B * l->layers;
   l->alignment_B = page_B;
}

bool
vagx_layout_init(struct vagx_layout *l)
{
   clear_outputs(l);
   if (!validate(l))
      return false;

   l->element_size_B = l->bytes_per_block_B * l->sample_count_sa;
   l->layers = l->depth_px;

   if (l->levels > 1) {
      /* The full mip chain is always allocated. */
      uint32_t major = max_u32(l->width_px, l->height_px);
      if (l->mipmapped_z)
         major = max_u32(major, l->depth_px);
      l->levels_alloc = log2_floor(major) + 1;
   } else {
      l->levels_alloc = 1;
   }

   if (l->tiling == VAGX_TILING_LINEAR)
      init_linear(l);
   else
      init_twiddled(l);
   return true;
}

bool
vagx_layout_in_bounds(const struct vagx_layout *l, uint32_t level,
                      uint32_t layer, uint32_t x_el, uint32_t y_el)
{
   return l->element_size_B != 0 && level < l->levels_alloc &&
          layer < l->layers && x_el < l->level[level].width_el &&
          y_el < l->level[level].height_el;
}

uint64_t
vagx_layout_offset_B(const struct vagx_layout *l, uint32_t level,
                     uint32_t layer, uint32_t x_el, uint32_t y_el)
{
   const struct vagx_layout_level *lv = &l->level[level];
   const uint32_t E = l->element_size_B;
   uint64_t base_B = (uint64_t)layer * l->layer_stride_B + lv->offset_B;

   if (l->tiling == VAGX_TILING_LINEAR)
      return base_B + (uint64_t)y_el * lv->stride_B + (uint64_t)x_el * E;

   const uint32_t tw = lv->tilesize_el.width_el;
   const uint32_t th = lv->tilesize_el.height_el;
   const uint32_t tx = x_el >> log2_floor(tw);
   const uint32_t ty = y_el >> log2_floor(th);
   const uint64_t tile_idx = (uint64_t)ty * lv->tiles_x + tx;
   const uint32_t in_tile_el =
      vagx_layout_morton_el(x_el & (tw - 1), y_el & (th - 1));

   return base_B + (tile_idx * tw * th + in_tile_el) * E;
}

/* ---------------------------------------------------------------------- */
/* Copies.  Elements are copied whole; the per-size functions let the
 * compiler turn each element copy into one or a few moves. */

static inline void
copy_bytes(uint8_t *restrict d, const uint8_t *restrict s, uint32_t n)
{
#if defined(__GNUC__)
   __builtin_memcpy(d, s, n);
#else
   for (uint32_t i = 0; i < n; i++)
      d[i] = s[i];
#endif
}

struct copy_args {
   uint8_t *image;          /* start of the level in the selected layer */
   uint8_t *linear;
   uint32_t linear_stride_B;
   uint32_t x_el, y_el, w_el, h_el;
   uint32_t tw, th, log2_tw, log2_th;
   uint32_t tiles_x;
};

/* Rows are walked in the linear image's order, the element offset inside a
 * tile kept as its spread x and y bits.  A pair of rows that starts on an
 * even row, with an even start column and width, goes a 2x2 quad at a
 * time: the quad's elements are consecutive in the tile ((x, y), (x + 1, y),
 * (x, y + 1), (x + 1, y + 1)), so it is two copies of two elements, one per
 * row (a window system's readback of a whole frame, glReadPixels, is such
 * a copy). */
#define VAGX_DEFINE_TWIDDLED_COPY(N, DIR, STORE)                              \
   static void copy_twiddled_##DIR##_##N(const struct copy_args *a)          \
   {                                                                          \
      const uint64_t tile_B = (uint64_t)a->tw * a->th * (N);                  \
      const uint32_t mask_x = vagx_layout_spread_bits(a->tw - 1);             \
      const uint32_t mask_y = vagx_layout_spread_bits(a->th - 1) << 1;        \
      const uint32_t xoff0 = vagx_layout_spread_bits(a->x_el & (a->tw - 1));  \
      const uint32_t y_end = a->y_el + a->h_el;                               \
      const bool quads = a->tw >= 2 && a->th >= 2 &&                         \
                         ((a->x_el | a->w_el) & 1) == 0;                      \
      uint32_t yoff = vagx_layout_spread_bits(a->y_el & (a->th - 1)) << 1;    \
      uint8_t *lin_row = a->linear;                                           \
      for (uint32_t y = a->y_el; y < y_end;) {                                \
         uint8_t *tile_row =                                                  \
            a->image + (uint64_t)(y >> a->log2_th) * a->tiles_x * tile_B;     \
         uint8_t *tile = tile_row + (uint64_t)(a->x_el >> a->log2_tw) * tile_B; \
         uint32_t xoff = xoff0;                                               \
         uint8_t *lin = lin_row;                                              \
         if (quads && !(y & 1) && y + 1 < y_end) {                            \
            uint8_t *lin2 = lin_row + a->linear_stride_B;                     \
            for (uint32_t x = a->x_el; x < a->x_el + a->w_el; x += 2) {       \
               uint8_t *t = tile + (uint64_t)(xoff | yoff) * (N);             \
               if (STORE) {                                                   \
                  copy_bytes(t, lin, 2 * (N));                                \
                  copy_bytes(t + 2 * (N), lin2, 2 * (N));                     \
               } else {                                                       \
                  copy_bytes(lin, t, 2 * (N));                                \
                  copy_bytes(lin2, t + 2 * (N), 2 * (N));                     \
               }                                                              \
               lin += 2 * (N);                                                \
               lin2 += 2 * (N);                                               \
               xoff = (xoff - mask_x) & mask_x;                               \
               xoff = (xoff - mask_x) & mask_x;                               \
               if (xoff == 0)                                                 \
                  tile += tile_B;                                             \
            }                                                                 \
            yoff = (yoff - mask_y) & mask_y;                                  \
            yoff = (yoff - mask_y) & mask_y;                                  \
            lin_row += 2 * (uint64_t)a->linear_stride_B;                      \
            y += 2;                                                           \
            continue;                                                         \
         }                                                                    \
         for (uint32_t x = a->x_el; x < a->x_el + a->w_el; x++) {             \
            uint8_t *t = tile + (uint64_t)(xoff | yoff) * (N);                \
            if (STORE)                                                        \
               copy_bytes(t, lin, (N));                                       \
            else                                                              \
               copy_bytes(lin, t, (N));                                       \
            lin += (N);                                                       \
            xoff = (xoff - mask_x) & mask_x;                                  \
            if (xoff == 0)                                                    \
               tile += tile_B;                                                \
         }                                                                    \
         yoff = (yoff - mask_y) & mask_y;                                     \
         lin_row += a->linear_stride_B;                                       \
         y++;                                                                 \
      }                                                                       \
   }

/* The inverse of vagx_layout_spread_bits: the even bits of x, packed */
static inline uint32_t
compact_bits(uint32_t x)
{
   x &= 0x55555555u;
   x = (x | (x >> 1)) & 0x33333333u;
   x = (x | (x >> 2)) & 0x0f0f0f0fu;
   x = (x | (x >> 4)) & 0x00ff00ffu;
   x = (x | (x >> 8)) & 0x0000ffffu;
   return x;
}

/* Detiles of whole 4x4 blocks: x_el, y_el, w_el and h_el are multiples of
 * 4 and the tile at least 4x4, so every block is 16 consecutive elements
 * of one tile (its Morton index is 16 times the block's).  Row r of a block
 * is elements 2 (r & 1) + 8 (r >> 1) + {0, 1} and the same + {4, 5}: two
 * copies of two elements.  A tile the rectangle covers is read block by
 * block in memory order, front to back -- what a hardware prefetcher
 * follows, in an image the device has just written and no cache holds: a
 * 1920x1080 RGBA8 frame detiles in about half the time of the rows-first
 * walk (docs/performance.md, "Readback") -- its rows in the linear image
 * written 8 bytes at a time at 4 bytes an element; a tile it covers in
 * part goes a row of blocks at a time.  (Tiling the other way round gains
 * nothing over the rows-first walk, which it keeps.) */
#define VAGX_DEFINE_BLOCK_DETILE(N)                                           \
   static inline void block_ld_##N(const uint8_t *blk, uint8_t *lin, size_t s) \
   {                                                                          \
      for (uint32_t r = 0; r < 4; r++) {                                      \
         const uint8_t *t = blk + ((r & 1) * 2 + (r >> 1) * 8) * (N);         \
         copy_bytes(lin + r * s, t, 2 * (N));                                 \
         copy_bytes(lin + r * s + 2 * (N), t + 4 * (N), 2 * (N));             \
      }                                                                       \
   }                                                                          \
   static void detile_blocks_##N(const struct copy_args *a)                  \
   {                                                                          \
      const uint32_t tw = a->tw, th = a->th;                                  \
      const uint64_t tile_B = (uint64_t)tw * th * (N);                        \
      const uint32_t x_end = a->x_el + a->w_el, y_end = a->y_el + a->h_el;    \
      const size_t s = a->linear_stride_B;                                    \
      for (uint32_t ty0 = a->y_el & ~(th - 1); ty0 < y_end; ty0 += th) {      \
         const uint32_t y0 = ty0 > a->y_el ? ty0 : a->y_el;                   \
         const uint32_t y1 = ty0 + th < y_end ? ty0 + th : y_end;             \
         const uint8_t *tile = a->image +                                     \
                               ((uint64_t)(ty0 >> a->log2_th) * a->tiles_x +  \
                                (a->x_el >> a->log2_tw)) * tile_B;            \
         for (uint32_t tx0 = a->x_el & ~(tw - 1); tx0 < x_end;                \
              tx0 += tw, tile += tile_B) {                                    \
            const uint32_t x0 = tx0 > a->x_el ? tx0 : a->x_el;                \
            const uint32_t x1 = tx0 + tw < x_end ? tx0 + tw : x_end;          \
            uint8_t *lin = a->linear + (uint64_t)(y0 - a->y_el) * s +         \
                           (uint64_t)(x0 - a->x_el) * (N);                    \
            if (x1 - x0 == tw && y1 - y0 == th) {                             \
               const uint32_t n = tw * th / 16;                               \
               for (uint32_t i = 0; i < n; i++)                               \
                  block_ld_##N(tile + (uint64_t)i * 16 * (N),                 \
                               lin + (uint64_t)compact_bits(i >> 1) * 4 * s + \
                                  (uint64_t)compact_bits(i) * 4 * (N),        \
                               s);                                            \
               continue;                                                      \
            }                                                                 \
            for (uint32_t y = y0; y < y1; y += 4) {                           \
               const uint32_t yoff = vagx_layout_spread_bits(y - ty0) << 1;   \
               for (uint32_t x = x0; x < x1; x += 4)                          \
                  block_ld_##N(                                               \
                     tile + (uint64_t)(vagx_layout_spread_bits(x - tx0) | yoff) * (N), \
                     lin + (uint64_t)(y - y0) * s + (uint64_t)(x - x0) * (N), s); \
            }                                                                 \
         }                                                                    \
      }                                                                       \
   }

VAGX_DEFINE_TWIDDLED_COPY(1, st, true)
VAGX_DEFINE_TWIDDLED_COPY(1, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(2, st, true)
VAGX_DEFINE_TWIDDLED_COPY(2, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(4, st, true)
VAGX_DEFINE_TWIDDLED_COPY(4, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(8, st, true)
VAGX_DEFINE_TWIDDLED_COPY(8, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(16, st, true)
VAGX_DEFINE_TWIDDLED_COPY(16, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(32, st, true)
VAGX_DEFINE_TWIDDLED_COPY(32, ld, false)
VAGX_DEFINE_TWIDDLED_COPY(64, st, true)
VAGX_DEFINE_TWIDDLED_COPY(64, ld, false)
VAGX_DEFINE_BLOCK_DETILE(1)
VAGX_DEFINE_BLOCK_DETILE(2)
VAGX_DEFINE_BLOCK_DETILE(4)
VAGX_DEFINE_BLOCK_DETILE(8)
VAGX_DEFINE_BLOCK_DETILE(16)
VAGX_DEFINE_BLOCK_DETILE(32)
VAGX_DEFINE_BLOCK_DETILE(64)

/* One piece of a twiddled copy: the rectangle at (x_el, y_el) of the copy,
 * w_el x h_el, its linear start moved along; whole 4x4 blocks (detiles
 * only) or not */
static void
copy_piece(const struct copy_args *whole, uint32_t x_el, uint32_t y_el,
           uint32_t w_el, uint32_t h_el, bool blocks, bool store, uint32_t E)
{
   if (w_el == 0 || h_el == 0)
      return;
   struct copy_args a = *whole;
   a.linear += (uint64_t)(y_el - whole->y_el) * whole->linear_stride_B +
               (uint64_t)(x_el - whole->x_el) * E;
   a.x_el = x_el;
   a.y_el = y_el;
   a.w_el = w_el;
   a.h_el = h_el;
#define VAGX_COPY_CASE(N)                                                      \
   case N:                                                                     \
      if (blocks)                                                              \
         detile_blocks_##N(&a);                                                \
      else if (store)                                                          \
         copy_twiddled_st_##N(&a);                                             \
      else                                                                     \
         copy_twiddled_ld_##N(&a);                                             \
      break;
   switch (E) {
   VAGX_COPY_CASE(1)
   VAGX_COPY_CASE(2)
   VAGX_COPY_CASE(4)
   VAGX_COPY_CASE(8)
   VAGX_COPY_CASE(16)
   VAGX_COPY_CASE(32)
   VAGX_COPY_CASE(64)
   default: break;
   }
#undef VAGX_COPY_CASE
}

/* A twiddled copy: a detile with tiles of at least 4x4 elements copies
 * the whole 4x4 blocks the rectangle covers a block at a time, the rows
 * and columns around them (up to 3 on each side) element by element */
static void
copy_twiddled(const struct copy_args *a, bool store, uint32_t E)
{
   const uint32_t x_end = a->x_el + a->w_el, y_end = a->y_el + a->h_el;
   if (store || a->tw < 4 || a->th < 4) {
      copy_piece(a, a->x_el, a->y_el, a->w_el, a->h_el, false, store, E);
      return;
   }
   /* [bx0, bx1) x [by0, by1): the whole blocks (empty when there are none) */
   uint32_t bx0 = (a->x_el + 3) & ~3u, by0 = (a->y_el + 3) & ~3u;
   uint32_t bx1 = x_end & ~3u, by1 = y_end & ~3u;
   if (bx0 >= bx1 || by0 >= by1) {
      copy_piece(a, a->x_el, a->y_el, a->w_el, a->h_el, false, store, E);
      return;
   }
   copy_piece(a, a->x_el, a->y_el, a->w_el, by0 - a->y_el, false, store, E);
   copy_piece(a, a->x_el, by0, bx0 - a->x_el, by1 - by0, false, store, E);
   copy_piece(a, bx0, by0, bx1 - bx0, by1 - by0, true, store, E);
   copy_piece(a, bx1, by0, x_end - bx1, by1 - by0, false, store, E);
   copy_piece(a, a->x_el, by1, a->w_el, y_end - by1, false, store, E);
}

static bool
do_copy(const struct vagx_layout *l, uint8_t *image, uint8_t *linear,
        uint32_t linear_stride_B, uint32_t level, uint32_t layer,
        uint32_t x_el, uint32_t y_el, uint32_t w_el, uint32_t h_el,
        bool store)
{
   if (!l || !image || !linear || l->element_size_B == 0 ||
       level >= l->levels_alloc || layer >= l->layers)
      return false;

   const struct vagx_layout_level *lv = &l->level[level];
   const uint32_t E = l->element_size_B;
   if ((uint64_t)x_el + w_el > lv->width_el ||
       (uint64_t)y_el + h_el > lv->height_el)
      return false;
   if (w_el == 0 || h_el == 0)
      return true;
   if (h_el > 1 && linear_stride_B < (uint64_t)w_el * E)
      return false;

   uint8_t *level_base =
      image + (uint64_t)layer * l->layer_stride_B + lv->offset_B;

   if (l->tiling == VAGX_TILING_LINEAR) {
      const uint32_t row_B = w_el * E;
      uint8_t *img = level_base + (uint64_t)y_el * lv->stride_B +
                     (uint64_t)x_el * E;
      for (uint32_t r = 0; r < h_el; r++) {
         uint8_t *lin = linear + (uint64_t)r * linear_stride_B;
         uint8_t *im = img + (uint64_t)r * lv->stride_B;
         for (uint32_t b = 0; b < row_B; b++) {
            if (store)
               im[b] = lin[b];
            else
               lin[b] = im[b];
         }
      }
      return true;
   }

   struct copy_args a;
   a.image = level_base;
   a.linear = linear;
   a.linear_stride_B = linear_stride_B;
   a.x_el = x_el;
   a.y_el = y_el;
   a.w_el = w_el;
   a.h_el = h_el;
   a.tw = lv->tilesize_el.width_el;
   a.th = lv->tilesize_el.height_el;
   a.log2_tw = log2_floor(a.tw);
   a.log2_th = log2_floor(a.th);
   a.tiles_x = lv->tiles_x;

   switch (E) {
   case 1: case 2: case 4: case 8: case 16: case 32: case 64:
      copy_twiddled(&a, store, E);
      break;
   default:
      return false;
   }
   return true;
}

bool
vagx_layout_tile(const struct vagx_layout *layout, void *image,
                 const void *linear, uint32_t linear_stride_B, uint32_t level,
                 uint32_t layer, uint32_t x_el, uint32_t y_el,
                 uint32_t width_el, uint32_t height_el)
{
   return do_copy(layout, (uint8_t *)image, (uint8_t *)(uintptr_t)linear,
                  linear_stride_B, level, layer, x_el, y_el, width_el,
                  height_el, true);
}

bool
vagx_layout_detile(const struct vagx_layout *layout, const void *image,
                   void *linear, uint32_t linear_stride_B, uint32_t level,
                   uint32_t layer, uint32_t x_el, uint32_t y_el,
                   uint32_t width_el, uint32_t height_el)
{
   return do_copy(layout, (uint8_t *)(uintptr_t)image, (uint8_t *)linear,
                  linear_stride_B, level, layer, x_el, y_el, width_el,
                  height_el, false);
}
