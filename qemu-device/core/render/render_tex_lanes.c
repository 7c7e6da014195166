/* SPDX-License-Identifier: MIT */
/* vagx renderer: a `tex` instruction's lanes sampled together (see
 * render_tex_lanes.h).  Every step is the generic path's arithmetic
 * (render_tex.c: level_xy, floor_i, wrap, bilerp, unorm_dec), reordered to
 * run over the lanes. */
#include <math.h>

#include "render_tex_lanes.h"
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

/* Byte offsets of columns (with the level's base: rows) of the level. */
static inline __attribute__((always_inline)) void col_offsets(uint64_t *restrict o,
                                                              const int32_t *restrict x,
                                                              const struct raddr *a)
{
   if (a->linear) {
      for (int l = 0; l < L; l++)
         o[l] = (uint64_t)(uint32_t)x[l] * a->E;
   } else if (a->spread_table) {
      for (int l = 0; l < L; l++)
         o[l] = (uint64_t)((uint32_t)x[l] >> a->tw_log2) * a->tile_B +
                (uint64_t)r_spread[(uint32_t)x[l] & a->tw_mask] * a->E;
   } else {
      for (int l = 0; l < L; l++)
         o[l] = (uint64_t)((uint32_t)x[l] >> a->tw_log2) * a->tile_B +
                (uint64_t)vagx_layout_morton_el((uint32_t)x[l] & a->tw_mask, 0) * a->E;
   }
}

static inline __attribute__((always_inline)) void row_offsets(uint64_t *restrict o,
                                                              const int32_t *restrict y,
                                                              const struct raddr *a)
{
   if (a->linear) {
      for (int l = 0; l < L; l++)
         o[l] = a->base + (uint64_t)(uint32_t)y[l] * a->row_B;
   } else if (a->spread_table) {
      for (int l = 0; l < L; l++)
         o[l] = a->base + (uint64_t)((uint32_t)y[l] >> a->th_log2) * a->row_B +
                ((uint64_t)r_spread[(uint32_t)y[l] & a->th_mask] << 1) * a->E;
   } else {
      for (int l = 0; l < L; l++)
         o[l] = a->base + (uint64_t)((uint32_t)y[l] >> a->th_log2) * a->row_B +
                (uint64_t)vagx_layout_morton_el(0, (uint32_t)y[l] & a->th_mask) * a->E;
   }
}

/* The 4-byte texels at va + off[tap][lane] of the active lanes into
 * texel[tap][lane]: lane by lane, taps in order (the generic path's order,
 * so the same texel faults first), unless one span covers them all. */
static inline __attribute__((always_inline)) bool
fetch(const struct rtex_lanes *a, unsigned taps, uint64_t (*off)[L], uint32_t (*texel)[L])
{
   uint64_t lo = UINT64_MAX, hi = 0;
   for (unsigned i = 0; i < taps; i++)
      for (int l = 0; l < L; l++) {
         const bool on = a->exec >> l & 1;
         lo = on && off[i][l] < lo ? off[i][l] : lo;
         hi = on && off[i][l] > hi ? off[i][l] : hi;
      }
   struct rspan *s = a->span;
   const uint64_t va = a->va + lo, size = hi - lo + 4;
   const bool covered =
      (s->access == VAGX_USC_ACC_READ && va >= s->va && va < s->end && s->end - va >= size) ||
      (size <= UINT32_MAX && r_span_map(a->j, a->worker, s, va, (uint32_t)size, VAGX_USC_ACC_READ,
                                        VAGX_UNIT_NONE));
   if (covered) {
      /* inactive lanes read the lowest texel (inside the span), so that the
       * loads need no branch per lane */
      const uint8_t *h = s->host + (a->va - s->va);
      for (unsigned i = 0; i < taps; i++)
         for (int l = 0; l < L; l++) {
            const uint64_t o = a->exec >> l & 1 ? off[i][l] : lo;
            memcpy(&texel[i][l], h + o, 4);
         }
      return true;
   }
   for (uint32_t m = a->exec; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      for (unsigned i = 0; i < taps; i++) {
         const uint8_t *p = r_span_map(a->j, a->worker, s, a->va + off[i][l], 4, VAGX_USC_ACC_READ,
                                       VAGX_UNIT_TEX);
         if (!p)
            return false;
         memcpy(&texel[i][l], p, 4);
      }
   }
   return true;
}

