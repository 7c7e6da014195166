/* SPDX-License-Identifier: MIT */
#ifndef VAGX_CONTEXT_H
#define VAGX_CONTEXT_H

#include "pipe/p_context.h"
#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "util/disk_cache.h"
#include "util/hash_table.h"
#include "util/set.h"
#include "util/slab.h"
#include "util/u_dynarray.h"
#include "util/u_suballoc.h"
#include "util/u_transfer_helper.h"
#include "compiler/nir/nir.h"
#include "vagx_device.h"
#include "vagx_compiler.h"
#include "vagx_layout.h"
#include "vagx_hw.h"

struct blitter_context;

/* The screen's cache of private BOs (vagx_bo_cache.c) */
#define VAGX_BO_CACHE_BUCKETS 14
struct vagx_bo_cache {
   simple_mtx_t lock;
   struct list_head buckets[VAGX_BO_CACHE_BUCKETS]; /* struct vagx_bo, by size */
   struct list_head lru;                            /* struct vagx_bo, oldest first */
   uint64_t bytes;
};

struct vagx_screen {
   struct pipe_screen base;
   struct vagx_device dev;
   /* submission timeline (vagx_fence.c): seq order is SUBMIT order */
   simple_mtx_t submit_lock;
   uint64_t submit_seq;          /* last seq submitted */
   unsigned submit_queue;        /* its queue (DRM_VAGX_QUEUE_TYPE_*) */
   uint64_t completed_seq;       /* every seq up to it has completed (last seen) */
   uint32_t timeline;            /* timeline syncobj: submit seq signals point seq */
   struct slab_parent_pool transfer_pool;
   struct vagx_bo_cache bo_cache;
   struct disk_cache *disk_cache;
   uint32_t debug;
   /* resources given new storage (p_atomic): buffer renames and moves to a
    * shareable BO; bound resources may have new addresses, so every
    * context emits its pipelines again */
   unsigned renames;
};

static inline struct vagx_screen *vagx_screen(struct pipe_screen *p) { return (struct vagx_screen *)p; }

/* Does the device implement contract major.minor (or a later compatible
 * minor)?  GPU_INFO's gpu_revision is its VERSION register (vagx.ko and the
 * drm-shim); the minor versions' additions are HW_VERSION_MINOR's list in
 * vagx_hw.xml. */
static inline bool
vagx_contract_at_least(const struct vagx_screen *screen, unsigned major, unsigned minor)
{
   const uint32_t v = screen->dev.info.gpu_revision;
   return VAGX_VERSION_MAJOR_GET(v) == major && VAGX_VERSION_MINOR_GET(v) >= minor;
}

struct vagx_resource {
   struct pipe_resource base;
   struct vagx_bo *bo;
   struct vagx_layout layout;
   uint64_t modifier;
   unsigned vformat;          /* enum vagx_format */
   struct vagx_batch *writer; /* batch currently writing this resource */
   unsigned reader_mask;      /* batches reading it */
   /* invalidate_resource: the contents are undefined until a batch stores
    * it again, so batches begun meanwhile do not load it as depth/stencil */
   bool undefined;
   /* whole-image CPU readbacks while twiddled (vagx_readback.c) */
   unsigned whole_reads;
   struct vagx_resource *separate_stencil;
};

static inline struct vagx_resource *vagx_resource(struct pipe_resource *p) { return (struct vagx_resource *)p; }

struct vagx_transfer {
   struct pipe_transfer base;
   void *staging;
   size_t staging_capacity;   /* bytes allocated (vagx_staging_get) */
   unsigned staging_stride;
   /* sparse texture: the copy of its level that staging is detiled from
    * and tiled into (vagx_resource.c) */
   struct vagx_sparse_level *sparse_level;
};

/* A pipe fence (vagx_fence.c): a point of its screen's timeline, or an
 * imported sync_file's syncobj, or neither (signalled) */
