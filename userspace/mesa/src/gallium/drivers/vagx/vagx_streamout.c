/* SPDX-License-Identifier: MIT */
/* Stream output (transform feedback) through the device (contract 1.2,
 * docs/hw/render.md): targets keep their write offset in a BO the device
 * updates (cmd_stream_out_buffer.offset_va), the vertex shader's captured
 * outputs become stream_out_decl runs, glDrawTransformFeedback reads the
 * offset back. */
#include <string.h>
#include "util/bitscan.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "compiler/nir/nir_xfb_info.h"
#include "vagx_context.h"
#include "vagx_hw.h"

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

/* The last vertex stage's stream output (the geometry shader's when one
 * is bound: the device captures its output primitives) as hardware
 * declarations: each captured component becomes (output word, buffer,
 * dword), with the words the compiler assigned (vagx_vs_output_word: a
 * geometry program's output layout has the vertex shader's order).
 * Strides in bytes per buffer. */
static unsigned
so_decls(struct vagx_context *ctx, const struct vagx_shader_info *vi, uint32_t *decl,
         unsigned *stride)
{
   const struct vagx_uncompiled_shader *vs = vagx_last_vertex_stage(ctx);
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
 * or an earlier job; vagx_batch_write flushes another batch that writes the
 * buffer first, so appends follow the API order). */
bool
vagx_batch_update_so(struct vagx_context *ctx, struct vagx_batch *b,
                const struct vagx_compiled_shader *vs)
{
   const struct vagx_uncompiled_shader *last = vagx_last_vertex_stage(ctx);
   const bool want = ctx->so_num && vs_has_so(last);
   if (!want) {
      if (b->so_on) {
         struct vagx_cmd_stream_out so;
         vagx_cmd_stream_out_init(&so);
         vagx_cmd_stream_out_pack(vagx_cs_emit(b, VAGX_CMD_STREAM_OUT_LENGTH), &so);
         b->so_on = false;
      }
      return true;
   }
   if (b->so_on && b->so_gen == ctx->so_gen && b->so_vs == last)
      return true;
   uint32_t *decl;
   unsigned stride[PIPE_MAX_SO_BUFFERS];
   uint64_t decl_va = vagx_batch_alloc(b, VAGX_MAX_STREAM_OUT_DECLS * 4, 4, (void **)&decl);
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
      vagx_batch_write(b, r);
      if (b->so_res[i] != &r->base)
         pipe_resource_reference(&b->so_res[i], &r->base);
      vagx_batch_add_bo_write(b, t->offset_bo);
      struct vagx_cmd_stream_out_buffer sb;
      vagx_cmd_stream_out_buffer_init(&sb);
      sb.index = i;
      sb.base_va = r->bo->va + t->base.buffer_offset;
      sb.size = t->base.buffer_size & ~3u;
      sb.stride = stride[i];
      sb.append = !t->reset;
      sb.offset = t->reset ? t->reset_offset & ~3u : 0;
      sb.offset_va = t->offset_bo->va;
      vagx_cmd_stream_out_buffer_pack(vagx_cs_emit(b, VAGX_CMD_STREAM_OUT_BUFFER_LENGTH), &sb);
      t->reset = false;
      t->stride = stride[i];
   }
   struct vagx_cmd_stream_out so;
   vagx_cmd_stream_out_init(&so);
   so.enable = true;
   so.decl_count = n;
   so.decls_va = n ? decl_va : 0;
   vagx_cmd_stream_out_pack(vagx_cs_emit(b, VAGX_CMD_STREAM_OUT_LENGTH), &so);
   b->so_on = true;
   b->so_gen = ctx->so_gen;
   b->so_vs = last;
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
   t->offset_bo = vagx_screen_bo_create(ctx->screen, 8, "stream-out offset");
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
void
vagx_draw_from_so(struct pipe_context *pctx, const struct pipe_draw_info *info,
                  unsigned drawid_offset, struct pipe_stream_output_target *target)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_so_target *t = (struct vagx_so_target *)target;
   vagx_flush_writer(ctx, vagx_resource(t->base.buffer));
   vagx_bo_wait_idle(ctx->screen, t->offset_bo, false);
   uint32_t offset;
   memcpy(&offset, t->offset_bo->map, 4);
   struct pipe_draw_start_count_bias d = { 0 };
   d.count = t->stride ? offset / t->stride : 0;
   pctx->draw_vbo(pctx, info, drawid_offset, NULL, &d, 1);
}

void
vagx_init_streamout_functions(struct pipe_context *pctx)
{
   pctx->create_stream_output_target = vagx_create_stream_output_target;
   pctx->stream_output_target_destroy = vagx_stream_output_target_destroy;
   pctx->set_stream_output_targets = vagx_set_stream_output_targets;
}
