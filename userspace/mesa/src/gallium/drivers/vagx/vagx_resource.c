/* SPDX-License-Identifier: MIT */
/* Resources: buffers and images laid out by the shared layout library
 * (linear or twiddled), transfers through u_transfer_helper with
 * twiddled <-> linear staging. */
#include <stdlib.h>
#include <string.h>
#include "drm-uapi/drm_fourcc.h"
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_surface.h"
#include "util/u_transfer.h"
#include "util/u_transfer_helper.h"
#include "vagx_context.h"
#include "vagx_hw.h"

static bool
want_linear(const struct pipe_resource *t)
{
   if (t->target == PIPE_BUFFER)
      return true;
   if (t->bind & (PIPE_BIND_SCANOUT | PIPE_BIND_SHARED | PIPE_BIND_LINEAR | PIPE_BIND_DISPLAY_TARGET))
      return t->last_level == 0 && t->array_size == 1 && t->depth0 == 1;
   /* images with one level and layer are cheap to map linearly; mipmapped or
    * layered images are twiddled (the layout library's native layout) */
   return t->last_level == 0 && t->array_size == 1 && t->depth0 == 1 &&
          (t->usage == PIPE_USAGE_STAGING || t->usage == PIPE_USAGE_STREAM);
}

static struct pipe_resource *
vagx_resource_create(struct pipe_screen *pscreen, const struct pipe_resource *templ)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   struct vagx_resource *rsrc = CALLOC_STRUCT(vagx_resource);
   if (!rsrc)
      return NULL;
   rsrc->base = *templ;
   rsrc->base.screen = pscreen;
   pipe_reference_init(&rsrc->base.reference, 1);

   uint64_t size;
   if (templ->target == PIPE_BUFFER) {
      size = templ->width0;
      rsrc->modifier = DRM_FORMAT_MOD_LINEAR;
   } else {
      struct vagx_layout *l = &rsrc->layout;
      rsrc->vformat = vagx_format_from_pipe(templ->format);
      l->width_px = templ->width0;
      l->height_px = templ->height0;
      l->depth_px = templ->target == PIPE_TEXTURE_3D ? templ->depth0 : templ->array_size;
      l->mipmapped_z = templ->target == PIPE_TEXTURE_3D;
      l->levels = templ->last_level + 1;
      l->sample_count_sa = MAX2(templ->nr_samples, 1);
      l->block_width_px = util_format_get_blockwidth(templ->format);
      l->block_height_px = util_format_get_blockheight(templ->format);
      l->bytes_per_block_B = util_format_get_blocksize(templ->format);
      bool linear = want_linear(templ);
      l->tiling = linear ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
      rsrc->modifier = linear ? DRM_FORMAT_MOD_LINEAR : DRM_FORMAT_MOD_INVALID;
      if (!vagx_layout_init(l)) {
         FREE(rsrc);
         return NULL;
      }
      size = l->size_B;
   }
   rsrc->bo = vagx_bo_create(&screen->dev, size, "resource");
   if (!rsrc->bo) {
      FREE(rsrc);
      return NULL;
   }
   return &rsrc->base;
}

static void
vagx_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *prsc)
{
   struct vagx_resource *rsrc = vagx_resource(prsc);
   vagx_bo_unreference(rsrc->bo);
   FREE(rsrc);
}

static bool
vagx_resource_get_handle(struct pipe_screen *pscreen, struct pipe_context *ctx,
                         struct pipe_resource *prsc, struct winsys_handle *handle,
                         unsigned usage)
{
   /* PRIME/KMS sharing is not wired up yet (needs non-VM-private BOs). */
   return false;
}

static struct pipe_resource *
vagx_resource_from_handle(struct pipe_screen *pscreen, const struct pipe_resource *templ,
                          struct winsys_handle *whandle, unsigned usage)
{
   return NULL;
}

static bool
vagx_is_dmabuf_modifier_supported(struct pipe_screen *pscreen, uint64_t modifier,
                                  enum pipe_format format, bool *external_only)
{
   if (external_only)
      *external_only = false;
   return modifier == DRM_FORMAT_MOD_LINEAR;
}

static void
vagx_query_dmabuf_modifiers(struct pipe_screen *pscreen, enum pipe_format format, int max,
                            uint64_t *modifiers, unsigned int *external_only, int *count)
{
   *count = 1;
   if (max >= 1) {
      modifiers[0] = DRM_FORMAT_MOD_LINEAR;
      if (external_only)
         external_only[0] = 0;
   }
}

static struct pipe_resource *
vagx_resource_create_with_modifiers(struct pipe_screen *pscreen,
                                    const struct pipe_resource *templ,
                                    const uint64_t *modifiers, int count)
{
   struct pipe_resource t = *templ;
   for (int i = 0; i < count; i++)
      if (modifiers[i] == DRM_FORMAT_MOD_LINEAR)
         t.bind |= PIPE_BIND_LINEAR;
   return vagx_resource_create(pscreen, &t);
}

/* ---- transfers ---- */