struct vagx_fence {
   struct pipe_reference reference;
   struct vagx_device *dev;
   uint32_t syncobj;    /* imported (sync_file); 0 otherwise */
   uint64_t seq;        /* the screen submit it completes (a point of screen->timeline); 0: none */
   int signalled;       /* seen signalled (p_atomic) */
};

struct vagx_uncompiled_shader {
   nir_shader *nir;
   /* vertex shaders: stream output of the program (used when nir has no
    * xfb_info) and the outputs its register_index values count */
   struct pipe_stream_output_info so_info;
   uint64_t so_outputs_written;
   /* struct vagx_variant_key * -> struct vagx_compiled_shader *, the key
    * being the variant's own (vagx_variant.c) */
   struct hash_table *variants;
   const char *error;
   /* SHA-1 of the preprocessed NIR: with the variant key, the disk cache's
    * key of a compiled variant (vagx_shader.c) */
   unsigned char nir_sha1[20];
};

/* What a blend CSO changes in a fragment shader variant (the options of
 * nir_lower_blend), normalised by vagx_blend_key_init: rt[i] is render
 * target i's state whether or not the CSO is independent, and a disabled
 * blend has no functions or factors, so equal blending compares equal. */
struct vagx_blend_rt_key {
   uint8_t enable, colormask;
   uint8_t rgb_func, rgb_src, rgb_dst;
   uint8_t alpha_func, alpha_src, alpha_dst;
};

struct vagx_blend_key {
   struct vagx_blend_rt_key rt[PIPE_MAX_COLOR_BUFS];
   uint8_t present; /* a blend CSO is bound (else nir_lower_blend does not run) */
   uint8_t logicop_enable, logicop_func;
   uint8_t zero;    /* fills the key to a multiple of 4 bytes: no padding */
};

/* The whole identity of a shader variant: compared with memcmp and hashed
 * as a whole (vagx_variant_key_equal/_hash), so built zeroed. */
struct vagx_variant_key {
   struct vagx_fs_key base; /* compiler key; base.blend_hash stays 0 */
   struct vagx_blend_key blend;
};

struct vagx_compiled_shader {
   struct vagx_variant_key key;
   struct vagx_shader_info info;
   struct vagx_bo *bo;   /* code */
   bool ok;
   int stipple_unit;     /* texture/sampler unit of the stipple pattern, -1: none */
};

#define VAGX_MAX_BATCHES 8

/* A pipe_query.  Occlusion queries count in hardware (cmd_query_begin/end in
 * the control stream of every batch that draws while the query is active;
 * the counter type adds to the u64 in bo, so several batches accumulate).
 * Timestamp and time-elapsed queries flush every batch, wait for the
 * context's last submit and read the device counter: the time at which all
 * earlier work completed. */
struct vagx_query {
   unsigned type;        /* PIPE_QUERY_* */
   /* u64 result of a query the device counts: a slot of the context's
    * query slab (ctx->query_slab), res's BO at offset */
   struct pipe_resource *res;
   unsigned offset;
   unsigned batch_mask;  /* batches whose control stream writes bo */
   bool in_job;          /* begun in a control stream since its reset */
   uint64_t start, end;  /* ns, timestamp / time-elapsed queries */
};

/* A stream-output target.  The device keeps its write offset in offset_bo
 * (cmd_stream_out_buffer.offset_va), so a later batch (or job) appends. */
struct vagx_so_target {
   struct pipe_stream_output_target base;
   struct vagx_bo *offset_bo;
   bool reset;             /* next binding starts at reset_offset instead of appending */
   unsigned reset_offset;
   unsigned stride;        /* bytes per vertex at the last binding (DrawTransformFeedback) */
};

/* Part of a batch's memory: command-stream chunks are chained with
 * cmd_jump, data chunks hold descriptors, uniforms and shader data. */
struct vagx_chunk {
   struct vagx_bo *bo;
   uint32_t used;                  /* bytes */
};

