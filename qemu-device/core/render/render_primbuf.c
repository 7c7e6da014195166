/* SPDX-License-Identifier: MIT */
/* vagx renderer: the PPP's output (primitives, coefficient registers, bin
 * lists) and the in-order append of a primitive chunk's output to the job's.
 * Every byte kept here was charged to the geometry budget by the PPP. */
#include "render_priv.h"

bool r_grow_prims(struct rprimbuf *pb, uint64_t n)
{
   if (n <= pb->cap_prims)
      return true;
   if (n > UINT32_MAX)
      return false;
   uint64_t cap = pb->cap_prims ? 2ull * pb->cap_prims : 256;
   while (cap < n)
      cap *= 2;
   if (cap > UINT32_MAX)
      cap = UINT32_MAX;
   struct rprim *p = realloc(pb->prims, cap * sizeof(*p));
   if (!p)
      return false;
   pb->prims = p;
   pb->cap_prims = (uint32_t)cap;
   return true;
}

bool r_grow_cfs(struct rprimbuf *pb, uint64_t n)
{
   if (n <= pb->cap_cfs)
      return true;
   uint64_t cap = pb->cap_cfs ? 2 * pb->cap_cfs : 4096;
   while (cap < n)
      cap *= 2;
   struct rcf *c = realloc(pb->cfs, cap * sizeof(*c));
   if (!c)
      return false;
   pb->cfs = c;
   pb->cap_cfs = cap;
   return true;
}

bool r_bin_append(struct rlist *b, uint32_t prim)
{
   if (b->n == b->cap) {
      uint32_t cap = b->cap ? 2 * b->cap : 16;
      uint32_t *n = realloc(b->v, cap * sizeof(*n));
      if (!n)
         return false;
      b->v = n;
      b->cap = cap;
   }
   b->v[b->n++] = prim;
   return true;
}

bool r_log_bin(struct rprimbuf *pb, uint32_t tile, uint32_t prim)
{
   if (pb->nents == pb->cap_ents) {
      uint32_t cap = pb->cap_ents ? 2 * pb->cap_ents : 256;
      struct rbin_ent *n = realloc(pb->ents, cap * sizeof(*n));
      if (!n)
         return false;
      pb->ents = n;
      pb->cap_ents = cap;
   }
   pb->ents[pb->nents++] = (struct rbin_ent){tile, prim};
   return true;
}

bool r_primbuf_append(struct rjob *j, const struct rprimbuf *c)
{
   struct rprimbuf *pb = &j->pb;
   const uint32_t pbase = pb->nprims;
   const uint64_t cbase = pb->ncfs;
   /* primitive ids and coefficient indices are 32-bit, as in the serial PPP
    * (the geometry budget keeps both far below) */
   if (!r_grow_prims(pb, (uint64_t)pbase + c->nprims) || !r_grow_cfs(pb, cbase + c->ncfs) ||
       cbase + c->ncfs > UINT32_MAX) {
      r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
      return false;
   }
   if (!c->nprims)
      return true;   /* everything culled (then no coefficients, no bins) */
   memcpy(pb->prims + pbase, c->prims, (size_t)c->nprims * sizeof(*c->prims));
   for (uint32_t i = 0; i < c->nprims; i++)
      pb->prims[pbase + i].cf += (uint32_t)cbase;
   memcpy(pb->cfs + cbase, c->cfs, (size_t)c->ncfs * sizeof(*c->cfs));
   pb->nprims += c->nprims;
   pb->ncfs += c->ncfs;
   for (uint32_t i = 0; i < c->nents; i++)
      if (!r_bin_append(&j->bins[c->ents[i].tile], pbase + c->ents[i].prim)) {
         r_fail(j, VAGX_JOB_STATUS_DEVICE_ERROR, VAGX_UNIT_PPP, 0, 0);
         return false;
      }
   return true;
}

void r_primbuf_free(struct rprimbuf *pb)
{
   free(pb->prims);
   free(pb->cfs);
   free(pb->ents);
   free(pb->scratch);
   memset(pb, 0, sizeof(*pb));
}
