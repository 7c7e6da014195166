/* SPDX-License-Identifier: MIT */
/* Command encoding of a draw's state: texture, sampler and PBE descriptors,
 * uniform words, the vertex and fragment pipelines with their coefficient
 * bindings, viewport, scissor, rasterizer and depth/stencil commands. */
#include <math.h>
#include <string.h>
#include "util/format/u_format.h"
#include "util/u_framebuffer.h"
#include "util/u_atomic.h"
#include "util/u_inlines.h"
#include "util/u_viewport.h"
#include "vagx_context.h"
#include "vagx_hw.h"

/* Sample count of a framebuffer: 4 (4X MSAA, the contract's only
 * multisample count, vagx_is_format_supported) or 1. */
unsigned
vagx_fb_samples(const struct pipe_framebuffer_state *fb)
{
   return util_framebuffer_get_num_samples(fb) == 4 ? 4 : 1;
}

unsigned
vagx_msaa(unsigned nr_samples)
{
   return nr_samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
}

/* The image fields that the PBE and the texture descriptor share (struct
 * vagx_pbe and struct vagx_texture, generated from the contract, name
 * them alike), for the whole of resource r */
#define SET_IMAGE_FIELDS(d, r)                                                                  \
   do {                                                                                         \
      const bool linear_ = (r)->layout.tiling == VAGX_TILING_LINEAR;                            \
      (d)->layout = linear_ ? VAGX_IMAGE_LAYOUT_LINEAR : VAGX_IMAGE_LAYOUT_TWIDDLED;            \
      (d)->width = (r)->base.width0;                                                            \
      (d)->height = (r)->base.height0;                                                          \
      (d)->depth = (r)->layout.depth_px;                                                        \
      (d)->levels = (r)->layout.levels;                                                         \
      (d)->samples = vagx_msaa((r)->base.nr_samples);                                           \
      (d)->stride = linear_ ? (r)->layout.level[0].stride_B : 0;                                \
      (d)->sparse = (r)->layout.sparse;                                                         \
      (d)->base_va = (r)->bo->va;                                                               \
   } while (0)

void
vagx_pack_pbe(struct vagx_resource *r, enum pipe_format fmt, unsigned level, unsigned layer,
         uint32_t *out)
{
   struct vagx_pbe p;
   vagx_pbe_init(&p);
   /* the surface's format, which is the tile buffer's: an sRGB resource
    * drawn with GL_FRAMEBUFFER_SRGB disabled has a UNORM surface (st) and
    * its bytes are stored unencoded */
   p.format = vagx_format_from_pipe(fmt);
   p.dimension = VAGX_DIMENSION_2D;
   /* a 4X image is stored sample by sample by the end-of-tile program;
    * resolves are blits (vagx_blit), not 1X stores of a 4X tile buffer */
   SET_IMAGE_FIELDS(&p, r);
   p.level = level;
   p.layer = layer;
   vagx_pbe_pack(out, &p);
}

unsigned
vagx_dimension(enum pipe_texture_target target)
{
   return target == PIPE_TEXTURE_CUBE ? VAGX_DIMENSION_CUBE
          : target == PIPE_TEXTURE_CUBE_ARRAY ? VAGX_DIMENSION_CUBE_ARRAY
          : target == PIPE_TEXTURE_3D ? VAGX_DIMENSION_3D
          : target == PIPE_TEXTURE_1D ? VAGX_DIMENSION_1D
          : target == PIPE_TEXTURE_1D_ARRAY ? VAGX_DIMENSION_1D_ARRAY
          : target == PIPE_TEXTURE_2D_ARRAY ? VAGX_DIMENSION_2D_ARRAY
                                            : VAGX_DIMENSION_2D;
}

/* a view's pipe swizzle into the texture descriptor */
static void
texture_swizzle(struct vagx_texture *t, const unsigned char swz[4])
{
   static const uint8_t map[] = { [PIPE_SWIZZLE_X] = VAGX_SWIZZLE_R, [PIPE_SWIZZLE_Y] = VAGX_SWIZZLE_G,
                                  [PIPE_SWIZZLE_Z] = VAGX_SWIZZLE_B, [PIPE_SWIZZLE_W] = VAGX_SWIZZLE_A,
                                  [PIPE_SWIZZLE_0] = VAGX_SWIZZLE_ZERO, [PIPE_SWIZZLE_1] = VAGX_SWIZZLE_ONE };
   t->swizzle_r = map[swz[0] & 7];
   t->swizzle_g = map[swz[1] & 7];
   t->swizzle_b = map[swz[2] & 7];
   t->swizzle_a = map[swz[3] & 7];
}

