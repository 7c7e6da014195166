/* SPDX-License-Identifier: MIT */
/* Resources: buffers and images laid out by the shared layout library
 * (linear or twiddled), transfers through u_transfer_helper with
 * twiddled <-> linear staging (the context's kept staging allocation, and
 * images read back whole again and again made linear: vagx_readback.c),
 * and window-system sharing: scanout/shared
 * resources live in shareable (non-VM-private) BOs with the linear layout
 * and are exported/imported as GEM handles or dma-bufs (DRM_FORMAT_MOD_LINEAR
 * only; implicit sync is done at submit, see vagx_device_submit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "drm-uapi/drm_fourcc.h"
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_surface.h"
#include "util/u_transfer.h"
#include "util/u_transfer_helper.h"
#include "util/u_atomic.h"
#include "vagx_context.h"
#include "vagx_hw.h"

#define VAGX_BIND_SHAREABLE (PIPE_BIND_SCANOUT | PIPE_BIND_SHARED | PIPE_BIND_DISPLAY_TARGET)

static bool
want_linear(const struct pipe_resource *t)
{
   if (t->target == PIPE_BUFFER)
      return true;
   /* linear images are single-sample (texture descriptor rule) */
   if (t->nr_samples > 1)
      return false;
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
   if (templ->flags & PIPE_RESOURCE_FLAG_SPARSE && templ->target == PIPE_BUFFER) {
      /* VA only, every page NULL-mapped until resource_commit */
      rsrc->bo = vagx_bo_create_sparse(&screen->dev, templ->width0, "sparse buffer");
      if (!rsrc->bo) {
         FREE(rsrc);
         return NULL;
      }
      rsrc->modifier = DRM_FORMAT_MOD_LINEAR;
      return &rsrc->base;
   }
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
      const bool sparse = templ->flags & PIPE_RESOURCE_FLAG_SPARSE;
      /* sparse textures have the sparse layout: twiddled, each 64 KiB
       * page one tile of the standard sparse block shape, every layer's
       * pages its own */
      bool linear = !sparse && want_linear(templ);
      l->sparse = sparse;
      l->tiling = linear ? VAGX_TILING_LINEAR : VAGX_TILING_TWIDDLED;
      rsrc->modifier = linear ? DRM_FORMAT_MOD_LINEAR : DRM_FORMAT_MOD_INVALID;
      if (!vagx_layout_init(l)) {
         FREE(rsrc);
         return NULL;
      }
      size = l->size_B;
      if (sparse) {
         if (!vagx_sparse_texture_init(screen, rsrc)) {
            FREE(rsrc);
            return NULL;
         }
         return &rsrc->base;
      }
   }
   /* Window-system buffers must be exportable (KMS framebuffers, dma-bufs),
    * so they cannot share the VM's reservation object. */
   bool shareable = (templ->bind & VAGX_BIND_SHAREABLE) && rsrc->modifier == DRM_FORMAT_MOD_LINEAR;
   rsrc->bo = shareable ? vagx_bo_create_flags(&screen->dev, size, VAGX_BO_SHAREABLE,
                                               "shared resource")
                        : vagx_screen_bo_create(screen, size, "resource");
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

/* Move a linear resource from a VM-private BO into a shareable one (a texture
 * exported after the fact, e.g. eglExportDMABUFImageMESA).  Pending batches
 * that read the old BO keep it alive; the writer is flushed so the copy is
 * complete. */
static bool
vagx_resource_make_shareable(struct vagx_screen *screen, struct vagx_resource *rsrc)
{
   if (rsrc->bo->flags & VAGX_BO_SHAREABLE)
      return true;
   if (rsrc->modifier != DRM_FORMAT_MOD_LINEAR)
      return false;
   if (rsrc->writer)
      vagx_flush_writer(rsrc->writer->ctx, rsrc);
   struct vagx_bo *bo = vagx_bo_create_flags(&screen->dev, rsrc->bo->size, VAGX_BO_SHAREABLE,
                                             "shared resource");
   if (!bo)
      return false;
   vagx_bo_wait_idle(screen, rsrc->bo, false);
   memcpy(bo->map, rsrc->bo->map, rsrc->bo->size);
   vagx_bo_unreference(rsrc->bo);
   rsrc->bo = bo;
   rsrc->base.bind |= PIPE_BIND_SHARED;
   /* descriptors of the old storage are emitted again (vagx_emit_draw_state) */
   p_atomic_inc(&screen->renames);
   return true;
}

