/* SPDX-License-Identifier: MIT */
/* Queries: occlusion and primitives generated / emitted count in hardware
 * (cmd_query_begin/end in the control stream of every batch that draws
 * while the query is active; the counter adds to the query's u64, so
 * several batches accumulate), timestamps read the device counter after a
 * flush; conditional rendering on their results. */
#include <stdio.h>
#include <string.h>
#include "util/bitscan.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "vagx_context.h"
#include "vagx_hw.h"

/* Query results are suballocated (u_suballoc) from 16 KiB buffers, the
 * smallest BO: 2048 queries to a BO instead of one BO each.  A slot is
 * never reused while its query lives; a reset of a query that jobs have
 * written moves it to a fresh slot instead of waiting for them. */
#define VAGX_QUERY_SLAB_SIZE (16 * 1024)

void
vagx_query_slab_init(struct vagx_context *ctx)
{
   u_suballocator_init(&ctx->query_slab, &ctx->base, VAGX_QUERY_SLAB_SIZE, 0,
                       PIPE_USAGE_STAGING, 0, false);
}

static struct vagx_bo *
query_bo(const struct vagx_query *q)
{
   return vagx_resource(q->res)->bo;
}

static uint64_t *
query_result(const struct vagx_query *q)
{
   return (uint64_t *)((uint8_t *)query_bo(q)->map + q->offset);
}

/* A fresh slot, zeroed: no job has used it (a new slab comes from idle
 * memory, vagx_bo_cache.c) */
static bool
query_alloc_slot(struct vagx_context *ctx, struct vagx_query *q)
{
   pipe_resource_reference(&q->res, NULL);
   u_suballocator_alloc(&ctx->query_slab, 8, 8, &q->offset, &q->res);
   if (!q->res)
      return false;
   *query_result(q) = 0;
   return true;
}

static struct pipe_query *
vagx_create_query(struct pipe_context *pctx, unsigned type, unsigned index)
{
   struct vagx_context *ctx = vagx_context(pctx);
   switch (type) {
   case PIPE_QUERY_OCCLUSION_COUNTER:
   case PIPE_QUERY_OCCLUSION_PREDICATE:
   case PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE:
   case PIPE_QUERY_TIMESTAMP:
   case PIPE_QUERY_TIME_ELAPSED:
      break;
   case PIPE_QUERY_PRIMITIVES_GENERATED:
   case PIPE_QUERY_PRIMITIVES_EMITTED:
      /* cmd_query_begin PRIMITIVES_*: vertex stream 0 only (no geometry
       * shaders) */
      if (index)
         return NULL;
      break;
   default:
      /* the caps expose no other query type */
      return NULL;
   }
   struct vagx_query *q = CALLOC_STRUCT(vagx_query);
   if (!q)
      return NULL;
   q->type = type;
   if (type != PIPE_QUERY_TIMESTAMP && type != PIPE_QUERY_TIME_ELAPSED &&
       !query_alloc_slot(ctx, q)) {
      FREE(q);
      return NULL;
   }
   return (struct pipe_query *)q;
}

/* submit every pending batch whose control stream writes the query's result */
static void
query_flush_writers(struct vagx_context *ctx, struct vagx_query *q)
{
   u_foreach_bit(i, q->batch_mask)
      vagx_flush_batch(ctx, &ctx->batches[i]);
   q->batch_mask = 0;
}

/* The result is reset by the CPU: in a fresh slot when jobs have written
 * the current one (or, without memory for one, after those jobs) */
static void
query_reset(struct vagx_context *ctx, struct vagx_query *q)
{
   query_flush_writers(ctx, q);
   if (q->in_job && !query_alloc_slot(ctx, q)) {
      fprintf(stderr, "vagx: no memory for a query slot: waiting for the old one\n");
      vagx_bo_wait_idle(ctx->screen, query_bo(q), true);
   }
   if (q->res)
      *query_result(q) = 0;
   q->in_job = false;
}

/* Every submitted job of the context has completed: the device counter
 * read next is the time of their end */
static void
wait_context_idle(struct vagx_context *ctx)
{
   vagx_flush_all(ctx);
   vagx_screen_wait_seq(ctx->screen, ctx->last_seq, INT64_MAX);
}

/* The device's time once every job the context submitted has completed:
 * the start or end of a time query */
static uint64_t
idle_timestamp(struct vagx_context *ctx)
{
   wait_context_idle(ctx);
   return ctx->base.screen->get_timestamp(ctx->base.screen);
}