void
vagx_pack_texture(struct vagx_resource *r, enum pipe_format fmt, const unsigned char swz[4],
             unsigned first_level, unsigned last_level, unsigned first_layer,
             unsigned last_layer, uint32_t *out)
{
   struct vagx_texture t;
   vagx_texture_init(&t);
   /* a stencil-only view of a depth/stencil resource (X24S8_UINT,
    * X32_S8X24_UINT: util_blitter's stencil blits, st's stencil
    * DrawPixels/CopyPixels) samples the resource's stencil aspect as uint */
   const struct util_format_description *desc = util_format_description(fmt);
   bool stencil_view = util_format_has_stencil(desc) && !util_format_has_depth(desc);
   t.format = stencil_view ? r->vformat : vagx_format_from_pipe(fmt);
   t.sample_stencil = stencil_view;
   t.dimension = vagx_dimension(r->base.target);
   texture_swizzle(&t, swz);
   SET_IMAGE_FIELDS(&t, r);
   t.base_level = first_level;
   t.max_level = last_level;
   /* GL_EXT_texture_array: a view of layers first..last of an array is
    * the image whose layer 0 is first_layer (every layer holds a whole
    * mip chain, layer_stride_B apart, vagx_layout.h); a cube array's
    * layers are its cubes' faces, 6 per cube */
   if (r->base.target == PIPE_TEXTURE_1D_ARRAY || r->base.target == PIPE_TEXTURE_2D_ARRAY ||
       r->base.target == PIPE_TEXTURE_CUBE_ARRAY) {
      t.depth = last_layer - first_layer + 1;
      t.base_va += (uint64_t)first_layer * r->layout.layer_stride_B;
   }
   vagx_texture_pack(out, &t);
}

bool
vagx_program_for(struct vagx_context *ctx, struct vagx_batch *b,
                 const struct vagx_shader_info *info, struct vagx_bo *code_bo,
                 const uint32_t *push, struct vagx_usc_program *p, enum pipe_shader_type stage,
                 int stipple_unit)
{
   vagx_usc_program_init(p);
   p->code_va = code_bo->va;
   p->gpr_count = info->gpr_count;
   p->stack_size = info->stack_size;
   p->uniform_count = info->push_count;
   vagx_batch_add_bo(b, code_bo);
   vagx_batch_charge_bind(b, code_bo, info->code_words);
   if (info->push_count && !vagx_batch_upload(b, push, info->push_count * 4, 16, &p->uniform_va))
      return false;
   if (info->texture_count && stage < PIPE_SHADER_TYPES) {
      uint32_t *tex;
      p->texture_va = vagx_batch_alloc(b, info->texture_count * VAGX_TEXTURE_LENGTH, 32, (void **)&tex);
      uint32_t *smp = NULL;
      if (info->sampler_count)
         p->sampler_va = vagx_batch_alloc(b, info->sampler_count * VAGX_SAMPLER_LENGTH, 32, (void **)&smp);
      if (!tex || (info->sampler_count && !smp))
         return false;
      for (unsigned i = 0; i < info->texture_count; i++) {
         struct pipe_sampler_view *v =
            (int)i == stipple_unit ? ctx->stipple_view : ctx->views[stage][i];
         /* a unit below the highest one the shader samples may have no
          * view (the shader samples unit 1 only): GL reads (0, 0, 0, 1)
          * from an incomplete texture, which the 1x1 null texture gives */
         if (!v)
            v = vagx_null_view(ctx);
         if (!v)
            return false;
         struct vagx_sampler_view *sv = (struct vagx_sampler_view *)v;
         struct vagx_resource *r = vagx_resource(v->texture);
         if (sv->desc_bo != r->bo)
            vagx_sampler_view_desc(v);
         memcpy(tex + i * (VAGX_TEXTURE_LENGTH / 4), sv->desc, VAGX_TEXTURE_LENGTH);
         vagx_batch_read(b, r);
      }
      for (unsigned i = 0; i < info->sampler_count; i++) {
         const struct vagx_sampler_state *s =
            (int)i == stipple_unit ? ctx->stipple_sampler : ctx->samplers[stage][i];
         uint32_t *out = smp + i * (VAGX_SAMPLER_LENGTH / 4);
         if (s) {
            memcpy(out, s->desc, VAGX_SAMPLER_LENGTH);
         } else {
            struct vagx_sampler d;
            vagx_sampler_init(&d);
            vagx_sampler_pack(out, &d);
         }
      }
      p->texture_count = info->texture_count;
      p->sampler_count = info->sampler_count;
   }
   if (info->image_count && stage < PIPE_SHADER_TYPES &&
       !vagx_image_table(ctx, b, stage, info->image_count, info->writes_memory, p))
      return false;
   return true;
}

