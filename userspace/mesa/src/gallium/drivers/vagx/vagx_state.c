/* SPDX-License-Identifier: MIT */
/* Non-shader CSOs and bound state (shaders: vagx_shader.c). */
#include <string.h>
#include "util/u_pstipple.h"
#include "util/u_sampler.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/format/u_format.h"
#include "vagx_context.h"
#include "vagx_hw.h"

static void *
vagx_create_blend(struct pipe_context *p, const struct pipe_blend_state *s)
{
   struct vagx_blend_state *c = CALLOC_STRUCT(vagx_blend_state);
   if (!c)
      return NULL;
   c->base = *s;
   vagx_blend_key_init(&c->key, s, PIPE_MAX_COLOR_BUFS);
   for (unsigned i = 0; i < PIPE_MAX_COLOR_BUFS; i++) {
      const struct pipe_rt_blend_state *rt = &s->rt[s->independent_blend_enable ? i : 0];
      if (s->logicop_enable || s->alpha_to_coverage || s->alpha_to_one || rt->blend_enable ||
          rt->colormask != PIPE_MASK_RGBA)
         c->not_opaque_rts |= BITFIELD_BIT(i);
   }
   return c;
}

/* PIPE_POLYGON_MODE_FILL_RECTANGLE (NV_fill_rectangle) is not exposed */
static unsigned
fill_mode(unsigned mode)
{
   switch (mode) {
   case PIPE_POLYGON_MODE_LINE: return VAGX_FILL_MODE_LINE;
   case PIPE_POLYGON_MODE_POINT: return VAGX_FILL_MODE_POINT;
   default: return VAGX_FILL_MODE_FILL;
   }
}

static void *
vagx_create_rast(struct pipe_context *p, const struct pipe_rasterizer_state *rs)
{
   struct vagx_rasterizer_state *c = CALLOC_STRUCT(vagx_rasterizer_state);
   if (!c)
      return NULL;
   c->base = *rs;
   struct vagx_cmd_rasterizer *r = &c->cmd;
   vagx_cmd_rasterizer_init(r);
   r->cull = rs->cull_face == PIPE_FACE_FRONT ? VAGX_CULL_MODE_FRONT
             : rs->cull_face == PIPE_FACE_BACK ? VAGX_CULL_MODE_BACK
             : rs->cull_face == PIPE_FACE_FRONT_AND_BACK ? VAGX_CULL_MODE_FRONT_AND_BACK
                                                         : VAGX_CULL_MODE_NONE;
   /* gallium's front_ccw already refers to the window coordinates the
    * viewport produces (st flips it for y-inverted winsys buffers), with the
    * same orientation as the hardware's (softpipe: det > 0 is back-facing
    * with front_ccw), so it maps 1:1 */
   r->front_face = rs->front_ccw ? VAGX_FRONT_FACE_CCW : VAGX_FRONT_FACE_CW;
   r->fill_front = fill_mode(rs->fill_front);
   r->fill_back = fill_mode(rs->fill_back);
   r->provoking = rs->flatshade_first ? VAGX_PROVOKING_VERTEX_FIRST : VAGX_PROVOKING_VERTEX_LAST;
   r->offset_point = rs->offset_point;
   r->offset_line = rs->offset_line;
   r->offset_fill = rs->offset_tri;
   r->offset_units = rs->offset_units;
   r->offset_factor = rs->offset_scale;
   r->offset_clamp = rs->offset_clamp;
   r->depth_clip = rs->depth_clip_near;
   r->discard = rs->rasterizer_discard;
   r->half_pixel_center = 1;
   r->point_sprite_lower_left = rs->sprite_coord_mode == PIPE_SPRITE_COORD_LOWER_LEFT;
   r->point_size = rs->point_size;
   r->line_width = rs->line_width;
   /* 1X framebuffers ignore GL_MULTISAMPLE and the sample mask, as GL does;
    * 4X ones take them at the draw (emit_fixed_state) */
   r->sample_mask = 0xffff;
   vagx_cmd_rasterizer_pack(c->packed_1x, r);
   return c;
}