/* end the query in the control stream of every batch that has it begun */
static void
query_end_in_batches(struct vagx_context *ctx, struct vagx_query *q)
{
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      struct vagx_batch *b = &ctx->batches[i];
      if (b->active && (b->query == q || b->prim_query[0] == q || b->prim_query[1] == q))
         vagx_batch_end_query(b);
   }
}

/* The context's slot for the active query of q's kind: draws begin the
 * query of each slot in their batch's control stream (vagx_draw.c).  One
 * occlusion-like query and one of each primitive counter are active at a
 * time. */
static struct vagx_query **
query_active_slot(struct vagx_context *ctx, struct vagx_query *q)
{
   if (q->type == PIPE_QUERY_PRIMITIVES_GENERATED || q->type == PIPE_QUERY_PRIMITIVES_EMITTED)
      return &ctx->prim_query[q->type == PIPE_QUERY_PRIMITIVES_EMITTED];
   return &ctx->occlusion;
}

/* q becomes the active query of *slot, ending the one it replaces; earlier
 * uses of this query object must land before the reset. */
static void
query_activate(struct vagx_context *ctx, struct vagx_query **slot, struct vagx_query *q)
{
   query_reset(ctx, q);
   if (*slot && *slot != q)
      query_end_in_batches(ctx, *slot);
   *slot = q;
}

/* q stops being the active query of *slot, if it was. */
static void
query_deactivate(struct vagx_context *ctx, struct vagx_query **slot, struct vagx_query *q)
{
   if (*slot == q) {
      query_end_in_batches(ctx, q);
      *slot = NULL;
   }
}

static void
vagx_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_query *q = (struct vagx_query *)pq;
   query_deactivate(ctx, &ctx->occlusion, q);
   for (unsigned k = 0; k < 2; k++)
      query_deactivate(ctx, &ctx->prim_query[k], q);
   if (ctx->cond_query == q)
      ctx->cond_query = NULL;
   /* batches reference the BO, so it outlives pending control streams */
   pipe_resource_reference(&q->res, NULL);
   FREE(q);
}

static bool
vagx_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_query *q = (struct vagx_query *)pq;
   if (q->type == PIPE_QUERY_TIME_ELAPSED)
      q->start = idle_timestamp(ctx);
   else if (q->type != PIPE_QUERY_TIMESTAMP)
      query_activate(ctx, query_active_slot(ctx, q), q);
   return true;
}

static bool
vagx_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_query *q = (struct vagx_query *)pq;
   if (q->type == PIPE_QUERY_TIME_ELAPSED || q->type == PIPE_QUERY_TIMESTAMP)
      q->end = idle_timestamp(ctx);
   else
      query_deactivate(ctx, query_active_slot(ctx, q), q);
   return true;
}

static bool
vagx_get_query_result(struct pipe_context *pctx, struct pipe_query *pq, bool wait,
                      union pipe_query_result *result)
{
   struct vagx_context *ctx = vagx_context(pctx);
   struct vagx_query *q = (struct vagx_query *)pq;
   switch (q->type) {
   case PIPE_QUERY_TIME_ELAPSED:
      result->u64 = q->end - q->start;
      return true;
   case PIPE_QUERY_TIMESTAMP:
      result->u64 = q->end;
      return true;
   default: {
      /* the jobs writing the result: submitted, then done (or, without
       * wait, no result yet) */
      query_flush_writers(ctx, q);
      uint64_t seq;
      if (q->in_job) {
         simple_mtx_lock(&ctx->screen->submit_lock);
         /* the slab's last write: the query's, or a later one */
         seq = query_bo(q)->last_write_seq;
         simple_mtx_unlock(&ctx->screen->submit_lock);
      } else {
         /* no job counts for it (no draw while it was active): its result,
          * 0, is there at once, but results become available in order
          * (piglit occlusion_query_order), after the context's earlier work */
         vagx_flush_all(ctx);
         seq = ctx->last_seq;
      }
      if (!vagx_screen_wait_seq(ctx->screen, seq, wait ? INT64_MAX : 0))
         return false;
      uint64_t v;
      memcpy(&v, query_result(q), 8);
      if (q->type == PIPE_QUERY_OCCLUSION_COUNTER || q->type == PIPE_QUERY_PRIMITIVES_GENERATED ||
          q->type == PIPE_QUERY_PRIMITIVES_EMITTED)
         result->u64 = v;
      else
         result->b = v != 0;
      return true;
   }
   }
}

