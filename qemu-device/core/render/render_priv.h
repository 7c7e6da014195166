/* SPDX-License-Identifier: MIT */
/* Internal structures of the vagx tile renderer (see render.h). */
#ifndef VAGX_RENDER_PRIV_H
#define VAGX_RENDER_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "vagx_layout.h"

#define R_SUBPIX_BITS 8                 /* window x/y snapped to 1/256 pixel */
#define R_SUBPIX (1 << R_SUBPIX_BITS)
#define R_TS VAGX_TILE_SIZE
#define R_MAX_OUT (4 + 3 * 127 + 3 * 127 + 1 + VAGX_MAX_CLIP_DISTANCES)

struct rjob;

/* A program bound to a stage, with its uniforms read at bind time. */
struct rprog {
   struct vagx_usc_program desc;
   const struct vagx_usc_decoded *prog;
   uint32_t *uniforms;
   unsigned cost;             /* vagx_usc_program_cost() */
};

/* Hidden-surface removal (render_tile.c: hsr_ok) rasterises a run's
 * primitives twice to shade each sample once: it pays only where hidden
 * fragments cost much more to shade than the second pass costs.  Measured
 * with callgrind on glmark2's frames (100 frames, 800x600, HSR on / off),
 * whose objects hide little: build (fragment program of 7 instructions)
 * +9.3 % instructions with HSR, texture (12 and a sample) +1.4 %, phong
 * (65) +2.6 %; bench_render's small triangles and depth scene +14 % / +13 %.
 * So only programs of this cost or more (vagx_usc_program_cost: loops count
 * as very costly) take HSR; the others are shaded at every fragment. */
#define R_HSR_MIN_COST 128u

/* Per-draw fragment state snapshot (what the tiles need). */
struct rdraw {
   struct rprog *fs;
   struct vagx_cmd_bind_fragment_pipeline fp;
   struct vagx_cmd_rasterizer rs;
   struct vagx_cmd_depth_stencil ds;
   struct vagx_cmd_viewport vp;
   struct vagx_cmd_scissor sc;
   float blend[4];
   int query;                 /* index into job queries or -1 */
   struct vagx_cmd_bind_vertex_pipeline vpl; /* vertex output layout */
   unsigned ncf;              /* coefficient registers per primitive */
   struct vagx_cf_binding cfb[VAGX_MAX_CF_BINDINGS];
};

/* A primitive's coefficient registers are struct vagx_usc_plane (usc.h):
 * v(x,y) = c + a*(x-x0) + b*(y-y0) from the primitive's origin (x0, y0). */

/* Non-multisampled line under GL's diamond-exit rule (R_PRIM_LINE), in
 * major/minor axes (x/y for x-major, y/x for y-major), 1/256 fixed point.
 * Pixel (M, m) is covered when m0 <= M <= m1 and row(M) <= m < row(M) + w,
 * where row(M) is the minor pixel index of the (minor-shifted) line at the
 * pixel centre of column M (render_ppp.c: r_line_row). */
struct rline {
   bool ymajor;
   bool tie_up;               /* centre exactly on a minor pixel boundary: take the upper index */
   int64_t aM, am;            /* start point (minor already shifted by -(w-1)/2) */
   int64_t dM, dm;            /* direction, dM > 0 */
   int64_t ctr;               /* pixel-centre offset inside a pixel (half_pixel_center) */
   int32_t m0, m1;            /* covered major pixel range, inclusive */
   int32_t w;                 /* pixels in the minor direction per column */
};

enum { R_PRIM_TRI = 0, R_PRIM_LINE = 1 };

/* A raster primitive: one or two triangles in 1/256-pixel fixed point that
 * share one set of planes (multisampled lines and points are two triangles),
 * or a diamond-exit line (kind R_PRIM_LINE). */
struct rprim {
   uint32_t draw;
   uint32_t cf;               /* first coefficient register (plane) in the job's arena */
   uint8_t ntri;
   uint8_t kind;
   bool front;
   int64_t vx[2][3], vy[2][3];
   struct rline line;
   int32_t bx0, by0, bx1, by1; /* pixel bbox, inclusive-exclusive, clamped to fb */
   double x0, y0;             /* plane origin (pixels) */
   double za, zb, zc;         /* window depth plane */
   double zoff;               /* polygon offset */
};