/* A submitted batch's memory, kept until its job (seq) completes */
struct vagx_inflight {
   uint64_t seq;
   struct util_dynarray bos;       /* struct vagx_bo * referenced */
   struct util_dynarray chunks;    /* struct vagx_chunk */
};

/* Bytes of a pooled chunk (vagx_batch.c) */
#define VAGX_CHUNK_SIZE (64 * 1024)

struct vagx_batch {
   struct vagx_context *ctx;
   unsigned idx;
   bool active;
   uint64_t seq;                   /* ctx->batch_seq when it began: tells reuse of the slot */
   struct pipe_framebuffer_state key;
   struct util_dynarray bos;       /* struct vagx_bo * referenced */
   struct util_dynarray writes;    /* struct vagx_bo * of bos the job writes */
   /* BITSET_WORD by GEM handle: the BOs in bos / writes (vagx_batch.c) */
   struct util_dynarray bo_set, write_set;
   struct util_dynarray cs_chunks; /* struct vagx_chunk: the control stream, in order */
   struct util_dynarray data_chunks; /* struct vagx_chunk: descriptors, uniforms */
   uint64_t chunk_bytes;           /* size of all chunks (bounds the batch) */
   /* where vagx_cs_emit packs a command when no chunk can be allocated
    * (the batch has failed): per batch, as contexts run on any thread */
   uint32_t cs_scratch[32];
   unsigned clear;                 /* PIPE_CLEAR_* */
   union pipe_color_union clear_color[8];
   double clear_depth;
   unsigned clear_stencil;
   unsigned draws;
   uint32_t draw_id_base;          /* cmd_draw_id_base's base in the control stream (the
                                    * device starts every job at 0) */
   /* upper bound of the job's geometry budget use (docs/hw/render.md): its
    * primitives, draws, pipeline binds, distinct programs and queries */
   uint64_t geometry;
   /* struct vagx_bo * of the code of every program the control stream
    * binds: the device charges a program's decoded form once per job */
   struct set *programs;
   bool zs_discard;                /* zsbuf undefined or invalidated since its last clear or
                                    * writing draw: not stored */
   bool zs_undefined;              /* zsbuf was undefined when the batch began: not loaded */
   bool stencil_used;              /* a draw tested or wrote stencil (or exported it): without
                                    * one and without a stencil clear, the stencil stays in
                                    * memory, neither loaded nor stored */
   bool failed;
   /* a draw's shader stores to buffers or does atomics: memory_barrier
    * submits the batch, so that later draws (their vertex shaders run
    * before any fragment shader of the job) and dispatches see it */
   bool incoherent_writes;
   struct vagx_query *query;       /* occlusion query begun in this control stream */
   struct vagx_query *prim_query[2]; /* primitives generated / emitted query begun */
   bool so_on;                     /* stream output enabled in the control stream */
   unsigned so_gen;                /* ctx->so_gen of the bindings emitted */
   const void *so_vs;              /* vertex shader the declarations were made for */
   struct pipe_resource *so_res[PIPE_MAX_SO_BUFFERS]; /* stream-out buffers written */
};

/* CSOs, converted to the contract's formats once when they are created
 * (vagx_state.c); the draw path copies or packs the result only when the
 * state is dirty. */
struct vagx_vertex_elements {
   unsigned count;
   struct pipe_vertex_element el[PIPE_MAX_ATTRIBS];
   /* vertex shader variant key bits (vagx_get_variant) */
   uint8_t attr_comps[PIPE_MAX_ATTRIBS];
   uint32_t attr_int;
   /* the format of each element the shader converts (vagx_lower_vertex.c),
    * PIPE_FORMAT_NONE for 32-bit formats */
   uint16_t attr_format[PIPE_MAX_ATTRIBS];
};

