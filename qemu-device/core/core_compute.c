/* SPDX-License-Identifier: MIT */
/*
 * CDM: compute dispatch.  The front-end reads and validates the compute_job,
 * the indirect grid, the uniforms and the (cached, pre-decoded) program; the
 * grid's threadgroups are then claimed dynamically by up to NUM_CORES pool
 * tasks from an atomic cursor.  Each task runs cfg.tg_per_slice threadgroups
 * per slice through the USC interpreter (vagx_usc_run_threadgroup: SIMD
 * groups, threadgroup memory, barriers, atomics) and yields.  The job's abort
 * flag is checked between threadgroups and passed to the interpreter, which
 * polls it while a threadgroup runs, so enormous grids and endless loops stop
 * promptly on Q_ABORT, Q_RESET, RESET or timeout.  Texture and image
 * instructions go to the texture unit of the queue's renderer
 * (vagx_render_texunit_*), the same code as in render jobs.
 */
#include "core_priv.h"

#include <stdlib.h>

#include "render.h"

struct core_compute {
   struct vagx_compute_job desc;
   uint32_t grid[3];
   uint32_t *uniforms;
   const struct vagx_usc_decoded *prog; /* decoded program (usc.h) */
   struct vagx_usc_compute cs;
   /* the queue renderer's texture unit: tex, img_ld, img_st */
   struct vagx_render_env tex_env;
   struct vagx_render_texunit *tu;
};

static void *usc_translate(void *vctx, uint64_t va, uint32_t size, unsigned access,
                           uint64_t *span)
{
   struct core_run_ctx *r = vctx;
   struct core_worker *w = r->w;
   enum vagx_fault_access acc;
   if (access & VAGX_USC_ACC_EXEC)
      acc = VAGX_FAULT_ACCESS_EXEC;
   else if ((access & VAGX_USC_ACC_READ) && (access & VAGX_USC_ACC_WRITE))
      acc = VAGX_FAULT_ACCESS_ATOMIC;
   else if (access & VAGX_USC_ACC_WRITE)
      acc = VAGX_FAULT_ACCESS_WRITE;
   else
      acc = VAGX_FAULT_ACCESS_READ;

   struct core_xlate x;
   struct core_fault f;
   if (!core_mmu_translate(&w->mmu, r->root, va, acc, &x, &f))
      goto fault;
   uint64_t off = va % VAGX_PAGE_SIZE;
   uint8_t *p;
   if (x.null) {
      /* NULL: reads (and fetches) see zeros, writes and atomics land in a
       * per-thread sink page (atomics return 0). */
      if (access & VAGX_USC_ACC_WRITE) {
         memset(w->sink, 0, VAGX_PAGE_SIZE);
         p = w->sink + off;
      } else {
         p = (uint8_t *)(uintptr_t)(core_null_page + off);
      }
      *span = VAGX_PAGE_SIZE - off;
      if (size > *span)
         goto cross;
      return p;
   }
   if (!x.host) {
      f = (struct core_fault){.va = va, .root = r->root, .access = acc,
                              .reason = VAGX_FAULT_REASON_BUS_ERROR, .level = VAGX_PT_LEVELS - 1};
      goto fault;
   }
   p = x.host + off;
   *span = VAGX_PAGE_SIZE - off;
   /* An access crossing into the next page is allowed when both pages are
    * contiguous in host memory (guest RAM usually is). */
   while (*span < size) {
      struct core_xlate nx;
      uint64_t nva = va + *span;
      if (!core_mmu_translate(&w->mmu, r->root, nva, acc, &nx, &f))
         goto fault;
      if (nx.null || nx.host != p + *span)
         goto cross;
      *span += VAGX_PAGE_SIZE;
   }
   return p;
cross:
   f = (struct core_fault){.va = va, .root = r->root, .access = acc,
                           .reason = VAGX_FAULT_REASON_BUS_ERROR, .level = VAGX_PT_LEVELS - 1};
fault:
   if (!r->faulted && !(access & VAGX_USC_ACC_PROBE)) {
      r->faulted = true;
      r->fault = f;
   }
   return NULL;
}

/* Translations expire only when the worker's TLB was dropped since the
 * last safepoint of this context (here or at a slice start in between):
 * while it holds, every host address core_mmu_translate gave is still the
 * page's (a TLB hit would give it again), so the USC's and the renderer's
 * own caches of them may be kept. */
