/* SPDX-License-Identifier: MIT */
/*
 * Ring processing (front-end thread): fetch the job at HEAD of every runnable
 * queue, validate it with the generated unpack/validate helpers, set it up,
 * hand it to the worker pool, and when its tasks are done write the result,
 * timestamps and completion seqno, advance HEAD and interrupt.
 *
 * One job per queue runs at a time; jobs of different queues run
 * concurrently on the pool.  The register lock is dropped around every host
 * memory access; queue state changed by MMIO in the meantime (abort, reset,
 * disable) is looked at again when the lock is retaken.
 */
#include "core_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>


void core_job_fail(struct core_job *job, enum vagx_job_status st, enum vagx_unit unit,
                   uint32_t detail, uint64_t address)
{
   pthread_mutex_lock(&job->err_lock);
   if (!job->failed) {
      job->failed = true;
      job->result.status = st;
      job->result.unit = unit;
      job->result.detail = detail;
      job->result.address = address;
   }
   pthread_mutex_unlock(&job->err_lock);
   atomic_store(&job->abort, true); /* stop the other tasks */
}

void core_job_fault(struct core_job *job, const struct core_fault *f)
{
   pthread_mutex_lock(&job->err_lock);
   bool first = !job->failed;
   pthread_mutex_unlock(&job->err_lock);
   /* Only the fault that fails the job latches: the other tasks stop on it. */
   if (first && !atomic_load(&job->abort))
      core_latch_fault(job->core, f, job->q);
   core_job_fail(job, VAGX_JOB_STATUS_MMU_FAULT, f->unit, 0, f->va);
}

void core_job_task_done(struct core_job *job)
{
   struct vagx_core *core = job->core;
   pthread_mutex_lock(&core->lock);
   if (atomic_fetch_sub(&job->outstanding, 1) == 1)
      core_wake_locked(core);
   pthread_mutex_unlock(&core->lock);
}

void core_free_job(struct core_job *job)
{
   core_compute_free(job);
   core_render_free(job);
   pthread_mutex_destroy(&job->err_lock);
   free(job);
}

static bool queue_runnable_locked(struct vagx_core *core, struct core_queue *qu)
{
   return !qu->job && !core->global_reset_pending && !qu->reset_pending && !qu->stop_pending &&
          VAGX_Q_CONTROL_ENABLE_GET(qu->control) &&
          (qu->state == VAGX_QUEUE_STATE_IDLE || qu->state == VAGX_QUEUE_STATE_RUNNING) &&
          qu->head != qu->tail_db;
}

/* ------------------------------------------------------------ job start -- */

/* Header checks beyond the generated validate() (errors.md): per-type rules.
 * Returns true or false with *detail = byte offset in the slot. */
static bool header_rules(const struct vagx_job_header *h, const uint32_t *slot, uint32_t *detail)
{
   bool has_desc = h->type == VAGX_JOB_TYPE_RENDER || h->type == VAGX_JOB_TYPE_COMPUTE;
   uint32_t want = h->type == VAGX_JOB_TYPE_RENDER    ? VAGX_RENDER_JOB_LENGTH
                   : h->type == VAGX_JOB_TYPE_COMPUTE ? VAGX_COMPUTE_JOB_LENGTH
                                                      : 0;
   *detail = VAGX_RING_SLOT_HEADER_OFFSET;
   if (h->desc_size != want || (!has_desc && h->desc_va != 0) ||
       (has_desc && !vagx_va_is_canonical(h->desc_va)))
      return false;
   /* The payload must be zero unless the type has one. */
   if (h->type != VAGX_JOB_TYPE_COPY && h->type != VAGX_JOB_TYPE_FILL) {
      for (unsigned i = 0; i < VAGX_RING_SLOT_PAYLOAD_SIZE / 4; i++) {
         if (slot[VAGX_RING_SLOT_PAYLOAD_OFFSET / 4 + i]) {
            *detail = VAGX_RING_SLOT_PAYLOAD_OFFSET + 4 * i;
            return false;
         }
      }
   }
   return true;
}

/* Sets the job up (front-end, no lock held) from its fetched slot (NULL: the
 * slot could not be read).  Returns the number of tasks to hand to the pool;
 * 0 when the job is already finished or failed. */