static void
vagx_set_active_query_state(struct pipe_context *pctx, bool enable)
{
   /* false while util_blitter draws: those draws must not count */
   vagx_context(pctx)->queries_paused = !enable;
}

static void
vagx_render_condition(struct pipe_context *pctx, struct pipe_query *pq, bool condition,
                      enum pipe_render_cond_flag mode)
{
   struct vagx_context *ctx = vagx_context(pctx);
   ctx->cond_query = (struct vagx_query *)pq;
   ctx->cond_cond = condition;
   ctx->cond_mode = mode;
}

/* Whether draws and clears run under the current render condition.  Results
 * are always available after a flush, so the WAIT and NO_WAIT modes behave
 * alike (both are allowed to wait). */
bool
vagx_render_condition_passes(struct vagx_context *ctx)
{
   if (!ctx->cond_query)
      return true;
   union pipe_query_result r;
   if (!vagx_get_query_result(&ctx->base, (struct pipe_query *)ctx->cond_query, true, &r))
      return true;
   bool v = ctx->cond_query->type == PIPE_QUERY_OCCLUSION_COUNTER ? r.u64 != 0 : r.b;
   return v != ctx->cond_cond;
}

/* The device's query type of batch slot prim_query[k] */
static unsigned
prim_query_type(unsigned k)
{
   return k ? VAGX_QUERY_TYPE_PRIMITIVES_EMITTED : VAGX_QUERY_TYPE_PRIMITIVES_GENERATED;
}

/* cmd_query_end of the query of `type` in b's control stream */
static void
batch_end_query_type(struct vagx_batch *b, unsigned type)
{
   struct vagx_cmd_query_end qe;
   vagx_cmd_query_end_init(&qe);
   qe.type = type;
   vagx_cmd_query_end_pack(vagx_cs_emit(b, VAGX_CMD_QUERY_END_LENGTH), &qe);
}

/* cmd_query_begin of q as the device's query `type` in b's control stream,
 * charged to the job's geometry budget; q's BO is written by b's job */
static void
batch_begin_query(struct vagx_batch *b, unsigned type, struct vagx_query *q)
{
   struct vagx_cmd_query_begin qb;
   vagx_cmd_query_begin_init(&qb);
   qb.type = type;
   qb.result_va = query_bo(q)->va + q->offset;
   vagx_cmd_query_begin_pack(vagx_cs_emit(b, VAGX_CMD_QUERY_BEGIN_LENGTH), &qb);
   b->geometry += VAGX_RENDER_GEOMETRY_QUERY_COST;
   vagx_batch_add_bo_write(b, query_bo(q));
   q->batch_mask |= 1u << b->idx;
   q->in_job = true;
}

/* Ends every query begun in the control stream (occlusion, primitives
 * generated / emitted); a later draw begins the ones still active again and
 * the counters accumulate in their u64. */
void
vagx_batch_end_query(struct vagx_batch *b)
{
   if (b->query) {
      vagx_cmd_query_end_pack(vagx_cs_emit(b, VAGX_CMD_QUERY_END_LENGTH),
                              &(struct vagx_cmd_query_end){ 0 });
      b->query = NULL;
   }
   for (unsigned k = 0; k < 2; k++) {
      if (!b->prim_query[k])
         continue;
      batch_end_query_type(b, prim_query_type(k));
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
      if (b->prim_query[k])
         batch_end_query_type(b, prim_query_type(k));
      b->prim_query[k] = want;
      if (want)
         batch_begin_query(b, prim_query_type(k), want);
   }
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
   batch_begin_query(b,
                     want->type == PIPE_QUERY_OCCLUSION_COUNTER
                        ? VAGX_QUERY_TYPE_OCCLUSION_COUNTER
                        : VAGX_QUERY_TYPE_OCCLUSION_PREDICATE,
                     want);
   b->query = want;
}

void
vagx_batch_update_queries(struct vagx_context *ctx, struct vagx_batch *b)
{
   batch_update_query(ctx, b);
   batch_update_prim_queries(ctx, b);
}

void
vagx_init_query_functions(struct pipe_context *pctx)
{
   pctx->create_query = vagx_create_query;
   pctx->destroy_query = vagx_destroy_query;
   pctx->begin_query = vagx_begin_query;
   pctx->end_query = vagx_end_query;
   pctx->get_query_result = vagx_get_query_result;
   pctx->set_active_query_state = vagx_set_active_query_state;
   pctx->render_condition = vagx_render_condition;
}