static struct vagx_resource *
resource_plane(struct pipe_resource *prsc, unsigned plane)
{
   /* vagx images have one plane; GBM asks for plane 0 through this */
   return plane == 0 ? vagx_resource(prsc) : NULL;
}

static bool
vagx_resource_get_handle(struct pipe_screen *pscreen, struct pipe_context *ctx,
                         struct pipe_resource *prsc, struct winsys_handle *handle,
                         unsigned usage)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   struct vagx_resource *rsrc = resource_plane(prsc, handle->plane);
   if (!rsrc || !vagx_resource_make_shareable(screen, rsrc))
      return false;
   struct vagx_bo *bo = rsrc->bo;
   /* Jobs submitted before the first export put no fence in the dma-buf
    * (vagx_device_submit does that for shared BOs only): the importer
    * would not wait for them, so they must be done now. */
   if (!(p_atomic_read(&bo->flags) & VAGX_BO_SHARED)) {
      if (rsrc->writer)
         vagx_flush_writer(rsrc->writer->ctx, rsrc);
      vagx_bo_wait_idle(screen, bo, false);
   }

   switch (handle->type) {
   case WINSYS_HANDLE_TYPE_KMS:
      /* Same DRM file (card0 does render and KMS): the GEM handle itself.
       * Its dma-buf is still needed so that our submits put their fences in
       * the BO's resv, which KMS prepare_fb waits for. */
      if (bo->prime_fd < 0) {
         int fd = vagx_bo_export(bo);
         if (fd >= 0)
            close(fd);
      }
      handle->handle = bo->handle;
      break;
   case WINSYS_HANDLE_TYPE_FD: {
      int fd = vagx_bo_export(bo);
      if (fd < 0)
         return false;
      handle->handle = fd;
      break;
   }
   default:
      /* no flink names */
      return false;
   }
   if (prsc->target == PIPE_BUFFER) {
      handle->stride = 0;
      handle->size = bo->size;
   } else {
      handle->stride = rsrc->layout.level[0].stride_B;
      handle->size = rsrc->layout.size_B;
   }
   handle->offset = 0;
   handle->format = prsc->format;
   handle->modifier = rsrc->modifier;
   return true;
}

static bool
vagx_resource_get_param(struct pipe_screen *pscreen, struct pipe_context *pctx,
                        struct pipe_resource *prsc, unsigned plane, unsigned layer,
                        unsigned level, enum pipe_resource_param param, unsigned usage,
                        uint64_t *value)
{
   struct vagx_resource *rsrc = resource_plane(prsc, plane);
   if (!rsrc)
      return false;
   bool buffer = prsc->target == PIPE_BUFFER;
   switch (param) {
   case PIPE_RESOURCE_PARAM_NPLANES:
      *value = 1;
      return true;
   case PIPE_RESOURCE_PARAM_STRIDE:
      *value = buffer ? 0 : rsrc->layout.level[level].stride_B;
      return true;
   case PIPE_RESOURCE_PARAM_OFFSET:
      *value = buffer ? 0 : rsrc->layout.level[level].offset_B + layer * rsrc->layout.layer_stride_B;
      return true;
   case PIPE_RESOURCE_PARAM_LAYER_STRIDE:
      *value = buffer ? 0 : rsrc->layout.layer_stride_B;
      return true;
   case PIPE_RESOURCE_PARAM_MODIFIER:
      *value = rsrc->modifier;
      return true;
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_KMS:
   case PIPE_RESOURCE_PARAM_HANDLE_TYPE_FD: {
      struct winsys_handle h = {
         .type = param == PIPE_RESOURCE_PARAM_HANDLE_TYPE_KMS ? WINSYS_HANDLE_TYPE_KMS
                                                             : WINSYS_HANDLE_TYPE_FD,
         .plane = plane,
      };
      if (!vagx_resource_get_handle(pscreen, pctx, prsc, &h, usage))
         return false;
      *value = h.handle;
      return true;
   }
   default:
      return false;
   }
}