struct vagx_blend_state {
   struct pipe_blend_state base;
   /* the variant key for PIPE_MAX_COLOR_BUFS render targets; a variant
    * takes the first nr_cbufs (vagx_blend_key_init) */
   struct vagx_blend_key key;
   /* render targets the blend reads or masks (blend_enable or a partial
    * colormask), or all of them with logic op / alpha-to-coverage /
    * alpha-to-one: no `opaque` fragment pipeline (fs_is_opaque) */
   uint32_t not_opaque_rts;
};

struct vagx_rasterizer_state {
   struct pipe_rasterizer_state base;
   /* cmd_rasterizer with a 1X framebuffer's multisample and sample mask */
   struct vagx_cmd_rasterizer cmd;
   uint32_t packed_1x[VAGX_CMD_RASTERIZER_LENGTH / 4];
};

struct vagx_zsa_state {
   struct pipe_depth_stencil_alpha_state base;
   /* cmd_depth_stencil without the stencil references (set_stencil_ref) */
   struct vagx_cmd_depth_stencil cmd;
   uint8_t ref_index[2];   /* stencil_ref.ref_value[] of the front and back face */
   bool writes_zs;         /* a draw can write depth or stencil */
   bool stencil_enabled;
};

struct vagx_sampler_state {
   struct pipe_sampler_state base;
   uint32_t desc[VAGX_SAMPLER_LENGTH / 4];
};

struct vagx_sampler_view {
   struct pipe_sampler_view base;
   /* texture descriptor of the view, for desc_bo: repacked when a buffer
    * rename gave the resource new storage */
   uint32_t desc[VAGX_TEXTURE_LENGTH / 4];
   struct vagx_bo *desc_bo;
};

/* What the control stream of the current batch lacks (ctx->dirty): a bind
 * or set marks what it changes, a draw emits only the marked commands.
 * State persists for the rest of a job and is undefined when one starts
 * (docs/hw/render.md, "Control stream"), so a draw into another batch
 * than the last one's emits everything. */
enum vagx_dirty {
   VAGX_DIRTY_VS = BITFIELD_BIT(0),       /* cmd_bind_vertex_pipeline */
   VAGX_DIRTY_FS = BITFIELD_BIT(1),       /* cmd_bind_fragment_pipeline */
   VAGX_DIRTY_VIEWPORT = BITFIELD_BIT(2), /* cmd_viewport */
   VAGX_DIRTY_SCISSOR = BITFIELD_BIT(3),  /* cmd_scissor */
   VAGX_DIRTY_RAST = BITFIELD_BIT(4),     /* cmd_rasterizer */
   VAGX_DIRTY_ZS = BITFIELD_BIT(5),       /* cmd_depth_stencil */
   VAGX_DIRTY_VS_VARIANT = BITFIELD_BIT(6), /* the vertex shader variant to look up again */
   VAGX_DIRTY_FS_VARIANT = BITFIELD_BIT(7), /* the fragment shader variant to look up again */
   VAGX_DIRTY_GS = BITFIELD_BIT(8),       /* cmd_(un)bind_geometry_pipeline */
   VAGX_DIRTY_GS_VARIANT = BITFIELD_BIT(9), /* the geometry shader variant to look up again */
   VAGX_DIRTY_ALL = BITFIELD_MASK(10),
   /* what a draw's state emission leaves for the next draw */
   VAGX_DIRTY_VARIANTS = VAGX_DIRTY_VS_VARIANT | VAGX_DIRTY_FS_VARIANT | VAGX_DIRTY_GS_VARIANT,
};

struct vagx_context {
   struct pipe_context base;
   struct vagx_screen *screen;
   struct slab_child_pool transfer_pool;
   /* the staging allocation kept for the next map (vagx_readback.c) */
   void *staging;
   size_t staging_size;
   struct blitter_context *blitter;

