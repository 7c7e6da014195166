/* SPDX-License-Identifier: MIT */
/*
 * Flat "guest memory" for the host tests and benchmarks of the renderer
 * core (test_render, test_streamout, bench_render): one calloc'd block at
 * MEM_BASE, identity-translated (so every VA outside it faults), a bump
 * allocator that zeroes what it hands out, and helpers to place data and
 * assembled USC programs in it.
 *
 * Define MEM_SIZE (bytes) before including, point mem at MEM_SIZE zeroed
 * bytes, and reset brk_ to 0 to reuse the memory between cases.
 *
 * A program of several files (test_render, bench_render with
 * render_test_draw.c) shares one memory: each file defines
 * RENDER_TEST_MEM_SHARED before including, and exactly one of them also
 * RENDER_TEST_MEM_DEFINE and MEM_SIZE, which holds the definitions.
 */
#ifndef RENDER_TEST_MEM_H
#define RENDER_TEST_MEM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "vagx_asm.h"

#if !defined(MEM_SIZE) && (!defined(RENDER_TEST_MEM_SHARED) || defined(RENDER_TEST_MEM_DEFINE))
#error "define MEM_SIZE before including render_test_mem.h where the memory is defined"
#endif

#define MEM_BASE 0x100000000ull

#ifdef RENDER_TEST_MEM_SHARED
#define RTM_LINK
extern uint8_t *mem;
extern uint64_t brk_;
extern const struct vagx_usc_mem_ops mem_ops;
uint64_t alloc(uint64_t size, uint64_t align);
uint64_t put(const void *data, uint64_t size, uint64_t align);
uint64_t assemble(const char *src);
#else
#define RTM_LINK static
#endif

#if !defined(RENDER_TEST_MEM_SHARED) || defined(RENDER_TEST_MEM_DEFINE)
RTM_LINK uint8_t *mem;
RTM_LINK uint64_t brk_;
#endif

static inline void *ptr(uint64_t va) { return mem + (va - MEM_BASE); }

#if !defined(RENDER_TEST_MEM_SHARED) || defined(RENDER_TEST_MEM_DEFINE)
static void *xlate(void *ctx, uint64_t va, uint32_t size, unsigned access, uint64_t *span)
{
   (void)ctx;
   (void)access;
   if (va < MEM_BASE || va + size > MEM_BASE + MEM_SIZE || va + size < va)
      return NULL;
   *span = MEM_BASE + MEM_SIZE - va;
   return mem + (va - MEM_BASE);
}
RTM_LINK const struct vagx_usc_mem_ops mem_ops = {.translate = xlate};

RTM_LINK uint64_t alloc(uint64_t size, uint64_t align)
{
   brk_ = (brk_ + align - 1) & ~(align - 1);
   uint64_t va = MEM_BASE + brk_;
   brk_ += size;
   if (brk_ > MEM_SIZE) {
      fprintf(stderr, "test memory exhausted (MEM_SIZE %u MiB)\n", (unsigned)(MEM_SIZE >> 20));
      exit(2);
   }
   memset(mem + (va - MEM_BASE), 0, size);
   return va;
}

RTM_LINK uint64_t put(const void *data, uint64_t size, uint64_t align)
{
   uint64_t va = alloc(size, align);
   memcpy(ptr(va), data, size);
   return va;
}

/* Assembles src into the memory (16-byte aligned); exits on a syntax error. */
RTM_LINK uint64_t assemble(const char *src)
{
   static uint32_t words[8192];
   struct vagx_asm_error err;
   long n = vagx_asm_assemble(src, words, 8192, &err);
   if (n < 0) {
      fprintf(stderr, "asm error line %d: %s\n%s\n", err.line, err.msg, src);
      exit(2);
   }
   return put(words, (uint64_t)n * 4, 16);
}
#endif

#endif
