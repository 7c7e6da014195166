/* SPDX-License-Identifier: MIT */
/*
 * Compute (issue 19): launch_grid on the device's compute queue, shader
 * buffers (SSBOs, and the atomic counter buffers st lowers to them) for
 * the vertex, fragment and compute stages, memory barriers.
 *
 * A dispatch is one compute job (docs/hw/compute.md) built in a batch of
 * its own (vagx_compute_batch_begin: uniforms, descriptors, the shader
 * buffer table and the job in its chunks) and submitted at once.  Encoding
 * its state flushes the render batches it depends on (a batch writing a
 * buffer or texture the dispatch reads, or reading or writing a buffer it
 * writes: vagx_batch_read / vagx_batch_write), so jobs reach the device in
 * API order; the compute and render queues are ordered with each other by
 * the screen's timeline (vagx_screen_submit: a job waits on the device for
 * the previous point when that was the other queue's), never by the CPU.
 * Indirect dispatches set compute_job.indirect: the device reads the grid
 * from the buffer when the job starts, after the jobs before it.
 */
#include <stdio.h>
#include <string.h>
#include "util/u_inlines.h"
#include "util/u_math.h"
#include "vagx_context.h"
#include "vagx_hw.h"

void
vagx_ssbo_bind(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
               unsigned i, bool writes, uint64_t *va, uint32_t *size)
{
   const struct pipe_shader_buffer *sb = i < PIPE_MAX_SHADER_BUFFERS ? &ctx->ssbo[stage][i] : NULL;
   if (sb && sb->buffer) {
      struct vagx_resource *r = vagx_resource(sb->buffer);
      if (writes)
         vagx_batch_write(b, r);
      else
         vagx_batch_read(b, r);
      *va = r->bo->va + sb->buffer_offset;
      *size = MIN2(sb->buffer_size, VAGX_MAX_SHADER_BUFFER_SIZE);
      return;
   }
   /* unbound: size 0, so every access goes to offset 0 of a buffer of
    * ours (a load of up to 16 bytes reads it, a store is lost in it) */
   *va = vagx_null_buffer_va(ctx, b);
   *size = 0;
}

uint64_t
vagx_null_buffer_va(struct vagx_context *ctx, struct vagx_batch *b)
{
   if (!ctx->null_ssbo)
      ctx->null_ssbo = vagx_screen_bo_create(ctx->screen, VAGX_NULL_BUFFER_SIZE, "null shader buffer");
   if (!ctx->null_ssbo)
      return 0;
   vagx_batch_add_bo(b, ctx->null_ssbo);
   return ctx->null_ssbo->va;
}

static void
vagx_set_shader_buffers(struct pipe_context *pctx, enum pipe_shader_type shader, unsigned start,
                        unsigned count, const struct pipe_shader_buffer *buffers,
                        unsigned writable_bitmask)
{
   struct vagx_context *ctx = vagx_context(pctx);
   for (unsigned i = 0; i < count && start + i < PIPE_MAX_SHADER_BUFFERS; i++) {
      struct pipe_shader_buffer *dst = &ctx->ssbo[shader][start + i];
      if (buffers && buffers[i].buffer) {
         pipe_resource_reference(&dst->buffer, buffers[i].buffer);
         dst->buffer_offset = buffers[i].buffer_offset;
         dst->buffer_size = buffers[i].buffer_size;
      } else {
         pipe_resource_reference(&dst->buffer, NULL);
         memset(dst, 0, sizeof(*dst));
      }
   }
   const uint32_t mask = BITFIELD_RANGE(start, MIN2(count, PIPE_MAX_SHADER_BUFFERS - start));
   ctx->ssbo_writable[shader] =
      (ctx->ssbo_writable[shader] & ~mask) | ((writable_bitmask << start) & mask);
   /* the buffers' addresses are in the pipelines' uniforms */
   if (shader == PIPE_SHADER_VERTEX)
      ctx->dirty |= VAGX_DIRTY_VS;
   else if (shader == PIPE_SHADER_FRAGMENT)
      ctx->dirty |= VAGX_DIRTY_FS;
}

/* VAGX_DEBUG=trace: the compute job */
static void
trace_job(const struct vagx_compute_job *job)
{
   fprintf(stderr, "COMPUTE_JOB\n");
   vagx_compute_job_print(vagx_print_file, stderr, job, 1);
}

