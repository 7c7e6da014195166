/* SPDX-License-Identifier: MIT */
/*
 * The TLB invalidation protocol (TLB_INV_*) and the slice epochs it rests
 * on: a thread's slice start, end and safepoints, and the host's map flush.
 * The TLBs themselves and the page walk are core_mmu.c.
 */
#include "core_priv.h"

#include <unistd.h>

static bool worker_done_with(struct core_worker *w, uint64_t inv_epoch)
{
   uint64_t e = atomic_load(&w->active_epoch);
   return e == 0 || e > inv_epoch;
}

/* True when every thread that may hold a translation made before `epoch`
 * has since started a new slice (or is idle). */
static bool all_threads_past(struct vagx_core *core, uint64_t epoch)
{
   if (!worker_done_with(&core->fe, epoch))
      return false;
   for (unsigned i = 0; i < core->pool.nworkers; i++)
      if (!worker_done_with(&core->pool.workers[i], epoch))
         return false;
   return true;
}

void core_tlb_try_complete_locked(struct vagx_core *core)
{
   if (!core->tlb_busy || !all_threads_past(core, core->tlb_inv_epoch))
      return;
   core->tlb_busy = false;
   atomic_store(&core->tlb_pending, false);
   core->tlb_seq++;
   core_int_set(core, VAGX_INT_TLB_INV_DONE(1));
}

void core_tlb_invalidate_locked(struct vagx_core *core)
{
   /* Order matters (see core_worker_slice_begin): generation first, then the
    * epoch, both sequentially consistent. */
   atomic_fetch_add(&core->tlb_gen, 1);
   core->tlb_inv_epoch = atomic_load(&core->epoch);
   core->tlb_busy = true;
   atomic_store(&core->tlb_pending, true);
   vagx_usc_cache_invalidate(core->usc_cache);
   core_tlb_try_complete_locked(core);
}

/* Order matters: the epoch is published, then the host's access bracket is
 * entered (RCU in QEMU), then the generations are read.  A flush that bumped
 * a generation before reading the epoch therefore either sees this thread
 * still in an older epoch (and waits), or this thread sees the new
 * generation and drops its TLB. */
void core_worker_slice_begin(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   atomic_store(&w->active_epoch, atomic_fetch_add(&core->epoch, 1) + 1);
   if (core->ops.access_begin)
      core->ops.access_begin(core->opaque);
   core_mmu_sync(&w->mmu);
}

void core_worker_slice_end(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   if (core->ops.access_end)
      core->ops.access_end(core->opaque);
   atomic_store(&w->active_epoch, 0);
   if (atomic_load(&core->tlb_pending)) {
      pthread_mutex_lock(&core->lock);
      core_tlb_try_complete_locked(core);
      core_wake_locked(core);
      pthread_mutex_unlock(&core->lock);
   }
}

void core_worker_safepoint(struct core_worker *w)
{
   struct vagx_core *core = w->core;
   /* The host gets its quiescent point (an RCU grace period must not wait
    * for a whole job).  host_gen is read after the new bracket began: memory
    * reclaimed meanwhile was removed from the map, and host_gen bumped,
    * before the grace period that let it go started, so this load sees the
    * bump and the TLB is dropped before any pointer in it is used again. */
   if (core->ops.access_end) {
      core->ops.access_end(core->opaque);
      core->ops.access_begin(core->opaque);
   }
   if (atomic_load_explicit(&core->tlb_pending, memory_order_relaxed) ||
       atomic_load(&core->host_gen) != w->mmu.host_gen) {
      core_worker_slice_end(w);
      core_worker_slice_begin(w);
   }
}

int vagx_core_host_map_flush(struct vagx_core *core, uint64_t timeout_ns)
{
   /* Generation first, then the epoch (see core_worker_slice_begin). */
   atomic_fetch_add(&core->host_gen, 1);
   uint64_t epoch = atomic_load(&core->epoch);
   uint64_t start = core_now(core);
   while (!all_threads_past(core, epoch)) {
      if (core_now(core) - start >= timeout_ns)
         return -1;
      usleep(CORE_POLL_US);
   }
   return 0;
}
