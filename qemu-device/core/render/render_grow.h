/* SPDX-License-Identifier: MIT */
/* vagx renderer: the one growth rule of the job's arrays (draws, queries,
 * bound programs, primitive chunks): capacity doubles from a first size, so
 * appends cost amortised O(1); the new elements are zeroed, so an array of
 * reusable records (the PPP chunks) starts from empty ones. */
#ifndef VAGX_RENDER_GROW_H
#define VAGX_RENDER_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Room for `need` elements of `size` bytes in `arr` (its capacity `*cap`
 * elements): `arr` itself if it has it, else `arr` reallocated to the first
 * of first, 2 * first, ... (from *cap, doubled, if it is not 0) that holds
 * `need`, with *cap updated.  NULL, and nothing changed (`arr` still valid),
 * when the size overflows or memory runs out: the caller fails the job
 * (DEVICE_ERROR) unless a budget did first.  The caller stores the result
 * back into its pointer. */
static inline void *r_grow(void *arr, unsigned *cap, uint64_t need, size_t size, unsigned first)
{
   if (need <= *cap)
      return arr;
   uint64_t n = *cap ? *cap : first;
   while (n < need)
      n *= 2;
   if (n > UINT32_MAX || n > SIZE_MAX / size)
      return NULL;
   uint8_t *p = realloc(arr, (size_t)n * size);
   if (!p)
      return NULL;
   memset(p + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
   *cap = (unsigned)n;
   return p;
}

#endif