static unsigned job_setup(struct vagx_core *core, struct core_job *job, const uint32_t *slot)
{
   if (!slot) {
      core_job_fail(job, VAGX_JOB_STATUS_BUS_ERROR, VAGX_UNIT_JOB, 0, job->slot_pa);
      return 0;
   }
   const char *err = NULL;
   if (!vagx_job_header_unpack(slot + VAGX_RING_SLOT_HEADER_OFFSET / 4, &job->hdr, &err)) {
      core_job_fail(job, VAGX_JOB_STATUS_INVALID_JOB, VAGX_UNIT_JOB, 0, job->slot_pa);
      return 0;
   }
   job->hdr_ok = true;
   uint32_t detail = 0;
   if (!header_rules(&job->hdr, slot, &detail)) {
      core_job_fail(job, VAGX_JOB_STATUS_INVALID_JOB, VAGX_UNIT_JOB, detail, job->slot_pa);
      return 0;
   }
   if (job->hdr.type != VAGX_JOB_TYPE_NOP && job->hdr.pt_root == 0) {
      struct core_fault f = {.va = job->hdr.desc_va, .root = 0, .access = VAGX_FAULT_ACCESS_READ,
                             .reason = VAGX_FAULT_REASON_BAD_ROOT, .level = 0,
                             .unit = VAGX_UNIT_JOB};
      core_job_fault(job, &f);
      return 0;
   }
   job->start_ns = core_timestamp(core);
   if (job->hdr.timeout_ms)
      job->deadline_ns = core_now(core) + (uint64_t)job->hdr.timeout_ms * 1000000ull;

   const uint32_t *payload = slot + VAGX_RING_SLOT_PAYLOAD_OFFSET / 4;
   switch (job->hdr.type) {
   case VAGX_JOB_TYPE_NOP:
      return 0;
   case VAGX_JOB_TYPE_COPY:
      if (core_copy_setup(job, payload))
         return 0;
      return core_copy_ntasks(job);
   case VAGX_JOB_TYPE_FILL:
      if (core_fill_setup(job, payload))
         return 0;
      return core_copy_ntasks(job);
   case VAGX_JOB_TYPE_COMPUTE:
      if (!VAGX_FEATURES_COMPUTE_GET(VAGX_REG_FEATURES_RESET)) {
         core_job_fail(job, VAGX_JOB_STATUS_UNSUPPORTED, VAGX_UNIT_CDM, 0, job->hdr.desc_va);
         return 0;
      }
      return core_compute_setup(job, &core->fe.mmu);
   case VAGX_JOB_TYPE_RENDER:
      return core_render_setup(job);
   default:
      core_job_fail(job, VAGX_JOB_STATUS_INVALID_JOB, VAGX_UNIT_JOB, 0, job->slot_pa);
      return 0;
   }
}

/* Called with the lock held; returns with it held (dropped in between).
 * Returns false if nothing was started (host out of memory: retried later);
 * true when a job was started or the queue changed under the fetch (the
 * caller looks at the queue again). */
static bool job_start_locked(struct vagx_core *core, unsigned q)
{
   struct core_queue *qu = &core->q[q];
   unsigned nslots = 1u << VAGX_Q_RING_SIZE_LOG2_GET(qu->ring_size);
   uint64_t slot_pa = core_ring_pa(qu) + (uint64_t)(qu->head & (nslots - 1)) * VAGX_RING_ENTRY_SIZE;
   unsigned maxtasks = core->pool.nworkers;
   uint32_t gen = qu->gen;
   uint32_t slot[VAGX_RING_ENTRY_SIZE / 4];

   /* Fetch the slot before the job becomes the queue's running job, so that
    * its seqno is known whenever Q_ABORT (MATCH=1) can see it.  The read is a
    * host op: done without the lock, then the queue is checked again (a
    * reset, disable or re-enable in between makes the fetched slot stale). */
   pthread_mutex_unlock(&core->lock);
   bool fetched = !core->ops.read(core->opaque, slot_pa, slot, sizeof(slot));
   pthread_mutex_lock(&core->lock);
   if (qu->gen != gen || !queue_runnable_locked(core, qu))
      return true;

   struct core_job *job = calloc(1, sizeof(*job) + maxtasks * sizeof(struct core_task));
   if (!job)
      return false; /* host out of memory: the job stays at HEAD */
   job->core = core;
   job->q = q;
   job->slot_pa = slot_pa;
   struct vagx_core_event ev = {
      .kind = VAGX_CORE_EVENT_JOB_START, .queue = q, .slot_pa = slot_pa,
   };
   if (fetched) {
      /* unpack() decodes every field even when it rejects the header. */
      struct vagx_job_header h;
      (void)vagx_job_header_unpack(slot + VAGX_RING_SLOT_HEADER_OFFSET / 4, &h, NULL);
      job->seqno = h.seqno;
      ev.seqno = h.seqno;
      ev.type = h.type;
   }
   core_event(core, &ev);
   pthread_mutex_init(&job->err_lock, NULL);
   atomic_store(&job->outstanding, 1); /* the setup itself */
   qu->job = job;
   qu->state = VAGX_QUEUE_STATE_RUNNING;
   pthread_mutex_unlock(&core->lock);

   core_worker_slice_begin(&core->fe);
   unsigned n = job_setup(core, job, fetched ? slot : NULL);
   core_worker_slice_end(&core->fe);
   if (n > maxtasks)
      n = maxtasks;
   atomic_fetch_add(&job->outstanding, (int)n);
   for (unsigned i = 0; i < n; i++) {
      job->tasks[i].job = job;
      job->tasks[i].index = i;
      job->tasks[i].fn = job->hdr.type == VAGX_JOB_TYPE_COMPUTE ? core_compute_task : core_copy_task;
      if (job->hdr.type == VAGX_JOB_TYPE_RENDER)
         job->tasks[i].fn = core_render_task;
      core_pool_submit(&core->pool, &job->tasks[i]);
   }

   pthread_mutex_lock(&core->lock);
   job->setup_done = true;
   atomic_fetch_sub(&job->outstanding, 1);
   return true;
}

