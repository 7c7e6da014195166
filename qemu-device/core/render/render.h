/* SPDX-License-Identifier: MIT */
/*
 * vagx renderer core II: the tile-based graphics pipeline (RENDER jobs).
 *
 * Plain C11, no QEMU dependency.  Executes one render_job (docs/hw/render.md)
 * as the contract defines it: VDM (control stream, vertex shaders on the
 * USC), PPP (assembly, clipping, culling, viewport), binning into 32x32
 * tiles, then per tile (in parallel through the caller's pool): background
 * program, ISP (rasterisation, depth/stencil, queries), fragment shaders with
 * coefficient registers and tile-buffer access, end-of-tile program with PBE
 * stores.  See docs/hw/renderer-pipeline.md.
 *
 * Memory is reached only through env->mem->translate (the core's MMU), with a
 * per-worker translate context so each worker can use its own TLB.
 */
#ifndef VAGX_RENDER_H
#define VAGX_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "usc.h"
#include "vagx_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a job ended when it did not end OK (mirrors job_result). */
struct vagx_render_fault {
   enum vagx_job_status status;
   enum vagx_unit unit;
   uint32_t detail;     /* byte offset / ISA error, as errors.md says */
   uint64_t address;    /* fault VA, descriptor/command VA or instruction PC */
   unsigned access;     /* MMU_FAULT: enum vagx_usc_access bits of the access */
   unsigned worker;     /* MMU_FAULT: worker whose translate context faulted */
};

/* One item of parallel work.  `worker` < env->nworkers identifies the host
 * thread (so per-worker state such as the MMU context can be used). */
typedef void (*vagx_render_item_fn)(void *ctx, unsigned item, unsigned worker);

struct vagx_render_env {
   /* Translation, compatible with the shader core's vagx_usc_mem_ops. */
   const struct vagx_usc_mem_ops *mem;
   /* Translate context of worker w (0..nworkers-1) or of the calling thread
    * (w == nworkers).  NULL: mem_opaque is used for every thread (then
    * translate must be thread-safe). */
   void *(*mem_ctx)(void *opaque, unsigned worker);
   void *mem_opaque;
   /* Parallel for: calls fn(ctx, i, worker) once for every i < n_items and
    * returns when all are done.  NULL: serial on the calling thread with
    * worker 0.  Workers must be < nworkers.  A memory safepoint of every
    * worker (the caller may wait for the others outside its slice): the
    * renderer keeps no translation across it (r_run). */
   void (*run)(void *opaque, unsigned n_items, vagx_render_item_fn fn, void *ctx);
   void *run_opaque;
   unsigned nworkers;             /* >= 1 */
   /* Optional program cache shared with the rest of the core (keyed by
    * root); NULL: the render device's own cache. */
   struct vagx_usc_cache *cache;
   uint64_t root;                 /* page-table root (cache key) */
   vagx_usc_abort_t *abort;       /* may be NULL; polled between tiles and in shaders */
   uint64_t (*now_ns)(void *opaque); /* timestamps; NULL writes 0 */
   void *now_opaque;
};

struct vagx_render_device;

struct vagx_render_device *vagx_render_device_create(void);
void vagx_render_device_destroy(struct vagx_render_device *dev);

/* Runs the render_job at desc_va to completion.  Returns VAGX_JOB_STATUS_OK,
 * or another status with *fault filled (first error wins; partial writes
 * remain).  One job at a time per device. */
enum vagx_job_status vagx_render_run(struct vagx_render_device *dev,
                                     const struct vagx_render_env *env, uint64_t desc_va,
                                     struct vagx_render_fault *fault);

/* The texture unit for programs that run outside render jobs (compute jobs,
 * docs/hw/compute.md): tex, img_ld and img_st of `prog`'s descriptor tables,
 * exactly as in render jobs; any other graphics instruction is an illegal
 * instruction.  begin() when the job starts (NULL: out of host memory), on
 * the device of the job's queue, which runs one job at a time: it takes the
 * device's per-worker state (descriptors are read on first use and kept for
 * the job).  env gives mem and nworkers (worker indices 0..nworkers). */
