/* SPDX-License-Identifier: MIT */
/* vagx renderer: the texture lanes (render_tex_lanes.h) for AVX2 hosts,
 * written with intrinsics.  The vectorised C of render_tex_lanes.c makes a
 * pass over all 32 lanes per step (coordinates, each wrap, columns, rows,
 * offsets, bounds, loads, each component, each output), so every
 * intermediate goes through memory.  Here 8 lanes go from coordinates to
 * texel offsets in registers, the texels are loaded into a vector per tap,
 * and each component goes from the texels to the output register in
 * registers.
 *
 * The arithmetic is render_tex_lanes.c's, operation for operation (which is
 * the generic path's): coordinates scaled in double, clamped to +-1e9 with
 * NaN to -1e9, floored; bytes decoded as (float)b / 255.0f; the bilinear
 * blend at 8 bits (render_filter.h), whose integer sums are exact in float.
 * The footprint test, the probe and the texel-by-texel fallback are
 * render_tex_lanes.c's own functions, so faults are met at the same texel.
 * The test tex_fast_sampling compares this path with the generic one bit
 * for bit.
 *
 * Wrap modes whose texel index needs a remainder by a size that is not a
 * power of two are left to render_tex_lanes.c (r_tex2d_lanes_avx2_handles). */
#include <string.h>

#include "render_filter.h"
#include "render_tex_lanes.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* the caller checked usc_simd_level() >= USC_SIMD_AVX2_FMA */
#define AVX2 __attribute__((target("avx2,fma")))

static bool pow2(int size)
{
   return (size & (size - 1)) == 0;
}

bool r_tex2d_lanes_avx2_handles(const struct rtex_lanes *a)
{
   const enum vagx_wrap w[2] = {a->wrap_s, a->wrap_t};
   const int size[2] = {a->width, a->height};
   for (unsigned i = 0; i < 2; i++) {
      if ((w[i] == VAGX_WRAP_REPEAT || w[i] == VAGX_WRAP_MIRRORED_REPEAT) && !pow2(size[i]))
         return false;
   }
   /* the loads' offsets from the footprint's lowest texel are 32-bit */
   return a->fit != R_LANES_NONE;
}

/* floor_sat() of render_tex_lanes.c on 4 doubles: max(x, -1e9) takes -1e9
 * for NaN (MAXPD returns its second operand when one is NaN), then
 * min(1e9, c).  The result is integral, returned as double. */
static inline AVX2 __m256d floor_sat4(__m256d x)
{
   const __m256d c = _mm256_min_pd(_mm256_set1_pd(1e9), _mm256_max_pd(x, _mm256_set1_pd(-1e9)));
   return _mm256_floor_pd(c);
}

static inline AVX2 __m256i to_i32x8(__m256d lo, __m256d hi)
{
   return _mm256_set_m128i(_mm256_cvttpd_epi32(hi), _mm256_cvttpd_epi32(lo));
}

/* render_tex.c's wrap() (the power-of-two forms where it takes a
 * remainder). */
static inline AVX2 __m256i wrap8(__m256i i, int size, enum vagx_wrap w)
{
   const __m256i zero = _mm256_setzero_si256(), last = _mm256_set1_epi32(size - 1);
   switch (w) {
   case VAGX_WRAP_REPEAT:
      return _mm256_and_si256(i, last);
   case VAGX_WRAP_MIRRORED_REPEAT: {
      /* m = i mod 2 size in [0, 2 size); m < size ? m : 2 size - 1 - m */
      const __m256i m = _mm256_and_si256(i, _mm256_set1_epi32(2 * size - 1));
      const __m256i back = _mm256_sub_epi32(_mm256_set1_epi32(2 * size - 1), m);
      return _mm256_min_epi32(m, back);
   }
   case VAGX_WRAP_MIRROR_CLAMP_TO_EDGE: {
      /* i < 0 ? -1 - i : i is i ^ (i >> 31) */
      const __m256i m = _mm256_xor_si256(i, _mm256_srai_epi32(i, 31));
      return _mm256_min_epi32(m, last);
   }
   case VAGX_WRAP_CLAMP_TO_EDGE:
   default:
      return _mm256_min_epi32(_mm256_max_epi32(i, zero), last);
   }
}

