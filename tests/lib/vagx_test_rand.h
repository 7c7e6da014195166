/* SPDX-License-Identifier: MIT */
/*
 * The host tests' random inputs: xorshift64 from a fixed seed, the top 32
 * of its upper 48 bits, so that every run draws the same cases and a
 * failure repeats.  One generator a file (its state is static).
 */
#ifndef VAGX_TEST_RAND_H
#define VAGX_TEST_RAND_H

#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static inline uint32_t rnd(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return (uint32_t)(rng >> 16);
}

#endif