void
vagx_fill_push(struct vagx_context *ctx, struct vagx_batch *b, const struct vagx_shader_info *info,
               enum pipe_shader_type stage, uint32_t *push)
{
   struct pipe_constant_buffer *cb0 = &ctx->cb[stage][0];
   /* the CPU copies words of a constant buffer the device may have
    * written (transform feedback, copies): after that job */
   if (!cb0->user_buffer && cb0->buffer)
      vagx_bo_wait_idle(ctx->screen, vagx_resource(cb0->buffer)->bo, false);
   const uint8_t *cbmap = cb0->user_buffer ? cb0->user_buffer
                          : cb0->buffer ? (uint8_t *)vagx_resource(cb0->buffer)->bo->map + cb0->buffer_offset
                                        : NULL;
   uint64_t ubo_va = 0; /* constant buffer 0 as seen by ld_global, on first use */
   uint64_t ubo_n_va = 0; /* uniform block of the current UBO_LO/UBO_HI pair */
   uint64_t ssbo_va = 0, table_va = 0; /* of the current SSBO_LO/HI, SSBO_TABLE_LO/HI pair */
   uint32_t ssbo_size;
   /* a shader that stores or does atomics writes its writable buffers */
   const uint32_t ssbo_writes = info->writes_memory ? ctx->ssbo_writable[stage] : 0;
   if (info->writes_memory)
      b->incoherent_writes = true;
   for (unsigned i = 0; i < info->push_count; i++) {
      const struct vagx_push *p = &info->push[i];
      uint32_t v = 0;
      switch (p->kind) {
      case VAGX_PUSH_UBO_LO:
      case VAGX_PUSH_UBO_HI:
         /* indirectly indexed uniforms and those past the push range are
          * loaded from memory: a user buffer (GL uniforms) is copied into the
          * batch's data region, a buffer resource is read in place */
         if (!ubo_va && p->arg == 0 && cb0->buffer) {
            struct vagx_resource *r = vagx_resource(cb0->buffer);
            vagx_batch_read(b, r);
            ubo_va = r->bo->va + cb0->buffer_offset;
         } else if (!ubo_va && p->arg == 0 && cbmap && cb0->buffer_size) {
            vagx_batch_upload(b, cbmap, cb0->buffer_size, 16, &ubo_va);
         }
         if (p->arg > 0) {
            /* GL_ARB_uniform_buffer_object: block b is constant buffer
             * b + 1 (nir_lower_uniforms_to_ubo), a buffer object (st
             * binds no user buffers there) read in place with ld_global;
             * the LO word comes first (uniform_addr).  An unbound block
             * reads address 0, which faults the job (GL: undefined). */
            const struct pipe_constant_buffer *cb = &ctx->cb[stage][p->arg];
            if (p->kind == VAGX_PUSH_UBO_LO) {
               ubo_n_va = 0;
               if (cb->buffer) {
                  struct vagx_resource *r = vagx_resource(cb->buffer);
                  vagx_batch_read(b, r);
                  ubo_n_va = r->bo->va + cb->buffer_offset;
               }
            }
            v = p->kind == VAGX_PUSH_UBO_LO ? (uint32_t)ubo_n_va : (uint32_t)(ubo_n_va >> 32);
            break;
         }
         v = p->kind == VAGX_PUSH_UBO_LO ? (uint32_t)ubo_va : (uint32_t)(ubo_va >> 32);
         break;
      case VAGX_PUSH_CB0:
         if (cbmap && p->arg * 4 + 4 <= cb0->buffer_size)
            memcpy(&v, cbmap + p->arg * 4, 4);
         break;
      case VAGX_PUSH_VBO_LO:
      case VAGX_PUSH_VBO_HI: {
         const struct pipe_vertex_element *el = &ctx->vtx->el[p->arg];
         const struct pipe_vertex_buffer *vb = &ctx->vb[el->vertex_buffer_index];
         uint64_t va = 0;
         if (vb->buffer.resource) {
            struct vagx_resource *r = vagx_resource(vb->buffer.resource);
            vagx_batch_read(b, r);
            va = r->bo->va + vb->buffer_offset + el->src_offset;
         }
         v = p->kind == VAGX_PUSH_VBO_LO ? (uint32_t)va : (uint32_t)(va >> 32);
         break;
      }
      case VAGX_PUSH_VBO_STRIDE:
         v = ctx->vtx->el[p->arg].src_stride;
         break;
      case VAGX_PUSH_VBO_DIVISOR:
         v = ctx->vtx->el[p->arg].instance_divisor;
         break;
      case VAGX_PUSH_BLEND_CONST:
         memcpy(&v, &ctx->blend_color.color[p->arg], 4);
         break;
      case VAGX_PUSH_CLEAR:
         memcpy(&v, &b->clear_color[p->arg / 4].ui[p->arg % 4], 4);
         break;
      case VAGX_PUSH_SSBO_LO:
      case VAGX_PUSH_SSBO_SIZE:
         /* shader buffers (vagx_emit_mem.c): LO comes before HI */
         vagx_ssbo_bind(ctx, b, stage, p->arg, ssbo_writes & BITFIELD_BIT(p->arg), &ssbo_va,
                        &ssbo_size);
         v = p->kind == VAGX_PUSH_SSBO_LO ? (uint32_t)ssbo_va : ssbo_size;
         break;
      case VAGX_PUSH_SSBO_HI:
         v = (uint32_t)(ssbo_va >> 32);
         break;
      case VAGX_PUSH_SSBO_TABLE_LO: {
         /* { VA low, VA high, size, 0 } of every buffer the shader may
          * index dynamically */
         uint32_t *t;
         table_va = vagx_batch_alloc(b, MAX2(info->ssbo_count, 1) * VAGX_SSBO_ENTRY_BYTES, 16,
                                     (void **)&t);
         for (unsigned k = 0; t && k < info->ssbo_count; k++) {
            uint64_t va;
            vagx_ssbo_bind(ctx, b, stage, k, ssbo_writes & BITFIELD_BIT(k), &va, &t[4 * k + 2]);
            t[4 * k] = (uint32_t)va;
            t[4 * k + 1] = (uint32_t)(va >> 32);
            t[4 * k + 3] = 0;
         }
         v = (uint32_t)table_va;
         break;
      }
      case VAGX_PUSH_SSBO_TABLE_HI:
         v = (uint32_t)(table_va >> 32);
         break;
      case VAGX_PUSH_SAMPLER_LOD: {
         /* the LOD state of the sampler descriptor (program_for), for the
          * shader's own level selection (textureLodOffset); without a
          * mip filter the texture unit samples the base level: all 0 */
         const struct vagx_sampler_state *sso = ctx->samplers[stage][p->arg / 4];
         const struct pipe_sampler_state *ss = sso ? &sso->base : NULL;
         float f = 0;
         if (ss && ss->min_mip_filter != PIPE_TEX_MIPFILTER_NONE)
            f = p->arg % 4 == 0 ? ss->min_lod : p->arg % 4 == 1 ? ss->max_lod : ss->lod_bias;
         memcpy(&v, &f, 4);
         break;
      }
      case VAGX_PUSH_IMAGE_W:
      case VAGX_PUSH_IMAGE_H:
      case VAGX_PUSH_IMAGE_D:
      case VAGX_PUSH_IMAGE_LO:
      case VAGX_PUSH_IMAGE_HI:
      case VAGX_PUSH_IMAGE_LAYER_STRIDE:
      case VAGX_PUSH_IMAGE_ROW:
      case VAGX_PUSH_IMAGE_TILE:
      case VAGX_PUSH_IMAGE_SCRATCH_LO:
      case VAGX_PUSH_IMAGE_SCRATCH_HI:
         v = vagx_image_push(ctx, b, stage, p->kind, p->arg);
         break;
      default:
         break;
      }
      push[i] = v;
   }
}

