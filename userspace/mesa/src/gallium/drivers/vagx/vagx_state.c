/* SPDX-License-Identifier: MIT */
/* Non-shader CSOs and bound state (shaders: vagx_shader.c). */
#include <string.h>
#include "util/u_pstipple.h"
#include "util/u_sampler.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "vagx_context.h"
#include "vagx_hw.h"

#define DUP_CSO(name, type)                                                    \
   static void *vagx_create_##name(struct pipe_context *p, const type *s)      \
   {                                                                           \
      type *c = MALLOC(sizeof(type));                                          \
      memcpy(c, s, sizeof(type));                                              \
      return c;                                                                \
   }                                                                           \
   static void vagx_delete_##name(struct pipe_context *p, void *s) { FREE(s); }

DUP_CSO(blend, struct pipe_blend_state)
DUP_CSO(rast, struct pipe_rasterizer_state)
DUP_CSO(zsa, struct pipe_depth_stencil_alpha_state)
DUP_CSO(sampler, struct pipe_sampler_state)

static void vagx_bind_blend(struct pipe_context *p, void *s) { vagx_context(p)->blend = s; }
static void vagx_bind_rast(struct pipe_context *p, void *s) { vagx_context(p)->rast = s; }
static void vagx_bind_zsa(struct pipe_context *p, void *s) { vagx_context(p)->zsa = s; }

static void *
vagx_create_vertex_elements(struct pipe_context *p, unsigned count,
                            const struct pipe_vertex_element *el)
{
   struct vagx_vertex_elements *v = CALLOC_STRUCT(vagx_vertex_elements);
   v->count = count;
   memcpy(v->el, el, count * sizeof(*el));
   return v;
}
static void vagx_bind_vertex_elements(struct pipe_context *p, void *s) { vagx_context(p)->vtx = s; }
static void vagx_delete_vertex_elements(struct pipe_context *p, void *s) { FREE(s); }

static void
vagx_bind_sampler_states(struct pipe_context *p, enum pipe_shader_type shader, unsigned start,
                         unsigned count, void **states)
{
   struct vagx_context *ctx = vagx_context(p);
   for (unsigned i = 0; i < count; i++)
      ctx->samplers[shader][start + i] = states ? states[i] : NULL;
   ctx->sampler_count[shader] = MAX2(ctx->sampler_count[shader], start + count);
}

static struct pipe_sampler_view *
vagx_create_sampler_view(struct pipe_context *p, struct pipe_resource *prsc,
                         const struct pipe_sampler_view *tmpl)
{
   struct pipe_sampler_view *v = CALLOC_STRUCT(pipe_sampler_view);
   *v = *tmpl;
   v->texture = NULL;
   pipe_resource_reference(&v->texture, prsc);
   pipe_reference_init(&v->reference, 1);
   v->context = p;
   return v;
}

static void
vagx_sampler_view_destroy(struct pipe_context *p, struct pipe_sampler_view *v)
{
   pipe_resource_reference(&v->texture, NULL);
   FREE(v);
}

static void
vagx_set_sampler_views(struct pipe_context *p, enum pipe_shader_type shader, unsigned start,
                       unsigned count, unsigned unbind_trailing, bool take_ownership,
                       struct pipe_sampler_view **views)
{
   struct vagx_context *ctx = vagx_context(p);
   for (unsigned i = 0; i < count; i++) {
      struct pipe_sampler_view *v = views ? views[i] : NULL;
      if (take_ownership) {
         pipe_sampler_view_reference(&ctx->views[shader][start + i], NULL);
         ctx->views[shader][start + i] = v;
      } else {
         pipe_sampler_view_reference(&ctx->views[shader][start + i], v);
      }
   }
   for (unsigned i = 0; i < unbind_trailing; i++)
      pipe_sampler_view_reference(&ctx->views[shader][start + count + i], NULL);
   ctx->view_count[shader] = start + count;
}

static void
vagx_set_framebuffer_state(struct pipe_context *p, const struct pipe_framebuffer_state *fb)
{
   struct vagx_context *ctx = vagx_context(p);
   util_copy_framebuffer_state(&ctx->fb, fb);
   ctx->batch = NULL;
}

static void
vagx_set_vertex_buffers(struct pipe_context *p, unsigned count,
                        const struct pipe_vertex_buffer *buffers)
{
   struct vagx_context *ctx = vagx_context(p);
   for (unsigned i = 0; i < ctx->vb_count; i++)
      pipe_vertex_buffer_unreference(&ctx->vb[i]);
   for (unsigned i = 0; i < count; i++)
      ctx->vb[i] = buffers[i]; /* ownership is transferred in 25.0 */
   ctx->vb_count = count;
}

