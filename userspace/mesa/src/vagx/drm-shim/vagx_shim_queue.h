/* SPDX-License-Identifier: MIT */
/*
 * Job queues of the vagx drm-shim: one worker thread per UAPI queue runs
 * its jobs in submission order, each after its wait fences signalled, and
 * signals the job's fence at completion (kernel/vagx_queue.c and
 * vagx_submit.c do this with a drm_sched entity per queue).
 */
#ifndef VAGX_SHIM_QUEUE_H
#define VAGX_SHIM_QUEUE_H

#include <stdint.h>
#include "c11/threads.h"
#include "util/list.h"
#include "util/cnd_monotonic.h"

struct shim_fence;

struct shim_job {
   struct list_head link;
   unsigned qid;
   uint64_t desc_va;          /* 0 and no bind ops: no-op (waits and signals) */
   unsigned wait_count;
   struct shim_fence **waits; /* referenced */
   struct shim_fence *done;   /* referenced; signalled by the worker */
   /* an asynchronous VM_BIND's operations (owned, opaque to the queue) */
   unsigned vm_id, bind_count;
   void *bind_ops;
};

/* Runs one job on the device; returns 0 or the negative errno its fence
 * ends with.  Called on the queue's thread. */
typedef int (*shim_run_job_fn)(struct shim_job *job);

struct shim_queue {
   mtx_t lock;
   struct u_cnd_monotonic cond;  /* jobs added, queue idle, stop */
   struct list_head jobs;
   unsigned busy;                /* queued or running jobs */
   bool stop;
   thrd_t thread;
   shim_run_job_fn run;
   unsigned delay_ms;            /* VAGX_SHIM_DELAY_MS */
};

int shim_queue_start(struct shim_queue *q, shim_run_job_fn run, unsigned delay_ms);
/* Takes the job (and its references). */
void shim_queue_push(struct shim_queue *q, struct shim_job *job);
/* Waits until every job pushed has completed, then ends the thread. */
void shim_queue_stop(struct shim_queue *q);
void shim_job_free(struct shim_job *job);

#endif
