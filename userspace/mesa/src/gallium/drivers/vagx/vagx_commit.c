/* SPDX-License-Identifier: MIT */
/*
 * Sparse resources (GL_ARB_sparse_buffer, GL_ARB_sparse_texture):
 * pipe_context::resource_commit, and the sparse texture page sizes.
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
#include "util/format/u_format.h"
#include "vagx_context.h"
#include "vagx_hw.h"

/* Commits or decommits the pages of a sparse texture that the box of
 * level covers: one range of pages per row of blocks of each layer, or each
 * layer's whole mip tail (vagx_layout_sparse.c).  The first failure stops
 * it, the ranges before stay changed. */
static int
texture_commit(struct vagx_resource *rsrc, unsigned level, const struct pipe_box *box,
               bool commit, uint32_t wait_syncobj, uint64_t wait_point, uint64_t tag)
{
   const struct vagx_layout *l = &rsrc->layout;
   const unsigned tail = vagx_layout_sparse_tail_level(l);
   const struct vagx_tile b = vagx_layout_sparse_block(l->element_size_B);
   if (level >= l->levels_alloc || box->x < 0 || box->y < 0 || box->z < 0 ||
       box->width < 0 || box->height < 0 || box->depth < 0 ||
       box->x + box->width > (int)l->level[level].width_el ||
       box->y + box->height > (int)l->level[level].height_el ||
       box->z + box->depth > (int)l->layers)
      return -EINVAL;
   for (int z = box->z; z < box->z + box->depth; z++) {
      if (level >= tail) {
         uint64_t off, size;
         vagx_layout_sparse_tail(l, z, &off, &size);
         int r = vagx_sparse_commit(rsrc->bo, off, size, commit, wait_syncobj, wait_point, tag);
         if (r)
            return r;
         continue;
      }
      /* GL's box is whole pages, or ends at the level's edge, which is a
       * page boundary before the tail */
      const unsigned px0 = box->x / b.width_el, px1 = DIV_ROUND_UP(box->x + box->width, b.width_el);
      const unsigned py0 = box->y / b.height_el, py1 = DIV_ROUND_UP(box->y + box->height, b.height_el);
      for (unsigned py = py0; py < py1 && px0 < px1; py++) {
         const uint64_t off = vagx_layout_sparse_page_B(l, level, z, px0, py);
         int r = vagx_sparse_commit(rsrc->bo, off, (uint64_t)(px1 - px0) * VAGX_LAYOUT_SPARSE_PAGE_B,
                                    commit, wait_syncobj, wait_point, tag);
         if (r)
            return r;
      }
   }
   return 0;
}

static bool
vagx_resource_commit(struct pipe_context *pctx, struct pipe_resource *prsc, unsigned level,
                     struct pipe_box *box, bool commit)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_screen *s = ctx->screen;
   struct vagx_resource *rsrc = vagx_resource(prsc);
   if (!(rsrc->bo->flags & VAGX_BO_SPARSE) || (prsc->target == PIPE_BUFFER && level))
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
   const uint32_t wait = seq ? s->timeline : 0;
   int r = prsc->target == PIPE_BUFFER
              ? vagx_sparse_commit(rsrc->bo, box->x, box->width, commit, wait, seq, tag)
              : texture_commit(rsrc, level, box, commit, wait, seq, tag);
   if (r && r != -ENOMEM)
      fprintf(stderr, "vagx: sparse %scommit of level %u [%d,%d,%d +%dx%dx%d] failed: %s\n",
              commit ? "" : "de", level, box->x, box->y, box->z, box->width, box->height,
              box->depth, strerror(-r));
   /* false: GL_OUT_OF_MEMORY (for a texture, the rows of pages before the
    * failure stay changed) */
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

bool
vagx_sparse_texture_init(struct vagx_screen *screen, struct vagx_resource *rsrc)
{
   struct pipe_resource *prsc = &rsrc->base;
   const struct vagx_layout *l = &rsrc->layout;
   int x, y, z;
   if (!screen->base.get_sparse_texture_virtual_page_size(&screen->base, prsc->target,
                                                          prsc->nr_samples > 1, prsc->format,
                                                          0, 1, &x, &y, &z) ||
       !vagx_layout_sparse_ok(l))
      return false;
   rsrc->bo = vagx_bo_create_sparse(&screen->dev, l->size_B, "sparse texture");
   if (!rsrc->bo)
      return false;
   /* the levels before the tail are partially resident, page by page */
   prsc->nr_sparse_levels = MIN2(vagx_layout_sparse_tail_level(l), prsc->last_level + 1);
   return true;
}

/* One page size per format: the 64 KiB block of vagx_layout_sparse_block,
 * in pixels of an uncompressed single-sample format: the standard sparse
 * block shapes (256x256 at 1 B per texel ... 64x64 at 16 B), as
 * ARB_sparse_texture2 and Vulkan's standardImageBlockShape have them.  Targets whose
 * layers are 2D miptrees; 1D and 3D images are not sparse (no page
 * size), nor are compressed or multisampled ones. */
static int
vagx_get_sparse_texture_virtual_page_size(struct pipe_screen *pscreen,
                                          enum pipe_texture_target target, bool multi_sample,
                                          enum pipe_format format, unsigned offset,
                                          unsigned size, int *x, int *y, int *z)
{
   /* none on a device without the sparse layout (vagx_screen.c) */
   if (!pscreen->caps.max_sparse_texture_size)
      return 0;
   switch (target) {
   case PIPE_TEXTURE_2D:
   case PIPE_TEXTURE_RECT:
   case PIPE_TEXTURE_2D_ARRAY:
   case PIPE_TEXTURE_CUBE:
   case PIPE_TEXTURE_CUBE_ARRAY:
      break;
   default:
      return 0;
   }
   if (offset || multi_sample || util_format_is_compressed(format) ||
       vagx_format_from_pipe(format) == VAGX_FORMAT_INVALID)
      return 0;
   const struct vagx_tile b = vagx_layout_sparse_block(util_format_get_blocksize(format));
   if (!b.width_el)
      return 0;
   if (size) {
      if (x)
         *x = b.width_el;
      if (y)
         *y = b.height_el;
      if (z)
         *z = 1;
   }
   return 1;
}

void
vagx_init_screen_sparse_functions(struct pipe_screen *pscreen)
{
   pscreen->get_sparse_texture_virtual_page_size = vagx_get_sparse_texture_virtual_page_size;
}
