/* SPDX-License-Identifier: MIT */
/* vagx renderer: the geometry phase across workers.  The calling thread
 * reads the control stream, fetches indices, assembles primitives and keeps
 * every result in order; what costs (vertex shading of a batch's 32-vertex
 * groups, clipping, set-up and binning of its primitives) runs on the pool.
 * The job's results are those of the serial order, bit for bit: vertex
 * groups write disjoint outputs, primitive chunks fill their own buffers
 * that are appended to the job's in order, and an error is the one the
 * serial order meets first (VAGX_RENDER_OPT_SERIAL_GEOMETRY is that order;
 * test_render_geometry compares the two). */
#include "render_grow.h"
#include "render_priv.h"

#define R_VS_GROUP 32
/* below these, a parallel-for costs more than it saves (a wake-up and a
 * wait against a few microseconds of work per group or chunk) */
#define R_PAR_MIN_GROUPS 4
#define R_PPP_CHUNK 96
#define R_PAR_MIN_PRIMS (2 * R_PPP_CHUNK)

static bool parallel(const struct rjob *j)
{
   return j->env->run && !(j->dev->options & VAGX_RENDER_OPT_SERIAL_GEOMETRY);
}

struct vs_par {
   struct rjob *j;
   const struct rprog *vs;
   const int64_t *ids;
   unsigned n, nout;
   uint32_t instance;
   float *out;
   bool failed[R_VTX_BATCH / R_VS_GROUP];
};

static void vs_group(void *ctx, unsigned g, unsigned worker)
{
   struct vs_par *p = ctx;
   const unsigned base = g * R_VS_GROUP;
   const unsigned n = p->n - base < R_VS_GROUP ? p->n - base : R_VS_GROUP;
   bool failed = false;
   r_defer_failures(&failed);
   const bool ok = r_run_vs(p->j, worker, p->vs, p->ids + base, n, p->instance,
                            p->out + (size_t)base * p->nout, p->nout);
   r_defer_failures(NULL);
   p->failed[g] = failed || !ok;
}

bool r_shade_batch(struct rjob *j, const struct rprog *vs, const int64_t *ids, unsigned n,
                   uint32_t instance, float *out, unsigned nout)
{
   const unsigned fe = j->env->nworkers;
   const unsigned ng = (n + R_VS_GROUP - 1) / R_VS_GROUP;
   if (!parallel(j) || ng < R_PAR_MIN_GROUPS)
      return r_run_vs(j, fe, vs, ids, n, instance, out, nout);
   struct vs_par p = {.j = j, .vs = vs, .ids = ids, .n = n, .nout = nout,
                      .instance = instance, .out = out};
   r_run(j, ng, vs_group, &p);
   j->par_groups += ng;
   for (unsigned g = 0; g < ng; g++) {
      if (!p.failed[g])
         continue;
      /* The serial order would have stopped at group g with its error:
       * shade from g on again, in order, on this thread, where failures
       * reach the job (the groups before g are done and unchanged). */
      const unsigned base = g * R_VS_GROUP;
      return r_run_vs(j, fe, vs, ids + base, n - base, instance, out + (size_t)base * nout, nout);
   }
   return !r_checkpoint(j, fe);
}

/* Sets up queued primitives [from, to) of draw drawi into pb on `worker`. */
static void ppp_range(struct rjob *j, struct rprimbuf *pb, unsigned drawi, unsigned worker,
                      unsigned from, unsigned to)
{
   const struct rdraw *d = &j->draws[drawi];
   for (unsigned i = from; i < to; i++) {
      /* one primitive can bin into many tiles: check per primitive */
      if (r_checkpoint(j, worker))
         return;
      const struct rprimref *r = &j->refs[i];
      r_ppp_primitive(j, pb, d, drawi, &d->vpl, r->v, r->nv, r->provoking);
   }
}

struct ppp_par {
   struct rjob *j;
   unsigned drawi, n;         /* the draw, its queued primitives */
};

static void ppp_chunk(void *ctx, unsigned c, unsigned worker)
{
   const struct ppp_par *p = ctx;
   struct rprimbuf *pb = &p->j->chunks[c];
   pb->nprims = 0;
   pb->ncfs = 0;
   pb->nents = 0;
   pb->chunk = true;
   const unsigned end = (c + 1) * R_PPP_CHUNK < p->n ? (c + 1) * R_PPP_CHUNK : p->n;
   ppp_range(p->j, pb, p->drawi, worker, c * R_PPP_CHUNK, end);
}

void r_ppp_flush(struct rjob *j, unsigned drawi)
{
   const unsigned n = j->nrefs;
   j->nrefs = 0;
   if (!n)
      return;
   const unsigned nc = (n + R_PPP_CHUNK - 1) / R_PPP_CHUNK;
   if (!parallel(j) || n < R_PAR_MIN_PRIMS) {
      ppp_range(j, &j->pb, drawi, j->env->nworkers, 0, n);
      return;
   }
   struct rprimbuf *chunks = r_grow(j->chunks, &j->cap_chunks, nc, sizeof(*chunks), 1);
   if (!chunks) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
      return;
   }
   j->chunks = chunks;
   struct ppp_par p = {j, drawi, n};
   r_run(j, nc, ppp_chunk, &p);
   j->par_chunks += nc;
   for (unsigned c = 0; c < nc && !r_stop(j); c++)
      if (!r_primbuf_append(j, &j->chunks[c]))
         return;
}
