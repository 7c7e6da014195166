/* SPDX-License-Identifier: MIT */
/* Batches: one per framebuffer (asahi/panfrost style), with reader/writer
 * tracking between the batches of a context, their memory (command-stream
 * and data chunks from a per-context pool) and the render job that submits
 * one. */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "util/bitscan.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/bitset.h"
#include "vagx_context.h"
#include "vagx_hw.h"

/* A batch that has taken this much chunk memory is submitted before its
 * next draw: bounds what a frame of many draws holds (draws are never split
 * by it, a chained command stream has no size limit of its own). */
#define VAGX_BATCH_MAX_BYTES (8 * 1024 * 1024)
/* Chunks a context keeps for reuse (beyond them, completed batches free theirs) */
#define VAGX_CHUNK_POOL_MAX 64

/* What the job's own two programs (background, end of tile) may charge to
 * its geometry budget: a bind each and their decoded form, up to this many
 * code words each (checked at submit; they load or store 8 render targets
 * in a few dozen) */
#define VAGX_BG_EOT_MAX_WORDS 256
#define VAGX_BG_EOT_GEOMETRY                                                                   \
   (2 * (VAGX_RENDER_GEOMETRY_BIND_COST +                                                      \
         (uint64_t)(VAGX_BG_EOT_MAX_WORDS + 2) * VAGX_RENDER_GEOMETRY_CODE_COST))

/* A cmd_end closes the command stream in the room a cmd_jump would take */
static_assert(VAGX_CMD_END_LENGTH <= VAGX_CMD_JUMP_LENGTH, "cmd_end fits a chunk's tail");

/* Adds bo to a batch's set of BOs, a bitset indexed by GEM handle (GEM
 * handles are small, and one BO has one handle per DRM file); false when
 * it was in the set already.  Without memory to grow the bitset, the list
 * it stands for is searched instead. */
static bool
bo_set_add(struct util_dynarray *set, const struct util_dynarray *list, const struct vagx_bo *bo)
{
   const unsigned word = bo->handle / BITSET_WORDBITS;
   const unsigned have = util_dynarray_num_elements(set, BITSET_WORD);
   if (word >= have) {
      const unsigned grow = MAX2(word + 1, 2 * have) - have;
      BITSET_WORD *added = util_dynarray_grow(set, BITSET_WORD, grow);
      if (!added) {
         util_dynarray_foreach(list, struct vagx_bo *, it)
            if (*it == bo)
               return false;
         return true;
      }
      memset(added, 0, grow * sizeof(BITSET_WORD));
   }
   BITSET_WORD *bits = util_dynarray_begin(set);
   if (BITSET_TEST(bits, bo->handle))
      return false;
   BITSET_SET(bits, bo->handle);
   return true;
}

void
vagx_batch_add_bo(struct vagx_batch *b, struct vagx_bo *bo)
{
   if (!bo_set_add(&b->bo_set, &b->bos, bo))
      return;
   vagx_bo_reference(bo);
   util_dynarray_append(&b->bos, struct vagx_bo *, bo);
}

/* A BO the job writes: a CPU read must wait for this batch's submit */
void
vagx_batch_add_bo_write(struct vagx_batch *b, struct vagx_bo *bo)
{
   vagx_batch_add_bo(b, bo);
   if (bo_set_add(&b->write_set, &b->writes, bo))
      util_dynarray_append(&b->writes, struct vagx_bo *, bo);
}

/* A chunk of at least `size` bytes for the batch, from the context's pool
 * when it is a standard one.  A chunk is back in the pool only once the job
 * of the batch that used it has completed (vagx_context_retire). */