unsigned
vagx_prim(enum mesa_prim p)
{
   switch (p) {
   case MESA_PRIM_POINTS: return VAGX_PRIMITIVE_POINTS;
   case MESA_PRIM_LINES: return VAGX_PRIMITIVE_LINES;
   case MESA_PRIM_LINE_LOOP: return VAGX_PRIMITIVE_LINE_LOOP;
   case MESA_PRIM_LINE_STRIP: return VAGX_PRIMITIVE_LINE_STRIP;
   case MESA_PRIM_TRIANGLE_STRIP: return VAGX_PRIMITIVE_TRIANGLE_STRIP;
   case MESA_PRIM_TRIANGLE_FAN: return VAGX_PRIMITIVE_TRIANGLE_FAN;
   /* only with a geometry pipeline of the matching input (GL's rule too) */
   case MESA_PRIM_LINES_ADJACENCY: return VAGX_PRIMITIVE_LINES_ADJACENCY;
   case MESA_PRIM_LINE_STRIP_ADJACENCY: return VAGX_PRIMITIVE_LINE_STRIP_ADJACENCY;
   case MESA_PRIM_TRIANGLES_ADJACENCY: return VAGX_PRIMITIVE_TRIANGLES_ADJACENCY;
   case MESA_PRIM_TRIANGLE_STRIP_ADJACENCY: return VAGX_PRIMITIVE_TRIANGLE_STRIP_ADJACENCY;
   default: return VAGX_PRIMITIVE_TRIANGLES;
   }
}

/* The `opaque` promise of cmd_bind_fragment_pipeline (docs/hw/render.md,
 * hidden-surface removal): every invocation writes every bound render target
 * (so no blending, colour masks or logic op, which read the tile buffer after
 * nir_lower_blend, and an st_tile outside any branch), and nothing else of the
 * shader is observable: no discard, depth/stencil export, memory stores,
 * atomics or sr.sample_mask reads.  The blend state is checked as well as
 * the compiled shader so that a blend nir_lower_blend folds away (ONE, ZERO)
 * still counts as blending here.  Render jobs are single-sampled with a full
 * rasterizer sample mask (submit_render, r.sample_mask), as HSR requires. */
static bool
fs_is_opaque(const struct vagx_context *ctx, const struct vagx_shader_info *fi)
{
   if (fi->fs_discards || fi->fs_writes_depth || fi->fs_writes_stencil || fi->fs_reads_tile ||
       fi->fs_side_effects || fi->fs_reads_sample_mask)
      return false;
   const uint32_t not_opaque = ctx->blend ? ctx->blend->not_opaque_rts : 0;
   for (unsigned i = 0; i < ctx->fb.nr_cbufs; i++) {
      if (!ctx->fb.cbufs[i])
         continue;
      if (!(fi->fs_rt_always_written & (1u << i)) || (not_opaque & BITFIELD_BIT(i)))
         return false;
   }
   return true;
}

