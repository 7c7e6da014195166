/*
 * vagx image layout library -- part of the hardware contract.
 *
 * SPDX-License-Identifier: MIT
 *
 * One plain-C description of where every texel of a vagx image lives in
 * memory, shared verbatim by the emulated device (texture sampler, PBE,
 * scanout), the kernel (size checks) and the Mesa driver (allocation,
 * transfers).  The rules are written down in docs/hw/layout.md; this file
 * and vagx_layout.c are their executable form.
 *
 * Unit suffixes (as in Mesa's ail/isl):
 *   _B   bytes          _px  pixels        _el  elements (blocks; for MSAA
 *   _sa  samples                             an element holds all samples)
 *   _tl  tiles
 *
 * Freestanding: no allocation, no OS calls, no libc functions.  Compiles as
 * C11, as kernel gnu11 (-D__KERNEL__ uses <linux/types.h>) and the header
 * as C++17.
 */
#ifndef VAGX_LAYOUT_H
#define VAGX_LAYOUT_H

#if defined(__KERNEL__)
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Hardware constants. */
#define VAGX_LAYOUT_PAGE_B           16384u /* layout page: one large tile */
#define VAGX_LAYOUT_CACHELINE_B      128u   /* every mip level is aligned to this */
#define VAGX_LAYOUT_LINEAR_STRIDE_ALIGN_B 16u /* linear strides: multiple of this */
#define VAGX_LAYOUT_LINEAR_ALIGN_B   128u   /* base alignment of linear images */
#define VAGX_LAYOUT_MAX_DIM_PX       16384u /* max width/height/depth */
#define VAGX_LAYOUT_MAX_LAYERS       2048u  /* max array layers (cube: 6 per cube) */
#define VAGX_LAYOUT_MAX_LEVELS       15u    /* log2(16384) + 1 */
#define VAGX_LAYOUT_MAX_BLOCK_DIM_PX 8u     /* block width/height: 1, 2, 4 or 8 */
#define VAGX_LAYOUT_MAX_ELEMENT_B    64u    /* bytes per block * samples */

enum vagx_tiling {
   /* Strided linear: single level, single layer, no MSAA, 1x1 blocks. */
   VAGX_TILING_LINEAR = 0,
   /* Twiddled: row-major tiles, Morton order inside a tile. */
   VAGX_TILING_TWIDDLED = 1,
};

struct vagx_tile {
   uint32_t width_el;
   uint32_t height_el;
};

/* Everything the hardware and the driver need to know about one mip level.
 * Offsets are relative to the start of a layer. */
struct vagx_layout_level {
   uint64_t offset_B;        /* start of this level within a layer */
   uint64_t size_B;          /* bytes allocated (tiles_alloc * tile bytes, or
                              * stride * height for linear), before the
                              * 128 B alignment of the next level */
   uint32_t width_px, height_px;   /* logical size of the level */
   uint32_t width_el, height_el;   /* logical size in elements (blocks) */
   struct vagx_tile tilesize_el;   /* tile size; linear: { width_el, 1 } */
   uint32_t tiles_x;         /* tiles per row of tiles (the row stride in tiles) */
   uint32_t tiles_y;         /* rows of tiles addressable */
   uint32_t tiles_alloc;     /* tiles allocated (>= tiles_x * tiles_y) */
   uint32_t stride_B;        /* linear: row stride; twiddled: bytes per row of
                              * tiles = tiles_x * tile bytes (saturates at
                              * UINT32_MAX, never needed for addressing) */
   bool large;               /* twiddled: uses the page-sized level-0 tile */
};

