/* SPDX-License-Identifier: MIT */
/* vagx renderer: job entry point, memory access, program binding, errors. */
#include <stdio.h>

#include "render_grow.h"
#include "render_priv.h"
#include "usc_simd.h"

struct vagx_render_device *vagx_render_device_create(void)
{
   struct vagx_render_device *d = calloc(1, sizeof(*d));
   if (!d)
      return NULL;
   d->cache = vagx_usc_cache_create();
   if (!d->cache) {
      free(d);
      return NULL;
   }
   const char *env = getenv("VAGX_RENDER_OPTIONS");
   d->forced_options = env ? (unsigned)strtoul(env, NULL, 0) : 0;
   d->options = d->forced_options;
   return d;
}

static void free_workers(struct vagx_render_device *d)
{
   for (unsigned i = 0; i < d->nw; i++) {
      if (d->w[i].usc)
         vagx_usc_destroy(d->w[i].usc);
      free(d->w[i].tb);
      free(d->w[i].depth);
      free(d->w[i].stencil);
      free(d->w[i].vis);
      free(d->w[i].dc);
   }
   free(d->w);
   d->w = NULL;
   d->nw = 0;
}

void vagx_render_device_destroy(struct vagx_render_device *d)
{
   if (!d)
      return;
   free_workers(d);
   r_keep_free(&d->keep);
   vagx_usc_cache_destroy(d->cache);
   free(d);
}

bool r_ensure_workers(struct vagx_render_device *d, unsigned n)
{
   if (d->nw >= n)
      return true;
   free_workers(d);
   d->w = aligned_alloc(_Alignof(struct rworker), n * sizeof(*d->w));
   if (!d->w)
      return false;
   memset(d->w, 0, n * sizeof(*d->w));
   d->nw = n;
   for (unsigned i = 0; i < n; i++) {
      struct rworker *w = &d->w[i];
      w->usc = vagx_usc_create();
      w->tb = malloc((size_t)VAGX_MAX_RENDER_TARGETS * VAGX_MAX_SAMPLES * R_TS * R_TS * 16);
      w->depth = malloc(sizeof(float) * VAGX_MAX_SAMPLES * R_TS * R_TS);
      w->stencil = malloc(VAGX_MAX_SAMPLES * R_TS * R_TS);
      w->vis = malloc(sizeof(*w->vis) * VAGX_MAX_SAMPLES * R_TS * R_TS);
      w->dc = calloc(1, sizeof(*w->dc));
      if (!w->usc || !w->tb || !w->depth || !w->stencil || !w->vis || !w->dc)
         return false;
   }
   return true;
}

void vagx_render_get_stats(const struct vagx_render_device *dev, struct vagx_render_stats *stats)
{
   *stats = dev->stats;
}

void vagx_render_set_options(struct vagx_render_device *dev, unsigned options)
{
   dev->options = options | dev->forced_options;
}

void vagx_render_set_geometry_budget(struct vagx_render_device *dev, uint64_t bytes)
{
   dev->geom_budget = bytes;
}

/* The host memory of the geometry phase grows with what is charged here, so
 * no control stream can make the device allocate without bound. */
bool r_geom_charge(struct rjob *j, uint64_t bytes)
{
   return r_budget_charge(j, bytes, VAGX_UNIT_PPP, j->draw_va);
}

bool r_budget_charge(struct rjob *j, uint64_t bytes, enum vagx_unit unit, uint64_t addr)
{
   if (atomic_fetch_add_explicit(&j->geom_used, bytes, memory_order_relaxed) + bytes <=
       j->geom_budget)
      return true;
   r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, unit, 0, addr);
   return false;
}

/* What the budget's costs must cover (render.md, geometry budget). */
_Static_assert(sizeof(struct rprog) + sizeof(uint32_t) * VAGX_MAX_UNIFORMS + sizeof(struct rprog *) <=
                  VAGX_RENDER_GEOMETRY_BIND_COST,
               "bind cost");
_Static_assert(sizeof(struct rdraw) <= VAGX_RENDER_GEOMETRY_DRAW_COST, "draw cost");
_Static_assert(sizeof(struct rquery) <= VAGX_RENDER_GEOMETRY_QUERY_COST, "query cost");

