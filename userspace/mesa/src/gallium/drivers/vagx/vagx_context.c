/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include "util/bitscan.h"
#include "util/format/u_format.h"
#include "util/u_blitter.h"
#include "util/u_inlines.h"
#include "util/u_sampler.h"
#include "util/u_framebuffer.h"
#include "util/u_helpers.h"
#include "util/u_debug_cb.h"
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
   /* the fence of the context's last submit: every earlier one of the
    * screen completes before it (one render queue, in order) */
   if (fence)
      *fence = (struct pipe_fence_handle *)vagx_context_fence(ctx);
}

/* State util_blitter restores after each of its operations. */
static void
blitter_save(struct vagx_context *ctx)
{
   util_blitter_save_vertex_buffers(ctx->blitter, ctx->vb, ctx->vb_count);
   util_blitter_save_vertex_elements(ctx->blitter, ctx->vtx);
   util_blitter_save_vertex_shader(ctx->blitter, ctx->vs);
   util_blitter_save_geometry_shader(ctx->blitter, ctx->gs);
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
   /* blitter draws do not stream out; it restores the targets appending */
   util_blitter_save_so_targets(ctx->blitter, ctx->so_num, ctx->so_targets, MESA_PRIM_UNKNOWN);
   /* checked by the caller: the blitter's own draws run unconditionally */
   util_blitter_save_render_condition(ctx->blitter, (struct pipe_query *)ctx->cond_query,
                                      ctx->cond_cond, ctx->cond_mode);
}

/* Stencil part of a blit without stencil export (vagx_screen.c says why
 * the cap is off): clear the destination box's stencil to 0, then one pass
 * per stencil bit sets that bit (write mask 1 << i, REPLACE with all ones)
 * where the source has it; the shader fetches the source stencil with txf
 * and discards the other fragments (util_blitter_stencil_fallback). */
static void
blit_stencil_fallback(struct vagx_context *ctx, const struct pipe_blit_info *info)
{
   struct pipe_context *pctx = &ctx->base;
   struct pipe_surface tmpl, *dst;
   util_blitter_default_dst_texture(&tmpl, info->dst.resource, info->dst.level, info->dst.box.z);
   dst = pctx->create_surface(pctx, info->dst.resource, &tmpl);
   if (!dst)
      return;
   blitter_save(ctx);
   util_blitter_clear_depth_stencil(ctx->blitter, dst, PIPE_CLEAR_STENCIL, 0, 0, info->dst.box.x,
                                    info->dst.box.y, info->dst.box.width, info->dst.box.height);
   blitter_save(ctx);
   util_blitter_stencil_fallback(ctx->blitter, info->dst.resource, info->dst.level, &info->dst.box,
                                 info->src.resource, info->src.level, &info->src.box,
                                 info->scissor_enable ? &info->scissor : NULL);
   pipe_surface_reference(&dst, NULL);
}

static void
vagx_blit(struct pipe_context *pctx, const struct pipe_blit_info *blit_info)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct pipe_blit_info info = *blit_info;
   if (info.render_condition_enable && !vagx_render_condition_passes(ctx))
      return;
   if ((info.mask & PIPE_MASK_S) && !util_blitter_is_blit_supported(ctx->blitter, &info)) {
      blit_stencil_fallback(ctx, &info);
      info.mask &= ~PIPE_MASK_S;
      if (!info.mask)
         return;
   }
   if (!util_blitter_is_blit_supported(ctx->blitter, &info)) {
      fprintf(stderr, "vagx: unsupported blit %s -> %s\n",
              util_format_short_name(info.src.format), util_format_short_name(info.dst.format));
      return;
   }
   blitter_save(ctx);
   util_blitter_blit(ctx->blitter, &info, NULL);
}

struct pipe_sampler_view *
vagx_null_view(struct vagx_context *ctx)
{
   if (ctx->null_view)
      return ctx->null_view;
   struct pipe_context *p = &ctx->base;
   struct pipe_resource t = {
      .target = PIPE_TEXTURE_2D, .format = PIPE_FORMAT_R8G8B8A8_UNORM, .width0 = 1,
      .height0 = 1, .depth0 = 1, .array_size = 1, .bind = PIPE_BIND_SAMPLER_VIEW,
   };
   struct pipe_resource *tex = p->screen->resource_create(p->screen, &t);
   if (!tex)
      return NULL;
   static const uint8_t black[4] = { 0, 0, 0, 255 };
   struct pipe_box box;
   u_box_2d(0, 0, 1, 1, &box);
   p->texture_subdata(p, tex, 0, PIPE_MAP_WRITE, &box, black, 4, 4);
   struct pipe_sampler_view v;
   u_sampler_view_default_template(&v, tex, PIPE_FORMAT_R8G8B8A8_UNORM);
   ctx->null_view = p->create_sampler_view(p, tex, &v);
   pipe_resource_reference(&tex, NULL);
   return ctx->null_view;
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
   vagx_compute_fini(ctx);
   vagx_image_fini(ctx);
   u_suballocator_destroy(&ctx->query_slab);
   for (unsigned i = 0; i < ctx->so_num; i++)
      pipe_so_target_reference(&ctx->so_targets[i], NULL);
   util_unreference_framebuffer_state(&ctx->fb);
   pipe_sampler_view_reference(&ctx->stipple_view, NULL);
   pipe_sampler_view_reference(&ctx->null_view, NULL);
   pipe_resource_reference(&ctx->stipple_tex, NULL);
   if (ctx->stipple_sampler)
      pctx->delete_sampler_state(pctx, ctx->stipple_sampler);
   slab_destroy_child(&ctx->transfer_pool);
   vagx_staging_fini(ctx);
   FREE(ctx);
}

static void
vagx_texture_barrier(struct pipe_context *pctx, unsigned flags)
{
   vagx_flush_all(vagx_context(pctx));
}

/* The device's sample positions (gl_SamplePosition, GL_SAMPLE_POSITION):
 * the contract's 4X pattern, the pixel centre otherwise, as the renderer and
 * the compiler (lower_sample_io) place them. */
static void
vagx_get_sample_position(struct pipe_context *ctx, unsigned sample_count, unsigned sample_index,
                         float *out_value)
{
   if (sample_count == 4) {
      vagx_sample_pos_4x(sample_index, &out_value[0], &out_value[1]);
   } else {
      out_value[0] = out_value[1] = 0.5f;
   }
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
   p->set_debug_callback = u_default_set_debug_callback;
   p->get_sample_position = vagx_get_sample_position;
   vagx_init_context_fence_functions(p);
   vagx_init_query_functions(p);
   vagx_init_context_resource_functions(p);
   vagx_init_commit_functions(p);
   vagx_init_state_functions(p);
   vagx_init_shader_functions(p);
   vagx_init_draw_functions(p);
   vagx_init_streamout_functions(p);
   vagx_init_compute_functions(p);
   vagx_init_image_functions(p);
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      ctx->batches[i].ctx = ctx;
      ctx->batches[i].idx = i;
   }
   ctx->sample_mask = ~0u;
   ctx->dirty = VAGX_DIRTY_ALL;
   vagx_query_slab_init(ctx);
   util_dynarray_init(&ctx->inflight, NULL);
   util_dynarray_init(&ctx->wait_fences, NULL);
   util_dynarray_init(&ctx->chunk_pool, NULL);
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
