/* SPDX-License-Identifier: MIT */
/*
 * The first translation fault of a job as the device core records it
 * (core_compute.c, usc_translate): the first failed access that is not a
 * probe, its address and whether it read or wrote.  The faulting test
 * translations (test_render's io_ops, test_render_io's page table) record
 * through first_fault_note(), so a fast path that probes ahead and falls
 * back is seen to record nothing.
 */
#ifndef RENDER_TEST_FAULT_H
#define RENDER_TEST_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "usc.h"

struct first_fault {
   bool faulted;
   uint64_t va;
   unsigned access; /* VAGX_USC_ACC_READ and/or _WRITE */
};

static inline void first_fault_note(struct first_fault *f, uint64_t va, unsigned access)
{
   if (!f->faulted && !(access & VAGX_USC_ACC_PROBE)) {
      f->faulted = true;
      f->va = va;
      f->access = access & (VAGX_USC_ACC_READ | VAGX_USC_ACC_WRITE);
   }
}

#endif