/* --------------------------------------------------------- job complete -- */

static void job_write_back(struct vagx_core *core, struct core_job *job)
{
   int reason = atomic_load(&job->abort_reason);
   if (reason == CORE_ABORT_ABORT)
      core_job_fail(job, VAGX_JOB_STATUS_ABORTED, VAGX_UNIT_JOB, 0, 0);
   else if (reason == CORE_ABORT_TIMEOUT)
      core_job_fail(job, VAGX_JOB_STATUS_TIMEOUT, VAGX_UNIT_JOB, 0, 0);

   core_worker_slice_begin(&core->fe);
   if (job->hdr_ok && job->hdr.timestamps) {
      uint32_t ts[VAGX_JOB_TIMESTAMPS_DWORDS];
      struct vagx_job_timestamps t = {.start = job->start_ns, .end = core_timestamp(core)};
      vagx_job_timestamps_pack(ts, &t);
      struct core_fault f;
      if (!core_mmu_write(&core->fe.mmu, job->hdr.pt_root, job->hdr.timestamp_va, ts, sizeof(ts), &f)) {
         f.unit = VAGX_UNIT_JOB;
         core_job_fault(job, &f);
      }
   }
   core_worker_slice_end(&core->fe);

   if (!job->failed)
      job->result.status = VAGX_JOB_STATUS_OK;
   struct vagx_core_event ev = {
      .kind = VAGX_CORE_EVENT_JOB_END, .queue = job->q, .seqno = job->seqno,
   };
   uint32_t res[VAGX_JOB_RESULT_DWORDS];
   vagx_job_result_pack(res, &job->result);
   /* A result that cannot be written is lost; the queue state still says why. */
   (void)core->ops.write(core->opaque, job->slot_pa + VAGX_RING_SLOT_RESULT_OFFSET, res, sizeof(res));
   if (job->hdr_ok && job->hdr.completion_pa) {
      uint8_t seq[8];
      for (unsigned i = 0; i < 8; i++)
         seq[i] = (uint8_t)(job->hdr.seqno >> (8 * i));
      if (core->ops.write(core->opaque, job->hdr.completion_pa, seq, sizeof(seq)) &&
          !job->failed) {
         /* errors.md: completion_pa outside guest RAM -> BUS_ERROR (the result
          * is rewritten; no completion write is possible). */
         core_job_fail(job, VAGX_JOB_STATUS_BUS_ERROR, VAGX_UNIT_JOB, 0, job->hdr.completion_pa);
         vagx_job_result_pack(res, &job->result);
         (void)core->ops.write(core->opaque, job->slot_pa + VAGX_RING_SLOT_RESULT_OFFSET, res,
                               sizeof(res));
      }
   }
   ev.status = job->result.status;
   ev.unit = job->result.unit;
   ev.detail = job->result.detail;
   ev.address = job->result.address;
   core_event(core, &ev);
}

