/* SPDX-License-Identifier: MIT */
/*
 * Job queues of the vagx drm-shim (vagx_shim_queue.h).  SUBMIT only queues:
 * the application's thread returns at once, as it does on vagx.ko, so a
 * driver that reads results without waiting for the job's syncobj reads
 * stale memory on the host too.  VAGX_SHIM_DELAY_MS holds every job that
 * long before it runs, which makes such a missing wait certain to show.
 */
#include <errno.h>
#include <stdlib.h>
#include "util/os_time.h"
#include "vagx_shim_queue.h"
#include "vagx_shim_sync.h"

void
shim_job_free(struct shim_job *job)
{
   for (unsigned i = 0; i < job->wait_count; i++)
      shim_fence_unref(job->waits[i]);
   free(job->waits);
   free(job->bind_ops);
   if (job->done)
      shim_fence_unref(job->done);
   free(job);
}

/* The job's status before it runs: a failed dependency fails the job
 * without running it (drm_sched propagates a dependency's error to the
 * finished fence the same way). */
static int
wait_dependencies(struct shim_job *job)
{
   int err = 0;
   for (unsigned i = 0; i < job->wait_count; i++) {
      int status = 0;
      shim_fence_wait(job->waits[i], INT64_MAX, &status);
      if (status && !err)
         err = status;
   }
   return err;
}

static int
queue_thread(void *arg)
{
   struct shim_queue *q = arg;
   mtx_lock(&q->lock);
   for (;;) {
      while (list_is_empty(&q->jobs) && !q->stop)
         u_cnd_monotonic_wait(&q->cond, &q->lock);
      if (list_is_empty(&q->jobs))
         break; /* stop, and nothing left */
      struct shim_job *job = list_first_entry(&q->jobs, struct shim_job, link);
      list_del(&job->link);
      mtx_unlock(&q->lock);

      int status = wait_dependencies(job);
      /* no-op commands (desc_va 0) too: tests hold fences with them */
      if (!status && q->delay_ms)
         os_time_sleep((int64_t)q->delay_ms * 1000);
      /* a bind runs whatever its waits ended with: the page tables must
       * follow what the driver did (a failed job before a decommit must
       * not leave the page mapped) */
      if (job->bind_count)
         status = q->run(job);
      else if (!status && job->desc_va)
         status = q->run(job);
      shim_fence_signal(job->done, status);
      shim_job_free(job);

      mtx_lock(&q->lock);
      q->busy--;
      u_cnd_monotonic_broadcast(&q->cond);
   }
   mtx_unlock(&q->lock);
   return 0;
}

int
shim_queue_start(struct shim_queue *q, shim_run_job_fn run, unsigned delay_ms)
{
   mtx_init(&q->lock, mtx_plain);
   u_cnd_monotonic_init(&q->cond);
   list_inithead(&q->jobs);
   q->busy = 0;
   q->stop = false;
   q->run = run;
   q->delay_ms = delay_ms;
   if (thrd_create(&q->thread, queue_thread, q) != thrd_success) {
      u_cnd_monotonic_destroy(&q->cond);
      mtx_destroy(&q->lock);
      return -ENOMEM;
   }
   return 0;
}

void
shim_queue_push(struct shim_queue *q, struct shim_job *job)
{
   mtx_lock(&q->lock);
   list_addtail(&job->link, &q->jobs);
   q->busy++;
   u_cnd_monotonic_broadcast(&q->cond);
   mtx_unlock(&q->lock);
}

void
shim_queue_stop(struct shim_queue *q)
{
   mtx_lock(&q->lock);
   while (q->busy)
      u_cnd_monotonic_wait(&q->cond, &q->lock);
   q->stop = true;
   u_cnd_monotonic_broadcast(&q->cond);
   mtx_unlock(&q->lock);
   thrd_join(q->thread, NULL);
   u_cnd_monotonic_destroy(&q->cond);
   mtx_destroy(&q->lock);
}