/* PIPE_STENCIL_OP_* lists the wrap ops before INVERT, the hardware after */
static unsigned
vagx_stencil_op(enum pipe_stencil_op op)
{
   switch (op) {
   case PIPE_STENCIL_OP_ZERO: return VAGX_STENCIL_OP_ZERO;
   case PIPE_STENCIL_OP_REPLACE: return VAGX_STENCIL_OP_REPLACE;
   case PIPE_STENCIL_OP_INCR: return VAGX_STENCIL_OP_INCR_CLAMP;
   case PIPE_STENCIL_OP_DECR: return VAGX_STENCIL_OP_DECR_CLAMP;
   case PIPE_STENCIL_OP_INCR_WRAP: return VAGX_STENCIL_OP_INCR_WRAP;
   case PIPE_STENCIL_OP_DECR_WRAP: return VAGX_STENCIL_OP_DECR_WRAP;
   case PIPE_STENCIL_OP_INVERT: return VAGX_STENCIL_OP_INVERT;
   default: return VAGX_STENCIL_OP_KEEP;
   }
}

static void *
vagx_create_zsa(struct pipe_context *p, const struct pipe_depth_stencil_alpha_state *z)
{
   struct vagx_zsa_state *c = CALLOC_STRUCT(vagx_zsa_state);
   if (!c)
      return NULL;
   c->base = *z;
   struct vagx_cmd_depth_stencil *ds = &c->cmd;
   vagx_cmd_depth_stencil_init(ds);
   ds->depth_test = z->depth_enabled;
   ds->depth_write = z->depth_enabled && z->depth_writemask;
   ds->depth_func = z->depth_enabled ? z->depth_func : PIPE_FUNC_ALWAYS;
   ds->stencil_test = z->stencil[0].enabled;
   for (unsigned f = 0; f < 2; f++) {
      /* one-sided stencil (stencil[1] disabled): the front state and the
       * front reference apply to back faces too; st's clear-with-quad sets
       * only ref_value[0] */
      const unsigned si = f == 1 && z->stencil[1].enabled ? 1 : 0;
      const struct pipe_stencil_state *st = &z->stencil[si];
      struct vagx_stencil_face *face = f ? &ds->back : &ds->front;
      face->func = st->enabled ? st->func : PIPE_FUNC_ALWAYS;
      face->fail_op = vagx_stencil_op(st->fail_op);
      face->zfail_op = vagx_stencil_op(st->zfail_op);
      face->zpass_op = vagx_stencil_op(st->zpass_op);
      face->read_mask = st->valuemask;
      face->write_mask = st->writemask;
      c->ref_index[f] = si;
   }
   c->writes_zs = (z->depth_enabled && z->depth_writemask) ||
                  (z->stencil[0].enabled && z->stencil[0].writemask) ||
                  (z->stencil[1].enabled && z->stencil[1].writemask);
   c->stencil_enabled = z->stencil[0].enabled || z->stencil[1].enabled;
   return c;
}

static void *
vagx_create_sampler(struct pipe_context *p, const struct pipe_sampler_state *s)
{
   struct vagx_sampler_state *c = CALLOC_STRUCT(vagx_sampler_state);
   if (!c)
      return NULL;
   c->base = *s;
   struct vagx_sampler d;
   vagx_sampler_init(&d);
   d.min_filter = s->min_img_filter == PIPE_TEX_FILTER_LINEAR;
   d.mag_filter = s->mag_img_filter == PIPE_TEX_FILTER_LINEAR;
   d.mip_filter = s->min_mip_filter == PIPE_TEX_MIPFILTER_NONE     ? VAGX_MIP_FILTER_NONE
                  : s->min_mip_filter == PIPE_TEX_MIPFILTER_LINEAR ? VAGX_MIP_FILTER_LINEAR
                                                                   : VAGX_MIP_FILTER_NEAREST;
   static const uint8_t wrap[] = {
      [PIPE_TEX_WRAP_REPEAT] = VAGX_WRAP_REPEAT,
      [PIPE_TEX_WRAP_CLAMP] = VAGX_WRAP_CLAMP_TO_EDGE,
      [PIPE_TEX_WRAP_CLAMP_TO_EDGE] = VAGX_WRAP_CLAMP_TO_EDGE,
      [PIPE_TEX_WRAP_CLAMP_TO_BORDER] = VAGX_WRAP_CLAMP_TO_BORDER,
      [PIPE_TEX_WRAP_MIRROR_REPEAT] = VAGX_WRAP_MIRRORED_REPEAT,
      [PIPE_TEX_WRAP_MIRROR_CLAMP] = VAGX_WRAP_MIRROR_CLAMP_TO_EDGE,
      [PIPE_TEX_WRAP_MIRROR_CLAMP_TO_EDGE] = VAGX_WRAP_MIRROR_CLAMP_TO_EDGE,
      [PIPE_TEX_WRAP_MIRROR_CLAMP_TO_BORDER] = VAGX_WRAP_MIRROR_CLAMP_TO_EDGE,
   };
   d.wrap_s = wrap[s->wrap_s];
   d.wrap_t = wrap[s->wrap_t];
   d.wrap_r = wrap[s->wrap_r];
   d.compare_enable = s->compare_mode == PIPE_TEX_COMPARE_R_TO_TEXTURE;
   d.compare_func = s->compare_func; /* PIPE_FUNC_* has the same order */
   d.min_lod = s->min_lod;
   d.max_lod = s->max_lod;
   d.lod_bias = s->lod_bias;
   d.unnormalized = s->unnormalized_coords;
   d.seamless_cube = s->seamless_cube_map;
   memcpy(d.border_color, s->border_color.ui, 16);
   vagx_sampler_pack(c->desc, &d);
   return c;
}