void vagx_render_run_serial(void *opaque, unsigned n_items, vagx_render_item_fn fn, void *ctx)
{
   (void)opaque;
   for (unsigned i = 0; i < n_items; i++)
      fn(ctx, i, 0);
}

/* ------------------------------------------------------------ errors -- */

/* Set while a worker shades a vertex group in parallel (render_geom_par.c):
 * its failures are recorded here, not in the job, because the job's error
 * must be the one of the first group in order, which the calling thread
 * then reproduces by running that group again.  Aborts are not deferred. */
static _Thread_local bool *r_deferred;

void r_defer_failures(bool *failed)
{
   r_deferred = failed;
}

void r_fail(struct rjob *j, enum vagx_job_status st, enum vagx_unit unit, uint32_t detail,
            uint64_t addr)
{
   if (r_deferred && st != VAGX_JOB_STATUS_ABORTED) {
      *r_deferred = true;
      return;
   }
   pthread_mutex_lock(&j->lock);
   if (!atomic_load(&j->failed)) {
      j->fault.status = st;
      j->fault.unit = unit;
      j->fault.detail = detail;
      j->fault.address = addr;
      atomic_store(&j->failed, true);
   }
   pthread_mutex_unlock(&j->lock);
}

void r_fault(struct rjob *j, unsigned worker, enum vagx_unit unit, uint64_t va, unsigned access)
{
   if (r_deferred) {
      *r_deferred = true;
      return;
   }
   pthread_mutex_lock(&j->lock);
   if (!atomic_load(&j->failed)) {
      j->fault.status = VAGX_JOB_STATUS_MMU_FAULT;
      j->fault.unit = unit;
      j->fault.detail = 0;
      j->fault.address = va;
      j->fault.access = access;
      j->fault.worker = worker;
      atomic_store(&j->failed, true);
   }
   pthread_mutex_unlock(&j->lock);
}

bool r_checkpoint(struct rjob *j, unsigned worker)
{
   r_safepoint(j, worker);
   return r_stop(j);
}

bool r_stop(struct rjob *j)
{
   if (atomic_load_explicit(&j->failed, memory_order_relaxed))
      return true;
   if (j->env->abort && atomic_load_explicit(j->env->abort, memory_order_relaxed)) {
      r_fail(j, VAGX_JOB_STATUS_ABORTED, VAGX_UNIT_NONE, 0, 0);
      return true;
   }
   return false;
}

/* ------------------------------------------------------------ memory -- */

void r_run(struct rjob *j, unsigned n, vagx_render_item_fn fn, void *ctx)
{
   j->env->run(j->env->run_opaque, n, fn, ctx);
   /* Every item has returned: no other thread uses dev->w now. */
   for (unsigned i = 0; i <= j->env->nworkers; i++)
      j->dev->w[i].safepoints++;
}

void r_safepoint(struct rjob *j, unsigned worker)
{
   const struct vagx_usc_mem_ops *m = j->env->mem;
   if (!m->safepoint || m->safepoint(j->dev->w[worker].mem_ctx))
      j->dev->w[worker].safepoints++;
}

void *r_mem_ctx(struct rjob *j, unsigned worker)
{
   const struct vagx_render_env *e = j->env;
   return e->mem_ctx ? e->mem_ctx(e->mem_opaque, worker) : e->mem_opaque;
}

void *r_map(struct rjob *j, unsigned worker, uint64_t va, uint32_t size, unsigned access,
            enum vagx_unit unit)
{
   uint64_t span = 0;
   void *p = j->env->mem->translate(j->dev->w[worker].mem_ctx, va, size, access, &span);
   if (!p || span < size) {
      r_fault(j, worker, unit, va, access);
      return NULL;
   }
   return p;
}

/* Copies len bytes at va out of the job's memory into `out` (a read) or
 * from `in` into it (a write, out NULL), span by span as the translation
 * gives them; the first address that does not translate is the fault. */