/* cmd_bind_vertex_pipeline with its uniforms and descriptors */
static bool
emit_vertex_pipeline(struct vagx_context *ctx, struct vagx_batch *b,
                     const struct vagx_compiled_shader *vs)
{
   uint32_t push[VAGX_MAX_PUSH];
   struct vagx_cmd_bind_vertex_pipeline vp;
   vagx_cmd_bind_vertex_pipeline_init(&vp);
   vp.smooth32 = vs->info.vs_user_words;
   vp.point_size = vs->info.vs_point_size;
   vp.clip_distances = vs->info.vs_clip_distances;
   vp.edge_flag = vs->info.vs_edge_flag;
   vagx_fill_push(ctx, b, &vs->info, PIPE_SHADER_VERTEX, push);
   if (!vagx_program_for(ctx, b, &vs->info, vs->bo, push, &vp.program, PIPE_SHADER_VERTEX, -1))
      return false;
   vagx_cmd_bind_vertex_pipeline_pack(vagx_cs_emit(b, VAGX_CMD_BIND_VERTEX_PIPELINE_LENGTH), &vp);
   return true;
}

static unsigned
gs_input(enum mesa_prim p)
{
   switch (p) {
   case MESA_PRIM_POINTS: return VAGX_GS_INPUT_POINTS;
   case MESA_PRIM_LINES: return VAGX_GS_INPUT_LINES;
   case MESA_PRIM_LINES_ADJACENCY: return VAGX_GS_INPUT_LINES_ADJACENCY;
   case MESA_PRIM_TRIANGLES_ADJACENCY: return VAGX_GS_INPUT_TRIANGLES_ADJACENCY;
   default: return VAGX_GS_INPUT_TRIANGLES;
   }
}

static unsigned
gs_output(enum mesa_prim p)
{
   switch (p) {
   case MESA_PRIM_POINTS: return VAGX_GS_OUTPUT_POINTS;
   case MESA_PRIM_LINE_STRIP: return VAGX_GS_OUTPUT_LINE_STRIP;
   default: return VAGX_GS_OUTPUT_TRIANGLE_STRIP;
   }
}

/* cmd_bind_geometry_pipeline (contract 1.11) with its uniforms and
 * descriptors: the output layout is the geometry program's (vs_layout's
 * order), the input words the vertex shader's whole output vertex (the
 * layout the variant's ld_vin words come from, vagx_fs_key.gs_vs_outputs)
 * (vagx_vs_output_words of the vertex shader's outputs); or
 * cmd_unbind_geometry_pipeline without a geometry shader */
static bool
emit_geometry_pipeline(struct vagx_context *ctx, struct vagx_batch *b,
                       const struct vagx_compiled_shader *gs)
{
   if (!gs) {
      struct vagx_cmd_unbind_geometry_pipeline u;
      vagx_cmd_unbind_geometry_pipeline_init(&u);
      vagx_cmd_unbind_geometry_pipeline_pack(
         vagx_cs_emit(b, VAGX_CMD_UNBIND_GEOMETRY_PIPELINE_LENGTH), &u);
      return true;
   }
   const struct shader_info *si = &ctx->gs->nir->info;
   uint32_t push[VAGX_MAX_PUSH];
   struct vagx_cmd_bind_geometry_pipeline gp;
   vagx_cmd_bind_geometry_pipeline_init(&gp);
   gp.input_primitive = gs_input(si->gs.input_primitive);
   gp.output_primitive = gs_output(si->gs.output_primitive);
   gp.invocations = MAX2(si->gs.invocations, 1);
   gp.smooth32 = gs->info.vs_user_words;
   gp.point_size = gs->info.vs_point_size;
   gp.clip_distances = gs->info.vs_clip_distances;
   const struct shader_info *vsi = &ctx->vs->nir->info;
   gp.input_words = vagx_vs_output_words(vsi->outputs_written, vsi->clip_distance_array_size);
   /* max_vertices = 0 (valid GLSL) emits nothing GL defines: 1 is as good */
   gp.max_vertices = MAX2(si->gs.vertices_out, 1);
   vagx_fill_push(ctx, b, &gs->info, PIPE_SHADER_GEOMETRY, push);
   if (!vagx_program_for(ctx, b, &gs->info, gs->bo, push, &gp.program, PIPE_SHADER_GEOMETRY, -1))
      return false;
   vagx_cmd_bind_geometry_pipeline_pack(vagx_cs_emit(b, VAGX_CMD_BIND_GEOMETRY_PIPELINE_LENGTH),
                                        &gp);
   return true;
}

/* cmd_bind_fragment_pipeline with its coefficient bindings (generated from
 * the output layout of the last vertex stage `vs`: the vertex shader's, or
 * the geometry program's), uniforms and descriptors */