struct vagx_render_texunit;
struct vagx_render_texunit *vagx_render_texunit_begin(struct vagx_render_device *dev,
                                                      const struct vagx_render_env *env,
                                                      const struct vagx_usc_program *prog);
/* Hooks the unit into the USC runs of `worker`, whose translate context is
 * mem_ctx (env->gfx, gfx_ctx, safepoints).  Every call starts a new
 * translate context: nothing translated before is used again. */
void vagx_render_texunit_bind(struct vagx_render_texunit *tu, unsigned worker, void *mem_ctx,
                              struct vagx_usc_env *env);
/* After a run stopped: true and *fault when the unit recorded the error (a
 * bad texture, sampler or image descriptor: INVALID_DESCRIPTOR with the unit
 * and address; a texel or descriptor access the MMU refused: MMU_FAULT with
 * the worker whose translate context faulted).  First error wins. */
bool vagx_render_texunit_error(struct vagx_render_texunit *tu, struct vagx_render_fault *fault);
void vagx_render_texunit_end(struct vagx_render_texunit *tu);

/* Counters of the last job run on the device (tests, benchmarks). */
struct vagx_render_stats {
   uint64_t fragment_lanes;   /* non-helper lanes handed to fragment shaders */
   uint64_t bin_entries;      /* primitive references stored in tile bins */
   uint64_t fast_bg_tiles;    /* tiles whose background program was a constant fill */
   uint64_t fast_eot_tiles;   /* tiles whose end-of-tile program was a row copy */
   uint64_t fast_bands;       /* rows of tiles without primitives stored as whole rows */
   uint64_t par_vertex_groups; /* 32-vertex groups shaded on the pool */
   uint64_t par_prim_chunks;  /* primitive chunks set up on the pool */
};
void vagx_render_get_stats(const struct vagx_render_device *dev, struct vagx_render_stats *stats);

/* Device options; the defaults (0) are what the device implements.  The
 * switches exist so tests can check that an optimisation changes no image. */
enum {
   VAGX_RENDER_OPT_BBOX_BINNING = 1u << 0,  /* bin triangles by bounding box only */
   VAGX_RENDER_OPT_NO_FAST_TILE = 1u << 1,  /* always interpret background/end-of-tile programs */
   VAGX_RENDER_OPT_NO_HSR = 1u << 2,        /* shade every fragment, even of opaque pipelines */
   /* translate and address every pixel, texel and depth sample on its own and
    * convert it with the generic format code (the reference for the span,
    * tile and per-format fast paths of render_io.h) */
   VAGX_RENDER_OPT_NO_FAST_IO = 1u << 3,
   /* test every sample against the edge functions on its own instead of a
    * block's edge functions stepped across it (the reference for the ISP's
    * block coverage) */
   VAGX_RENDER_OPT_NO_FAST_RASTER = 1u << 4,
   /* interpret every shader instruction (no JIT code for ALU runs, usc_jit.c;
    * the environment variable VAGX_USC_JIT=0 turns the JIT off everywhere) */
   VAGX_RENDER_OPT_NO_JIT = 1u << 5,
   /* shade vertices and set up primitives on the calling thread only (the
    * reference for the geometry across workers of render_geom_par.c) */
   VAGX_RENDER_OPT_SERIAL_GEOMETRY = 1u << 6,
   /* hidden-surface removal for every opaque run, however cheap its shader
    * (by default only shaders that cost more than the second pass, render.md) */
   VAGX_RENDER_OPT_ALL_HSR = 1u << 7,
};
/* The environment variable VAGX_RENDER_OPTIONS (a number, read when a device
 * is created) is ORed into every vagx_render_set_options(), so a whole GL
 * stack can be run on the reference paths (e.g. VAGX_RENDER_OPTIONS=26). */
void vagx_render_set_options(struct vagx_render_device *dev, unsigned options);

/* Geometry budget per job in bytes (tests); 0 restores the contract's
 * VAGX_RENDER_GEOMETRY_BUDGET. */
void vagx_render_set_geometry_budget(struct vagx_render_device *dev, uint64_t bytes);

/* Trivial serial implementation of env->run (for tests). */
void vagx_render_run_serial(void *opaque, unsigned n_items, vagx_render_item_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