static bool r_copy(struct rjob *j, unsigned worker, uint64_t va, uint8_t *out, const uint8_t *in,
                   uint64_t len, enum vagx_unit unit)
{
   const unsigned acc = out ? VAGX_USC_ACC_READ : VAGX_USC_ACC_WRITE;
   while (len) {
      uint64_t span = 0;
      uint32_t chunk = len > 4096 ? 4096 : (uint32_t)len;
      void *p = j->env->mem->translate(j->dev->w[worker].mem_ctx, va, 1, acc, &span);
      if (!p) {
         r_fault(j, worker, unit, va, acc);
         return false;
      }
      if (span < chunk)
         chunk = (uint32_t)span;
      if (out) {
         memcpy(out, p, chunk);
         out += chunk;
      } else {
         memcpy(p, in, chunk);
         in += chunk;
      }
      va += chunk;
      len -= chunk;
   }
   return true;
}

bool r_read(struct rjob *j, unsigned worker, uint64_t va, void *dst, uint64_t len,
            enum vagx_unit unit)
{
   return r_copy(j, worker, va, dst, NULL, len, unit);
}

bool r_write(struct rjob *j, unsigned worker, uint64_t va, const void *src, uint64_t len,
             enum vagx_unit unit)
{
   return r_copy(j, worker, va, NULL, src, len, unit);
}

/* ------------------------------------------------------------ programs -- */

void r_usc_env(struct rjob *j, unsigned worker, const struct rprog *p, struct vagx_usc_env *env,
               const struct vagx_usc_gfx_ops *gfx, void *gfx_ctx)
{
   memset(env, 0, sizeof(*env));
   env->mem = j->env->mem;
   env->mem_ctx = j->dev->w[worker].mem_ctx;
   env->gfx = gfx;
   env->gfx_ctx = gfx_ctx;
   env->abort = j->env->abort;
   env->no_jit = (j->dev->options & VAGX_RENDER_OPT_NO_JIT) != 0;
   env->safepoints = &j->dev->w[worker].safepoints;
   if (p) {
      env->uniforms = p->uniforms;
      env->nuniforms = p->desc.uniform_count;
      env->stack_bytes = p->desc.stack_size;
   }
}

void r_usc_fail(struct rjob *j, unsigned worker, const struct vagx_usc_result *res,
                const struct rprog *p)
{
   uint64_t code = p ? p->desc.code_va : 0;
   switch (res->status) {
   case VAGX_USC_OK:
   case VAGX_USC_BUDGET:
      return;
   case VAGX_USC_ABORTED:
      r_fail(j, VAGX_JOB_STATUS_ABORTED, VAGX_UNIT_USC, 0, 0);
      return;
   case VAGX_USC_ILLEGAL_INSTRUCTION:
      r_fail(j, VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, (uint32_t)res->isa_err,
             code + res->pc);
      return;
   case VAGX_USC_FAULT:
      /* Our own hooks record their fault before returning FAULT; this is a
       * no-op then (first error wins). */
      if (res->fault_access & (VAGX_USC_ACC_SHARED | VAGX_USC_ACC_STACK | VAGX_USC_ACC_UNALIGNED))
         r_fail(j, VAGX_JOB_STATUS_ILLEGAL_INSTRUCTION, VAGX_UNIT_USC, 0, code + res->pc);
      else
         r_fault(j, worker, VAGX_UNIT_USC, res->fault_va, res->fault_access);
      return;
   case VAGX_USC_NOT_IMPLEMENTED:
      r_fail(j, VAGX_JOB_STATUS_UNSUPPORTED, VAGX_UNIT_USC, 0, code + res->pc);
      return;
   default:
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_USC, 0, code + res->pc);
      return;
   }
}

/* Has the job bound decoded program p before?  Else records it (open
 * addressing on the pointer; the table's memory is within the program's
 * charge). */