struct rlist {
   uint32_t *v;
   uint32_t n, cap;
};

/* What the PPP produces: primitives, their coefficient registers and the
 * bins they go to.  The job has one, whose primitives go straight into the
 * job's bins; a primitive chunk run on a worker (render_geom_par.c) has its
 * own, `chunk` set, which logs its bin entries and is appended to the job's
 * afterwards, in order (r_primbuf_append), so the bins are those of the
 * serial PPP. */
struct rbin_ent {
   uint32_t tile, prim;       /* prim: index in the chunk's prims */
};
struct rprimbuf {
   struct rprim *prims; uint32_t nprims, cap_prims;
   struct vagx_usc_plane *cfs; uint64_t ncfs; uint32_t cap_cfs;
   struct rbin_ent *ents; uint32_t nents, cap_ents;
   bool chunk;
   double *scratch;           /* the clipper's vertices */
   uint32_t scratch_cap;
};

/* One assembled primitive waiting for the PPP: nv vertex pointers into the
 * draw's batch of shaded vertices (render_vdm.c). */
struct rprimref {
   const float *v[3];
   uint8_t nv, provoking;
};


/* Fast paths for the background / end-of-tile programs drivers emit for a
 * colour clear and a tile store (render_tile.c: r_fast_setup).  Exact: every
 * pixel that can be observed ends up as the interpreter would leave it. */
#define R_FAST_MAX 32
struct rfast_bg_st {          /* st_tile of a pixel-invariant value */
   uint8_t rt, s;
   uint8_t bytes[16];         /* the value packed in rt_format[rt] */
};
struct rfast_eot_st {         /* ld_tile.rt #s -> img_st.i (pix_x, pix_y), #ps */
   uint8_t rt, s, img;
   uint8_t ps;                /* sample of the PBE image stored */
   uint32_t raw[VAGX_PBE_DWORDS]; /* descriptor seen at setup (re-checked per tile) */
   struct vagx_pbe pbe;
   struct vagx_layout l;
};

struct rquery {
   uint64_t result_va;
   enum vagx_query_type type;
   _Atomic uint64_t count;
};

/* Stream output of the geometry phase (render_so.c; render.md, stream
 * output).  Only the calling thread touches it. */
struct rso_buf {
   bool bound;
   uint64_t base_va, offset_va;
   uint32_t size, stride;
   uint32_t offset;           /* write offset in bytes from base_va */
};
struct rso {
   bool enable;
   bool active;               /* this draw's primitives go through r_so_primitive */
   unsigned ndecl;
   unsigned used;             /* buffers the declarations name (bit mask) */
   struct vagx_stream_out_decl decl[VAGX_MAX_STREAM_OUT_DECLS];
   struct rso_buf buf[VAGX_MAX_STREAM_OUT_BUFFERS];
   int q_generated, q_emitted; /* active PRIMITIVES_* queries (job query index) or -1 */
};

/* Per-worker state. */
/* Texture and sampler descriptors the current job's instructions decoded,
 * per worker (render_tex.c): an instruction reads the same few descriptors
 * for every 32 lanes of every tile, and decoding one (MMU read, unpack,
 * layout) cost more than sampling its lanes.  Emptied when a job starts:
 * descriptors are read when a job first uses them and must not change
 * while it runs (descriptors.md, "USC program binding"). */
/* A translated span of guest memory (render_io.h: r_span_map). */
struct rspan {
   uint64_t va, end;          /* [va, end) translated; empty when va == end */
   uint8_t *host;             /* host address of va */
   unsigned access;           /* the access it was translated for */
};

/* Addressing of one (level, layer) of a layout (render_io.h). */
struct raddr {
   uint64_t base;             /* offset of (level, layer) from the image base */
   uint64_t row_B;            /* linear: row stride; twiddled: bytes per row of tiles */
   uint64_t tile_B;           /* twiddled: bytes per tile */
   uint32_t E;                /* element bytes (all samples) */
   uint32_t tw_log2, th_log2, tw_mask, th_mask;
   bool linear;
   bool spread_table;         /* tile sides <= R_SPREAD_N: Morton bits by table */
};