static inline __attribute__((always_inline)) bool lanes(const struct rtex_lanes *a)
{
   const int w = a->width, h = a->height;
   const double sx = a->unnormalized ? 1.0 : (double)w, sy = a->unnormalized ? 1.0 : (double)h;
   const double half = a->linear ? 0.5 : 0.0;
   int32_t x0[L], y0[L], xs[2][L], ys[2][L];
   double fx[L], fy[L];
   for (int l = 0; l < L; l++) {
      float u, t;
      memcpy(&u, &a->u[l], 4);
      memcpy(&t, &a->t[l], 4);
      const double x = (double)u * sx - half, y = (double)t * sy - half;
      x0[l] = floor_sat(x);
      y0[l] = floor_sat(y);
      fx[l] = x - x0[l];
      fy[l] = y - y0[l];
   }
   wrap_lanes(xs[0], x0, w, a->wrap_s);
   wrap_lanes(ys[0], y0, h, a->wrap_t);
   uint64_t ox[2][L], oy[2][L], off[4][L];
   uint32_t texel[4][L];
   col_offsets(ox[0], xs[0], a->addr);
   row_offsets(oy[0], ys[0], a->addr);
   unsigned taps = 1;
   if (a->linear) {
      for (int l = 0; l < L; l++) {
         x0[l] += 1;
         y0[l] += 1;
      }
      wrap_lanes(xs[1], x0, w, a->wrap_s);
      wrap_lanes(ys[1], y0, h, a->wrap_t);
      col_offsets(ox[1], xs[1], a->addr);
      row_offsets(oy[1], ys[1], a->addr);
      taps = 4;
   }
   /* taps in the generic path's order: (x0, y0), (x1, y0), (x0, y1), (x1, y1) */
   for (unsigned i = 0; i < taps; i++)
      for (int l = 0; l < L; l++)
         off[i][l] = oy[i >> 1][l] + ox[i & 1][l];
   if (!fetch(a, taps, off, texel))
      return false;

   /* unorm_dec of each byte ((float)(b / 255.0) == (float)b / 255.0f for
    * all 256), blended as bilerp() does, in double */
   uint32_t ch[6][L];
   for (unsigned k = 0; k < 4; k++) {
      const unsigned sh = 8 * ((k & 1) ? k : k ^ a->swap_rb);
      if (a->linear) {
         for (int l = 0; l < L; l++) {
            const float q0 = (float)(texel[0][l] >> sh & 0xff) / 255.0f;
            const float q1 = (float)(texel[1][l] >> sh & 0xff) / 255.0f;
            const float q2 = (float)(texel[2][l] >> sh & 0xff) / 255.0f;
            const float q3 = (float)(texel[3][l] >> sh & 0xff) / 255.0f;
            const float r = (float)((q0 * (1 - fx[l]) + q1 * fx[l]) * (1 - fy[l]) +
                                    (q2 * (1 - fx[l]) + q3 * fx[l]) * fy[l]);
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
      ch[VAGX_SWIZZLE_ONE][l] = 0x3f800000; /* 1.0f */
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

bool r_tex2d_unorm8_lanes(const struct rtex_lanes *a)
{
   if (!a->exec)
      return true;   /* no footprint to probe */
#ifdef HAVE_AVX2_COPY
   if (usc_simd_level() >= USC_SIMD_AVX2_FMA)
      return lanes_avx2(a);
#endif
   return lanes_base(a);
}