static bool usc_safepoint(void *vctx)
{
   struct core_run_ctx *r = vctx;
   core_worker_safepoint(r->w);
   const bool expired = r->seen_w != r->w || r->seen_drops != r->w->mmu.drops;
   if (expired) {
      /* written only then: the renderer calls this for every block */
      r->seen_w = r->w;
      r->seen_drops = r->w->mmu.drops;
   }
   return expired;
}

const uint8_t core_null_page[VAGX_PAGE_SIZE] __attribute__((aligned(64)));

const struct vagx_usc_mem_ops core_usc_mem_ops = {.translate = usc_translate,
                                                  .safepoint = usc_safepoint,
                                                  .null_page = core_null_page};

static void env_init(struct vagx_usc_env *env, struct core_job *job, struct core_run_ctx *r)
{
   memset(env, 0, sizeof(*env));
   env->mem = &core_usc_mem_ops;
   env->mem_ctx = r;
   env->abort = &job->abort;
   if (job->cs) {
      env->uniforms = job->cs->uniforms;
      env->nuniforms = job->cs->desc.program.uniform_count;
      env->stack_bytes = job->cs->desc.program.stack_size;
   }
}

/* Maps a USC failure to the job result. */
static void fail_from_usc(struct core_job *job, const struct vagx_usc_result *res,
                          const struct core_run_ctx *r, uint64_t code_va)
{
   switch (res->status) {
   case VAGX_USC_OK:
   case VAGX_USC_BUDGET:
      return;
   case VAGX_USC_ABORTED:
      return; /* reason recorded by whoever set the flag */
   case VAGX_USC_ILLEGAL_INSTRUCTION:
      core_job_fail(job, VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, (uint32_t)res->isa_err,
                    code_va + res->pc);
      return;
   case VAGX_USC_FAULT:
      if (r->faulted &&
          !(res->fault_access & (VAGX_USC_ACC_SHARED | VAGX_USC_ACC_STACK | VAGX_USC_ACC_UNALIGNED))) {
         struct core_fault f = r->fault;
         f.unit = VAGX_UNIT_USC;
         core_job_fault(job, &f);
      } else {
         /* Threadgroup-memory or private-stack overrun or misaligned
          * access: no MMU involved.
          * Reported as an illegal instruction at its PC (see the report). */
         core_job_fail(job, VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, 0,
                       code_va + res->pc);
      }
      return;
   case VAGX_USC_NOT_IMPLEMENTED:
      core_job_fail(job, VAGX_JOB_STATUS_UNSUPPORTED, VAGX_UNIT_USC, 0, code_va + res->pc);
      return;
   case VAGX_USC_BAD_DISPATCH:
      core_job_fail(job, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_CDM, 0, job->hdr.desc_va);
      return;
   case VAGX_USC_NOMEM:
   default:
      core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_USC, 0, 0);
      return;
   }
}