static void vagx_delete_cso(struct pipe_context *p, void *s) { FREE(s); }

static void
vagx_bind_blend(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->blend = s;
   /* the fragment variant (nir_lower_blend) and its `opaque` promise */
   ctx->dirty |= VAGX_DIRTY_FS_VARIANT | VAGX_DIRTY_FS;
}

static void
vagx_bind_rast(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->rast = s;
   /* rasterizer.scissor enables the scissor; poly_stipple picks a variant;
    * depth_clip_near picks the viewport's depth clamp range (emit_viewport) */
   ctx->dirty |= VAGX_DIRTY_RAST | VAGX_DIRTY_SCISSOR | VAGX_DIRTY_FS_VARIANT | VAGX_DIRTY_VIEWPORT;
}

static void
vagx_bind_zsa(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->zsa = s;
   ctx->dirty |= VAGX_DIRTY_ZS;
}

static void *
vagx_create_vertex_elements(struct pipe_context *p, unsigned count,
                            const struct pipe_vertex_element *el)
{
   struct vagx_vertex_elements *v = CALLOC_STRUCT(vagx_vertex_elements);
   if (!v)
      return NULL;
   v->count = count;
   memcpy(v->el, el, count * sizeof(*el));
   for (unsigned i = 0; i < count; i++) {
      v->attr_comps[i] = util_format_get_nr_components(el[i].src_format);
      if (util_format_is_pure_integer(el[i].src_format))
         v->attr_int |= BITFIELD_BIT(i);
      if (vagx_vertex_format_converted(el[i].src_format))
         v->attr_format[i] = el[i].src_format;
   }
   return v;
}

static void
vagx_bind_vertex_elements(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->vtx = s;
   ctx->dirty |= VAGX_DIRTY_VS | VAGX_DIRTY_VS_VARIANT;
}

static uint32_t
stage_dirty(enum pipe_shader_type shader)
{
   /* compute state is encoded at each dispatch (vagx_compute.c) */
   return shader == PIPE_SHADER_VERTEX     ? VAGX_DIRTY_VS
          : shader == PIPE_SHADER_FRAGMENT ? VAGX_DIRTY_FS
          : shader == PIPE_SHADER_GEOMETRY ? VAGX_DIRTY_GS
                                           : 0;
}

static void
vagx_bind_sampler_states(struct pipe_context *p, enum pipe_shader_type shader, unsigned start,
                         unsigned count, void **states)
{
   struct vagx_context *ctx = vagx_context(p);
   for (unsigned i = 0; i < count; i++)
      ctx->samplers[shader][start + i] = states ? states[i] : NULL;
   ctx->sampler_count[shader] = MAX2(ctx->sampler_count[shader], start + count);
   ctx->dirty |= stage_dirty(shader);
}