#define R_DESC_WAYS 8
struct rdesc_tex {
   uint64_t va;
   struct vagx_texture t;
   struct vagx_layout l;
   /* the texture lane path's addressing of the base level and whether
    * how the lanes can use it (enum r_lanes_fit): -1 until first use */
   int8_t base_fit;
   struct raddr base_addr;
   /* the lane path's last two translations (a footprint may cross a page),
    * newest first, valid while no memory safepoint of the worker expired
    * translations since (span_sp == rworker.safepoints): a translation per
    * page while the TLB holds instead of one per instruction */
   struct rspan span[2];
   uint64_t span_sp;
   /* r_tex_exec's lane path (2D, AUTO, one level and filter) for this
    * texture with the sampler at lanes_smp, once r_tex_exec has taken it:
    * the sampler's part of the lanes' parameters, so that the next tex of
    * the job with the same pair skips the descriptors' unpacked copies and
    * the tests that chose the path (descriptors do not change during a job,
    * and the cache is emptied for each) */
   bool lanes_ok, lanes_linear, lanes_unnormalized;
   uint8_t lanes_wrap_s, lanes_wrap_t;
   uint64_t lanes_smp;
};
struct rdesc_cache {
   unsigned ntex, nsmp, next_tex, next_smp;
   struct rdesc_tex tex[R_DESC_WAYS];
   struct {
      uint64_t va;
      struct vagx_sampler s;
   } smp[R_DESC_WAYS];
};

struct rworker {
   struct vagx_usc *usc;
   struct rdesc_cache *dc;
   void *mem_ctx;
   /* memory safepoints passed that expired translations (r_safepoint, and
    * the USC's through vagx_usc_env.safepoints): a span translated before
    * the last one must not be used */
   uint64_t safepoints;
   uint8_t *tb;               /* tile buffer: rt x sample x 32x32 x 16 B */
   float *depth;              /* 32x32 x samples */
   uint8_t *stencil;
   uint32_t *vis;             /* HSR: per sample, the visible primitive's id */
   uint32_t vis_next;         /* HSR: first id of the next run; ids below it are
                               * stale, 0 means vis must be cleared first */
   uint64_t frag_lanes;       /* statistics of the current job */
   uint64_t fast_bg, fast_eot, fast_bands;
} __attribute__((aligned(64))); /* lines of its own: counters written per block */

/* The last job's PPP output buffers, kept for the next job (render_primbuf.c). */
struct rkeep {
   struct rprimbuf pb;
   struct rprimbuf *chunks; unsigned cap_chunks;
   struct rlist *bins; size_t nbins;
};

struct vagx_render_device {
   struct vagx_usc_cache *cache;
   struct rkeep keep;
   struct rworker *w;
   unsigned nw;
   unsigned options;          /* VAGX_RENDER_OPT_* */
   unsigned forced_options;   /* from VAGX_RENDER_OPTIONS: always set */
   uint64_t geom_budget;      /* 0: VAGX_RENDER_GEOMETRY_BUDGET */
   struct vagx_render_stats stats;
};

struct rjob {
   struct vagx_render_device *dev;
   const struct vagx_render_env *env;
   struct vagx_usc_cache *cache;
   uint64_t desc_va;
   struct vagx_render_job rj;
   unsigned samples;          /* 1 or 4 */
   bool tile_avx2;            /* the tile phase runs r_tile_avx2 / r_band_avx2 */
   unsigned tiles_x, tiles_y;
   uint32_t rt_bpp[VAGX_MAX_RENDER_TARGETS];
   uint32_t rt_off[VAGX_MAX_RENDER_TARGETS]; /* byte offset in tile buffer */
   struct vagx_texture zs;
   bool have_zs;
   struct vagx_layout zs_layout;
   uint32_t base_instance;    /* the current draw's: sr.base_instance of its vertex shaders */
   int32_t base_vertex;       /* the current draw's sr.base_vertex (0 if not indexed) */
   uint32_t draw_id;          /* the current draw's sr.draw_id (cmd_draw.draw_id + base) */

