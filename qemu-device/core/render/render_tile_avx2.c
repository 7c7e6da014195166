/* SPDX-License-Identifier: MIT */
/* render_tile.c compiled a second time for x86-64 hosts with AVX2, its entry
 * points suffixed _avx2 (render_priv.h): the per-block and per-lane loops of
 * the tile phase (edge functions, depth rows, interpolation, conversions)
 * then use 256-bit vectors, 4 doubles at a time, and 64-bit compares.  The
 * results are the baseline copy's: IEEE operations round the same at any
 * vector width and -ffp-contract=off (cflags.list) keeps gcc from fusing
 * multiplies and adds (no FMA is enabled here anyway).  The tile phase picks
 * the copy per job from usc_simd_level(), so tests that force the baseline
 * level run this file's baseline twin. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define R_TILE_AVX2_COPY 1 /* __AVX2__ is defined below: render_priv.h's test */
#ifdef __clang__
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif
#define R_TILE_SFX(name) name##_avx2
#include "render_tile.c"
#ifdef __clang__
#pragma clang attribute pop
#endif
#else
/* ISO C wants a declaration in every translation unit */
typedef int r_tile_avx2_unused;
#endif
