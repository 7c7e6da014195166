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

static void
pack_pbe(struct vagx_resource *r, unsigned level, unsigned layer, uint32_t *out)
{
   struct vagx_pbe p;
   vagx_pbe_init(&p);
   p.format = r->vformat;
   p.dimension = VAGX_DIMENSION_2D;
   p.layout = r->layout.tiling == VAGX_TILING_LINEAR ? VAGX_IMAGE_LAYOUT_LINEAR
                                                     : VAGX_IMAGE_LAYOUT_TWIDDLED;
   p.width = r->base.width0;
   p.height = r->base.height0;
   p.depth = r->layout.depth_px;
   p.levels = r->layout.levels;
   p.level = level;
   p.layer = layer;
   p.stride = r->layout.tiling == VAGX_TILING_LINEAR ? r->layout.level[0].stride_B : 0;
   p.base_va = r->bo->va;
   vagx_pbe_pack(out, &p);
}

static void
pack_texture(struct vagx_resource *r, enum pipe_format fmt, const unsigned char swz[4],
             unsigned first_level, unsigned last_level, uint32_t *out)
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
   t.base_level = first_level;
   t.max_level = last_level;
   t.stride = r->layout.tiling == VAGX_TILING_LINEAR ? r->layout.level[0].stride_B : 0;
   t.base_va = r->bo->va;
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
      default:
         break;
      }
      push[i] = v;
   }
}

void
vagx_batch_end_query(struct vagx_batch *b)
{
   if (!b->query)
      return;
   vagx_cmd_query_end_pack(cs_emit(b, VAGX_CMD_QUERY_END_LENGTH), &(struct vagx_cmd_query_end){ 0 });
   b->query = NULL;
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
   return n + 4 * (fs->fs_cf_count + 2) + 256;
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
         }
         continue;
      }
      cb.slot = 0;
      for (unsigned w = 0; w < vs->info.vs_user_words; w++)
         if (vs->info.vs_word_location[w] == fi->fs_cf[i].location &&
             vs->info.vs_word_component[w] == fi->fs_cf[i].component)
            cb.slot = user_slot0 + w;
      vagx_cf_binding_pack(&bind[nb++], &cb);
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
   r.sample_mask = 0xffff;
   vagx_cmd_rasterizer_pack(cs_emit(b, VAGX_CMD_RASTERIZER_LENGTH), &r);

   const struct pipe_depth_stencil_alpha_state *z = ctx->zsa;
   struct vagx_cmd_depth_stencil ds;
   vagx_cmd_depth_stencil_init(&ds);
   ds.depth_test = z->depth_enabled;
   ds.depth_write = z->depth_enabled && z->depth_writemask;
   ds.depth_func = z->depth_enabled ? z->depth_func : PIPE_FUNC_ALWAYS;
   ds.stencil_test = z->stencil[0].enabled;
   for (unsigned f = 0; f < 2; f++) {
      const struct pipe_stencil_state *s = &z->stencil[f == 1 && z->stencil[1].enabled ? 1 : 0];
      struct vagx_stencil_face *face = f ? &ds.back : &ds.front;
      face->func = s->enabled ? s->func : PIPE_FUNC_ALWAYS;
      face->fail_op = vagx_stencil_op(s->fail_op);
      face->zfail_op = vagx_stencil_op(s->zfail_op);
      face->zpass_op = vagx_stencil_op(s->zpass_op);
      face->ref = ctx->stencil_ref.ref_value[f];
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
   struct vagx_bg_eot_key key = { .nr_cbufs = b->key.nr_cbufs };
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
   rj.samples = VAGX_MSAA_1X;
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
      pack_texture(zr, b->key.zsbuf->format, id, 0, 0, zd);
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
         pack_texture(r, s->format, id, s->u.tex.level, s->u.tex.level, texdesc + i * 8);
         pack_pbe(r, s->u.tex.level, s->u.tex.first_layer, pbedesc + i * 8);
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
   /* drop reader/writer marks */
   util_dynarray_foreach(&b->bos, struct vagx_bo *, it)
      (void)it;
   for (unsigned i = 0; i < b->key.nr_cbufs; i++)
      if (b->key.cbufs[i] && vagx_resource(b->key.cbufs[i]->texture)->writer == b)
         vagx_resource(b->key.cbufs[i]->texture)->writer = NULL;
   if (b->key.zsbuf && vagx_resource(b->key.zsbuf->texture)->writer == b)
      vagx_resource(b->key.zsbuf->texture)->writer = NULL;
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
}
