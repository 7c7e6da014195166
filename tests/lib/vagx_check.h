/* SPDX-License-Identifier: MIT */
/*
 * The host tests' one check macro.  CHECK(cond, fmt, ...) counts every
 * check and prints the first T_MAX_PRINTED failures with file, line and the
 * condition: a broken fast path can fail millions of random checks, and the
 * count still tells how many.  t_report() prints the tally and gives the
 * exit status.  Plain C11 (and C++).
 */
#ifndef VAGX_CHECK_H
#define VAGX_CHECK_H

#include <stdio.h>

#define T_MAX_PRINTED 50

#if defined(__GNUC__)
#define T_UNUSED __attribute__((unused))
#else
#define T_UNUSED
#endif

#ifdef VAGX_CHECK_SHARED
/* A test program of several files counts in one pair: each file defines
 * VAGX_CHECK_SHARED, and one of them defines `int t_checks, t_failures;`. */
extern int t_checks, t_failures;
#else
static int t_checks T_UNUSED, t_failures T_UNUSED;
#endif

#define CHECK(cond, ...)                                                        \
   do {                                                                         \
      t_checks++;                                                               \
      if (!(cond) && t_failures++ < T_MAX_PRINTED) {                            \
         fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
         fprintf(stderr, __VA_ARGS__);                                          \
         fputc('\n', stderr);                                                   \
      }                                                                         \
   } while (0)

/* "NAME: N checks, M failures"; 0 when every check passed, else 1. */
static inline int t_report(const char *name)
{
   printf("%s: %d checks, %d failures\n", name, t_checks, t_failures);
   return t_failures ? 1 : 0;
}

#endif
