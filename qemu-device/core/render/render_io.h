/* SPDX-License-Identifier: MIT */
/*
 * vagx renderer: memory access per span instead of per pixel, for the
 * fixed-function paths that touch images pixel after pixel (end-of-tile
 * stores, depth/stencil load and store, texel fetch).
 *
 * - struct rspan keeps the last translation: `translate` answers with the
 *   number of bytes from va that are contiguous in host memory with the same
 *   rights, so every later access inside that span needs no translation.
 *   A span is only kept within one operation (one tile's store, one texture
 *   instruction): translations must not outlive a safepoint (usc.h).  A miss
 *   translates exactly the access the generic path would make, so faults
 *   (address, access kind, unit) are the generic path's.
 * - struct raddr is vagx_layout_offset_B with everything that depends only on
 *   (level, layer) computed once (unit test: test_render_io compares the two
 *   on random layouts).
 *
 * VAGX_RENDER_OPT_NO_FAST_IO turns all of it off (r_map and
 * vagx_layout_offset_B per access), as the reference for tests.
 */
#ifndef VAGX_RENDER_IO_H
#define VAGX_RENDER_IO_H

#include "render_priv.h"

static inline void r_span_reset(struct rspan *s)
{
   s->va = s->end = 0;
   s->host = NULL;
   s->access = 0;
}

/* Translates [va, va + size) and keeps the span; NULL on failure, recorded
 * as r_map records it.  unit VAGX_UNIT_NONE probes (VAGX_USC_ACC_PROBE):
 * nothing is recorded, for a fast path that falls back to the generic one,
 * which then meets and reports the fault itself. */
uint8_t *r_span_miss(struct rjob *j, unsigned worker, struct rspan *s, uint64_t va, uint32_t size,
                     unsigned access, enum vagx_unit unit);

/* r_map through the span cache.  Only the same access kind hits: a NULL
 * page reads as zeros but is written to a sink, so a read must not reuse a
 * write's translation. */
static inline uint8_t *r_span_map(struct rjob *j, unsigned worker, struct rspan *s, uint64_t va,
                                  uint32_t size, unsigned access, enum vagx_unit unit)
{
   if (access == s->access && va >= s->va && s->end - va >= size && va < s->end)
      return s->host + (va - s->va);
   return r_span_miss(j, worker, s, va, size, access, unit);
}

/* vagx_layout_spread_bits(i) for i < R_SPREAD_N (tiles are at most 256
 * elements wide or high, the sparse layout's 1 B tile: the table covers
 * every twiddled level). */
#define R_SPREAD_N 256
extern const uint16_t r_spread[R_SPREAD_N];

/* Precondition: level < levels_alloc, layer < layers (as vagx_layout_offset_B). */
void r_addr_init(struct raddr *a, const struct vagx_layout *l, unsigned level, unsigned layer);

/* == vagx_layout_offset_B(l, level, layer, x, y) for in-bounds x, y. */
static inline uint64_t r_addr_offset(const struct raddr *a, uint32_t x, uint32_t y)
{
   if (a->linear)
      return a->base + (uint64_t)y * a->row_B + (uint64_t)x * a->E;
   const uint32_t m = a->spread_table
                         ? (uint32_t)r_spread[x & a->tw_mask] | (uint32_t)r_spread[y & a->th_mask] << 1
                         : vagx_layout_morton_el(x & a->tw_mask, y & a->th_mask);
   return a->base + (uint64_t)(y >> a->th_log2) * a->row_B + (uint64_t)(x >> a->tw_log2) * a->tile_B +
          (uint64_t)m * a->E;
}

/* A 32x32 tile-aligned block at (x, y) (both multiples of R_TS) lies in one
 * Morton-ordered run of R_TS * R_TS elements: element (x + lx, y + ly) is at
 * r_addr_offset(x, y) + morton(lx, ly) * E.  True for twiddled levels whose
 * tiles are at least R_TS wide and high. */
static inline bool r_addr_block_contiguous(const struct raddr *a)
{
   return !a->linear && a->tw_mask + 1 >= R_TS && a->th_mask + 1 >= R_TS;
}

/* Morton index of (lx, ly) inside a tile-buffer tile, lx, ly < R_TS. */
static inline uint32_t r_tile_morton(uint32_t lx, uint32_t ly)
{
   return vagx_layout_morton_el(lx, ly);
}

