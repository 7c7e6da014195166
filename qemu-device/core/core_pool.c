/* SPDX-License-Identifier: MIT */
/*
 * Worker pool: N pthreads pulling tasks from one FIFO.  A task runs one slice
 * (a few threadgroups, one copy chunk) and asks to be queued again, so jobs
 * of different queues interleave fairly even on a single worker.
 */
#include "core_priv.h"

#include <stdlib.h>
#include <time.h>

/* How long a thread polls before it sleeps: a worker out of tasks, and a
 * render job's thread waiting for its parallel-for's last items.  The
 * renderer's geometry phase hands out a parallel-for every few tens of
 * microseconds (render_geom_par.c), each a few tens of microseconds of work:
 * a futex wake-up per parallel-for would cost as much as the work it
 * shares.  Polling this long after the last task costs nothing measurable. */
#define POOL_SPIN_NS 50000

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool core_spin_until(const _Atomic unsigned *v, unsigned target)
{
   const uint64_t end = now_ns() + POOL_SPIN_NS;
   for (unsigned i = 1;; i++) {
      if (atomic_load_explicit(v, memory_order_acquire) >= target)
         return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (!(i & 63) && now_ns() >= end)
         return false;
   }
}

/* Appends t to the pool's queue; the caller holds p->lock. */
static void queue_append(struct core_pool *p, struct core_task *t)
{
   t->next = NULL;
   if (p->tail)
      p->tail->next = t;
   else
      p->head = t;
   p->tail = t;
   atomic_fetch_add_explicit(&p->queued, 1, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
   struct core_worker *w = arg;
   struct core_pool *p = &w->core->pool;

   pthread_mutex_lock(&p->lock);
   for (;;) {
      if (!p->head && !p->stop) {
         pthread_mutex_unlock(&p->lock);
         core_spin_until(&p->queued, 1);
         pthread_mutex_lock(&p->lock);
      }
      while (!p->head && !p->stop)
         pthread_cond_wait(&p->cond, &p->lock);
      if (p->stop)
         break;
      struct core_task *t = p->head;
      p->head = t->next;
      if (!p->head)
         p->tail = NULL;
      t->next = NULL;
      atomic_fetch_sub_explicit(&p->queued, 1, memory_order_relaxed);
      pthread_mutex_unlock(&p->lock);

      /* A finished task may be freed by its owner as soon as fn returns
       * false (render helpers): only `job`, read before, is used after. */
      struct core_job *job = t->job;
      core_worker_slice_begin(w);
      bool again = t->fn(w, t);
      core_worker_slice_end(w);
      if (!again && job)
         core_job_task_done(job);

      pthread_mutex_lock(&p->lock);
      if (again) /* t is still owned by the pool */
         queue_append(p, t);
   }
   pthread_mutex_unlock(&p->lock);
   return NULL;
}

int core_pool_init(struct core_pool *p, struct vagx_core *core, unsigned n)
{
   memset(p, 0, sizeof(*p));
   pthread_mutex_init(&p->lock, NULL);
   pthread_cond_init(&p->cond, NULL);
   p->workers = calloc(n, sizeof(*p->workers));
   if (!p->workers)
      return -1;
   for (unsigned i = 0; i < n; i++) {
      struct core_worker *w = &p->workers[i];
      w->core = core;
      w->index = i;
      core_mmu_ctx_init(&w->mmu, core);
      w->sink = aligned_alloc(VAGX_PAGE_SIZE, VAGX_PAGE_SIZE);
      if (!w->sink || core_worker_usc_init(w))
         goto fail;
      if (pthread_create(&w->thread, NULL, worker_main, w)) {
         core_worker_usc_fini(w);
         goto fail;
      }
      p->nworkers++;
      continue;
   fail:
      free(w->sink);
      w->sink = NULL;
      break;
   }
   return p->nworkers == n ? 0 : -1;
}

void core_pool_fini(struct core_pool *p)
{
   pthread_mutex_lock(&p->lock);
   p->stop = true;
   pthread_cond_broadcast(&p->cond);
   pthread_mutex_unlock(&p->lock);
   for (unsigned i = 0; i < p->nworkers; i++) {
      pthread_join(p->workers[i].thread, NULL);
      core_worker_usc_fini(&p->workers[i]);
      free(p->workers[i].sink);
   }
   free(p->workers);
   p->workers = NULL;
   p->nworkers = 0;
   pthread_cond_destroy(&p->cond);
   pthread_mutex_destroy(&p->lock);
}

void core_pool_submit(struct core_pool *p, struct core_task *t)
{
   pthread_mutex_lock(&p->lock);
   queue_append(p, t);
   pthread_cond_signal(&p->cond);
   pthread_mutex_unlock(&p->lock);
}
