/* SPDX-License-Identifier: MIT */
/*
 * The files of the test_core program (test_core.c runs them, one file a
 * subject: test_core_*.c): their test functions, the guest memory layout
 * they share, and the random sequence they draw from in turn.  The fake
 * guest and the driver they run on are core_test.h's, shared with the other
 * core tests.  The files count their checks and the access brackets in one
 * set of counters (VAGX_CHECK_SHARED), which test_core.c defines.
 */
#ifndef VAGX_TEST_CORE_H
#define VAGX_TEST_CORE_H

#define VAGX_CHECK_SHARED
#include "core_test.h"
#include "vagx_test_desc.h"

#define RAM (64ull << 20)
#define VA_BUF 0x0000004000000000ull   /* a user buffer region (L0 index 0x8) */
#define VA_CODE 0x0000002000000000ull
#define VA_DESC 0x0000003000000000ull
#define VA_SPARSE 0x0000100000000000ull

/* A device of RAM bytes of guest memory and queue q (2^log2 slots) on it */
static inline void tdev_init_tq(struct tdev *d, struct tq *t, unsigned workers, bool nomap,
                                unsigned q, unsigned log2)
{
   tdev_init(d, RAM, workers, nomap);
   tq_init(t, d, q, log2);
}

/* One sequence for the whole program (fixed seed, in test_core.c): each
 * test draws the values it drew when the tests were one file. */
extern uint32_t rnd_state;
static inline uint32_t rnd(void)
{
   rnd_state = rnd_state * 1664525u + 1013904223u;
   return rnd_state >> 7 ^ rnd_state << 9;
}

void test_registers(void);
void test_writeback(void);
void test_nop_jobs(void);
void test_copy_fill(bool nomap);
void test_mmu(void);
void test_tlb(void);
void test_events(void);
void test_long_jobs(void);
void test_abort_match(void);
void test_bad_input(void);
void test_compute(unsigned workers);
void test_compute_tex(unsigned workers);
void test_render(unsigned workers);
void test_decode(void);

#endif
