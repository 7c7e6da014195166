/* SPDX-License-Identifier: MIT */
/* Batches (one per framebuffer, asahi/panfrost style reader/writer tracking),
 * control-stream encoding for draws, render-job submission. */
#include <stdio.h>
#include <string.h>
#include "util/format/u_format.h"
#include "util/u_draw.h"
#include "util/u_helpers.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_prim.h"
#include "compiler/nir/nir_xfb_info.h"
#include "vagx_context.h"
#include "vagx_hw.h"

#define CS_SIZE (1024 * 1024)

/* Tile-buffer format of a render target slot with no surface (glDrawBuffers
 * with GL_NONE before a bound slot): the job needs a valid format per slot,
 * nothing loads or stores it, and the shader's writes to it are dropped. */
#define VAGX_UNBOUND_RT_FORMAT PIPE_FORMAT_R8_UNORM

static void
batch_add_bo(struct vagx_batch *b, struct vagx_bo *bo)
{
   util_dynarray_foreach(&b->bos, struct vagx_bo *, it)
      if (*it == bo)
         return;
   vagx_bo_reference(bo);
   util_dynarray_append(&b->bos, struct vagx_bo *, bo);
}

/* The pool BO holds the control stream in its first half (commands must be
 * contiguous from cs_va: the device parses them in order) and descriptors,
 * uniforms and shader data in its second half. */
#define CS_CMD_SIZE (CS_SIZE / 2)

static uint64_t
batch_alloc(struct vagx_batch *b, unsigned size, unsigned align, void **cpu)
{
   uint32_t off = ALIGN(CS_CMD_SIZE + b->data_used, align);
   if (off + size > CS_SIZE) {
      b->failed = true;
      *cpu = NULL;
      return 0;
   }
   *cpu = (uint8_t *)b->cs->map + off;
   uint64_t va = b->cs->va + off;
   b->data_used = off + size - CS_CMD_SIZE;
   return va;
}

static uint32_t *
cs_emit(struct vagx_batch *b, unsigned bytes)
{
   static uint32_t scratch[64];
   /* keep room for the final cmd_end */
   if (b->cs_used + bytes + VAGX_CMD_END_LENGTH > CS_CMD_SIZE) {
      b->failed = true;
      memset(scratch, 0, sizeof(scratch));
      return scratch;
   }
   uint32_t *p = (uint32_t *)((uint8_t *)b->cs->map + b->cs_used);
   b->cs_used += ALIGN(bytes, 4);
   return p;
}

/* Dependencies between batches of one context: batches are submitted in
 * flush order, so a batch that reads a resource another pending batch writes
 * (render to texture, then sample it) must flush that writer first, and a
 * batch that writes a resource must flush other pending readers and writers. */
static void
batch_read(struct vagx_batch *b, struct vagx_resource *r)
{
   if (r->writer && r->writer != b && r->writer->ctx == b->ctx)
      vagx_flush_batch(b->ctx, r->writer);
   batch_add_bo(b, r->bo);
   r->reader_mask |= 1u << b->idx;
}

static void
batch_write(struct vagx_batch *b, struct vagx_resource *r)
{
   if (r->writer && r->writer != b && r->writer->ctx == b->ctx)
      vagx_flush_batch(b->ctx, r->writer);
   u_foreach_bit(i, r->reader_mask & ~(1u << b->idx))
      if (i < VAGX_MAX_BATCHES)
         vagx_flush_batch(b->ctx, &b->ctx->batches[i]);
   r->reader_mask &= 1u << b->idx;
   batch_add_bo(b, r->bo);
   r->writer = b;
}

struct vagx_batch *
vagx_get_batch(struct vagx_context *ctx)
{
   if (ctx->batch)
      return ctx->batch;
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      struct vagx_batch *b = &ctx->batches[i];
      if (b->active && util_framebuffer_state_equal(&b->key, &ctx->fb))
         return ctx->batch = b;
   }
   struct vagx_batch *b = NULL;
   for (unsigned i = 0; i < VAGX_MAX_BATCHES && !b; i++)
      if (!ctx->batches[i].active)
         b = &ctx->batches[i];
   if (!b) {
      vagx_flush_batch(ctx, &ctx->batches[0]);
      b = &ctx->batches[0];
   }
   memset(&b->key, 0, sizeof(b->key));
   util_copy_framebuffer_state(&b->key, &ctx->fb);
   b->active = true;
   b->clear = 0;
   b->draws = 0;
   b->geometry = 0;
   b->failed = false;
   b->query = NULL;
   b->prim_query[0] = b->prim_query[1] = NULL;
   b->so_on = false;
   b->so_vs = NULL;
   memset(b->so_res, 0, sizeof(b->so_res));
   b->cs_used = 0;
   b->data_used = 0;
   util_dynarray_init(&b->bos, NULL);
   if (!b->cs)
      b->cs = vagx_bo_create(&ctx->screen->dev, CS_SIZE, "control stream");
   for (unsigned i = 0; i < b->key.nr_cbufs; i++)
      if (b->key.cbufs[i])
         batch_write(b, vagx_resource(b->key.cbufs[i]->texture));
   if (b->key.zsbuf)
      batch_write(b, vagx_resource(b->key.zsbuf->texture));
   return ctx->batch = b;
}

static void
batch_cleanup(struct vagx_context *ctx, struct vagx_batch *b)
{
   util_dynarray_foreach(&b->bos, struct vagx_bo *, it)
      vagx_bo_unreference(*it);
   util_dynarray_fini(&b->bos);
   util_unreference_framebuffer_state(&b->key);
   b->active = false;
   if (ctx->batch == b)
      ctx->batch = NULL;
}

/* Sample count of a framebuffer: 4 (4X MSAA, the contract's only
 * multisample count, vagx_is_format_supported) or 1. */
static unsigned
fb_samples(const struct pipe_framebuffer_state *fb)
{
   return util_framebuffer_get_num_samples(fb) == 4 ? 4 : 1;
}

static unsigned
vagx_msaa(unsigned nr_samples)
{
   return nr_samples == 4 ? VAGX_MSAA_4X : VAGX_MSAA_1X;
}

static void
pack_pbe(struct vagx_resource *r, enum pipe_format fmt, unsigned level, unsigned layer,
         uint32_t *out)
{
   struct vagx_pbe p;
   vagx_pbe_init(&p);
   /* the surface's format, which is the tile buffer's: an sRGB resource
    * drawn with GL_FRAMEBUFFER_SRGB disabled has a UNORM surface (st) and
    * its bytes are stored unencoded */
   p.format = vagx_format_from_pipe(fmt);
   p.dimension = VAGX_DIMENSION_2D;
   p.layout = r->layout.tiling == VAGX_TILING_LINEAR ? VAGX_IMAGE_LAYOUT_LINEAR
                                                     : VAGX_IMAGE_LAYOUT_TWIDDLED;
   p.width = r->base.width0;
   p.height = r->base.height0;
   p.depth = r->layout.depth_px;
   p.levels = r->layout.levels;
   /* a 4X image is stored sample by sample by the end-of-tile program;
    * resolves are blits (vagx_blit), not 1X stores of a 4X tile buffer */
   p.samples = vagx_msaa(r->base.nr_samples);
   p.level = level;
   p.layer = layer;
   p.stride = r->layout.tiling == VAGX_TILING_LINEAR ? r->layout.level[0].stride_B : 0;
   p.base_va = r->bo->va;
   vagx_pbe_pack(out, &p);
}