static void
vagx_resource_get_info(struct pipe_screen *pscreen, struct pipe_resource *prsc,
                       unsigned *stride, unsigned *offset)
{
   struct vagx_resource *rsrc = vagx_resource(prsc);
   *stride = prsc->target == PIPE_BUFFER ? 0 : rsrc->layout.level[0].stride_B;
   *offset = 0;
}

/* Import a window-system buffer.  Only what the hardware can address as a
 * linear image is accepted: a single-level, single-layer, single-sample 2D
 * image (or a buffer), modifier LINEAR (or none given: every vagx shared
 * image is linear), offset 0, a row stride that is a multiple of
 * VAGX_LAYOUT_LINEAR_STRIDE_ALIGN_B (16) and covers the width, and a
 * dma-buf at least stride * height bytes long.  Anything else returns NULL
 * with a message on stderr. */
static struct pipe_resource *
vagx_resource_from_handle(struct pipe_screen *pscreen, const struct pipe_resource *templ,
                          struct winsys_handle *whandle, unsigned usage)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   const char *why = NULL;
   if (whandle->type != WINSYS_HANDLE_TYPE_FD && whandle->type != WINSYS_HANDLE_TYPE_KMS)
      why = "handle type (FD and KMS only)";
   else if (whandle->plane != 0)
      why = "plane (one-plane formats only)";
   else if (whandle->modifier != DRM_FORMAT_MOD_LINEAR &&
            whandle->modifier != DRM_FORMAT_MOD_INVALID)
      why = "modifier (LINEAR only)";
   else if (whandle->offset != 0)
      why = "offset (must be 0)";
   else if (templ->target != PIPE_BUFFER &&
            ((templ->target != PIPE_TEXTURE_2D && templ->target != PIPE_TEXTURE_RECT) ||
             templ->last_level || templ->array_size > 1 || templ->depth0 > 1 ||
             templ->nr_samples > 1))
      why = "target (single-level single-sample 2D images only)";
   else if (templ->target != PIPE_BUFFER &&
            vagx_format_from_pipe(templ->format) == VAGX_FORMAT_INVALID)
      why = "format";
   if (why) {
      fprintf(stderr, "vagx: cannot import %s %ux%u buffer: unsupported %s\n",
              util_format_short_name(templ->format), templ->width0, templ->height0, why);
      return NULL;
   }

   struct vagx_resource *rsrc = CALLOC_STRUCT(vagx_resource);
   if (!rsrc)
      return NULL;
   rsrc->base = *templ;
   rsrc->base.screen = pscreen;
   rsrc->base.bind |= PIPE_BIND_SHARED;
   pipe_reference_init(&rsrc->base.reference, 1);
   rsrc->modifier = DRM_FORMAT_MOD_LINEAR;
   uint64_t need = templ->width0;
   if (templ->target != PIPE_BUFFER) {
      struct vagx_layout *l = &rsrc->layout;
      rsrc->vformat = vagx_format_from_pipe(templ->format);
      l->width_px = templ->width0;
      l->height_px = templ->height0;
      l->depth_px = 1;
      l->levels = 1;
      l->sample_count_sa = 1;
      l->block_width_px = util_format_get_blockwidth(templ->format);
      l->block_height_px = util_format_get_blockheight(templ->format);
      l->bytes_per_block_B = util_format_get_blocksize(templ->format);
      l->tiling = VAGX_TILING_LINEAR;
      l->linear_stride_B = whandle->stride;
      if (!vagx_layout_init(l)) {
         fprintf(stderr, "vagx: cannot import %s %ux%u buffer: stride %u is not a multiple of "
                 "%u covering the width\n", util_format_short_name(templ->format),
                 templ->width0, templ->height0, whandle->stride,
                 VAGX_LAYOUT_LINEAR_STRIDE_ALIGN_B);
         FREE(rsrc);
         return NULL;
      }
      need = l->level[0].size_B;
   }
   rsrc->bo = whandle->type == WINSYS_HANDLE_TYPE_FD
                 ? vagx_bo_import(&screen->dev, whandle->handle)
                 : vagx_bo_import_handle(&screen->dev, whandle->handle);
   if (!rsrc->bo) {
      FREE(rsrc);
      return NULL;
   }
   if (rsrc->bo->size < need) {
      fprintf(stderr, "vagx: cannot import buffer: %llu bytes, the image needs %llu\n",
              (unsigned long long)rsrc->bo->size, (unsigned long long)need);
      vagx_bo_unreference(rsrc->bo);
      FREE(rsrc);
      return NULL;
   }
   return &rsrc->base;
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
   bool linear = false, implicit = count == 0;
   for (int i = 0; i < count; i++) {
      linear |= modifiers[i] == DRM_FORMAT_MOD_LINEAR;
      implicit |= modifiers[i] == DRM_FORMAT_MOD_INVALID;
   }
   /* LINEAR is the only layout another device or KMS can use */
   if (!linear && !implicit)
      return NULL;
   if (linear)
      t.bind |= PIPE_BIND_LINEAR;
   struct pipe_resource *prsc = pscreen->resource_create(pscreen, &t);
   if (prsc && linear && vagx_resource(prsc)->modifier != DRM_FORMAT_MOD_LINEAR) {
      /* mipmapped/layered images cannot be linear */
      pipe_resource_reference(&prsc, NULL);
   }
   return prsc;
}

