/* SPDX-License-Identifier: MIT */
/*
 * CPU reads of images (vagx_transfer_map in vagx_resource.c): the staging
 * copies of twiddled images, and images the CPU reads back whole again
 * and again moved to the linear layout (docs/performance.md, "Readback").
 *
 * A twiddled image is mapped through a linear staging copy, detiled at map
 * and tiled back at unmap when written.  A new allocation of a frame's
 * size is new pages, which the detile faults in one by one, every frame:
 * the context keeps its staging allocation for the next map (one, up to
 * VAGX_STAGING_KEEP_B).
 *
 * An application that reads a render target back every frame (a trace
 * replay taking snapshots, a headless renderer, a screen recorder) pays the
 * detile into that copy and a second pass over the copy (st's memcpy or
 * format conversion) every frame, where llvmpipe, whose render targets are
 * linear, maps the image itself.  As panfrost moves images the CPU writes
 * whole again and again out of AFBC (pan_resource.c,
 * LAYOUT_CONVERT_THRESHOLD), a colour image with one level, layer and
 * sample that the CPU has read back whole VAGX_LINEAR_AFTER_READS times is
 * given linear storage, into which that read detiles it; the device renders
 * to and samples linear images as it does twiddled ones, and every later
 * map of the image is the image itself.  VAGX_DEBUG=twiddled keeps them
 * twiddled (an A/B of the two, tests of the staging path).
 */
#include <stdlib.h>
#include "drm-uapi/drm_fourcc.h"
#include "util/format/u_format.h"
#include "util/u_atomic.h"
#include "vagx_context.h"

/* Largest staging allocation a context keeps for its next map (a 4096x2048
 * RGBA8 image); larger ones are freed at unmap */
#define VAGX_STAGING_KEEP_B (32u << 20)

/* Whole readbacks of a twiddled image after which it is moved to the
 * linear layout: a test or a screenshot that reads an image back once or
 * twice leaves it twiddled */
#define VAGX_LINEAR_AFTER_READS 3

void *
vagx_staging_get(struct vagx_context *ctx, size_t size, size_t *capacity)
{
   size = MAX2(size, 1);
   if (ctx->staging && ctx->staging_size >= size) {
      void *p = ctx->staging;
      *capacity = ctx->staging_size;
      ctx->staging = NULL;
      ctx->staging_size = 0;
      return p;
   }
   *capacity = size;
   return malloc(size);
}

void
vagx_staging_put(struct vagx_context *ctx, void *p, size_t capacity)
{
   if (!p)
      return;
   /* the larger of the two is kept: the next map of the same image fits */
   if (capacity > VAGX_STAGING_KEEP_B || capacity <= ctx->staging_size) {
      free(p);
      return;
   }
   free(ctx->staging);
   ctx->staging = p;
   ctx->staging_size = capacity;
}

void
vagx_staging_fini(struct vagx_context *ctx)
{
   free(ctx->staging);
   ctx->staging = NULL;
   ctx->staging_size = 0;
}

/* An image the linear layout can hold, in storage only this process uses */
static bool
can_be_linear(const struct vagx_resource *rsrc)
{
   const struct pipe_resource *p = &rsrc->base;
   const struct vagx_layout *l = &rsrc->layout;
   return (p->target == PIPE_TEXTURE_2D || p->target == PIPE_TEXTURE_RECT) &&
          l->tiling == VAGX_TILING_TWIDDLED && !l->sparse && l->levels == 1 && l->layers == 1 &&
          l->sample_count_sa == 1 && l->block_width_px == 1 && l->block_height_px == 1 &&
          !util_format_is_depth_or_stencil(p->format) && !rsrc->bo->flags &&
          rsrc->bo->prime_fd < 0;
}

bool
vagx_readback_make_linear(struct vagx_context *ctx, struct vagx_resource *rsrc,
                          unsigned level, unsigned usage, const struct pipe_box *box)
{
   const struct pipe_resource *p = &rsrc->base;
   /* a read of the whole image that waited for the jobs writing it */
   if ((ctx->screen->debug & VAGX_DBG_TWIDDLED) || !(usage & PIPE_MAP_READ) ||
       (usage & PIPE_MAP_UNSYNCHRONIZED) || level != 0 ||
       box->x || box->y || box->z || box->width != (int)p->width0 ||
       box->height != (int)p->height0 || box->depth != 1 || !can_be_linear(rsrc))
      return false;
   if (++rsrc->whole_reads < VAGX_LINEAR_AFTER_READS)
      return false;

   struct vagx_layout l = {
      .width_px = p->width0,
      .height_px = p->height0,
      .depth_px = 1,
      .levels = 1,
      .sample_count_sa = 1,
      .block_width_px = 1,
      .block_height_px = 1,
      .bytes_per_block_B = rsrc->layout.bytes_per_block_B,
      .tiling = VAGX_TILING_LINEAR,
   };
   if (!vagx_layout_init(&l))
      return false;
   struct vagx_bo *bo = vagx_screen_bo_create(ctx->screen, l.size_B, "resource");
   if (!bo)
      return false;
   if (!vagx_layout_detile(&rsrc->layout, rsrc->bo->map, bo->map, l.level[0].stride_B, 0, 0, 0,
                           0, l.level[0].width_el, l.level[0].height_el)) {
      vagx_bo_unreference(bo);
      return false;
   }
   /* Batches that sample the image keep the old storage, whose contents
    * stay as they are; its writers were flushed and waited for by the map.
    * Descriptors are packed from rsrc->bo and rsrc->layout: sampler views
    * repack when the BO changes (vagx_sampler_view_desc), render targets
    * and images at every batch, and the renames count makes every context
    * emit its pipelines again. */
   struct vagx_bo *old = rsrc->bo;
   rsrc->bo = bo;
   rsrc->layout = l;
   rsrc->modifier = DRM_FORMAT_MOD_LINEAR;
   vagx_bo_unreference(old);
   p_atomic_inc(&ctx->screen->renames);
   return true;
}