static void
pack_texture(struct vagx_resource *r, enum pipe_format fmt, const unsigned char swz[4],
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
   t.dimension = r->base.target == PIPE_TEXTURE_CUBE ? VAGX_DIMENSION_CUBE
                 : r->base.target == PIPE_TEXTURE_3D ? VAGX_DIMENSION_3D
                 : r->base.target == PIPE_TEXTURE_1D ? VAGX_DIMENSION_1D
                 : r->base.target == PIPE_TEXTURE_1D_ARRAY ? VAGX_DIMENSION_1D_ARRAY
                 : r->base.target == PIPE_TEXTURE_2D_ARRAY ? VAGX_DIMENSION_2D_ARRAY
                                                     : VAGX_DIMENSION_2D;
   t.layout = r->layout.tiling == VAGX_TILING_LINEAR ? VAGX_IMAGE_LAYOUT_LINEAR
                                                     : VAGX_IMAGE_LAYOUT_TWIDDLED;
   static const uint8_t map[] = { [PIPE_SWIZZLE_X] = VAGX_SWIZZLE_R, [PIPE_SWIZZLE_Y] = VAGX_SWIZZLE_G,
                                  [PIPE_SWIZZLE_Z] = VAGX_SWIZZLE_B, [PIPE_SWIZZLE_W] = VAGX_SWIZZLE_A,
                                  [PIPE_SWIZZLE_0] = VAGX_SWIZZLE_ZERO, [PIPE_SWIZZLE_1] = VAGX_SWIZZLE_ONE };
   t.swizzle_r = map[swz[0] & 7];
   t.swizzle_g = map[swz[1] & 7];
   t.swizzle_b = map[swz[2] & 7];
   t.swizzle_a = map[swz[3] & 7];
   t.width = r->base.width0;
   t.height = r->base.height0;
   t.depth = r->layout.depth_px;
   t.levels = r->layout.levels;
   t.samples = vagx_msaa(r->base.nr_samples);
   t.base_level = first_level;
   t.max_level = last_level;
   t.stride = r->layout.tiling == VAGX_TILING_LINEAR ? r->layout.level[0].stride_B : 0;
   t.base_va = r->bo->va;
   /* GL_EXT_texture_array: a view of layers first..last of an array is
    * the image whose layer 0 is first_layer (every layer holds a whole
    * mip chain, layer_stride_B apart, vagx_layout.h) */
   if (r->base.target == PIPE_TEXTURE_1D_ARRAY || r->base.target == PIPE_TEXTURE_2D_ARRAY) {
      t.depth = last_layer - first_layer + 1;
      t.base_va += (uint64_t)first_layer * r->layout.layer_stride_B;
   }
   vagx_texture_pack(out, &t);
}

static bool
program_for(struct vagx_context *ctx, struct vagx_batch *b, struct vagx_shader_info *info,
            struct vagx_bo *code_bo, const uint32_t *push, struct vagx_usc_program *p,
            enum pipe_shader_type stage, int stipple_unit)
{
   vagx_usc_program_init(p);
   p->code_va = code_bo->va;
   p->gpr_count = info->gpr_count;
   p->uniform_count = info->push_count;
   batch_add_bo(b, code_bo);
   if (info->push_count) {
      void *cpu;
      p->uniform_va = batch_alloc(b, info->push_count * 4, 16, &cpu);
      if (!cpu)
         return false;
      memcpy(cpu, push, info->push_count * 4);
   }
   if (info->texture_count && stage < PIPE_SHADER_TYPES) {
      uint32_t *tex;
      p->texture_va = batch_alloc(b, info->texture_count * VAGX_TEXTURE_LENGTH, 32, (void **)&tex);
      uint32_t *smp = NULL;
      if (info->sampler_count)
         p->sampler_va = batch_alloc(b, info->sampler_count * VAGX_SAMPLER_LENGTH, 32, (void **)&smp);
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
         struct vagx_resource *r = vagx_resource(v->texture);
         unsigned char swz[4] = { v->swizzle_r, v->swizzle_g, v->swizzle_b, v->swizzle_a };
         pack_texture(r, v->format, swz, v->u.tex.first_level, v->u.tex.last_level,
                      v->u.tex.first_layer, v->u.tex.last_layer,
                      tex + i * (VAGX_TEXTURE_LENGTH / 4));
         batch_read(b, r);
      }
      for (unsigned i = 0; i < info->sampler_count; i++) {
         struct pipe_sampler_state *s =
            (int)i == stipple_unit ? ctx->stipple_sampler : ctx->samplers[stage][i];
         struct vagx_sampler d;
         vagx_sampler_init(&d);
         if (s) {
            d.min_filter = s->min_img_filter == PIPE_TEX_FILTER_LINEAR;
            d.mag_filter = s->mag_img_filter == PIPE_TEX_FILTER_LINEAR;
            d.mip_filter = s->min_mip_filter == PIPE_TEX_MIPFILTER_NONE ? VAGX_MIP_FILTER_NONE
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
         }
         vagx_sampler_pack(smp + i * (VAGX_SAMPLER_LENGTH / 4), &d);
      }
      p->texture_count = info->texture_count;
      p->sampler_count = info->sampler_count;
   }
   return true;
}

static void
fill_push(struct vagx_context *ctx, struct vagx_batch *b, const struct vagx_shader_info *info,
          enum pipe_shader_type stage, uint32_t *push)
{
   struct pipe_constant_buffer *cb0 = &ctx->cb[stage][0];
   const uint8_t *cbmap = cb0->user_buffer ? cb0->user_buffer
                          : cb0->buffer ? (uint8_t *)vagx_resource(cb0->buffer)->bo->map + cb0->buffer_offset
                                        : NULL;
   uint64_t ubo_va = 0; /* constant buffer 0 as seen by ld_global, on first use */
   uint64_t ubo_n_va = 0; /* uniform block of the current UBO_LO/UBO_HI pair */
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
            batch_read(b, r);
            ubo_va = r->bo->va + cb0->buffer_offset;
         } else if (!ubo_va && p->arg == 0 && cbmap && cb0->buffer_size) {
            void *cpu;
            ubo_va = batch_alloc(b, cb0->buffer_size, 16, &cpu);
            if (cpu)
               memcpy(cpu, cbmap, cb0->buffer_size);
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
                  batch_read(b, r);
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
            batch_read(b, r);
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
      case VAGX_PUSH_SAMPLER_LOD: {
         /* the LOD state of the sampler descriptor (program_for), for the
          * shader's own level selection (textureLodOffset); without a
          * mip filter the texture unit samples the base level: all 0 */
         const struct pipe_sampler_state *ss = ctx->samplers[stage][p->arg / 4];
         float f = 0;
         if (ss && ss->min_mip_filter != PIPE_TEX_MIPFILTER_NONE)
            f = p->arg % 4 == 0 ? ss->min_lod : p->arg % 4 == 1 ? ss->max_lod : ss->lod_bias;
         memcpy(&v, &f, 4);
         break;
      }
      default:
         break;
      }
      push[i] = v;
   }
}

