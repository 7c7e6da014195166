/* SPDX-License-Identifier: MIT */
/*
 * The host tests' random inputs: xorshift64 from a fixed seed, the top 32
 * of its upper 48 bits, so that every run draws the same cases and a
 * failure repeats.  One generator a file (its state is static).
 */
#ifndef VAGX_TEST_RAND_H
#define VAGX_TEST_RAND_H

#include <stdint.h>

static uint64_t t_rng = 0x9e3779b97f4a7c15ull;

static inline uint32_t t_rand(void)
{
   t_rng ^= t_rng << 13;
   t_rng ^= t_rng >> 7;
   t_rng ^= t_rng << 17;
   return (uint32_t)(t_rng >> 16);
}

#endif