/* ---- transfers ---- */

/* Largest buffer a range discard renames (copying the rest of it on the
 * CPU); a larger one waits for the jobs that use it, as the copy would cost
 * about as much as a frame */
#define VAGX_RENAME_COPY_MAX (1024 * 1024)

/* Gives a buffer whose contents are discarded new storage when the old one
 * is still in use (by a submitted job or a pending batch), instead of
 * waiting: batches keep their reference to the old BO, later draws see the
 * new one (they take rsrc->bo when they are encoded).  With `range` (a
 * range discard, PIPE_MAP_DISCARD_RANGE: glBufferSubData, glMapBufferRange
 * with GL_MAP_INVALIDATE_RANGE_BIT), the rest of the buffer is copied into
 * the new storage, which is only possible while no job or pending batch
 * writes the buffer (jobs that only read it leave the old contents final)
 * and done only for buffers up to VAGX_RENAME_COPY_MAX.  Not for BOs other
 * processes or devices see, nor for persistently mapped buffers (the
 * application keeps its pointer into the old storage).  Returns whether the
 * resource has new storage. */
static bool
buffer_rename(struct vagx_context *ctx, struct vagx_resource *rsrc, const struct pipe_box *range)
{
   struct vagx_bo *old = rsrc->bo;
   if (rsrc->base.target != PIPE_BUFFER || old->flags || old->prime_fd >= 0 ||
       (rsrc->base.flags & PIPE_RESOURCE_FLAG_MAP_PERSISTENT))
      return false;
   if (!rsrc->writer && !rsrc->reader_mask && !vagx_bo_is_busy(ctx->screen, old, true))
      return false;
   if (range && (rsrc->base.width0 > VAGX_RENAME_COPY_MAX || rsrc->writer ||
                 vagx_bo_is_busy(ctx->screen, old, false)))
      return false;
   struct vagx_bo *bo = vagx_screen_bo_create(ctx->screen, old->size, "resource");
   if (!bo)
      return false;
   if (range) {
      const unsigned end = range->x + range->width;
      memcpy(bo->map, old->map, range->x);
      memcpy((uint8_t *)bo->map + end, (const uint8_t *)old->map + end, rsrc->base.width0 - end);
   }
   rsrc->bo = bo;
   vagx_bo_unreference(old);
   /* every context that has the buffer bound emits its address again */
   p_atomic_inc(&ctx->screen->renames);
   /* pending batches use the old storage: no dependency on them is left */
   if (rsrc->writer && rsrc->writer->ctx != ctx)
      vagx_flush_writer(rsrc->writer->ctx, rsrc);
   rsrc->writer = NULL;
   rsrc->reader_mask = 0;
   return true;
}