static struct vagx_chunk *
batch_new_chunk(struct vagx_batch *b, struct util_dynarray *list, unsigned size)
{
   struct vagx_context *ctx = b->ctx;
   struct vagx_bo *bo = NULL;
   if (size <= VAGX_CHUNK_SIZE && util_dynarray_num_elements(&ctx->chunk_pool, struct vagx_bo *))
      bo = util_dynarray_pop(&ctx->chunk_pool, struct vagx_bo *);
   else
      bo = vagx_screen_bo_create(ctx->screen, MAX2(size, VAGX_CHUNK_SIZE), "batch chunk");
   if (!bo)
      return NULL;
   /* the submit's BO list holds a second reference (a new chunk cannot be
    * in it yet) */
   vagx_batch_add_bo(b, bo);
   b->chunk_bytes += bo->size;
   struct vagx_chunk c = { .bo = bo, .used = 0 };
   util_dynarray_append(list, struct vagx_chunk, c);
   return util_dynarray_top_ptr(list, struct vagx_chunk);
}

static struct vagx_chunk *
last_chunk(struct util_dynarray *list)
{
   return util_dynarray_num_elements(list, struct vagx_chunk)
             ? util_dynarray_top_ptr(list, struct vagx_chunk)
             : NULL;
}

/* Descriptor, uniform and shader data: from the current data chunk, or a
 * new one (a dedicated one when larger than a chunk, e.g. a big constant
 * buffer copied for ld_global).  Chunks are page aligned, so the offset
 * alignment is the address alignment. */
uint64_t
vagx_batch_alloc(struct vagx_batch *b, unsigned size, unsigned align, void **cpu)
{
   struct vagx_chunk *c = last_chunk(&b->data_chunks);
   if (!c || ALIGN(c->used, align) + size > c->bo->size) {
      c = batch_new_chunk(b, &b->data_chunks, size);
      if (!c) {
         b->failed = true;
         *cpu = NULL;
         return 0;
      }
   }
   uint32_t off = ALIGN(c->used, align);
   c->used = off + size;
   *cpu = (uint8_t *)c->bo->map + off;
   return c->bo->va + off;
}

/* A copy of `size` bytes of `data` in the batch's data memory at *va; false
 * (the batch failed) without memory. */
bool
vagx_batch_upload(struct vagx_batch *b, const void *data, unsigned size, unsigned align,
                  uint64_t *va)
{
   void *cpu;
   *va = vagx_batch_alloc(b, size, align, &cpu);
   if (!cpu)
      return false;
   memcpy(cpu, data, size);
   return true;
}

/* Room for one command of `bytes` in the control stream.  A full chunk is
 * chained to a new one with cmd_jump (each chunk keeps room for it), so
 * the stream grows as long as memory lasts; without memory the batch fails
 * and the command goes to the batch's own scratch words. */
uint32_t *
vagx_cs_emit(struct vagx_batch *b, unsigned bytes)
{
   bytes = ALIGN(bytes, 4);
   assert(bytes <= sizeof(b->cs_scratch));
   struct vagx_chunk *c = last_chunk(&b->cs_chunks);
   if (!c || c->used + bytes + VAGX_CMD_JUMP_LENGTH > c->bo->size) {
      const bool chain = c != NULL;
      c = batch_new_chunk(b, &b->cs_chunks, VAGX_CHUNK_SIZE);
      if (!c) {
         b->failed = true;
         memset(b->cs_scratch, 0, sizeof(b->cs_scratch));
         return b->cs_scratch;
      }
      if (chain) {
         /* the previous chunk ends jumping here (it is c - 1 of the
          * array the append may have moved) */
         struct vagx_chunk *prev = c - 1;
         struct vagx_cmd_jump j;
         vagx_cmd_jump_init(&j);
         j.target_va = c->bo->va;
         vagx_cmd_jump_pack((uint32_t *)((uint8_t *)prev->bo->map + prev->used), &j);
         prev->used += VAGX_CMD_JUMP_LENGTH;
      }
   }
   uint32_t *p = (uint32_t *)((uint8_t *)c->bo->map + c->used);
   c->used += bytes;
   return p;
}

bool
vagx_batch_is_full(const struct vagx_batch *b)
{
   return b->chunk_bytes >= VAGX_BATCH_MAX_BYTES;
}

/* A cmd_bind_vertex/fragment_pipeline of the program in `code`, charged to
 * the job's geometry budget as the device charges it: the bind, and the
 * program's decoded form the first time the job binds it.  (Without memory
 * for the set every bind is charged the program: more, never less.) */