/* spread8() of render_tex_lanes.c: the bits of v < 256 at even positions */
static inline AVX2 __m256i spread8x8(__m256i v)
{
   v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 4)), _mm256_set1_epi32(0x0f0f));
   v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 2)), _mm256_set1_epi32(0x3333));
   return _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi32(v, 1)), _mm256_set1_epi32(0x5555));
}

/* The layouts a specialisation of the sampling is built for (lanes_body):
 * the level's own (a->linear read per call), or one known to be linear
 * or twiddled, which drops the test from every group. */
enum layout { LAYOUT_ANY, LAYOUT_LINEAR, LAYOUT_TWIDDLED };

static inline AVX2 bool is_linear(const struct raddr *a, enum layout k)
{
   return k == LAYOUT_ANY ? a->linear : k == LAYOUT_LINEAR;
}

static inline AVX2 __m256i col8(__m256i x, const struct raddr *a, enum layout k)
{
   const __m256i E = _mm256_set1_epi32((int)a->E);
   if (is_linear(a, k))
      return _mm256_mullo_epi32(x, E);
   const __m256i tile = _mm256_srl_epi32(x, _mm_cvtsi32_si128((int)a->tw_log2));
   const __m256i in = spread8x8(_mm256_and_si256(x, _mm256_set1_epi32((int)a->tw_mask)));
   return _mm256_add_epi32(_mm256_mullo_epi32(tile, _mm256_set1_epi32((int)a->tile_B)),
                           _mm256_mullo_epi32(in, E));
}

static inline AVX2 __m256i row8(__m256i y, const struct raddr *a, enum layout k)
{
   const __m256i E = _mm256_set1_epi32((int)a->E), base = _mm256_set1_epi32((int)a->base);
   if (is_linear(a, k))
      return _mm256_add_epi32(base, _mm256_mullo_epi32(y, _mm256_set1_epi32((int)a->row_B)));
   const __m256i tile = _mm256_srl_epi32(y, _mm_cvtsi32_si128((int)a->th_log2));
   const __m256i in = spread8x8(_mm256_and_si256(y, _mm256_set1_epi32((int)a->th_mask)));
   return _mm256_add_epi32(_mm256_add_epi32(base, _mm256_mullo_epi32(tile, _mm256_set1_epi32((int)a->row_B))),
                           _mm256_mullo_epi32(_mm256_slli_epi32(in, 1), E));
}

/* The 4-byte words at p + idx[i] (unsigned) of 8 lanes.  Eight loads, not
 * vpgatherdd: on the AMD EPYC hosts this project is measured on, a replay
 * of effect2d (nearest sampling, one gather per 8 lanes) took 12 % more
 * CPU time with the gather (user time of alternating runs, docs/
 * performance.md step 11); 30 % of the lane path's samples sat on the
 * instruction after it. */
static inline AVX2 __m256i load8(const uint8_t *p, __m256i idx)
{
   const __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
   uint32_t w[8];
   memcpy(&w[0], p + (uint32_t)_mm_cvtsi128_si32(lo), 4);
   memcpy(&w[1], p + (uint32_t)_mm_extract_epi32(lo, 1), 4);
   memcpy(&w[2], p + (uint32_t)_mm_extract_epi32(lo, 2), 4);
   memcpy(&w[3], p + (uint32_t)_mm_extract_epi32(lo, 3), 4);
   memcpy(&w[4], p + (uint32_t)_mm_cvtsi128_si32(hi), 4);
   memcpy(&w[5], p + (uint32_t)_mm_extract_epi32(hi, 1), 4);
   memcpy(&w[6], p + (uint32_t)_mm_extract_epi32(hi, 2), 4);
   memcpy(&w[7], p + (uint32_t)_mm_extract_epi32(hi, 3), 4);
   return _mm256_loadu_si256((const __m256i *)w);
}

