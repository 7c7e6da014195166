/* SPDX-License-Identifier: MIT */
#ifndef VAGX_CONTEXT_H
#define VAGX_CONTEXT_H

#include "pipe/p_context.h"
#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "util/disk_cache.h"
#include "util/slab.h"
#include "util/u_dynarray.h"
#include "util/u_transfer_helper.h"
#include "compiler/nir/nir.h"
#include "vagx_device.h"
#include "vagx_compiler.h"
#include "vagx_layout.h"

struct blitter_context;

struct vagx_screen {
   struct pipe_screen base;
   struct vagx_device dev;
   struct slab_parent_pool transfer_pool;
   struct disk_cache *disk_cache;
   uint32_t debug;
};

static inline struct vagx_screen *vagx_screen(struct pipe_screen *p) { return (struct vagx_screen *)p; }

struct vagx_resource {
   struct pipe_resource base;
   struct vagx_bo *bo;
   struct vagx_layout layout;
   uint64_t modifier;
   unsigned vformat;          /* enum vagx_format */
   struct vagx_batch *writer; /* batch currently writing this resource */
   unsigned reader_mask;      /* batches reading it */
   struct vagx_resource *separate_stencil;
};

static inline struct vagx_resource *vagx_resource(struct pipe_resource *p) { return (struct vagx_resource *)p; }

struct vagx_transfer {
   struct pipe_transfer base;
   void *staging;
   unsigned staging_stride;
};

struct vagx_fence {
   struct pipe_reference reference;
   uint32_t syncobj;
   int status;          /* 0 ok, else negative errno reported by the job */
};

struct vagx_uncompiled_shader {
   nir_shader *nir;
   /* vertex shaders: stream output of the program (used when nir has no
    * xfb_info) and the outputs its register_index values count */
   struct pipe_stream_output_info so_info;
   uint64_t so_outputs_written;
   struct vagx_shader_info base_variant; /* default key, compiled at CSO creation */
   bool base_ok;
   struct util_dynarray variants;      /* struct vagx_compiled_shader * */
   const char *error;
};

struct vagx_compiled_shader {
   struct vagx_fs_key key;
   struct vagx_shader_info info;
   struct vagx_bo *bo;   /* code */
   bool ok;
   int stipple_unit;     /* texture/sampler unit of the stipple pattern, -1: none */
};

#define VAGX_MAX_BATCHES 8

/* A pipe_query.  Occlusion queries count in hardware (cmd_query_begin/end in
 * the control stream of every batch that draws while the query is active;
 * the counter type adds to the u64 in bo, so several batches accumulate).
 * Timestamp and time-elapsed queries flush every batch and read the device
 * counter: submits wait for their job, so the counter then is the time at
 * which all earlier work completed. */
struct vagx_query {
   unsigned type;        /* PIPE_QUERY_* */
   struct vagx_bo *bo;   /* u64 result of an occlusion query */
   unsigned batch_mask;  /* batches whose control stream writes bo */
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

struct vagx_batch {
   struct vagx_context *ctx;
   unsigned idx;
   bool active;
   struct pipe_framebuffer_state key;
   struct util_dynarray bos;       /* struct vagx_bo * referenced */
   struct vagx_bo *cs;             /* control stream + descriptors pool */
   uint32_t cs_used;               /* control stream bytes (first half) */
   uint32_t data_used;             /* descriptor/uniform bytes (second half) */
   unsigned clear;                 /* PIPE_CLEAR_* */
   union pipe_color_union clear_color[8];
   double clear_depth;
   unsigned clear_stencil;
   unsigned draws;
   uint64_t geometry;              /* upper bound of the job's geometry budget use */
   unsigned resolve;
   bool failed;
   struct vagx_query *query;       /* occlusion query begun in this control stream */
   struct vagx_query *prim_query[2]; /* primitives generated / emitted query begun */
   bool so_on;                     /* stream output enabled in the control stream */
   unsigned so_gen;                /* ctx->so_gen of the bindings emitted */
   const void *so_vs;              /* vertex shader the declarations were made for */
   struct pipe_resource *so_res[PIPE_MAX_SO_BUFFERS]; /* stream-out buffers written */
};

struct vagx_vertex_elements {
   unsigned count;
   struct pipe_vertex_element el[PIPE_MAX_ATTRIBS];
};

struct vagx_context {
   struct pipe_context base;
   struct vagx_screen *screen;
   struct slab_child_pool transfer_pool;
   struct blitter_context *blitter;

   struct pipe_framebuffer_state fb;
   struct vagx_batch batches[VAGX_MAX_BATCHES];
   struct vagx_batch *batch;
   uint32_t last_syncobj;
   uint64_t batch_seq;

   struct pipe_blend_state *blend;
   struct pipe_rasterizer_state *rast;
   struct pipe_depth_stencil_alpha_state *zsa;
   struct vagx_vertex_elements *vtx;
   struct vagx_uncompiled_shader *vs, *fs;
   struct pipe_vertex_buffer vb[PIPE_MAX_ATTRIBS];
   unsigned vb_count;
   struct pipe_constant_buffer cb[PIPE_SHADER_TYPES][PIPE_MAX_CONSTANT_BUFFERS];
   struct pipe_sampler_view *views[PIPE_SHADER_TYPES][PIPE_MAX_SHADER_SAMPLER_VIEWS];
   unsigned view_count[PIPE_SHADER_TYPES];
   struct pipe_sampler_state *samplers[PIPE_SHADER_TYPES][PIPE_MAX_SAMPLERS];
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

/* vagx_screen.c */
struct pipe_context *vagx_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags);
/* vagx_resource.c */
void vagx_init_resource_functions(struct pipe_screen *pscreen);
void vagx_init_context_resource_functions(struct pipe_context *pctx);
/* vagx_state.c */
void vagx_init_state_functions(struct pipe_context *pctx);
struct vagx_compiled_shader *vagx_get_variant(struct vagx_context *ctx,
                                              struct vagx_uncompiled_shader *so,
                                              const struct vagx_fs_key *key);
/* vagx_context.c */
bool vagx_render_condition_passes(struct vagx_context *ctx);
struct pipe_sampler_view *vagx_null_view(struct vagx_context *ctx);
/* vagx_draw.c */
void vagx_init_draw_functions(struct pipe_context *pctx);
struct vagx_batch *vagx_get_batch(struct vagx_context *ctx);
void vagx_flush_batch(struct vagx_context *ctx, struct vagx_batch *batch);
void vagx_flush_all(struct vagx_context *ctx);
void vagx_flush_writer(struct vagx_context *ctx, struct vagx_resource *rsrc);
void vagx_flush_readers(struct vagx_context *ctx, struct vagx_resource *rsrc);
void vagx_batch_destroy_all(struct vagx_context *ctx);
void vagx_batch_end_query(struct vagx_batch *b);

#endif
