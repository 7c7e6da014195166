/* Bit-exact float helpers for the USC: NaN canonicalisation, fused multiply-add
 * without a hardware FMA, IEEE minNum/maxNum and f16 conversions.  All are
 * branch-light so the 32-lane loops vectorise. */
#ifndef VAGX_USC_FLOAT_H
#define VAGX_USC_FLOAT_H

#include <math.h>
#include <stdint.h>

#define USC_QNAN 0x7fc00000u

/* The bits of one type as another of the same size: usc_f/usc_u between
 * uint32_t and float, usc_d/usc_ud between uint64_t and double. */
#define USC_BITCAST(name, from_t, to_t)                                    \
   static inline to_t name(from_t v)                                       \
   {                                                                       \
      union { from_t from; to_t to; } x = { v };                           \
      return x.to;                                                         \
   }
USC_BITCAST(usc_f, uint32_t, float)
USC_BITCAST(usc_u, float, uint32_t)
USC_BITCAST(usc_d, uint64_t, double)
USC_BITCAST(usc_ud, double, uint64_t)
#undef USC_BITCAST

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

/* fexp2 and flog2 (isa.md: within 2 ulp of the exact result).  The device
 * computes them itself rather than with the host's libm, whose results vary
 * between C libraries and which is called lane by lane: in double, with
 * IEEE operations only (no FMA, -ffp-contract=off), so the interpreter, its
 * AVX2 copy and the JIT's helper (usc_jit.c) give the same bits on every
 * host.  Both are within 1 ulp of the correctly rounded result for every
 * float (checked exhaustively against double-precision libm when written;
 * test_usc_transcend checks a sample), exact at powers of two. */

/* 2^x for x in [-160, 160] as a double (relative error < 1e-10):
 * 2^x = 2^n 2^r, n = rint(x) by the magic addition, whose low mantissa bits
 * are then n; 2^r = e^(r ln 2), |r| <= 1/2, by its Taylor series to degree 9.
 * The polynomial is evaluated in Estrin's scheme: independent pairs joined
 * by powers of r, 5 dependent steps instead of Horner's 10 (the rounding
 * differences are ~1e-16, far below the float result's half ulp). */
static inline __attribute__((always_inline)) double usc_exp2_d(double x)
{
   const double t = x + 0x1.8p52, n = t - 0x1.8p52, r = x - n;
   const double scale = usc_d((usc_ud(t) + 1023) << 52);
   const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
   const double p01 = 1.0 + 0x1.62e42fefa39efp-1 * r;                  /* 1, ln2 */
   const double p23 = 0x1.ebfbdff82c58fp-3 + 0x1.c6b08d704a0c0p-5 * r;
   const double p45 = 0x1.3b2ab6fba4e77p-7 + 0x1.5d87fe78a6731p-10 * r;
   const double p67 = 0x1.430912f86c787p-13 + 0x1.ffcbfc588b0c7p-17 * r;
   const double p89 = 0x1.62c0223a5c824p-20 + 0x1.b5253d395e7c4p-24 * r; /* ln2^9 / 9! */
   const double p = (p01 + r2 * p23) + r4 * (p45 + r2 * p67) + r8 * p89;
   return p * scale;
}

/* log2(x) for finite x > 0 as a double (relative error < 1e-10): x = 2^e m
 * with m in [sqrt(1/2), sqrt(2)) (denormals scaled by 2^64 first), and
 * log2(m) = 2/ln2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.172, by its series
 * to s^13.  Any other x gives a finite value that the caller replaces. */
static inline __attribute__((always_inline)) double usc_log2_d(double x)
{
   const int tiny = x < 0x1p-126;
   const uint64_t b = usc_ud(tiny ? x * 0x1p64 : x);
   const double m0 = usc_d((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
   const int big = m0 > 0x1.6a09e667f3bcdp+0;   /* sqrt(2) */
   const double m = big ? m0 * 0.5 : m0;
   /* the exponent field as a double, exactly (it is below 2^52) */
   const double ef = usc_d(0x4330000000000000ull | (b >> 52 & 0x7ff)) - 0x1p52;
   const double e = ef - (tiny ? 1023.0 + 64.0 : 1023.0) + (big ? 1.0 : 0.0);
   const double s = (m - 1.0) / (m + 1.0), s2 = s * s, s4 = s2 * s2;
   /* Estrin's scheme, as usc_exp2_d */
   const double p = ((1.0 + s2 * (1.0 / 3)) + s4 * (1.0 / 5 + s2 * (1.0 / 7))) +
                    (s4 * s4) * ((1.0 / 9 + s2 * (1.0 / 11)) + s4 * (1.0 / 13));
   return e + p * s * 0x1.71547652b82fep+1;   /* 2/ln2 */
}

/* r[l] = fexp2(a[l]) / flog2(a[l]) for l < n (n <= 32), NaNs canonical.
 * Three loops (to double, the function, back to float) because gcc 12
 * vectorises each of them and not their fusion. */
static inline __attribute__((always_inline)) void usc_exp2_lanes(uint32_t *r, const uint32_t *a, unsigned n)
{
   double x[32];
   for (unsigned l = 0; l < n; l++) {
      const double v = usc_f(a[l]);
      /* clamped so that 2^n stays a normal double; a NaN lane computes 0 */
      x[l] = v > -160.0 ? (v < 160.0 ? v : 160.0) : -160.0;
   }
   for (unsigned l = 0; l < n; l++)
      x[l] = usc_exp2_d(x[l]);
   for (unsigned l = 0; l < n; l++) {
      const float v = usc_f(a[l]);
      r[l] = v == v ? usc_u((float)x[l]) : USC_QNAN;
   }
}

static inline __attribute__((always_inline)) void usc_log2_lanes(uint32_t *r, const uint32_t *a, unsigned n)
{
   double x[32];
   for (unsigned l = 0; l < n; l++)
      x[l] = usc_f(a[l]);
   for (unsigned l = 0; l < n; l++)
      x[l] = usc_log2_d(x[l]);
   for (unsigned l = 0; l < n; l++) {
      const float v = usc_f(a[l]);
      /* log2(+inf) = +inf, log2(+-0) = -inf, negative and NaN: NaN */
      const uint32_t special = v == INFINITY ? a[l] : v == 0.0f ? usc_u(-INFINITY) : USC_QNAN;
      r[l] = v > 0.0f && v < INFINITY ? usc_u((float)x[l]) : special;
   }
}

#endif
