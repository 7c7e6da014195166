/* SPDX-License-Identifier: MIT */
/* vagx renderer: stream output (GL transform feedback).  Part of the
 * geometry front end: every primitive the VDM assembles passes through
 * r_so_primitive before clipping, so its declared vertex outputs land in the
 * stream-out buffers in primitive order (render.md, stream output). */
#include "render_priv.h"

/* The job's calling thread does all geometry work (worker index nworkers). */
static unsigned fe(const struct rjob *j) { return j->env->nworkers; }

static bool store_offset(struct rjob *j, const struct rso_buf *b)
{
   if (!b->offset_va)
      return true;
   return r_write(j, fe(j), b->offset_va, &b->offset, 4, VAGX_UNIT_VDM);
}

bool r_so_bind_buffer(struct rjob *j, const struct vagx_cmd_stream_out_buffer *c)
{
   struct rso_buf *b = &j->so.buf[c->index];
   memset(b, 0, sizeof(*b));
   if (!c->base_va)
      return true;
   b->bound = true;
   b->base_va = c->base_va;
   b->offset_va = c->offset_va;
   b->size = c->size;
   b->stride = c->stride;
   b->offset = c->offset;
   /* append: continue where an earlier binding (maybe of an earlier job)
    * stopped; the value is whatever the device stored there last. */
   if (c->append && !r_read(j, fe(j), c->offset_va, &b->offset, 4, VAGX_UNIT_VDM))
      return false;
   return store_offset(j, b);
}

bool r_so_set(struct rjob *j, const struct vagx_cmd_stream_out *c, uint64_t cmd_va)
{
   struct rso *so = &j->so;
   uint32_t w[VAGX_MAX_STREAM_OUT_DECLS];
   if (c->decl_count && !r_read(j, fe(j), c->decls_va, w, c->decl_count * 4u, VAGX_UNIT_VDM))
      return false;
   for (unsigned i = 0; i < c->decl_count; i++) {
      const char *err = NULL;
      if (!vagx_stream_out_decl_unpack(&w[i], &so->decl[i], &err)) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, cmd_va);
         return false;
      }
   }
   so->ndecl = c->decl_count;
   so->enable = c->enable;
   return true;
}

/* Checks the declarations against the draw's vertex pipeline and buffers:
 * what cannot be checked when cmd_stream_out is parsed (the pipeline and
 * the bindings may change after it). */
bool r_so_draw_begin(struct rjob *j, unsigned nout, uint64_t draw_va)
{
   struct rso *so = &j->so;
   so->used = 0;
   so->active = so->enable || so->q_generated >= 0;
   if (!so->enable)
      return true;
   for (unsigned i = 0; i < so->ndecl; i++) {
      const struct vagx_stream_out_decl *d = &so->decl[i];
      const struct rso_buf *b = &so->buf[d->buffer];
      if (d->src + d->count > nout || !b->bound || (d->dst + d->count) * 4u > b->stride) {
         r_fail(j, VAGX_JOB_STATUS_INVALID_COMMAND, VAGX_UNIT_VDM, 0, draw_va);
         return false;
      }
      so->used |= 1u << d->buffer;
   }
   return true;
}

bool r_so_draw_end(struct rjob *j)
{
   struct rso *so = &j->so;
   if (!so->enable)
      return true;
   for (unsigned b = 0; b < VAGX_MAX_STREAM_OUT_BUFFERS; b++)
      if (so->buf[b].bound && !store_offset(j, &so->buf[b]))
         return false;
   return true;
}

/* v[0..nv) in rasterisation order with v[provoking] the provoking vertex.
 * Stream output writes the vertices rotated so that the provoking vertex is
 * the first (provoking_first) or the last one written, which gives GL's
 * order for strips and fans (render.md's table) from the order the
 * assembler uses for rasterisation. */
void r_so_primitive(struct rjob *j, const float *const *v, unsigned nv, unsigned provoking,
                    bool provoking_first)
{
   struct rso *so = &j->so;
   if (so->q_generated >= 0)
      atomic_fetch_add_explicit(&j->queries[so->q_generated].count, 1, memory_order_relaxed);
   if (!so->enable || r_stop(j))
      return;
   /* GL's overflow rule: all of a primitive or nothing, in every buffer */
   for (unsigned b = 0; b < VAGX_MAX_STREAM_OUT_BUFFERS; b++)
      if ((so->used >> b & 1) &&
          (uint64_t)so->buf[b].offset + (uint64_t)nv * so->buf[b].stride > so->buf[b].size)
         return;
   const unsigned start = provoking_first ? provoking : (provoking + 1) % nv;
   for (unsigned k = 0; k < nv; k++) {
      const float *src = v[(start + k) % nv];
      for (unsigned i = 0; i < so->ndecl; i++) {
         const struct vagx_stream_out_decl *d = &so->decl[i];
         const struct rso_buf *b = &so->buf[d->buffer];
         uint64_t va = b->base_va + b->offset + (uint64_t)k * b->stride + d->dst * 4u;
         if (!r_write(j, fe(j), va, src + d->src, d->count * 4u, VAGX_UNIT_PPP))
            return;
      }
   }
   for (unsigned b = 0; b < VAGX_MAX_STREAM_OUT_BUFFERS; b++)
      if (so->used >> b & 1)
         so->buf[b].offset += nv * so->buf[b].stride;
   if (so->q_emitted >= 0)
      atomic_fetch_add_explicit(&j->queries[so->q_emitted].count, 1, memory_order_relaxed);
}