/* One level of some layers of a sparse texture, copied out of its
 * committed pages (zeros elsewhere): the level of layout starts at data[i]
 * for layer first + i (offset 0, layer stride 0), so the layout library's
 * copies address it as they address the image */
struct vagx_sparse_level {
   struct vagx_layout layout;
   unsigned level, first, count;
   uint64_t size_B;
   uint8_t *data[];
};

static struct vagx_sparse_level *
sparse_level_read(struct vagx_resource *rsrc, unsigned level, unsigned first, unsigned count)
{
   const struct vagx_layout *l = &rsrc->layout;
   const uint64_t size = l->level[level].size_B;
   struct vagx_sparse_level *c = malloc(sizeof(*c) + count * sizeof(c->data[0]) + count * size);
   if (!c)
      return NULL;
   c->layout = *l;
   c->layout.layer_stride_B = 0;
   c->layout.level[level].offset_B = 0;
   c->level = level;
   c->first = first;
   c->count = count;
   c->size_B = size;
   for (unsigned i = 0; i < count; i++) {
      c->data[i] = (uint8_t *)&c->data[count] + i * size;
      vagx_sparse_read(rsrc->bo, vagx_layout_offset_B(l, level, first + i, 0, 0), c->data[i],
                       size);
   }
   return c;
}

static void
sparse_level_write(struct vagx_resource *rsrc, const struct vagx_sparse_level *c)
{
   for (unsigned i = 0; i < c->count; i++)
      vagx_sparse_write(rsrc->bo, vagx_layout_offset_B(&rsrc->layout, c->level, c->first + i, 0, 0),
                        c->data[i], c->size_B);
}