/* all-ones in the lanes of the 8-lane group g that exec has */
static inline AVX2 __m256i active8(uint32_t exec, unsigned g)
{
   const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
   const __m256i m = _mm256_and_si256(_mm256_set1_epi32((int)(exec >> 8 * g & 0xff)), bit);
   return _mm256_cmpeq_epi32(m, bit);
}

static inline AVX2 uint32_t hmin_u32(__m256i v)
{
   __m128i m = _mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
   m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
   m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
   return (uint32_t)_mm_cvtsi128_si32(m);
}

static inline AVX2 uint32_t hmax_u32(__m256i v)
{
   __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
   m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
   m = _mm_max_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
   return (uint32_t)_mm_cvtsi128_si32(m);
}

/* unorm_dec of the byte at bit sh[0] of each texel: (float)b / 255.0f.  A
 * multiplication by 1 / 255 differs for 126 of the 256 bytes; corrected by
 * its exact remainder (one Newton step with FMAs) it is the quotient for
 * every byte (test tex_fast_sampling's unorm8 check), without the division's
 * latency, which the gathered texels wait on. */
static inline AVX2 __m256 unorm8(__m256i texel, __m128i sh)
{
   const __m256i b = _mm256_and_si256(_mm256_srl_epi32(texel, sh), _mm256_set1_epi32(0xff));
   const __m256 f = _mm256_cvtepi32_ps(b), inv = _mm256_set1_ps(1.0f / 255.0f);
   const __m256 q = _mm256_mul_ps(f, inv);
   return _mm256_fmadd_ps(_mm256_fnmadd_ps(q, _mm256_set1_ps(255.0f), f), inv, q);
}

/* r_filter8_weight() of 4 fractions: round(f * 256) clamped to [0, 256]
 * (MAXPD takes its second operand, 0, for NaN). */
static inline AVX2 __m128i weight4(__m256d f)
{
   const __m256d s = _mm256_add_pd(_mm256_mul_pd(f, _mm256_set1_pd(256.0)), _mm256_set1_pd(0.5));
   const __m256d c = _mm256_min_pd(_mm256_max_pd(s, _mm256_setzero_pd()), _mm256_set1_pd(256.0));
   return _mm256_cvttpd_epi32(c);
}

/* The byte at bit sh[0] of each texel, as a float (exact). */
static inline AVX2 __m256 byte8(__m256i texel, __m128i sh)
{
   return _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srl_epi32(texel, sh), _mm256_set1_epi32(0xff)));
}

/* r_filter8_bilerp() of 8 lanes: every product and sum is an integer below
 * 2^24, exact in float whatever the order (FMAs included), then the one
 * division, IEEE-rounded as the C path's. */
static inline AVX2 __m256 bilerp8(const __m256i tx[4], __m128i sh, __m256 wx, __m256 wy)
{
   const __m256 c256 = _mm256_set1_ps(256.0f);
   const __m256 gx = _mm256_sub_ps(c256, wx), gy = _mm256_sub_ps(c256, wy);
   const __m256 top = _mm256_fmadd_ps(byte8(tx[1], sh), wx, _mm256_mul_ps(byte8(tx[0], sh), gx));
   const __m256 bot = _mm256_fmadd_ps(byte8(tx[3], sh), wx, _mm256_mul_ps(byte8(tx[2], sh), gx));
   const __m256 sum = _mm256_fmadd_ps(bot, wy, _mm256_mul_ps(top, gy));
   return _mm256_div_ps(sum, _mm256_set1_ps(R_FILTER8_ONE));
}

/* What the second half of r_tex2d_unorm8_lanes_avx2 writes, per output
 * component */
struct tex_out {
   bool constant[4];
   __m256 value[4];   /* the constant */
   __m128i shift[4];  /* the channel's bit offset in the texel */
   uint32_t *out[4];
};

