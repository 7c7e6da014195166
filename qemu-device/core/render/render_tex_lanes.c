/* SPDX-License-Identifier: MIT */
/* vagx renderer: a `tex` instruction's lanes sampled together (see
 * render_tex_lanes.h).  Every step is the generic path's arithmetic
 * (render_tex.c: level_xy, floor_i, wrap, bilerp, unorm_dec), reordered to
 * run over the lanes. */
#include <math.h>

#include "render_filter.h"
#include "render_tex_lanes.h"
#include "usc_float.h"
#include "usc_simd.h"

#define L 32

/* floor_i() of render_tex.c without branches: wild values saturate the same
 * way (NaN and <= -1e9 to -1e9, > 1e9 to 1e9). */
static inline __attribute__((always_inline)) int floor_sat(double x)
{
   double c = x > -1e9 ? x : -1e9;
   c = c > 1e9 ? 1e9 : c;
   return (int)floor(c);
}

/* render_tex.c's wrap() for every lane, the mode chosen once. */
static inline __attribute__((always_inline)) void wrap_lanes(int32_t *restrict o,
                                                             const int32_t *restrict i, int size,
                                                             enum vagx_wrap w)
{
   switch (w) {
   case VAGX_WRAP_REPEAT:
      if ((size & (size - 1)) == 0) {
         /* two's complement: i & (size - 1) is the non-negative remainder */
         for (int l = 0; l < L; l++)
            o[l] = i[l] & (size - 1);
      } else {
         for (int l = 0; l < L; l++) {
            const int m = i[l] % size;
            o[l] = m < 0 ? m + size : m;
         }
      }
      break;
   case VAGX_WRAP_MIRRORED_REPEAT:
      for (int l = 0; l < L; l++) {
         const int p = 2 * size;
         int m = i[l] % p;
         if (m < 0)
            m += p;
         o[l] = m < size ? m : p - 1 - m;
      }
      break;
   case VAGX_WRAP_MIRROR_CLAMP_TO_EDGE:
      for (int l = 0; l < L; l++) {
         const int m = i[l] < 0 ? -1 - i[l] : i[l];
         o[l] = m >= size ? size - 1 : m;
      }
      break;
   case VAGX_WRAP_CLAMP_TO_EDGE:
   default:
      for (int l = 0; l < L; l++)
         o[l] = i[l] < 0 ? 0 : i[l] >= size ? size - 1 : i[l];
      break;
   }
}

/* r_spread[v] for v < 256 (the bits of v at the even positions) by
 * arithmetic: vectorises, where the table is a load per lane. */
static inline __attribute__((always_inline)) uint32_t spread8(uint32_t v)
{
   v = (v | v << 4) & 0x0f0fu;
   v = (v | v << 2) & 0x3333u;
   return (v | v << 1) & 0x5555u;
}

/* Byte offsets of columns and (with the level's base) rows of the level, in
 * 32 bits (r_tex2d_lanes_fit): each term is at most the level's last
 * offset, so nothing wraps, and the loops are 8 lanes a vector. */
static inline __attribute__((always_inline)) void col_offsets(uint32_t *restrict o,
                                                              const int32_t *restrict x,
                                                              const struct raddr *a)
{
   const uint32_t E = a->E, tile_B = (uint32_t)a->tile_B;
   if (a->linear) {
      for (int l = 0; l < L; l++)
         o[l] = (uint32_t)x[l] * E;
   } else {
      for (int l = 0; l < L; l++)
         o[l] = ((uint32_t)x[l] >> a->tw_log2) * tile_B +
                spread8((uint32_t)x[l] & a->tw_mask) * E;
   }
}

static inline __attribute__((always_inline)) void row_offsets(uint32_t *restrict o,
                                                              const int32_t *restrict y,
                                                              const struct raddr *a)
{
   const uint32_t E = a->E, base = (uint32_t)a->base, row_B = (uint32_t)a->row_B;
   if (a->linear) {
      for (int l = 0; l < L; l++)
         o[l] = base + (uint32_t)y[l] * row_B;
   } else {
      for (int l = 0; l < L; l++)
         o[l] = base + ((uint32_t)y[l] >> a->th_log2) * row_B +
                (spread8((uint32_t)y[l] & a->th_mask) << 1) * E;
   }
}

static inline __attribute__((always_inline)) bool span_covers(const struct rspan *s, uint64_t va,
                                                               uint64_t size)
{
   return s->access == VAGX_USC_ACC_READ && va >= s->va && va < s->end && s->end - va >= size;
}

static inline __attribute__((always_inline)) void swap_spans(struct rspan *a, struct rspan *b)
{
   const struct rspan t = *a;
   *a = *b;
   *b = t;
}