   /* results of the geometry phase */
   struct rprog bg, eot;
   size_t tb_used;            /* bytes of a worker's tile buffer the job uses */
   bool bg_fast, bg_covers;   /* bg is invariant stores; they write every used plane */
   unsigned nbg_st;
   struct rfast_bg_st bg_st[R_FAST_MAX];
   uint8_t *bg_tmpl;          /* bg_fast: the tile buffer after the background program */
   bool eot_fast;             /* eot is whole-tile copies to linear PBEs */
   unsigned neot_st;
   struct rfast_eot_st eot_st[R_FAST_MAX];
   uint8_t *eot_row[R_FAST_MAX]; /* bands: one framebuffer row of each stored plane */
   bool band_ok;              /* whole tile rows without primitives may be bands */
   uint32_t *items;           /* work items: tile index, or R_BAND | tile row */
   unsigned nitems;
   struct rprog **progs; unsigned nprogs, cap_progs;
   const void **pset; unsigned npset, cap_pset; /* distinct decoded programs bound (charged once) */
   struct rdraw *draws; unsigned ndraws, cap_draws;
   struct rprimbuf pb;        /* the job's primitives (render_primbuf.c) */
   struct rlist *bins;
   struct rquery *queries; unsigned nqueries, cap_queries;
   uint64_t eoj_ts[16]; unsigned neoj_ts;
   struct rso so;
   /* geometry across workers (render_geom_par.c) */
   struct rprimref *refs;     /* the current draw's primitives not yet set up */
   unsigned nrefs;
   bool record;               /* emit_prim queues primitives in refs */
   struct rgs *gs;            /* the current draw's geometry stage, or NULL */
   bool gs_out;               /* emit_prim gets the stage's output primitives */
   struct rprimbuf *chunks;   /* one per primitive chunk of a parallel PPP */
   unsigned cap_chunks;
   uint64_t par_groups, par_chunks; /* statistics */

   /* geometry budget (render.md): charged by the calling thread and by
    * workers running primitive chunks */
   _Atomic uint64_t geom_used;
   uint64_t geom_budget;
   uint64_t draw_va;          /* the draw command being processed */

   /* error: first wins */
   pthread_mutex_t lock;
   _Atomic bool failed;
   struct vagx_render_fault fault;
   _Atomic bool nomem;
};

/* ---- errors & memory (render.c) ---- */
/* Per-worker state for n workers (worker indices 0..n-1); false when out of
 * memory.  Only between jobs: it may reallocate every worker's state. */
bool r_ensure_workers(struct vagx_render_device *d, unsigned n);
void r_fail(struct rjob *j, enum vagx_job_status st, enum vagx_unit unit, uint32_t detail,
            uint64_t addr);
void r_fault(struct rjob *j, unsigned worker, enum vagx_unit unit, uint64_t va, unsigned access);
/* Until called again with NULL, the calling thread's failures (except
 * aborts) only set *failed (render.c). */
void r_defer_failures(bool *failed);
bool r_stop(struct rjob *j);
/* The check every loop of the renderer reaches after a bounded amount of
 * work (a vertex group, a batch, a command, a primitive, a block of
 * fragments): the memory safepoint of `worker`, then r_stop.  Call it only
 * where the thread holds no translated address. */
bool r_checkpoint(struct rjob *j, unsigned worker);
/* The parallel-for (env->run), a memory safepoint of every worker: its
 * caller waits for the helpers outside its slice (core_render.c), so a TLB
 * invalidation may complete meanwhile; translations kept by any worker
 * index (texture spans, keyed on safepoint counts) are dropped. */
void r_run(struct rjob *j, unsigned n, vagx_render_item_fn fn, void *ctx);
/* The memory safepoint of worker (usc.h): called where the renderer holds no
 * translated address, between vertex groups and before each tile, so that a
 * TLB invalidation completes while a long job runs. */
void r_safepoint(struct rjob *j, unsigned worker);
void *r_map(struct rjob *j, unsigned worker, uint64_t va, uint32_t size, unsigned access,
            enum vagx_unit unit);
bool r_read(struct rjob *j, unsigned worker, uint64_t va, void *dst, uint64_t len,
            enum vagx_unit unit);
bool r_write(struct rjob *j, unsigned worker, uint64_t va, const void *src, uint64_t len,
             enum vagx_unit unit);
