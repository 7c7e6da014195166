/* SPDX-License-Identifier: MIT */
/*
 * vagx renderer: the texture unit (tex, img_ld, img_st) for programs that
 * run outside a render job -- compute jobs (core_compute.c).  The samplers,
 * texel fetches, image loads and stores are render_tex.c's, on a job record
 * of their own that holds only what they use: the device's per-worker state
 * (translate context, descriptor cache, safepoint count), the options and
 * the first error.
 */
#include "render_priv.h"


struct tu_worker {
   struct vagx_render_texunit *tu;
   unsigned worker;
};

struct vagx_render_texunit {
   struct rjob j;
   struct rprog p;
   struct tu_worker *w;        /* gfx_ctx of each worker's runs */
};

static enum vagx_usc_status tu_exec(void *ctx, struct vagx_usc_gfx_call *call)
{
   struct tu_worker *w = ctx;
   struct rtexctx t = {&w->tu->j, w->worker, &w->tu->p, false};
   switch (call->instr->op) {
   case VAGX_OP_TEX:
      return r_tex_exec(&t, call);
   case VAGX_OP_IMG_LD:
   case VAGX_OP_IMG_ST:
      return r_img_exec(&t, call, -1);
   default:
      /* varyings, tile buffer, vertex output, discard: there is no
       * rasteriser or tile behind a compute program */
      return VAGX_USC_ILLEGAL_INSTRUCTION;
   }
}
static const struct vagx_usc_gfx_ops tu_ops = {.exec = tu_exec};

struct vagx_render_texunit *vagx_render_texunit_begin(struct vagx_render_device *dev,
                                                      const struct vagx_render_env *env,
                                                      const struct vagx_usc_program *prog)
{
   if (!env || !env->mem || env->nworkers == 0 || !r_ensure_workers(dev, env->nworkers + 1))
      return NULL;
   struct vagx_render_texunit *tu = calloc(1, sizeof(*tu));
   if (!tu)
      return NULL;
   tu->w = calloc(env->nworkers + 1, sizeof(*tu->w));
   if (!tu->w) {
      free(tu);
      return NULL;
   }
   tu->j.dev = dev;
   tu->j.env = env;
   pthread_mutex_init(&tu->j.lock, NULL);
   tu->p.desc = *prog;
   /* descriptors are read when the job first uses them (descriptors.md) */
   for (unsigned i = 0; i <= env->nworkers; i++) {
      tu->w[i].tu = tu;
      tu->w[i].worker = i;
      dev->w[i].dc->ntex = dev->w[i].dc->nsmp = 0;
   }
   return tu;
}

void vagx_render_texunit_bind(struct vagx_render_texunit *tu, unsigned worker, void *mem_ctx,
                              struct vagx_usc_env *env)
{
   struct rworker *w = &tu->j.dev->w[worker];
   w->mem_ctx = mem_ctx;
   /* a new translate context: spans kept from the last one are stale */
   w->safepoints++;
   env->gfx = &tu_ops;
   env->gfx_ctx = &tu->w[worker];
   env->safepoints = &w->safepoints;
   env->no_jit = env->no_jit || (tu->j.dev->options & VAGX_RENDER_OPT_NO_JIT);
}

bool vagx_render_texunit_error(struct vagx_render_texunit *tu, struct vagx_render_fault *fault)
{
   if (!atomic_load(&tu->j.failed))
      return false;
   pthread_mutex_lock(&tu->j.lock);
   *fault = tu->j.fault;
   pthread_mutex_unlock(&tu->j.lock);
   return true;
}

void vagx_render_texunit_end(struct vagx_render_texunit *tu)
{
   if (!tu)
      return;
   pthread_mutex_destroy(&tu->j.lock);
   free(tu->w);
   free(tu);
}