static bool seen_program(struct rjob *j, const void *p, bool *seen)
{
   if (2 * (j->npset + 1) > j->cap_pset) {
      unsigned cap = j->cap_pset ? 2 * j->cap_pset : 64;
      const void **t = calloc(cap, sizeof(*t));
      if (!t)
         return false;
      for (unsigned i = 0; i < j->cap_pset; i++) {
         if (!j->pset[i])
            continue;
         unsigned h = (unsigned)(((uintptr_t)j->pset[i] >> 4) * 0x9e3779b1u) & (cap - 1);
         while (t[h])
            h = (h + 1) & (cap - 1);
         t[h] = j->pset[i];
      }
      free(j->pset);
      j->pset = t;
      j->cap_pset = cap;
   }
   unsigned h = (unsigned)(((uintptr_t)p >> 4) * 0x9e3779b1u) & (j->cap_pset - 1);
   while (j->pset[h] && j->pset[h] != p)
      h = (h + 1) & (j->cap_pset - 1);
   *seen = j->pset[h] != NULL;
   if (!*seen) {
      j->pset[h] = p;
      j->npset++;
   }
   return true;
}

/* Binds a program: fetch/decode (through the cache) and read its uniforms.
 * Runs on the calling thread (worker index nworkers).  Everything it keeps
 * is charged to the job's budget: the record and its uniforms per bind, the
 * decoded program once per job (render.md, geometry budget). */
struct rprog *r_bind_program(struct rjob *j, const struct vagx_usc_program *d, enum vagx_unit unit,
                             uint64_t where)
{
   const unsigned fe = j->env->nworkers;
   const enum vagx_unit bunit = unit == VAGX_UNIT_USC ? VAGX_UNIT_JOB : unit;
   if (!r_budget_charge(j, VAGX_RENDER_GEOMETRY_BIND_COST, bunit, where))
      return NULL;
   struct rprog **progs = r_grow(j->progs, &j->cap_progs, j->nprogs + 1ull, sizeof(*progs), 16);
   if (!progs) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, unit, 0, 0);
      return NULL;
   }
   j->progs = progs;
   struct rprog *p = calloc(1, sizeof(*p));
   if (!p) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, unit, 0, 0);
      return NULL;
   }
   j->progs[j->nprogs++] = p;   /* freed by job_free from here on */
   p->desc = *d;
   if (d->uniform_count) {
      p->uniforms = calloc(d->uniform_count, 4);
      if (!p->uniforms) {
         r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, unit, 0, 0);
         return NULL;
      }
      if (!r_read(j, fe, d->uniform_va, p->uniforms, (uint64_t)d->uniform_count * 4, unit))
         return NULL;
   }
   struct vagx_usc_env env;
   r_usc_env(j, fe, p, &env, NULL, NULL);
   struct vagx_usc_result res;
   memset(&res, 0, sizeof(res));
   p->prog = vagx_usc_cache_get(j->cache, &env, j->env->root, d->code_va, &res);
   if (!p->prog) {
      if (res.status == VAGX_USC_OK)
         res.status = VAGX_USC_NOMEM;
      if (res.status == VAGX_USC_FAULT)
         r_fault(j, fe, unit, res.fault_va ? res.fault_va : d->code_va, VAGX_USC_ACC_EXEC);
      else
         r_usc_fail(j, fe, &res, p);
      return NULL;
   }
   p->cost = vagx_usc_program_cost(p->prog);
   bool seen;
   if (!seen_program(j, p->prog, &seen)) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, unit, 0, 0);
      return NULL;
   }
   if (!seen && !r_budget_charge(j, ((uint64_t)vagx_usc_program_words(p->prog) + 2) *
                                       VAGX_RENDER_GEOMETRY_CODE_COST,
                                 bunit, where))
      return NULL;
   return p;
}

/* ------------------------------------------------------------ job -- */

static void job_free(struct rjob *j)
{
   for (unsigned i = 0; i < j->nprogs; i++) {
      vagx_usc_cache_put(j->progs[i]->prog);
      free(j->progs[i]->uniforms);
      free(j->progs[i]);
   }
   free(j->progs);
   free(j->pset);
   free(j->draws);
   r_primbuf_release(j);
   free(j->refs);
   free(j->queries);
   free(j->bg_tmpl);
   for (unsigned i = 0; i < R_FAST_MAX; i++)
      free(j->eot_row[i]);
   free(j->items);
   pthread_mutex_destroy(&j->lock);
}

struct rj_ctx {
   struct rjob *j;
};