static bool
emit_fragment_pipeline(struct vagx_context *ctx, struct vagx_batch *b,
                       const struct vagx_compiled_shader *vs,
                       const struct vagx_compiled_shader *fs)
{
   uint32_t push[VAGX_MAX_PUSH];
   struct vagx_cmd_bind_fragment_pipeline fp;
   vagx_cmd_bind_fragment_pipeline_init(&fp);
   const struct vagx_shader_info *fi = &fs->info;
   unsigned nb = 0;
   uint32_t *bind;
   fp.cf_bindings_va = vagx_batch_alloc(b, 4 * (fi->fs_cf_count + 2), 4, (void **)&bind);
   if (!bind)
      return false;
   struct vagx_cf_binding cb;
   vagx_cf_binding_init(&cb);
   cb.slot = 0; cb.count = 1; cb.cf = 0; cb.interp = VAGX_INTERP_LINEAR;
   vagx_cf_binding_pack(&bind[nb++], &cb);
   if (fi->fs_z_slot) {
      cb.slot = 1; cb.cf = 1;
      vagx_cf_binding_pack(&bind[nb++], &cb);
   }
   unsigned user_slot0 = fi->fs_z_slot ? 2 : 1;
   struct vagx_cf_binding last;
   vagx_cf_binding_init(&last); /* read only once last_user is set */
   bool last_user = false; /* `last` is a mergeable user-varying binding */
   for (unsigned i = 0; i < fi->fs_cf_count; i++) {
      vagx_cf_binding_init(&cb);
      cb.count = 1;
      cb.cf = fi->fs_cf_base + i;
      cb.interp = fi->fs_cf[i].interp;
      if (fi->fs_cf[i].location == VARYING_SLOT_PNTC) {
         /* A POINT_COORD binding writes s into register cf and t into cf+1
          * (docs/hw/render.md, varyings); the compiler gives s and t two
          * adjacent entries, s first, so one binding covers both. */
         if (fi->fs_cf[i].component == 0) {
            cb.source = VAGX_CF_SOURCE_POINT_COORD;
            cb.count = 2;
            vagx_cf_binding_pack(&bind[nb++], &cb);
            last_user = false;
         }
         continue;
      }
      cb.slot = 0;
      for (unsigned w = 0; w < vs->info.vs_user_words; w++)
         if (vs->info.vs_word_location[w] == fi->fs_cf[i].location &&
             vs->info.vs_word_component[w] == fi->fs_cf[i].component)
            cb.slot = user_slot0 + w;
      /* consecutive slots into consecutive registers with the same
       * interpolation share one binding (count <= 4), so the 16 vec4
       * varyings GLSL 1.30 requires (64 components) stay within
       * MAX_CF_BINDINGS */
      if (last_user && cb.slot >= user_slot0 && last.interp == cb.interp &&
          last.slot + last.count == cb.slot && last.cf + last.count == cb.cf && last.count < 4) {
         last.count++;
         vagx_cf_binding_pack(&bind[nb - 1], &last);
         continue;
      }
      vagx_cf_binding_pack(&bind[nb++], &cb);
      last = cb;
      last_user = cb.slot >= user_slot0;
   }
   fp.cf_binding_count = nb;
   fp.cf_count = fi->fs_cf_base + fi->fs_cf_count;
   fp.slots32 = user_slot0 + vs->info.vs_user_words;
   fp.z_slot = fi->fs_z_slot;
   fp.discards = fi->fs_discards;
   /* st_zs is ignored without these bits; with them the depth/stencil
    * tests run after the shader (docs/hw/render.md) */
   fp.writes_depth = fi->fs_writes_depth;
   fp.writes_stencil = fi->fs_writes_stencil;
   fp.opaque = fs_is_opaque(ctx, fi);
   /* 4X blending reads and writes one sample per invocation */
   fp.per_sample = fi->fs_per_sample;
   /* buffer stores and atomics: shaded even where a later fragment hides
    * it; layout(early_fragment_tests) */
   fp.side_effects = fi->writes_memory;
   fp.early_tests = fi->fs_early_tests;
   vagx_fill_push(ctx, b, fi, PIPE_SHADER_FRAGMENT, push);
   if (!vagx_program_for(ctx, b, &fs->info, fs->bo, push, &fp.program, PIPE_SHADER_FRAGMENT,
                    fs->stipple_unit))
      return false;
   vagx_cmd_bind_fragment_pipeline_pack(vagx_cs_emit(b, VAGX_CMD_BIND_FRAGMENT_PIPELINE_LENGTH), &fp);
   return true;
}

/* A BUFFER texture descriptor (GL_ARB_texture_buffer_object): the texels
 * of bytes [offset, offset + size) of the buffer, fetched by index; a
 * fetch at or past the count reads 0 (render.md, "Buffer textures"). */
static void
pack_buffer_texture(struct vagx_resource *r, const struct pipe_sampler_view *v,
                    const unsigned char swz[4], uint32_t *out)
{
   struct vagx_texture t;
   vagx_texture_init(&t);
   t.format = vagx_format_from_pipe(v->format);
   /* st takes the compatibility profile's alpha, luminance and intensity
    * buffer formats (GL_ALPHA8, GL_LUMINANCE8_ALPHA8, ...) without asking
    * the driver: read them as the R/RG format of the same channels, with
    * the format's swizzle under the view's */
   unsigned char fswz[4];
   if (t.format == VAGX_FORMAT_INVALID) {
      const struct util_format_description *d = util_format_description(v->format);
      enum pipe_format plain =
         util_format_get_array(d->channel[0].type, d->channel[0].size, d->nr_channels,
                               d->channel[0].normalized, d->channel[0].pure_integer);
      t.format = vagx_format_from_pipe(plain);
      util_format_compose_swizzles(d->swizzle, swz, fswz);
      swz = fswz;
   }
   t.dimension = VAGX_DIMENSION_BUFFER;
   t.layout = VAGX_IMAGE_LAYOUT_LINEAR;
   texture_swizzle(&t, swz);
   t.width = t.height = t.depth = t.levels = 1;
   t.stride = 0;
   /* the offset is a multiple of texture_buffer_offset_alignment
    * (vagx_screen.c), the descriptor's base_va alignment */
   t.base_va = r->bo->va + v->u.buf.offset;
   unsigned blocksize = util_format_get_blocksize(v->format);
   uint64_t n = MIN2((uint64_t)v->u.buf.size, r->base.width0 - MIN2(v->u.buf.offset, r->base.width0)) /
                blocksize;
   t.buffer_elements = MIN2(n, VAGX_MAX_TEXEL_BUFFER_ELEMENTS);
   vagx_texture_pack(out, &t);
}

