/* SPDX-License-Identifier: MIT */
/* CSOs and bound state; shaders are compiled with a default key at CSO
 * creation (so VAGX_DEBUG=shaders,shaderdb sees code without a draw) and per
 * framebuffer/blend key at draw time. */
#include <stdio.h>
#include <string.h>
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_lower_blend.h"
#include "nir/nir_draw_helpers.h"
#include "util/u_pstipple.h"
#include "util/u_sampler.h"
#include "nir/tgsi_to_nir.h"
#include "util/format/u_format.h"
#include "util/hash_table.h"
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

/* ---- shaders ---- */

static void
report(struct vagx_screen *screen, struct vagx_shader_info *info, const char *what)
{
   if (screen->debug & VAGX_DBG_SHADERS) {
      fprintf(stderr, "vagx: %s %s shader, %u GPRs, %u uniform words:\n", what,
              gl_shader_stage_name(info->stage), info->gpr_count, info->push_count);
      vagx_disassemble(stderr, info->code, info->code_words);
      /* what the driver writes into each uniform word (enum vagx_push_kind) */
      for (unsigned i = 0; i < info->push_count; i++)
         fprintf(stderr, "  u%u = push kind %u arg %u\n", i, info->push[i].kind, info->push[i].arg);
   }
   if (screen->debug & VAGX_DBG_SHADERDB)
      vagx_print_stats(stderr, info, what);
}

static void *
vagx_create_shader_state(struct pipe_context *p, const struct pipe_shader_state *cso)
{
   struct vagx_context *ctx = vagx_context(p);
   struct vagx_uncompiled_shader *so = CALLOC_STRUCT(vagx_uncompiled_shader);
   nir_shader *nir = cso->type == PIPE_SHADER_IR_NIR ? cso->ir.nir
                                                      : tgsi_to_nir(cso->tokens, p->screen, false);
   /* stream output: register_index counts the outputs written before our
    * lowering (vagx_draw.c, batch_update_so) */
   so->so_info = cso->stream_output;
   so->so_outputs_written = nir->info.outputs_written;
   vagx_preprocess_nir(nir);
   so->nir = nir;
   util_dynarray_init(&so->variants, NULL);

   /* precompile the default variant: RGBA8 render target 0, no blending */
   struct vagx_fs_key key = { .nr_cbufs = 1 };
   key.rt_format[0] = PIPE_FORMAT_R8G8B8A8_UNORM;
   struct vagx_compiled_shader *v = vagx_get_variant(ctx, so, &key);
   if (v && v->ok)
      report(ctx->screen, &v->info, "precompiled");
   else if (so->error)
      fprintf(stderr, "vagx: shader compile failed: %s\n", so->error);
   return so;
}

/* gl_FragColor (FRAG_RESULT_COLOR) is written to every bound colour buffer:
 * the store becomes one store per render target (DATA0..nr-1), and a
 * framebuffer fetch of it (nir_lower_blend runs later) reads DATA0.  The NIR
 * is IO-lowered by vagx_preprocess_nir, so nir_lower_fragcolor (a variable
 * pass) cannot do this. */
static bool
fragcolor_broadcast(nir_builder *b, nir_intrinsic_instr *intr, void *data)
{
   unsigned nr = *(const unsigned *)data;
   if (intr->intrinsic != nir_intrinsic_store_output &&
       intr->intrinsic != nir_intrinsic_load_output)
      return false;
   nir_io_semantics sem = nir_intrinsic_io_semantics(intr);
   if (sem.location != FRAG_RESULT_COLOR)
      return false;
   sem.location = FRAG_RESULT_DATA0;
   nir_intrinsic_set_io_semantics(intr, sem);
   if (intr->intrinsic == nir_intrinsic_store_output) {
      b->cursor = nir_after_instr(&intr->instr);
      for (unsigned rt = 1; rt < nr; rt++) {
         nir_intrinsic_instr *c = nir_instr_as_intrinsic(nir_instr_clone(b->shader, &intr->instr));
         sem.location = FRAG_RESULT_DATA0 + rt;
         nir_intrinsic_set_io_semantics(c, sem);
         nir_builder_instr_insert(b, &c->instr);
      }
   }
   return true;
}

