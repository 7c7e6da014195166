/* SPDX-License-Identifier: MIT */
/*
 * The tests' own primitive assembly: GL's decomposition of a draw's vertex
 * list (docs/hw/render.md, "Stream output"), split at restarts and cut per
 * topology and provoking-vertex convention, independently of the
 * renderer's assembler.  test_streamout checks the records it writes
 * against it; test_render_raster rasterises its triangles and lines.
 */
#ifndef RENDER_TEST_PRIMS_H
#define RENDER_TEST_PRIMS_H

#include <stdbool.h>
#include <stdint.h>
#include "vagx_hw.h"

/* One draw of ids[0..n) (a negative id is a restart): appends the vertex
 * ids of its primitives, nv per primitive, to out from out[*nout_words]
 * on; returns the primitive count.  `first`: the first-vertex provoking
 * convention's orders for strips and fans. */
static inline unsigned ref_decompose(enum vagx_primitive p, const int64_t *ids, unsigned n, bool first,
                              uint32_t *out, unsigned *nout_words, unsigned *nv)
{
   unsigned prims = 0, k = *nout_words;
   *nv = p == VAGX_PRIMITIVE_POINTS ? 1 : p <= VAGX_PRIMITIVE_LINE_STRIP ? 2 : 3;
   for (unsigned s = 0; s < n;) {
      unsigned e = s;
      while (e < n && ids[e] >= 0)
         e++;
      const int64_t *r = ids + s;
      const unsigned m = e - s;
#define P1(a) (out[k++] = (uint32_t)r[a], prims++)
#define P2(a, b) (out[k++] = (uint32_t)r[a], out[k++] = (uint32_t)r[b], prims++)
#define P3(a, b, c)                                                                   \
   (out[k++] = (uint32_t)r[a], out[k++] = (uint32_t)r[b], out[k++] = (uint32_t)r[c], prims++)
      switch (p) {
      case VAGX_PRIMITIVE_POINTS:
         for (unsigned i = 0; i < m; i++)
            P1(i);
         break;
      case VAGX_PRIMITIVE_LINES:
         for (unsigned i = 0; i + 1 < m; i += 2)
            P2(i, i + 1);
         break;
      case VAGX_PRIMITIVE_LINE_STRIP:
      case VAGX_PRIMITIVE_LINE_LOOP:
         for (unsigned i = 0; i + 1 < m; i++)
            P2(i, i + 1);
         if (p == VAGX_PRIMITIVE_LINE_LOOP && m >= 2)
            P2(m - 1, 0);
         break;
      case VAGX_PRIMITIVE_TRIANGLES:
         for (unsigned i = 0; i + 2 < m; i += 3)
            P3(i, i + 1, i + 2);
         break;
      case VAGX_PRIMITIVE_TRIANGLE_STRIP:
         for (unsigned i = 0; i + 2 < m; i++) {
            if (!(i & 1))
               P3(i, i + 1, i + 2);
            else if (first)
               P3(i, i + 2, i + 1);
            else
               P3(i + 1, i, i + 2);
         }
         break;
      case VAGX_PRIMITIVE_TRIANGLE_FAN:
         for (unsigned i = 0; i + 2 < m; i++) {
            if (first)
               P3(i + 1, i + 2, 0);
            else
               P3(0, i + 1, i + 2);
         }
         break;
      default:
         break;
      }
#undef P1
#undef P2
#undef P3
      s = e + 1;
   }
   *nout_words = k;
   return prims;
}

#endif