/* The footprint [lo, hi + 4) of an instruction's texels (offsets from
 * a->va) in host memory, through the two spans; NULL when it is not
 * contiguous there or faults (nothing is recorded: r_tex_lanes_fetch_each
 * then meets the generic path's fault). */
const uint8_t *r_tex_lanes_footprint(const struct rtex_lanes *a, uint32_t lo, uint32_t hi)
{
   struct rspan *s = a->span, *s2 = a->span2;
   const uint64_t va = a->va + lo, size = (uint64_t)hi - lo + 4;
   if (span_covers(s, va, size))
      return s->host + (a->va - s->va);
   if (span_covers(s2, va, size))
      return s2->host + (a->va - s2->va);
   /* A probe into the older span, from the start of the footprint's page:
    * a span from the footprint's lowest texel would miss for the next
    * block's footprint a row above it. */
   const uint64_t pva = va & ~(uint64_t)(VAGX_PAGE_SIZE - 1);
   swap_spans(s, s2);
   if (r_span_map(a->j, a->worker, s, pva, (uint32_t)(va + size - pva), VAGX_USC_ACC_READ,
                  VAGX_UNIT_NONE))
      return s->host + (a->va - s->va);
   return NULL;
}

/* The footprint's pages are not contiguous in host memory (or one faults):
 * texel by texel through both spans, the older one replaced on a miss, so
 * that lanes alternating between two pages do not translate at every texel;
 * lane by lane, taps in order (the generic path's order), so the first
 * fault is the generic path's. */
bool r_tex_lanes_fetch_each(const struct rtex_lanes *a, unsigned taps, const uint32_t (*off)[32],
                            uint32_t (*texel)[32])
{
   struct rspan *s = a->span, *s2 = a->span2;
   for (uint32_t m = a->exec; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      for (unsigned i = 0; i < taps; i++) {
         const uint64_t tva = a->va + off[i][l];
         const uint8_t *p;
         if (span_covers(s2, tva, 4)) {
            p = s2->host + (tva - s2->va);
         } else {
            if (!span_covers(s, tva, 4))
               swap_spans(s, s2);
            p = r_span_map(a->j, a->worker, s, tva, 4, VAGX_USC_ACC_READ, VAGX_UNIT_TEX);
         }
         if (!p)
            return false;
         memcpy(&texel[i][l], p, 4);
      }
   }
   return true;
}

/* The 4-byte texels at va + off[tap][lane] of the active lanes into
 * texel[tap][lane]: all at once when one span covers the footprint (its
 * bounds by unsigned min/max, inactive lanes as the neutral element; they
 * then read the lowest texel, so the loads need no branch), else one by
 * one in the generic path's order. */
static inline __attribute__((always_inline)) bool
fetch(const struct rtex_lanes *a, unsigned taps, uint32_t (*off)[L], uint32_t (*texel)[L])
{
   uint32_t on[L];
   for (int l = 0; l < L; l++)
      on[l] = 0u - (a->exec >> l & 1);
   uint32_t lo = UINT32_MAX, hi = 0;
   for (unsigned i = 0; i < taps; i++)
      for (int l = 0; l < L; l++) {
         const uint32_t vl = off[i][l] | ~on[l], vh = off[i][l] & on[l];
         lo = vl < lo ? vl : lo;
         hi = vh > hi ? vh : hi;
      }
   const uint8_t *h = r_tex_lanes_footprint(a, lo, hi);
   if (!h)
      return r_tex_lanes_fetch_each(a, taps, (const uint32_t (*)[L])off, texel);
   for (unsigned i = 0; i < taps; i++)
      for (int l = 0; l < L; l++) {
         const uint32_t o = (off[i][l] & on[l]) | (lo & ~on[l]);
         memcpy(&texel[i][l], h + o, 4);
      }
   return true;
}