/* Ends every query begun in the control stream (occlusion, primitives
 * generated / emitted); a later draw begins the ones still active again and
 * the counters accumulate in their u64. */
void
vagx_batch_end_query(struct vagx_batch *b)
{
   if (b->query) {
      vagx_cmd_query_end_pack(cs_emit(b, VAGX_CMD_QUERY_END_LENGTH),
                              &(struct vagx_cmd_query_end){ 0 });
      b->query = NULL;
   }
   for (unsigned k = 0; k < 2; k++) {
      if (!b->prim_query[k])
         continue;
      struct vagx_cmd_query_end qe;
      vagx_cmd_query_end_init(&qe);
      qe.type = k ? VAGX_QUERY_TYPE_PRIMITIVES_EMITTED : VAGX_QUERY_TYPE_PRIMITIVES_GENERATED;
      vagx_cmd_query_end_pack(cs_emit(b, VAGX_CMD_QUERY_END_LENGTH), &qe);
      b->prim_query[k] = NULL;
   }
}

/* PRIMITIVES_GENERATED / PRIMITIVES_EMITTED: hardware counters begun and
 * ended like the occlusion query (one of each may be active beside it). */
static void
batch_update_prim_queries(struct vagx_context *ctx, struct vagx_batch *b)
{
   for (unsigned k = 0; k < 2; k++) {
      struct vagx_query *want = ctx->queries_paused ? NULL : ctx->prim_query[k];
      if (b->prim_query[k] == want)
         continue;
      const unsigned type =
         k ? VAGX_QUERY_TYPE_PRIMITIVES_EMITTED : VAGX_QUERY_TYPE_PRIMITIVES_GENERATED;
      if (b->prim_query[k]) {
         struct vagx_cmd_query_end qe;
         vagx_cmd_query_end_init(&qe);
         qe.type = type;
         vagx_cmd_query_end_pack(cs_emit(b, VAGX_CMD_QUERY_END_LENGTH), &qe);
      }
      b->prim_query[k] = want;
      if (!want)
         continue;
      struct vagx_cmd_query_begin qb;
      vagx_cmd_query_begin_init(&qb);
      qb.type = type;
      qb.result_va = want->bo->va;
      vagx_cmd_query_begin_pack(cs_emit(b, VAGX_CMD_QUERY_BEGIN_LENGTH), &qb);
      batch_add_bo(b, want->bo);
      want->batch_mask |= 1u << b->idx;
   }
}

/* Appends one declared component to the list, merging runs of consecutive
 * vertex-output words going to consecutive dwords of one buffer. */
static void
so_add(uint32_t *decl, unsigned *n, struct vagx_stream_out_decl *last, int word, unsigned buffer,
       unsigned dst)
{
   if (word < 0)
      return; /* not written by the shader: GL leaves the captured value undefined */
   if (*n && last->buffer == buffer && last->src + last->count == (unsigned)word &&
       last->dst + last->count == dst && last->count < 4) {
      last->count++;
      vagx_stream_out_decl_pack(&decl[*n - 1], last);
      return;
   }
   if (*n >= VAGX_MAX_STREAM_OUT_DECLS)
      return;
   vagx_stream_out_decl_init(last);
   last->src = word;
   last->count = 1;
   last->buffer = buffer;
   last->dst = dst;
   vagx_stream_out_decl_pack(&decl[(*n)++], last);
}

/* The vertex shader's stream output as hardware declarations: each captured
 * component becomes (vertex-output word, buffer, dword), with the words the
 * compiler assigned (vagx_vs_output_word).  Strides in bytes per buffer. */
static unsigned
so_decls(struct vagx_context *ctx, const struct vagx_shader_info *vi, uint32_t *decl,
         unsigned *stride)
{
   const struct vagx_uncompiled_shader *vs = ctx->vs;
   const nir_xfb_info *xfb = vs->nir->xfb_info;
   struct vagx_stream_out_decl last;
   unsigned n = 0;
   memset(stride, 0, PIPE_MAX_SO_BUFFERS * sizeof(*stride));
   if (xfb) {
      for (unsigned b = 0; b < PIPE_MAX_SO_BUFFERS; b++)
         stride[b] = xfb->buffers[b].stride;
      for (unsigned i = 0; i < xfb->output_count; i++) {
         const nir_xfb_output_info *o = &xfb->outputs[i];
         if (o->buffer >= ctx->so_num || !ctx->so_targets[o->buffer])
            continue;
         unsigned dst = o->offset / 4;
         u_foreach_bit(c, o->component_mask)
            so_add(decl, &n, &last, vagx_vs_output_word(vi, o->location, c), o->buffer,
                   dst + c - o->component_offset);
      }
      return n;
   }
   const struct pipe_stream_output_info *so = &vs->so_info;
   for (unsigned b = 0; b < PIPE_MAX_SO_BUFFERS; b++)
      stride[b] = so->stride[b] * 4;
   for (unsigned i = 0; i < so->num_outputs; i++) {
      const struct pipe_stream_output *o = &so->output[i];
      if (o->output_buffer >= ctx->so_num || !ctx->so_targets[o->output_buffer])
         continue;
      /* register_index counts the outputs written, in slot order */
      unsigned loc = 0, idx = 0;
      bool found = false;
      u_foreach_bit64(l, vs->so_outputs_written) {
         if (idx++ == o->register_index) {
            loc = l;
            found = true;
            break;
         }
      }
      if (!found)
         continue;
      for (unsigned c = 0; c < o->num_components; c++)
         so_add(decl, &n, &last, vagx_vs_output_word(vi, loc, o->start_component + c),
                o->output_buffer, o->dst_offset + c);
   }
   return n;
}

static bool
vs_has_so(const struct vagx_uncompiled_shader *vs)
{
   return vs->nir->xfb_info ? vs->nir->xfb_info->output_count > 0 : vs->so_info.num_outputs > 0;
}

/* Stream output of the draw about to be emitted: binds the targets and the
 * declarations when they changed for this control stream.  A target starts
 * at its set_stream_output_targets offset once, and otherwise appends at the
 * offset the device keeps in its offset_bo (written by earlier draws of this
 * or an earlier job; batch_write flushes another batch that writes the
 * buffer first, so appends follow the API order). */
