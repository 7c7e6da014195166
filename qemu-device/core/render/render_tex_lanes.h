/* SPDX-License-Identifier: MIT */
/* vagx renderer: one `tex` instruction's 32 lanes sampled together, for the
 * common case of real frames: a 2D RGBA8 / BGRA8 UNORM level, nearest or
 * bilinear, wrap modes without a border colour.
 *
 * render_tex.c samples lane by lane through generic paths (a function call,
 * the wrap mode's switch, the addressing and a table decode per texel, a
 * bilinear blend per lane).  Here each step runs over all lanes as a loop
 * the compiler vectorises (an AVX2 copy is chosen at run time, as the USC's
 * ALU does): coordinates, wraps, addresses, the blend.  Texels are read
 * lane by lane in the generic path's order, so a fault is met at the same
 * texel; when every texel of the instruction lies in one translated span
 * (the usual case: a texture is one contiguous BO), no access is checked on
 * its own.  The results are the generic path's bit for bit (test
 * tex_fast_sampling compares them on random layouts, coordinates and
 * modes). */
#ifndef VAGX_RENDER_TEX_LANES_H
#define VAGX_RENDER_TEX_LANES_H

#include "render_io.h"

/* Whether the lanes can address the level: R_LANES_OFF32 when it is linear
 * or twiddled with tiles of at most R_SPREAD_N elements a side and every
 * byte offset is below 2^32 (a 2D RGBA8 level always is); R_LANES_NONE
 * otherwise.  Kept per descriptor (rdesc_tex.base_fit). */
enum r_lanes_fit { R_LANES_NONE, R_LANES_OFF32 };

struct rtex_lanes {
   struct rjob *j;
   unsigned worker;
   struct rspan *span, *span2; /* the last two translations (render_io.h), newest first */
   const struct raddr *addr;   /* addressing of the sampled (level, layer) */
   uint64_t va;                /* texture base address */
   int width, height;          /* of the level */
   enum vagx_wrap wrap_s, wrap_t; /* not CLAMP_TO_BORDER */
   bool unnormalized, linear;
   unsigned swap_rb;           /* BGRA8: 2, RGBA8: 0 */
   enum vagx_swizzle swizzle[4];
   enum r_lanes_fit fit;       /* r_tex2d_lanes_fit(addr, width, height), not NONE */
   uint32_t exec;              /* lanes to sample */
   const uint32_t *u, *t;      /* coordinate registers (float bits, 32 lanes) */
   uint32_t (*out)[32];        /* out[component][lane], active lanes written */
};

enum r_lanes_fit r_tex2d_lanes_fit(const struct raddr *a, int width, int height);

/* Samples every lane of a->exec (r_tex2d_lanes_fit holds); false on a fault
 * (recorded by r_span_map for VAGX_UNIT_TEX, at the texel the generic path
 * meets first). */
bool r_tex2d_unorm8_lanes(const struct rtex_lanes *a);

/* Internal to the lane paths (render_tex_lanes.c, render_tex_lanes_avx2.c). */
/* The host bytes of the texels at offsets [lo, hi + 4) from a->va when one
 * span holds them all (probing once), else NULL; records nothing. */
const uint8_t *r_tex_lanes_footprint(const struct rtex_lanes *a, uint32_t lo, uint32_t hi);
/* The active lanes' texels at a->va + off[tap][lane], one by one in the
 * generic path's order; false on its first fault (recorded). */
bool r_tex_lanes_fetch_each(const struct rtex_lanes *a, unsigned taps, const uint32_t (*off)[32],
                            uint32_t (*texel)[32]);
/* AVX2 intrinsics (x86-64 only): whether they handle a's wraps and size,
 * and the sampling itself. */
bool r_tex2d_lanes_avx2_handles(const struct rtex_lanes *a);
bool r_tex2d_unorm8_lanes_avx2(const struct rtex_lanes *a);

#endif