   struct pipe_framebuffer_state fb;
   struct vagx_batch batches[VAGX_MAX_BATCHES];
   struct vagx_batch *batch;
   /* one dispatch at a time (vagx_compute.c), idx VAGX_MAX_BATCHES */
   struct vagx_batch compute_batch;
   bool computed;                  /* a dispatch was submitted (queue checks) */
   /* struct vagx_bo *: VAGX_CHUNK_SIZE chunks of completed batches */
   struct util_dynarray chunk_pool;
   /* struct vagx_inflight: submitted batches whose job may still run, in
    * order; their BOs and chunks are released when it completes */
   struct util_dynarray inflight;
   uint64_t last_seq;              /* seq of the context's last submit */
   /* struct vagx_fence *: fence_server_sync fences the next submit waits for */
   struct util_dynarray wait_fences;
   uint64_t batch_seq;             /* batches begun */

   struct vagx_blend_state *blend;
   struct vagx_rasterizer_state *rast;
   struct vagx_zsa_state *zsa;
   struct vagx_vertex_elements *vtx;
   struct vagx_uncompiled_shader *vs, *fs, *cs, *gs;

   /* dirty tracking (enum vagx_dirty) */
   uint32_t dirty;
   uint64_t state_seq;             /* vagx_batch.seq of the batch the state was emitted into */
   unsigned rename_seen;           /* screen->renames when the pipelines were emitted */
   /* the variants of the last draw (valid without VAGX_DIRTY_*_VARIANT, the
    * fragment one for the same variant_tri) and those bound in the control
    * stream */
   struct vagx_compiled_shader *vs_variant, *fs_variant, *gs_variant;
   bool variant_tri;
   const struct vagx_compiled_shader *bound_vs, *bound_fs;
   /* the geometry pipeline the batch's stream has bound, NULL: unbound */
   const struct vagx_compiled_shader *bound_gs;
   struct pipe_vertex_buffer vb[PIPE_MAX_ATTRIBS];
   unsigned vb_count;
   struct pipe_constant_buffer cb[PIPE_SHADER_TYPES][PIPE_MAX_CONSTANT_BUFFERS];
   /* shader buffers (SSBOs, atomic counter buffers) per stage, and which
    * are writable (set_shader_buffers) */
   struct pipe_shader_buffer ssbo[PIPE_SHADER_TYPES][PIPE_MAX_SHADER_BUFFERS];
   uint32_t ssbo_writable[PIPE_SHADER_TYPES];
   /* what an unbound shader-buffer slot points at (size 0: every access is
    * out of bounds and goes to its offset 0) */
   struct vagx_bo *null_ssbo;
   /* image views per stage (set_shader_images, vagx_image.c) */
   struct pipe_image_view images[PIPE_SHADER_TYPES][PIPE_MAX_SHADER_IMAGES];
   struct pipe_sampler_view *views[PIPE_SHADER_TYPES][PIPE_MAX_SHADER_SAMPLER_VIEWS];
   unsigned view_count[PIPE_SHADER_TYPES];
   struct vagx_sampler_state *samplers[PIPE_SHADER_TYPES][PIPE_MAX_SAMPLERS];
   unsigned sampler_count[PIPE_SHADER_TYPES];
   struct pipe_viewport_state viewport;
   struct pipe_scissor_state scissor;
   struct pipe_blend_color blend_color;
   struct pipe_stencil_ref stencil_ref;
   struct pipe_clip_state clip;
   unsigned sample_mask;

   /* polygon stipple pattern (util_pstipple), sampled by FS variants keyed
    * with poly_stipple at their stipple_unit */
   struct pipe_resource *stipple_tex;
   /* 1x1 RGBA8 (0, 0, 0, 1): texture units without a view */
   struct pipe_sampler_view *null_view;
   struct pipe_sampler_view *stipple_view;
   void *stipple_sampler;