static void tile_item(void *ctx, unsigned item, unsigned worker)
{
   struct rjob *j = ctx;
   const uint32_t v = j->items ? j->items[item] : item;
#ifdef R_HAVE_TILE_AVX2
   if (j->tile_avx2) {
      if (v & R_BAND)
         r_band_avx2(j, v & ~R_BAND, worker);
      else
         r_tile_avx2(j, v, worker);
      return;
   }
#endif
   if (v & R_BAND)
      r_band(j, v & ~R_BAND, worker);
   else
      r_tile(j, v, worker);
}

/* Work items of the tile phase: every tile, except that a row of tiles no
 * primitive touched becomes one band item when the background and
 * end-of-tile fast paths let it be stored as whole framebuffer rows. */
static void make_items(struct rjob *j)
{
   if (!j->band_ok)
      return;
   j->items = malloc(sizeof(*j->items) * (size_t)j->tiles_x * j->tiles_y);
   if (!j->items)
      return;   /* one item per tile */
   for (unsigned ty = 0; ty < j->tiles_y; ty++) {
      bool empty = true;
      for (unsigned tx = 0; tx < j->tiles_x && empty; tx++)
         empty = !j->bins[ty * j->tiles_x + tx].n;
      if (empty) {
         j->items[j->nitems++] = R_BAND | ty;
         continue;
      }
      for (unsigned tx = 0; tx < j->tiles_x; tx++)
         j->items[j->nitems++] = ty * j->tiles_x + tx;
   }
}

static bool setup(struct rjob *j)
{
   const unsigned fe = j->env->nworkers;
   uint32_t raw[VAGX_RENDER_JOB_DWORDS];
   if (!r_read(j, fe, j->desc_va, raw, sizeof(raw), VAGX_UNIT_JOB))
      return false;
   const char *err = NULL;
   if (!vagx_render_job_unpack(raw, &j->rj, &err)) {
      r_fail(j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_JOB, 0, j->desc_va);
      return false;
   }
   struct vagx_render_job *rj = &j->rj;
   j->samples = rj->samples == VAGX_MSAA_4X ? 4 : 1;
   uint32_t off = 0;
   for (unsigned i = 0; i < rj->rt_count; i++) {
      enum vagx_format f = rj->rt_format[i];
      if (!vagx_format_is_valid(f) || !vagx_format_render(f)) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_JOB, 16 + i, j->desc_va);
         return false;
      }
      j->rt_bpp[i] = vagx_format_bytes_per_block(f);
      j->rt_off[i] = off;
      off += j->rt_bpp[i] * j->samples * R_TS * R_TS;
   }
   j->tb_used = off;
   if (rj->zs_desc_va) {
      uint32_t t[VAGX_TEXTURE_DWORDS];
      if (!r_read(j, fe, rj->zs_desc_va, t, sizeof(t), VAGX_UNIT_JOB))
         return false;
      if (!vagx_texture_unpack(t, &j->zs, &err) || !vagx_format_is_valid(j->zs.format) ||
          vagx_format_kind(j->zs.format) != VAGX_FORMAT_KIND_DEPTH_STENCIL ||
          j->zs.samples != rj->samples || rj->zs_level >= j->zs.levels ||
          rj->zs_layer >= j->zs.depth || !r_layout_from_texture(&j->zs, &j->zs_layout)) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_DESCRIPTOR, VAGX_UNIT_JOB, 32, rj->zs_desc_va);
         return false;
      }
      j->have_zs = true;
   }
   j->tiles_x = vagx_tiles(rj->width);
   j->tiles_y = vagx_tiles(rj->height);
   if (!r_bins_alloc(j, (size_t)j->tiles_x * j->tiles_y)) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_JOB, 0, 0);
      return false;
   }
   struct rprog *p = r_bind_program(j, &rj->bg_program, VAGX_UNIT_USC, j->desc_va);
   if (!p)
      return false;
   j->bg = *p;
   p = r_bind_program(j, &rj->eot_program, VAGX_UNIT_USC, j->desc_va);
   if (!p)
      return false;
   j->eot = *p;
   j->tile_avx2 = usc_simd_level() >= USC_SIMD_AVX2_FMA;
   if (!(j->dev->options & VAGX_RENDER_OPT_NO_FAST_TILE))
      r_fast_setup(j);
   return true;
}