struct vagx_layout {
   /* ---- inputs ---- */
   uint32_t width_px;
   uint32_t height_px;
   /* Depth of a 3D image (mipmapped_z) or number of layers of a 1D/2D array
    * or cube (map) array.  1 for a plain 2D image. */
   uint32_t depth_px;
   /* Number of logical mip levels, >= 1.  If > 1 the full mip chain is
    * always allocated (levels_alloc). */
   uint32_t levels;
   uint32_t sample_count_sa;     /* 1 or 4 */
   uint32_t block_width_px;      /* 1 for uncompressed; 1, 2, 4, 8 */
   uint32_t block_height_px;     /* 1 for uncompressed; 1, 2, 4, 8 */
   uint32_t bytes_per_block_B;   /* 1, 2, 4, 8 or 16 (per sample) */
   enum vagx_tiling tiling;
   bool mipmapped_z;             /* 3D image: depth minifies with levels */
   /* Linear only: row stride, 0 = compute align(width_el * B, 16).  Must be
    * a nonzero multiple of 16 and >= width_el * element bytes. */
   uint32_t linear_stride_B;
   /* The sparse layout (texture/pbe descriptor `sparse`): twiddled and
    * single-sample only; its large tile is a VAGX_LAYOUT_SPARSE_PAGE_B
    * sparse page (vagx_layout_sparse_block, the standard sparse block
    * shape) instead of a 16 KiB layout page, and layers are whole sparse
    * pages apart with the base aligned to one, so every layer's sparse
    * pages are its own. */
   bool sparse;

   /* ---- outputs (written by vagx_layout_init) ---- */
   uint32_t element_size_B;      /* bytes_per_block_B * sample_count_sa */
   uint32_t levels_alloc;        /* levels present in memory (full chain) */
   uint32_t layers;              /* == depth_px: 2D miptrees in memory */
   struct vagx_layout_level level[VAGX_LAYOUT_MAX_LEVELS];
   uint64_t miptree_size_B;      /* end of the last allocated level */
   uint64_t layer_stride_B;      /* miptree_size rounded up to a 16 KiB page
                                  * (sparse layout: 64 KiB) */
   uint64_t size_B;              /* layer_stride_B * layers */
   uint32_t alignment_B;         /* required base address alignment */
};

/*
 * Validate the inputs and compute the outputs.  Returns false (and leaves the
 * outputs zeroed) on invalid inputs:
 *  - zero or too-large width/height/depth, zero levels, levels beyond the
 *    full mip chain;
 *  - bytes_per_block not 1/2/4/8/16; sample count not 1/4; block dims not
 *    1/2/4/8; MSAA combined with blocks, mipmaps or 3D;
 *  - linear with levels > 1, depth > 1, MSAA, blocks, or a bad stride;
 *  - sparse with linear tiling or MSAA;
 *  - unknown tiling.
 */
bool vagx_layout_init(struct vagx_layout *layout);

/* Morton-interleave the low 16 bits of x into the even bits (x0 -> bit 0). */
static inline uint32_t
vagx_layout_spread_bits(uint32_t x)
{
   x &= 0xffffu;
   x = (x | (x << 8)) & 0x00ff00ffu;
   x = (x | (x << 4)) & 0x0f0f0f0fu;
   x = (x | (x << 2)) & 0x33333333u;
   x = (x | (x << 1)) & 0x55555555u;
   return x;
}

/* Element index of (x, y) inside a tile: x bits in even, y bits in odd
 * positions: ... y1 x1 y0 x0.  Valid for square tiles and for 2n x n tiles. */
static inline uint32_t
vagx_layout_morton_el(uint32_t x_el, uint32_t y_el)
{
   return vagx_layout_spread_bits(x_el) | (vagx_layout_spread_bits(y_el) << 1);
}

/* Logical size of a level in pixels: max(1, size >> level). */
static inline uint32_t
vagx_layout_minify(uint32_t size_px, uint32_t level)
{
   uint32_t r = level < 32 ? (size_px >> level) : 0;
   return r ? r : 1;
}

/* Logical depth of level `level` (3D: minified depth; arrays: layer count). */
static inline uint32_t
vagx_layout_level_depth(const struct vagx_layout *layout, uint32_t level)
{
   return layout->mipmapped_z ? vagx_layout_minify(layout->depth_px, level)
                              : layout->depth_px;
}

/*
 * Byte offset, from the image base, of element (x_el, y_el) of mip level
 * `level` in layer (array layer, cube face 6*cube+face, or 3D slice z)
 * `layer`.  Precondition (not checked; use vagx_layout_in_bounds when the
 * values are untrusted): level < levels_alloc, layer < layers,
 * x_el < level[level].width_el, y_el < level[level].height_el.  Sample s of a
 * multisampled element lives at offset + s * bytes_per_block_B.
 */
uint64_t vagx_layout_offset_B(const struct vagx_layout *layout, uint32_t level,
                              uint32_t layer, uint32_t x_el, uint32_t y_el);

