/* SPDX-License-Identifier: MIT */
/* vagx renderer: the PPP's output (primitives, coefficient registers, bin
 * lists) and the in-order append of a primitive chunk's output to the job's.
 * Every byte kept here was charged to the geometry budget by the PPP. */
#include "render_priv.h"
#include "render_grow.h"

/* The PPP's arrays grow by r_grow() (render_grow.h) from these first sizes.
 * A count of 0 needs nothing, even before the first allocation. */
bool r_grow_prims(struct rprimbuf *pb, uint64_t n)
{
   if (n <= pb->cap_prims)
      return true;
   struct rprim *p = r_grow(pb->prims, &pb->cap_prims, n, sizeof(*p), 256);
   if (!p)
      return false;
   pb->prims = p;
   return true;
}

bool r_grow_cfs(struct rprimbuf *pb, uint64_t n)
{
   if (n <= pb->cap_cfs)
      return true;
   struct vagx_usc_plane *c = r_grow(pb->cfs, &pb->cap_cfs, n, sizeof(*c), 4096);
   if (!c)
      return false;
   pb->cfs = c;
   return true;
}

bool r_bin_append(struct rlist *b, uint32_t prim)
{
   if (b->n == b->cap) {
      uint32_t *v = r_grow(b->v, &b->cap, b->n + 1ull, sizeof(*v), 16);
      if (!v)
         return false;
      b->v = v;
   }
   b->v[b->n++] = prim;
   return true;
}

bool r_log_bin(struct rprimbuf *pb, uint32_t tile, uint32_t prim)
{
   if (pb->nents == pb->cap_ents) {
      struct rbin_ent *e = r_grow(pb->ents, &pb->cap_ents, pb->nents + 1ull, sizeof(*e), 256);
      if (!e)
         return false;
      pb->ents = e;
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

/* Job-to-job reuse of these buffers.  A job's buffers grow from empty by
 * doubling, each step a copy into fresh pages the kernel zeroes: in a
 * phong frame the copies and page faults were 7 % of the CPU time.  A device
 * runs one job at a time (vagx_render_run), so the last job's buffers wait
 * in dev->keep for the next one, emptied, unless their capacity passes
 * R_KEEP_MAX_BYTES: a large job's memory is not held after it. */
#define R_KEEP_MAX_BYTES (64u << 20)

static size_t pb_bytes(const struct rprimbuf *pb)
{
   return (size_t)pb->cap_prims * sizeof(*pb->prims) + pb->cap_cfs * sizeof(*pb->cfs) +
          (size_t)pb->cap_ents * sizeof(*pb->ents) + pb->scratch_cap * sizeof(*pb->scratch);
}

static void pb_empty(struct rprimbuf *pb)
{
   pb->nprims = 0;
   pb->ncfs = 0;
   pb->nents = 0;
}

void r_keep_free(struct rkeep *k)
{
   r_primbuf_free(&k->pb);
   for (unsigned i = 0; i < k->cap_chunks; i++)
      r_primbuf_free(&k->chunks[i]);
   free(k->chunks);
   for (size_t i = 0; i < k->nbins; i++)
      free(k->bins[i].v);
   free(k->bins);
   memset(k, 0, sizeof(*k));
}

/* The job takes the kept primitive buffers (at its start). */
void r_primbuf_adopt(struct rjob *j)
{
   struct rkeep *k = &j->dev->keep;
   j->pb = k->pb;
   pb_empty(&j->pb);
   j->chunks = k->chunks;
   j->cap_chunks = k->cap_chunks;
   memset(&k->pb, 0, sizeof(k->pb));
   k->chunks = NULL;
   k->cap_chunks = 0;
}

/* The job's n tile lists, empty: the kept ones when the last job had as
 * many tiles, else new ones. */
bool r_bins_alloc(struct rjob *j, size_t n)
{
   struct rkeep *k = &j->dev->keep;
   if (k->bins && k->nbins == n) {
      j->bins = k->bins;
      k->bins = NULL;
      k->nbins = 0;
      for (size_t i = 0; i < n; i++)
         j->bins[i].n = 0;
      return true;
   }
   j->bins = calloc(n, sizeof(*j->bins));
   return j->bins != NULL;
}

/* The job's buffers go to dev->keep (at its end), or are freed. */
void r_primbuf_release(struct rjob *j)
{
   struct rkeep *k = &j->dev->keep;
   const size_t nbins = (size_t)j->tiles_x * j->tiles_y;
   size_t bytes = pb_bytes(&j->pb) + (size_t)j->cap_chunks * sizeof(*j->chunks);
   for (unsigned i = 0; i < j->cap_chunks; i++)
      bytes += pb_bytes(&j->chunks[i]);
   if (j->bins)
      for (size_t i = 0; i < nbins; i++)
         bytes += (size_t)j->bins[i].cap * sizeof(*j->bins[i].v);
   r_keep_free(k);
   if (bytes > R_KEEP_MAX_BYTES) {
      struct rkeep dead = {j->pb, j->chunks, j->cap_chunks, j->bins, j->bins ? nbins : 0};
      r_keep_free(&dead);
   } else {
      *k = (struct rkeep){j->pb, j->chunks, j->cap_chunks, j->bins, j->bins ? nbins : 0};
   }
   memset(&j->pb, 0, sizeof(j->pb));
   j->chunks = NULL;
   j->cap_chunks = 0;
   j->bins = NULL;
}