static void finish(struct rjob *j)
{
   const unsigned fe = j->env->nworkers;
   for (unsigned i = 0; i < j->nqueries && !atomic_load(&j->failed); i++) {
      struct rquery *q = &j->queries[i];
      uint64_t n = atomic_load(&q->count), v;
      if (q->type != VAGX_QUERY_TYPE_OCCLUSION_PREDICATE) {
         /* counters: occlusion (ISP), primitives generated/emitted (VDM) */
         const enum vagx_unit u =
            q->type == VAGX_QUERY_TYPE_OCCLUSION_COUNTER ? VAGX_UNIT_ISP : VAGX_UNIT_VDM;
         if (!r_read(j, fe, q->result_va, &v, 8, u))
            return;
         v += n;
         r_write(j, fe, q->result_va, &v, 8, u);
      } else if (n) {
         v = 1;
         r_write(j, fe, q->result_va, &v, 8, VAGX_UNIT_ISP);
      }
   }
   for (unsigned i = 0; i < j->neoj_ts && !atomic_load(&j->failed); i++) {
      uint64_t t = j->env->now_ns ? j->env->now_ns(j->env->now_opaque) : 0;
      r_write(j, fe, j->eoj_ts[i], &t, 8, VAGX_UNIT_VDM);
   }
}

enum vagx_job_status vagx_render_run(struct vagx_render_device *dev,
                                     const struct vagx_render_env *env, uint64_t desc_va,
                                     struct vagx_render_fault *fault)
{
   struct rjob *j = calloc(1, sizeof(*j));
   memset(fault, 0, sizeof(*fault));
   if (!j || !env || !env->mem || env->nworkers == 0 ||
       !r_ensure_workers(dev, env->nworkers + 1)) {
      free(j);
      fault->status = VAGX_JOB_STATUS_DEVICE_ERROR;
      return fault->status;
   }
   j->dev = dev;
   j->env = env;
   r_primbuf_adopt(j);
   j->cache = env->cache ? env->cache : dev->cache;
   if (!env->cache)
      vagx_usc_cache_invalidate(dev->cache);
   j->desc_va = desc_va;
   j->geom_budget = dev->geom_budget ? dev->geom_budget : VAGX_RENDER_GEOMETRY_BUDGET;
   pthread_mutex_init(&j->lock, NULL);
   memset(&dev->stats, 0, sizeof(dev->stats));
   for (unsigned i = 0; i <= env->nworkers; i++) {
      dev->w[i].mem_ctx = r_mem_ctx(j, i);
      dev->w[i].frag_lanes = 0;
      dev->w[i].fast_bg = dev->w[i].fast_eot = dev->w[i].fast_bands = 0;
      dev->w[i].dc->ntex = dev->w[i].dc->nsmp = 0;
   }

   if (setup(j)) {
      r_geometry(j);
      if (!r_stop(j)) {
         unsigned n = j->tiles_x * j->tiles_y;
         make_items(j);
         if (j->items)
            n = j->nitems;
         if (env->run)
            r_run(j, n, tile_item, j);
         else
            vagx_render_run_serial(NULL, n, tile_item, j);
      }
      if (!r_stop(j))
         finish(j);
   }
   for (unsigned i = 0; i <= env->nworkers; i++) {
      dev->stats.fragment_lanes += dev->w[i].frag_lanes;
      dev->stats.fast_bg_tiles += dev->w[i].fast_bg;
      dev->stats.fast_eot_tiles += dev->w[i].fast_eot;
      dev->stats.fast_bands += dev->w[i].fast_bands;
   }
   if (j->bins)
      for (unsigned i = 0; i < j->tiles_x * j->tiles_y; i++)
         dev->stats.bin_entries += j->bins[i].n;
   dev->stats.par_vertex_groups = j->par_groups;
   dev->stats.par_prim_chunks = j->par_chunks;
   enum vagx_job_status st = VAGX_JOB_STATUS_OK;
   if (atomic_load(&j->failed)) {
      *fault = j->fault;
      st = fault->status;
   } else {
      fault->status = st;
   }
   job_free(j);
   free(j);
   if (env->cache == NULL)
      vagx_usc_cache_trim(dev->cache);
   return st;
}