static struct pipe_sampler_view *
vagx_create_sampler_view(struct pipe_context *p, struct pipe_resource *prsc,
                         const struct pipe_sampler_view *tmpl)
{
   struct vagx_sampler_view *v = CALLOC_STRUCT(vagx_sampler_view);
   if (!v)
      return NULL;
   v->base = *tmpl;
   v->base.texture = NULL;
   pipe_resource_reference(&v->base.texture, prsc);
   pipe_reference_init(&v->base.reference, 1);
   v->base.context = p;
   vagx_sampler_view_desc(&v->base);
   return &v->base;
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
   ctx->dirty |= stage_dirty(shader);
}

static void
vagx_set_framebuffer_state(struct pipe_context *p, const struct pipe_framebuffer_state *fb)
{
   struct vagx_context *ctx = vagx_context(p);
   util_copy_framebuffer_state(&ctx->fb, fb);
   ctx->batch = NULL;
   /* another batch (or the same one again, whose control stream may have
    * other state by now): everything, and the variants' render targets */
   ctx->dirty = VAGX_DIRTY_ALL;
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
   /* the buffers' addresses are uniforms of the vertex pipeline */
   ctx->dirty |= VAGX_DIRTY_VS;
}

static void
vagx_set_constant_buffer(struct pipe_context *p, enum pipe_shader_type shader, uint index,
                         bool take_ownership, const struct pipe_constant_buffer *cb)
{
   struct vagx_context *ctx = vagx_context(p);
   struct pipe_constant_buffer *dst = &ctx->cb[shader][index];
   /* uniforms are copied into the pipeline's push words */
   ctx->dirty |= stage_dirty(shader);
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

static void
vagx_set_viewport_states(struct pipe_context *p, unsigned start, unsigned n,
                         const struct pipe_viewport_state *v)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->viewport = v[0];
   /* the scissor is intersected with the viewport */
   ctx->dirty |= VAGX_DIRTY_VIEWPORT | VAGX_DIRTY_SCISSOR;
}

static void
vagx_set_scissor_states(struct pipe_context *p, unsigned start, unsigned n,
                        const struct pipe_scissor_state *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->scissor = s[0];
   ctx->dirty |= VAGX_DIRTY_SCISSOR;
}

static void
vagx_set_blend_color(struct pipe_context *p, const struct pipe_blend_color *c)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->blend_color = *c;
   /* VAGX_PUSH_BLEND_CONST words of the fragment pipeline */
   ctx->dirty |= VAGX_DIRTY_FS;
}

static void
vagx_set_stencil_ref(struct pipe_context *p, const struct pipe_stencil_ref r)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->stencil_ref = r;
   ctx->dirty |= VAGX_DIRTY_ZS;
}

/* caps->clip_planes is 0 (vagx_screen.c): st lowers user clip planes into
 * the shaders, so this state never reaches the device */
static void vagx_set_clip_state(struct pipe_context *p, const struct pipe_clip_state *c) { vagx_context(p)->clip = *c; }

static void
vagx_set_sample_mask(struct pipe_context *p, unsigned m)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->sample_mask = m;
   ctx->dirty |= VAGX_DIRTY_RAST;
}

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
   /* the stipple texture is one of the fragment pipeline's */
   ctx->dirty |= VAGX_DIRTY_FS;
}


void
vagx_init_state_functions(struct pipe_context *p)
{
   p->create_blend_state = vagx_create_blend;
   p->bind_blend_state = vagx_bind_blend;
   p->delete_blend_state = vagx_delete_cso;
   p->create_rasterizer_state = vagx_create_rast;
   p->bind_rasterizer_state = vagx_bind_rast;
   p->delete_rasterizer_state = vagx_delete_cso;
   p->create_depth_stencil_alpha_state = vagx_create_zsa;
   p->bind_depth_stencil_alpha_state = vagx_bind_zsa;
   p->delete_depth_stencil_alpha_state = vagx_delete_cso;
   p->create_sampler_state = vagx_create_sampler;
   p->bind_sampler_states = vagx_bind_sampler_states;
   p->delete_sampler_state = vagx_delete_cso;
   p->create_vertex_elements_state = vagx_create_vertex_elements;
   p->bind_vertex_elements_state = vagx_bind_vertex_elements;
   p->delete_vertex_elements_state = vagx_delete_cso;
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