static bool
batch_update_so(struct vagx_context *ctx, struct vagx_batch *b,
                const struct vagx_compiled_shader *vs)
{
   const bool want = ctx->so_num && vs_has_so(ctx->vs);
   if (!want) {
      if (b->so_on) {
         struct vagx_cmd_stream_out so;
         vagx_cmd_stream_out_init(&so);
         vagx_cmd_stream_out_pack(cs_emit(b, VAGX_CMD_STREAM_OUT_LENGTH), &so);
         b->so_on = false;
      }
      return true;
   }
   if (b->so_on && b->so_gen == ctx->so_gen && b->so_vs == ctx->vs)
      return true;
   uint32_t *decl;
   unsigned stride[PIPE_MAX_SO_BUFFERS];
   uint64_t decl_va = batch_alloc(b, VAGX_MAX_STREAM_OUT_DECLS * 4, 4, (void **)&decl);
   if (!decl)
      return false;
   unsigned n = so_decls(ctx, &vs->info, decl, stride);
   for (unsigned i = 0; i < ctx->so_num; i++) {
      struct vagx_so_target *t = (struct vagx_so_target *)ctx->so_targets[i];
      if (!t)
         continue;
      if (stride[i] > VAGX_MAX_STREAM_OUT_STRIDE)
         return false;
      struct vagx_resource *r = vagx_resource(t->base.buffer);
      batch_write(b, r);
      if (b->so_res[i] != &r->base)
         pipe_resource_reference(&b->so_res[i], &r->base);
      batch_add_bo(b, t->offset_bo);
      struct vagx_cmd_stream_out_buffer sb;
      vagx_cmd_stream_out_buffer_init(&sb);
      sb.index = i;
      sb.base_va = r->bo->va + t->base.buffer_offset;
      sb.size = t->base.buffer_size & ~3u;
      sb.stride = stride[i];
      sb.append = !t->reset;
      sb.offset = t->reset ? t->reset_offset & ~3u : 0;
      sb.offset_va = t->offset_bo->va;
      vagx_cmd_stream_out_buffer_pack(cs_emit(b, VAGX_CMD_STREAM_OUT_BUFFER_LENGTH), &sb);
      t->reset = false;
      t->stride = stride[i];
   }
   struct vagx_cmd_stream_out so;
   vagx_cmd_stream_out_init(&so);
   so.enable = true;
   so.decl_count = n;
   so.decls_va = n ? decl_va : 0;
   vagx_cmd_stream_out_pack(cs_emit(b, VAGX_CMD_STREAM_OUT_LENGTH), &so);
   b->so_on = true;
   b->so_gen = ctx->so_gen;
   b->so_vs = ctx->vs;
   return true;
}

static struct pipe_stream_output_target *
vagx_create_stream_output_target(struct pipe_context *pctx, struct pipe_resource *prsc,
                                 unsigned buffer_offset, unsigned buffer_size)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_so_target *t = CALLOC_STRUCT(vagx_so_target);
   if (!t)
      return NULL;
   t->offset_bo = vagx_bo_create(&ctx->screen->dev, 8, "stream-out offset");
   if (!t->offset_bo) {
      FREE(t);
      return NULL;
   }
   memset(t->offset_bo->map, 0, 8);
   pipe_reference_init(&t->base.reference, 1);
   pipe_resource_reference(&t->base.buffer, prsc);
   t->base.context = pctx;
   t->base.buffer_offset = buffer_offset;
   t->base.buffer_size = buffer_size;
   t->reset = true;
   return &t->base;
}

static void
vagx_stream_output_target_destroy(struct pipe_context *pctx,
                                  struct pipe_stream_output_target *target)
{
   struct vagx_so_target *t = (struct vagx_so_target *)target;
   pipe_resource_reference(&t->base.buffer, NULL);
   /* batches that bound it hold their own reference to the BO */
   vagx_bo_unreference(t->offset_bo);
   FREE(t);
}

static void
vagx_set_stream_output_targets(struct pipe_context *pctx, unsigned num_targets,
                               struct pipe_stream_output_target **targets,
                               const unsigned *offsets, enum mesa_prim output_prim)
{
   struct vagx_context *ctx = vagx_context(pctx);
   for (unsigned i = 0; i < num_targets; i++) {
      /* offset -1: append (resume); else the next binding starts there */
      if (targets[i] && offsets[i] != (unsigned)-1) {
         struct vagx_so_target *t = (struct vagx_so_target *)targets[i];
         t->reset = true;
         t->reset_offset = offsets[i];
      }
      pipe_so_target_reference(&ctx->so_targets[i], targets[i]);
   }
   for (unsigned i = num_targets; i < ctx->so_num; i++)
      pipe_so_target_reference(&ctx->so_targets[i], NULL);
   ctx->so_num = num_targets;
   ctx->so_gen++;
}

/* glDrawTransformFeedback: the vertex count is the target's write offset
 * over its stride, read after the batches writing it completed. */
static void
draw_from_so(struct pipe_context *pctx, const struct pipe_draw_info *info, unsigned drawid_offset,
             struct pipe_stream_output_target *target)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_so_target *t = (struct vagx_so_target *)target;
   vagx_flush_writer(ctx, vagx_resource(t->base.buffer));
   uint32_t offset;
   memcpy(&offset, t->offset_bo->map, 4);
   struct pipe_draw_start_count_bias d = { 0 };
   d.count = t->stride ? offset / t->stride : 0;
   pctx->draw_vbo(pctx, info, drawid_offset, NULL, &d, 1);
}

/* The occlusion query the draws of this batch must count for (none while the
 * blitter runs), begun in the control stream at the first draw that needs it:
 * the hardware counts between cmd_query_begin and cmd_query_end of one job,
 * and a query spanning several batches accumulates in its u64. */