void
vagx_batch_charge_bind(struct vagx_batch *b, struct vagx_bo *code, unsigned code_words)
{
   b->geometry += VAGX_RENDER_GEOMETRY_BIND_COST;
   bool found = false;
   if (b->programs)
      _mesa_set_search_or_add(b->programs, code, &found);
   if (!found)
      b->geometry += (uint64_t)(code_words + 2) * VAGX_RENDER_GEOMETRY_CODE_COST;
}

/* Dependencies between batches of one context: batches are submitted in
 * flush order, so a batch that reads a resource another pending batch writes
 * (render to texture, then sample it) must flush that writer first, and a
 * batch that writes a resource must flush other pending readers and writers. */
void
vagx_batch_read(struct vagx_batch *b, struct vagx_resource *r)
{
   if (r->writer && r->writer != b && r->writer->ctx == b->ctx)
      vagx_flush_batch(b->ctx, r->writer);
   vagx_batch_add_bo(b, r->bo);
   /* a compute batch is submitted before anything else is encoded: no
    * later batch has to wait for it on the CPU side */
   if (b->idx < VAGX_MAX_BATCHES)
      r->reader_mask |= 1u << b->idx;
}

void
vagx_batch_write(struct vagx_batch *b, struct vagx_resource *r)
{
   if (r->writer && r->writer != b && r->writer->ctx == b->ctx)
      vagx_flush_batch(b->ctx, r->writer);
   u_foreach_bit(i, r->reader_mask & ~(1u << b->idx))
      if (i < VAGX_MAX_BATCHES)
         vagx_flush_batch(b->ctx, &b->ctx->batches[i]);
   r->reader_mask &= 1u << b->idx;
   vagx_batch_add_bo_write(b, r->bo);
   if (b->idx < VAGX_MAX_BATCHES)
      r->writer = b;
}

/* A new batch's memory, BO lists and failure state */
static void
batch_begin_memory(struct vagx_batch *b)
{
   b->failed = false;
   b->incoherent_writes = false;
   util_dynarray_init(&b->bos, NULL);
   util_dynarray_init(&b->writes, NULL);
   /* the sets keep their memory; words are zeroed as they are added */
   util_dynarray_clear(&b->bo_set);
   util_dynarray_clear(&b->write_set);
   util_dynarray_init(&b->cs_chunks, NULL);
   util_dynarray_init(&b->data_chunks, NULL);
   b->chunk_bytes = 0;
}

struct vagx_batch *
vagx_get_batch(struct vagx_context *ctx)
{
   if (ctx->batch)
      return ctx->batch;
   /* chunks of completed jobs back to the pool before taking new ones */
   vagx_context_retire(ctx);
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
   b->seq = ++ctx->batch_seq;
   b->clear = 0;
   b->draws = 0;
   b->draw_id_base = 0;
   b->geometry = VAGX_BG_EOT_GEOMETRY;
   if (b->programs)
      _mesa_set_clear(b->programs, NULL);
   else
      b->programs = _mesa_pointer_set_create(NULL);
   b->query = NULL;
   b->prim_query[0] = b->prim_query[1] = NULL;
   b->so_on = false;
   b->so_vs = NULL;
   memset(b->so_res, 0, sizeof(b->so_res));
   batch_begin_memory(b);
   for (unsigned i = 0; i < b->key.nr_cbufs; i++)
      if (b->key.cbufs[i])
         vagx_batch_write(b, vagx_resource(b->key.cbufs[i]->texture));
   if (b->key.zsbuf)
      vagx_batch_write(b, vagx_resource(b->key.zsbuf->texture));
   /* after vagx_batch_write: an earlier batch writing it has been submitted */
   b->zs_undefined = b->key.zsbuf && vagx_resource(b->key.zsbuf->texture)->undefined;
   /* nothing worth storing until a clear or a draw writes them */
   b->zs_discard = b->zs_undefined;
   b->stencil_used = false;
   return ctx->batch = b;
}