struct vagx_compiled_shader *
vagx_get_variant(struct vagx_context *ctx, struct vagx_uncompiled_shader *so,
                 const struct vagx_fs_key *key)
{
   struct vagx_fs_key k = { 0 };
   if (so->nir->info.stage == MESA_SHADER_FRAGMENT) {
      k = *key;
      k.blend_hash = ctx->blend ? _mesa_hash_data(ctx->blend, sizeof(*ctx->blend)) : 0;
   } else if (ctx->vtx) {
      for (unsigned i = 0; i < ctx->vtx->count && i < ARRAY_SIZE(k.vs_attr_comps); i++) {
         enum pipe_format f = ctx->vtx->el[i].src_format;
         k.vs_attr_comps[i] = util_format_get_nr_components(f);
         if (util_format_is_pure_integer(f))
            k.vs_attr_int |= 1u << i;
      }
   }
   util_dynarray_foreach(&so->variants, struct vagx_compiled_shader *, it) {
      if (!memcmp(&(*it)->key, &k, sizeof(k)))
         return *it;
   }
   struct vagx_compiled_shader *v = CALLOC_STRUCT(vagx_compiled_shader);
   v->key = k;
   v->stipple_unit = -1;
   nir_shader *nir = nir_shader_clone(NULL, so->nir);
   if (nir->info.stage == MESA_SHADER_FRAGMENT) {
      /* before nir_lower_blend, which rejects FRAG_RESULT_COLOR */
      unsigned nr = MAX2(k.nr_cbufs, 1);
      NIR_PASS(_, nir, nir_shader_intrinsics_pass, fragcolor_broadcast,
               nir_metadata_control_flow, &nr);
      if (ctx->blend) {
         nir_lower_blend_options opts = { .scalar_blend_const = true };
         for (unsigned rt = 0; rt < k.nr_cbufs; rt++) {
            const struct pipe_rt_blend_state *b =
               &ctx->blend->rt[ctx->blend->independent_blend_enable ? rt : 0];
            opts.format[rt] = k.rt_format[rt];
            opts.rt[rt].colormask = b->colormask;
            if (b->blend_enable) {
               opts.rt[rt].rgb.func = b->rgb_func;
               opts.rt[rt].rgb.src_factor = b->rgb_src_factor;
               opts.rt[rt].rgb.dst_factor = b->rgb_dst_factor;
               opts.rt[rt].alpha.func = b->alpha_func;
               opts.rt[rt].alpha.src_factor = b->alpha_src_factor;
               opts.rt[rt].alpha.dst_factor = b->alpha_dst_factor;
            } else {
               opts.rt[rt].rgb.func = opts.rt[rt].alpha.func = PIPE_BLEND_ADD;
               opts.rt[rt].rgb.src_factor = opts.rt[rt].alpha.src_factor = PIPE_BLENDFACTOR_ONE;
               opts.rt[rt].rgb.dst_factor = opts.rt[rt].alpha.dst_factor = PIPE_BLENDFACTOR_ZERO;
            }
         }
         opts.logicop_enable = ctx->blend->logicop_enable;
         opts.logicop_func = ctx->blend->logicop_func;
         NIR_PASS(_, nir, nir_lower_blend, &opts);
      }
      if (k.poly_stipple) {
         /* discard where the pattern texel (at gl_FragCoord mod 32) is 0 */
         unsigned unit = 0;
         nir_lower_pstipple_fs(nir, &unit, 0, true, nir_type_bool1);
         v->stipple_unit = unit;
      }
   }
   const char *err = NULL;
   v->ok = vagx_compile_shader(nir, &k, &v->info, &err);
   ralloc_free(nir);
   if (!v->ok) {
      so->error = err;
   } else {
      report(ctx->screen, &v->info, "variant");
      v->bo = vagx_bo_create(&ctx->screen->dev, v->info.code_words * 8 + 64, "shader");
      if (v->bo)
         memcpy(v->bo->map, v->info.code, v->info.code_words * 8);
      else
         v->ok = false;
   }
   util_dynarray_append(&so->variants, struct vagx_compiled_shader *, v);
   return v;
}

static void
vagx_delete_shader_state(struct pipe_context *p, void *s)
{
   struct vagx_uncompiled_shader *so = s;
   util_dynarray_foreach(&so->variants, struct vagx_compiled_shader *, it) {
      vagx_bo_unreference((*it)->bo);
      vagx_shader_info_free(&(*it)->info);
      FREE(*it);
   }
   util_dynarray_fini(&so->variants);
   ralloc_free(so->nir);
   FREE(so);
}

static void vagx_bind_vs(struct pipe_context *p, void *s) { vagx_context(p)->vs = s; }
static void vagx_bind_fs(struct pipe_context *p, void *s) { vagx_context(p)->fs = s; }

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
   p->create_vs_state = vagx_create_shader_state;
   p->bind_vs_state = vagx_bind_vs;
   p->delete_vs_state = vagx_delete_shader_state;
   p->create_fs_state = vagx_create_shader_state;
   p->bind_fs_state = vagx_bind_fs;
   p->delete_fs_state = vagx_delete_shader_state;
}
