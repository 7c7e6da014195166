/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include "util/u_blitter.h"
#include "util/u_framebuffer.h"
#include "util/u_helpers.h"
#include "util/u_debug_cb.h"
#include "util/u_sample_positions.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"
#include "util/u_surface.h"
#include "vagx_context.h"

static void
vagx_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence, unsigned flags)
{
   struct vagx_context *ctx = vagx_context(pctx);
   vagx_flush_all(ctx);
   if (fence) {
      struct vagx_fence *f = CALLOC_STRUCT(vagx_fence);
      pipe_reference_init(&f->reference, 1);
      /* every submit waits synchronously today, so the fence is signalled */
      f->syncobj = 0;
      *fence = (struct pipe_fence_handle *)f;
   }
}

static void
vagx_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct vagx_context *ctx = vagx_context(pctx);
   if (!util_blitter_is_blit_supported(ctx->blitter, info)) {
      fprintf(stderr, "vagx: unsupported blit\n");
      return;
   }
   util_blitter_save_vertex_buffers(ctx->blitter, ctx->vb, ctx->vb_count);
   util_blitter_save_vertex_elements(ctx->blitter, ctx->vtx);
   util_blitter_save_vertex_shader(ctx->blitter, ctx->vs);
   util_blitter_save_rasterizer(ctx->blitter, ctx->rast);
   util_blitter_save_viewport(ctx->blitter, &ctx->viewport);
   util_blitter_save_scissor(ctx->blitter, &ctx->scissor);
   util_blitter_save_fragment_shader(ctx->blitter, ctx->fs);
   util_blitter_save_blend(ctx->blitter, ctx->blend);
   util_blitter_save_depth_stencil_alpha(ctx->blitter, ctx->zsa);
   util_blitter_save_stencil_ref(ctx->blitter, &ctx->stencil_ref);
   util_blitter_save_sample_mask(ctx->blitter, ctx->sample_mask, 0);
   util_blitter_save_framebuffer(ctx->blitter, &ctx->fb);
   util_blitter_save_fragment_sampler_states(ctx->blitter, ctx->sampler_count[PIPE_SHADER_FRAGMENT],
                                             (void **)ctx->samplers[PIPE_SHADER_FRAGMENT]);
   util_blitter_save_fragment_sampler_views(ctx->blitter, ctx->view_count[PIPE_SHADER_FRAGMENT],
                                            ctx->views[PIPE_SHADER_FRAGMENT]);
   util_blitter_save_fragment_constant_buffer_slot(ctx->blitter, ctx->cb[PIPE_SHADER_FRAGMENT]);
   util_blitter_blit(ctx->blitter, info, NULL);
}

static void
vagx_context_destroy(struct pipe_context *pctx)
{
   struct vagx_context *ctx = vagx_context(pctx);
   vagx_flush_all(ctx);
   if (ctx->blitter)
      util_blitter_destroy(ctx->blitter);
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   vagx_batch_destroy_all(ctx);
   util_unreference_framebuffer_state(&ctx->fb);
   if (ctx->last_syncobj)
      ctx->screen->dev.ops->syncobj_destroy(&ctx->screen->dev, ctx->last_syncobj);
   slab_destroy_child(&ctx->transfer_pool);
   FREE(ctx);
}

static void
vagx_texture_barrier(struct pipe_context *pctx, unsigned flags)
{
   vagx_flush_all(vagx_context(pctx));
}

static void
vagx_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   vagx_flush_all(vagx_context(pctx));
}

struct pipe_context *
vagx_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct vagx_screen *screen = vagx_screen(pscreen);
   struct vagx_context *ctx = CALLOC_STRUCT(vagx_context);
   if (!ctx)
      return NULL;
   struct pipe_context *p = &ctx->base;
   ctx->screen = screen;
   p->screen = pscreen;
   p->priv = priv;
   p->destroy = vagx_context_destroy;
   p->flush = vagx_flush;
   p->blit = vagx_blit;
   p->texture_barrier = vagx_texture_barrier;
   p->memory_barrier = vagx_memory_barrier;
   p->set_debug_callback = u_default_set_debug_callback;
   p->get_sample_position = u_default_get_sample_position;
   vagx_init_context_resource_functions(p);
   vagx_init_state_functions(p);
   vagx_init_draw_functions(p);
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      ctx->batches[i].ctx = ctx;
      ctx->batches[i].idx = i;
   }
   ctx->sample_mask = ~0u;
   slab_create_child(&ctx->transfer_pool, &screen->transfer_pool);
   p->stream_uploader = u_upload_create_default(p);
   p->const_uploader = p->stream_uploader;
   ctx->blitter = util_blitter_create(p);
   if (!ctx->blitter) {
      vagx_context_destroy(p);
      return NULL;
   }
   return p;
}