static void
chunks_release(struct vagx_context *ctx, struct util_dynarray *list)
{
   util_dynarray_foreach(list, struct vagx_chunk, c) {
      if (c->bo->size == VAGX_CHUNK_SIZE &&
          util_dynarray_num_elements(&ctx->chunk_pool, struct vagx_bo *) < VAGX_CHUNK_POOL_MAX)
         util_dynarray_append(&ctx->chunk_pool, struct vagx_bo *, c->bo);
      else
         vagx_bo_unreference(c->bo);
   }
   util_dynarray_fini(list);
}

static void
inflight_release(struct vagx_context *ctx, struct vagx_inflight *f)
{
   util_dynarray_foreach(&f->bos, struct vagx_bo *, it)
      vagx_bo_unreference(*it);
   util_dynarray_fini(&f->bos);
   chunks_release(ctx, &f->chunks);
}

/* Releases the memory of the context's submits that have completed, and
 * says so when the device failed a job since the last look. */
void
vagx_context_retire(struct vagx_context *ctx)
{
   unsigned n = util_dynarray_num_elements(&ctx->inflight, struct vagx_inflight);
   if (!n)
      return;
   struct vagx_inflight *f = util_dynarray_begin(&ctx->inflight);
   const uint64_t completed = vagx_screen_completed_seq(ctx->screen);
   unsigned done = 0;
   while (done < n && f[done].seq <= completed)
      inflight_release(ctx, &f[done++]);
   if (!done)
      return;
   memmove(f, f + done, (n - done) * sizeof(*f));
   ctx->inflight.size -= done * sizeof(*f);

   struct vagx_device *dev = &ctx->screen->dev;
   uint32_t state = 0;
   struct drm_vagx_fault_info fault;
   if (!dev->ops->queue_state(dev, DRM_VAGX_QUEUE_TYPE_RENDER, &state, &fault) && state)
      fprintf(stderr, "vagx: render queue unusable after a job (state 0x%x, fault at 0x%llx)\n",
              state, (unsigned long long)fault.addr);
   state = 0;
   if (ctx->computed && dev->queue_id[DRM_VAGX_QUEUE_TYPE_COMPUTE] &&
       !dev->ops->queue_state(dev, DRM_VAGX_QUEUE_TYPE_COMPUTE, &state, &fault) && state)
      fprintf(stderr, "vagx: compute queue unusable after a job (state 0x%x, fault at 0x%llx)\n",
              state, (unsigned long long)fault.addr);
}

/* Ends a batch.  After a submit (seq != 0) its BOs and chunks stay
 * referenced until the job completes (how many submits may be pending is
 * the screen's bound, VAGX_MAX_INFLIGHT in vagx_fence.c). */
static void
batch_cleanup(struct vagx_context *ctx, struct vagx_batch *b, uint64_t seq)
{
   struct vagx_inflight f = { .seq = seq, .bos = b->bos };
   util_dynarray_init(&f.chunks, NULL);
   util_dynarray_append_dynarray(&f.chunks, &b->cs_chunks);
   util_dynarray_append_dynarray(&f.chunks, &b->data_chunks);
   util_dynarray_fini(&b->cs_chunks);
   util_dynarray_fini(&b->data_chunks);
   util_dynarray_fini(&b->writes);
   util_dynarray_init(&b->bos, NULL);
   if (seq) {
      util_dynarray_append(&ctx->inflight, struct vagx_inflight, f);
      vagx_context_retire(ctx);
   } else {
      inflight_release(ctx, &f);
   }
   util_unreference_framebuffer_state(&b->key);
   b->active = false;
   if (ctx->batch == b)
      ctx->batch = NULL;
}

/* VAGX_DEBUG=trace: the render job, the PBE descriptor of each render
 * target (`layout`: tests/gl/run sees an image read back again and again
 * become linear) and the control stream, chunk by chunk (what each draw
 * bound, e.g. `opaque`) */
