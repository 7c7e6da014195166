// SPDX-License-Identifier: MIT
// The layout header must be usable from C++17 (Mesa's C++ code, gtest).
#include "vagx_layout.h"

#include <cstdio>

int
main()
{
   vagx_layout l{};
   l.width_px = 33;
   l.height_px = 17;
   l.depth_px = 1;
   l.levels = 6;
   l.sample_count_sa = 1;
   l.block_width_px = 1;
   l.block_height_px = 1;
   l.bytes_per_block_B = 4;
   l.tiling = VAGX_TILING_TWIDDLED;
   if (!vagx_layout_init(&l))
      return 1;
   constexpr uint32_t m = 0x15; // spread(0b111)
   static_assert(VAGX_LAYOUT_PAGE_B == 16384u, "page size");
   if (vagx_layout_spread_bits(7) != m || vagx_layout_morton_el(1, 1) != 3)
      return 1;
   // Hand-worked in test_layout.c: (32,16) of level 0 -> 6144.
   if (vagx_layout_offset_B(&l, 0, 0, 32, 16) != 6144 || l.size_B != 16384)
      return 1;
   std::printf("C++17 header OK\n");
   return 0;
}
