/* SPDX-License-Identifier: MIT */
/*
 * Resets: Q_RESET of one queue, the global RESET (GPU domain only) and the
 * host's reset to power-on values (vagx_core_reset_host*).  A reset that
 * finds a job running drops it (abort with CORE_ABORT_DROP) and completes
 * once the front-end has seen the job's tasks end.
 */
#include "core_priv.h"

#include <unistd.h>

bool core_any_job_locked(struct vagx_core *core)
{
   for (unsigned q = 0; q < core->nqueues; q++)
      if (core->q[q].job)
         return true;
   return false;
}

void core_drop_job_locked(struct vagx_core *core, unsigned q)
{
   struct core_job *job = core->q[q].job;
   if (!job)
      return;
   atomic_store(&job->abort_reason, CORE_ABORT_DROP);
   atomic_store(&job->abort, true);
}

/* A queue after Q_RESET or RESET: stopped and empty; gen bumped, so a slot
 * fetched before is stale. */
static void queue_clear(struct core_queue *qu)
{
   qu->head = qu->tail = qu->tail_db = 0;
   qu->control = 0;
   qu->state = VAGX_QUEUE_STATE_STOPPED;
   qu->error = VAGX_JOB_STATUS_OK;
   qu->reset_pending = qu->stop_pending = false;
   qu->abort_result = VAGX_ABORT_RESULT_NONE;
   qu->gen++;
}

/* Completes Q_RESET of queue q (no job running any more). */
void core_queue_reset_locked(struct vagx_core *core, unsigned q)
{
   queue_clear(&core->q[q]);
   core->int_status &= ~(VAGX_INT_JOB_DONE(q) | VAGX_INT_QUEUE_ERROR(q));
   core_int_set(core, VAGX_INT_RESET_DONE(1));
}

void core_global_reset_finish_locked(struct vagx_core *core)
{
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++)
      queue_clear(&core->q[q]);
   /* GPU domain only: the scanout registers, its INT bits and INT_ENABLE are
    * left alone, so the display keeps running through a GPU reset
    * (registers.md, "Reset domains"). */
   core->int_status &= CORE_INT_DISPLAY;
   core->fault_status = 0;
   core->fault_addr = core->fault_root = 0;
   core->error_status = 0;
   /* No job runs any more: drop every TLB and cached program now. */
   atomic_fetch_add(&core->tlb_gen, 1);
   vagx_usc_cache_invalidate(core->usc_cache);
   core->global_reset_pending = false;
   core_int_set(core, VAGX_INT_RESET_DONE(1));
}

void core_regs_reset_values(struct vagx_core *core)
{
   core->int_status = core->int_enable = 0;
   core->irq_vectors = 0;
   core->scratch = core->error_status = 0;
   core->global_reset_pending = false;
   memset(core->tlb_inv_regs, 0, sizeof(core->tlb_inv_regs));
   core->tlb_busy = false;
   atomic_store(&core->tlb_pending, false);
   core->tlb_seq = 0;
   core->fault_status = 0;
   core->fault_addr = core->fault_root = 0;
   core->ts_latched = 0;
   memset(core->head, 0, sizeof(core->head));
   for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++) {
      core->head[h].format = VAGX_REG_SCANOUT_FORMAT_RESET;
      core->head[h].wb_format = VAGX_REG_SCANOUT_WB_FORMAT_RESET;
   }
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      struct core_queue *qu = &core->q[q];
      memset(qu, 0, sizeof(*qu));
      qu->state = VAGX_QUEUE_STATE_STOPPED;
      qu->error = VAGX_JOB_STATUS_OK;
      qu->vector = VAGX_MSIX_VECTOR_QUEUE0 + q;
   }
}

void core_drop_all_jobs(struct vagx_core *core)
{
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      if (core->q[q].job) {
         core_free_job(core->q[q].job);
         core->q[q].job = NULL;
      }
   }
}

void vagx_core_reset_host_begin(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   for (unsigned q = 0; q < core->nqueues; q++)
      core_drop_job_locked(core, q);
   /* Until it completes, the reset looks like a global RESET in progress:
    * RESET_BUSY reads 1 and no queue starts a job (queue_runnable_locked). */
   core->global_reset_pending = true;
   core->host_reset_pending = true;
   core_wake_locked(core);
   pthread_mutex_unlock(&core->lock);
}

void core_host_reset_finish_locked(struct vagx_core *core)
{
   core_drop_all_jobs(core);
   core_regs_reset_values(core);
   core->host_reset_pending = false;
   /* Power-on state: no translation or decoded program survives. */
   atomic_fetch_add(&core->tlb_gen, 1);
   vagx_usc_cache_invalidate(core->usc_cache);
}

int vagx_core_reset_host_timeout(struct vagx_core *core, uint64_t timeout_ns)
{
   uint64_t start = core_now(core);
   vagx_core_reset_host_begin(core);
   /* Wait for the dropped jobs' tasks (bounded: a task that never reaches
    * its abort check must not hang the caller), then free them. */
   for (;;) {
      bool busy = false;
      for (unsigned q = 0; q < core->nqueues; q++)
         if (core->q[q].job && atomic_load(&core->q[q].job->outstanding))
            busy = true;
      if (!busy)
         break;
      if (core_now(core) - start >= timeout_ns)
         return -1; /* completed by vagx_core_process() when the tasks end */
      usleep(CORE_POLL_US);
   }
   pthread_mutex_lock(&core->lock);
   core_host_reset_finish_locked(core);
   pthread_mutex_unlock(&core->lock);
   return 0;
}

void vagx_core_reset_host(struct vagx_core *core)
{
   (void)vagx_core_reset_host_timeout(core, VAGX_CORE_RESET_HOST_TIMEOUT_NS);
}