static void
batch_update_query(struct vagx_context *ctx, struct vagx_batch *b)
{
   struct vagx_query *want = ctx->queries_paused ? NULL : ctx->occlusion;
   if (b->query == want)
      return;
   vagx_batch_end_query(b);
   if (!want)
      return;
   struct vagx_cmd_query_begin qb;
   vagx_cmd_query_begin_init(&qb);
   qb.type = want->type == PIPE_QUERY_OCCLUSION_COUNTER ? VAGX_QUERY_TYPE_OCCLUSION_COUNTER
                                                         : VAGX_QUERY_TYPE_OCCLUSION_PREDICATE;
   qb.result_va = want->bo->va;
   vagx_cmd_query_begin_pack(cs_emit(b, VAGX_CMD_QUERY_BEGIN_LENGTH), &qb);
   batch_add_bo(b, want->bo);
   want->batch_mask |= 1u << b->idx;
   b->query = want;
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

static unsigned
vagx_prim(enum mesa_prim p)
{
   switch (p) {
   case MESA_PRIM_POINTS: return VAGX_PRIMITIVE_POINTS;
   case MESA_PRIM_LINES: return VAGX_PRIMITIVE_LINES;
   case MESA_PRIM_LINE_LOOP: return VAGX_PRIMITIVE_LINE_LOOP;
   case MESA_PRIM_LINE_STRIP: return VAGX_PRIMITIVE_LINE_STRIP;
   case MESA_PRIM_TRIANGLE_STRIP: return VAGX_PRIMITIVE_TRIANGLE_STRIP;
   case MESA_PRIM_TRIANGLE_FAN: return VAGX_PRIMITIVE_TRIANGLE_FAN;
   default: return VAGX_PRIMITIVE_TRIANGLES;
   }
}

/* Room the end of a batch needs in the data half of the pool: background
 * and end-of-tile programs, their descriptors, the render job. */
#define BATCH_END_RESERVE (16 * 1024)
/* Upper bound of the control-stream bytes of one draw (all state commands,
 * a query end + begin and the draw). */
#define DRAW_CMD_BYTES 1024

/* Upper bound of the data-half bytes one draw allocates: uniforms, texture
 * and sampler descriptors, cf bindings, and constant buffer 0 copied for
 * ld_global (per stage), plus alignment. */
static unsigned
draw_data_bytes(struct vagx_context *ctx, const struct vagx_shader_info *vs,
                const struct vagx_shader_info *fs)
{
   unsigned n = 0;
   const struct vagx_shader_info *st[2] = { vs, fs };
   const enum pipe_shader_type stage[2] = { PIPE_SHADER_VERTEX, PIPE_SHADER_FRAGMENT };
   for (unsigned i = 0; i < 2; i++) {
      n += st[i]->push_count * 4 + 16;
      n += st[i]->texture_count * VAGX_TEXTURE_LENGTH + st[i]->sampler_count * VAGX_SAMPLER_LENGTH + 64;
      n += ctx->cb[stage[i]][0].buffer_size + 16;
   }
   /* + stream output declarations (batch_update_so) */
   return n + 4 * (fs->fs_cf_count + 2) + 256 + VAGX_MAX_STREAM_OUT_DECLS * 4;
}

static bool
batch_has_room(struct vagx_batch *b, unsigned data_bytes)
{
   return b->cs_used + DRAW_CMD_BYTES + VAGX_CMD_END_LENGTH <= CS_CMD_SIZE &&
          b->data_used + data_bytes + BATCH_END_RESERVE <= CS_SIZE - CS_CMD_SIZE;
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
   const struct pipe_blend_state *bl = ctx->blend;
   if (bl && (bl->logicop_enable || bl->alpha_to_coverage || bl->alpha_to_one))
      return false;
   for (unsigned i = 0; i < ctx->fb.nr_cbufs; i++) {
      if (!ctx->fb.cbufs[i])
         continue;
      if (!(fi->fs_rt_always_written & (1u << i)))
         return false;
      const struct pipe_rt_blend_state *rt = bl ? &bl->rt[bl->independent_blend_enable ? i : 0] : NULL;
      if (rt && (rt->blend_enable || rt->colormask != PIPE_MASK_RGBA))
         return false;
   }
   return true;
}

/* Upper bound of what a draw charges to the render job's geometry budget
 * (docs/hw/render.md): every primitive the draw can assemble, times the
 * triangles clipping can cut one into (a triangle clipped by k planes, w >
 * 0, near, far and each clip distance, is a polygon of at most 3 + k
 * vertices, 1 + k triangles) or the 3 edges / vertices of a polygon mode
 * (clipping creates none that are drawn), each charged the primitive, its
 * coefficient registers and every tile of the scissor box (a primitive is
 * binned into at most the tiles its bounding box touches).  Culling and
 * primitive restart only lower the real charge. */
static uint64_t
draw_geometry_bound(const struct vagx_context *ctx, const struct pipe_draw_info *info,
                    const struct pipe_draw_start_count_bias *draw,
                    const struct vagx_shader_info *vi, const struct vagx_shader_info *fi)
{
   const struct pipe_rasterizer_state *rs = ctx->rast;
   if (rs->rasterizer_discard)
      return 0;
   uint64_t prims = (uint64_t)u_decomposed_prims_for_vertices(info->mode, draw->count) *
                    info->instance_count;
   /* beyond the budget in any case; keeps the products below in range */
   prims = MIN2(prims, VAGX_RENDER_GEOMETRY_BUDGET);
   if (u_reduced_prim(info->mode) == MESA_PRIM_TRIANGLES) {
      bool poly_mode = rs->fill_front != PIPE_POLYGON_MODE_FILL ||
                       rs->fill_back != PIPE_POLYGON_MODE_FILL;
      unsigned planes = 3 + vi->vs_clip_distances;
      prims *= MAX2(poly_mode ? 3 : 1, 1 + planes);
   }
   unsigned x0 = 0, y0 = 0, x1 = ctx->fb.width, y1 = ctx->fb.height;
   if (rs->scissor) {
      x0 = MIN2(ctx->scissor.minx, x1);
      y0 = MIN2(ctx->scissor.miny, y1);
      x1 = MIN2(ctx->scissor.maxx, x1);
      y1 = MIN2(ctx->scissor.maxy, y1);
   }
   uint64_t tiles = 0;
   if (x1 > x0 && y1 > y0)
      tiles = (uint64_t)((x1 - 1) / VAGX_TILE_SIZE - x0 / VAGX_TILE_SIZE + 1) *
              ((y1 - 1) / VAGX_TILE_SIZE - y0 / VAGX_TILE_SIZE + 1);
   unsigned cfs = fi->fs_cf_base + fi->fs_cf_count;
   return prims * (VAGX_RENDER_GEOMETRY_PRIM_COST + (uint64_t)cfs * VAGX_RENDER_GEOMETRY_CF_COST +
                   tiles * VAGX_RENDER_GEOMETRY_BIN_COST);
}

static struct vagx_fs_key
fs_key(struct vagx_context *ctx, enum mesa_prim prim)
{
   struct vagx_fs_key k = { 0 };
   k.nr_cbufs = ctx->fb.nr_cbufs;
   k.samples = fb_samples(&ctx->fb);
   /* the stipple applies to filled polygons only, not to points and lines
    * (nor to polygons drawn in point/line mode) */
   k.poly_stipple = ctx->rast && ctx->rast->poly_stipple_enable &&
                    u_reduced_prim(prim) == MESA_PRIM_TRIANGLES &&
                    ctx->rast->fill_front == PIPE_POLYGON_MODE_FILL &&
                    ctx->rast->fill_back == PIPE_POLYGON_MODE_FILL;
   for (unsigned i = 0; i < ctx->fb.nr_cbufs; i++)
      k.rt_format[i] = ctx->fb.cbufs[i] ? ctx->fb.cbufs[i]->format : VAGX_UNBOUND_RT_FORMAT;
   return k;
}

static void
vagx_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
              unsigned drawid_offset, const struct pipe_draw_indirect_info *indirect,
              const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   struct vagx_context *ctx = vagx_context(pctx);
   if (num_draws > 1) {
      util_draw_multi(pctx, info, drawid_offset, indirect, draws, num_draws);
      return;
   }
   if (indirect && indirect->count_from_stream_output) {
      draw_from_so(pctx, info, drawid_offset, indirect->count_from_stream_output);
      return;
   }
   if (indirect || !ctx->vs || !ctx->fs || !ctx->rast || !ctx->zsa || !ctx->vtx)
      return;
   if (!draws[0].count || !info->instance_count)
      return;
   if (!vagx_render_condition_passes(ctx))
      return;
   struct vagx_batch *b = vagx_get_batch(ctx);
   struct vagx_fs_key key = fs_key(ctx, info->mode);
   struct vagx_compiled_shader *vs = vagx_get_variant(ctx, ctx->vs, &key);
   struct vagx_compiled_shader *fs = vagx_get_variant(ctx, ctx->fs, &key);
   if (!vs->ok || !fs->ok) {
      b->failed = true;
      return;
   }
   /* a frame of many draws outgrows the pool or the job's geometry budget:
    * submit what is there and go on in a fresh batch (it loads colour and
    * depth/stencil back).  The budget bound is per draw, so only earlier
    * draws are split off: one draw over the budget on its own still fails. */
   uint64_t geometry = draw_geometry_bound(ctx, info, &draws[0], &vs->info, &fs->info);
   if ((!batch_has_room(b, draw_data_bytes(ctx, &vs->info, &fs->info)) && (b->draws || b->clear)) ||
       (b->geometry + geometry > VAGX_RENDER_GEOMETRY_BUDGET && b->draws)) {
      vagx_flush_batch(ctx, b);
      b = vagx_get_batch(ctx);
   }
   b->geometry += geometry;
   uint32_t push[VAGX_MAX_PUSH];

   /* vertex pipeline */
   struct vagx_cmd_bind_vertex_pipeline vp;
   vagx_cmd_bind_vertex_pipeline_init(&vp);
   vp.smooth32 = vs->info.vs_user_words;
   vp.point_size = vs->info.vs_point_size;
   vp.clip_distances = vs->info.vs_clip_distances;
   vp.edge_flag = vs->info.vs_edge_flag;
   fill_push(ctx, b, &vs->info, PIPE_SHADER_VERTEX, push);
   if (!program_for(ctx, b, &vs->info, vs->bo, push, &vp.program, PIPE_SHADER_VERTEX, -1))
      goto fail;
   vagx_cmd_bind_vertex_pipeline_pack(cs_emit(b, VAGX_CMD_BIND_VERTEX_PIPELINE_LENGTH), &vp);

   /* fragment pipeline + coefficient bindings */
   struct vagx_cmd_bind_fragment_pipeline fp;
   vagx_cmd_bind_fragment_pipeline_init(&fp);
   const struct vagx_shader_info *fi = &fs->info;
   unsigned nb = 0;
   uint32_t *bind;
   fp.cf_bindings_va = batch_alloc(b, 4 * (fi->fs_cf_count + 2), 4, (void **)&bind);
   if (!bind)
      goto fail;
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
   fill_push(ctx, b, fi, PIPE_SHADER_FRAGMENT, push);
   if (!program_for(ctx, b, &fs->info, fs->bo, push, &fp.program, PIPE_SHADER_FRAGMENT,
                    fs->stipple_unit))
      goto fail;
   vagx_cmd_bind_fragment_pipeline_pack(cs_emit(b, VAGX_CMD_BIND_FRAGMENT_PIPELINE_LENGTH), &fp);

   struct vagx_cmd_viewport vpt;
   vagx_cmd_viewport_init(&vpt);
   vpt.scale_x = ctx->viewport.scale[0];
   vpt.offset_x = ctx->viewport.translate[0];
   vpt.scale_y = ctx->viewport.scale[1];
   vpt.offset_y = ctx->viewport.translate[1];
   vpt.scale_z = ctx->viewport.scale[2];
   vpt.offset_z = ctx->viewport.translate[2];
   vpt.min_depth = 0.0f;
   vpt.max_depth = 1.0f;
   vagx_cmd_viewport_pack(cs_emit(b, VAGX_CMD_VIEWPORT_LENGTH), &vpt);

   struct vagx_cmd_scissor sc;
   vagx_cmd_scissor_init(&sc);
   unsigned w = ctx->fb.width, h = ctx->fb.height;
   if (ctx->rast->scissor) {
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
   {
      const float *sv = ctx->viewport.scale, *tv = ctx->viewport.translate;
      const float vx0 = floorf(tv[0] - fabsf(sv[0])), vx1 = ceilf(tv[0] + fabsf(sv[0]));
      const float vy0 = floorf(tv[1] - fabsf(sv[1])), vy1 = ceilf(tv[1] + fabsf(sv[1]));
      sc.min_x = MAX2(sc.min_x, (unsigned)CLAMP(vx0, 0.0f, (float)w));
      sc.min_y = MAX2(sc.min_y, (unsigned)CLAMP(vy0, 0.0f, (float)h));
      sc.max_x = MIN2(sc.max_x, (unsigned)CLAMP(vx1, 0.0f, (float)w));
      sc.max_y = MIN2(sc.max_y, (unsigned)CLAMP(vy1, 0.0f, (float)h));
      sc.max_x = MAX2(sc.max_x, sc.min_x);
      sc.max_y = MAX2(sc.max_y, sc.min_y);
   }
   vagx_cmd_scissor_pack(cs_emit(b, VAGX_CMD_SCISSOR_LENGTH), &sc);

   const struct pipe_rasterizer_state *rs = ctx->rast;
   struct vagx_cmd_rasterizer r;
   vagx_cmd_rasterizer_init(&r);
   r.cull = rs->cull_face == PIPE_FACE_FRONT ? VAGX_CULL_MODE_FRONT
            : rs->cull_face == PIPE_FACE_BACK ? VAGX_CULL_MODE_BACK
            : rs->cull_face == PIPE_FACE_FRONT_AND_BACK ? VAGX_CULL_MODE_FRONT_AND_BACK
                                                        : VAGX_CULL_MODE_NONE;
   /* gallium's front_ccw already refers to the window coordinates the
    * viewport produces (st flips it for y-inverted winsys buffers), with the
    * same orientation as the hardware's (softpipe: det > 0 is back-facing
    * with front_ccw), so it maps 1:1 */
   r.front_face = rs->front_ccw ? VAGX_FRONT_FACE_CCW : VAGX_FRONT_FACE_CW;
   r.fill_front = rs->fill_front == PIPE_POLYGON_MODE_LINE ? VAGX_FILL_MODE_LINE
                  : rs->fill_front == PIPE_POLYGON_MODE_POINT ? VAGX_FILL_MODE_POINT : VAGX_FILL_MODE_FILL;
   r.fill_back = rs->fill_back == PIPE_POLYGON_MODE_LINE ? VAGX_FILL_MODE_LINE
                 : rs->fill_back == PIPE_POLYGON_MODE_POINT ? VAGX_FILL_MODE_POINT : VAGX_FILL_MODE_FILL;
   r.provoking = rs->flatshade_first ? VAGX_PROVOKING_VERTEX_FIRST : VAGX_PROVOKING_VERTEX_LAST;
   r.offset_point = rs->offset_point;
   r.offset_line = rs->offset_line;
   r.offset_fill = rs->offset_tri;
   r.offset_units = rs->offset_units;
   r.offset_factor = rs->offset_scale;
   r.offset_clamp = rs->offset_clamp;
   r.depth_clip = rs->depth_clip_near;
   r.discard = rs->rasterizer_discard;
   r.half_pixel_center = 1;
   r.point_sprite_lower_left = rs->sprite_coord_mode == PIPE_SPRITE_COORD_LOWER_LEFT;
   r.point_size = rs->point_size;
   r.line_width = rs->line_width;
   /* 4X: GL multisample rasterisation (GL_MULTISAMPLE) and the sample
    * mask (glSampleMaski, util_blitter's per-sample MSAA copies); 1X
    * framebuffers ignore both, as GL does */
   if (fb_samples(&ctx->fb) == 4) {
      r.multisample = rs->multisample;
      r.sample_mask = ctx->sample_mask & BITFIELD_MASK(4);
   } else {
      r.sample_mask = 0xffff;
   }
   vagx_cmd_rasterizer_pack(cs_emit(b, VAGX_CMD_RASTERIZER_LENGTH), &r);

   const struct pipe_depth_stencil_alpha_state *z = ctx->zsa;
   struct vagx_cmd_depth_stencil ds;
   vagx_cmd_depth_stencil_init(&ds);
   ds.depth_test = z->depth_enabled;
   ds.depth_write = z->depth_enabled && z->depth_writemask;
   ds.depth_func = z->depth_enabled ? z->depth_func : PIPE_FUNC_ALWAYS;
   ds.stencil_test = z->stencil[0].enabled;
   for (unsigned f = 0; f < 2; f++) {
      /* one-sided stencil (stencil[1] disabled): the front state and the
       * front reference apply to back faces too; st's clear-with-quad sets
       * only ref_value[0] */
      const unsigned si = f == 1 && z->stencil[1].enabled ? 1 : 0;
      const struct pipe_stencil_state *s = &z->stencil[si];
      struct vagx_stencil_face *face = f ? &ds.back : &ds.front;
      face->func = s->enabled ? s->func : PIPE_FUNC_ALWAYS;
      face->fail_op = vagx_stencil_op(s->fail_op);
      face->zfail_op = vagx_stencil_op(s->zfail_op);
      face->zpass_op = vagx_stencil_op(s->zpass_op);
      face->ref = ctx->stencil_ref.ref_value[si];
      face->read_mask = s->valuemask;
      face->write_mask = s->writemask;
   }
   vagx_cmd_depth_stencil_pack(cs_emit(b, VAGX_CMD_DEPTH_STENCIL_LENGTH), &ds);

   struct vagx_cmd_draw d;
   vagx_cmd_draw_init(&d);
   d.primitive = vagx_prim(info->mode);
   d.count = draws[0].count;
   d.instance_count = info->instance_count;
   d.first = draws[0].start;
   d.base_instance = info->start_instance;
   if (info->index_size) {
      /* user index arrays go through the stream uploader (any size; the
       * batch keeps the upload buffer's BO alive) */
      struct pipe_resource *ibuf = NULL;
      unsigned offset = 0;
      if (info->has_user_indices) {
         if (!util_upload_index_buffer(pctx, info, &draws[0], &ibuf, &offset, 4))
            goto fail;
      } else {
         pipe_resource_reference(&ibuf, info->index.resource);
      }
      struct vagx_resource *ib = vagx_resource(ibuf);
      batch_read(b, ib);
      d.index_va = ib->bo->va + offset;
      d.index_buffer_size = ib->base.width0 - offset;
      pipe_resource_reference(&ibuf, NULL);
      d.index_size = info->index_size == 1 ? VAGX_INDEX_SIZE_U8
                     : info->index_size == 2 ? VAGX_INDEX_SIZE_U16 : VAGX_INDEX_SIZE_U32;
      d.base_vertex = draws[0].index_bias;
      d.restart = info->primitive_restart;
      d.restart_index = info->restart_index;
   }
   batch_update_query(ctx, b);
   batch_update_prim_queries(ctx, b);
   if (!batch_update_so(ctx, b, vs))
      goto fail;
   vagx_cmd_draw_pack(cs_emit(b, VAGX_CMD_DRAW_LENGTH), &d);
   b->draws++;
   return;
fail:
   b->failed = true;
}

static void
vagx_clear(struct pipe_context *pctx, unsigned buffers, const struct pipe_scissor_state *ss,
           const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct vagx_context *ctx = vagx_context(pctx);
   if (!vagx_render_condition_passes(ctx))
      return;
   struct vagx_batch *b = vagx_get_batch(ctx);
   /* clears after draws are not representable as load ops: flush first */
   if (b->draws) {
      vagx_flush_batch(ctx, b);
      b = vagx_get_batch(ctx);
   }
   for (unsigned i = 0; i < ctx->fb.nr_cbufs; i++)
      if (buffers & (PIPE_CLEAR_COLOR0 << i))
         b->clear_color[i] = *color;
   b->clear |= buffers;
   b->clear_depth = depth;
   b->clear_stencil = stencil;
}

static bool
submit_render(struct vagx_context *ctx, struct vagx_batch *b)
{
   struct vagx_device *dev = &ctx->screen->dev;
   struct vagx_bg_eot_key key = { .nr_cbufs = b->key.nr_cbufs, .samples = fb_samples(&b->key) };
   struct vagx_shader_info bg, eot;
   uint32_t *texdesc = NULL, *pbedesc = NULL;
   void *cpu;
   for (unsigned i = 0; i < key.nr_cbufs; i++) {
      key.format[i] = b->key.cbufs[i] ? b->key.cbufs[i]->format : VAGX_UNBOUND_RT_FORMAT;
      key.op[i] = !b->key.cbufs[i] ? VAGX_BG_DONT_CARE
                  : (b->clear & (PIPE_CLEAR_COLOR0 << i)) ? VAGX_BG_CLEAR : VAGX_BG_LOAD;
   }
   if (!vagx_compile_bg(&key, &bg))
      return false;
   for (unsigned i = 0; i < key.nr_cbufs; i++)
      key.op[i] = b->key.cbufs[i] != NULL;
   if (!vagx_compile_eot(&key, &eot))
      return false;

   struct vagx_render_job rj;
   vagx_render_job_init(&rj);
   rj.width = b->key.width;
   rj.height = b->key.height;
   rj.samples = vagx_msaa(key.samples);
   rj.rt_count = key.nr_cbufs;
   for (unsigned i = 0; i < key.nr_cbufs; i++)
      rj.rt_format[i] = vagx_format_from_pipe(key.format[i]);
   rj.process_empty_tiles = 1;
   rj.clear_depth = b->clear_depth;
   rj.clear_stencil = b->clear_stencil;
   if (b->key.zsbuf) {
      struct vagx_resource *zr = vagx_resource(b->key.zsbuf->texture);
      rj.depth_load = !(b->clear & PIPE_CLEAR_DEPTH);
      rj.stencil_load = !(b->clear & PIPE_CLEAR_STENCIL) && vagx_format_stencil(zr->vformat);
      rj.depth_store = 1;
      rj.stencil_store = vagx_format_stencil(zr->vformat);
      uint32_t *zd;
      rj.zs_desc_va = batch_alloc(b, VAGX_TEXTURE_LENGTH, 32, (void **)&zd);
      if (!zd)
         return false;
      static const unsigned char id[4] = { 0, 1, 2, 3 };
      /* every layer: zs_layer selects the one rendered to */
      pack_texture(zr, b->key.zsbuf->format, id, 0, 0, 0, zr->base.array_size - 1, zd);
      rj.zs_level = b->key.zsbuf->u.tex.level;
      rj.zs_layer = b->key.zsbuf->u.tex.first_layer;
   } else {
      rj.clear_depth = 1.0f;
   }
   /* a query still active ends with the job (a later batch begins it again) */
   vagx_batch_end_query(b);
   /* end of the control stream */
   vagx_cmd_end_pack(cs_emit(b, VAGX_CMD_END_LENGTH), &(struct vagx_cmd_end){ 0 });

   /* background program: textures = render targets (for loads) */
   if (key.nr_cbufs) {
      texdesc = NULL;
      uint64_t tva = batch_alloc(b, key.nr_cbufs * VAGX_TEXTURE_LENGTH, 32, (void **)&texdesc);
      uint64_t pva = batch_alloc(b, key.nr_cbufs * VAGX_PBE_LENGTH, 32, (void **)&pbedesc);
      if (!texdesc || !pbedesc)
         return false;
      for (unsigned i = 0; i < key.nr_cbufs; i++) {
         struct pipe_surface *s = b->key.cbufs[i];
         if (!s)
            continue;
         struct vagx_resource *r = vagx_resource(s->texture);
         static const unsigned char id[4] = { 0, 1, 2, 3 };
         /* the load fetches layer 0 of the descriptor: a one-layer view of
          * the layer rendered to (arrays; vagx_bg_eot.c) */
         pack_texture(r, s->format, id, s->u.tex.level, s->u.tex.level, s->u.tex.first_layer,
                      s->u.tex.first_layer, texdesc + i * 8);
         pack_pbe(r, s->format, s->u.tex.level, s->u.tex.first_layer, pbedesc + i * 8);
      }
      (void)tva;
      (void)pva;
      rj.bg_program.texture_va = bg.texture_count ? tva : 0;
      rj.bg_program.texture_count = bg.texture_count;
      rj.eot_program.image_va = pva;
      rj.eot_program.image_count = eot.image_count;
   }
   uint32_t push[VAGX_MAX_PUSH];
   for (unsigned i = 0; i < bg.push_count; i++) {
      const struct vagx_push *p = &bg.push[i];
      push[i] = b->clear_color[p->arg / 4].ui[p->arg % 4];
   }
   uint64_t bgva = batch_alloc(b, bg.code_words * 8, 16, &cpu);
   if (!cpu)
      return false;
   memcpy(cpu, bg.code, bg.code_words * 8);
   rj.bg_program.code_va = bgva;
   rj.bg_program.gpr_count = bg.gpr_count;
   if (bg.push_count) {
      rj.bg_program.uniform_va = batch_alloc(b, bg.push_count * 4, 16, &cpu);
      if (!cpu)
         return false;
      memcpy(cpu, push, bg.push_count * 4);
      rj.bg_program.uniform_count = bg.push_count;
   }
   uint64_t eotva = batch_alloc(b, eot.code_words * 8, 16, &cpu);
   if (!cpu)
      return false;
   memcpy(cpu, eot.code, eot.code_words * 8);
   rj.eot_program.code_va = eotva;
   rj.eot_program.gpr_count = eot.gpr_count;
   vagx_shader_info_free(&bg);
   vagx_shader_info_free(&eot);

   uint32_t *jd;
   uint64_t jva = batch_alloc(b, VAGX_RENDER_JOB_LENGTH, 64, (void **)&jd);
   if (!jd)
      return false;
   /* cs starts at the beginning of the pool */
   rj.cs_va = b->cs->va;
   vagx_render_job_pack(jd, &rj);
   batch_add_bo(b, b->cs);

   if (ctx->screen->debug & VAGX_DBG_TRACE) {
      vagx_render_job_print(vagx_print_file, stderr, &rj, 0);
      /* and its control stream (what each draw bound, e.g. `opaque`) */
      const uint32_t *cs = b->cs->map;
      for (unsigned o = 0, n; o < b->cs_used / 4; o += n)
         if (!(n = vagx_cmd_print(vagx_print_file, stderr, cs + o, b->cs_used / 4 - o, 2)))
            break;
   }

   if (!ctx->last_syncobj)
      dev->ops->syncobj_create(dev, &ctx->last_syncobj);
   /* implicit sync for shared (window-system / PRIME) BOs of the batch */
   int r = vagx_device_submit(dev, DRM_VAGX_QUEUE_TYPE_RENDER, jva, ctx->last_syncobj,
                              util_dynarray_begin(&b->bos),
                              util_dynarray_num_elements(&b->bos, struct vagx_bo *));
   if (r) {
      fprintf(stderr, "vagx: SUBMIT failed: %s\n", strerror(-r));
      return false;
   }
   /* The control-stream BO is reused: wait for the job (also makes the
    * results visible to CPU maps; a BO pool would avoid this stall). */
   dev->ops->syncobj_wait(dev, ctx->last_syncobj, INT64_MAX);
   uint32_t state = 0;
   struct drm_vagx_fault_info fault;
   if (!dev->ops->queue_state(dev, DRM_VAGX_QUEUE_TYPE_RENDER, &state, &fault) && state) {
      fprintf(stderr, "vagx: render queue unusable after job (state 0x%x, fault at 0x%llx)\n",
              state, (unsigned long long)fault.addr);
      return false;
   }
   return true;
}

void
vagx_flush_batch(struct vagx_context *ctx, struct vagx_batch *b)
{
   if (!b->active)
      return;
   if (b->draws || b->clear) {
      if (b->failed || !submit_render(ctx, b))
         fprintf(stderr, "vagx: render job for %ux%u framebuffer failed; results are undefined\n",
                 b->key.width, b->key.height);
   }
   /* drop the writer marks of its attachments */
   for (unsigned i = 0; i < b->key.nr_cbufs; i++)
      if (b->key.cbufs[i] && vagx_resource(b->key.cbufs[i]->texture)->writer == b)
         vagx_resource(b->key.cbufs[i]->texture)->writer = NULL;
   if (b->key.zsbuf && vagx_resource(b->key.zsbuf->texture)->writer == b)
      vagx_resource(b->key.zsbuf->texture)->writer = NULL;
   for (unsigned i = 0; i < PIPE_MAX_SO_BUFFERS; i++) {
      if (b->so_res[i] && vagx_resource(b->so_res[i])->writer == b)
         vagx_resource(b->so_res[i])->writer = NULL;
      pipe_resource_reference(&b->so_res[i], NULL);
   }
   batch_cleanup(ctx, b);
}

void
vagx_flush_all(struct vagx_context *ctx)
{
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++)
      vagx_flush_batch(ctx, &ctx->batches[i]);
}

void
vagx_flush_writer(struct vagx_context *ctx, struct vagx_resource *r)
{
   if (r->writer && r->writer->ctx == ctx)
      vagx_flush_batch(ctx, r->writer);
   r->writer = NULL;
}

void
vagx_flush_readers(struct vagx_context *ctx, struct vagx_resource *r)
{
   u_foreach_bit(i, r->reader_mask)
      if (i < VAGX_MAX_BATCHES)
         vagx_flush_batch(ctx, &ctx->batches[i]);
   r->reader_mask = 0;
}

void
vagx_batch_destroy_all(struct vagx_context *ctx)
{
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      if (ctx->batches[i].active)
         batch_cleanup(ctx, &ctx->batches[i]);
      vagx_bo_unreference(ctx->batches[i].cs);
   }
}

void
vagx_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = vagx_draw_vbo;
   pctx->clear = vagx_clear;
   pctx->create_stream_output_target = vagx_create_stream_output_target;
   pctx->stream_output_target_destroy = vagx_stream_output_target_destroy;
   pctx->set_stream_output_targets = vagx_set_stream_output_targets;
}