   /* the u64 results of queries, many to a buffer (vagx_query.c) */
   struct u_suballocator query_slab;
   struct vagx_query *occlusion;   /* active occlusion query */
   struct vagx_query *prim_query[2]; /* active primitives generated / emitted query */
   struct pipe_stream_output_target *so_targets[PIPE_MAX_SO_BUFFERS];
   unsigned so_num;
   unsigned so_gen;                /* bumped by set_stream_output_targets */
   bool queries_paused;            /* set_active_query_state(false): blitter */
   struct vagx_query *cond_query;  /* render_condition */
   bool cond_cond;
   enum pipe_render_cond_flag cond_mode;
};

static inline struct vagx_context *vagx_context(struct pipe_context *p) { return (struct vagx_context *)p; }

/* The stage whose outputs reach stream output and the rasteriser: the
 * geometry shader when one is bound */
static inline struct vagx_uncompiled_shader *
vagx_last_vertex_stage(const struct vagx_context *ctx)
{
   return ctx->gs ? ctx->gs : ctx->vs;
}

/* vagx_fence.c: fences and the submission timeline */
void vagx_init_screen_fence_functions(struct pipe_screen *pscreen);
void vagx_init_context_fence_functions(struct pipe_context *pctx);
void vagx_screen_fini_timeline(struct vagx_screen *s);
void vagx_fence_reference(struct vagx_fence **ptr, struct vagx_fence *f);
/* Submits a render or compute job (queue_type DRM_VAGX_QUEUE_TYPE_*);
 * returns its seq, 0 when the submit failed. */
uint64_t vagx_screen_submit(struct vagx_screen *s, unsigned queue_type, uint64_t desc_va,
                            struct vagx_bo *const *bos, unsigned bo_count,
                            struct vagx_bo *const *writes, unsigned write_count,
                            const uint32_t *waits, unsigned wait_count);
uint64_t vagx_screen_completed_seq(struct vagx_screen *s);
/* false at the timeout (abs, CLOCK_MONOTONIC ns; INT64_MAX: none) */
bool vagx_screen_wait_seq(struct vagx_screen *s, uint64_t seq, int64_t abs_timeout);
/* Waits until the CPU may read (write false: the last write is done) or
 * write (every use is done) the BO.  Submitted work only: flush first. */
void vagx_bo_wait_idle(struct vagx_screen *s, struct vagx_bo *bo, bool write);
/* Whether vagx_bo_wait_idle(s, bo, write) would wait */
bool vagx_bo_is_busy(struct vagx_screen *s, struct vagx_bo *bo, bool write);
struct vagx_fence *vagx_context_fence(struct vagx_context *ctx);

/* vagx_bo_cache.c */
void vagx_bo_cache_init(struct vagx_screen *s);
void vagx_bo_cache_fini(struct vagx_screen *s);
struct vagx_bo *vagx_screen_bo_create(struct vagx_screen *s, uint64_t size, const char *label);

/* vagx_screen.c */
struct pipe_context *vagx_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags);
/* vagx_resource.c */
void vagx_init_resource_functions(struct pipe_screen *pscreen);
void vagx_init_context_resource_functions(struct pipe_context *pctx);
/* vagx_readback.c: staging copies of maps, taken from and given back to
 * the context's kept one (capacity: the bytes allocated) */
void *vagx_staging_get(struct vagx_context *ctx, size_t size, size_t *capacity);
void vagx_staging_put(struct vagx_context *ctx, void *p, size_t capacity);
void vagx_staging_fini(struct vagx_context *ctx);
/* A synchronized read map of the whole of a twiddled colour image with one
 * level, layer and sample: counts it, and from the
 * VAGX_LINEAR_AFTER_READS-th on moves the image to linear storage (the
 * contents detiled into it).  Returns whether it did. */
bool vagx_readback_make_linear(struct vagx_context *ctx, struct vagx_resource *rsrc,
                               unsigned level, unsigned usage, const struct pipe_box *box);
/* vagx_state.c */
void vagx_init_state_functions(struct pipe_context *pctx);
/* vagx_shader.c */
void vagx_init_shader_functions(struct pipe_context *pctx);
struct vagx_compiled_shader *vagx_get_variant(struct vagx_context *ctx,
                                              struct vagx_uncompiled_shader *so,
                                              const struct vagx_fs_key *key);
