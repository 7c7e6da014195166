/* SPDX-License-Identifier: MIT */
/*
 * RENDER jobs: the device side of the tile pipeline in render/ (renderer core
 * II, vagx_render_run).  A render job is one pool task that calls
 * vagx_render_run(); its parallel-for (tiles) hands items to the other
 * workers through helper tasks while the calling worker claims items too, so
 * a render job makes progress with any number of workers and never waits for
 * a helper that has not started.  Memory goes through the same translate
 * callback and per-worker TLBs as compute; the abort flag is the job's.
 */
#include "core_priv.h"

#include <stdlib.h>


#include "render.h"

struct core_render {
   struct core_worker *caller;        /* worker running vagx_render_run */
   struct core_run_ctx *rctx;         /* nworkers + 1 translate contexts */
   struct vagx_render_env env;
};

/* One parallel-for: items claimed from `next` by the caller and by helpers;
 * freed by whoever drops the last reference. */
struct pfor {
   vagx_render_item_fn fn;
   void *ctx;
   unsigned n;
   _Atomic unsigned next, done;
   _Atomic unsigned refs;
   pthread_mutex_t lock;
   pthread_cond_t cond;
   struct core_task helpers[];
};

static void pfor_unref(struct pfor *p)
{
   if (atomic_fetch_sub(&p->refs, 1) == 1) {
      pthread_cond_destroy(&p->cond);
      pthread_mutex_destroy(&p->lock);
      free(p);
   }
}

static void pfor_work(struct pfor *p, unsigned worker)
{
   for (;;) {
      unsigned i = atomic_fetch_add(&p->next, 1);
      if (i >= p->n)
         return;
      p->fn(p->ctx, i, worker);
      if (atomic_fetch_add(&p->done, 1) + 1 == p->n) {
         pthread_mutex_lock(&p->lock);
         pthread_cond_broadcast(&p->cond);
         pthread_mutex_unlock(&p->lock);
      }
   }
}

static bool pfor_helper(struct core_worker *w, struct core_task *t)
{
   struct pfor *p = (struct pfor *)((char *)(t - t->index) - offsetof(struct pfor, helpers));
   pfor_work(p, w->index);
   pfor_unref(p);
   return false;
}

static void render_run(void *opaque, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   struct core_job *job = opaque;
   struct core_render *r = job->render;
   struct vagx_core *core = job->core;
   unsigned nh = core->pool.nworkers - 1;
   if (nh > n)
      nh = n ? n - 1 : 0;
   struct pfor *p = calloc(1, sizeof(*p) + nh * sizeof(struct core_task));
   if (!p) { /* serial fallback */
      for (unsigned i = 0; i < n; i++)
         fn(ctx, i, r->caller->index);
      return;
   }
   p->fn = fn;
   p->ctx = ctx;
   p->n = n;
   atomic_store(&p->refs, 1 + nh);
   pthread_mutex_init(&p->lock, NULL);
   pthread_cond_init(&p->cond, NULL);
   for (unsigned i = 0; i < nh; i++) {
      p->helpers[i].fn = pfor_helper;
      p->helpers[i].job = NULL;
      p->helpers[i].index = i;
      core_pool_submit(&core->pool, &p->helpers[i]);
   }
   pfor_work(p, r->caller->index);
   /* Helpers finishing their last items.  A helper's item can be long (a
    * tile of heavy shading, a thread the host does not schedule): the caller
    * waits outside its slice, so that a TLB invalidation or a host map flush
    * waits only for the helpers' next safepoints, not for their items to
    * end (it waited seconds under load).  The caller holds no translation
    * here -- its own items pass safepoints --, its next slice drops its TLB
    * if an invalidation came meanwhile, and the renderer drops the spans it
    * keeps when run() returns (r_run). */
   if (!core_spin_until(&p->done, n)) {
      core_worker_slice_end(r->caller);
      pthread_mutex_lock(&p->lock);
      while (atomic_load(&p->done) < n)
         pthread_cond_wait(&p->cond, &p->lock);
      pthread_mutex_unlock(&p->lock);
      core_worker_slice_begin(r->caller);
   }
   pfor_unref(p);
}

