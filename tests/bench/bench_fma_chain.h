/* SPDX-License-Identifier: MIT */
/*
 * The plain-C reference of the benchmarks' ALU kernel (bench_usc,
 * bench_core): x = fmaf(x, 0.999, 0.001) CHAIN times for each of n floats,
 * as a normal program compiles it.  chain_fma() is built with
 * target("fma"), so the compiler inlines the hardware FMA and vectorises
 * over the elements (same results bit for bit); chain_libm() calls libm.
 * chain_have_fma() says whether this CPU can run chain_fma().  Build with
 * -fno-math-errno (vagx_usc_c_args), or gcc keeps a scalar chain 4-8x
 * slower.  Define CHAIN before including.
 */
#ifndef BENCH_FMA_CHAIN_H
#define BENCH_FMA_CHAIN_H

#include <math.h>
#include <stdbool.h>

#define CHAIN_LOOP(in, out, n)                                                 \
   for (int i = 0; i < (n); i++) {                                             \
      float x = (in)[i];                                                       \
      for (int k = 0; k < CHAIN; k++)                                          \
         x = fmaf(x, 0.999f, 0.001f);                                          \
      (out)[i] = x;                                                            \
   }

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_FMA_REF 1
__attribute__((noinline, target("fma"))) static void chain_fma(const float *restrict in,
                                                              float *restrict out, int n)
{
   CHAIN_LOOP(in, out, n)
}
#endif

__attribute__((noinline)) static void chain_libm(const float *restrict in, float *restrict out,
                                                 int n)
{
   CHAIN_LOOP(in, out, n)
}

static inline bool chain_have_fma(void)
{
#ifdef HAVE_FMA_REF
   __builtin_cpu_init();
   return __builtin_cpu_supports("fma");
#else
   return false;
#endif
}

#endif