/* One depth/stencil sample to (store) or from memory through r_fmt_unpack /
 * r_fmt_pack only: what zs_io always did (the reference). */
void r_zs_px(enum vagx_format f, uint8_t *p, bool store, bool dl, bool sl, float *depth,
             uint8_t *stencil);

/* A little-endian word of guest memory in host order and back: a no-op on
 * little-endian hosts, so that loops over words vectorise. */
static inline uint32_t r_le32(uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
   return __builtin_bswap32(v);
#else
   return v;
#endif
}

static inline uint32_t r_rd32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void r_wr32(uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
   p[2] = (uint8_t)(v >> 16);
   p[3] = (uint8_t)(v >> 24);
}

/* Depth in [0, 1] of a unorm value of `max` = 2^bits - 1, as r_fmt_unpack
 * computes it ((float)(v / max)), with a multiplication: for max = 2^24 - 1
 * and 2^16 - 1 (the unorm depth formats, the only callers) the two give the
 * same float for every v (test_render_io checks them all), and this runs for
 * every sample a unorm depth buffer loads or tests. */
static inline float r_unorm_depth(uint32_t v, double max)
{
   return (float)((double)v * (1.0 / max));
}
#define R_Z24_MAX 16777215.0
#define R_Z16_MAX 65535.0

/* The depth a depth format holds for z (pack then unpack, as render_tile.c:
 * zq_depth does it through r_fmt_pack/r_fmt_unpack): per fragment sample, so
 * inline for the unorm formats. */
double r_zs_quantize_generic(enum vagx_format f, double z);
static inline double r_zs_quantize(enum vagx_format f, double z)
{
   if (f == VAGX_FORMAT_Z24_UNORM_S8_UINT)
      return r_unorm_depth(r_unorm_enc((float)z, 24), R_Z24_MAX);
   if (f == VAGX_FORMAT_Z16_UNORM)
      return r_unorm_depth(r_unorm_enc((float)z, 16), R_Z16_MAX);
   return r_zs_quantize_generic(f, z);
}

/* The same per format, exactly as r_zs_px (test_render_io compares them),
 * inline: zs_io runs it for every sample of every tile that loads or
 * stores depth. */
static inline void r_zs_load_px(enum vagx_format f, const uint8_t *p, bool dl, bool sl,
                                float *depth, uint8_t *stencil)
{
   switch (f) {
   case VAGX_FORMAT_Z32_FLOAT:
      if (dl)
         *depth = r_f(r_rd32(p));
      return;
   case VAGX_FORMAT_Z24_UNORM_S8_UINT: {
      const uint32_t v = r_rd32(p);
      if (dl)
         *depth = r_unorm_depth(v & 0xffffff, R_Z24_MAX);
      if (sl)
         *stencil = (uint8_t)(v >> 24);
      return;
   }
   case VAGX_FORMAT_Z16_UNORM:
      if (dl)
         *depth = r_unorm_depth((uint32_t)p[0] | (uint32_t)p[1] << 8, R_Z16_MAX);
      return;
   case VAGX_FORMAT_S8_UINT:
      if (sl)
         *stencil = p[0];
      return;
   default:
      r_zs_px(f, (uint8_t *)p, false, dl, sl, depth, stencil);
      return;
   }
}

static inline void r_zs_store_px(enum vagx_format f, uint8_t *p, bool dl, bool sl, float depth,
                                 uint8_t stencil)
{
   switch (f) {
   case VAGX_FORMAT_Z32_FLOAT:
      if (dl)
         r_wr32(p, r_u(depth));
      return;                  /* otherwise the same bytes again */
   case VAGX_FORMAT_Z24_UNORM_S8_UINT:
      if (!dl)
         break;                /* the depth goes through a float: generic */
      r_wr32(p, r_unorm_enc(depth, 24) | (sl ? (uint32_t)stencil : (uint32_t)p[3]) << 24);
      return;
   case VAGX_FORMAT_Z16_UNORM: {
      if (!dl)
         break;
      const uint32_t v = r_unorm_enc(depth, 16);
      p[0] = (uint8_t)v;
      p[1] = (uint8_t)(v >> 8);
      return;
   }
   case VAGX_FORMAT_S8_UINT:
      if (sl)
         p[0] = stencil;
      return;
   default:
      break;
   }
   r_zs_px(f, p, true, dl, sl, &depth, &stencil);
}

#endif
