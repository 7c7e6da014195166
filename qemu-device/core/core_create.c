/* SPDX-License-Identifier: MIT */
/*
 * Creation and destruction of a core: configuration defaults, locks, the
 * power-on register values, the worker pool; destroy drops every job first.
 */
#include "core_priv.h"

#include <stdlib.h>
#include <unistd.h>

/* Frees what vagx_core_create allocated besides the pool (stopped). */
static void free_core(struct vagx_core *core)
{
   if (core->usc_cache)
      vagx_usc_cache_destroy(core->usc_cache);
   free(core->fe.sink);
   pthread_cond_destroy(&core->cond);
   pthread_mutex_destroy(&core->lock);
   free(core);
}

struct vagx_core *vagx_core_create(const struct vagx_core_host_ops *ops, void *opaque,
                                   const struct vagx_core_config *cfg)
{
   if (!ops || !ops->read || !ops->write || !ops->now_ns)
      return NULL;
   struct vagx_core *core = calloc(1, sizeof(*core));
   if (!core)
      return NULL;
   core->ops = *ops;
   core->opaque = opaque;
   if (cfg)
      core->cfg = *cfg;
   core->nqueues = core->cfg.num_queues ? core->cfg.num_queues
                                        : VAGX_CONFIG_NUM_QUEUES_GET(VAGX_REG_CONFIG_RESET);
   if (core->nqueues > VAGX_MAX_QUEUES)
      core->nqueues = VAGX_MAX_QUEUES;
   core->nheads = core->cfg.num_heads ? core->cfg.num_heads
                                      : VAGX_CONFIG_NUM_SCANOUTS_GET(VAGX_REG_CONFIG_RESET);
   if (core->nheads > VAGX_SCANOUT_MAX_HEADS)
      core->nheads = VAGX_SCANOUT_MAX_HEADS;
   for (unsigned h = 0; h < VAGX_SCANOUT_MAX_HEADS; h++)
      core->head_connected[h] = true;
   unsigned nw = core->cfg.num_workers;
   if (!nw) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      nw = n > 0 ? (unsigned)n : 1;
   }
   unsigned maxw = VAGX_CONFIG_NUM_CORES__MASK >> VAGX_CONFIG_NUM_CORES__SHIFT;
   if (nw > maxw)
      nw = maxw;
   core->cfg.num_workers = nw;
   if (!core->cfg.tg_per_slice)
      core->cfg.tg_per_slice = 16;
   if (!core->cfg.copy_slice_bytes)
      core->cfg.copy_slice_bytes = 1u << 20;

   pthread_mutex_init(&core->lock, NULL);
   pthread_condattr_t ca;
   pthread_condattr_init(&ca);
   pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
   pthread_cond_init(&core->cond, &ca);
   pthread_condattr_destroy(&ca);
   core_regs_reset_values(core);

   core->fe.sink = aligned_alloc(VAGX_PAGE_SIZE, VAGX_PAGE_SIZE);
   if (!core->fe.sink)
      goto fail;
   core->fe.core = core;
   core_mmu_ctx_init(&core->fe.mmu, core);
   core->usc_cache = vagx_usc_cache_create();
   if (!core->usc_cache)
      goto fail;
   if (core_pool_init(&core->pool, core, nw)) {
      core_pool_fini(&core->pool);
      goto fail;
   }
   return core;
fail:
   free_core(core);
   return NULL;
}

void vagx_core_destroy(struct vagx_core *core)
{
   if (!core)
      return;
   vagx_core_frontend_stop(core);
   /* Abort everything, let the workers finish their slices, then stop them. */
   pthread_mutex_lock(&core->lock);
   for (unsigned q = 0; q < core->nqueues; q++)
      core_drop_job_locked(core, q);
   pthread_mutex_unlock(&core->lock);
   core_pool_fini(&core->pool);
   core_drop_all_jobs(core);
   core_render_fini(core);
   free_core(core);
}