static void *
vagx_transfer_map(struct pipe_context *pctx, struct pipe_resource *prsc, unsigned level,
                  unsigned usage, const struct pipe_box *box, struct pipe_transfer **out)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_resource *rsrc = vagx_resource(prsc);

   /* GPU work on the resource must land before the CPU looks at it:
    * submitted (flush), then done (the BO's last write for a read, its last
    * use for a write).  A discard of the whole buffer or of a range of it
    * renames a busy buffer instead. */
   const bool discard_range = (usage & PIPE_MAP_DISCARD_RANGE) && !(usage & PIPE_MAP_READ);
   /* (a discarded range of a sparse buffer in pages committed since its
    * last use -- an upload after glBufferPageCommitmentARB -- needs neither) */
   const bool fresh = discard_range && (rsrc->bo->flags & VAGX_BO_SPARSE) &&
                      prsc->target == PIPE_BUFFER && vagx_sparse_is_fresh(ctx, rsrc, box);
   /* another context's pending batch writes it: its storage stays */
   const bool other_writer = rsrc->writer && rsrc->writer->ctx != ctx;
   if (!(usage & PIPE_MAP_UNSYNCHRONIZED) && !fresh &&
       !((usage & PIPE_MAP_DISCARD_WHOLE_RESOURCE) && buffer_rename(ctx, rsrc, NULL)) &&
       !(discard_range && buffer_rename(ctx, rsrc, box))) {
      if (usage & PIPE_MAP_WRITE)
         vagx_flush_readers(ctx, rsrc);
      vagx_flush_writer(ctx, rsrc);
      vagx_bo_wait_idle(ctx->screen, rsrc->bo, usage & PIPE_MAP_WRITE);
      /* and work of other processes/devices on a shared buffer */
      vagx_bo_wait_shared(rsrc->bo, usage & PIPE_MAP_WRITE, -1);
   }
   /* the CPU writes it: what a later batch finds must be loaded */
   if (usage & PIPE_MAP_WRITE)
      rsrc->undefined = false;

   struct vagx_transfer *t = slab_zalloc(&ctx->transfer_pool);
   t->base.level = level;
   t->base.usage = usage;
   t->base.box = *box;
   pipe_resource_reference(&t->base.resource, prsc);
   *out = &t->base;

   uint8_t *map = rsrc->bo->map;
   const bool sparse = rsrc->bo->flags & VAGX_BO_SPARSE;
   if (sparse && prsc->target == PIPE_BUFFER) {
      /* no CPU mapping of the range: a staging copy of the committed
       * pages (zeros elsewhere), written back to them at unmap */
      t->staging = vagx_staging_get(ctx, box->width, &t->staging_capacity);
      if (!t->staging) {
         pipe_resource_reference(&t->base.resource, NULL);
         slab_free(&ctx->transfer_pool, t);
         *out = NULL;
         return NULL;
      }
      if (!(usage & PIPE_MAP_DISCARD_RANGE) || (usage & PIPE_MAP_READ))
         vagx_sparse_read(rsrc->bo, box->x, t->staging, box->width);
      return t->staging;
   }
   if (prsc->target == PIPE_BUFFER)
      return map + box->x;

   struct vagx_layout *l = &rsrc->layout;
   unsigned bw = util_format_get_blockwidth(prsc->format);
   unsigned bh = util_format_get_blockheight(prsc->format);
   unsigned bs = util_format_get_blocksize(prsc->format);
   /* read back whole again and again: linear from now on */
   if (!other_writer && vagx_readback_make_linear(ctx, rsrc, level, usage, box))
      map = rsrc->bo->map;
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
   t->staging = vagx_staging_get(ctx, (size_t)t->base.layer_stride * box->depth,
                                 &t->staging_capacity);
   if (sparse && t->staging) {
      /* no CPU mapping: a copy of the level's committed pages (zeros
       * elsewhere), which is detiled, and tiled and written back at unmap
       * (writes to uncommitted pages vanish, as the GPU's do) */
      t->sparse_level = sparse_level_read(rsrc, level, box->z, box->depth);
      if (!t->sparse_level) {
         vagx_staging_put(ctx, t->staging, t->staging_capacity);
         t->staging = NULL;
      }
   }
   if (!t->staging) {
      pipe_resource_reference(&t->base.resource, NULL);
      slab_free(&ctx->transfer_pool, t);
      *out = NULL;
      return NULL;
   }
   if (!(usage & PIPE_MAP_DISCARD_RANGE) || (usage & PIPE_MAP_READ)) {
      for (int z = 0; z < box->depth; z++) {
         if (sparse)
            vagx_layout_detile(&t->sparse_level->layout, t->sparse_level->data[z],
                               (uint8_t *)t->staging + z * t->base.layer_stride, t->staging_stride,
                               level, 0, box->x / bw, box->y / bh, w_el, h_el);
         else
            vagx_layout_detile(l, map, (uint8_t *)t->staging + z * t->base.layer_stride,
                               t->staging_stride, level, box->z + z, box->x / bw, box->y / bh,
                               w_el, h_el);
      }
   }
   return t->staging;
}