static void *render_mem_ctx(void *opaque, unsigned worker)
{
   struct core_job *job = opaque;
   return &job->render->rctx[worker];
}

static uint64_t render_now(void *opaque)
{
   return core_timestamp(opaque);
}

unsigned core_render_setup(struct core_job *job)
{
   struct vagx_core *core = job->core;
   unsigned nw = core->pool.nworkers;
   struct core_render *r = calloc(1, sizeof(*r));
   /* each context on lines of its own (core_priv.h) */
   struct core_run_ctx *rctx = aligned_alloc(_Alignof(struct core_run_ctx), (nw + 1) * sizeof(*rctx));
   if (rctx)
      memset(rctx, 0, (nw + 1) * sizeof(*rctx));
   if (!r || !rctx) {
      free(r);
      free(rctx);
      core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
      return 0;
   }
   job->render = r;
   r->rctx = rctx;
   for (unsigned i = 0; i < nw; i++) {
      rctx[i].w = &core->pool.workers[i];
      rctx[i].root = job->hdr.pt_root;
   }
   rctx[nw].root = job->hdr.pt_root; /* caller: bound when the task runs */
   struct vagx_render_env *e = &r->env;
   e->mem = &core_usc_mem_ops;
   e->mem_ctx = render_mem_ctx;
   e->mem_opaque = job;
   e->run = render_run;
   e->run_opaque = job;
   e->nworkers = nw;
   e->cache = core->usc_cache;
   e->root = job->hdr.pt_root;
   e->abort = &job->abort;
   e->now_ns = render_now;
   e->now_opaque = core;
   return 1;
}

bool core_render_task(struct core_worker *w, struct core_task *t)
{
   struct core_job *job = t->job;
   struct vagx_core *core = w->core;
   struct core_render *r = job->render;
   r->caller = w;
   r->rctx[core->pool.nworkers].w = w;
   if (!core_render_device(core, job->q)) {
      core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_VDM, 0, 0);
      return false;
   }
   vagx_usc_cache_invalidate(core->usc_cache);
   struct vagx_render_fault f;
   enum vagx_job_status st = vagx_render_run(core->render_dev[job->q], &r->env, job->hdr.desc_va, &f);
   if (st == VAGX_JOB_STATUS_OK || st == VAGX_JOB_STATUS_ABORTED)
      return false; /* aborts: the reason was recorded by whoever set the flag */
   core_render_report(job, &f, f.worker <= core->pool.nworkers ? &r->rctx[f.worker] : NULL);
   return false;
}

void core_render_report(struct core_job *job, const struct vagx_render_fault *f,
                        const struct core_run_ctx *rc)
{
   if (f->status == VAGX_JOB_STATUS_MMU_FAULT) {
      struct core_fault cf;
      if (rc && rc->faulted) {
         cf = rc->fault;
      } else {
         cf = (struct core_fault){.va = f->address, .root = job->hdr.pt_root,
                                  .access = (f->access & VAGX_USC_ACC_WRITE) ? VAGX_FAULT_ACCESS_WRITE
                                                                             : VAGX_FAULT_ACCESS_READ,
                                  .reason = VAGX_FAULT_REASON_NOT_PRESENT,
                                  .level = VAGX_PT_LEVELS - 1};
      }
      cf.unit = f->unit;
      core_job_fault(job, &cf);
      return;
   }
   core_job_fail(job, f->status, f->unit, f->detail, f->address);
}

struct vagx_render_device *core_render_device(struct vagx_core *core, unsigned q)
{
   if (!core->render_dev[q])
      core->render_dev[q] = vagx_render_device_create();
   return core->render_dev[q];
}

void core_render_free(struct core_job *job)
{
   if (!job->render)
      return;
   free(job->render->rctx);
   free(job->render);
   job->render = NULL;
}

void core_render_fini(struct vagx_core *core)
{
   for (unsigned q = 0; q < VAGX_MAX_QUEUES; q++) {
      if (core->render_dev[q])
         vagx_render_device_destroy(core->render_dev[q]);
      core->render_dev[q] = NULL;
   }
}