/* Called with the lock held, job tasks all done; returns with it held. */
static void job_finish_locked(struct vagx_core *core, unsigned q)
{
   struct core_queue *qu = &core->q[q];
   struct core_job *job = qu->job;
   bool drop = atomic_load(&job->abort_reason) == CORE_ABORT_DROP || qu->reset_pending ||
               core->global_reset_pending;
   if (!drop) {
      pthread_mutex_unlock(&core->lock);
      job_write_back(core, job);
      pthread_mutex_lock(&core->lock);
   } else {
      /* every JOB_START ends in a JOB_END or this */
      const struct vagx_core_event ev = {
         .kind = VAGX_CORE_EVENT_JOB_DROPPED, .queue = q, .seqno = job->seqno,
      };
      core_event(core, &ev);
   }
   qu->job = NULL;

   if (qu->reset_pending) {
      core_queue_reset_locked(core, q);
   } else if (!drop) {
      qu->head++;
      qu->jobs_done++;
      if (job->hdr_ok) {
         qu->last_seqno = job->hdr.seqno;
         qu->vector = job->hdr.irq_vector;
      } else {
         qu->vector = VAGX_MSIX_VECTOR_QUEUE0 + q;
      }
      if (job->failed) {
         qu->state = VAGX_QUEUE_STATE_HALTED;
         qu->error = (enum vagx_job_status)job->result.status;
         core_int_set(core, VAGX_INT_QUEUE_ERROR(q));
      } else {
         qu->error = VAGX_JOB_STATUS_OK;
         if (job->hdr.irq)
            core_int_set(core, VAGX_INT_JOB_DONE(q));
         qu->state = qu->head == qu->tail_db ? VAGX_QUEUE_STATE_IDLE : VAGX_QUEUE_STATE_RUNNING;
      }
      if (qu->stop_pending) {
         qu->state = VAGX_QUEUE_STATE_STOPPED;
         qu->stop_pending = false;
      }
   }
   pthread_mutex_unlock(&core->lock);
   core_free_job(job);
   pthread_mutex_lock(&core->lock);
}

/* ------------------------------------------------------------- process -- */

unsigned vagx_core_process(struct vagx_core *core)
{
   unsigned completed = 0;
   uint64_t now = core_now(core);
   pthread_mutex_lock(&core->lock);
   core->in_process = true;
   for (;;) {
      core->work = false;
      bool progress = false;
      bool deadlines = false;

      if (core->fe_stop)
         for (unsigned q = 0; q < core->nqueues; q++)
            if (core->q[q].job) {
               atomic_store(&core->q[q].job->abort_reason, CORE_ABORT_DROP);
               atomic_store(&core->q[q].job->abort, true);
            }

      for (unsigned q = 0; q < core->nqueues; q++) {
         struct core_queue *qu = &core->q[q];
         struct core_job *job = qu->job;
         if (job) {
            if (job->setup_done && atomic_load(&job->outstanding) == 0) {
               job_finish_locked(core, q);
               completed++;
               progress = true;
            } else if (job->deadline_ns) {
               deadlines = true;
               if (now >= job->deadline_ns) {
                  int none = CORE_ABORT_NONE;
                  atomic_compare_exchange_strong(&job->abort_reason, &none, CORE_ABORT_TIMEOUT);
                  atomic_store(&job->abort, true);
               }
            }
         }
         if (!qu->job && queue_runnable_locked(core, qu) && !core->fe_stop) {
            if (job_start_locked(core, q))
               progress = true;
         }
      }
      if (core->global_reset_pending && !core_any_job_locked(core)) {
         /* A host reset that timed out waiting for its jobs ends here. */
         if (core->host_reset_pending)
            core_host_reset_finish_locked(core);
         else
            core_global_reset_finish_locked(core);
         progress = true;
      }
      core_tlb_try_complete_locked(core);

      if (!progress && !core->work) {
         if (!core_any_job_locked(core))
            break;
         struct timespec ts;
         clock_gettime(CLOCK_MONOTONIC, &ts);
         long wait_ns = deadlines ? 1000000L : 50000000L;
         ts.tv_nsec += wait_ns;
         if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
         }
         pthread_cond_timedwait(&core->cond, &core->lock, &ts);
      }
      pthread_mutex_unlock(&core->lock);
      core_flush_irqs(core);
      now = core_now(core);
      pthread_mutex_lock(&core->lock);
   }
   core->in_process = false;
   pthread_mutex_unlock(&core->lock);
   core_flush_irqs(core);
   core_compute_trim(core);
   return completed;
}