static void
trace_job(struct vagx_batch *b, const struct vagx_render_job *rj, const uint32_t *pbedesc)
{
   vagx_render_job_print(vagx_print_file, stderr, rj, 0);
   for (unsigned i = 0; pbedesc && i < b->key.nr_cbufs; i++) {
      struct vagx_pbe pbe;
      if (!b->key.cbufs[i] || !vagx_pbe_unpack(pbedesc + i * (VAGX_PBE_LENGTH / 4), &pbe, NULL))
         continue;
      fprintf(stderr, "pbe %u:\n", i);
      vagx_pbe_print(vagx_print_file, stderr, &pbe, 1);
   }
   util_dynarray_foreach(&b->cs_chunks, struct vagx_chunk, c) {
      const uint32_t *cs = c->bo->map;
      for (unsigned o = 0, n; o < c->used / 4; o += n)
         if (!(n = vagx_cmd_print(vagx_print_file, stderr, cs + o, c->used / 4 - o, 2)))
            break;
   }
}

static uint64_t batch_submit(struct vagx_context *ctx, struct vagx_batch *b, unsigned queue,
                             uint64_t jva);

/* Returns the submit's seq, 0 when the batch could not be submitted */
static uint64_t
submit_render(struct vagx_context *ctx, struct vagx_batch *b)
{
   struct vagx_bg_eot_key key = {
      .nr_cbufs = b->key.nr_cbufs,
      .samples = vagx_fb_samples(&b->key),
   };
   struct vagx_shader_info bg, eot;
   uint32_t *texdesc = NULL, *pbedesc = NULL;
   for (unsigned i = 0; i < key.nr_cbufs; i++) {
      key.format[i] = b->key.cbufs[i] ? b->key.cbufs[i]->format : VAGX_UNBOUND_RT_FORMAT;
      key.op[i] = !b->key.cbufs[i] ? VAGX_BG_DONT_CARE
                  : (b->clear & (PIPE_CLEAR_COLOR0 << i)) ? VAGX_BG_CLEAR : VAGX_BG_LOAD;
   }
   if (!vagx_compile_bg(&key, &bg))
      return 0;
   for (unsigned i = 0; i < key.nr_cbufs; i++)
      key.op[i] = b->key.cbufs[i] != NULL;
   if (!vagx_compile_eot(&key, &eot))
      return 0;
   /* within what the batch reserved for them (VAGX_BG_EOT_GEOMETRY) */
   assert(bg.code_words <= VAGX_BG_EOT_MAX_WORDS && eot.code_words <= VAGX_BG_EOT_MAX_WORDS);

   struct vagx_render_job rj;
   vagx_render_job_init(&rj);
   rj.width = b->key.width;
   rj.height = b->key.height;
   rj.samples = vagx_msaa(key.samples);
   rj.rt_count = key.nr_cbufs;
   for (unsigned i = 0; i < key.nr_cbufs; i++)
      rj.rt_format[i] = vagx_format_from_pipe(key.format[i]);
   rj.process_empty_tiles = 1;
   /* without a clear (a pass that neither clears nor loads: the contents
    * are undefined) the tiles start at the far plane and stencil 0, not at
    * whatever an earlier batch of this slot cleared to */
   rj.clear_depth = (b->clear & PIPE_CLEAR_DEPTH) ? b->clear_depth : 1.0;
   rj.clear_stencil = (b->clear & PIPE_CLEAR_STENCIL) ? b->clear_stencil : 0;
   if (b->key.zsbuf) {
      struct vagx_resource *zr = vagx_resource(b->key.zsbuf->texture);
      /* contents the application invalidated are neither loaded nor
       * stored (vagx_invalidate_resource): a window-system depth buffer
       * is invalidated at every swap */
      rj.depth_load = !(b->clear & PIPE_CLEAR_DEPTH) && !b->zs_undefined;
      /* a stencil no draw tests or writes and no clear sets stays in memory
       * as it is (a depth-only store keeps the stencil bytes): most GL
       * applications clear depth every frame but never use their stencil */
      const bool stencil_live = vagx_format_stencil(zr->vformat) &&
                                (b->stencil_used || (b->clear & PIPE_CLEAR_STENCIL));
      rj.stencil_load = !(b->clear & PIPE_CLEAR_STENCIL) && !b->zs_undefined && stencil_live;
      rj.depth_store = !b->zs_discard;
      rj.stencil_store = !b->zs_discard && stencil_live;
      zr->undefined = b->zs_discard;
      uint32_t *zd;
      rj.zs_desc_va = vagx_batch_alloc(b, VAGX_TEXTURE_LENGTH, 32, (void **)&zd);
      if (!zd)
         return 0;
      static const unsigned char id[4] = { 0, 1, 2, 3 };
      /* every layer: zs_layer selects the one rendered to */
      vagx_pack_texture(zr, b->key.zsbuf->format, id, 0, 0, 0, zr->base.array_size - 1, zd);
      rj.zs_level = b->key.zsbuf->u.tex.level;
      rj.zs_layer = b->key.zsbuf->u.tex.first_layer;
   } else {
      rj.clear_depth = 1.0f;
   }
   /* a query still active ends with the job (a later batch begins it again) */
   vagx_batch_end_query(b);
   /* end of the control stream */
   vagx_cmd_end_pack(vagx_cs_emit(b, VAGX_CMD_END_LENGTH), &(struct vagx_cmd_end){ 0 });

   /* background program: textures = render targets (for loads) */
   if (key.nr_cbufs) {
      texdesc = NULL;
      uint64_t tva = vagx_batch_alloc(b, key.nr_cbufs * VAGX_TEXTURE_LENGTH, 32, (void **)&texdesc);
      uint64_t pva = vagx_batch_alloc(b, key.nr_cbufs * VAGX_PBE_LENGTH, 32, (void **)&pbedesc);
      if (!texdesc || !pbedesc)
         return 0;
      for (unsigned i = 0; i < key.nr_cbufs; i++) {
         struct pipe_surface *s = b->key.cbufs[i];
         if (!s)
            continue;
         struct vagx_resource *r = vagx_resource(s->texture);
         static const unsigned char id[4] = { 0, 1, 2, 3 };
         /* the load fetches layer 0 of the descriptor: a one-layer view of
          * the layer rendered to (arrays; vagx_bg_eot.c) */
         vagx_pack_texture(r, s->format, id, s->u.tex.level, s->u.tex.level, s->u.tex.first_layer,
                           s->u.tex.first_layer, texdesc + i * 8);
         vagx_pack_pbe(r, s->format, s->u.tex.level, s->u.tex.first_layer, pbedesc + i * 8);
      }
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
   if (!vagx_batch_upload(b, bg.code, bg.code_words * 8, 16, &rj.bg_program.code_va))
      return 0;
   rj.bg_program.gpr_count = bg.gpr_count;
   rj.bg_program.stack_size = bg.stack_size;
   if (bg.push_count) {
      if (!vagx_batch_upload(b, push, bg.push_count * 4, 16, &rj.bg_program.uniform_va))
         return 0;
      rj.bg_program.uniform_count = bg.push_count;
   }
   if (!vagx_batch_upload(b, eot.code, eot.code_words * 8, 16, &rj.eot_program.code_va))
      return 0;
   rj.eot_program.gpr_count = eot.gpr_count;
   rj.eot_program.stack_size = eot.stack_size;
   vagx_shader_info_free(&bg);
   vagx_shader_info_free(&eot);

   uint32_t *jd;
   uint64_t jva = vagx_batch_alloc(b, VAGX_RENDER_JOB_LENGTH, 64, (void **)&jd);
   if (!jd || b->failed)
      return 0;
   /* the control stream starts at its first chunk (cmd_end made one) */
   rj.cs_va = util_dynarray_element(&b->cs_chunks, struct vagx_chunk, 0)->bo->va;
   vagx_render_job_pack(jd, &rj);

   if (ctx->screen->debug & VAGX_DBG_TRACE)
      trace_job(b, &rj, pbedesc);
   return batch_submit(ctx, b, DRM_VAGX_QUEUE_TYPE_RENDER, jva);
}

/* Submits the batch's job at jva to the queue; returns its seq, 0 when the
 * submit failed. */
static uint64_t
batch_submit(struct vagx_context *ctx, struct vagx_batch *b, unsigned queue, uint64_t jva)
{
   /* fence_server_sync: the job waits for those fences on the device */
   unsigned wait_count = util_dynarray_num_elements(&ctx->wait_fences, struct vagx_fence *);
   uint32_t waits[wait_count ? wait_count : 1];
   for (unsigned i = 0; i < wait_count; i++)
      waits[i] = (*util_dynarray_element(&ctx->wait_fences, struct vagx_fence *, i))->syncobj;
   /* implicit sync for shared (window-system / PRIME) BOs of the batch */
   const uint64_t seq =
      vagx_screen_submit(ctx->screen, queue, jva, util_dynarray_begin(&b->bos),
                         util_dynarray_num_elements(&b->bos, struct vagx_bo *),
                         util_dynarray_begin(&b->writes),
                         util_dynarray_num_elements(&b->writes, struct vagx_bo *), waits, wait_count);
   if (!seq)
      return 0;
   util_dynarray_foreach(&ctx->wait_fences, struct vagx_fence *, it)
      vagx_fence_reference(it, NULL);
   util_dynarray_clear(&ctx->wait_fences);
   /* no wait: the job's BOs and chunks stay referenced until it completes
    * (batch_cleanup), CPU accesses wait for the seq they need */
   ctx->last_seq = seq;
   /* VAGX_DEBUG=sync: every submit completes before the driver goes on */
   if (ctx->screen->debug & VAGX_DBG_SYNC)
      vagx_screen_wait_seq(ctx->screen, seq, INT64_MAX);
   return seq;
}

/* A batch for one compute dispatch (vagx_compute.c): the memory, BO lists
 * and dependencies of a batch, no framebuffer.  Render batches it reads
 * from or writes to are flushed as its state is encoded (vagx_batch_read,
 * vagx_batch_write), and it is submitted before anything else is, so it
 * is never anyone's pending writer or reader. */
struct vagx_batch *
vagx_compute_batch_begin(struct vagx_context *ctx)
{
   struct vagx_batch *b = &ctx->compute_batch;
   assert(!b->active);
   vagx_context_retire(ctx);
   memset(&b->key, 0, sizeof(b->key));
   b->active = true;
   b->seq = ++ctx->batch_seq;
   batch_begin_memory(b);
   return b;
}

/* Submits the compute job at jva (0: the batch failed, nothing is
 * submitted) and ends the batch; returns the seq, 0 on failure. */
uint64_t
vagx_compute_batch_submit(struct vagx_context *ctx, struct vagx_batch *b, uint64_t jva)
{
   uint64_t seq = 0;
   if (jva && !b->failed)
      seq = batch_submit(ctx, b, DRM_VAGX_QUEUE_TYPE_COMPUTE, jva);
   batch_cleanup(ctx, b, seq);
   return seq;
}

void
vagx_flush_batch(struct vagx_context *ctx, struct vagx_batch *b)
{
   if (!b->active)
      return;
   uint64_t seq = 0;
   if (b->draws || b->clear) {
      if (b->failed || !(seq = submit_render(ctx, b)))
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
   batch_cleanup(ctx, b, seq);
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
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++)
      if (ctx->batches[i].active)
         batch_cleanup(ctx, &ctx->batches[i], 0);
   /* the context's jobs must end before their memory goes */
   vagx_screen_wait_seq(ctx->screen, ctx->last_seq, INT64_MAX);
   vagx_context_retire(ctx);
   assert(!util_dynarray_num_elements(&ctx->inflight, struct vagx_inflight));
   util_dynarray_fini(&ctx->inflight);
   util_dynarray_foreach(&ctx->wait_fences, struct vagx_fence *, it)
      vagx_fence_reference(it, NULL);
   util_dynarray_fini(&ctx->wait_fences);
   util_dynarray_foreach(&ctx->chunk_pool, struct vagx_bo *, it)
      vagx_bo_unreference(*it);
   util_dynarray_fini(&ctx->chunk_pool);
   util_dynarray_fini(&ctx->compute_batch.bo_set);
   util_dynarray_fini(&ctx->compute_batch.write_set);
   for (unsigned i = 0; i < VAGX_MAX_BATCHES; i++) {
      util_dynarray_fini(&ctx->batches[i].bo_set);
      util_dynarray_fini(&ctx->batches[i].write_set);
      _mesa_set_destroy(ctx->batches[i].programs, NULL);
   }
}