/* vagx_variant.c */
void vagx_blend_key_init(struct vagx_blend_key *k, const struct pipe_blend_state *blend,
                         unsigned nr_cbufs);
struct hash_table *vagx_variant_table_create(void *mem_ctx);
uint32_t vagx_variant_key_hash(const void *key);
bool vagx_variant_key_equal(const void *a, const void *b);
/* vagx_context.c */
struct pipe_sampler_view *vagx_null_view(struct vagx_context *ctx);
/* vagx_batch.c: batches, their memory, dependencies and submission */
struct vagx_batch *vagx_get_batch(struct vagx_context *ctx);
uint32_t *vagx_cs_emit(struct vagx_batch *b, unsigned bytes);
uint64_t vagx_batch_alloc(struct vagx_batch *b, unsigned size, unsigned align, void **cpu);
bool vagx_batch_upload(struct vagx_batch *b, const void *data, unsigned size, unsigned align,
                       uint64_t *va);
void vagx_batch_add_bo(struct vagx_batch *b, struct vagx_bo *bo);
void vagx_batch_add_bo_write(struct vagx_batch *b, struct vagx_bo *bo);
void vagx_context_retire(struct vagx_context *ctx);
void vagx_batch_read(struct vagx_batch *b, struct vagx_resource *r);
void vagx_batch_write(struct vagx_batch *b, struct vagx_resource *r);
bool vagx_batch_is_full(const struct vagx_batch *b);
void vagx_batch_charge_bind(struct vagx_batch *b, struct vagx_bo *code, unsigned code_words);
void vagx_flush_batch(struct vagx_context *ctx, struct vagx_batch *batch);
void vagx_flush_all(struct vagx_context *ctx);
void vagx_flush_writer(struct vagx_context *ctx, struct vagx_resource *rsrc);
void vagx_flush_readers(struct vagx_context *ctx, struct vagx_resource *rsrc);
void vagx_batch_destroy_all(struct vagx_context *ctx);
struct vagx_batch *vagx_compute_batch_begin(struct vagx_context *ctx);
uint64_t vagx_compute_batch_submit(struct vagx_context *ctx, struct vagx_batch *b, uint64_t jva);
/* vagx_cmdstream.c: descriptors and state commands */
/* Tile-buffer format of a render target slot with no surface (glDrawBuffers
 * with GL_NONE before a bound slot): the job needs a valid format per slot,
 * nothing loads or stores it, and the shader's writes to it are dropped. */
#define VAGX_UNBOUND_RT_FORMAT PIPE_FORMAT_R8_UNORM
unsigned vagx_fb_samples(const struct pipe_framebuffer_state *fb);
unsigned vagx_msaa(unsigned nr_samples);
void vagx_pack_texture(struct vagx_resource *r, enum pipe_format fmt, const unsigned char swz[4],
                       unsigned first_level, unsigned last_level, unsigned first_layer,
                       unsigned last_layer, uint32_t *out);
/* the texture / PBE descriptor dimension of a resource target */
unsigned vagx_dimension(enum pipe_texture_target target);
void vagx_pack_pbe(struct vagx_resource *r, enum pipe_format fmt, unsigned level, unsigned layer,
                   uint32_t *out);
unsigned vagx_prim(enum mesa_prim p);
void vagx_sampler_view_desc(struct pipe_sampler_view *v);
/* gs: the geometry shader's variant, NULL without one */
bool vagx_emit_draw_state(struct vagx_context *ctx, struct vagx_batch *b,
                          const struct vagx_compiled_shader *vs,
                          const struct vagx_compiled_shader *gs,
                          const struct vagx_compiled_shader *fs);
/* The uniform words of a program for a stage, and its usc_program
 * (uniforms and descriptors in the batch's memory); false without memory */