static void
vagx_set_constant_buffer(struct pipe_context *p, enum pipe_shader_type shader, uint index,
                         bool take_ownership, const struct pipe_constant_buffer *cb)
{
   struct vagx_context *ctx = vagx_context(p);
   struct pipe_constant_buffer *dst = &ctx->cb[shader][index];
   if (!cb) {
      pipe_resource_reference(&dst->buffer, NULL);
      memset(dst, 0, sizeof(*dst));
      return;
   }
   if (take_ownership) {
      pipe_resource_reference(&dst->buffer, NULL);
      *dst = *cb;
   } else {
      pipe_resource_reference(&dst->buffer, cb->buffer);
      dst->buffer_offset = cb->buffer_offset;
      dst->buffer_size = cb->buffer_size;
      dst->user_buffer = cb->user_buffer;
   }
}

static void vagx_set_viewport_states(struct pipe_context *p, unsigned s, unsigned n,
                                     const struct pipe_viewport_state *v) { vagx_context(p)->viewport = v[0]; }
static void vagx_set_scissor_states(struct pipe_context *p, unsigned s, unsigned n,
                                    const struct pipe_scissor_state *v) { vagx_context(p)->scissor = v[0]; }
static void vagx_set_blend_color(struct pipe_context *p, const struct pipe_blend_color *c) { vagx_context(p)->blend_color = *c; }
static void vagx_set_stencil_ref(struct pipe_context *p, const struct pipe_stencil_ref r) { vagx_context(p)->stencil_ref = r; }
static void vagx_set_clip_state(struct pipe_context *p, const struct pipe_clip_state *c) { vagx_context(p)->clip = *c; }
static void vagx_set_sample_mask(struct pipe_context *p, unsigned m) { vagx_context(p)->sample_mask = m; }
static void
vagx_set_polygon_stipple(struct pipe_context *p, const struct pipe_poly_stipple *s)
{
   struct vagx_context *ctx = vagx_context(p);
   pipe_sampler_view_reference(&ctx->stipple_view, NULL);
   pipe_resource_reference(&ctx->stipple_tex, NULL);
   /* util_pstipple's pattern texture is A8, a format the hardware lacks:
    * the same bytes (0 = keep, 255 = kill) in R8, read as alpha through the
    * view's swizzle */
   struct pipe_resource t = {
      .target = PIPE_TEXTURE_2D, .format = PIPE_FORMAT_R8_UNORM, .width0 = 32, .height0 = 32,
      .depth0 = 1, .array_size = 1, .bind = PIPE_BIND_SAMPLER_VIEW,
   };
   ctx->stipple_tex = p->screen->resource_create(p->screen, &t);
   if (ctx->stipple_tex) {
      util_pstipple_update_stipple_texture(p, ctx->stipple_tex, s->stipple);
      struct pipe_sampler_view v;
      u_sampler_view_default_template(&v, ctx->stipple_tex, PIPE_FORMAT_R8_UNORM);
      v.swizzle_r = v.swizzle_g = v.swizzle_b = PIPE_SWIZZLE_0;
      v.swizzle_a = PIPE_SWIZZLE_X;
      ctx->stipple_view = p->create_sampler_view(p, ctx->stipple_tex, &v);
   }
   if (!ctx->stipple_sampler)
      ctx->stipple_sampler = util_pstipple_create_sampler(p);
}


void
vagx_init_state_functions(struct pipe_context *p)
{
   p->create_blend_state = vagx_create_blend;
   p->bind_blend_state = vagx_bind_blend;
   p->delete_blend_state = vagx_delete_blend;
   p->create_rasterizer_state = vagx_create_rast;
   p->bind_rasterizer_state = vagx_bind_rast;
   p->delete_rasterizer_state = vagx_delete_rast;
   p->create_depth_stencil_alpha_state = vagx_create_zsa;
   p->bind_depth_stencil_alpha_state = vagx_bind_zsa;
   p->delete_depth_stencil_alpha_state = vagx_delete_zsa;
   p->create_sampler_state = vagx_create_sampler;
   p->bind_sampler_states = vagx_bind_sampler_states;
   p->delete_sampler_state = vagx_delete_sampler;
   p->create_vertex_elements_state = vagx_create_vertex_elements;
   p->bind_vertex_elements_state = vagx_bind_vertex_elements;
   p->delete_vertex_elements_state = vagx_delete_vertex_elements;
   p->create_sampler_view = vagx_create_sampler_view;
   p->sampler_view_destroy = vagx_sampler_view_destroy;
   p->set_sampler_views = vagx_set_sampler_views;
   p->set_framebuffer_state = vagx_set_framebuffer_state;
   p->set_vertex_buffers = vagx_set_vertex_buffers;
   p->set_constant_buffer = vagx_set_constant_buffer;
   p->set_viewport_states = vagx_set_viewport_states;
   p->set_scissor_states = vagx_set_scissor_states;
   p->set_blend_color = vagx_set_blend_color;
   p->set_stencil_ref = vagx_set_stencil_ref;
   p->set_clip_state = vagx_set_clip_state;
   p->set_sample_mask = vagx_set_sample_mask;
   p->set_polygon_stipple = vagx_set_polygon_stipple;
}