static void
vagx_launch_grid(struct pipe_context *pctx, const struct pipe_grid_info *info)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_uncompiled_shader *so = ctx->cs;
   if (!so) {
      fprintf(stderr, "vagx: dispatch dropped: no compute shader bound\n");
      return;
   }
   if (!info->indirect && (!info->grid[0] || !info->grid[1] || !info->grid[2]))
      return;
   const struct vagx_fs_key key = { 0 };
   struct vagx_compiled_shader *v = vagx_get_variant(ctx, so, &key);
   if (!v || !v->ok) {
      fprintf(stderr, "vagx: dispatch dropped: the compute shader did not compile (%s)\n",
              so->error ? so->error : "out of memory");
      return;
   }
   const unsigned shared = ALIGN(so->nir->info.shared_size + info->variable_shared_mem, 16);
   const unsigned threads = info->block[0] * info->block[1] * info->block[2];
   if (shared > VAGX_MAX_SHARED_SIZE || !threads || threads > VAGX_MAX_THREADGROUP_SIZE) {
      fprintf(stderr, "vagx: dispatch dropped: %u bytes of shared memory, %ux%ux%u threads\n",
              shared, info->block[0], info->block[1], info->block[2]);
      return;
   }

   struct vagx_batch *b = vagx_compute_batch_begin(ctx);
   struct vagx_compute_job job;
   vagx_compute_job_init(&job);
   uint32_t push[VAGX_MAX_PUSH];
   vagx_fill_push(ctx, b, &v->info, PIPE_SHADER_COMPUTE, push);
   bool ok = vagx_program_for(ctx, b, &v->info, v->bo, push, &job.program, PIPE_SHADER_COMPUTE, -1);
   job.tg_x = info->block[0];
   job.tg_y = info->block[1];
   job.tg_z = info->block[2];
   job.shared_size = shared;
   if (info->indirect) {
      /* the device reads the grid when the job starts: a job writing it
       * was submitted before (the flush of its batch, if pending) */
      struct vagx_resource *r = vagx_resource(info->indirect);
      vagx_batch_read(b, r);
      job.indirect = 1;
      job.indirect_va = r->bo->va + info->indirect_offset;
   } else {
      job.grid_x = info->grid[0];
      job.grid_y = info->grid[1];
      job.grid_z = info->grid[2];
   }
   uint32_t *jd = NULL;
   uint64_t jva = ok ? vagx_batch_alloc(b, VAGX_COMPUTE_JOB_LENGTH, 64, (void **)&jd) : 0;
   if (jd) {
      vagx_compute_job_pack(jd, &job);
      if (ctx->screen->debug & VAGX_DBG_TRACE)
         trace_job(&job);
   }
   if (!vagx_compute_batch_submit(ctx, b, jd ? jva : 0))
      fprintf(stderr, "vagx: compute job failed; results are undefined\n");
   ctx->computed = true;
}

/* Render batches whose shaders stored to buffers or did atomics are
 * submitted (asahi's rule): within a render job every vertex shader runs
 * before any fragment shader, so a draw after the barrier reading what an
 * earlier fragment shader wrote must be in a later job.  Dispatches are
 * submitted at once and ordered by the queues. */
static void
vagx_memory_barrier(struct pipe_context *pctx, unsigned flags)
{
   struct vagx_context *ctx = vagx_context(pctx);
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++)
      if (ctx->batches[i].active && ctx->batches[i].incoherent_writes)
         vagx_flush_batch(ctx, &ctx->batches[i]);
}

void
vagx_compute_fini(struct vagx_context *ctx)
{
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++)
      for (unsigned i = 0; i < PIPE_MAX_SHADER_BUFFERS; i++)
         pipe_resource_reference(&ctx->ssbo[s][i].buffer, NULL);
   if (ctx->null_ssbo)
      vagx_bo_unreference(ctx->null_ssbo);
   ctx->null_ssbo = NULL;
}

void
vagx_init_compute_functions(struct pipe_context *pctx)
{
   struct vagx_context *ctx = vagx_context(pctx);
   ctx->compute_batch.ctx = ctx;
   ctx->compute_batch.idx = VAGX_MAX_BATCHES;
   pctx->launch_grid = vagx_launch_grid;
   pctx->set_shader_buffers = vagx_set_shader_buffers;
   pctx->memory_barrier = vagx_memory_barrier;
}
