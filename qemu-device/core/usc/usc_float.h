/* Bit-exact float helpers for the USC: NaN canonicalisation, fused multiply-add
 * without a hardware FMA, IEEE minNum/maxNum and f16 conversions.  All are
 * branch-light so the 32-lane loops vectorise. */
#ifndef VAGX_USC_FLOAT_H
#define VAGX_USC_FLOAT_H

#include <math.h>
#include <stdint.h>

#define USC_QNAN 0x7fc00000u

static inline float usc_f(uint32_t u)
{
   union { uint32_t u; float f; } x = { u };
   return x.f;
}

static inline uint32_t usc_u(float f)
{
   union { float f; uint32_t u; } x = { f };
   return x.u;
}

static inline double usc_d(uint64_t u)
{
   union { uint64_t u; double d; } x = { u };
   return x.d;
}

static inline uint64_t usc_ud(double d)
{
   union { double d; uint64_t u; } x = { d };
   return x.u;
}

/* Result bits with any NaN replaced by the canonical quiet NaN. */
static inline uint32_t usc_canon(float f)
{
   return f != f ? USC_QNAN : usc_u(f);
}

/* Saturate: [0, 1], NaN and -0 to +0. */
static inline uint32_t usc_sat(uint32_t u)
{
   float f = usc_f(u);
   return f > 0.0f ? (f < 1.0f ? u : usc_u(1.0f)) : 0u;
}

/* a*b+c with a single rounding.  The product is exact in double; the sum is
 * rounded to odd in double (53 >= 2*24+2 bits), so the final rounding to float is
 * the correctly rounded fused result. */
static inline float usc_fma(float a, float b, float c)
{
#if defined(__FMA__) || defined(__FP_FAST_FMAF)
   return __builtin_fmaf(a, b, c);
#else
   double p = (double)a * (double)b;
   double cd = c;
   double s = p + cd;
   double bb = s - p;
   double e = (p - (s - bb)) + (cd - bb);
   uint64_t si = usc_ud(s);
   /* Only finite, inexact sums with an even last bit move to the odd neighbour
    * toward the exact value. */
   int adjust = (e != 0.0) & ((si & 1) == 0) & ((si & 0x7ff0000000000000ull) != 0x7ff0000000000000ull);
   int up = (e > 0.0) == (s > 0.0);
   si += adjust ? (up ? 1 : (uint64_t)-1) : 0;
   return (float)usc_d(si);
#endif
}

/* IEEE-754-2008 minNum/maxNum, -0 < +0. */
static inline float usc_fmin(float x, float y)
{
   if (x != x)
      return y;
   if (y != y)
      return x;
   if (x == y)
      return signbit(x) ? x : y;
   return x < y ? x : y;
}

static inline float usc_fmax(float x, float y)
{
   if (x != x)
      return y;
   if (y != y)
      return x;
   if (x == y)
      return signbit(x) ? y : x;
   return x > y ? x : y;
}

/* f32 -> f16 bits, round to nearest even; NaN -> 0x7e00. */
static inline uint32_t usc_f32_to_f16(uint32_t u)
{
   uint32_t sign = (u >> 16) & 0x8000u;
   uint32_t a = u & 0x7fffffffu;
   if (a > 0x7f800000u)
      return 0x7e00u;
   if (a >= 0x477ff000u) /* >= 65520 rounds to infinity */
      return sign | 0x7c00u;
   if (a < 0x38800000u) { /* below 2^-14: f16 subnormal or zero */
      if (a <= 0x33000000u) /* <= 2^-25: ties to even 0 */
         return sign;
      uint32_t m = (a & 0x7fffffu) | 0x800000u;
      unsigned sh = 126u - (a >> 23);
      uint32_t q = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
      q += (rem > half || (rem == half && (q & 1))) ? 1 : 0;
      return sign | q;
   }
   uint32_t r = (a - 0x38000000u) >> 13, rem = a & 0x1fffu;
   r += (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ? 1 : 0;
   return sign | r;
}

/* f16 bits (15:0) -> f32 bits, exact; NaN canonical. */
static inline uint32_t usc_f16_to_f32(uint32_t h)
{
   uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
   if (e == 0x1f)
      return m ? USC_QNAN : (sign | 0x7f800000u);
   if (e == 0) {
      if (!m)
         return sign;
      e = 113;
      while (!(m & 0x400)) {
         m <<= 1;
         e--;
      }
      return sign | (e << 23) | ((m & 0x3ff) << 13);
   }
   return sign | ((e + 112) << 23) | (m << 13);
}

#endif
