/* SPDX-License-Identifier: MIT */
/* draw_vbo and clear: a draw's variants, its batch (split at the geometry
 * budget and the batch size), its state and one cmd_draw per draw, direct
 * or indirect (cmd_draw.indirect: the device reads the arguments). */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "util/u_helpers.h"
#include "util/u_inlines.h"
#include "util/u_prim.h"
#include "vagx_context.h"
#include "vagx_hw.h"

/* Upper bound of what a draw charges to the render job's geometry budget
 * (docs/hw/render.md): the draw itself when it has vertices (the fragment
 * state its primitives keep), and every primitive the draw can assemble,
 * times the triangles clipping can cut one into (a triangle clipped by k planes, w >
 * 0, near, far and each clip distance, is a polygon of at most 3 + k
 * vertices, 1 + k triangles) or the 3 edges / vertices of a polygon mode
 * (clipping creates none that are drawn), each charged the primitive, its
 * coefficient registers and every tile of the scissor box (a primitive is
 * binned into at most the tiles its bounding box touches).  Culling and
 * primitive restart only lower the real charge. */
static uint64_t
draw_geometry_bound(const struct vagx_context *ctx, enum mesa_prim mode, unsigned count,
                    unsigned instances, const struct vagx_shader_info *vi,
                    const struct vagx_shader_info *fi)
{
   const struct pipe_rasterizer_state *rs = &ctx->rast->base;
   if (!count || !instances)
      return 0;
   uint64_t prims = (uint64_t)u_decomposed_prims_for_vertices(mode, count) * instances;
   /* beyond the budget in any case; keeps the products below in range */
   prims = MIN2(prims, VAGX_RENDER_GEOMETRY_BUDGET);
   /* a geometry program: every invocation of every input primitive may
    * emit max_vertices vertices (each charged), each vertex at most one
    * output primitive; vi is then the program's output layout */
   uint64_t gs_vertices = 0;
   if (ctx->gs) {
      const struct shader_info *si = &ctx->gs->nir->info;
      gs_vertices = MIN2(prims * MAX2(si->gs.invocations, 1) * MAX2(si->gs.vertices_out, 1),
                         VAGX_RENDER_GEOMETRY_BUDGET);
      prims = gs_vertices;
      mode = si->gs.output_primitive;
   }
   const uint64_t gs_cost = gs_vertices * VAGX_RENDER_GEOMETRY_GS_VERTEX_COST;
   if (rs->rasterizer_discard)
      return VAGX_RENDER_GEOMETRY_DRAW_COST + gs_cost;
   if (u_reduced_prim(mode) == MESA_PRIM_TRIANGLES) {
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
   /* the device counts a primitive's coefficient registers up to the end of
    * its last binding taken as 16-bit slots, two registers each (render_vdm:
    * cf + 2 * count), which is up to 4 past the registers the bindings fill
    * (cmd_bind_fragment_pipeline.cf_count; a binding covers at most 4) */
   unsigned cfs = fi->fs_cf_base + fi->fs_cf_count + 4;
   return VAGX_RENDER_GEOMETRY_DRAW_COST + gs_cost +
          prims * (VAGX_RENDER_GEOMETRY_PRIM_COST + (uint64_t)cfs * VAGX_RENDER_GEOMETRY_CF_COST +
                   tiles * VAGX_RENDER_GEOMETRY_BIN_COST);
}

static struct vagx_fs_key
fs_key(struct vagx_context *ctx, enum mesa_prim prim)
{
   struct vagx_fs_key k = { 0 };
   k.nr_cbufs = ctx->fb.nr_cbufs;
   k.samples = vagx_fb_samples(&ctx->fb);
   /* the stipple applies to filled polygons only, not to points and lines
    * (nor to polygons drawn in point/line mode) */
   const struct pipe_rasterizer_state *rs = &ctx->rast->base;
   k.poly_stipple = rs->poly_stipple_enable && u_reduced_prim(prim) == MESA_PRIM_TRIANGLES &&
                    rs->fill_front == PIPE_POLYGON_MODE_FILL &&
                    rs->fill_back == PIPE_POLYGON_MODE_FILL;
   for (unsigned i = 0; i < ctx->fb.nr_cbufs; i++)
      k.rt_format[i] = ctx->fb.cbufs[i] ? ctx->fb.cbufs[i]->format : VAGX_UNBOUND_RT_FORMAT;
   return k;
}

/* The draws of one draw_vbo call, emitted one cmd_draw at a time. */
struct draw_emit {
   const struct pipe_draw_info *info;
   const struct pipe_draw_indirect_info *indirect;
   unsigned drawid_offset;       /* gl_DrawID of the call's first draw */
   bool draw_ids;                /* the device has cmd_draw.draw_id (contract 1.9) */
   uint32_t draw_id_base;        /* cmd_draw_id_base's base for the next cmd_draw */
   const struct vagx_compiled_shader *vs, *fs;
   const struct vagx_compiled_shader *gs; /* NULL: no geometry shader */
   struct pipe_resource *ibuf;   /* index buffer (uploaded user indices) */
   unsigned ib_offset;           /* bytes: index 0 of the draws */
   uint64_t batch_seq;           /* vagx_batch.seq of the batch that has the state */
};

/* Everything a batch needs before its first cmd_draw of this call: the
 * state commands, the queries and stream output, the index and indirect
 * buffers marked read (after a split, the new batch gets all of it again). */
static bool
draw_begin_batch(struct vagx_context *ctx, struct draw_emit *e, struct vagx_batch *b)
{
   if (!vagx_emit_draw_state(ctx, b, e->vs, e->gs, e->fs))
      return false;
   vagx_batch_update_queries(ctx, b);
   if (!vagx_batch_update_so(ctx, b, e->gs ? e->gs : e->vs))
      return false;
   if (e->ibuf)
      vagx_batch_read(b, vagx_resource(e->ibuf));
   if (e->indirect)
      vagx_batch_read(b, vagx_resource(e->indirect->buffer));
   e->batch_seq = b->seq;
   return true;
}

/* Upper bound of what the state a draw may emit before it charges to the
 * job's geometry budget (draw_begin_batch, vagx_emit_draw_state): both
 * pipeline binds with their programs' first binding in the job, and the
 * three queries that can begin.  What the commands really charge is added
 * as they are emitted (vagx_batch_charge_bind, the query begins). */
static uint64_t
draw_state_bound(const struct draw_emit *e)
{
   const unsigned gs_words = e->gs ? e->gs->info.code_words + 2 : 0;
   return (e->gs ? 3 : 2) * VAGX_RENDER_GEOMETRY_BIND_COST +
          (uint64_t)(e->vs->info.code_words + e->fs->info.code_words + 4 + gs_words) *
             VAGX_RENDER_GEOMETRY_CODE_COST +
          3 * VAGX_RENDER_GEOMETRY_QUERY_COST;
}

/* One cmd_draw of `count` vertices x `instances` (for an indirect draw, the
 * values its arguments hold), in the current batch, or in a fresh one when
 * the batch is full or the draw and the state it may bind would take it
 * over the job's geometry budget (the bound is per draw, so only earlier
 * draws are split off: one draw over the budget on its own still fails). */
static bool
draw_emit_one(struct vagx_context *ctx, struct draw_emit *e, const struct vagx_cmd_draw *d,
              unsigned count, unsigned instances)
{
   uint64_t geometry = draw_geometry_bound(ctx, e->info->mode, count, instances,
                                           &(e->gs ? e->gs : e->vs)->info, &e->fs->info);
   struct vagx_batch *b = vagx_get_batch(ctx);
   if (b->draws &&
       (vagx_batch_is_full(b) ||
        b->geometry + geometry + draw_state_bound(e) > VAGX_RENDER_GEOMETRY_BUDGET)) {
      vagx_flush_batch(ctx, b);
      b = vagx_get_batch(ctx);
   }
   /* the state goes into every batch the call's draws go to (a flush can
    * also come from a dependency, and a new batch may reuse a slot) */
   if (e->batch_seq != b->seq && !draw_begin_batch(ctx, e, b)) {
      b->failed = true;
      return false;
   }
   b->geometry += geometry;
   if (b->draw_id_base != e->draw_id_base) {
      struct vagx_cmd_draw_id_base base;
      vagx_cmd_draw_id_base_init(&base);
      base.base = e->draw_id_base;
      vagx_cmd_draw_id_base_pack(vagx_cs_emit(b, VAGX_CMD_DRAW_ID_BASE_LENGTH), &base);
      b->draw_id_base = e->draw_id_base;
   }
   vagx_cmd_draw_pack(vagx_cs_emit(b, VAGX_CMD_DRAW_LENGTH), d);
   b->draws++;
   /* a draw that can write depth or stencil defines them again */
   if (ctx->zsa->writes_zs)
      b->zs_discard = false;
   if (ctx->zsa->stencil_enabled ||
       (ctx->fs->nir->info.outputs_written & BITFIELD64_BIT(FRAG_RESULT_STENCIL)))
      b->stencil_used = true;
   return true;
}

/* cmd_draw.draw_id (sr.draw_id, gl_DrawID) of the call's draw i: GL
 * numbers the draws of glMultiDraw* and glMultiDraw*Indirect from 0 (st
 * sets increment_draw_id for direct multi-draws; every record of an
 * indirect multi-draw has its index, which its arguments do not hold, so
 * the driver writes it into the record's cmd_draw).  The field has the low
 * bits, cmd_draw_id_base the rest (draw_emit_one emits it when it changes).
 * A device older than 1.9 has neither (the bits are reserved there, and
 * GL_ARB_shader_draw_parameters is not exposed): always 0. */
static void
draw_set_id(struct draw_emit *e, struct vagx_cmd_draw *d, unsigned i)
{
   const bool increment = e->indirect || e->info->increment_draw_id;
   const uint32_t id = e->draw_ids ? e->drawid_offset + (increment ? i : 0) : 0;
   d->draw_id = id & VAGX_MAX_DRAW_ID;
   e->draw_id_base = id & ~(uint32_t)VAGX_MAX_DRAW_ID;
}

/* cmd_draw fields every draw of the call shares */
static void
draw_template(const struct draw_emit *e, struct vagx_cmd_draw *d)
{
   const struct pipe_draw_info *info = e->info;
   vagx_cmd_draw_init(d);
   d->primitive = vagx_prim(info->mode);
   d->instance_count = info->instance_count;
   d->base_instance = info->start_instance;
   if (info->index_size) {
      struct vagx_resource *ib = vagx_resource(e->ibuf);
      d->index_va = ib->bo->va + e->ib_offset;
      d->index_buffer_size = ib->base.width0 - e->ib_offset;
      d->index_size = info->index_size == 1 ? VAGX_INDEX_SIZE_U8
                      : info->index_size == 2 ? VAGX_INDEX_SIZE_U16 : VAGX_INDEX_SIZE_U32;
      d->restart = info->primitive_restart;
      d->restart_index = info->restart_index;
   }
}

static void
draw_direct(struct vagx_context *ctx, struct draw_emit *e,
            const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   struct vagx_cmd_draw d;
   draw_template(e, &d);
   for (unsigned i = 0; i < num_draws; i++) {
      if (!draws[i].count)
         continue;
      d.count = draws[i].count;
      d.first = draws[i].start;
      if (e->info->index_size)
         d.base_vertex = draws[e->info->index_bias_varies ? i : 0].index_bias;
      draw_set_id(e, &d, i);
      if (!draw_emit_one(ctx, e, &d, d.count, d.instance_count))
         return;
   }
}

/* Indirect draws: the device reads count, instances, first, base vertex
 * and base instance at indirect_va (draw_indirect_args /
 * draw_indexed_indirect_args, GL's layouts).  The driver reads them too,
 * for the geometry budget only: after the batch writing the buffer (if
 * any) is flushed, memory holds what the device will read, since a CPU
 * write to the buffer waits for the batch that reads it. */
static void
draw_indirect(struct vagx_context *ctx, struct draw_emit *e)
{
   const struct pipe_draw_indirect_info *ind = e->indirect;
   struct vagx_resource *r = vagx_resource(ind->buffer);
   const unsigned size = e->info->index_size ? 20 : 16;
   const unsigned stride = ind->draw_count > 1 ? ind->stride : size;
   if (ind->offset + (uint64_t)(ind->draw_count - 1) * stride + size > r->base.width0 ||
       (ind->offset | stride) & 3) {
      /* GL checks both (INVALID_OPERATION / INVALID_VALUE) before here */
      fprintf(stderr, "vagx: indirect draw arguments outside their buffer, draw dropped\n");
      assert(!"indirect draw arguments outside their buffer");
      return;
   }
   vagx_flush_writer(ctx, r);
   /* the CPU reads the arguments (geometry budget) */
   vagx_bo_wait_idle(ctx->screen, r->bo, false);
   struct vagx_cmd_draw d;
   draw_template(e, &d);
   d.indirect = true;
   for (unsigned i = 0; i < ind->draw_count; i++) {
      const unsigned off = ind->offset + i * stride;
      uint32_t sparse_args[2];
      const uint32_t *args = sparse_args;
      if (r->bo->flags & VAGX_BO_SPARSE)
         vagx_sparse_read(r->bo, off, sparse_args, sizeof(sparse_args));
      else
         args = (const uint32_t *)((const uint8_t *)r->bo->map + off);
      d.indirect_va = r->bo->va + off;
      draw_set_id(e, &d, i);
      if (!draw_emit_one(ctx, e, &d, args[0], args[1]))
         return;
   }
}

/* The user indices of the draws, in one upload of the range they use:
 * index i of the array is at *offset + i * index_size in *buf (NULL when
 * no draw has vertices).  False when memory ran out. */
static bool
upload_user_indices(struct pipe_context *pctx, const struct pipe_draw_info *info,
                    const struct pipe_draw_start_count_bias *draws, unsigned num_draws,
                    struct pipe_resource **buf, unsigned *offset)
{
   unsigned lo = ~0u, hi = 0;
   for (unsigned i = 0; i < num_draws; i++) {
      if (draws[i].count) {
         lo = MIN2(lo, draws[i].start);
         hi = MAX2(hi, draws[i].start + draws[i].count);
      }
   }
   *buf = NULL;
   if (lo >= hi)
      return true;
   const struct pipe_draw_start_count_bias range = { .start = lo, .count = hi - lo };
   return util_upload_index_buffer(pctx, info, &range, buf, offset, 4);
}

/* A draw gallium hands over that the driver cannot encode: an error, never
 * a silent no-op (st never makes these with the caps vagx_screen.c sets). */
static void
draw_unsupported(const char *why)
{
   fprintf(stderr, "vagx: draw dropped: %s\n", why);
   assert(!"draw the driver cannot encode");
}

/* Whether the bound geometry shader selects layers or viewports that the
 * bound framebuffer has: a surface of more than one layer (GL's layered
 * attachment) with gl_Layer or gl_ViewportIndex written. */
static bool
gs_selects_layer(const struct vagx_context *ctx)
{
   if (!(ctx->gs->nir->info.outputs_written & (VARYING_BIT_LAYER | VARYING_BIT_VIEWPORT)))
      return false;
   const struct pipe_framebuffer_state *fb = &ctx->fb;
   for (unsigned i = 0; i < fb->nr_cbufs; i++)
      if (fb->cbufs[i] && fb->cbufs[i]->u.tex.first_layer != fb->cbufs[i]->u.tex.last_layer)
         return true;
   return fb->zsbuf && fb->zsbuf->u.tex.first_layer != fb->zsbuf->u.tex.last_layer;
}

static void
draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info, unsigned drawid_offset,
         const struct pipe_draw_indirect_info *indirect,
         const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   struct vagx_context *ctx = vagx_context(pctx);
   if (indirect && indirect->count_from_stream_output) {
      vagx_draw_from_so(pctx, info, drawid_offset, indirect->count_from_stream_output);
      return;
   }
   if (!ctx->vs || !ctx->fs || !ctx->rast || !ctx->zsa || !ctx->vtx) {
      draw_unsupported("shaders or state not bound");
      return;
   }
   if (indirect && indirect->indirect_draw_count) {
      /* ARB_indirect_parameters: the contract has no draw count in memory
       * (multi_draw_indirect_params is off) */
      draw_unsupported("draw count from a buffer");
      return;
   }
   if (indirect && info->index_size && info->has_user_indices) {
      draw_unsupported("indirect draw of user indices");
      return;
   }
   /* (an indirect draw's instance count is in memory) */
   if (indirect ? !indirect->draw_count : !info->instance_count)
      return;
   if (!vagx_render_condition_passes(ctx))
      return;
   struct vagx_batch *b = vagx_get_batch(ctx);
   /* the variants depend on the shaders, the vertex elements, the blend
    * CSO, the framebuffer and, for the stipple, on whether the draw fills
    * triangles: looked up again only when one of those changed */
   /* with a geometry shader its output primitives are rasterised */
   const enum mesa_prim raster_prim = ctx->gs ? ctx->gs->nir->info.gs.output_primitive : info->mode;
   const bool tri = u_reduced_prim(raster_prim) == MESA_PRIM_TRIANGLES;
   if (ctx->dirty & VAGX_DIRTY_VS_VARIANT) {
      ctx->vs_variant = vagx_get_variant(ctx, ctx->vs, NULL);
      ctx->dirty &= ~VAGX_DIRTY_VS_VARIANT;
   }
   if (ctx->dirty & VAGX_DIRTY_GS_VARIANT) {
      ctx->gs_variant = ctx->gs ? vagx_get_variant(ctx, ctx->gs, NULL) : NULL;
      ctx->dirty &= ~VAGX_DIRTY_GS_VARIANT;
   }
   if ((ctx->dirty & VAGX_DIRTY_FS_VARIANT) || tri != ctx->variant_tri) {
      struct vagx_fs_key key = fs_key(ctx, raster_prim);
      ctx->fs_variant = vagx_get_variant(ctx, ctx->fs, &key);
      ctx->variant_tri = tri;
      ctx->dirty &= ~VAGX_DIRTY_FS_VARIANT;
   }
   struct draw_emit e = { .info = info, .indirect = indirect, .drawid_offset = drawid_offset,
                          .draw_ids = vagx_contract_at_least(ctx->screen, 1, 9) };
   e.vs = ctx->vs_variant;
   e.fs = ctx->fs_variant;
   e.gs = ctx->gs_variant;
   if (!e.vs || !e.fs || !e.vs->ok || !e.fs->ok || (ctx->gs && (!e.gs || !e.gs->ok))) {
      /* the compile error was printed when the variant was made */
      b->failed = true;
      return;
   }
   if (ctx->gs && gs_selects_layer(ctx)) {
      /* the device renders one layer per job (no layer output in the
       * contract): a geometry shader's gl_Layer / gl_ViewportIndex cannot
       * be honoured on a layered framebuffer (on any other GL ignores
       * them), so the draw fails visibly instead of drawing every
       * primitive into the first layer */
      fprintf(stderr, "vagx: geometry shader writes gl_Layer or gl_ViewportIndex to a layered "
                      "framebuffer: layered rendering is not supported, draw dropped\n");
      b->failed = true;
      return;
   }
   if (info->index_size) {
      /* user index arrays go through the stream uploader (any size; the
       * batch keeps the upload buffer's BO alive) */
      if (info->has_user_indices) {
         if (!upload_user_indices(pctx, info, draws, num_draws, &e.ibuf, &e.ib_offset)) {
            b->failed = true;
            return;
         }
         if (!e.ibuf)
            return; /* no draw has vertices */
      } else {
         pipe_resource_reference(&e.ibuf, info->index.resource);
      }
   }
   if (indirect)
      draw_indirect(ctx, &e);
   else
      draw_direct(ctx, &e, draws, num_draws);
   pipe_resource_reference(&e.ibuf, NULL);
}

static void
vagx_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
              unsigned drawid_offset, const struct pipe_draw_indirect_info *indirect,
              const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   draw_vbo(pctx, info, drawid_offset, indirect, draws, num_draws);
   /* the caller's reference to the index buffer is ours to drop, once per
    * call (u_threaded_context) */
   if (info->take_index_buffer_ownership && info->index_size && !info->has_user_indices) {
      struct pipe_resource *ib = info->index.resource;
      pipe_resource_reference(&ib, NULL);
   }
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
   if (buffers & PIPE_CLEAR_DEPTHSTENCIL)
      b->zs_discard = false;
   b->clear_depth = depth;
   b->clear_stencil = stencil;
}

void
vagx_init_draw_functions(struct pipe_context *pctx)
{
   pctx->draw_vbo = vagx_draw_vbo;
   pctx->clear = vagx_clear;
}
