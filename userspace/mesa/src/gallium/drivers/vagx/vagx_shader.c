/* SPDX-License-Identifier: MIT */
/* Shader CSOs and their variants: NIR is preprocessed once per CSO and a
 * default variant compiled at creation (so VAGX_DEBUG=shaders,shaderdb sees
 * code without a draw); draws look variants up by their whole key
 * (vagx_variant.c) and compile missing ones. */
#include <stdio.h>
#include <string.h>
#include "compiler/nir/nir_builder.h"
#include "compiler/nir/nir_lower_blend.h"
#include "compiler/nir/nir_serialize.h"
#include "nir/nir_draw_helpers.h"
#include "nir/tgsi_to_nir.h"
#include "util/blob.h"
#include "util/format/u_format.h"
#include "util/mesa-sha1.h"
#include "util/u_memory.h"
#include "vagx_context.h"

static void
report(struct vagx_screen *screen, struct vagx_shader_info *info, const char *what)
{
   if (screen->debug & VAGX_DBG_SHADERS) {
      fprintf(stderr, "vagx: %s %s shader, %u GPRs, %u stack bytes, %u uniform words:\n", what,
              gl_shader_stage_name(info->stage), info->gpr_count, info->stack_size,
              info->push_count);
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
   if (!so)
      return NULL;
   so->variants = vagx_variant_table_create(NULL);
   if (!so->variants) {
      FREE(so);
      return NULL;
   }
   nir_shader *nir = cso->type == PIPE_SHADER_IR_NIR ? cso->ir.nir
                                                      : tgsi_to_nir(cso->tokens, p->screen, false);
   /* stream output: register_index counts the outputs written before our
    * lowering (vagx_streamout.c) */
   so->so_info = cso->stream_output;
   so->so_outputs_written = nir->info.outputs_written;
   vagx_preprocess_nir(nir);
   so->nir = nir;
   if (ctx->screen->disk_cache) {
      /* what every variant is compiled from: part of its disk cache key */
      struct blob blob;
      blob_init(&blob);
      nir_serialize(&blob, nir, true);
      _mesa_sha1_compute(blob.data, blob.size, so->nir_sha1);
      blob_finish(&blob);
   }

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

/* Blending and logic ops in the shader against the tile buffer, from the
 * variant's own key (never from the bound CSO: the key is its identity). */
static void
lower_blend(nir_shader *nir, const struct vagx_variant_key *k)
{
   nir_lower_blend_options opts = { .scalar_blend_const = true };
   for (unsigned rt = 0; rt < k->base.nr_cbufs; rt++) {
      const struct vagx_blend_rt_key *b = &k->blend.rt[rt];
      opts.format[rt] = k->base.rt_format[rt];
      opts.rt[rt].colormask = b->colormask;
      if (b->enable) {
         opts.rt[rt].rgb.func = b->rgb_func;
         opts.rt[rt].rgb.src_factor = b->rgb_src;
         opts.rt[rt].rgb.dst_factor = b->rgb_dst;
         opts.rt[rt].alpha.func = b->alpha_func;
         opts.rt[rt].alpha.src_factor = b->alpha_src;
         opts.rt[rt].alpha.dst_factor = b->alpha_dst;
      } else {
         opts.rt[rt].rgb.func = opts.rt[rt].alpha.func = PIPE_BLEND_ADD;
         opts.rt[rt].rgb.src_factor = opts.rt[rt].alpha.src_factor = PIPE_BLENDFACTOR_ONE;
         opts.rt[rt].rgb.dst_factor = opts.rt[rt].alpha.dst_factor = PIPE_BLENDFACTOR_ZERO;
      }
   }
   opts.logicop_enable = k->blend.logicop_enable;
   opts.logicop_func = k->blend.logicop_func;
   NIR_PASS(_, nir, nir_lower_blend, &opts);
}

/* The disk cache holds compiled variants, keyed by the SHA-1 of the
 * preprocessed NIR and the whole variant key (the cache itself is keyed by
 * the driver's and the compiler's build: vagx_disk_cache_init), as the
 * vagx_shader_info (without its code pointer), the stipple unit and the
 * code.  Not used while VAGX_DEBUG asks to see compiles or changes what
 * the compiler makes. */
static struct disk_cache *
variant_disk_cache(const struct vagx_screen *s)
{
   return (s->debug & (VAGX_DBG_SHADERS | VAGX_DBG_SHADERDB | VAGX_DBG_NIR |
                       VAGX_DBG_NO_UNIFORM_CF | VAGX_DBG_NO_SCHED)) ? NULL : s->disk_cache;
}

static void
variant_cache_key(struct disk_cache *cache, const struct vagx_uncompiled_shader *so,
                  const struct vagx_variant_key *k, cache_key key)
{
   uint8_t data[sizeof(so->nir_sha1) + sizeof(*k)];
   memcpy(data, so->nir_sha1, sizeof(so->nir_sha1));
   memcpy(data + sizeof(so->nir_sha1), k, sizeof(*k));
   disk_cache_compute_key(cache, data, sizeof(data), key);
}

static bool
variant_cache_load(struct disk_cache *cache, const cache_key key, struct vagx_compiled_shader *v)
{
   size_t size;
   void *data = disk_cache_get(cache, key, &size);
   if (!data)
      return false;
   struct blob_reader r;
   blob_reader_init(&r, data, size);
   struct vagx_shader_info info;
   blob_copy_bytes(&r, &info, sizeof(info));
   const int stipple_unit = (int)blob_read_uint32(&r);
   const void *code = blob_read_bytes(&r, (size_t)info.code_words * 8);
   bool ok = !r.overrun && r.current == r.end && info.code_words &&
             (info.code = malloc((size_t)info.code_words * 8));
   if (ok) {
      memcpy(info.code, code, (size_t)info.code_words * 8);
      v->info = info;
      v->stipple_unit = stipple_unit;
   }
   free(data);
   return ok;
}

static void
variant_cache_store(struct disk_cache *cache, const cache_key key,
                    const struct vagx_compiled_shader *v)
{
   struct vagx_shader_info info = v->info;
   info.code = NULL;
   struct blob blob;
   blob_init(&blob);
   blob_write_bytes(&blob, &info, sizeof(info));
   blob_write_uint32(&blob, (uint32_t)v->stipple_unit);
   blob_write_bytes(&blob, v->info.code, (size_t)v->info.code_words * 8);
   if (!blob.out_of_memory)
      disk_cache_put(cache, key, blob.data, blob.size, NULL);
   blob_finish(&blob);
}

/* The variant's code in a BO of its own (false: no memory) */
static bool
variant_upload(struct vagx_context *ctx, struct vagx_compiled_shader *v)
{
   v->bo = vagx_screen_bo_create(ctx->screen, v->info.code_words * 8 + 64, "shader");
   if (!v->bo)
      return false;
   memcpy(v->bo->map, v->info.code, v->info.code_words * 8);
   return true;
}

static struct vagx_compiled_shader *
compile_variant(struct vagx_context *ctx, struct vagx_uncompiled_shader *so,
                const struct vagx_variant_key *k)
{
   struct vagx_compiled_shader *v = CALLOC_STRUCT(vagx_compiled_shader);
   if (!v)
      return NULL;
   memcpy(&v->key, k, sizeof(*k)); /* every byte: the table compares them */
   v->stipple_unit = -1;
   struct disk_cache *cache = variant_disk_cache(ctx->screen);
   cache_key ckey;
   if (cache) {
      variant_cache_key(cache, so, k, ckey);
      if (variant_cache_load(cache, ckey, v)) {
         if (ctx->screen->debug & VAGX_DBG_CACHE)
            fprintf(stderr, "vagx: %s variant loaded from the disk cache\n",
                    gl_shader_stage_name(v->info.stage));
         v->ok = variant_upload(ctx, v);
         return v;
      }
   }
   nir_shader *nir = nir_shader_clone(NULL, so->nir);
   if (nir->info.stage == MESA_SHADER_FRAGMENT) {
      /* before nir_lower_blend, which rejects FRAG_RESULT_COLOR */
      unsigned nr = MAX2(k->base.nr_cbufs, 1);
      NIR_PASS(_, nir, nir_shader_intrinsics_pass, fragcolor_broadcast,
               nir_metadata_control_flow, &nr);
      if (k->blend.present)
         lower_blend(nir, k);
      if (k->base.poly_stipple) {
         /* discard where the pattern texel (at gl_FragCoord mod 32) is 0 */
         unsigned unit = 0;
         nir_lower_pstipple_fs(nir, &unit, 0, true, nir_type_bool1);
         v->stipple_unit = unit;
      }
   }
   const char *err = NULL;
   const gl_shader_stage nir_stage = nir->info.stage;
   v->ok = vagx_compile_shader(nir, &k->base, &v->info, &err);
   ralloc_free(nir);
   if (ctx->screen->debug & VAGX_DBG_CACHE)
      fprintf(stderr, "vagx: %s variant compiled\n", gl_shader_stage_name(nir_stage));
   if (!v->ok) {
      so->error = err;
   } else {
      report(ctx->screen, &v->info, "variant");
      if (cache)
         variant_cache_store(cache, ckey, v);
      v->ok = variant_upload(ctx, v);
   }
   return v;
}

/* The variant of `so` for the fragment key (render targets, samples,
 * stipple) and the bound blend CSO, or for the bound vertex elements (a
 * vertex shader: the key is not read and may be NULL).  A
 * variant that fails to compile is kept too (ok = false), so the error is
 * reported once; NULL only when memory runs out. */
struct vagx_compiled_shader *
vagx_get_variant(struct vagx_context *ctx, struct vagx_uncompiled_shader *so,
                 const struct vagx_fs_key *key)
{
   struct vagx_variant_key k;
   memset(&k, 0, sizeof(k));
   if (so->nir->info.stage == MESA_SHADER_FRAGMENT) {
      k.base = *key;
      k.base.blend_hash = 0;
      /* the CSO's key for every render target, cut to the bound ones */
      if (ctx->blend) {
         k.blend = ctx->blend->key;
         for (unsigned i = k.base.nr_cbufs; i < PIPE_MAX_COLOR_BUFS; i++)
            memset(&k.blend.rt[i], 0, sizeof(k.blend.rt[i]));
      }
   } else if (so->nir->info.stage == MESA_SHADER_VERTEX) {
      if (ctx->vtx) {
         const unsigned n = MIN2(ctx->vtx->count, ARRAY_SIZE(k.base.vs_attr_comps));
         memcpy(k.base.vs_attr_comps, ctx->vtx->attr_comps, n);
         k.base.vs_attr_int = ctx->vtx->attr_int & BITFIELD_MASK(n);
         memcpy(k.base.vs_attr_format, ctx->vtx->attr_format, n * sizeof(k.base.vs_attr_format[0]));
      }
      /* sr.base_instance is contract 1.7's (vagx_screen.c start_instance) */
      k.base.no_base_instance = !vagx_contract_at_least(ctx->screen, 1, 7);
   } else if (so->nir->info.stage == MESA_SHADER_GEOMETRY) {
      /* ld_vin reads the bound vertex shader's output layout */
      if (ctx->vs) {
         const uint64_t w = ctx->vs->nir->info.outputs_written;
         k.base.gs_vs_outputs[0] = (uint32_t)w;
         k.base.gs_vs_outputs[1] = (uint32_t)(w >> 32);
         k.base.gs_vs_clip_distances = ctx->vs->nir->info.clip_distance_array_size;
      }
      k.base.no_base_instance = !vagx_contract_at_least(ctx->screen, 1, 7);
   }
   const uint32_t hash = vagx_variant_key_hash(&k);
   struct hash_entry *he = _mesa_hash_table_search_pre_hashed(so->variants, hash, &k);
   if (he)
      return he->data;
   struct vagx_compiled_shader *v = compile_variant(ctx, so, &k);
   if (v)
      _mesa_hash_table_insert_pre_hashed(so->variants, hash, &v->key, v);
   return v;
}

static void
variant_destroy(struct hash_entry *he)
{
   struct vagx_compiled_shader *v = he->data;
   vagx_bo_unreference(v->bo);
   vagx_shader_info_free(&v->info);
   FREE(v);
}

static void
vagx_delete_shader_state(struct pipe_context *p, void *s)
{
   struct vagx_uncompiled_shader *so = s;
   _mesa_hash_table_destroy(so->variants, variant_destroy);
   ralloc_free(so->nir);
   FREE(so);
}

/* the draw looks the variants up again and emits the pipelines (a new
 * shader's variant may have the address of a deleted one's) */
static void
vagx_bind_vs(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->vs = s;
   /* a geometry shader's variant reads the vertex shader's layout */
   ctx->dirty |= VAGX_DIRTY_VS_VARIANT | VAGX_DIRTY_VS | VAGX_DIRTY_FS | VAGX_DIRTY_GS_VARIANT |
                 VAGX_DIRTY_GS;
}

/* the fragment pipeline's bindings follow the last vertex stage's layout */
static void
vagx_bind_gs(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->gs = s;
   ctx->dirty |= VAGX_DIRTY_GS_VARIANT | VAGX_DIRTY_GS | VAGX_DIRTY_FS;
}

static void
vagx_bind_fs(struct pipe_context *p, void *s)
{
   struct vagx_context *ctx = vagx_context(p);
   ctx->fs = s;
   ctx->dirty |= VAGX_DIRTY_FS_VARIANT | VAGX_DIRTY_FS;
}

/* Compute CSOs are shader CSOs of one variant (an empty key): NIR only */
static void *
vagx_create_compute_state(struct pipe_context *p, const struct pipe_compute_state *cso)
{
   if (cso->ir_type != PIPE_SHADER_IR_NIR)
      return NULL;
   const struct pipe_shader_state s = { .type = PIPE_SHADER_IR_NIR,
                                        .ir.nir = (nir_shader *)cso->prog };
   return vagx_create_shader_state(p, &s);
}

static void
vagx_bind_cs(struct pipe_context *p, void *s)
{
   vagx_context(p)->cs = s;
}

void
vagx_init_shader_functions(struct pipe_context *p)
{
   p->create_compute_state = vagx_create_compute_state;
   p->bind_compute_state = vagx_bind_cs;
   p->delete_compute_state = vagx_delete_shader_state;
   p->create_vs_state = vagx_create_shader_state;
   p->bind_vs_state = vagx_bind_vs;
   p->delete_vs_state = vagx_delete_shader_state;
   p->create_fs_state = vagx_create_shader_state;
   p->create_gs_state = vagx_create_shader_state;
   p->bind_gs_state = vagx_bind_gs;
   p->delete_gs_state = vagx_delete_shader_state;
   p->bind_fs_state = vagx_bind_fs;
   p->delete_fs_state = vagx_delete_shader_state;
}