/* The texels of the 32 lanes (loaded from `from` at off - lo, or taken from
 * texel[] when from is NULL), filtered and decoded into o's outputs; the
 * active lanes of exec written.  Inlined with `linear` a constant, so that
 * each filter gets its own loops without a test per component. */
static inline AVX2 __attribute__((always_inline)) void
tex_out_groups(const struct tex_out *o, uint32_t exec, const uint8_t *from, uint32_t lo,
               uint32_t (*off)[32], uint32_t (*texel)[32], const __m256 *wx, const __m256 *wy,
               bool linear)
{
   const unsigned taps = linear ? 4 : 1;
   const __m256i vlo = _mm256_set1_epi32((int)lo);
   for (unsigned g = 0; g < 4; g++) {
      const __m256i on = active8(exec, g);
      const bool full = (exec >> 8 * g & 0xff) == 0xff;
      __m256i tx[4];
      for (unsigned i = 0; i < taps; i++) {
         if (from) {
            /* inactive lanes read the lowest texel: index 0 */
            const __m256i idx = _mm256_and_si256(
               _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)&off[i][8 * g]), vlo), on);
            tx[i] = load8(from, idx);
         } else {
            tx[i] = _mm256_loadu_si256((const __m256i *)&texel[i][8 * g]);
         }
      }
      for (unsigned k = 0; k < 4; k++) {
         __m256 v = o->value[k];
         if (!o->constant[k])
            v = linear ? bilerp8(tx, o->shift[k], wx[g], wy[g]) : unorm8(tx[0], o->shift[k]);
         uint32_t *d = o->out[k] + 8 * g;
         __m256i w = _mm256_castps_si256(v);
         if (!full)
            w = _mm256_blendv_epi8(_mm256_loadu_si256((const __m256i *)d), w, on);
         _mm256_storeu_si256((__m256i *)d, w);
      }
   }
}

/* The sampling, inlined into a copy per filter, wrap modes and layout
 * given as constants (r_tex2d_unorm8_lanes_avx2), so that the common
 * copies carry no test of them in their per-group loops. */