/* True if (level, layer, x_el, y_el) satisfies vagx_layout_offset_B's
 * precondition. */
bool vagx_layout_in_bounds(const struct vagx_layout *layout, uint32_t level,
                           uint32_t layer, uint32_t x_el, uint32_t y_el);

/*
 * Copy a rectangle of whole elements between a linear CPU buffer (row
 * stride linear_stride_B, first element at `linear`) and the image at
 * `image` (its base, i.e. level 0 of layer 0).  Works for both tilings.
 * Returns false without copying if the rectangle is outside the level
 * or the arguments are invalid.
 *
 *   vagx_layout_tile:   linear -> image   (upload / CPU store)
 *   vagx_layout_detile: image  -> linear  (readback / CPU load)
 */
bool vagx_layout_tile(const struct vagx_layout *layout, void *image,
                      const void *linear, uint32_t linear_stride_B,
                      uint32_t level, uint32_t layer, uint32_t x_el,
                      uint32_t y_el, uint32_t width_el, uint32_t height_el);

bool vagx_layout_detile(const struct vagx_layout *layout, const void *image,
                        void *linear, uint32_t linear_stride_B, uint32_t level,
                        uint32_t layer, uint32_t x_el, uint32_t y_el,
                        uint32_t width_el, uint32_t height_el);

/* Tile sizes for large (page-sized) tiles, indexed by log2(element bytes):
 * 1 B 128x128, 2 B 128x64, 4 B 64x64, 8 B 64x32, 16 B 32x32,
 * 32 B 32x16 and 64 B 16x16 (the last two only for 4x MSAA).  The sparse
 * layout's large tiles are vagx_layout_sparse_block instead. */
struct vagx_tile vagx_layout_large_tile(uint32_t element_size_B);

/*
 * Sparse residency (vagx_layout_sparse.c, docs/hw/layout.md section 10).
 * A sparse page is VAGX_LAYOUT_SPARSE_PAGE_B bytes.  In the sparse layout
 * it is one large tile: a block of vagx_layout_sparse_block elements, the
 * standard sparse block shape (256x256 at 1 B, 256x128 at 2 B, 128x128 at
 * 4 B, 128x64 at 8 B, 64x64 at 16 B), elements in Morton order.  Levels
 * from vagx_layout_sparse_tail_level() on form the mip tail: the rest of
 * the layer's pages, committed as a whole.  These functions are for images
 * in the sparse layout (vagx_layout_sparse_ok).
 */
#define VAGX_LAYOUT_SPARSE_PAGE_B     65536u

/* Elements covered by one sparse page (the sparse layout's large tile:
 * twice the large tile in both axes); {0, 0} for an element size that
 * cannot be sparse (32 and 64 B, 4x MSAA only). */
struct vagx_tile vagx_layout_sparse_block(uint32_t element_size_B);

/* First level of the mip tail: the first level that is not a whole grid of
 * sparse pages (small, padded, or not a multiple of the block), or
 * levels_alloc if there is none; 0 for an image not in the sparse layout.
 * Every later level is in the tail too. */
uint32_t vagx_layout_sparse_tail_level(const struct vagx_layout *layout);

/* Whether the image can be sparse: an image in the sparse layout (which is
 * twiddled and single-sample, and whose layers are whole sparse pages
 * apart, so that every layer's pages are its own). */
bool vagx_layout_sparse_ok(const struct vagx_layout *layout);

/* Byte offset, from the image base, of sparse page (page_x, page_y) (in
 * blocks) of a level before the tail.  Precondition (not checked): level <
 * vagx_layout_sparse_tail_level, layer < layers, the page inside the
 * level. */
uint64_t vagx_layout_sparse_page_B(const struct vagx_layout *layout, uint32_t level,
                                   uint32_t layer, uint32_t page_x, uint32_t page_y);

/* The byte range of layer's mip tail, whole sparse pages ({0, 0} if the
 * image has no tail).  Precondition: vagx_layout_sparse_ok, layer < layers. */
void vagx_layout_sparse_tail(const struct vagx_layout *layout, uint32_t layer,
                             uint64_t *offset_B, uint64_t *size_B);

#ifdef __cplusplus
}
#endif

#endif /* VAGX_LAYOUT_H */
