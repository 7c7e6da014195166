/* SPDX-License-Identifier: MIT */
/*
 * Sparse resources (GL_ARB_sparse_buffer): pipe_context::resource_commit.
 * The resource's BO is a sparse BO (vagx_sparse.c of the device layer): a
 * VA range that is NULL-mapped until pages are committed.  A commitment
 * change is ordered after the GL commands before it and before those after
 * it, on the device, with no CPU wait: the batches recorded so far are
 * submitted, the asynchronous VM_BIND waits for the last job that can use
 * the range (a point of the screen's timeline), and every later submit
 * waits for the bind (vagx_device_submit).  docs/mesa-driver.md, "Sparse
 * resources".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "vagx_context.h"

static bool
vagx_resource_commit(struct pipe_context *pctx, struct pipe_resource *prsc, unsigned level,
                     struct pipe_box *box, bool commit)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_screen *s = ctx->screen;
   struct vagx_resource *rsrc = vagx_resource(prsc);
   if (!(rsrc->bo->flags & VAGX_BO_SPARSE) || prsc->target != PIPE_BUFFER || level)
      return false;
   /* every batch, not only those that know the resource: a batch renders
    * with the resource's address whatever it tracks */
   vagx_flush_all(ctx);
   simple_mtx_lock(&s->submit_lock);
   uint64_t seq = MAX2(ctx->last_seq, rsrc->bo->last_use_seq);
   simple_mtx_unlock(&s->submit_lock);
   if (seq <= vagx_screen_completed_seq(s))
      seq = 0;
   /* tagged with the buffer's last use: a page whose tag is still the
    * buffer's last use (vagx_sparse_is_fresh) has been seen by no job */
   simple_mtx_lock(&s->submit_lock);
   const uint64_t tag = rsrc->bo->last_use_seq;
   simple_mtx_unlock(&s->submit_lock);
   int r = vagx_sparse_commit(rsrc->bo, box->x, box->width, commit, seq ? s->timeline : 0, seq,
                              tag);
   if (r && r != -ENOMEM)
      fprintf(stderr, "vagx: sparse %scommit of [%d, +%d) failed: %s\n", commit ? "" : "de",
              box->x, box->width, strerror(-r));
   /* false: GL_OUT_OF_MEMORY, the commitment unchanged */
   return r == 0;
}

bool
vagx_sparse_is_fresh(struct vagx_context *ctx, struct vagx_resource *rsrc,
                     const struct pipe_box *box)
{
   struct vagx_screen *s = ctx->screen;
   /* no pending batch of the context uses it (the marks of flushed
    * batches are left behind: a mark of an active batch counts) */
   if (rsrc->writer && rsrc->writer->active)
      return false;
   u_foreach_bit(i, rsrc->reader_mask) {
      if (i < VAGX_MAX_BATCHES && ctx->batches[i].active)
         return false;
   }
   simple_mtx_lock(&s->submit_lock);
   const uint64_t use = rsrc->bo->last_use_seq;
   simple_mtx_unlock(&s->submit_lock);
   return vagx_sparse_committed_since(rsrc->bo, box->x, box->width, use);
}

void
vagx_init_commit_functions(struct pipe_context *pctx)
{
   pctx->resource_commit = vagx_resource_commit;
}