static inline AVX2 __attribute__((always_inline)) bool
lanes_body(const struct rtex_lanes *a, const bool linear, const enum vagx_wrap ws,
           const enum vagx_wrap wt, const enum layout lk)
{
   /* locals: the stores to a->out (uint32_t) could alias a's fields, which
    * would reload and re-broadcast them for every group */
   const int w = a->width, h = a->height;
   const struct raddr ad = *a->addr;
   const uint32_t exec = a->exec;
   const __m256d sx = _mm256_set1_pd(a->unnormalized ? 1.0 : (double)w);
   const __m256d sy = _mm256_set1_pd(a->unnormalized ? 1.0 : (double)h);
   const __m256d half = _mm256_set1_pd(linear ? 0.5 : 0.0);
   const unsigned taps = linear ? 4 : 1;
   const __m256i one = _mm256_set1_epi32(1);
   /* per 8-lane group: texel offsets of each tap (the generic path's tap
    * order (x0, y0), (x1, y0), (x0, y1), (x1, y1)), the bilinear fractions
    * of the 4 lanes of each half */
   uint32_t off[4][32];
   __m256 wx[4], wy[4];
   __m256i vlo = _mm256_set1_epi32(-1), vhi = _mm256_setzero_si256();
   for (unsigned g = 0; g < 4; g++) {
      const __m256 u = _mm256_loadu_ps((const float *)a->u + 8 * g);
      const __m256 t = _mm256_loadu_ps((const float *)a->t + 8 * g);
      const __m256d xl = _mm256_sub_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(u)), sx), half);
      const __m256d xh = _mm256_sub_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(u, 1)), sx), half);
      const __m256d yl = _mm256_sub_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(t)), sy), half);
      const __m256d yh = _mm256_sub_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(t, 1)), sy), half);
      const __m256d fxl = floor_sat4(xl), fxh = floor_sat4(xh);
      const __m256d fyl = floor_sat4(yl), fyh = floor_sat4(yh);
      const __m256i x0 = to_i32x8(fxl, fxh), y0 = to_i32x8(fyl, fyh);
      const __m256i c0 = col8(wrap8(x0, w, ws), &ad, lk);
      const __m256i r0 = row8(wrap8(y0, h, wt), &ad, lk);
      const __m256i on = active8(exec, g);
      __m256i o[4];
      o[0] = _mm256_add_epi32(r0, c0);
      if (linear) {
         wx[g] = _mm256_cvtepi32_ps(_mm256_set_m128i(weight4(_mm256_sub_pd(xh, fxh)),
                                                     weight4(_mm256_sub_pd(xl, fxl))));
         wy[g] = _mm256_cvtepi32_ps(_mm256_set_m128i(weight4(_mm256_sub_pd(yh, fyh)),
                                                     weight4(_mm256_sub_pd(yl, fyl))));
         const __m256i c1 = col8(wrap8(_mm256_add_epi32(x0, one), w, ws), &ad, lk);
         const __m256i r1 = row8(wrap8(_mm256_add_epi32(y0, one), h, wt), &ad, lk);
         o[1] = _mm256_add_epi32(r0, c1);
         o[2] = _mm256_add_epi32(r1, c0);
         o[3] = _mm256_add_epi32(r1, c1);
      }
      for (unsigned i = 0; i < taps; i++) {
         _mm256_storeu_si256((__m256i *)&off[i][8 * g], o[i]);
         vlo = _mm256_min_epu32(vlo, _mm256_or_si256(o[i], _mm256_xor_si256(on, _mm256_set1_epi32(-1))));
         vhi = _mm256_max_epu32(vhi, _mm256_and_si256(o[i], on));
      }
   }
   const uint32_t lo = hmin_u32(vlo), hi = hmax_u32(vhi);
   const uint8_t *base = r_tex_lanes_footprint(a, lo, hi);
   uint32_t texel[4][32];
   if (!base) {
      memset(texel, 0, sizeof(texel)); /* inactive lanes: converted, then not stored */
      if (!r_tex_lanes_fetch_each(a, taps, (const uint32_t (*)[32])off, texel))
         return false;
   }

   /* output component k: the byte of channel swizzle[k] (its shift in
    * the texel), or a constant (ZERO, ONE; other values read as ZERO) */
   struct tex_out o;
   for (unsigned k = 0; k < 4; k++) {
      const unsigned c = a->swizzle[k];
      o.constant[k] = c > VAGX_SWIZZLE_A;
      o.value[k] = _mm256_set1_ps(c == VAGX_SWIZZLE_ONE ? 1.0f : 0.0f);
      o.shift[k] = _mm_cvtsi32_si128((int)(8 * ((c & 1) ? c : c ^ a->swap_rb)));
      o.out[k] = a->out[k];
   }
   const uint8_t *from = base ? base + lo : NULL;
   if (linear)
      tex_out_groups(&o, exec, from, lo, off, texel, wx, wy, true);
   else
      tex_out_groups(&o, exec, from, lo, off, texel, wx, wy, false);
   return true;
}

AVX2 bool r_tex2d_unorm8_lanes_avx2(const struct rtex_lanes *a)
{
   /* what real frames sample (glmark2's scenes, render-target loads):
    * CLAMP_TO_EDGE on both axes of a twiddled level; the rest through
    * the copy that reads the modes */
   const enum vagx_wrap c = VAGX_WRAP_CLAMP_TO_EDGE;
   if (a->wrap_s == c && a->wrap_t == c && !a->addr->linear)
      return a->linear ? lanes_body(a, true, c, c, LAYOUT_TWIDDLED)
                       : lanes_body(a, false, c, c, LAYOUT_TWIDDLED);
   return lanes_body(a, a->linear, a->wrap_s, a->wrap_t, LAYOUT_ANY);
}

#else
/* ISO C wants a declaration in every translation unit */
typedef int r_tex_lanes_avx2_unused;
#endif