unsigned core_compute_setup(struct core_job *job, struct core_mmu_ctx *m)
{
   struct vagx_core *core = job->core;
   const uint64_t root = job->hdr.pt_root;
   struct core_fault f;
   uint32_t raw[VAGX_COMPUTE_JOB_DWORDS];

   if (!core_mmu_read(m, root, job->hdr.desc_va, raw, sizeof(raw), &f)) {
      f.unit = VAGX_UNIT_CDM;
      core_job_fault(job, &f);
      return 0;
   }
   struct core_compute *cs = calloc(1, sizeof(*cs));
   if (!cs) {
      core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_CDM, 0, 0);
      return 0;
   }
   job->cs = cs;
   const char *err = NULL;
   if (!vagx_compute_job_unpack(raw, &cs->desc, &err)) {
      core_job_fail(job, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_CDM, 0, job->hdr.desc_va);
      return 0;
   }
   const struct vagx_compute_job *d = &cs->desc;
   if (d->indirect) {
      uint32_t g[3];
      if (!core_mmu_read(m, root, d->indirect_va, g, sizeof(g), &f)) {
         f.unit = VAGX_UNIT_CDM;
         core_job_fault(job, &f);
         return 0;
      }
      memcpy(cs->grid, g, sizeof(g));
   } else {
      cs->grid[0] = d->grid_x;
      cs->grid[1] = d->grid_y;
      cs->grid[2] = d->grid_z;
   }
   /* Threadgroup count, saturating: a grid beyond 2^64 groups is endless in
    * practice and stops only by abort/timeout/reset. */
   unsigned __int128 total = (unsigned __int128)cs->grid[0] * cs->grid[1] * cs->grid[2];
   job->total = total > UINT64_MAX ? UINT64_MAX : (uint64_t)total;
   if (!job->total)
      return 0;

   if (d->program.uniform_count) {
      cs->uniforms = calloc(d->program.uniform_count, sizeof(uint32_t));
      if (!cs->uniforms) {
         core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_CDM, 0, 0);
         return 0;
      }
      if (!core_mmu_read(m, root, d->program.uniform_va, cs->uniforms,
                         (uint64_t)d->program.uniform_count * 4, &f)) {
         f.unit = VAGX_UNIT_CDM;
         core_job_fault(job, &f);
         return 0;
      }
   }
   for (unsigned i = 0; i < 3; i++)
      cs->cs.ngroups[i] = cs->grid[i];
   cs->cs.tg_size[0] = d->tg_x;
   cs->cs.tg_size[1] = d->tg_y;
   cs->cs.tg_size[2] = d->tg_z;
   cs->cs.shared_bytes = d->shared_size;

   struct core_run_ctx r = {.w = &core->fe, .root = root};
   struct vagx_usc_env env;
   env_init(&env, job, &r);
   struct vagx_usc_result res = {0};
   /* usc.h: invalidate at every job start (code may have changed since). */
   vagx_usc_cache_invalidate(core->usc_cache);
   cs->prog = vagx_usc_cache_get(core->usc_cache, &env, root, d->program.code_va, &res);
   if (!cs->prog) {
      if (res.status == VAGX_USC_OK)
         res.status = VAGX_USC_NOMEM;
      fail_from_usc(job, &res, &r, d->program.code_va);
      return 0;
   }
   struct vagx_render_device *rdev = core_render_device(core, job->q);
   cs->tex_env.mem = &core_usc_mem_ops;
   cs->tex_env.nworkers = core->pool.nworkers;
   cs->tex_env.abort = &job->abort;
   cs->tu = rdev ? vagx_render_texunit_begin(rdev, &cs->tex_env, &d->program) : NULL;
   if (!cs->tu) {
      core_job_fail(job, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_CDM, 0, 0);
      return 0;
   }
   uint64_t n = core->pool.nworkers;
   return (unsigned)(job->total < n ? job->total : n);
}

bool core_compute_task(struct core_worker *w, struct core_task *t)
{
   struct core_job *job = t->job;
   struct core_compute *cs = job->cs;
   const uint64_t gx = cs->grid[0], gxy = (uint64_t)cs->grid[0] * cs->grid[1];
   struct core_run_ctx r = {.w = w, .root = job->hdr.pt_root};
   struct vagx_usc_env env;
   env_init(&env, job, &r);
   vagx_render_texunit_bind(cs->tu, w->index, &r, &env);

   for (unsigned n = 0; n < w->core->cfg.tg_per_slice; n++) {
      if (atomic_load_explicit(&job->abort, memory_order_relaxed))
         return false;
      uint64_t i = atomic_fetch_add(&job->cursor, 1);
      if (i >= job->total)
         return false;
      uint32_t tgid[3] = {(uint32_t)(i % gx), (uint32_t)((i / gx) % cs->grid[1]),
                          (uint32_t)(i / gxy)};
      struct vagx_usc_result res = {0};
      r.faulted = false;
      enum vagx_usc_status st = vagx_usc_run_threadgroup(w->usc, cs->prog, &env, &cs->cs, tgid, &res);
      if (st != VAGX_USC_OK) {
         struct vagx_render_fault rf;
         if (vagx_render_texunit_error(cs->tu, &rf)) {
            core_render_report(job, &rf, rf.worker == w->index ? &r : NULL);
            return false;
         }
         res.status = st;
         fail_from_usc(job, &res, &r, cs->desc.program.code_va);
         return false;
      }
   }
   return true;
}

void core_compute_free(struct core_job *job)
{
   if (!job->cs)
      return;
   vagx_usc_cache_put(job->cs->prog);   /* the reference vagx_usc_cache_get gave */
   vagx_render_texunit_end(job->cs->tu);
   free(job->cs->uniforms);
   free(job->cs);
   job->cs = NULL;
}

void core_compute_trim(struct vagx_core *core)
{
   vagx_usc_cache_trim(core->usc_cache);
}

int core_worker_usc_init(struct core_worker *w)
{
   w->usc = vagx_usc_create();
   return w->usc ? 0 : -1;
}

void core_worker_usc_fini(struct core_worker *w)
{
   vagx_usc_destroy(w->usc);
   w->usc = NULL;
}