void *r_mem_ctx(struct rjob *j, unsigned worker);
struct rprog *r_bind_program(struct rjob *j, const struct vagx_usc_program *p, enum vagx_unit unit,
                             uint64_t where);
void r_usc_env(struct rjob *j, unsigned worker, const struct rprog *p, struct vagx_usc_env *env,
               const struct vagx_usc_gfx_ops *gfx, void *gfx_ctx);
void r_usc_fail(struct rjob *j, unsigned worker, const struct vagx_usc_result *res,
                const struct rprog *p);

/* ---- geometry (render_vdm.c, render_ppp.c) ---- */
void r_geometry(struct rjob *j);
void r_ppp_primitive(struct rjob *j, struct rprimbuf *pb, const struct rdraw *d, unsigned drawi,
                     const struct vagx_cmd_bind_vertex_pipeline *vp, const float *const *v,
                     unsigned nv, unsigned provoking);
/* Runs the vertex shader for n vertices on `worker` (ids[i] = vertex id, -1 =
 * restart), outputs at out + i * nout.  False when the job failed. */
bool r_run_vs(struct rjob *j, unsigned worker, const struct rprog *vs, const int64_t *ids,
              unsigned n, uint32_t instance, float *out, unsigned nout);

/* ---- primitive buffers (render_primbuf.c) ---- */
bool r_grow_prims(struct rprimbuf *pb, uint64_t n);
bool r_grow_cfs(struct rprimbuf *pb, uint64_t n);
bool r_bin_append(struct rlist *b, uint32_t prim);
bool r_log_bin(struct rprimbuf *pb, uint32_t tile, uint32_t prim);
/* Appends chunk c's primitives to the job's and its bin entries to the
 * job's bins; false (job failed, DEVICE_ERROR) when memory runs out. */
bool r_primbuf_append(struct rjob *j, const struct rprimbuf *c);
void r_primbuf_free(struct rprimbuf *pb);
void r_primbuf_adopt(struct rjob *j);
bool r_bins_alloc(struct rjob *j, size_t n);
void r_primbuf_release(struct rjob *j);
void r_keep_free(struct rkeep *k);

/* Vertices shaded and assembled together (render_vdm.c): a multiple of 2
 * and 3, and of the 32-vertex groups a batch is shaded in. */
#define R_VTX_BATCH 1536

/* ---- geometry across workers (render_geom_par.c) ---- */
/* Vertex shading of a batch: its 32-vertex groups on the pool when there are
 * enough of them, else on the calling thread.  Faults are those of the
 * serial order (the first faulting group's). */
bool r_shade_batch(struct rjob *j, const struct rprog *vs, const int64_t *ids, unsigned n,
                   uint32_t instance, float *out, unsigned nout);
/* Sets up and bins j->refs[0..nrefs) of draw drawi, in chunks on the pool
 * when there are enough, and empties refs. */
void r_ppp_flush(struct rjob *j, unsigned drawi);
bool r_geom_charge(struct rjob *j, uint64_t bytes);
/* Charges host memory kept for the job (draws, binds, programs, queries) to
 * the same budget; beyond it the job fails with INVALID_COMMAND at `addr`. */
bool r_budget_charge(struct rjob *j, uint64_t bytes, enum vagx_unit unit, uint64_t addr);
int64_t r_line_row(const struct rline *l, int64_t M);

/* ---- geometry stage (render_gs.c; contract 1.11) ---- */
struct rgs;
unsigned r_gs_out_words(const struct vagx_cmd_bind_geometry_pipeline *b);
bool r_gs_topology_ok(enum vagx_primitive prim, enum vagx_gs_input in);
void r_gs_layout(const struct vagx_cmd_bind_geometry_pipeline *b,
                 struct vagx_cmd_bind_vertex_pipeline *vp);
/* The stage's state for draw drawi (NULL when out of memory). */
struct rgs *r_gs_begin(struct rjob *j, const struct vagx_cmd_bind_geometry_pipeline *b,
                       const struct rprog *p, const struct rdraw *d, unsigned drawi);
void r_gs_end(struct rgs *g);
/* Starts the draw's instance with sr.instance_id `instance`. */
void r_gs_instance(struct rgs *g, uint32_t instance);
/* Queues an input primitive (running a group when it is full) / runs the
 * queued ones; false when the job failed. */