/* the texture descriptor of a sampler view of its resource's current
 * storage (at creation, and again after a buffer rename) */
void
vagx_sampler_view_desc(struct pipe_sampler_view *v)
{
   struct vagx_sampler_view *sv = (struct vagx_sampler_view *)v;
   struct vagx_resource *r = vagx_resource(v->texture);
   unsigned char swz[4] = { v->swizzle_r, v->swizzle_g, v->swizzle_b, v->swizzle_a };
   if (v->target == PIPE_BUFFER)
      pack_buffer_texture(r, v, swz, sv->desc);
   else
      vagx_pack_texture(r, v->format, swz, v->u.tex.first_level, v->u.tex.last_level,
                        v->u.tex.first_layer, v->u.tex.last_layer, sv->desc);
   sv->desc_bo = r->bo;
}

static void
emit_viewport(struct vagx_context *ctx, struct vagx_batch *b)
{
   struct vagx_cmd_viewport vpt;
   vagx_cmd_viewport_init(&vpt);
   vpt.scale_x = ctx->viewport.scale[0];
   vpt.offset_x = ctx->viewport.translate[0];
   vpt.scale_y = ctx->viewport.scale[1];
   vpt.offset_y = ctx->viewport.translate[1];
   vpt.scale_z = ctx->viewport.scale[2];
   vpt.offset_z = ctx->viewport.translate[2];
   /* the device clamps window z to [min_depth, max_depth] (after [0, 1]
    * when it does not clip at near/far): GL's depth clamp wants the depth
    * range [min(n, f), max(n, f)] (GL 4.6 13.7), otherwise [0, 1] */
   vpt.min_depth = 0.0f;
   vpt.max_depth = 1.0f;
   if (ctx->rast && !ctx->rast->base.depth_clip_near)
      util_viewport_zmin_zmax(&ctx->viewport, ctx->rast->base.clip_halfz, &vpt.min_depth,
                              &vpt.max_depth);
   vagx_cmd_viewport_pack(vagx_cs_emit(b, VAGX_CMD_VIEWPORT_LENGTH), &vpt);
}

/* the scissor, intersected with the viewport */
static void
emit_scissor(struct vagx_context *ctx, struct vagx_batch *b)
{
   struct vagx_cmd_scissor sc;
   vagx_cmd_scissor_init(&sc);
   unsigned w = ctx->fb.width, h = ctx->fb.height;
   if (ctx->rast->base.scissor) {
      sc.min_x = MIN2(ctx->scissor.minx, w);
      sc.min_y = MIN2(ctx->scissor.miny, h);
      sc.max_x = MIN2(ctx->scissor.maxx, w);
      sc.max_y = MIN2(ctx->scissor.maxy, h);
   } else {
      sc.max_x = w;
      sc.max_y = h;
   }
   /* the device clips x/y only to its guard band (render.md): GL clips to
    * the view volume, which is the viewport rectangle, so the scissor is
    * intersected with the viewport (wide points and lines are cut at its
    * edges as well, as on other guard-band hardware) */
   const float *sv = ctx->viewport.scale, *tv = ctx->viewport.translate;
   const float vx0 = floorf(tv[0] - fabsf(sv[0])), vx1 = ceilf(tv[0] + fabsf(sv[0]));
   const float vy0 = floorf(tv[1] - fabsf(sv[1])), vy1 = ceilf(tv[1] + fabsf(sv[1]));
   sc.min_x = MAX2(sc.min_x, (unsigned)CLAMP(vx0, 0.0f, (float)w));
   sc.min_y = MAX2(sc.min_y, (unsigned)CLAMP(vy0, 0.0f, (float)h));
   sc.max_x = MIN2(sc.max_x, (unsigned)CLAMP(vx1, 0.0f, (float)w));
   sc.max_y = MIN2(sc.max_y, (unsigned)CLAMP(vy1, 0.0f, (float)h));
   sc.max_x = MAX2(sc.max_x, sc.min_x);
   sc.max_y = MAX2(sc.max_y, sc.min_y);
   vagx_cmd_scissor_pack(vagx_cs_emit(b, VAGX_CMD_SCISSOR_LENGTH), &sc);
}

/* the CSO's command; 4X framebuffers add GL multisample rasterisation
 * (GL_MULTISAMPLE) and the sample mask (glSampleMaski, util_blitter's
 * per-sample MSAA copies) */
