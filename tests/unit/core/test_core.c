/* SPDX-License-Identifier: MIT */
/*
 * Renderer-core tests: registers, MMU (walks, NULL, read-only, faults, TLB
 * invalidation), rings (seqno + irq per job, two queues, abort, resets,
 * timeouts, timestamps), copy/fill, compute kernels written in assembly and
 * checked against C, hostile input, and the decoder.  One file a subject
 * (test_core_*.c, test_core.h); this one runs them in order and defines
 * what they count in.
 */
#include "test_core.h"

int t_checks, t_failures;
_Thread_local int f_depth;
_Atomic unsigned f_maps_outside, f_bracket_errors;
uint32_t rnd_state = 12345;

int main(void)
{
   test_registers();
   test_writeback();
   test_nop_jobs();
   test_mmu();
   test_events();
   test_tlb();
   test_copy_fill(false);
   test_copy_fill(true);
   test_long_jobs();
   test_abort_match();
   test_bad_input();
   test_compute(1);
   test_compute(4);
   test_compute_tex(1);
   test_compute_tex(4);
   test_render(1);
   test_render(3);
   test_decode();
   /* Over every job above (copy, fill, compute, render): host pointers
    * were taken only inside the core's access brackets. */
   CHECK(atomic_load(&f_maps_outside) == 0, "%u maps outside an access bracket",
         atomic_load(&f_maps_outside));
   CHECK(atomic_load(&f_bracket_errors) == 0, "%u unbalanced access brackets",
         atomic_load(&f_bracket_errors));
   printf("core: %d checks, %d failures\n", t_checks, t_failures);
   return t_failures ? 1 : 0;
}