bool r_gs_input(struct rjob *j, struct rgs *g, const float *const *v, unsigned nv,
                unsigned provoking, bool provoking_first);
bool r_gs_flush(struct rjob *j, struct rgs *g);
/* Assembles output strips into primitives for stream output and the PPP
 * (render_vdm.c). */
void r_assemble_out(struct rjob *j, const struct rdraw *d, unsigned drawi,
                    enum vagx_primitive prim, const float *const *v, unsigned n);

/* ---- stream output (render_so.c) ---- */
/* These return false when the job has failed (error recorded). */
bool r_so_bind_buffer(struct rjob *j, const struct vagx_cmd_stream_out_buffer *c);
bool r_so_set(struct rjob *j, const struct vagx_cmd_stream_out *c, uint64_t cmd_va);
bool r_so_draw_begin(struct rjob *j, unsigned nout, uint64_t draw_va);
bool r_so_draw_end(struct rjob *j);
void r_so_primitive(struct rjob *j, const float *const *v, unsigned nv, unsigned provoking,
                    bool provoking_first);

/* ---- tiles (render_tile.c) ---- */
void r_tile(void *ctx, unsigned item, unsigned worker);
void r_fast_setup(struct rjob *j);
/* The same functions compiled for AVX2 (render_tile_avx2.c): exact, the
 * same results as the baseline copy (no FMA: -ffp-contract=off); the tile
 * phase takes them when usc_simd_level() allows AVX2. */
#if (defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)) || defined(R_TILE_AVX2_COPY)
#define R_HAVE_TILE_AVX2 1
void r_tile_avx2(void *ctx, unsigned item, unsigned worker);
void r_band_avx2(struct rjob *j, unsigned ty, unsigned worker);
#endif
#define R_BAND 0x80000000u
void r_band(struct rjob *j, unsigned ty, unsigned worker);

/* ---- formats & textures (render_tex.c) ---- */
void r_fmt_unpack(enum vagx_format f, const uint8_t *p, uint32_t out[4]);
void r_fmt_pack(enum vagx_format f, const uint32_t in[4], uint8_t *p, bool srgb_encode);
/* nearbyint(t) for 0 <= t < 2^52: adding 2^52 leaves no fraction bits, so
 * the addition rounds t to an integer in the current rounding mode, as
 * nearbyint does; the subtraction is exact.  nearbyint itself is a libm call
 * on the baseline x86-64 target (no SSE4.1 roundsd), and this runs for every
 * component a pixel stores and every depth a unorm depth buffer tests. */
static inline double r_round_small(double t)
{
   return (t + 0x1p52) - 0x1p52;
}

/* r_unorm_enc(v, bits) as a double, max = 2^bits - 1 (< 2^31), without a
 * branch, so that lane and row loops vectorise: v * max saturated to
 * [0, max] (NaN to 0) rounds to r_unorm_enc's value in each of its cases
 * (v < 1 gives v * max < max, v >= 1 at least max). */
static inline double r_unorm_round(float v, double max)
{
   double t = (double)v * max;
   t = t > 0 ? t : 0;
   t = t < max ? t : max;
   return r_round_small(t);
}

/* unorm encoding of v in `bits` bits (round to nearest, saturated). */
static inline uint32_t r_unorm_enc(float v, unsigned bits)
{
   const double max = (double)((1ull << bits) - 1);
   if (!(v > 0))
      return 0;
   if (v >= 1)
      return (uint32_t)max;
   return (uint32_t)r_round_small(v * max);
}
float r_half_to_float(uint16_t h);
uint16_t r_float_to_half(float f);
bool r_layout_from_texture(const struct vagx_texture *t, struct vagx_layout *l);
struct rtexctx {
   struct rjob *j;
   unsigned worker;
   const struct rprog *p;
   bool fragment;          /* derivatives available (quads) */
};
enum vagx_usc_status r_tex_exec(struct rtexctx *c, struct vagx_usc_gfx_call *call);
enum vagx_usc_status r_img_exec(struct rtexctx *c, struct vagx_usc_gfx_call *call, int eot_layer);

static inline float r_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t r_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

#endif