static inline __attribute__((always_inline)) bool lanes(const struct rtex_lanes *a)
{
   const int w = a->width, h = a->height;
   const double sx = a->unnormalized ? 1.0 : (double)w, sy = a->unnormalized ? 1.0 : (double)h;
   const double half = a->linear ? 0.5 : 0.0;
   int32_t x0[L], y0[L], xs[2][L], ys[2][L];
   uint32_t wx[L], wy[L];
   for (int l = 0; l < L; l++) {
      float u, t;
      memcpy(&u, &a->u[l], 4);
      memcpy(&t, &a->t[l], 4);
      const double x = (double)u * sx - half, y = (double)t * sy - half;
      x0[l] = floor_sat(x);
      y0[l] = floor_sat(y);
      wx[l] = (uint32_t)r_filter8_weight(x - x0[l]);
      wy[l] = (uint32_t)r_filter8_weight(y - y0[l]);
   }
   wrap_lanes(xs[0], x0, w, a->wrap_s);
   wrap_lanes(ys[0], y0, h, a->wrap_t);
   unsigned taps = 1;
   if (a->linear) {
      for (int l = 0; l < L; l++) {
         x0[l] += 1;
         y0[l] += 1;
      }
      wrap_lanes(xs[1], x0, w, a->wrap_s);
      wrap_lanes(ys[1], y0, h, a->wrap_t);
      taps = 4;
   }
   /* taps in the generic path's order: (x0, y0), (x1, y0), (x0, y1), (x1, y1) */
   const struct raddr *ad = a->addr;
   uint32_t ox[2][L], oy[2][L], off[4][L], texel[4][L];
   for (unsigned k = 0; k < (taps > 1 ? 2u : 1u); k++) {
      col_offsets(ox[k], xs[k], ad);
      row_offsets(oy[k], ys[k], ad);
   }
   for (unsigned i = 0; i < taps; i++)
      for (int l = 0; l < L; l++)
         off[i][l] = oy[i >> 1][l] + ox[i & 1][l];
   if (!fetch(a, taps, off, texel))
      return false;

   /* unorm_dec of each byte ((float)(b / 255.0) == (float)b / 255.0f for
    * all 256), or the bytes blended at 8 bits (render_filter.h) */
   uint32_t ch[6][L];
   for (unsigned k = 0; k < 4; k++) {
      const unsigned sh = 8 * ((k & 1) ? k : k ^ a->swap_rb);
      if (a->linear) {
         for (int l = 0; l < L; l++) {
            const float r = r_filter8_bilerp(texel[0][l] >> sh & 0xff, texel[1][l] >> sh & 0xff,
                                             texel[2][l] >> sh & 0xff, texel[3][l] >> sh & 0xff,
                                             wx[l], wy[l]);
            memcpy(&ch[k][l], &r, 4);
         }
      } else {
         for (int l = 0; l < L; l++) {
            const float r = (float)(texel[0][l] >> sh & 0xff) / 255.0f;
            memcpy(&ch[k][l], &r, 4);
         }
      }
   }
   for (int l = 0; l < L; l++) {
      ch[VAGX_SWIZZLE_ZERO][l] = 0;
      ch[VAGX_SWIZZLE_ONE][l] = usc_u(1.0f);
   }
   /* the active lanes as all-ones: a select gcc vectorises (a conditional
    * store per lane it does not) */
   uint32_t on[L];
   for (int l = 0; l < L; l++)
      on[l] = 0u - (a->exec >> l & 1);
   for (unsigned k = 0; k < 4; k++) {
      const unsigned sw = a->swizzle[k] <= VAGX_SWIZZLE_ONE ? a->swizzle[k] : VAGX_SWIZZLE_ZERO;
      uint32_t *restrict o = a->out[k];
      const uint32_t *restrict v = ch[sw];
      for (int l = 0; l < L; l++)
         o[l] = (v[l] & on[l]) | (o[l] & ~on[l]);
   }
   return true;
}

static bool lanes_base(const struct rtex_lanes *a)
{
   return lanes(a);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
/* The same code for AVX2 hosts (4 doubles, 8 floats per instruction; floor
 * as one rounding instruction).  No FMA: -ffp-contract=off keeps the
 * roundings the generic path has. */
__attribute__((target("avx2"))) static bool lanes_avx2(const struct rtex_lanes *a)
{
   return lanes(a);
}
#define HAVE_AVX2_COPY 1
#endif

enum r_lanes_fit r_tex2d_lanes_fit(const struct raddr *a, int width, int height)
{
   if (!a->linear && !a->spread_table)
      return R_LANES_NONE;
   /* offsets grow with x and with y: the last texel's is the largest */
   const uint64_t last = r_addr_offset(a, (uint32_t)width - 1, (uint32_t)height - 1);
   return last < UINT32_MAX - 4 ? R_LANES_OFF32 : R_LANES_NONE;
}

bool r_tex2d_unorm8_lanes(const struct rtex_lanes *a)
{
   if (!a->exec)
      return true;   /* no footprint to probe */
#ifdef HAVE_AVX2_COPY
   if (usc_simd_level() >= USC_SIMD_AVX2_FMA)
      return r_tex2d_lanes_avx2_handles(a) ? r_tex2d_unorm8_lanes_avx2(a) : lanes_avx2(a);
#endif
   return lanes_base(a);
}