void vagx_fill_push(struct vagx_context *ctx, struct vagx_batch *b,
                    const struct vagx_shader_info *info, enum pipe_shader_type stage,
                    uint32_t *push);
bool vagx_program_for(struct vagx_context *ctx, struct vagx_batch *b,
                      const struct vagx_shader_info *info, struct vagx_bo *code_bo,
                      const uint32_t *push, struct vagx_usc_program *p,
                      enum pipe_shader_type stage, int stipple_unit);
/* vagx_query.c */
void vagx_init_query_functions(struct pipe_context *pctx);
void vagx_query_slab_init(struct vagx_context *ctx);
bool vagx_render_condition_passes(struct vagx_context *ctx);
void vagx_batch_update_queries(struct vagx_context *ctx, struct vagx_batch *b);
void vagx_batch_end_query(struct vagx_batch *b);
/* vagx_streamout.c */
void vagx_init_streamout_functions(struct pipe_context *pctx);
/* vs: the last vertex stage's variant (the geometry shader's if bound) */
bool vagx_batch_update_so(struct vagx_context *ctx, struct vagx_batch *b,
                          const struct vagx_compiled_shader *vs);
void vagx_draw_from_so(struct pipe_context *pctx, const struct pipe_draw_info *info,
                       unsigned drawid_offset, struct pipe_stream_output_target *target);
/* vagx_draw.c */
void vagx_init_draw_functions(struct pipe_context *pctx);
/* vagx_compute.c: launch_grid, shader buffers, barriers.  Offsets into a
 * shader buffer stay below VAGX_MAX_SHADER_BUFFER_SIZE (vagx_emit_mem.c:
 * ld_global sign-extends its 32-bit offset): the max_shader_buffer_size
 * cap, GLES 3.1's minimum */
#define VAGX_MAX_SHADER_BUFFER_SIZE (1u << 27)
void vagx_init_compute_functions(struct pipe_context *pctx);
/* The context's null buffer (unbound shader-buffer slots and image units),
 * added to the batch; 0 when it cannot be created */
#define VAGX_NULL_BUFFER_SIZE 4096
uint64_t vagx_null_buffer_va(struct vagx_context *ctx, struct vagx_batch *b);
/* vagx_image.c: the program's table of count PBE descriptors (image units
 * 0..count-1 of stage; writes: the program writes memory), and an image
 * uniform word (VAGX_PUSH_IMAGE_*) */
bool vagx_image_table(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
                      unsigned count, bool writes, struct vagx_usc_program *p);
uint32_t vagx_image_push(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
                         unsigned kind, unsigned unit);
void vagx_init_image_functions(struct pipe_context *pctx);
void vagx_image_fini(struct vagx_context *ctx);
void vagx_compute_fini(struct vagx_context *ctx);
/* The (VA, size) of shader buffer `i` of a stage for the uniforms, marking
 * its resource read or written by the batch (unbound: the null buffer) */
void vagx_ssbo_bind(struct vagx_context *ctx, struct vagx_batch *b, enum pipe_shader_type stage,
                    unsigned i, bool writes, uint64_t *va, uint32_t *size);
/* vagx_commit.c: sparse textures.  Gives rsrc (its layout computed) a
 * sparse BO and its nr_sparse_levels; false if the image cannot be sparse
 * (format, target, samples, or layers sharing pages: docs/mesa-driver.md) */
bool vagx_sparse_texture_init(struct vagx_screen *screen, struct vagx_resource *rsrc);
void vagx_init_screen_sparse_functions(struct pipe_screen *pscreen);
/* vagx_commit.c: sparse resources */
void vagx_init_commit_functions(struct pipe_context *pctx);
/* Whether the box of a sparse buffer lies in pages committed since any job
 * or pending batch last used the buffer: no job can see their backing yet,
 * so the CPU may write them without waiting */
bool vagx_sparse_is_fresh(struct vagx_context *ctx, struct vagx_resource *rsrc,
                          const struct pipe_box *box);

#endif