static void
emit_rasterizer(struct vagx_context *ctx, struct vagx_batch *b)
{
   const struct vagx_rasterizer_state *rs = ctx->rast;
   uint32_t *out = vagx_cs_emit(b, VAGX_CMD_RASTERIZER_LENGTH);
   if (vagx_fb_samples(&ctx->fb) == 4) {
      struct vagx_cmd_rasterizer r = rs->cmd;
      r.multisample = rs->base.multisample;
      r.sample_mask = ctx->sample_mask & BITFIELD_MASK(4);
      vagx_cmd_rasterizer_pack(out, &r);
   } else {
      memcpy(out, rs->packed_1x, VAGX_CMD_RASTERIZER_LENGTH);
   }
}

/* the CSO's command with the stencil references */
static void
emit_depth_stencil(struct vagx_context *ctx, struct vagx_batch *b)
{
   const struct vagx_zsa_state *z = ctx->zsa;
   struct vagx_cmd_depth_stencil ds = z->cmd;
   ds.front.ref = ctx->stencil_ref.ref_value[z->ref_index[0]];
   ds.back.ref = ctx->stencil_ref.ref_value[z->ref_index[1]];
   vagx_cmd_depth_stencil_pack(vagx_cs_emit(b, VAGX_CMD_DEPTH_STENCIL_LENGTH), &ds);
}

/* A stage whose uniforms copy words of a constant buffer 0 in memory: the
 * memory may have changed without a bind (a CPU or device write), so its
 * pipeline is emitted at every draw */
static bool
push_reads_buffer(const struct vagx_context *ctx, const struct vagx_shader_info *info,
                  enum pipe_shader_type stage)
{
   const struct pipe_constant_buffer *cb0 = &ctx->cb[stage][0];
   if (cb0->user_buffer || !cb0->buffer)
      return false;
   for (unsigned i = 0; i < info->push_count; i++)
      if (info->push[i].kind == VAGX_PUSH_CB0)
         return true;
   return false;
}

/* The state commands a draw needs that the batch's control stream lacks
 * (ctx->dirty): everything in a batch the state was not emitted into, the
 * pipelines when the variants or bound buffers' storage changed. */
bool
vagx_emit_draw_state(struct vagx_context *ctx, struct vagx_batch *b,
                     const struct vagx_compiled_shader *vs, const struct vagx_compiled_shader *gs,
                     const struct vagx_compiled_shader *fs)
{
   if (ctx->state_seq != b->seq) {
      ctx->dirty = VAGX_DIRTY_ALL;
      ctx->state_seq = b->seq;
      ctx->bound_gs = NULL;
   }
   const unsigned renames = p_atomic_read(&ctx->screen->renames);
   if (ctx->rename_seen != renames) {
      ctx->dirty |= VAGX_DIRTY_VS | VAGX_DIRTY_FS;
      ctx->rename_seen = renames;
   }
   /* the fragment pipeline's bindings follow the last vertex stage's
    * outputs, the geometry pipeline's input words the vertex shader's */
   if (vs != ctx->bound_vs)
      ctx->dirty |= VAGX_DIRTY_VS | VAGX_DIRTY_FS | VAGX_DIRTY_GS;
   if (gs != ctx->bound_gs)
      ctx->dirty |= VAGX_DIRTY_GS | VAGX_DIRTY_FS;
   if (fs != ctx->bound_fs)
      ctx->dirty |= VAGX_DIRTY_FS;
   if (push_reads_buffer(ctx, &vs->info, PIPE_SHADER_VERTEX))
      ctx->dirty |= VAGX_DIRTY_VS;
   if (push_reads_buffer(ctx, &fs->info, PIPE_SHADER_FRAGMENT))
      ctx->dirty |= VAGX_DIRTY_FS;
   if (gs && push_reads_buffer(ctx, &gs->info, PIPE_SHADER_GEOMETRY))
      ctx->dirty |= VAGX_DIRTY_GS;

   if (ctx->dirty & VAGX_DIRTY_VS) {
      if (!emit_vertex_pipeline(ctx, b, vs))
         return false;
      ctx->bound_vs = vs;
   }
   /* a job starts with no geometry pipeline: without a geometry shader
    * nothing is emitted unless one was bound (so a device before 1.11,
    * which has neither command nor geometry shaders, never sees them) */
   if ((ctx->dirty & VAGX_DIRTY_GS) && (gs || ctx->bound_gs)) {
      if (!emit_geometry_pipeline(ctx, b, gs))
         return false;
      ctx->bound_gs = gs;
   }
   if (ctx->dirty & VAGX_DIRTY_FS) {
      if (!emit_fragment_pipeline(ctx, b, gs ? gs : vs, fs))
         return false;
      ctx->bound_fs = fs;
   }
   if (ctx->dirty & VAGX_DIRTY_VIEWPORT)
      emit_viewport(ctx, b);
   if (ctx->dirty & VAGX_DIRTY_SCISSOR)
      emit_scissor(ctx, b);
   if (ctx->dirty & VAGX_DIRTY_RAST)
      emit_rasterizer(ctx, b);
   if (ctx->dirty & VAGX_DIRTY_ZS)
      emit_depth_stencil(ctx, b);
   ctx->dirty &= VAGX_DIRTY_VARIANTS;
   return true;
}