static void *
vagx_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc, unsigned level,
                  unsigned usage, const struct pipe_box *box, struct pipe_transfer **out)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_resource *rsrc = vagx_resource(prsc);

   /* GPU work on the resource must land before the CPU looks at it. */
   if (!(usage & PIPE_MAP_UNSYNCHRONIZED)) {
      if (usage & PIPE_MAP_WRITE)
         vagx_flush_readers(ctx, rsrc);
      vagx_flush_writer(ctx, rsrc);
   }

   struct vagx_transfer *t = slab_zalloc(&ctx->transfer_pool);
   t->base.level = level;
   t->base.usage = usage;
   t->base.box = *box;
   pipe_resource_reference(&t->base.resource, prsc);
   *out = &t->base;

   uint8_t *map = rsrc->bo->map;
   if (prsc->target == PIPE_BUFFER)
      return map + box->x;

   struct vagx_layout *l = &rsrc->layout;
   unsigned bw = util_format_get_blockwidth(prsc->format);
   unsigned bh = util_format_get_blockheight(prsc->format);
   unsigned bs = util_format_get_blocksize(prsc->format);
   if (l->tiling == VAGX_TILING_LINEAR) {
      t->base.stride = l->level[level].stride_B;
      t->base.layer_stride = l->layer_stride_B;
      return map + vagx_layout_offset_B(l, level, box->z, box->x / bw, box->y / bh);
   }
   /* twiddled: detile into a staging copy */
   unsigned w_el = DIV_ROUND_UP(box->width, bw), h_el = DIV_ROUND_UP(box->height, bh);
   t->staging_stride = w_el * bs;
   t->base.stride = t->staging_stride;
   t->base.layer_stride = t->staging_stride * h_el;
   t->staging = malloc((size_t)t->base.layer_stride * box->depth);
   if (!(usage & PIPE_MAP_DISCARD_RANGE) || (usage & PIPE_MAP_READ)) {
      for (int z = 0; z < box->depth; z++)
         vagx_layout_detile(l, map, (uint8_t *)t->staging + z * t->base.layer_stride,
                            t->staging_stride, level, box->z + z, box->x / bw, box->y / bh,
                            w_el, h_el);
   }
   return t->staging;
}

static void
vagx_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_transfer *t = (struct vagx_transfer *)ptrans;
   struct vagx_resource *rsrc = vagx_resource(ptrans->resource);
   if (t->staging) {
      if (ptrans->usage & PIPE_MAP_WRITE) {
         struct pipe_resource *prsc = ptrans->resource;
         unsigned bw = util_format_get_blockwidth(prsc->format);
         unsigned bh = util_format_get_blockheight(prsc->format);
         const struct pipe_box *box = &ptrans->box;
         for (int z = 0; z < box->depth; z++)
            vagx_layout_tile(&rsrc->layout, rsrc->bo->map,
                             (uint8_t *)t->staging + z * ptrans->layer_stride, t->staging_stride,
                             ptrans->level, box->z + z, box->x / bw, box->y / bh,
                             DIV_ROUND_UP(box->width, bw), DIV_ROUND_UP(box->height, bh));
      }
      free(t->staging);
   }
   pipe_resource_reference(&ptrans->resource, NULL);
   slab_free(&ctx->transfer_pool, t);
}

static void
vagx_transfer_flush_region(struct pipe_context *pctx, struct pipe_transfer *ptrans,
                           const struct pipe_box *box)
{
}

static const struct u_transfer_vtbl transfer_vtbl = {
   .resource_create = vagx_resource_create,
   .resource_destroy = vagx_resource_destroy,
   .transfer_map = vagx_transfer_map,
   .transfer_unmap = vagx_transfer_unmap,
   .transfer_flush_region = vagx_transfer_flush_region,
};

void
vagx_init_resource_functions(struct pipe_screen *p)
{
   p->resource_create = u_transfer_helper_resource_create;
   p->resource_destroy = u_transfer_helper_resource_destroy;
   p->resource_create_with_modifiers = vagx_resource_create_with_modifiers;
   p->resource_get_handle = vagx_resource_get_handle;
   p->resource_from_handle = vagx_resource_from_handle;
   p->is_dmabuf_modifier_supported = vagx_is_dmabuf_modifier_supported;
   p->query_dmabuf_modifiers = vagx_query_dmabuf_modifiers;
   p->transfer_helper = u_transfer_helper_create(&transfer_vtbl,
                                                 U_TRANSFER_HELPER_SEPARATE_Z32S8 |
                                                 U_TRANSFER_HELPER_MSAA_MAP);
}

static struct pipe_surface *
vagx_create_surface(struct pipe_context *pctx, struct pipe_resource *prsc,
                    const struct pipe_surface *tmpl)
{
   struct pipe_surface *s = CALLOC_STRUCT(pipe_surface);
   pipe_reference_init(&s->reference, 1);
   pipe_resource_reference(&s->texture, prsc);
   s->context = pctx;
   s->format = tmpl->format;
   s->width = u_minify(prsc->width0, tmpl->u.tex.level);
   s->height = u_minify(prsc->height0, tmpl->u.tex.level);
   s->u.tex = tmpl->u.tex;
   return s;
}

static void
vagx_surface_destroy(struct pipe_context *pctx, struct pipe_surface *s)
{
   pipe_resource_reference(&s->texture, NULL);
   FREE(s);
}

static void
vagx_flush_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
}

void
vagx_init_context_resource_functions(struct pipe_context *pctx)
{
   pctx->buffer_map = u_transfer_helper_transfer_map;
   pctx->texture_map = u_transfer_helper_transfer_map;
   pctx->transfer_flush_region = u_transfer_helper_transfer_flush_region;
   pctx->buffer_unmap = u_transfer_helper_transfer_unmap;
   pctx->texture_unmap = u_transfer_helper_transfer_unmap;
   pctx->buffer_subdata = u_default_buffer_subdata;
   pctx->texture_subdata = u_default_texture_subdata;
   pctx->create_surface = vagx_create_surface;
   pctx->surface_destroy = vagx_surface_destroy;
   pctx->flush_resource = vagx_flush_resource;
   pctx->resource_copy_region = util_resource_copy_region;
}
