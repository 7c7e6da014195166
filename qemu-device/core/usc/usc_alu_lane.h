/* Lane helpers of integer ALU operations whose exact edge cases (division by
 * zero, INT_MIN / -1, field widths past 32 bits) are defined here once: the
 * interpreter's handlers (usc_alu_ops.h) and the JIT's per-lane helper calls
 * (usc_jit.c) use the same code. */
#ifndef VAGX_USC_ALU_LANE_H
#define VAGX_USC_ALU_LANE_H

#include <stdint.h>

#define S(v) ((int32_t)(v))

static inline uint32_t idiv(uint32_t x, uint32_t y)
{
   if (!y)
      return ~0u;
   if (x == 0x80000000u && y == ~0u)
      return x;
   return (uint32_t)(S(x) / S(y));
}

static inline uint32_t irem(uint32_t x, uint32_t y)
{
   if (!y)
      return x;
   if (x == 0x80000000u && y == ~0u)
      return 0;
   return (uint32_t)(S(x) % S(y));
}

static inline uint32_t bfe(uint32_t x, uint32_t off, uint32_t bits, int sign)
{
   off &= 31;
   uint32_t n = bits > 32 ? 32 : bits;
   if (n > 32 - off)
      n = 32 - off;
   if (!n)
      return 0;
   uint32_t v = x >> off;
   if (n == 32)
      return v;
   return sign ? (uint32_t)(S(v << (32 - n)) >> (32 - n)) : v & ((1u << n) - 1);
}

static inline uint32_t bfi(uint32_t base, uint32_t ins, uint32_t ctl)
{
   uint32_t off = ctl & 31, n = (ctl >> 8) & 63;
   if (n > 32 - off)
      n = 32 - off;
   uint32_t m = (n >= 32 ? ~0u : ((1u << n) - 1)) << off;
   return (base & ~m) | ((ins << off) & m);
}

#endif