static void
vagx_transfer_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_transfer *t = (struct vagx_transfer *)ptrans;
   struct vagx_resource *rsrc = vagx_resource(ptrans->resource);
   if (t->staging && (rsrc->bo->flags & VAGX_BO_SPARSE) && ptrans->resource->target == PIPE_BUFFER) {
      if (ptrans->usage & PIPE_MAP_WRITE)
         vagx_sparse_write(rsrc->bo, ptrans->box.x, t->staging, ptrans->box.width);
      vagx_staging_put(ctx, t->staging, t->staging_capacity);
   } else if (t->staging) {
      if (ptrans->usage & PIPE_MAP_WRITE) {
         struct pipe_resource *prsc = ptrans->resource;
         unsigned bw = util_format_get_blockwidth(prsc->format);
         unsigned bh = util_format_get_blockheight(prsc->format);
         const struct pipe_box *box = &ptrans->box;
         for (int z = 0; z < box->depth; z++) {
            const void *lin = (uint8_t *)t->staging + z * ptrans->layer_stride;
            if (t->sparse_level)
               vagx_layout_tile(&t->sparse_level->layout, t->sparse_level->data[z], lin,
                                t->staging_stride, ptrans->level, 0, box->x / bw, box->y / bh,
                                DIV_ROUND_UP(box->width, bw), DIV_ROUND_UP(box->height, bh));
            else
               vagx_layout_tile(&rsrc->layout, rsrc->bo->map, lin, t->staging_stride,
                                ptrans->level, box->z + z, box->x / bw, box->y / bh,
                                DIV_ROUND_UP(box->width, bw), DIV_ROUND_UP(box->height, bh));
         }
         if (t->sparse_level)
            sparse_level_write(rsrc, t->sparse_level);
      }
      free(t->sparse_level);
      vagx_staging_put(ctx, t->staging, t->staging_capacity);
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
   p->resource_get_param = vagx_resource_get_param;
   p->resource_get_info = vagx_resource_get_info;
   p->is_dmabuf_modifier_supported = vagx_is_dmabuf_modifier_supported;
   p->query_dmabuf_modifiers = vagx_query_dmabuf_modifiers;
   /* No U_TRANSFER_HELPER_SEPARATE_Z32S8: the hardware has the interleaved
    * Z32_FLOAT_S8X24_UINT format (one depth/stencil descriptor per render
    * job, no separate stencil image), laid out like gallium's (f32 Z, then
    * a u32 with S in bits 7:0), so such resources are created and mapped
    * as they are.  (With the flag, the helper split them into a Z32F and
    * an S8 resource through set_stencil/get_stencil, which the vtbl does
    * not have: every GL_DEPTH32F_STENCIL8 texture crashed.) */
   p->transfer_helper = u_transfer_helper_create(&transfer_vtbl, U_TRANSFER_HELPER_MSAA_MAP);
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

/* Called before a resource is handed to another process or KMS (swap,
 * EGL image export): make it shareable and submit its pending rendering,
 * whose fence vagx_device_submit attaches to the dma-buf. */
static void
vagx_flush_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_resource *rsrc = vagx_resource(prsc);
   if (prsc->bind & VAGX_BIND_SHAREABLE)
      vagx_resource_make_shareable(ctx->screen, rsrc);
   vagx_flush_writer(ctx, rsrc);
}

/*
 * glInvalidateFramebuffer, and the window system's depth/stencil buffer at
 * every swap (dri_flush with __DRI2_FLUSH_INVALIDATE_ANCILLARY): the
 * contents are undefined from now on.  A batch rendering to it as its
 * depth/stencil buffer does not store it, unless a later clear or draw of
 * the batch writes it again, and batches begun after it do not load it (as
 * asahi's agx_invalidate_resource drops the batch's resolve).  Colour
 * buffers are kept: the swap itself reads the back buffer.
 */
static void
vagx_invalidate_resource(struct pipe_context *pctx, struct pipe_resource *prsc)
{
   struct vagx_context *ctx = vagx_context(pctx);
   bool zs = false;
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      struct vagx_batch *b = &ctx->batches[i];
      if (b->active && b->key.zsbuf && b->key.zsbuf->texture == prsc) {
         b->zs_discard = true;
         zs = true;
      }
   }
   if (zs || util_format_is_depth_or_stencil(prsc->format))
      vagx_resource(prsc)->undefined = true;
   /* glInvalidateBufferData, glBufferData of the same size: new storage
    * if the old one is busy, so no later map waits for it */
   buffer_rename(ctx, vagx_resource(prsc), NULL);
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
   pctx->invalidate_resource = vagx_invalidate_resource;
   pctx->resource_copy_region = util_resource_copy_region;
}
